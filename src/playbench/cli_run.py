"""`playbench run` and what every run command shares: the run configurations from the command line, the
header printed before a run (notices, model side, fidelity stamps, instances x trials), progress, the dry-run
plan and the error summary after it; sweeps from a file."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from playbench.core.errors import ConfigError
from playbench.core.registry import parse_assignments, resolve

err_console = Console(stderr=True, soft_wrap=True)


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


def _executor_options(args: argparse.Namespace) -> dict[str, Any]:
    workers = getattr(args, "workers", None)
    if workers is not None and args.executor != "processes":
        raise ConfigError(f"--workers is for --executor processes (got --executor {args.executor})")
    if args.executor == "ray":
        return {"address": args.ray_address}
    if args.executor == "processes" and workers is not None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1 (got {workers})")
        return {"workers": workers}
    return {}


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
        transport=getattr(args, "transport", None),
    )
    max_cost = getattr(args, "max_cost", None)
    if max_cost is not None and not max_cost > 0:
        raise ConfigError(f"--max-cost must be a positive amount of USD (got {max_cost:g})")
    configs = []
    main_options = parse_assignments(args.agent_opts)
    # the model flags (--max-tokens, --temperature, ...) are the model-driven seats': with a random or
    # oracle --agent and a model as expert they go to the expert alone
    if models != [None] or not args.expert_model:
        main_options.update(_agent_options(args))
    if args.captioner_model:
        main_options["captioner"] = args.captioner_model
    from playbench.models import make_model, parse_spec, split_server
    from playbench.models.batch import BATCH_CONCURRENCY, check_spec

    batch = getattr(args, "batch", False)
    if batch and getattr(args, "executor", "local") != "local":
        raise ConfigError(f"--batch needs the local executor (got --executor {args.executor})")

    def check(spec: str) -> None:
        if batch:
            check_spec(spec)
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
                # a batch waits for every episode in flight: all of them are, unless --concurrency says
                concurrency=BATCH_CONCURRENCY if batch and args.concurrency == 1 else args.concurrency,
                executor=args.executor,
                executor_options=_executor_options(args),
                task_options={**parse_assignments(args.sets), **seat_options},
                models=settings,
                save_images=not args.no_images,
                save_calls=not args.no_calls,
                retry_errors=not args.keep_errors,
                max_cost=max_cost,
            )
        )
    if batch:  # one journal for the command: the run's directory, or a sweep's root
        settings.batch_dir = configs[0].out if len(configs) == 1 else str(Path(configs[0].out).parent)
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
    return f"{name}: {done}/{total} episodes (solved {solved}, errors {errors}), {rate:.2f}/s, {eta}{throttling()}"


def throttling() -> str:
    """`; openai:gpt-4o 3/16 in flight (rate-limited 5×)` for each model whose adaptive limit has backed
    off (models/adaptive.py), shown live beside the progress; empty while none has."""
    from playbench.models.adaptive import LIVE

    parts = [
        f"{spec} {limit.slots}/{limit.maximum} in flight (rate-limited {limit.rate_limited}×)"
        for spec, limit in sorted(LIVE.items())
        if limit.cuts
    ]
    return "; " + "; ".join(parts) if parts else ""


def execute_with_progress(
    configs: Any,
    argv: list[str] | None = None,
    label: str | None = None,
    labels: list[str] | None = None,
    shared_concurrency: int | None = None,
    cost_cap: Any = None,
) -> list[dict[str, Any]]:
    """Run one configuration or several at once (a sweep), with a progress bar each. `cost_cap` (a
    runner.cost_cap.CostCap) carries one --max-cost budget over several calls (`reproduce all`)."""
    from playbench.runner.run import execute_many

    configs = configs if isinstance(configs, list) else [configs]
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("solved {task.fields[solved]}, errors {task.fields[errors]}{task.fields[throttling]}"),
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
                state["bar"] = progress.add_task(name, total=total, solved=0, errors=0, throttling="")
            state["solved"] += bool(output.record["success"])
            state["errors"] += output.record["error"] is not None
            progress.update(
                state["bar"],
                completed=done,
                solved=state["solved"],
                errors=state["errors"],
                throttling=throttling(),
            )
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
            execute_many(
                configs,
                on_progress=callbacks,
                argv=argv,
                shared_concurrency=shared_concurrency,
                cost_cap=cost_cap,
            )
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
    plans = []
    for config in configs:
        plan = plan_run(config)
        plans.append(plan)
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
    notices += [n for n in set_notices(configs, plans) if n not in notices]
    for notice in notices:
        err_console.print(f"notice: {notice}", highlight=False, markup=False, style="yellow")
    for line, tasks in lines.items():
        shown = ", ".join(dict.fromkeys(tasks))
        err_console.print(f"model side of {shown}: {line}", highlight=False, markup=False)
    for line, tasks in stamps.items():
        shown = ", ".join(dict.fromkeys(tasks))
        err_console.print(f"fidelity of {shown}: {line}", highlight=False, markup=False)


def set_notices(configs: list[Any], plans: list[Any] | None = None) -> list[str]:
    """One line per suite whose tasks in these runs play playbench's own or generated instances rather
    than the paper's set: which set ran, and how to run the paper's. A paper preset's run (`reproduce`)
    already plays the paper's set where playbench has it: it is told only when the authors' clone that
    would supply the set is missing."""
    from playbench.core.originals import find_clone
    from playbench.core.preset import preset_names
    from playbench.core.registry import get_spec
    from playbench.runner.run import plan_run

    presets = set(preset_names())
    own: dict[str, list[str]] = {}
    clone_missing: dict[str, list[str]] = {}
    plans = plans if plans is not None else [plan_run(config) for config in configs]  # planned once
    for config, plan in zip(configs, plans, strict=True):
        for task_id, stamp in plan.fidelity.items():
            suite = task_id.split("/", 1)[0]
            if stamp.get("data") not in ("ours", "generated") or suite not in presets:
                continue
            if config.preset is None:
                own.setdefault(suite, []).append(task_id)
                continue
            use = get_spec(task_id).load_class().originals
            if use is not None and use.data and find_clone(use.repo) is None:
                clone_missing.setdefault(use.repo, []).append(task_id)
    lines = [
        f"{', '.join(dict.fromkeys(tasks))}: playbench's own instances, not the paper's set; the paper's: "
        f"`playbench reproduce {suite}` (where the paper used the authors' data, with their clone: "
        "`playbench originals fetch`)"
        for suite, tasks in own.items()
    ]
    lines += [
        f"{', '.join(dict.fromkeys(tasks))}: playbench's generated instances; the paper's set is read from the "
        f"authors' clone ({repo}): `playbench originals fetch`"
        for repo, tasks in clone_missing.items()
    ]
    return lines


def check_error_rate(value: float) -> float:
    if not 0.0 <= value <= 1.0 or value != value:
        raise ConfigError(f"--max-error-rate must be a share between 0 and 1 (got {value})")
    return value


COST_CAP_STATUS = 3  # the exit status of a command --max-cost stopped


def error_summary(configs: list[Any], summaries: list[dict[str, Any]], max_rate: float) -> int:
    """Say what went wrong in the runs (how many episodes errored, and the commonest messages) and
    return the exit status: 1 when a run's errored share is above `max_rate`, 3 when --max-cost stopped the
    command (COST_CAP_STATUS), else 0."""
    status = 0
    caps = [s["cost_cap"] for s in summaries if s.get("cost_cap")]
    if any(cap["stopped"] for cap in caps):
        # one budget for the whole command: every run's summary holds the shared meter as it stood when
        # that run ended, so the largest figures are the command's
        spent = max(c["spent"] for c in caps)
        not_started = max(c["not_started"] for c in caps)
        abandoned = max(c["abandoned"] for c in caps)
        err_console.print(
            f"stopped at --max-cost ${caps[0]['limit']:g}: spent ${spent:.4f}; {not_started} episode(s) not "
            f"started, {abandoned} abandoned in flight (not recorded); the same command again plays them, "
            "with a new budget of --max-cost",
            highlight=False,
            style="bold yellow",
        )
        status = COST_CAP_STATUS
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
        status = 1 if over and status != COST_CAP_STATUS else status
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
    _print_results(configs)
    return error_summary(configs, summaries, max_rate)


def _print_results(configs: list[Any]) -> None:
    """The results table of the runs that have episodes (--max-cost may stop one before its first)."""
    from playbench.report.tables import load_run, print_table

    runs = [load_run(c.out) for c in configs if (Path(c.out) / "episodes.jsonl").exists()]
    if runs:
        print_table(runs)


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
    from playbench.runner import sweep as sweeps

    if args.tasks:
        raise ConfigError("with --config the tasks come from the sweep file; drop " + " ".join(args.tasks))
    extra = _cli_tokens(argv)
    for name in ("--model", "--seed"):
        if any(t == name or t.startswith(name + "=") for t in extra):
            raise ConfigError(f"with --config the sweep file lists the {name[2:]}s; {name} cannot be added")
    plan = sweeps.load(args.config, out=args.out)
    from playbench.cli import build_parser  # the command line's own parser reads each cell's arguments

    parser = build_parser()
    configs, cell_args = [], []
    for cell in plan.cells:
        # the cell's own tasks and values; a command-line --set goes only to cells whose tasks have it
        tokens = ["run", *plan.cell_argv(cell, extra), "--out", str(plan.out / cell.name)]
        cell_namespace = parser.parse_args(tokens)
        if cell_namespace.agent is None:
            cell_namespace.agent = "llm"
        resolve(cell_namespace.tasks)
        check_error_rate(cell_namespace.max_error_rate)
        cell_namespace.dry_run = args.dry_run  # a planned sweep needs no API key either
        (config,) = make_run_configs(cell_namespace)
        configs.append(config)
        cell_args.append(cell_namespace)
    if getattr(args, "batch", False):  # the cells share one pool: one journal in the sweep's folder
        for config in configs:
            config.models.batch_dir = str(plan.out)
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
    _print_results(configs)
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
