"""What every run command prints and checks around its episodes: the header before a run (notices, model
side, fidelity stamps, instances x trials), the dry-run plan, live progress, the results table and the
error summary after it (`cli_run.py` builds the runs; `cli_probe.py` and `cli_reproduce.py` share these)."""

from __future__ import annotations

import asyncio
import os
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

err_console = Console(stderr=True, soft_wrap=True)


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


def _print_results(configs: list[Any]) -> None:
    """The results table of the runs that have episodes (--max-cost may stop one before its first)."""
    from playbench.report.tables import load_run, print_table

    runs = [load_run(c.out) for c in configs if (Path(c.out) / "episodes.jsonl").exists()]
    if runs:
        print_table(runs)


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
