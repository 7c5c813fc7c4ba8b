"""Reading a run directory, and nothing else: the one reader behind `playbench report`, the web app
and the resume path. Reading never writes: a torn last line (a line a live run is still writing, or
one a machine crash cut) is skipped, not repaired; a malformed line or file becomes a warning.

The directory's layout (docs/DESIGN.md, "Runner and outputs"): `episodes.jsonl`, one JSON object per
finished episode (the last line of a key wins); `trajectories/<key>.jsonl`, one line per turn;
`trajectories/<key>.calls.jsonl`, one line per model call; `config.json`; `summary.json`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

EPISODES = "episodes.jsonl"
TRAJECTORIES = "trajectories"
CONFIG = "config.json"
SUMMARY = "summary.json"
REQUIRED_FIELDS = ("task", "instance_id", "trial", "agent", "success", "steps")

EpisodeKey = tuple[str, str, int]


def record_key(record: dict[str, Any]) -> EpisodeKey:
    return (str(record["task"]), str(record["instance_id"]), int(record["trial"]))


def key_filename(key: EpisodeKey) -> str:
    """An episode's trajectory file stem: safe characters only, unique within a run."""
    task, instance_id, trial = key
    safe = re.sub(r"[^A-Za-z0-9_.\-]", "_", f"{task.replace('/', '__')}__{instance_id}")
    return f"{safe}__t{trial}"


def natural_key(text: str) -> tuple:
    """'walk-0-10' after 'walk-0-9'."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def record_sort_key(record: dict[str, Any]) -> tuple:
    return (str(record["task"]), natural_key(str(record["instance_id"])), int(record["trial"]))


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


# How deep below a folder run directories are looked for (a sweep's cells are one level down).
FIND_DEPTH = 4
_NO_RUNS_BELOW = {TRAJECTORIES, "__pycache__", ".git", ".venv", "node_modules"}


def find_runs(folder: str | Path, depth: int = FIND_DEPTH) -> list[Path]:
    """`folder` itself when it is a run directory, else every run directory (a folder holding
    episodes.jsonl) at most `depth` levels below it, sorted; symlinked folders are not followed."""
    root = Path(folder)
    if (root / EPISODES).is_file():
        return [root]
    found: list[Path] = []
    if not root.is_dir():
        return found
    base = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        if EPISODES in filenames and here != root:
            found.append(here)
            dirnames[:] = []  # a run's own folders hold no further runs
            continue
        if len(here.parts) - base >= depth:
            dirnames[:] = []
        else:
            dirnames[:] = sorted(d for d in dirnames if d not in _NO_RUNS_BELOW and not d.startswith("."))
    return sorted(found, key=lambda p: natural_key(str(p)))


def expand_repeats(calls: list[dict[str, Any]]) -> list[str]:
    """Put back, in place, the texts a calls file writes once and then refers to (`repeat_of`: the
    call, message and part that first sent it); a reference that leads nowhere becomes a warning."""
    by_number = {c.get("call"): c for c in calls}
    warnings: list[str] = []
    for call in calls:
        for message in (call.get("request") or {}).get("messages") or []:
            for part in message.get("content") or [] if isinstance(message, dict) else []:
                ref = part.get("repeat_of") if isinstance(part, dict) else None
                if not isinstance(ref, dict):
                    continue
                try:
                    source = by_number[ref["call"]]["request"]["messages"][ref["message"]]["content"][
                        ref["part"]
                    ]
                    part["text"] = source["text"]
                    del part["repeat_of"]
                except (KeyError, IndexError, TypeError):
                    warnings.append(f"call {call.get('call')} refers to a text that is not in the calls file")
    return warnings


class RunReader:
    """A read-only view of one run directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def is_run(self) -> bool:
        return (self.path / EPISODES).is_file()

    def records_with_warnings(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every episode once (the last line of a key wins, so a re-run errored episode replaces
        its old record), sorted by task, instance and trial; and warnings about skipped lines."""
        warnings: list[str] = []
        by_key: dict[EpisodeKey, dict[str, Any]] = {}
        try:
            data = (self.path / EPISODES).read_bytes()
        except FileNotFoundError:
            return [], []
        except OSError as exc:
            return [], [f"cannot read {self.path / EPISODES}: {exc.strerror or exc}"]
        where = self.path / EPISODES
        # whole lines only: what follows the last newline is a line still being written (or torn)
        for number, line in enumerate(data.split(b"\n")[:-1], 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                warnings.append(f"{where} line {number} is not JSON and was skipped")
                continue
            missing = [f for f in REQUIRED_FIELDS if not isinstance(rec, dict) or f not in rec]
            if missing:
                warnings.append(f"{where} line {number} lacks {', '.join(missing)} and was skipped")
                continue
            try:
                key = record_key(rec)
                int(rec["steps"])
            except (TypeError, ValueError):
                warnings.append(f"{where} line {number} has a malformed trial or step count and was skipped")
                continue
            by_key[key] = rec
        return sorted(by_key.values(), key=record_sort_key), warnings

    def records(self) -> list[dict[str, Any]]:
        return self.records_with_warnings()[0]

    def finished_keys(self, include_errors: bool = True) -> set[EpisodeKey]:
        return {record_key(r) for r in self.records() if include_errors or r.get("error") is None}

    def json_with_warning(self, name: str) -> tuple[dict[str, Any], str | None]:
        """A JSON object file of the run ({} when absent), or {} and a warning when malformed."""
        path = self.path / name
        if not path.exists():
            return {}, None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            return {}, f"{name} could not be read ({type(exc).__name__}); its details are not shown"
        if not isinstance(data, dict):
            return {}, f"{name} is not a JSON object; its details are not shown"
        return data, None

    def config(self) -> dict[str, Any]:
        return self.json_with_warning(CONFIG)[0]

    def trajectory(self, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """The episode's turn records, or none with a warning when the file is missing or unreadable.
        A run written before turns were named has `step` as the line's position: it becomes `turn`, and
        `step` the task's count from the line's `info` where it has one."""
        rel = record.get("trajectory")
        if not isinstance(rel, str):
            rel = f"{TRAJECTORIES}/{key_filename(record_key(record))}.jsonl"
        steps, warnings = self._jsonl(rel, "trajectory")
        for index, step in enumerate(steps, 1):
            if "turn" not in step:
                step["turn"] = step.get("step", index)
                task_step = (
                    (step.get("info") or {}).get("step") if isinstance(step.get("info"), dict) else None
                )
                step["step"] = task_step if isinstance(task_step, int) else None
        return steps, warnings

    def calls(self, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """The episode's model calls (the calls file), or none: with a warning when the record names a
        file that is missing or unreadable, silently when it names none (`--no-calls`, older runs)."""
        rel = record.get("calls")
        if not isinstance(rel, str):
            return [], []
        calls, warnings = self._jsonl(rel, "calls file")
        return calls, warnings + expand_repeats(calls)

    def _jsonl(self, rel: str, what: str) -> tuple[list[dict[str, Any]], list[str]]:
        path = resolve_inside(self.path, rel)
        if path is None:
            return [], [f"the {what} of this episode ({rel}) is not in the run directory"]
        lines: list[dict[str, Any]] = []
        warnings: list[str] = []
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return [], [f"cannot read the {what}: {exc.strerror or exc}"]
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                warnings.append(f"{what} line {number} is not JSON and was skipped")
                continue
            if isinstance(item, dict):
                lines.append(item)
            else:
                warnings.append(f"{what} line {number} is not an object and was skipped")
        return lines, warnings

    def load(self, name: str | None = None) -> dict[str, Any]:
        """The run as reports use it: path, name, config, summary (recomputed from the records, so a
        half-finished run reports too), records and warnings."""
        from playbench.report.summary import summarize

        records, warnings = self.records_with_warnings()
        config, problem = self.json_with_warning(CONFIG)
        if problem:
            warnings.append(problem)
        options = config.get("task_options_resolved")
        try:
            summary = summarize(records, options if isinstance(options, dict) else None)
        except Exception as exc:  # data a summary cannot digest still lets the episodes be browsed
            summary = {"tasks": {}, "episodes": len(records)}
            warnings.append(f"the summary could not be computed: {type(exc).__name__}: {exc}")
        return {
            "path": str(self.path),
            "name": name or self.path.name,
            "config": config,
            "summary": summary,
            "records": records,
            "warnings": warnings,
        }
