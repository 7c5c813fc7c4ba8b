"""The `playbench` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from playbench.cli_parser import build_parser

# shared with the run commands (cli_run.py, cli_run_report.py), re-exported for callers of playbench.cli
from playbench.cli_run import make_run_configs  # noqa: E402,F401
from playbench.cli_run_report import (  # noqa: E402,F401
    check_error_rate,
    err_console,
    error_summary,
    execute_with_progress,
    print_model_side,
    print_plan,
    set_notices,
)
from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.registry import all_specs, get_spec, parse_assignments, resolve

DEFAULT_QUICKSTART_AGENTS = ("oracle", "random")


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


def cmd_instances(args: argparse.Namespace) -> int:
    spec = get_spec(args.task)
    task = spec.make(**parse_assignments(args.sets))
    out = sys.stdout
    for instance in task.instances(args.n, args.seed):
        out.write(json.dumps(instance.model_dump(mode="json"), separators=(", ", ": ")) + "\n")
    return 0


def _add_probes(runs: list[dict[str, Any]], dirs: list[str], report_md: Path) -> None:
    """A contamination probe's verdict beside its suite: the probe.json of the given folders (or of the
    folder above a run, a probe's paper/ and twin/) appended to report.md and printed."""
    from playbench.report.contamination import find_probes, markdown

    probes = find_probes([*dirs, *(run["path"] for run in runs)])
    if not probes:
        return
    lines = ["", "## Contamination probes", ""]
    for probe in probes:
        lines += markdown(probe)
        print(f"contamination probe of {probe.get('suite')}: {probe['verdict']}")
    with report_md.open("a", encoding="utf-8") as f:
        f.write("\n".join(lines))


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
    if args.site:
        from playbench.site import check_site_dir

        check_site_dir(args.site, (out, *(run["path"] for run in runs)))
    unreadable = []
    for run in runs:  # a damaged line, a missing calls file: said, never silently dropped
        for warning in run.get("warnings") or []:
            err_console.print(f"playbench: warning: {run['path']}: {warning}", highlight=False, markup=False)
        episodes = Path(run["path"]) / "episodes.jsonl"
        if not run["records"] and episodes.is_file() and episodes.stat().st_size > 0:
            unreadable.append(run["path"])
    print_table(runs)
    paths = write_report(runs, out) + write_plots(runs, out, error_maps=True)
    _add_probes(runs, args.dirs, Path(out) / "report.md")
    if args.html:
        from playbench.web.export import write_html

        write_html(runs, args.html)
        paths.append(Path(args.html))
    if args.site:
        from playbench.site import build_site

        paths.append(build_site(runs, args.site) / "index.html")
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
    if args.study:
        from playbench.cli_study import cmd_serve_study

        return cmd_serve_study(args)
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
            from playbench.cli_run import cmd_run

            return cmd_run(args, argv)
        if args.command == "reproduce":
            from playbench.cli_reproduce import cmd_reproduce

            return cmd_reproduce(args, argv)
        if args.command == "probe":
            from playbench.cli_probe import cmd_probe

            return cmd_probe(args, argv)
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
        if args.command == "study":
            from playbench.cli_study import cmd_study

            return cmd_study(args)
        if args.command == "export":
            from playbench.cli_export import cmd_export

            return cmd_export(args, argv)
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
