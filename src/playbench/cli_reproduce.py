"""`playbench reproduce SUITE` (one paper preset) and `playbench reproduce all` (every preset, one scorecard)."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError

ALL = "all"


def preset_configs(args: argparse.Namespace, suite: str, out: str | None = None) -> list[Any]:
    """The runs of one preset: its settings are the defaults of an ordinary run; what the user passes wins
    (a model, more episodes for a quick look, another agent as a baseline). `args` is not changed."""
    from playbench.cli_run import _default_out, make_run_configs
    from playbench.core.preset import get_preset

    args = copy.copy(args)
    preset = get_preset(suite)
    args.tasks = list(preset.run.tasks)
    args.agent = args.agent or preset.run.agent
    if args.trials == 1:
        args.trials = preset.run.trials
    if args.episodes is None:
        args.episodes = preset.run.episodes
    preset_sets = [f"{k}={json.dumps(v)}" for k, v in preset.run.task_options.items()]
    args.sets = preset_sets + list(args.sets)  # the user's --set comes later and wins
    if args.agent == "llm":
        # the preset's agent options (chain of thought, say); the model side is each task's own
        # declaration, applied by the runner as in any run
        for key, value in preset.run.agent_options.items():
            if key == "cot":
                args.no_cot = args.no_cot or not value
            elif getattr(args, key, None) is None:
                setattr(args, key, value)
    model = args.model[0] if args.model and len(args.model) == 1 else None
    args.out = out or args.out or _default_out(f"reproduce-{suite}-{args.agent}", model, args.seed)
    configs = make_run_configs(args)
    for config in configs:
        config.preset = preset.suite
    return configs


def _report(configs: list[Any], out: str, html: bool = False) -> list[Any]:
    from playbench.cli_run_report import err_console
    from playbench.report.model_side import fidelity_lines
    from playbench.report.plots import write_plots
    from playbench.report.tables import load_run, print_table, write_report

    runs = [load_run(c.out) for c in configs]
    for line in fidelity_lines(runs):  # what the tables below were measured with
        print(f"fidelity: {line}")
    print_table(runs)
    paths = write_report(runs, out) + write_plots(runs, out)
    if html:
        from playbench.web.export import write_html

        write_html(runs, str(Path(out) / "report.html"))
        paths.append(Path(out) / "report.html")
    err_console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)
    return runs


def cmd_reproduce(args: argparse.Namespace, argv: list[str]) -> int:
    """One preset: run it and report the paper's published rows beside the run's."""
    from playbench.cli_run_report import (
        check_error_rate,
        error_summary,
        execute_with_progress,
        print_model_side,
        print_plan,
    )

    if args.suite == ALL:
        return cmd_reproduce_all(args, argv)
    max_rate = check_error_rate(args.max_error_rate)
    configs = preset_configs(args, args.suite)
    print_model_side(configs)
    if args.dry_run:
        print_plan(configs)
        return 0
    summaries = execute_with_progress(configs, argv=["playbench", *argv])
    out = configs[0].out if len(configs) == 1 else str(Path(configs[0].out).parent)
    _report(configs, out)
    return error_summary(configs, summaries, max_rate)


def cmd_reproduce_all(args: argparse.Namespace, argv: list[str]) -> int:
    """Every suite's preset into one folder (`<out>/<preset>`, each resumable as any run), then one
    scorecard over all of them: report.md and report.html with each paper's published rows beside the
    run's, with intervals and each task's fidelity stamp. A preset that cannot run here (the authors' data
    it needs is not in the originals folder) is skipped, said, and listed at the end."""
    from playbench.cli_run import _default_out
    from playbench.cli_run_report import (
        check_error_rate,
        err_console,
        error_summary,
        execute_with_progress,
        print_model_side,
        print_plan,
    )
    from playbench.core.preset import preset_names

    max_rate = check_error_rate(args.max_error_rate)
    model = args.model[0] if args.model and len(args.model) == 1 else None
    top = args.out or _default_out(f"reproduce-all-{args.agent or 'preset'}", model, args.seed)
    planned: list[tuple[str, list[Any]]] = []
    skipped: list[str] = []
    for suite in preset_names():
        try:
            configs = preset_configs(args, suite, out=str(Path(top) / suite))
            err_console.print(f"== {suite}", highlight=False, markup=False)
            print_model_side(configs)  # plans the runs: a preset that cannot run here says so now
        except ConfigError as exc:
            skipped.append(f"{suite}: {exc}")
            err_console.print(f"skipped {suite}: {exc}", highlight=False, markup=False, style="yellow")
            continue
        planned.append((suite, configs))
    every = [c for _, configs in planned for c in configs]
    if not every:
        raise ConfigError("no preset can run here: " + "; ".join(skipped))
    if args.dry_run:
        print_plan(every)
        return 0
    summaries: list[dict[str, Any]] = []
    cap = None
    if every[0].max_cost is not None:  # one --max-cost budget over every preset
        from playbench.runner.cost_cap import CostCap

        cap = CostCap(every[0].max_cost)
    for _, configs in planned:
        summaries += execute_with_progress(configs, argv=["playbench", *argv], cost_cap=cap)
    _report(every, top, html=True)
    for line in skipped:
        err_console.print(f"not in the scorecard: {line}", highlight=False, markup=False, style="yellow")
    return error_summary(every, summaries, max_rate)
