"""Sweeps from a file: a grid over models × seeds × task options × agent options, run as one
resumable sweep of ordinary run directories (one per cell), with a dry run that prints the plan.

The file is YAML (`.yaml`, `.yml`) or TOML (`.toml`) and holds `playbench run` options by their long
names (`-` or `_`), plus the axes:

    out: runs/my-sweep              # the sweep folder (default runs/sweep-<file name>)
    tasks: [ivispar/sgp, comma/button]
    agent: llm
    models: [openai:gpt-4o, anthropic:claude-sonnet-4-5]     # an axis (or `model: ...`)
    seeds: [0, 1]                                            # an axis (or `seed: 0`)
    episodes: 20
    set: {max_steps: 20}                                     # task options of every cell (--set)
    agent_opts: {temperature: 0}                             # agent options of every cell (--agent-opt)
    grid:                                                    # every combination is a cell
      set: {"ivispar/sgp:past_window": [0, 2]}
      agent_opts: {history: [0, 4]}
    concurrency: 8                                           # episodes in flight over the whole sweep

Each cell is a run directory `<out>/<model>[__<option>=<value>...]__s<seed>`, written and resumed like
any `playbench run --out` (running the same file again runs only what is missing); `<out>/sweep.json`
records the file and the cells. `playbench report <out>` reads every cell.

A grid axis multiplies only the tasks it can change: a task option scoped to one task
(`task/id:key`) changes that task, an unscoped task option the tasks that have it, an agent option
every task. The tasks are grouped by the axes that apply to them and every group has cells of its own,
named by only its axes' values, so above `comma/button` runs in `<model>__history=<h>__s<seed>` (once
per model, history and seed) and `ivispar/sgp` in `<model>__past_window=<p>__history=<h>__s<seed>`.
When every axis applies to every task there is one group and the cells are those of a plain grid
(`tasks` stays in the options every cell shares). A grid task option that no task of the sweep has is
an error of the file.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from playbench.core.errors import ConfigError
from playbench.core.types import TextPart

SWEEP_FILE = "sweep.json"

# file key -> the `playbench run` option it stands for
SCALAR_OPTIONS = {
    "agent": "--agent",
    "episodes": "--episodes",
    "trials": "--trials",
    "concurrency": "--concurrency",
    "executor": "--executor",
    "ray_address": "--ray-address",
    "expert_agent": "--expert-agent",
    "expert_model": "--expert-model",
    "judge_model": "--judge-model",
    "captioner_model": "--captioner-model",
    "history": "--history",
    "temperature": "--temperature",
    "top_p": "--top-p",
    "max_tokens": "--max-tokens",
    "reasoning_effort": "--reasoning-effort",
    "reasoning_tokens": "--reasoning-tokens",
    "image_format": "--image-format",
    "image_detail": "--image-detail",
    "base_url": "--base-url",
    "model_concurrency": "--model-concurrency",
    "max_retries": "--max-retries",
    "retry_delay": "--retry-delay",
    "timeout": "--timeout",
    "prices": "--prices",
    "cache": "--cache",
    "max_error_rate": "--max-error-rate",
}
FLAG_OPTIONS = {
    "no_cot": "--no-cot",
    "no_images": "--no-images",
    "no_calls": "--no-calls",
    "keep_errors": "--keep-errors",
}
DICT_OPTIONS = {"set": "--set", "agent_opts": "--agent-opt"}
JSON_OPTIONS = {"extra_body": "--extra-body"}  # one JSON object, passed on as its text
OTHER_KEYS = {"out", "tasks", "task", "models", "model", "seeds", "seed", "grid", *JSON_OPTIONS}
ACCEPTED = sorted({*SCALAR_OPTIONS, *FLAG_OPTIONS, *DICT_OPTIONS, *OTHER_KEYS})


@dataclass
class Cell:
    """One point of the grid: a run directory of its own."""

    name: str
    model: str | None
    seed: int
    grid: dict[str, Any] = field(default_factory=dict)  # "set:KEY" / "agent_opts:KEY" -> value
    # the cell's own `playbench run` options: `head` first (its tasks and the file's task options that
    # only some cells' tasks have, when the cells do not all run every task), then seed, model, grid
    argv: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)  # the task ids it runs
    head: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "seed": self.seed,
            "grid": self.grid,
            "tasks": self.tasks,
        }


@dataclass
class Sweep:
    path: Path  # the file
    data: dict[str, Any]  # its content
    out: Path  # the sweep folder
    argv: list[str]  # `playbench run` options every cell shares (tasks first when every cell runs them all)
    cells: list[Cell]
    # each task's options, when the grid has task options (to route command-line `--set`s: `cell_argv`)
    fields: dict[str, set[str]] = field(default_factory=dict)
    split: bool = False  # the cells do not all run every task: each cell's tasks lead its own options

    def cell_argv(self, cell: Cell, extra: Sequence[str] = ()) -> list[str]:
        """One cell's `playbench run` options with `extra` (the command line's, beside --config): those
        win over the file's own options and lose to the cell's grid values; a `--set` of an option that
        none of the cell's tasks has (but another cell's has) is left out of the cells that cannot take it."""
        own = cell.argv[len(cell.head) :]
        tasks = cell.head[: len(cell.tasks)] if self.split else []  # then the head starts with them
        sets = cell.head[len(tasks) :]
        return [*tasks, *self.argv, *sets, *_sets_for(list(extra), cell.tasks, self.fields), *own]


@dataclass
class Axis:
    """One grid axis: `--set` (kind "set") or `--agent-opt` (kind "agent_opts") option `name`."""

    kind: str
    name: str  # the option as written: "key" or "task/id:key"
    values: list[Any]

    @property
    def key(self) -> str:  # as in Cell.grid
        return f"{self.kind}:{self.name}"


def _takes(option: str, task_id: str, fields: dict[str, set[str]]) -> bool:
    """Whether the task option `option` (`key` or `task/id:key`) reaches task `task_id`."""
    target, sep, key = option.partition(":")
    return target == task_id if sep else option in fields.get(task_id, set())


def _applies(axis: Axis, task_id: str, fields: dict[str, set[str]]) -> bool:
    """Whether the axis can change the task: agent options change every task, task options the ones
    they reach."""
    return axis.kind != "set" or _takes(axis.name, task_id, fields)


def _sets_for(tokens: list[str], task_ids: list[str], fields: dict[str, set[str]]) -> list[str]:
    """`tokens` without the `--set K=V` whose option none of `task_ids` takes but another task does (an
    option no task has stays, for the run to refuse)."""
    if not fields:
        return tokens
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--set" and i + 1 < len(tokens):
            pair, step = tokens[i + 1], 2
        elif token.startswith("--set="):
            pair, step = token[len("--set=") :], 1
        else:
            out.append(token)
            i += 1
            continue
        option = pair.partition("=")[0].strip()
        elsewhere = any(_takes(option, t, fields) for t in fields)
        if not elsewhere or any(_takes(option, t, fields) for t in task_ids):
            out += tokens[i : i + step]
        i += step
    return out


def read_file(path: str | Path) -> dict[str, Any]:
    """The sweep file's content; a ConfigError naming the file for anything unreadable."""
    p = Path(path).expanduser()
    suffix = p.suffix.lower()
    if suffix not in (".yaml", ".yml", ".toml"):
        raise ConfigError(f"sweep file '{path}': expected a .yaml, .yml or .toml file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"sweep file '{path}' does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read sweep file '{path}': {exc}") from None
    try:
        data = tomllib.loads(text) if suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"sweep file '{path}' is not valid {suffix[1:].upper()}: {first}") from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"sweep file '{path}' must hold a mapping of options (accepted keys: {', '.join(ACCEPTED)})"
        )
    return {str(k).replace("-", "_"): v for k, v in data.items()}


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text).strip("_") or "x"


def _value_text(value: Any) -> str:
    """An option value as `--set`/`--agent-opt` read it (JSON unless a plain string)."""
    return value if isinstance(value, str) else json.dumps(value)


def _list(data: dict[str, Any], plural: str, single: str, where: Path) -> list[Any] | None:
    if plural in data and single in data:
        raise ConfigError(f"sweep file '{where}': give '{plural}' or '{single}', not both")
    if plural in data:
        value = data[plural]
        if not isinstance(value, list) or not value:
            raise ConfigError(f"sweep file '{where}': '{plural}' must be a non-empty list (got {value!r})")
        return value
    if single in data:
        return [data[single]]
    return None


def _mapping(value: Any, key: str, where: Path) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"sweep file '{where}': '{key}' must be a mapping of option: value (got {value!r})")
    return {str(k): v for k, v in value.items()}


def load(path: str | Path, out: str | None = None) -> Sweep:
    """Read a sweep file and expand its grid into cells (`out` overrides the file's sweep folder)."""
    where = Path(path)
    data = read_file(path)
    unknown = sorted(set(data) - set(ACCEPTED))
    if unknown:
        raise ConfigError(
            f"sweep file '{where}': unknown key(s) {', '.join(unknown)} (accepted: {', '.join(ACCEPTED)})"
        )
    tasks = _list(data, "tasks", "task", where)
    if not tasks or not all(isinstance(t, str) and t for t in tasks):
        raise ConfigError(f"sweep file '{where}': 'tasks' must list task ids (e.g. tasks: [ivispar/sgp])")
    common: list[str] = []  # the options every cell shares, after the tasks
    if "agent" not in data:
        common += ["--agent", "llm"]
    for key, option in SCALAR_OPTIONS.items():
        if key in data and data[key] is not None:
            if isinstance(data[key], dict | list):
                raise ConfigError(f"sweep file '{where}': '{key}' takes one value (got {data[key]!r})")
            common += [option, str(data[key])]
    for key, option in JSON_OPTIONS.items():
        if data.get(key) is not None:
            if not isinstance(data[key], dict):
                raise ConfigError(f"sweep file '{where}': '{key}' must be a mapping (got {data[key]!r})")
            common += [option, json.dumps(data[key])]
    for key, option in FLAG_OPTIONS.items():
        if key in data:
            if not isinstance(data[key], bool):
                raise ConfigError(f"sweep file '{where}': '{key}' must be true or false (got {data[key]!r})")
            common += [option] if data[key] else []
    fixed: list[tuple[str, str]] = []  # (kind, "name=value") of every cell
    for key in DICT_OPTIONS:
        for name, value in _mapping(data.get(key), key, where).items():
            fixed.append((key, f"{name}={_value_text(value)}"))

    models = _list(data, "models", "model", where) or [None]
    seeds = _list(data, "seeds", "seed", where) or [0]
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"sweep file '{where}': seeds must be whole numbers (got {seed!r})")
    for model in models:
        if model is not None and not isinstance(model, str):
            raise ConfigError(f"sweep file '{where}': models must be PROVIDER:MODEL strings (got {model!r})")
    grid = _mapping(data.get("grid"), "grid", where)
    bad = sorted(set(grid) - set(DICT_OPTIONS))
    if bad:
        raise ConfigError(
            f"sweep file '{where}': grid key(s) {', '.join(bad)} are not axes (accepted: set, agent_opts; "
            "models and seeds are axes of their own)"
        )
    axes: list[Axis] = []
    for kind in DICT_OPTIONS:
        for name, values in _mapping(grid.get(kind), f"grid.{kind}", where).items():
            if not isinstance(values, list) or not values:
                raise ConfigError(
                    f"sweep file '{where}': grid.{kind}.{name} must be a non-empty list of values (got {values!r})"
                )
            axes.append(Axis(kind, name, values))

    task_ids, fields = _tasks(tasks, axes, where)
    # the tasks by the axes that can change them (in the order of the file); one group is a plain grid
    by_axes: dict[tuple[int, ...], list[str]] = {}
    for task_id in task_ids:
        applying = tuple(i for i, axis in enumerate(axes) if _applies(axis, task_id, fields))
        by_axes.setdefault(applying, []).append(task_id)
    groups = list(by_axes.items())
    split = len(groups) > 1
    argv = [*([] if split else tasks), *common]
    heads: dict[tuple[int, ...], list[str]] = {g: [*ids] if split else [] for g, ids in groups}
    for kind, pair in fixed:
        option = DICT_OPTIONS[kind]
        name = pair.partition("=")[0]
        reach = [g for g, ids in groups if kind == "set" and any(_takes(name, t, fields) for t in ids)]
        if not split or kind != "set" or not reach or len(reach) == len(groups):
            argv += [option, pair]  # every cell's (an option no task has too: the run refuses it)
        else:  # only the cells whose tasks have it: another task refuses an option it lacks
            for g in reach:
                heads[g] += [option, pair]

    agent = str(data.get("agent") or "llm")

    def expand(long: set[int]) -> list[Cell]:
        """The cells; an axis in `long` is named in full (`task/id.key`) rather than by its key."""
        cells: list[Cell] = []
        for model in models:
            for group, ids in groups:
                for combo in itertools.product(*(axes[i].values for i in group)):
                    for seed in seeds:
                        own = ["--seed", str(seed)] + (["--model", model] if model else [])
                        values: dict[str, Any] = {}
                        parts = [_slug(model) if model else _slug(agent)]
                        for i, value in zip(group, combo, strict=True):
                            axis = axes[i]
                            own += [DICT_OPTIONS[axis.kind], f"{axis.name}={_value_text(value)}"]
                            values[axis.key] = value
                            label = axis.name.replace(":", ".") if i in long else axis.name.rsplit(":", 1)[-1]
                            parts.append(_slug(f"{label}={_value_text(value)}"))
                        parts.append(f"s{seed}")
                        head = heads[group]
                        cells.append(
                            Cell("__".join(parts), model, int(seed), values, [*head, *own], list(ids), head)
                        )
        return cells

    cells = expand(set())
    if len({c.name for c in cells}) != len(cells):
        # two groups' axes with one key (`a/x:k`, `b/y:k`): name those axes by task too
        keys = [axis.name.rsplit(":", 1)[-1] for axis in axes]
        cells = expand({i for i, key in enumerate(keys) if keys.count(key) > 1})
    if len({c.name for c in cells}) != len(cells):
        raise ConfigError(
            f"sweep file '{where}': two cells would share a folder name; make the grid values distinct"
        )
    folder = Path(out or data.get("out") or f"runs/sweep-{_slug(where.stem)}")
    return Sweep(where, data, folder, argv, cells, fields, split)


def _tasks(tasks: list[str], axes: list[Axis], where: Path) -> tuple[list[str], dict[str, set[str]]]:
    """The sweep's task ids, and when the grid has task options each task's options (after checking
    that every such axis reaches a task that has it)."""
    from playbench.core.registry import resolve

    try:
        specs = resolve(tasks)
    except ConfigError as exc:
        raise ConfigError(f"sweep file '{where}': {exc}") from None
    ids = [s.id for s in specs]
    if not any(axis.kind == "set" for axis in axes):
        return ids, {}
    fields = {s.id: set(s.load_class().Config.model_fields) for s in specs}
    for axis in axes:
        if axis.kind != "set":
            continue
        target, sep, key = axis.name.partition(":")
        if sep and target not in fields:
            raise ConfigError(
                f"sweep file '{where}': grid.set '{axis.name}': task '{target}' is not one of the sweep's "
                f"tasks ({', '.join(ids)})"
            )
        if sep and key not in fields[target]:
            raise ConfigError(
                f"sweep file '{where}': grid.set '{axis.name}': {target} has no option '{key}' "
                f"(its options: {', '.join(sorted(fields[target])) or 'none'})"
            )
        if not sep and not any(axis.name in f for f in fields.values()):
            accepted = sorted(set().union(*fields.values()))
            raise ConfigError(
                f"sweep file '{where}': grid.set '{axis.name}': no task of the sweep has this option "
                f"(their options: {', '.join(accepted) or 'none'})"
            )
    return ids, fields


def write_plan(sweep: Sweep) -> Path:
    """`<out>/sweep.json`: the file, its content and the cells (what `report` and `results` read)."""
    sweep.out.mkdir(parents=True, exist_ok=True)
    target = sweep.out / SWEEP_FILE
    data = {
        "file": str(sweep.path),
        "config": sweep.data,
        "cells": [c.to_dict() for c in sweep.cells],
        "written_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    tmp.replace(target)
    return target


# --- the dry run's estimate -----------------------------------------------------------------------
# Tokens of one image as OpenAI counts a high-detail image (85 + 170 per 512-pixel tile, after scaling
# to fit 2048 and a shortest side of 768); other providers count in the same range.
def image_tokens(width: int, height: int) -> int:
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


DEFAULT_TURNS = 50  # a task without a step cap: assume this many turns per seat


@dataclass
class Estimate:
    """One task of one run: episodes and what the missing ones may use."""

    task: str
    planned: int
    done: int
    to_run: int
    calls: float
    input_tokens: float
    output_tokens: float
    cost: float | None
    basis: str  # how the figures were made

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def estimate(config: Any) -> list[Estimate]:
    """What `config` (a RunConfig) would run: per task the planned episodes, those already on record,
    and for the missing ones the model calls, tokens and cost, measured from the run's own finished
    episodes where it has some, else bounded from the task's step cap and its first prompt."""
    from playbench.agents import AgentSpec
    from playbench.agents.llm import read_model_options
    from playbench.core.registry import make_task
    from playbench.runner.reader import RunReader, record_key
    from playbench.runner.run import plan

    jobs, routed = plan(config)
    records = RunReader(config.out).records()
    keep = {record_key(r) for r in records if not config.retry_errors or not r.get("error")}
    out: list[Estimate] = []
    by_task: dict[str, list[Any]] = {}
    for job in jobs:
        by_task.setdefault(job.task_id, []).append(job)
    for task_id, task_jobs in by_task.items():
        to_run = [j for j in task_jobs if j.key not in keep]
        done = len(task_jobs) - len(to_run)
        measured = [r for r in records if r["task"] == task_id and (r.get("usage") or {}).get("calls")]
        if measured:
            n = len(measured)
            per = {
                k: sum((r["usage"] or {}).get(k) or 0 for r in measured) / n
                for k in ("calls", "input_tokens", "output_tokens")
            }
            costs = [(r["usage"] or {}).get("cost") for r in measured]
            measured_cost = None if any(c is None for c in costs) else sum(costs) / n * len(to_run)
            out.append(
                Estimate(
                    task_id,
                    len(task_jobs),
                    done,
                    len(to_run),
                    per["calls"] * len(to_run),
                    per["input_tokens"] * len(to_run),
                    per["output_tokens"] * len(to_run),
                    measured_cost,
                    f"mean of {n} finished episode(s)",
                )
            )
            continue
        calls = inp = outp = 0.0
        cost: float | None = 0.0
        job = task_jobs[0]
        task = make_task(task_id, **routed[task_id])
        task.reset(task.load_instance(job.instance))
        role = task.current_role()
        obs = task.observe(role)
        # the task's own earlier turns count as sent (Observation.turns): their text and images too
        images = sum(image_tokens(*_size(img.png)) for img in obs.all_images)
        earlier = sum(len(p.text) for t in obs.turns or [] for p in t.parts if isinstance(p, TextPart))
        prompt = (len(obs.instructions) + len(obs.text) + earlier) / 4 + images
        cap = getattr(task.config, "max_steps", None) or DEFAULT_TURNS
        for seat in task.roles:
            spec = AgentSpec.from_dict(job.agents.get(seat) or job.agents.get("*") or {"name": "?"})
            if not spec.model:
                continue
            turns = 1 if seat == "judge" else cap
            # the chat window, as the agent reads it ("all" keeps every earlier exchange)
            history = read_model_options({"history": spec.options.get("history") or 0}).history
            seat_calls = turns * (1 + (len(obs.all_images) if spec.options.get("captioner") else 0))
            # turn t sends itself and at most min(t - 1, history) earlier exchanges
            seat_in = prompt * sum(1 + min(t - 1, history) for t in range(1, turns + 1))
            cap_out = spec.options.get("max_tokens")
            per_call = cap_out if isinstance(cap_out, int) and not isinstance(cap_out, bool) else 1024
            per_call += int(spec.options.get("reasoning_tokens") or 0)
            seat_out = seat_calls * per_call
            calls, inp, outp = calls + seat_calls, inp + seat_in, outp + seat_out
            price = _price(spec.model, config)
            cost = (
                None
                if cost is None or price is None
                else cost + (seat_in * price[0] + seat_out * price[1]) / 1e6
            )
        n = len(to_run)
        out.append(
            Estimate(
                task_id,
                len(task_jobs),
                done,
                n,
                calls * n,
                inp * n,
                outp * n,
                None if cost is None else cost * n,
                f"at most: {cap} turns per seat, first prompt ~{round(prompt)} tokens, max_tokens out",
            )
        )
    return out


def _size(png: bytes) -> tuple[int, int]:
    if png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) >= 24:
        return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return (512, 512)


def _price(spec: str, config: Any) -> tuple[float, float] | None:
    from playbench.models import parse_spec
    from playbench.models.pricing import merge_prices, price_for

    provider, model = parse_spec(spec.split("@http", 1)[0])
    if provider == "mock":
        return (0.0, 0.0)
    price = price_for(spec, model, merge_prices(config.models.prices or None))
    if getattr(config.models, "batch_dir", None):  # --batch: the batch APIs' price
        from playbench.models.pricing import batch_price

        price = batch_price(price)
    return None if price is None else (price["input"], price["output"])
