"""The `playbench` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.registry import all_specs, get_spec, parse_assignments, resolve
from playbench.models.base import REASONING_EFFORTS

err_console = Console(stderr=True, soft_wrap=True)
DEFAULT_QUICKSTART_AGENTS = ("oracle", "random")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, as every usage error
        self.exit(2, f"playbench: error: {message}\n")


def _add_task_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="task option (repeatable); 'task/id:key=value' sets it for one task only",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="playbench", description="Interactive benchmarks for LLMs, VLMs and humans.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    lst = sub.add_parser("list", help="tasks, agents and model providers")
    lst.add_argument(
        "--digests",
        action="store_true",
        help="print each task id with the digest of its default instance set (seed 0) instead",
    )

    check = sub.add_parser("check", help="run the task-protocol conformance check on tasks")
    check.add_argument("tasks", nargs="+", metavar="TASK", help="task ids, or a suite name for its tasks")
    check.add_argument("--sample", type=int, default=6, help="instances per per-step check (default 6)")
    check.add_argument("--fuzz", type=int, default=40, help="random replies per fuzz check (default 40)")

    run = sub.add_parser("run", help="run episodes and write a run directory (or a sweep from a file)")
    run.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK",
        help="task ids, or a suite name for all its tasks (not with --config)",
    )
    run.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a sweep file (YAML or TOML): a grid over models, seeds, task and agent options, one run per cell",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the episodes, model calls, tokens and cost each run would take, and run nothing",
    )
    _add_run_options(run, agent_required=False, agent_note="required unless --config gives it")

    inst = sub.add_parser("instances", help="print a task's instances as JSONL")
    inst.add_argument("task", metavar="TASK")
    inst.add_argument("-n", type=int, default=None, help="how many (default: the task's default set)")
    inst.add_argument("--seed", type=int, default=0)
    _add_task_options(inst)

    rep = sub.add_parser("report", help="tables (terminal, Markdown, CSV) from run directories")
    rep.add_argument("dirs", nargs="+", metavar="DIR")
    rep.add_argument(
        "--out", default=None, help="where report.md/.csv/.json go (default: the only DIR, or ./report)"
    )
    rep.add_argument("--html", default=None, metavar="FILE", help="also write one self-contained HTML report")

    serve = sub.add_parser("serve", help="web app: play in the browser, replay trajectories, compare runs")
    serve.add_argument(
        "--runs",
        action="append",
        default=None,
        metavar="DIR",
        help="run directory to browse (repeatable; default: ./runs); browser plays are recorded under the first",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: this machine only)"
    )
    serve.add_argument("--port", type=int, default=8000)

    play = sub.add_parser("play", help="play a task yourself in the terminal")
    play.add_argument("task", metavar="TASK")
    play.add_argument("--instance", default=None, help="instance id (default: the first of the set)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--out", default="runs/play")
    play.add_argument(
        "--seat", default=None, metavar="ROLE", help="your role in a multi-role task (default: all)"
    )
    play.add_argument("--partner", default="human", help="agent in the other seats (default: human)")
    play.add_argument("--partner-model", default=None, help="model of a model-driven partner")
    _add_task_options(play)

    repro = sub.add_parser(
        "reproduce", help="run a suite's paper preset and report beside the paper's published numbers"
    )
    repro.add_argument(
        "suite",
        metavar="SUITE",
        help="a suite with a paper preset (playbench list), or 'all': every preset into one folder and one scorecard",
    )
    repro.add_argument(
        "--dry-run",
        action="store_true",
        help="print the preset's episodes, model calls, tokens and cost, and run nothing (no API key needed)",
    )
    _add_run_options(
        repro,
        agent_required=False,
        out_help="run directory (default: runs/reproduce-<suite>-<agent>[-<model>]-s<seed>)",
    )

    from playbench.cli_originals import add_parser as add_originals_parser

    add_originals_parser(sub)

    quick = sub.add_parser("quickstart", help="every task with the oracle and random agents, then a report")
    quick.add_argument("--episodes", type=int, default=10)
    quick.add_argument("--seed", type=int, default=0)
    quick.add_argument("--out", default="runs/quickstart")
    quick.add_argument("--concurrency", type=int, default=4)
    return parser


def _add_run_options(
    run: argparse.ArgumentParser,
    agent_required: bool = True,
    agent_note: str = "default: the preset's (the paper's) agent",
    out_help: str = "run directory (default: runs/<tasks>-<agent>[-<model>]-s<seed>)",
) -> None:
    run.add_argument(
        "--agent",
        required=agent_required,
        default=None,
        help="random | oracle | replay:FILE | human | llm | a suite's agent (playbench list)"
        + ("" if agent_required else f"; {agent_note}"),
    )
    run.add_argument(
        "--model",
        action="append",
        default=None,
        help="provider:model for the llm agent, e.g. openai:gpt-4o; repeat it to sweep several models",
    )
    run.add_argument(
        "--episodes", type=int, default=None, help="instances per task (default: the task's set)"
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--trials", type=int, default=1, help="runs per instance")
    run.add_argument("--out", default=None, help=out_help)
    run.add_argument("--concurrency", type=int, default=1, help="episodes in flight at once")
    run.add_argument("--executor", default="local", help="local (asyncio in this process) or ray")
    run.add_argument("--ray-address", default=None, help="Ray cluster to join (default: start a local one)")
    _add_task_options(run)
    r = run.add_argument_group("other seats and helper models")
    r.add_argument(
        "--expert-agent", default=None, help="agent in the 'expert' seat of two-role tasks (COMMA)"
    )
    r.add_argument("--expert-model", default=None, help="model of a model-driven expert agent")
    r.add_argument(
        "--judge-model",
        default=None,
        help="model that judges episodes of tasks with a judge step (sets their option judge=true)",
    )
    r.add_argument(
        "--captioner-model", default=None, help="vision model that describes images for a text-only --model"
    )
    r.add_argument(
        "--agent-opt",
        dest="agent_opts",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="option of a suite's own agent (repeatable; see `playbench list`)",
    )
    g = run.add_argument_group("llm agent")
    g.add_argument(
        "--history",
        type=_history,
        default=None,
        metavar="K|all",
        help="earlier exchanges kept in a real chat; 'all' keeps every one (default: the paper's, else 0)",
    )
    g.add_argument("--no-cot", action="store_true", help="ask for the action line only, no reasoning")
    g.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature (default: the paper's, else the provider's)",
    )
    g.add_argument(
        "--top-p",
        type=float,
        default=None,
        help="nucleus sampling (default: the paper's, else the provider's)",
    )
    g.add_argument(
        "--max-tokens",
        type=_max_tokens,
        default=None,
        metavar="N|none",
        help="cap on the visible answer; 'none' sends no cap (default: the paper's, else 1024)",
    )
    g.add_argument(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        default=None,
        help="ask a reasoning model for this effort (OpenAI reasoning_effort, Anthropic thinking, Gemini thinking)",
    )
    g.add_argument(
        "--reasoning-tokens",
        type=int,
        default=None,
        metavar="N",
        help="thinking budget in tokens, added to the answer cap (Anthropic budget_tokens, Gemini thinking_budget)",
    )
    g.add_argument(
        "--extra-body",
        default=None,
        metavar="JSON",
        help="a JSON object merged into every request body (a provider's own fields)",
    )
    g.add_argument(
        "--image-format",
        choices=("png", "jpeg"),
        default=None,
        help="how images are sent (default: the paper's, else png)",
    )
    g.add_argument(
        "--image-detail",
        choices=("low", "high", "auto"),
        default=None,
        help="OpenAI's image detail (default: the paper's, else none sent)",
    )
    m = run.add_argument_group("model backend")
    m.add_argument(
        "--base-url", default=None, help="OpenAI-compatible server (vLLM, SGLang, Ollama); or OPENAI_BASE_URL"
    )
    m.add_argument("--model-concurrency", type=int, default=8, help="requests in flight per model")
    m.add_argument("--max-retries", type=int, default=5)
    m.add_argument("--retry-delay", type=float, default=1.0, help="first backoff delay in seconds (doubles)")
    m.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    m.add_argument(
        "--prices", default=None, help="JSON file of USD per million tokens overriding the built-in table"
    )
    m.add_argument(
        "--cache",
        nargs="?",
        const="~/.cache/playbench/responses.sqlite",
        default=None,
        metavar="PATH",
        help="reuse model responses from an SQLite cache (default path when no PATH is given)",
    )
    o = run.add_argument_group("output")
    o.add_argument(
        "--no-images", action="store_true", help="do not save observation images beside trajectories"
    )
    o.add_argument(
        "--no-calls",
        action="store_true",
        help="do not write each episode's model calls (requests and responses) beside its trajectory",
    )
    o.add_argument(
        "--keep-errors",
        action="store_true",
        help="on resume, keep episodes that ended with an error instead of running them again",
    )
    o.add_argument(
        "--max-error-rate",
        type=float,
        default=0.0,
        metavar="R",
        help="exit with status 1 when more than this share of the episodes ended with an error (default 0)",
    )


# ---------------------------------------------------------------- commands


def _source_digest() -> str:
    """A digest of playbench's own files (code and shipped data): any change to them changes it."""
    import hashlib

    import playbench

    root = Path(playbench.__file__).parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def cmd_digests() -> int:
    """Each task id, its default set's size and digest (seed 0), and where the set comes from; a set read
    from an authors' clone in the originals folder is checked against the digest its suite pins. Sets of
    playbench's own (generated or shipped) are cached by the digest of playbench's files, so a second call
    is quick and any change to the code or data recomputes them; sets read from a clone are always read."""
    from playbench.core.originals import get_repo, resolve_options
    from playbench.core.task import instance_set_digest

    cache_dir = Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser() / "playbench"
    cache_file = cache_dir / f"digests-{_source_digest()}.json"
    try:
        cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    except (OSError, ValueError):
        cache = {}
    changed = False
    for spec in all_specs():
        cls = spec.load_class()
        options, _ = resolve_options(cls.originals, spec.options)
        key = f"{spec.id} {json.dumps(options, sort_keys=True, default=str)}"
        # a data option the originals folder filled: the set is read from files outside playbench
        data_options = cls.originals.data if cls.originals is not None else {}
        from_clone = any(options.get(k) != spec.options.get(k) for k in data_options)
        if key in cache and not from_clone:
            row = cache[key]
        else:
            task = cls(**options)
            instances = task.instances(None, 0)
            row = [spec.id, str(len(instances)), instance_set_digest(instances), task.data_origin()]
            if not from_clone:
                cache[key], changed = row, True
        origin = row[3]
        if cls.originals is not None and origin.startswith("original@") and "converted" not in origin:
            pinned = get_repo(cls.originals.repo).digests.get(spec.id)
            digest = row[2]
            row = [
                *row,
                "unpinned"
                if pinned is None
                else "pinned"
                if pinned == digest
                else f"DIFFERS from pinned {pinned}",
            ]
        print("\t".join(row))
    if changed:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            for old in cache_dir.glob("digests-*.json"):  # one playbench version's table at a time
                old.unlink(missing_ok=True)
            cache_file.write_text(json.dumps(cache))
        except OSError:
            pass  # a read-only home: the table was printed, only the next call is slower
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from playbench.testing.conformance import check_task

    if args.sample < 1 or args.fuzz < 0:
        raise ConfigError(f"--sample must be >= 1 and --fuzz >= 0 (got {args.sample}, {args.fuzz})")
    failed = 0
    for spec in resolve(args.tasks):
        report = check_task(spec, sample=args.sample, fuzz=args.fuzz)
        for r in report.results:
            mark = "ok  " if r.passed else "FAIL"
            line = f"{mark} {spec.id}: {r.name} ({r.seconds:.1f} s)"
            print(line + ("" if r.passed else f"\n     {r.message}"), flush=True)
        failed += not report.passed
    print(f"{failed} task(s) failed" if failed else "every check passed")
    return 1 if failed else 0


def cmd_list(args: argparse.Namespace) -> int:
    from playbench.agents import AGENTS, registered_agents
    from playbench.models import provider_entries

    if args.digests:
        return cmd_digests()
    con = Console()
    if not con.is_terminal:
        con = Console(width=200)
    con.print("[bold]Tasks[/bold]")
    for spec in all_specs():
        cls = spec.load_class()
        options = ", ".join(
            f"{name}={spec.options.get(name, field.get_default(call_default_factory=True))!r}"
            for name, field in cls.Config.model_fields.items()
        )
        by_name = (
            "" if spec.default else f" [dim](by id or {spec.suite}/*; not in a bare '{spec.suite}')[/dim]"
        )
        con.print(f"  [cyan]{spec.id}[/cyan]  {escape(spec.description)}{by_name}", highlight=False)
        con.print(f"      options: {options}", highlight=False, markup=False)
    con.print("[bold]Agents[/bold]")
    for name, text in AGENTS.items():
        con.print(f"  [cyan]{name}[/cyan]  {text}", highlight=False)
    for name, entry in registered_agents().items():
        extra = f" (options: {', '.join(entry.options)})" if entry.options else ""
        con.print(f"  [cyan]{name}[/cyan]  {escape(entry.description + extra)}", highlight=False)
    from playbench.core.preset import preset_names

    con.print("[bold]Paper presets[/bold] (playbench reproduce SUITE)")
    for name in preset_names():
        con.print(f"  [cyan]{name}[/cyan]", highlight=False)
    con.print("[bold]Model providers[/bold]")
    for entry in provider_entries().values():
        key = getattr(entry, "key_env", "")
        key_note = f" (key: ${key})" if key else ""
        con.print(
            f"  [cyan]{escape(entry.spec_form)}[/cyan]  {escape(entry.description + key_note)}",
            highlight=False,
        )
    return 0


def _agent_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.history is not None:
        options["history"] = args.history
    if args.no_cot:
        options["cot"] = False
    for key in MODEL_FLAGS:
        if getattr(args, key, None) is not None:
            options[key] = getattr(args, key)
    return options


# the llm options the command line sets by their own flags (`--top-p` is top_p ...)
MODEL_FLAGS = (
    "temperature",
    "top_p",
    "max_tokens",
    "reasoning_effort",
    "reasoning_tokens",
    "extra_body",
    "image_format",
    "image_detail",
)


def _history(text: str) -> int | str:
    if text.strip().lower() == "all":
        return "all"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or all (got {text!r})") from None


def _max_tokens(text: str) -> int | str:
    if text.strip().lower() == "none":
        return "none"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or none (got {text!r})") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or none (got {text!r})")
    return value


def _seat_agents(args: argparse.Namespace, main: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agents for every seat and the task options the extra seats imply."""
    from playbench.agents import parse_agent

    agents: dict[str, Any] = {"*": main}
    task_options: dict[str, Any] = {}
    if args.expert_model and not args.expert_agent:
        raise ConfigError("--expert-model needs --expert-agent (e.g. --expert-agent llm)")
    if args.expert_agent:
        uses_model = args.expert_model is not None
        agents["expert"] = parse_agent(
            args.expert_agent, args.expert_model, _agent_options(args) if uses_model else {}
        )
    if args.judge_model:
        # temperature 0 unless the task declares the judge's settings (core/model_side.ROLE_FALLBACKS)
        agents["judge"] = parse_agent("llm", args.judge_model, {})
        judged = [s.id for s in resolve(args.tasks) if "judge" in s.load_class().Config.model_fields]
        if not judged:
            raise ConfigError("--judge-model: none of the selected tasks has a judge step")
        task_options.update({f"{task_id}:judge": True for task_id in judged})
    return agents, task_options


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def _default_out(agent: str, model: str | None, seed: int, tasks: list[str] | None = None) -> str:
    """`runs/<tasks>-<agent>[-<model>]-s<seed>`: what ran names the folder, so two commands on different
    tasks never share one (`ivispar_sgp`, a suite's name, or `<first>-and-N-more`)."""
    label = ""
    if tasks:
        label = tasks[0] if len(tasks) == 1 else f"{tasks[0]}-and-{len(tasks) - 1}-more"
        label = _slug(label) + "-"
    return f"runs/{label}{_slug(agent if model is None else f'{agent}-{model}')}-s{seed}"


def _load_prices(path: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    from playbench.core.paths import readable_file
    from playbench.models import load_prices

    return load_prices(str(readable_file(path, "--prices file")))


def make_run_configs(args: argparse.Namespace) -> list[Any]:
    """One RunConfig, or one per `--model` value (a sweep), each in its own directory."""
    from playbench.agents import parse_agent
    from playbench.runner.model_pool import ModelSettings
    from playbench.runner.run import RunConfig

    models: list[str | None] = list(dict.fromkeys(args.model)) if args.model else [None]
    if len(models) > 1 and args.agent in {"random", "oracle", "human"}:
        raise ConfigError("several --model values need a model-driven --agent")
    from playbench.core.paths import writable_file

    cache = str(writable_file(args.cache, "--cache file")) if args.cache else None
    settings = ModelSettings(
        base_url=args.base_url,
        concurrency=args.model_concurrency,
        max_retries=args.max_retries,
        retry_base_delay=args.retry_delay,
        timeout=args.timeout,
        prices=_load_prices(args.prices),
        cache_path=cache,
    )
    configs = []
    main_options = parse_assignments(args.agent_opts)
    # the model flags (--max-tokens, --temperature, ...) are the model-driven seats': with a random or
    # oracle --agent and a model as expert they go to the expert alone
    if models != [None] or not args.expert_model:
        main_options.update(_agent_options(args))
    if args.captioner_model:
        main_options["captioner"] = args.captioner_model
    from playbench.models import make_model, parse_spec, split_server

    def check(spec: str) -> None:
        # fail fast on a bad spec or a missing key; a dry run needs no key (it calls no model)
        if getattr(args, "dry_run", False):
            parse_spec(split_server(spec)[0])
        else:
            make_model(spec, base_url=args.base_url)

    for extra in (args.expert_model, args.judge_model, args.captioner_model):
        if extra is not None:
            check(extra)
    for model in models:
        agent = parse_agent(args.agent, model, main_options)
        agents, seat_options = _seat_agents(args, agent)
        if model is not None:
            check(model)
        if len(models) == 1:
            out = args.out or _default_out(args.agent, model, args.seed, list(args.tasks))
            if args.out is None and args.expert_agent:
                out = (
                    out[: -len(f"-s{args.seed}")]
                    + _slug(f"+expert-{args.expert_agent}")
                    + (f"-{_slug(args.expert_model)}" if args.expert_model else "")
                    + f"-s{args.seed}"
                )
        else:
            out = str(Path(args.out or f"runs/sweep-s{args.seed}") / _slug(model or ""))
        configs.append(
            RunConfig(
                tasks=list(args.tasks),
                agents=agents,
                out=out,
                episodes=args.episodes,
                seed=args.seed,
                trials=args.trials,
                concurrency=args.concurrency,
                executor=args.executor,
                executor_options={"address": args.ray_address} if args.executor == "ray" else {},
                task_options={**parse_assignments(args.sets), **seat_options},
                models=settings,
                save_images=not args.no_images,
                save_calls=not args.no_calls,
                retry_errors=not args.keep_errors,
            )
        )
    return configs


def _progress_line(name: str, done: int, total: int, solved: int, errors: int, elapsed: float) -> str:
    """`NAME: 12/300 episodes (solved 3, errors 0), 0.80/s, ETA 6m00s` for a log that is not a terminal."""
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else None
    eta = (
        "done"
        if done >= total
        else "ETA ?"
        if left is None
        else f"ETA {int(left // 60)}m{int(left % 60):02d}s"
    )
    return f"{name}: {done}/{total} episodes (solved {solved}, errors {errors}), {rate:.2f}/s, {eta}"


def execute_with_progress(
    configs: Any,
    argv: list[str] | None = None,
    label: str | None = None,
    labels: list[str] | None = None,
    shared_concurrency: int | None = None,
) -> list[dict[str, Any]]:
    """Run one configuration or several at once (a sweep), with a progress bar each."""
    from playbench.runner.run import execute_many

    configs = configs if isinstance(configs, list) else [configs]
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("solved {task.fields[solved]}, errors {task.fields[errors]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=not err_console.is_terminal,
    )

    plain = not err_console.is_terminal  # a log file or a pipe: plain lines instead of a bar
    every = float(os.environ.get("PLAYBENCH_PROGRESS_SECONDS", "10"))

    def tracker(name: str) -> Any:
        state: dict[str, Any] = {
            "bar": None,
            "solved": 0,
            "errors": 0,
            "start": time.monotonic(),
            "said": 0.0,
        }

        def on_progress(output: Any, done: int, total: int) -> None:
            if state["bar"] is None:
                state["bar"] = progress.add_task(name, total=total, solved=0, errors=0)
            state["solved"] += bool(output.record["success"])
            state["errors"] += output.record["error"] is not None
            progress.update(state["bar"], completed=done, solved=state["solved"], errors=state["errors"])
            now = time.monotonic()
            if plain and (done == total or now - state["said"] >= every):
                state["said"] = now
                print(
                    _progress_line(name, done, total, state["solved"], state["errors"], now - state["start"]),
                    file=sys.stderr,
                    flush=True,
                )

        return on_progress

    names = labels or [label or c.out for c in configs]
    callbacks = [tracker(name) for name in names]
    with progress:
        summaries = asyncio.run(
            execute_many(configs, on_progress=callbacks, argv=argv, shared_concurrency=shared_concurrency)
        )
    for config, summary in zip(configs, summaries, strict=True):
        done_now = summary.get("run_this_time", 0)
        err_console.print(
            f"{config.out}: {summary['episodes']} episodes on record ({done_now} run now)", highlight=False
        )
    return summaries


def print_model_side(configs: list[Any]) -> None:
    """Before a run: the notices of its plan (texts: ours when no clone is there), one line per distinct
    model side (which settings each model-driven seat gets, and from where), and each task's fidelity
    stamp (texts, data, model side)."""
    from playbench.runner.fidelity import describe
    from playbench.runner.protocol import describe_settings
    from playbench.runner.run import plan_run

    notices: list[str] = []
    lines: dict[str, list[str]] = {}
    stamps: dict[str, list[str]] = {}
    for config in configs:
        plan = plan_run(config)
        if plan.model_side:  # texts matter to a model; a baseline's run needs no notice
            notices += [n for n in plan.notices if n not in notices]
        for task_id, record in plan.model_side.items():
            for role, seat in record["seats"].items():
                line = f"{seat['model']} as {role}: {describe_settings(seat['settings'])}"
                if record.get("task_options"):
                    line += (
                        " (task options "
                        + ", ".join(f"{k}={v}" for k, v in record["task_options"].items())
                        + ")"
                    )
                lines.setdefault(line, []).append(task_id)
        if config.trials > 1:  # --episodes counts instances: say what it multiplies into
            per_task: dict[str, int] = {}
            for job in plan.jobs:
                per_task[job.task_id] = per_task.get(job.task_id, 0) + 1
            for task_id, n in per_task.items():
                err_console.print(
                    f"{task_id}: {n // config.trials} instances × {config.trials} trials = {n} episodes",
                    highlight=False,
                    markup=False,
                )
        for task_id, stamp in plan.fidelity.items():
            if stamp.get("model_side") != "no model":  # what a model read; nothing to say for a baseline
                stamps.setdefault(describe(stamp), []).append(task_id)
    notices += [n for n in set_notices(configs) if n not in notices]
    for notice in notices:
        err_console.print(f"notice: {notice}", highlight=False, markup=False, style="yellow")
    for line, tasks in lines.items():
        shown = ", ".join(dict.fromkeys(tasks))
        err_console.print(f"model side of {shown}: {line}", highlight=False, markup=False)
    for line, tasks in stamps.items():
        shown = ", ".join(dict.fromkeys(tasks))
        err_console.print(f"fidelity of {shown}: {line}", highlight=False, markup=False)


def set_notices(configs: list[Any]) -> list[str]:
    """One line per suite whose tasks in these runs play playbench's own or generated instances rather
    than the paper's set: which set ran, and how to run the paper's."""
    from playbench.core.preset import preset_names
    from playbench.runner.run import plan_run

    presets = set(preset_names())
    by_suite: dict[str, list[str]] = {}
    for config in configs:
        for task_id, stamp in plan_run(config).fidelity.items():
            suite = task_id.split("/", 1)[0]
            if stamp.get("data") in ("ours", "generated") and suite in presets:
                by_suite.setdefault(suite, [])
                if task_id not in by_suite[suite]:
                    by_suite[suite].append(task_id)
    return [
        f"{', '.join(tasks)}: playbench's own instances, not the paper's set; the paper's: `playbench reproduce "
        f"{suite}` (where the paper used the authors' data, with their clone: `playbench originals fetch`)"
        for suite, tasks in by_suite.items()
    ]


def check_error_rate(value: float) -> float:
    if not 0.0 <= value <= 1.0 or value != value:
        raise ConfigError(f"--max-error-rate must be a share between 0 and 1 (got {value})")
    return value


def error_summary(configs: list[Any], summaries: list[dict[str, Any]], max_rate: float) -> int:
    """Say what went wrong in the runs (how many episodes errored, and the commonest messages) and
    return the exit status: 1 when a run's errored share is above `max_rate`, else 0."""
    status = 0
    for config, summary in zip(configs, summaries, strict=True):
        errors, episodes = int(summary.get("errors") or 0), int(summary.get("episodes") or 0)
        truncated = int(summary.get("truncated_replies") or 0)
        if truncated:
            err_console.print(
                f"{config.out}: warning: {truncated} repl{'y was' if truncated == 1 else 'ies were'} cut by the "
                "output budget (finish reason length) and read as they were; --max-tokens raises the cap",
                highlight=False,
                style="yellow",
            )
        if not errors:
            continue
        rate = errors / episodes if episodes else 1.0
        over = rate > max_rate
        status = 1 if over else status
        err_console.print(
            f"{config.out}: {errors} of {episodes} episodes ended with an error ({episodes - errors} scored); "
            "errored episodes are left out of every score and run again on resume",
            highlight=False,
            style="bold red" if over else "yellow",
        )
        kinds = summary.get("error_kinds") or {}
        if kinds:
            err_console.print(
                "  by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items()), highlight=False
            )
        if kinds.get("output_budget"):
            err_console.print(
                "  output_budget: replies came back empty because the output budget ran out (a reasoning model "
                "thinking past it?): raise --max-tokens or --reasoning-tokens, or lower --reasoning-effort",
                highlight=False,
            )
        messages: dict[str, int] = {}
        for entry in summary.get("tasks", {}).values():
            for message, k in (entry.get("error_messages") or {}).items():
                messages[message] = messages.get(message, 0) + k
        for message, k in sorted(messages.items(), key=lambda kv: -kv[1])[:5]:
            err_console.print(f"  {k}× {message}", highlight=False, markup=False)
        if over:
            err_console.print(
                f"  error rate {100 * rate:.1f}% is above --max-error-rate {100 * max_rate:g}%: exit status 1",
                highlight=False,
            )
    return status


def cmd_run(args: argparse.Namespace, argv: list[str]) -> int:
    from playbench.report.tables import load_run, print_table

    if args.config:
        return cmd_sweep(args, argv)
    if not args.tasks:
        raise ConfigError("playbench run needs TASK... (or --config FILE with a sweep)")
    if args.agent is None:
        raise ConfigError(
            "playbench run needs --agent (random, oracle, replay:FILE, human, llm or a suite's agent)"
        )
    resolve(args.tasks)
    max_rate = check_error_rate(args.max_error_rate)
    configs = make_run_configs(args)
    if args.dry_run:
        print_model_side(configs)
        print_plan(configs)
        return 0
    print_model_side(configs)
    summaries = execute_with_progress(configs, argv=["playbench", *argv])
    print_table([load_run(c.out) for c in configs])
    return error_summary(configs, summaries, max_rate)


def _cli_tokens(argv: list[str]) -> list[str]:
    """The `run` options given on the command line beside --config, without --config, --dry-run, --out."""
    out, skip = [], False
    for token in argv[1:] if argv and argv[0] == "run" else argv:
        if skip:
            skip = False
            continue
        name = token.split("=", 1)[0]
        if name in ("--config", "--out") and "=" not in token:
            skip = True
            continue
        if name in ("--config", "--out", "--dry-run"):
            continue
        out.append(token)
    return out


def cmd_sweep(args: argparse.Namespace, argv: list[str]) -> int:
    """`playbench run --config FILE`: every cell of the file's grid as its own run, run together
    (sharing `concurrency` episodes in flight and each provider's request budget), resumable."""
    from playbench.report.tables import load_run, print_table
    from playbench.runner import sweep as sweeps

    if args.tasks:
        raise ConfigError("with --config the tasks come from the sweep file; drop " + " ".join(args.tasks))
    extra = _cli_tokens(argv)
    for name in ("--model", "--seed"):
        if any(t == name or t.startswith(name + "=") for t in extra):
            raise ConfigError(f"with --config the sweep file lists the {name[2:]}s; {name} cannot be added")
    plan = sweeps.load(args.config, out=args.out)
    parser = build_parser()
    configs, cell_args = [], []
    for cell in plan.cells:
        tokens = ["run", *plan.argv, *extra, *cell.argv, "--out", str(plan.out / cell.name)]
        cell_namespace = parser.parse_args(tokens)
        if cell_namespace.agent is None:
            cell_namespace.agent = "llm"
        resolve(cell_namespace.tasks)
        check_error_rate(cell_namespace.max_error_rate)
        (config,) = make_run_configs(cell_namespace)
        configs.append(config)
        cell_args.append(cell_namespace)
    names = [c.name for c in plan.cells]
    err_console.print(
        f"sweep {plan.path}: {len(plan.cells)} cell(s) into {plan.out}/ ({', '.join(names[:6])}"
        + (f", … {len(names) - 6} more" if len(names) > 6 else "")
        + ")",
        highlight=False,
    )
    if args.dry_run:
        print_plan(configs, names)
        return 0
    sweeps.write_plan(plan)
    concurrency = cell_args[0].concurrency
    summaries = execute_with_progress(
        configs, argv=["playbench", *argv], labels=names, shared_concurrency=concurrency
    )
    print_table([load_run(c.out) for c in configs])
    err_console.print(f"playbench report {plan.out} writes the report of the whole sweep", highlight=False)
    return error_summary(configs, summaries, cell_args[0].max_error_rate)


def _count(x: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= size:
            return f"{x / size:.1f}{unit}"
    return f"{x:.0f}"


def print_plan(configs: list[Any], names: list[str] | None = None) -> None:
    """The dry run: per run and task the episodes planned, on record and to run, and for those to run
    the model calls, tokens and cost (measured from finished episodes, else upper bounds)."""
    from rich.table import Table

    from playbench.runner.sweep import estimate

    console = Console() if Console().is_terminal else Console(width=220)
    table = Table(title="dry run: nothing is run (estimates for the episodes still to run)")
    for col in (
        "run",
        "task",
        "episodes",
        "on record",
        "to run",
        "calls",
        "input tokens",
        "output tokens",
        "cost",
        "basis",
    ):
        table.add_column(col, overflow="fold")
    totals = {"episodes": 0, "to_run": 0, "calls": 0.0, "input": 0.0, "output": 0.0}
    total_cost: float | None = 0.0
    for i, config in enumerate(configs):
        name = names[i] if names else config.out
        for e in estimate(config):
            table.add_row(
                name,
                e.task,
                str(e.planned),
                str(e.done),
                str(e.to_run),
                _count(e.calls),
                _count(e.input_tokens),
                _count(e.output_tokens),
                "unknown" if e.cost is None else f"${e.cost:.2f}",
                e.basis,
            )
            totals["episodes"] += e.planned
            totals["to_run"] += e.to_run
            totals["calls"] += e.calls
            totals["input"] += e.input_tokens
            totals["output"] += e.output_tokens
            total_cost = None if total_cost is None or e.cost is None else total_cost + e.cost
    console.print(table)
    cost = "unknown (a model has no price: --prices FILE)" if total_cost is None else f"${total_cost:.2f}"
    console.print(
        f"total: {totals['episodes']} episodes planned, {totals['to_run']} to run, about {_count(totals['calls'])} "
        f"model calls, {_count(totals['input'])} input and {_count(totals['output'])} output tokens, cost {cost}",
        highlight=False,
    )


def cmd_instances(args: argparse.Namespace) -> int:
    spec = get_spec(args.task)
    task = spec.make(**parse_assignments(args.sets))
    out = sys.stdout
    for instance in task.instances(args.n, args.seed):
        out.write(json.dumps(instance.model_dump(mode="json"), separators=(", ", ": ")) + "\n")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from playbench.report.plots import write_plots
    from playbench.report.tables import load_run, print_table, write_report
    from playbench.runner.reader import find_runs

    runs = []
    for folder in args.dirs:
        found = find_runs(folder)
        if not found:
            raise ConfigError(
                f"'{folder}' is not a run directory and holds none (no episodes.jsonl in it or below)"
            )
        runs += [load_run(path) for path in found]
    from playbench.core.paths import writable_dir, writable_file

    out = str(writable_dir(args.out or (args.dirs[0] if len(args.dirs) == 1 else "report"), "report --out"))
    if args.html:
        writable_file(args.html, "--html file")
    unreadable = []
    for run in runs:  # a damaged line, a missing calls file: said, never silently dropped
        for warning in run.get("warnings") or []:
            err_console.print(f"playbench: warning: {run['path']}: {warning}", highlight=False, markup=False)
        episodes = Path(run["path"]) / "episodes.jsonl"
        if not run["records"] and episodes.is_file() and episodes.stat().st_size > 0:
            unreadable.append(run["path"])
    print_table(runs)
    paths = write_report(runs, out) + write_plots(runs, out)
    if args.html:
        from playbench.web.export import write_html

        write_html(runs, args.html)
        paths.append(Path(args.html))
    err_console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)
    if unreadable:
        err_console.print(
            f"playbench: error: no readable episode in {', '.join(f'{p}/episodes.jsonl' for p in unreadable)}",
            highlight=False,
            markup=False,
        )
        return 1
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from playbench.web.server import serve
    except ImportError as exc:
        raise ConfigError(
            f"the web app needs the 'web' extra (pip install 'playbench[web]'): {exc}"
        ) from None
    serve(args.runs or ["runs"], host=args.host, port=args.port)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from playbench.agents import AgentSpec, parse_agent
    from playbench.report.tables import load_run, print_table
    from playbench.runner.run import RunConfig, execute

    spec = get_spec(args.task)
    options = parse_assignments(args.sets)
    instance_id = args.instance
    if instance_id is None:
        instance_id = spec.make(**options).instances(1, args.seed)[0].id
    from playbench.runner.reader import RunReader

    # every play of the same instance is a new trial, so earlier games stay on record
    played = (
        sum(
            1
            for r in RunReader(args.out).records()
            if r["task"] == args.task and r["instance_id"] == instance_id
        )
        if Path(args.out, "episodes.jsonl").exists()
        else 0
    )
    agents: dict[str, AgentSpec] = {"*": AgentSpec("human")}
    if args.seat is not None:
        roles = spec.make(**options).roles
        if args.seat not in roles:
            raise ConfigError(f"--seat {args.seat}: {args.task} has the roles {', '.join(roles)}")
        agents = {args.seat: AgentSpec("human"), "*": parse_agent(args.partner, args.partner_model)}
    elif args.partner != "human" or args.partner_model:
        raise ConfigError("--partner needs --seat ROLE (the seat you take)")
    config = RunConfig(
        tasks=[args.task],
        agents=agents,
        out=args.out,
        seed=args.seed,
        trials=played + 1,
        task_options=options,
        instance_ids=[instance_id],
    )
    asyncio.run(execute(config, argv=["playbench", "play", args.task]))
    print_table([load_run(config.out)])
    return 0


def cmd_quickstart(args: argparse.Namespace) -> int:
    from playbench.agents import AgentSpec
    from playbench.report.tables import load_run, print_table, write_report
    from playbench.runner.run import RunConfig

    tasks = [s.id for s in all_specs() if s.default]
    runs = []
    configs, summaries = [], []
    for agent in DEFAULT_QUICKSTART_AGENTS:
        out = str(Path(args.out) / agent)
        config = RunConfig(
            tasks=tasks,
            agents={"*": AgentSpec(agent)},
            out=out,
            episodes=args.episodes,
            seed=args.seed,
            concurrency=args.concurrency,
        )
        if not configs:  # which sets the default job plays, once
            for notice in set_notices([config]):
                err_console.print(f"notice: {notice}", highlight=False, markup=False, style="yellow")
        summaries += execute_with_progress(config, argv=["playbench", "quickstart"], label=f"{agent}")
        configs.append(config)
        runs.append(load_run(out))
    from playbench.report.plots import write_plots

    print_table(runs)
    paths = write_report(runs, args.out) + write_plots(runs, args.out)
    err_console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)
    return error_summary(configs, summaries, 0.0)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        import playbench

        print(playbench.__version__)
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "list":
            return cmd_list(args)
        if args.command == "check":
            return cmd_check(args)
        if args.command == "run":
            if not args.config and not args.tasks:
                parser.error("the following arguments are required: TASK (or --config FILE)")
            if not args.config and args.agent is None:
                parser.error("the following arguments are required: --agent")
            return cmd_run(args, argv)
        if args.command == "reproduce":
            from playbench.cli_reproduce import cmd_reproduce

            return cmd_reproduce(args, argv)
        if args.command == "instances":
            return cmd_instances(args)
        if args.command == "report":
            return cmd_report(args)
        if args.command == "play":
            return cmd_play(args)
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "quickstart":
            return cmd_quickstart(args)
        if args.command == "originals":
            from playbench.cli_originals import cmd_originals

            return cmd_originals(args)
    except ConfigError as exc:
        print(f"playbench: error: {exc}", file=sys.stderr)
        return 2
    except PlaybenchError as exc:
        print(f"playbench: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "playbench: interrupted; finished episodes are saved, run the same command to resume",
            file=sys.stderr,
        )
        return 130
    parser.error(f"unknown command '{args.command}'")


if __name__ == "__main__":
    sys.exit(main())
