"""`playbench study create|link|status` and `playbench serve --study DIR` (see `playbench.study`)."""

from __future__ import annotations

import argparse
import sys

from playbench.core.errors import ConfigError

DEFAULT_BASE = "http://127.0.0.1:8000"


def add_parser(sub: argparse._SubParsersAction, serve: argparse.ArgumentParser) -> None:
    study = sub.add_parser(
        "study",
        help="human studies: make a study folder (assignment, links), reissue a link, show progress",
        description="Serve a study with: playbench serve --study DIR [--host 0.0.0.0]",
    )
    actions = study.add_subparsers(dest="study_command", metavar="create|link|status")
    create = actions.add_parser(
        "create", help="a study folder: balanced assignment, participant links, admin secret"
    )
    create.add_argument("--tasks", nargs="+", required=True, metavar="TASK", help="the study's tasks")
    create.add_argument(
        "--instances",
        type=int,
        required=True,
        metavar="N",
        help="instances per task (the first N of the set)",
    )
    create.add_argument(
        "--per-participant", type=int, required=True, metavar="K", help="episodes each participant plays"
    )
    create.add_argument("--participants", type=int, required=True, metavar="P")
    create.add_argument("--out", required=True, metavar="DIR", help="the study folder (new or empty)")
    create.add_argument("--seed", type=int, default=0, help="the instance set's seed (default 0)")
    create.add_argument(
        "--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="task option, as for run"
    )
    create.add_argument(
        "--seat",
        default=None,
        metavar="ROLE",
        help="the person's seat in a two-role task (default: its first role)",
    )
    create.add_argument(
        "--partner-model", default=None, metavar="SPEC", help="the model in the other seat (the llm agent)"
    )
    create.add_argument(
        "--partner",
        default=None,
        metavar="AGENT",
        help="the agent in the other seat (default llm with --partner-model)",
    )
    create.add_argument(
        "--time-limit", type=float, default=None, metavar="SECONDS", help="per episode (default none)"
    )
    create.add_argument(
        "--consent", default=None, metavar="FILE", help="consent text (UTF-8; blank lines part paragraphs)"
    )
    create.add_argument(
        "--instructions", default=None, metavar="FILE", help="instructions shown before the first episode"
    )
    create.add_argument("--title", default=None, help="the study's title on every page")
    create.add_argument(
        "--base-url", default=DEFAULT_BASE, help=f"the address participants open (default {DEFAULT_BASE})"
    )
    link = actions.add_parser(
        "link", help="a new link for a participant (or a new admin secret); the old one stops working"
    )
    link.add_argument("dir", metavar="DIR")
    who = link.add_mutually_exclusive_group(required=True)
    who.add_argument("--participant", metavar="PSEUDONYM")
    who.add_argument("--admin", action="store_true")
    link.add_argument("--base-url", default=DEFAULT_BASE)
    status = actions.add_parser("status", help="episodes recorded per participant")
    status.add_argument("dir", metavar="DIR")
    serve.add_argument(
        "--study",
        default=None,
        metavar="DIR",
        help="serve a study folder (playbench study create) instead of runs",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="with --study: proxies whose X-Forwarded-For/-Proto are trusted (default 127.0.0.1; see the README)",
    )


def _link(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/p/{token}"


def cmd_study(args: argparse.Namespace) -> int:
    from playbench.study.config import create_study, load_study, reissue

    if args.study_command == "create":
        from playbench.core.registry import parse_assignments

        study, links, admin = create_study(
            args.out,
            args.tasks,
            args.instances,
            args.per_participant,
            args.participants,
            seed=args.seed,
            options=parse_assignments(args.sets),
            seat=args.seat,
            partner=args.partner,
            partner_model=args.partner_model,
            time_limit=args.time_limit,
            consent_file=args.consent,
            instructions_file=args.instructions,
            title=args.title,
        )
        config = study.config
        units = sum(len(v) for v in config.instances.values())
        print(
            f"playbench: study {study.dir}: {units} instances, {config.participants} participants x "
            f"{config.per_participant} episodes, each instance played by {config.plays_per_instance}. "
            "The links and the admin secret below are shown only now (the folder keeps their hashes): keep them.",
            file=sys.stderr,
        )
        for name, token in links.items():
            print(f"{name}\t{_link(args.base_url, token)}")
        print(f"admin\t{admin}\t(sign in at {args.base_url.rstrip('/')}/admin/login)")
        return 0
    if args.study_command == "link":
        study = load_study(args.dir)
        if args.admin:
            print(f"admin\t{reissue(study, 'admin')}")
        else:
            print(f"{args.participant}\t{_link(args.base_url, reissue(study, args.participant))}")
        return 0
    if args.study_command == "status":
        from playbench.runner.reader import RunReader
        from playbench.study.config import consented

        study = load_study(args.dir)
        done = {
            (r["task"], str(r["instance_id"]), int(r["trial"])) for r in RunReader(study.run_dir).records()
        }
        agreed = consented(study)
        total = 0
        for plan in study.config.plans:
            n = sum((s.task, s.instance_id, s.trial) in done for s in plan.slots)
            total += n
            print(
                f"{plan.pseudonym}\t{n}/{len(plan.slots)}\t{'consented ' + agreed[plan.pseudonym] if plan.pseudonym in agreed else 'not started'}"
            )
        print(f"total\t{total}/{sum(len(p.slots) for p in study.config.plans)}")
        return 0
    raise ConfigError("playbench study needs a command: create, link or status")


def cmd_serve_study(args: argparse.Namespace) -> int:
    try:
        from playbench.study.app import serve_study
    except ImportError as exc:
        raise ConfigError(
            f"the study server needs the 'web' extra (pip install 'playbench[web]'): {exc}"
        ) from None
    if args.runs:
        raise ConfigError("--study serves a study folder only; leave out --runs")
    serve_study(args.study, host=args.host, port=args.port, forwarded_allow_ips=args.forwarded_allow_ips)
    return 0
