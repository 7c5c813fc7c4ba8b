"""`export_runs`: run directories into an export folder, written whole or not at all.

The export is written into a temporary folder beside `out` and renamed into place at the end: a
failure or an interrupt leaves no half-written export (and an earlier export that `--force` replaces
stays until the new one is complete).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.paths import writable_dir
from playbench.export.tables import IMAGE_MODES, RunRows, source_runs, sources
from playbench.export.writers import FORMATS, ExportWriter

MANIFEST = "manifest.json"
EXPORT_VERSION = 1  # the layout of the tables; the loader refuses a newer one
DEFAULT_IMAGES = {"parquet": "files", "hf": "bytes"}


@dataclass
class ExportResult:
    """What `export_runs` wrote: the manifest (also in `out/manifest.json`), and the runs whose
    episodes.jsonl had content but no readable line (as `playbench report`, a failure)."""

    out: Path
    manifest: dict[str, Any]
    unreadable: list[str] = field(default_factory=list)


def check_choices(fmt: str, images: str | None) -> str:
    """The `--images` mode (the format's default when None); an unknown format or mode is an error."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format '{fmt}' (use one of: {', '.join(FORMATS)})")
    images = images or DEFAULT_IMAGES[fmt]
    if images not in IMAGE_MODES:
        raise ConfigError(f"unknown --images mode '{images}' (use one of: {', '.join(IMAGE_MODES)})")
    return images


def check_libraries(fmt: str) -> None:
    needed = ["pyarrow", "pandas"] + (["datasets"] if fmt == "hf" else [])
    for name in needed:
        try:
            __import__(name)
        except ImportError:
            raise ConfigError(
                f"playbench export --format {fmt} needs {name}: pip install 'playbench[export]'"
            ) from None


def is_export(path: Path) -> bool:
    try:
        return "playbench_export" in json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError, TypeError):
        return False


def check_out(out: Path, force: bool) -> None:
    """`out` must be new or empty; `--force` replaces an earlier export, and only that."""
    writable_dir(out, "--out")
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not force:
        raise ConfigError(f"--out '{out}' exists and is not empty (--force replaces an earlier export)")
    if not is_export(out):
        raise ConfigError(
            f"--out '{out}' holds files that are not a playbench export; --force replaces only an earlier export"
        )


def export_runs(
    dirs: list[str],
    out: str | Path,
    fmt: str = "parquet",
    images: str | None = None,
    force: bool = False,
    command: list[str] | None = None,
    warn: Callable[[str], None] | None = None,
    drop_pseudonyms: bool = False,
) -> ExportResult:
    """Export the run directories at or below each of `dirs` into `out` (see the package docstring).
    `warn(message)` hears each skipped line or missing file, prefixed with its run's path;
    `drop_pseudonyms` writes every study participant's seat `human:<pseudonym>` as `human`."""
    images = check_choices(fmt, images)
    check_libraries(fmt)
    found = sources(dirs)
    out = Path(out).expanduser()
    check_out(out, force)
    import playbench

    runs: list[RunRows] = []
    index = 0
    for source in found:
        runs += list(source_runs(source, images, index, drop_pseudonyms))
        index += len(source.runs)
    provenance: dict[str, Any] = {
        "playbench_export": EXPORT_VERSION,
        "format": fmt,
        "images": images,
        "playbench_version": playbench.__version__,
        "exported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": command,
        "drop_pseudonyms": drop_pseudonyms,
        "sources": [{"dir": s.dir, "runs": [name for name, _ in s.runs]} for s in found],
        "runs": {r.name: {"path": str(r.path), "cell": r.cell, "config": r.config} for r in runs},
    }
    warnings: dict[str, list[str]] = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    writer: ExportWriter | None = None
    try:
        writer = ExportWriter(tmp, fmt, images, provenance)
        for run in runs:
            said = list(run.warnings)
            for episode in run.episodes():
                writer.add(episode)
                said += episode.warnings
            said += run.closing_warnings()
            if said:
                warnings[run.name] = said
                for message in said:
                    if warn is not None:
                        warn(f"{run.path}: {message}")
        counts = writer.close(provenance)
        manifest = {
            **provenance,
            "tables": {
                table: {"rows": n, "file": f"{table}.parquet" if fmt == "parquet" else f"split {table}"}
                for table, n in counts.items()
            },
            "warnings": warnings,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        _move_into_place(tmp, out)
    except BaseException:
        if writer is not None:
            writer.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ExportResult(out, manifest, [str(r.path) for r in runs if r.unreadable])


def _move_into_place(tmp: Path, out: Path) -> None:
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    if not out.exists():
        os.replace(tmp, out)
        return
    # an earlier export under --force: moved aside first, removed once the new one is in place
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
    os.replace(out, old / "export")
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
