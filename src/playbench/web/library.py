"""The run directories the web app may read: discovery, cached read-only loading, and the one gate
through which any file on disk is reached (`resolve_inside`).

Nothing here writes: runs are read through the runner's read-only `RunReader`. A run is named in URLs by
an opaque id derived from its resolved path; request data is only ever matched against the ids
found by the scan, never turned into a directory path.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.runner.reader import (
    EPISODES,
    RunReader,
    key_filename,
    natural_key,
    record_key,
    record_sort_key,
    resolve_inside,
)

__all__ = ["natural_key", "record_sort_key", "resolve_inside"]

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


class NotFound(Exception):
    """A run, episode or file that is not there (or not allowed): the app answers 404."""


def media_type(path: Path) -> str | None:
    return SERVED_TYPES.get(path.suffix.lower())


def run_id(path: Path) -> str:
    return hashlib.sha1(str(path).encode()).hexdigest()[:12]


def episode_id(record: dict[str, Any]) -> str:
    """The episode's trajectory file stem: safe characters only, unique within a run."""
    return key_filename(record_key(record))


def read_trajectory(run_path: Path, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    return RunReader(run_path).trajectory(record)


@dataclass(frozen=True)
class RunRef:
    rid: str
    path: Path  # resolved
    root: Path  # the resolved --runs directory it was found under
    label: str  # root name and the path below it


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
        run = RunReader(ref.path).load(name=ref.label)
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
