"""The run directories the web app may read: discovery, cached read-only loading, and the one gate
through which any file on disk is reached (`resolve_inside`).

Nothing here writes: browsing a run never repairs, creates or truncates anything in it (the
runner's `RunStore` does that on open, so it is not used for reading). A run is named in URLs by
an opaque id derived from its resolved path; request data is only ever matched against the ids
found by the scan, never turned into a directory path.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from playbench.runner.episode import key_filename
from playbench.runner.store import EPISODES, record_key

# How deep below a root run directories are looked for (runs/sweep-s0/<model> is depth 2).
SCAN_DEPTH = 4
# Folders that never hold a run directory; trajectories can hold thousands of image folders.
SKIP_DIRS = {"trajectories", "__pycache__", "node_modules", ".git", ".venv"}
SCAN_TTL_S = 2.0
# Files the app serves from a run directory, with their media types; everything else is refused.
SERVED_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".json": "application/json",
    ".jsonl": "text/plain; charset=utf-8",
    ".csv": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
REQUIRED_FIELDS = ("task", "instance_id", "trial", "agent", "success", "steps")


class NotFound(Exception):
    """A run, episode or file that is not there (or not allowed): the app answers 404."""


def resolve_inside(base: Path, rel: str) -> Path | None:
    """`base/rel` as a real file strictly inside `base`, or None.

    Refuses absolute paths, `..` components, backslashes and NUL bytes outright, then resolves
    symlinks and checks the target is still inside `base`, so neither `../`, its percent-encoded
    forms (decoded before they get here), nor a symlink pointing elsewhere can leave the directory.
    """
    if not rel or "\x00" in rel or "\\" in rel:
        return None
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or re.match(r"^[A-Za-z]:", rel):
        return None
    base = base.resolve()
    try:
        candidate = (base / pure).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return None
    if not candidate.is_relative_to(base) or candidate == base or not candidate.is_file():
        return None
    return candidate


def media_type(path: Path) -> str | None:
    return SERVED_TYPES.get(path.suffix.lower())


def run_id(path: Path) -> str:
    return hashlib.sha1(str(path).encode()).hexdigest()[:12]


def episode_id(record: dict[str, Any]) -> str:
    """The episode's trajectory file stem: safe characters only, unique within a run."""
    return key_filename(record_key(record))


def natural_key(text: str) -> tuple:
    """'walk-0-10' after 'walk-0-9'."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def record_sort_key(record: dict[str, Any]) -> tuple:
    return (str(record["task"]), natural_key(str(record["instance_id"])), int(record["trial"]))


@dataclass(frozen=True)
class RunRef:
    rid: str
    path: Path  # resolved
    root: Path  # the resolved --runs directory it was found under
    label: str  # root name and the path below it

    @property
    def mtime(self) -> float:
        try:
            return (self.path / EPISODES).stat().st_mtime
        except OSError:
            return 0.0


def read_records(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every episode once (the last line of a key wins, as in RunStore) and warnings about bad lines."""
    warnings: list[str] = []
    by_key: dict[tuple, dict[str, Any]] = {}
    try:
        data = (path / EPISODES).read_bytes()
    except OSError as exc:
        return [], [f"cannot read {EPISODES}: {exc.strerror or exc}"]
    # whole lines only: what follows the last newline is a line a live run is still writing
    lines = data.split(b"\n")[:-1]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            warnings.append(f"{EPISODES} line {number} is not JSON and was skipped")
            continue
        missing = [f for f in REQUIRED_FIELDS if not isinstance(rec, dict) or f not in rec]
        if missing:
            warnings.append(f"{EPISODES} line {number} lacks {', '.join(missing)} and was skipped")
            continue
        try:
            key = record_key(rec)
            int(rec["steps"])
        except (TypeError, ValueError):
            warnings.append(f"{EPISODES} line {number} has a malformed trial or step count and was skipped")
            continue
        by_key[key] = rec
    records = sorted(by_key.values(), key=record_sort_key)
    return records, warnings


def read_json_file(path: Path) -> tuple[dict[str, Any], str | None]:
    if not path.exists():
        return {}, None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        return {}, f"{path.name} could not be read ({type(exc).__name__}); its details are not shown"
    if not isinstance(data, dict):
        return {}, f"{path.name} is not a JSON object; its details are not shown"
    return data, None


def load_run_dir(path: Path, name: str | None = None) -> dict[str, Any]:
    """A run as `report.tables.load_run` shapes it (path, name, config, summary, records), plus
    `warnings`; read-only, and a malformed file gives a warning instead of an exception."""
    from playbench.runner.run import summarize

    records, warnings = read_records(path)
    config, problem = read_json_file(path / "config.json")
    if problem:
        warnings.append(problem)
    options = config.get("task_options_resolved")
    try:
        summary = summarize(records, options if isinstance(options, dict) else None)
    except Exception as exc:  # data a summary cannot digest still lets the episodes be browsed
        summary = {"tasks": {}, "episodes": len(records)}
        warnings.append(f"the summary could not be computed: {type(exc).__name__}: {exc}")
    return {
        "path": str(path),
        "name": name or path.name,
        "config": config,
        "summary": summary,
        "records": records,
        "warnings": warnings,
    }


def read_trajectory(run_path: Path, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The episode's step records, or none with a warning when the file is missing or unreadable."""
    rel = record.get("trajectory")
    if not isinstance(rel, str):
        rel = f"trajectories/{episode_id(record)}.jsonl"
    path = resolve_inside(run_path, rel)
    if path is None:
        return [], [f"the trajectory file of this episode ({rel}) is not in the run directory"]
    steps: list[dict[str, Any]] = []
    warnings: list[str] = []
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return [], [f"cannot read the trajectory: {exc.strerror or exc}"]
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError:
            warnings.append(f"trajectory line {number} is not JSON and was skipped")
            continue
        if isinstance(step, dict):
            steps.append(step)
        else:
            warnings.append(f"trajectory line {number} is not an object and was skipped")
    return steps, warnings


class RunLibrary:
    """The run directories under the `--runs` roots, rescanned at most every few seconds."""

    def __init__(self, roots: list[str | Path]) -> None:
        if not roots:
            raise ValueError("the web app needs at least one run directory")
        self.roots = [Path(r).expanduser().resolve() for r in roots]
        self._refs: dict[str, RunRef] = {}
        self._scanned_at = -1e9
        self._cache: dict[str, tuple[tuple, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def scan(self, force: bool = False) -> list[RunRef]:
        with self._lock:
            if force or time.monotonic() - self._scanned_at > SCAN_TTL_S:
                refs: dict[str, RunRef] = {}
                for root in self.roots:
                    for path in _find_runs(root):
                        rel = path.relative_to(root).as_posix()
                        label = root.name if rel == "." else f"{root.name}/{rel}"
                        ref = RunRef(run_id(path), path, root, label)
                        refs.setdefault(ref.rid, ref)
                self._refs = refs
                self._scanned_at = time.monotonic()
            return sorted(self._refs.values(), key=lambda r: r.label)

    def get(self, rid: str) -> RunRef:
        refs = {r.rid: r for r in self.scan()}
        if rid not in refs:
            refs = {r.rid: r for r in self.scan(force=True)}
        if rid not in refs:
            raise NotFound(f"no run with id '{rid}' in the served directories")
        return refs[rid]

    def load(self, ref: RunRef) -> dict[str, Any]:
        """The run, re-read only when episodes.jsonl or config.json changed."""
        stamp = tuple(_stat(ref.path / n) for n in (EPISODES, "config.json"))
        with self._lock:
            cached = self._cache.get(ref.rid)
            if cached is not None and cached[0] == stamp:
                return cached[1]
        run = load_run_dir(ref.path, name=ref.label)
        run["rid"] = run_id(ref.path)
        run["by_id"] = {episode_id(r): r for r in run["records"]}
        with self._lock:
            self._cache[ref.rid] = (stamp, run)
        return run

    def file(self, ref: RunRef, rel: str) -> Path:
        path = resolve_inside(ref.path, rel)
        if path is None or media_type(path) is None:
            raise NotFound("no such file in this run")
        return path


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (0, 0)
    return (st.st_size, st.st_mtime_ns)


def _find_runs(root: Path) -> list[Path]:
    """Directories at most SCAN_DEPTH below `root` holding episodes.jsonl; symlinked folders are not
    followed, so a link cannot bring a directory outside the root into the app."""
    found: list[Path] = []
    if not root.is_dir():
        return found
    base_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        if EPISODES in filenames and (here / EPISODES).is_file() and not (here / EPISODES).is_symlink():
            found.append(here)
        if len(here.parts) - base_depth >= SCAN_DEPTH:
            dirnames[:] = []
        else:
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
    return found
