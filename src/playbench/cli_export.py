"""`playbench export DIR... --format parquet|hf --out PATH`: run directories as Parquet tables or a
Hugging Face dataset (see `playbench.export`)."""

from __future__ import annotations

import argparse
import sys

from playbench.export.build import DEFAULT_IMAGES
from playbench.export.tables import IMAGE_MODES
from playbench.export.writers import FORMATS


def add_parser(sub: argparse._SubParsersAction) -> None:
    export = sub.add_parser(
        "export",
        help="run directories as Parquet tables or a Hugging Face dataset (episodes, turns, calls, images)",
        description=(
            "Writes the episodes, turns and model calls of every run directory at or below each DIR as tables "
            "(plus the images), with each run's config.json (fidelity stamp, model side, task options, "
            "versions) as metadata. playbench.results.load_export(PATH) reads them back as results.load does."
        ),
    )
    export.add_argument(
        "dirs", nargs="+", metavar="DIR", help="a run directory, or a folder of them (a sweep)"
    )
    # the choices are checked by the command, so that a bad one is one line naming the accepted ones
    export.add_argument(
        "--format",
        required=True,
        metavar="|".join(FORMATS),
        help="parquet: PATH/<table>.parquet; hf: a datasets.DatasetDict saved with save_to_disk(PATH)",
    )
    export.add_argument("--out", required=True, metavar="PATH", help="the export folder (new or empty)")
    export.add_argument(
        "--images",
        default=None,
        metavar="|".join(IMAGE_MODES),
        help="files: copy the PNGs under PATH/images/ and reference them by relative path; bytes: embed them "
        "(Parquet binary, datasets Image); none: references only "
        f"(default: {', '.join(f'{k} for {v}' for v, k in DEFAULT_IMAGES.items())})",
    )
    export.add_argument("--force", action="store_true", help="replace an earlier export at PATH")
    export.add_argument(
        "--drop-pseudonyms",
        action="store_true",
        help="write every study participant's seat human:<pseudonym> as human (playbench study)",
    )


def cmd_export(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    from playbench.cli_run_report import err_console
    from playbench.export.build import export_runs

    def warn(message: str) -> None:  # a skipped line or missing file: said, never silently dropped
        err_console.print(f"playbench: warning: {message}", highlight=False, markup=False)

    result = export_runs(
        args.dirs,
        args.out,
        fmt=args.format,
        images=args.images,
        force=args.force,
        command=["playbench", *(argv if argv is not None else sys.argv[1:])],
        warn=warn,
        drop_pseudonyms=args.drop_pseudonyms,
    )
    tables = result.manifest["tables"]
    counts = ", ".join(f"{info['rows']} {table}" for table, info in tables.items())
    err_console.print(
        f"wrote {result.out} ({args.format}, images: {result.manifest['images']}): {counts}",
        highlight=False,
        markup=False,
    )
    if result.unreadable:
        err_console.print(
            "playbench: error: no readable episode in "
            + ", ".join(f"{path}/episodes.jsonl" for path in result.unreadable),
            highlight=False,
            markup=False,
        )
        return 1
    return 0
