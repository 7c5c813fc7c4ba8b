"""`playbench originals` (what the originals folder holds) and `playbench originals fetch` (clone it)."""

from __future__ import annotations

import argparse
from pathlib import Path

from playbench.core.errors import ConfigError
from playbench.core.originals import ENV, fetch, originals_dir, status


def add_parser(sub: argparse._SubParsersAction) -> None:
    orig = sub.add_parser(
        "originals",
        help="the authors' repositories playbench reads texts and data from (status; `fetch` clones them)",
        description=(
            "The originals folder holds clones of the authors' repositories at the commits each suite's "
            f"fidelity table names (default {originals_dir()}; ${ENV} changes it). Suites read the authors' exact "
            "texts (texts=original) and data from it; nothing in it is ever executed."
        ),
    )
    orig.add_argument("action", nargs="?", choices=("status", "fetch"), default="status")
    orig.add_argument("names", nargs="*", metavar="NAME", help="repositories to fetch (default: all)")
    orig.add_argument(
        "--dir", default=None, help=f"the originals folder (default: ${ENV} or {originals_dir()})"
    )
    orig.add_argument(
        "--url",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="clone NAME from URL instead (a mirror or a local copy; repeatable)",
    )


def cmd_originals(args: argparse.Namespace) -> int:
    folder = Path(args.dir).expanduser() if args.dir else originals_dir()
    if args.action == "fetch":
        urls = {}
        for item in args.url:
            name, sep, url = item.partition("=")
            if not sep or not name or not url:
                raise ConfigError(f"--url takes NAME=URL (got {item!r})")
            urls[name] = url
        rows = fetch(folder, args.names or None, urls)
    else:
        if args.names:
            raise ConfigError("repository names go with `playbench originals fetch NAME...`")
        rows = status(folder)
    print(f"originals folder: {folder}")
    for row in rows:
        print("  " + row.line())
        for missing in row.missing:
            print(f"      missing: {missing}")
        for error in row.text_errors:
            print(f"      {error}")
    absent = [r for r in rows if not r.present]
    if absent and args.action == "status":
        print("`playbench originals fetch` clones the absent ones (needs git and the network)")
    return 0 if all(r.ok for r in rows) or args.action == "status" else 1
