"""`playbench export`: run directories as tables for analysis and training, in Parquet files or a
Hugging Face `datasets.DatasetDict`, and the loader that reads them back.

    from playbench.export import export_runs, load_export
    export_runs(["runs/my-sweep"], "exports/my-sweep", fmt="parquet")   # or fmt="hf"
    episodes, steps, calls = load_export("exports/my-sweep")             # as results.load("runs/my-sweep")

Tables (columns in `tables.py`): `episodes` (one row per episode record), `turns` (one per trajectory
line), `calls` (one per model call, its messages in full), and, unless `images="none"`, `images` (one
per PNG an episode's turns or calls name). `parquet` writes `<table>.parquet`; `hf` saves a
`DatasetDict` with one split per table (`datasets.load_from_disk(out)`). Both write `manifest.json`:
the export's provenance (every run's `config.json`, with its fidelity stamp, model side, task options
and versions; the DIRs and their runs) with row counts and the warnings of lines that were skipped.
The provenance is also in each Parquet file's schema metadata (key `playbench`) and in each split's
`info.description`, so a table alone says how it was produced.

Needs the `export` extra (`pip install 'playbench[export]'`: pyarrow, datasets, pandas).
"""

from playbench.export.build import DEFAULT_IMAGES, MANIFEST, ExportResult, export_runs
from playbench.export.loader import load_export, read_manifest, read_table
from playbench.export.tables import IMAGE_MODES
from playbench.export.writers import FORMATS, TABLES

__all__ = [
    "DEFAULT_IMAGES",
    "FORMATS",
    "IMAGE_MODES",
    "MANIFEST",
    "TABLES",
    "ExportResult",
    "export_runs",
    "load_export",
    "read_manifest",
    "read_table",
]
