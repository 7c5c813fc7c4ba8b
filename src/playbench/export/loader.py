"""Reading an export back: its manifest, its tables as rows, the run lines put back together, and
`load_export`, which gives the same `playbench.results` frames as `results.load` of the original
run directories.

The frames are built as `results.load` builds them (the same row functions and column lists, one
`load` per DIR given to the export, concatenated with `pandas.concat(..., ignore_index=True)` when
there were several), so a test comparing the two with `pandas.testing` holds them to one shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.export.build import EXPORT_VERSION, MANIFEST
from playbench.export.tables import CALL_FIELDS, RESPONSE_FIELDS, TURN_FIELDS


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The export's manifest: `manifest.json`, else the provenance its tables carry (the Parquet
    schema metadata of episodes.parquet, the description of the `episodes` split)."""
    folder = Path(path)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except FileNotFoundError:
        manifest = _embedded_manifest(folder)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"'{path}': {MANIFEST} cannot be read ({type(exc).__name__})") from None
    if not isinstance(manifest, dict) or "playbench_export" not in manifest:
        raise ConfigError(f"'{path}' is not a playbench export (no {MANIFEST} written by playbench export)")
    if not isinstance(manifest["playbench_export"], int) or manifest["playbench_export"] > EXPORT_VERSION:
        raise ConfigError(
            f"'{path}' was written by a newer playbench (export layout {manifest['playbench_export']}); "
            "upgrade playbench to read it"
        )
    return manifest


def _embedded_manifest(folder: Path) -> Any:
    if (folder / "episodes.parquet").is_file():
        import pyarrow.parquet as pq

        metadata = pq.read_schema(folder / "episodes.parquet").metadata or {}
        text = metadata.get(b"playbench")
        return json.loads(text) if text else None
    if (folder / "dataset_dict.json").is_file():
        import datasets

        return json.loads(datasets.load_from_disk(str(folder))["episodes"].info.description or "null")
    if not folder.exists():
        raise ConfigError(f"export '{folder}' does not exist")
    return None


def read_table(path: str | Path, table: str, manifest: dict[str, Any], skip: tuple[str, ...] = ()) -> list:
    """The rows of one table as dicts (columns in `skip` left out, e.g. the images' bytes)."""
    folder = Path(path)
    if manifest.get("format") == "hf":
        import datasets

        data = datasets.load_from_disk(str(folder))
        if table not in data:
            return []
        arrow = data[table].data.table
    else:
        import pyarrow.parquet as pq

        file = folder / f"{table}.parquet"
        if not file.is_file():
            raise ConfigError(f"export '{path}' lacks {file.name}")
        arrow = pq.read_table(file)
    keep = [name for name in arrow.column_names if name not in skip]
    return arrow.select(keep).to_pylist()


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def turn_line(row: dict[str, Any]) -> dict[str, Any]:
    """A turns row as its trajectory line (a field the line lacked comes back as null)."""
    line: dict[str, Any] = {}
    for name, kind in TURN_FIELDS:
        value = row.get(name)
        if kind == "json":
            value = _loads(value)
        elif kind == "images" and value is not None:
            value = [{"file": ref["file"], "label": ref["label"]} for ref in value]
        line[name] = value
    line.update(_loads(row.get("extra")) or {})
    return line


def call_line(row: dict[str, Any]) -> dict[str, Any]:
    """A calls row as its calls-file line, its repeated texts in full."""
    extra = _loads(row.get("extra")) or {}
    line: dict[str, Any] = {}
    for name, kind in CALL_FIELDS:
        line[name] = _loads(row.get(name)) if kind == "json" else row.get(name)
    if "request" not in extra:
        line["request"] = {"messages": _loads(row.get("messages")), "params": _loads(row.get("params"))}
    if "response" not in extra:
        texts = {k: row.get(k) for k in RESPONSE_FIELDS}
        line["response"] = None if texts["text"] is None else texts
    line.update(extra)
    return line


def load_export(path: str | Path, steps: bool = True, calls: bool = True) -> Any:
    """An export as `playbench.results.Results` (episodes, steps, calls): the frames `results.load`
    gives for the run directories it was made from (for several DIRs, each DIR's frames concatenated)."""
    from playbench import results

    pd = results._pandas()
    manifest = read_manifest(path)
    episode_rows = read_table(path, "episodes", manifest)
    records = {
        (r["run"], r["task"], r["instance_id"], r["trial"]): json.loads(r["record"]) for r in episode_rows
    }
    turn_rows = read_table(path, "turns", manifest, skip=("images",)) if steps else []
    call_rows = read_table(path, "calls", manifest) if calls else []
    frames: list[Any] = []
    for source in manifest.get("sources") or []:
        names = set(source.get("runs") or [])
        frames.append(
            _source_frames(
                results,
                [r for r in episode_rows if r["run"] in names],
                [r for r in turn_rows if r["run"] in names],
                [r for r in call_rows if r["run"] in names],
                records,
            )
        )
    if not frames:
        raise ConfigError(f"export '{path}' names no source run directory in its manifest")
    if len(frames) == 1:
        return frames[0]
    return results.Results(*(pd.concat([f[i] for f in frames], ignore_index=True) for i in range(3)))


def _key(row: dict[str, Any]) -> tuple:
    return (row["run"], row["task"], row["instance_id"], row["trial"])


def _source_frames(
    results: Any,
    episode_rows: list[dict[str, Any]],
    turn_rows: list[dict[str, Any]],
    call_rows: list[dict[str, Any]],
    records: dict[tuple, dict[str, Any]],
) -> Any:
    """One DIR's frames, built as `results.load` builds them."""
    episodes = []
    for row in episode_rows:
        record = records[_key(row)]
        out = results.episode_row(row["run"], record)
        if row["cell"] is not None:
            out["cell"] = row["cell"]
            for key, value in (_loads(row["grid"]) or {}).items():
                out[f"grid.{key}"] = json.dumps(value) if isinstance(value, list | dict) else value
        episodes.append(out)
    step_rows = [
        results.step_row(_frame_key(row["run"], records[_key(row)]), turn_line(row)) for row in turn_rows
    ]
    frame_calls = [
        results.call_row(_frame_key(row["run"], records[_key(row)]), call_line(row)) for row in call_rows
    ]
    return results.frames(episodes, step_rows, frame_calls)


def _frame_key(run: str, record: dict[str, Any]) -> dict[str, Any]:
    """The key columns as `results.load` writes them: the record's own values, not their text."""
    return {
        "run": run,
        "task": record["task"],
        "instance_id": record["instance_id"],
        "trial": record["trial"],
    }
