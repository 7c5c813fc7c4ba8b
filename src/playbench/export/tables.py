"""The export's tables, built from run directories: one batch of rows per run.

Every table has the episode's key (`run`, `task`, `instance_id`, `trial`) first. A column has one of
five kinds: `str`, `int`, `float`, `bool` (a typed column, null where the run has no value), `json`
(the value as JSON text: dicts and lists keep their exact shape, key order and numbers, which no
fixed Arrow struct can for task-specific data such as `info` or `metrics`), and `images` (a list of
`{file, label}` references, plus `image` (the PNG) or `path` (the copied file) by `--images`).

- `episodes`: readable columns for analysis, and `record`, the episode's line of episodes.jsonl as
  JSON text: the loader reads only `record` (and `cell`, `grid`), so the frame it builds has exactly
  the fields the record had.
- `turns` and `calls`: one column per field of a trajectory line or a calls-file line; a field whose
  value does not fit its column's type (or a field this exporter does not know) goes into `extra`
  (a JSON object), so every line can be put back together as it was. A field a line lacks reads back
  as null. A calls file's repeated texts are put back (`RunReader.calls`): `messages` holds each
  request in full.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from playbench.core.errors import ConfigError
from playbench.results import cells
from playbench.runner.reader import TRAJECTORIES, RunReader, find_runs, record_key, resolve_inside

IMAGE_MODES = ("files", "bytes", "none")
KEY_COLUMNS = (("run", "str"), ("task", "str"), ("instance_id", "str"), ("trial", "int"))
INT64 = (-(2**63), 2**63 - 1)

EPISODE_COLUMNS: tuple[tuple[str, str], ...] = (
    *KEY_COLUMNS,
    ("seed", "int"),
    ("agent", "str"),
    ("model", "str"),
    ("roles", "json"),
    ("success", "bool"),
    ("steps", "int"),
    ("turns", "int"),
    ("optimal_steps", "int"),
    ("termination", "str"),
    ("error", "str"),
    ("error_kind", "str"),
    ("truncated_replies", "int"),
    ("input_tokens", "int"),
    ("output_tokens", "int"),
    ("calls", "int"),
    ("cached_calls", "int"),
    ("retries", "int"),
    ("cost", "float"),
    ("duration_s", "float"),
    ("metrics", "json"),
    ("usage", "json"),
    ("usage_by_role", "json"),
    ("usage_by_model", "json"),
    ("usage_breakdown", "json"),
    ("trajectory", "str"),
    ("calls_file", "str"),
    ("fidelity", "json"),
    ("cell", "str"),
    ("grid", "json"),
    ("record", "json"),
)

# The fields of a trajectory line (core/records.py StepRecord, and `error` of a crashed turn).
TURN_FIELDS: tuple[tuple[str, str], ...] = (
    ("turn", "int"),
    ("step", "int"),
    ("role", "str"),
    ("observation", "str"),
    ("instructions", "str"),
    ("turns_before", "json"),
    ("images", "images"),
    ("feedback_before", "str"),
    ("raw_output", "str"),
    ("action", "str"),
    ("rationale", "str"),
    ("parsed", "str"),
    ("validity", "str"),
    ("reason", "str"),
    ("feedback", "str"),
    ("info", "json"),
    ("usage", "json"),
    ("calls", "int"),
    ("error", "str"),
)
TURN_COLUMNS: tuple[tuple[str, str], ...] = (
    *KEY_COLUMNS,
    ("agent", "str"),  # the seat's agent (the record's `roles`), for filtering one seat's turns
    *TURN_FIELDS,
    ("input_tokens", "int"),
    ("output_tokens", "int"),
    ("extra", "json"),
)

# The fields of a calls-file line (runner/calls.py); `request` is split into `messages` and `params`,
# `response` into `text`, `reasoning` and `finish_reason`.
CALL_FIELDS: tuple[tuple[str, str], ...] = (
    ("call", "int"),
    ("turn", "int"),
    ("role", "str"),
    ("purpose", "str"),
    ("model", "str"),
    ("usage", "json"),
    ("latency_s", "float"),
    ("retries", "int"),
    ("cached", "bool"),
    ("error", "str"),
    ("error_kind", "str"),
)
RESPONSE_FIELDS = ("text", "reasoning", "finish_reason")
CALL_COLUMNS: tuple[tuple[str, str], ...] = (
    *KEY_COLUMNS,
    ("call", "int"),
    ("turn", "int"),
    ("role", "str"),
    ("purpose", "str"),
    ("model", "str"),
    ("messages", "json"),
    ("params", "json"),
    ("text", "str"),
    ("reasoning", "str"),
    ("finish_reason", "str"),
    ("input_tokens", "int"),
    ("output_tokens", "int"),
    ("reasoning_tokens", "int"),
    ("cost", "float"),
    *[c for c in CALL_FIELDS if c[0] not in ("call", "turn", "role", "purpose", "model")],
    ("extra", "json"),
)
IMAGE_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "bytes": (("run", "str"), ("file", "str"), ("image", "binary")),
    "files": (("run", "str"), ("file", "str"), ("path", "str")),
}


def fits(value: Any, kind: str) -> bool:
    """Whether `value` can be stored in a column of `kind` and read back as the same value."""
    if value is None or kind == "json":
        return True
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return type(value) is int and INT64[0] <= value <= INT64[1]
    if kind == "float":
        return type(value) is float
    if kind == "bool":
        return type(value) is bool
    return False


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def typed(value: Any, kind: str) -> Any:
    """A convenience column's value: the value when it fits, else null (the loader never reads these)."""
    if kind == "json":
        return to_json(value)
    if kind == "float" and type(value) is int:  # a whole-number cost or duration written as 0
        return float(value)
    return value if fits(value, kind) else None


def split_line(line: dict[str, Any], fields: tuple[tuple[str, str], ...]) -> tuple[dict[str, Any], dict]:
    """A line's known fields as column values, and `extra`: the fields that are unknown or do not fit."""
    row: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    known = {name for name, _ in fields}
    for name, kind in fields:
        value = line.get(name)
        if kind == "images":
            if _image_refs(value) or value is None:
                row[name] = value
            else:
                row[name], extra[name] = None, value
        elif fits(value, kind):
            row[name] = to_json(value) if kind == "json" else value
        else:
            row[name], extra[name] = None, value
    for name, value in line.items():
        if name not in known:
            extra[name] = value
    return row, extra


def _image_refs(value: Any) -> bool:
    """A list of `{"file": str, "label": str | None}`: what an `images` column holds."""
    return isinstance(value, list) and all(
        isinstance(ref, dict)
        and set(ref) == {"file", "label"}
        and isinstance(ref["file"], str)
        and (ref["label"] is None or isinstance(ref["label"], str))
        for ref in value
    )


@dataclass
class Source:
    """One DIR as given: its run directories (in `find_runs` order), named as `results.load` names them."""

    dir: str
    runs: list[tuple[str, Path]]
    cells: dict[str, dict[str, Any]]

    def cell(self, run_path: Path) -> dict[str, Any] | None:
        """The sweep cell of a run (a run directly inside a sweep folder named in its sweep.json)."""
        return self.cells.get(run_path.name) if run_path.parent == Path(self.dir) else None


def sources(dirs: list[str]) -> list[Source]:
    """The DIRs as sources; a DIR with no run directory, or two runs of one name, is an error."""
    out: list[Source] = []
    seen: dict[str, str] = {}
    for given in dirs:
        folder = Path(given)
        found = find_runs(folder)
        if not found:
            what = "does not exist" if not folder.exists() else "is not a run directory and holds none"
            raise ConfigError(f"'{given}' {what} (no episodes.jsonl in it or below)")
        runs = []
        for path in found:
            name = folder.name if path == folder else path.relative_to(folder).as_posix()
            if name in seen:
                raise ConfigError(
                    f"two runs are named '{name}' (in '{seen[name]}' and '{given}'): export their common "
                    "parent folder instead, or each on its own"
                )
            seen[name] = given
            runs.append((name, path))
        out.append(Source(given, runs, cells(folder)))
    return out


def image_dir(run: str, index: int) -> str:
    """The folder under `images/` for a run's PNG files: its name where that is a safe relative path."""
    parts = PurePosixPath(run).parts
    if run and not any(p in ("", ".", "..") or "\\" in p for p in parts):
        return run
    return f"run-{index}"


@dataclass
class EpisodeRows:
    """One episode's rows of every table, and the PNG files to copy beside them (files mode)."""

    episode: dict[str, Any]
    turns: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    images: list[dict[str, Any]]
    copies: dict[str, Path]  # path inside the export -> PNG in the run
    warnings: list[str]


class RunRows:
    """One run of a source: its config, the warnings from reading its episodes.jsonl, and its episodes'
    rows one episode at a time (`episodes()`), in `results.load`'s order: records sorted by task,
    instance and trial; lines in file order."""

    def __init__(
        self,
        name: str,
        path: Path,
        cell: dict[str, Any] | None,
        mode: str,
        folder: str,
        anonymous: bool = False,
    ) -> None:
        self.name, self.path, self.cell, self.mode, self.folder = name, path, cell, mode, folder
        self.reader = RunReader(path)
        self.records, self.warnings = self.reader.records_with_warnings()
        if anonymous:  # --drop-pseudonyms
            self.records = [drop_pseudonym(r) for r in self.records]
        self.config, problem = self.reader.json_with_warning("config.json")
        if problem:
            self.warnings.append(problem)
        episodes_file = path / "episodes.jsonl"
        # as `playbench report`: content with no readable line is a failure, not an empty run
        self.unreadable = not self.records and episodes_file.is_file() and episodes_file.stat().st_size > 0
        self.missing_images = [0, 0]  # image files named but absent, and the episodes naming them

    def episodes(self) -> Iterator[EpisodeRows]:
        fidelity = self.config.get("fidelity") if isinstance(self.config.get("fidelity"), dict) else {}
        for record in self.records:
            yield self._episode(record, fidelity)

    def closing_warnings(self) -> list[str]:
        """What reading every episode found missing, said once for the run (after `episodes()`)."""
        files, episodes = self.missing_images
        if not files:
            return []
        return [
            f"{files} image file(s) that {episodes} episode(s) name are not in the run (made with --no-images?); "
            "they are exported as references only"
        ]

    def _episode(self, record: dict[str, Any], fidelity: dict[str, Any]) -> EpisodeRows:
        task, instance_id, trial = record_key(record)
        key = {"run": self.name, "task": task, "instance_id": instance_id, "trial": trial}
        out = EpisodeRows(_episode_row(key, record, fidelity.get(task), self.cell), [], [], [], {}, [])
        roles = record.get("roles") if isinstance(record.get("roles"), dict) else {}
        image_refs: dict[str, None] = {}  # every image file the episode's lines name, first seen first
        lines, more = self.reader.trajectory(record)
        out.warnings += [f"{key_label(key)}: {w}" for w in more]
        for line in lines:
            row, extra = split_line(line, TURN_FIELDS)
            usage = line.get("usage") if isinstance(line.get("usage"), dict) else {}
            role = line.get("role")
            out.turns.append(
                {
                    **key,
                    "agent": typed(roles.get(role) if isinstance(role, str) else None, "str"),
                    **row,
                    "input_tokens": typed(usage.get("input_tokens"), "int"),
                    "output_tokens": typed(usage.get("output_tokens"), "int"),
                    "extra": to_json(extra or None),
                }
            )
            for ref in row["images"] or []:
                image_refs.setdefault(ref["file"])
            for file in _turns_before_images(line.get("turns_before")):
                image_refs.setdefault(file)
        calls, more = self.reader.calls(record)
        out.warnings += [f"{key_label(key)}: {w}" for w in more]
        for call in calls:
            out.calls.append({**key, **_call_row(call)})
            for file in _message_images(call):
                image_refs.setdefault(file)
        self._add_images(out, list(image_refs))
        return out

    def _add_images(self, out: EpisodeRows, files: list[str]) -> None:
        """The episode's images as rows of the images table, and each turn's own images filled in."""
        if self.mode == "none":
            return
        base = self.path / TRAJECTORIES
        payload: dict[str, Any] = {}
        missing = 0
        slot = "image" if self.mode == "bytes" else "path"
        for file in files:
            png = resolve_inside(base, file)
            if png is None:
                missing += 1
                continue
            if self.mode == "bytes":
                payload[file] = png.read_bytes()
            else:
                payload[file] = f"images/{self.folder}/{file}"
                out.copies[payload[file]] = png
            out.images.append({"run": self.name, "file": file, slot: payload[file]})
        if missing:
            self.missing_images[0] += missing
            self.missing_images[1] += 1
        for turn in out.turns:
            if turn["images"]:
                turn["images"] = [{**ref, slot: payload.get(ref["file"])} for ref in turn["images"]]


def source_runs(
    source: Source, mode: str, first_index: int = 0, anonymous: bool = False
) -> Iterator[RunRows]:
    """Each run of `source` (`first_index` numbers the runs across sources, for `image_dir`)."""
    for index, (name, path) in enumerate(source.runs, first_index):
        yield RunRows(name, path, source.cell(path), mode, image_dir(name, index), anonymous)


PSEUDONYM = re.compile(r"\bhuman:[^\s,;()/+]+")


def drop_pseudonym(record: dict[str, Any]) -> dict[str, Any]:
    """The record with every `human:<pseudonym>` seat (a study participant) written `human`, in its
    `agent` and in its `roles` (which the turns table reads)."""
    out = dict(record)
    if isinstance(out.get("agent"), str):
        out["agent"] = PSEUDONYM.sub("human", out["agent"])
    if isinstance(out.get("roles"), dict):
        out["roles"] = {
            k: PSEUDONYM.sub("human", v) if isinstance(v, str) else v for k, v in out["roles"].items()
        }
    return out


def key_label(key: dict[str, Any]) -> str:
    return f"{key['task']} {key['instance_id']} trial {key['trial']}"


def _episode_row(
    key: dict[str, Any], record: dict[str, Any], fidelity: Any, cell: dict[str, Any] | None
) -> dict[str, Any]:
    usage = record.get("usage") if isinstance(record.get("usage"), dict) else {}
    row: dict[str, Any] = dict(key)
    for name, kind in EPISODE_COLUMNS[len(KEY_COLUMNS) :]:
        if name in ("input_tokens", "output_tokens", "calls", "cached_calls", "retries", "cost"):
            row[name] = typed(usage.get(name), kind)
        elif name == "calls_file":
            row[name] = typed(record.get("calls"), kind)
        elif name == "fidelity":
            row[name] = to_json(fidelity)
        elif name == "cell":
            row[name] = None if cell is None else str(cell["name"])
        elif name == "grid":
            row[name] = None if cell is None else to_json(cell.get("grid") or {})
        elif name == "record":
            row[name] = to_json(record)
        else:
            row[name] = typed(record.get(name), kind)
    return row


def _call_row(call: dict[str, Any]) -> dict[str, Any]:
    row, extra = split_line({k: v for k, v in call.items() if k not in ("request", "response")}, CALL_FIELDS)
    request = call.get("request")
    if isinstance(request, dict) and set(request) == {"messages", "params"}:
        messages, params = to_json(request["messages"]), to_json(request["params"])
    else:  # a request of another shape is kept whole
        messages = params = None
        if "request" in call:
            extra["request"] = request
    response = call.get("response")
    if response is None:
        texts: dict[str, Any] = dict.fromkeys(RESPONSE_FIELDS)
    elif (
        isinstance(response, dict)
        and set(response) == set(RESPONSE_FIELDS)
        and isinstance(response["text"], str)
        and all(fits(response[k], "str") for k in RESPONSE_FIELDS)
    ):
        texts = {k: response[k] for k in RESPONSE_FIELDS}
    else:  # kept whole, so that a null response and a response of nulls stay apart
        texts = dict.fromkeys(RESPONSE_FIELDS)
        extra["response"] = response
    usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
    ordered = {name: None for name, _ in CALL_COLUMNS[len(KEY_COLUMNS) :]}
    ordered.update(row)
    ordered.update(messages=messages, params=params, **texts)
    for name in ("input_tokens", "output_tokens", "reasoning_tokens"):
        ordered[name] = typed(usage.get(name), "int")
    ordered["cost"] = typed(usage.get("cost"), "float")
    ordered["extra"] = to_json(extra or None)
    return ordered


def _turns_before_images(turns_before: Any) -> Iterator[str]:
    for message in turns_before if isinstance(turns_before, list) else []:
        images = message.get("images") if isinstance(message, dict) else None
        for ref in images if isinstance(images, list) else []:
            if isinstance(ref, dict) and isinstance(ref.get("file"), str):
                yield ref["file"]


def _message_images(call: dict[str, Any]) -> Iterator[str]:
    request = call.get("request") if isinstance(call.get("request"), dict) else {}
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image" and isinstance(part.get("file"), str):
                yield part["file"]
