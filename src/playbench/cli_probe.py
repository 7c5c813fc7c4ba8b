"""`playbench probe contamination SUITE --model M`: the paper set beside a fresh twin of it.

Runs the suite's paper preset twice with the same agent, model and settings: once on the published
instances (`OUT/paper`), once on their twins (`OUT/twin`, `--set dataset=twin` on every task of the
preset that has one, drawn with `--seed`), then pairs each twin with its paper instance and reports the gap
with a paired interval and a plain verdict (`report/contamination.py`), in `OUT/probe.json`,
`OUT/report.md` and on the terminal. Both runs are ordinary run directories: resumable, and readable by
`playbench report` (which shows the probe beside the suite when given `OUT`).
"""

from __future__ import annotations

import argparse
import typing
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError


def add_parser(sub: Any, add_run_options: Any) -> None:
    probe = sub.add_parser(
        "probe", help="probes of a model: contamination (the paper set beside a fresh twin)"
    )
    kinds = probe.add_subparsers(dest="probe", metavar="PROBE", required=True)
    contamination = kinds.add_parser(
        "contamination",
        help="run a suite's paper set and a fresh twin of it (matched in difficulty), report the paired gap",
    )
    contamination.add_argument("suite", metavar="SUITE", help="a suite with a paper preset (playbench list)")
    contamination.add_argument(
        "--dry-run",
        action="store_true",
        help="print both runs' episodes, calls, tokens and cost; run nothing",
    )
    add_run_options(
        contamination,
        agent_required=False,
        out_help="the probe's folder, holding paper/ and twin/ (default: runs/probe-<suite>-<agent>[-<model>]-s<seed>)",
    )


def _takes_twin(task_id: str) -> bool:
    from playbench.core.registry import get_spec

    field = get_spec(task_id).load_class().Config.model_fields.get("dataset")
    return field is not None and "twin" in typing.get_args(field.annotation)


def cmd_probe(args: argparse.Namespace, argv: list[str]) -> int:
    from playbench.cli_reproduce import preset_configs
    from playbench.cli_run import _default_out
    from playbench.cli_run_report import (
        check_error_rate,
        err_console,
        error_summary,
        execute_with_progress,
        print_model_side,
        print_plan,
    )
    from playbench.core.preset import get_preset, preset_names
    from playbench.report.contamination import markdown, paired_gap, write_probe
    from playbench.runner.reader import RunReader

    if args.suite not in preset_names():
        raise ConfigError(
            f"probe contamination: no paper preset named {args.suite!r} (accepted: {', '.join(preset_names())})"
        )
    max_rate = check_error_rate(args.max_error_rate)
    preset = get_preset(args.suite)
    twins = [t for t in preset.run.tasks if _takes_twin(t)]
    if not twins:
        raise ConfigError(f"probe contamination: no task of the {args.suite} preset has a twin set")
    model = args.model[0] if args.model and len(args.model) == 1 else None
    if args.model and len(args.model) > 1:
        raise ConfigError("probe contamination takes one --model (probe each model into its own folder)")
    top = Path(args.out or _default_out(f"probe-{args.suite}-{args.agent or 'preset'}", model, args.seed))
    paper_args = argparse.Namespace(**vars(args))
    paper_args.tasks = twins
    paper = preset_configs(paper_args, args.suite, out=str(top / "paper"))
    twin_args = argparse.Namespace(**vars(args))
    twin_args.sets = [*args.sets, *(f"{t}:dataset=twin" for t in twins)]
    twin = preset_configs(twin_args, args.suite, out=str(top / "twin"))
    for config in [*paper, *twin]:
        config.tasks = [t for t in config.tasks if t in twins]
        for key in list(config.task_options):  # the preset's options for tasks left out of the probe
            target, sep, _ = key.partition(":")
            if sep and target not in twins:
                del config.task_options[key]
    configs = [*paper, *twin]
    err_console.print(
        f"contamination probe of {args.suite}: {', '.join(twins)} on the published set ({top / 'paper'}) and "
        f"on fresh twins drawn with seed {args.seed} ({top / 'twin'})",
        highlight=False,
    )
    print_model_side(configs)
    if args.dry_run:
        print_plan(configs, ["paper", "twin"] * (len(configs) // 2))
        return 0
    summaries = execute_with_progress(configs, argv=["playbench", *argv], labels=["paper", "twin"])
    paper_records = [r for c in paper for r in RunReader(c.out).records()]
    twin_records = [r for c in twin for r in RunReader(c.out).records()]
    result = paired_gap(paper_records, twin_records, seed=args.seed)
    meta = {"agent": paper[0].agents["*"].label if "*" in paper[0].agents else "", "model": model}
    meta["seed"], meta["paper"], meta["twin"] = args.seed, str(top / "paper"), str(top / "twin")
    probe_path = write_probe(top, args.suite, result, meta)
    lines = markdown({"suite": args.suite, **meta, **result})
    (top / "report.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    err_console.print(f"wrote {probe_path} and {top / 'report.md'}", highlight=False)
    return error_summary(configs, summaries, max_rate)
