"""Writing the tables: Parquet files (pyarrow) or a Hugging Face `datasets.DatasetDict`.

Both writers take the rows one episode at a time and write them in batches (a Parquet row group, or
a batch of an Arrow stream file that the `datasets` writer then saves with `save_to_disk`), so an
export holds about one batch in memory, not the whole sweep.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from typing import Any

from playbench.export.tables import (
    CALL_COLUMNS,
    EPISODE_COLUMNS,
    IMAGE_COLUMNS,
    TURN_COLUMNS,
    EpisodeRows,
)

FORMATS = ("parquet", "hf")
TABLES = ("episodes", "turns", "calls", "images")
# a batch is written once it holds this many rows or bytes (Arrow's in-memory size)
BATCH_ROWS = 20_000
BATCH_BYTES = 64 * 2**20


def table_columns(table: str, images: str) -> tuple[tuple[str, str], ...]:
    """The (name, kind) columns of `table` under the `--images` mode `images`."""
    return {
        "episodes": EPISODE_COLUMNS,
        "turns": TURN_COLUMNS,
        "calls": CALL_COLUMNS,
        "images": IMAGE_COLUMNS.get(images, ()),
    }[table]


def tables_for(images: str) -> tuple[str, ...]:
    """The tables an export has: no images table with `--images none`."""
    return TABLES if images != "none" else TABLES[:3]


def arrow_schema(table: str, images: str, fmt: str) -> Any:
    """The table's Arrow schema; for `hf` the storage of its `datasets` features (PNG bytes as `Image`)."""
    import pyarrow as pa

    if fmt == "hf":
        return hf_features(table, images).arrow_schema
    scalar = {"str": pa.string(), "json": pa.string(), "int": pa.int64(), "float": pa.float64()}
    scalar.update(bool=pa.bool_(), binary=pa.binary())
    ref_fields = [("file", pa.string()), ("label", pa.string())]
    if images == "bytes":
        ref_fields.append(("image", pa.binary()))
    elif images == "files":
        ref_fields.append(("path", pa.string()))
    fields = [
        (name, pa.list_(pa.struct(ref_fields)) if kind == "images" else scalar[kind])
        for name, kind in table_columns(table, images)
    ]
    return pa.schema(fields)


def hf_features(table: str, images: str) -> Any:
    import datasets

    scalar = {"str": "string", "json": "string", "int": "int64", "float": "float64", "bool": "bool"}
    ref: dict[str, Any] = {"file": datasets.Value("string"), "label": datasets.Value("string")}
    if images == "bytes":
        ref["image"] = datasets.Image()
    elif images == "files":
        ref["path"] = datasets.Value("string")
    features: dict[str, Any] = {}
    for name, kind in table_columns(table, images):
        if kind == "images":
            features[name] = [ref]  # a list of structs, in every datasets version
        elif kind == "binary":
            features[name] = datasets.Image()
        else:
            features[name] = datasets.Value(scalar[kind])
    return datasets.Features(features)


class TableSink:
    """Buffers one table's rows and writes them in batches through `write(pa.Table)`."""

    def __init__(self, schema: Any, writer: Any) -> None:
        self.schema, self.writer = schema, writer
        self.buffer: list[Any] = []
        self.buffered_rows = self.buffered_bytes = self.rows = 0

    def add(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        import pyarrow as pa

        batch = pa.Table.from_pylist(rows, schema=self.schema)
        self.buffer.append(batch)
        self.buffered_rows += batch.num_rows
        self.buffered_bytes += batch.nbytes
        self.rows += batch.num_rows
        if self.buffered_rows >= BATCH_ROWS or self.buffered_bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            import pyarrow as pa

            self.writer.write_table(pa.concat_tables(self.buffer))
        self.buffer, self.buffered_rows, self.buffered_bytes = [], 0, 0

    def close(self) -> None:
        self.flush()
        self.writer.close()


def _hf_images(rows: list[dict[str, Any]], slot: str) -> list[dict[str, Any]]:
    """`datasets.Image` stores a PNG as {bytes, path}: the rows with their bytes wrapped so."""
    wrap = lambda png: None if png is None else {"bytes": png, "path": None}  # noqa: E731
    if slot == "images":
        return [
            {**row, "images": [{**ref, "image": wrap(ref.get("image"))} for ref in row["images"]]}
            if row.get("images")
            else row
            for row in rows
        ]
    return [{**row, "image": wrap(row["image"])} for row in rows]


class ExportWriter:
    """Writes an export into `folder` (an empty temporary folder): `add(rows)` per episode, then
    `close(provenance)`. Returns the row count of every table from `close`."""

    def __init__(self, folder: Path, fmt: str, images: str, provenance: dict[str, Any]) -> None:
        import pyarrow as pa

        self.folder, self.fmt, self.images = folder, fmt, images
        self.sinks: dict[str, TableSink] = {}
        metadata = {b"playbench": json.dumps(provenance, ensure_ascii=False).encode()}
        if fmt == "hf":
            (folder / ".build").mkdir()
        import pyarrow.parquet as pq

        for table in tables_for(images):
            schema = arrow_schema(table, images, fmt)
            if fmt == "parquet":
                schema = schema.with_metadata(metadata)
                writer = pq.ParquetWriter(str(folder / f"{table}.parquet"), schema)
            else:
                writer = pa.ipc.new_stream(str(folder / ".build" / f"{table}.arrow"), schema)
            self.sinks[table] = TableSink(schema, writer)

    def add(self, rows: EpisodeRows) -> None:
        turns, images = rows.turns, rows.images
        if self.fmt == "hf" and self.images == "bytes":
            turns, images = _hf_images(turns, "images"), _hf_images(images, "image")
        self.sinks["episodes"].add([rows.episode])
        self.sinks["turns"].add(turns)
        self.sinks["calls"].add(rows.calls)
        if "images" in self.sinks:
            self.sinks["images"].add(images)
        for inside, png in rows.copies.items():
            target = self.folder / inside
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(png, target)

    def abort(self) -> None:
        """Close the open files of a failed export (its folder is then removed)."""
        for sink in self.sinks.values():
            # a writer that failed may refuse to close; the folder is removed anyway
            with contextlib.suppress(Exception):
                sink.writer.close()

    def close(self, provenance: dict[str, Any]) -> dict[str, int]:
        for sink in self.sinks.values():
            sink.close()
        counts = {table: sink.rows for table, sink in self.sinks.items()}
        if self.fmt == "hf":
            self._save_dataset_dict(provenance)
        return counts

    def _save_dataset_dict(self, provenance: dict[str, Any]) -> None:
        import datasets

        build = self.folder / ".build"
        description = json.dumps(provenance, ensure_ascii=False)
        splits = {}
        for table, sink in self.sinks.items():
            features = hf_features(table, self.images)
            info = datasets.DatasetInfo(description=description, features=features)
            if sink.rows:
                splits[table] = datasets.Dataset.from_file(str(build / f"{table}.arrow"), info=info)
            else:  # `datasets` saves an empty split with no shard unless told, and cannot load that back
                splits[table] = datasets.Dataset.from_dict(
                    dict.fromkeys(features, []), features=features, info=info
                )
        were_disabled = datasets.are_progress_bars_disabled()
        datasets.disable_progress_bars()  # a bar per split is noise in a command's output
        try:
            empty = {table: 1 for table, sink in self.sinks.items() if not sink.rows}
            datasets.DatasetDict(splits).save_to_disk(str(self.folder), num_shards=empty)
        finally:
            if not were_disabled:
                datasets.enable_progress_bars()
        del splits  # the memory-mapped build files are closed before they are removed
        shutil.rmtree(build)
