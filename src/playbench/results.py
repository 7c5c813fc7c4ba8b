"""Results for analysis: a run directory (or a sweep's folder of them) as pandas data frames, and an
audit that replays an episode from its calls file.

    from playbench import results
    res = results.load("runs/sweep")            # a run directory, or any folder of them
    res.episodes.groupby(["task", "model"])["success"].mean()
    res.steps[res.steps.validity == "invalid"]
    res.calls.groupby(["model", "role", "purpose"])[["input_tokens", "output_tokens", "cost"]].sum()

`load` needs pandas (`pip install 'playbench[analysis]'`); reading never changes the directory.

- `episodes`: one row per episode (the last record of each key): the record's fields, `run` (the run
  directory, relative to the folder loaded), `scored` (no error), usage totals as columns
  (`input_tokens`, `output_tokens`, `calls`, `cost`, ...; the calls file is `calls_file`), each scalar metric as `metrics.<name>`, and
  for a sweep's cells the cell's name and grid values (`cell`, `grid.<option>`).
- `steps`: one row per trajectory line (a turn): the episode's key and `run`, `turn`, `step` (the
  task's count), `role`, `observation`, `raw_output`, `action`, `parsed`, `validity`, `reason`,
  `feedback`, the turn's tokens and calls, and its `info` (a dict).
- `calls`: one row per model call: the episode's key and `run`, `call`, `turn`, `role`, `purpose`,
  `model`, tokens (`input_tokens`, `output_tokens`, `reasoning_tokens`), `cost`, `latency_s`,
  `retries`, `cached`, `error`, the response `text` and `finish_reason`, and the request
  (`messages`, a list, and `params`, a dict). Empty for runs made with `--no-calls`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from playbench.core.errors import ConfigError
from playbench.runner.reader import RunReader, find_runs, key_filename, record_key

if TYPE_CHECKING:  # pandas is an optional dependency, imported when `load` is called
    import pandas as pd

EPISODE_KEY = ("run", "task", "instance_id", "trial")
USAGE_COLUMNS = ("input_tokens", "output_tokens", "calls", "cached_calls", "retries", "cost")
STEP_COLUMNS = (
    "turn",
    "step",
    "role",
    "observation",
    "feedback_before",
    "raw_output",
    "action",
    "rationale",
    "parsed",
    "validity",
    "reason",
    "feedback",
    "calls",
    "error",
)


class Results(NamedTuple):
    """Three data frames; unpack them (`episodes, steps, calls = load(DIR)`) or use the names."""

    episodes: pd.DataFrame
    steps: pd.DataFrame
    calls: pd.DataFrame


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ConfigError(
            "playbench.results needs pandas: pip install 'playbench[analysis]' (or pip install pandas)"
        ) from None
    return pandas


def cells(folder: Path) -> dict[str, dict[str, Any]]:
    """A sweep folder's cells by run directory name (from its sweep.json), else nothing."""
    try:
        plan = json.loads((folder / "sweep.json").read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    cells = plan.get("cells") if isinstance(plan, dict) else None
    return {str(c["name"]): c for c in cells or [] if isinstance(c, dict) and "name" in c}


def episode_row(run: str, record: dict[str, Any]) -> dict[str, Any]:
    """One episode as a flat row: scalar fields, usage totals, `metrics.<name>` for scalar metrics."""
    row: dict[str, Any] = {"run": run}
    for key, value in record.items():
        if key in (
            "metrics",
            "usage",
            "usage_by_role",
            "usage_by_model",
            "usage_breakdown",
            "roles",
            "calls",
        ):
            continue
        row[key] = value
    row["calls_file"] = record.get("calls")  # `calls` is the count, among the usage columns
    row["scored"] = not record.get("error")
    usage = record.get("usage") or {}
    for key in USAGE_COLUMNS:
        row[key] = usage.get(key)
    row["roles"] = record.get("roles")
    row["usage_by_model"] = record.get("usage_by_model")
    row["usage_breakdown"] = record.get("usage_breakdown")
    for name, value in (record.get("metrics") or {}).items():
        if value is None or isinstance(value, bool | int | float | str):
            row[f"metrics.{name}"] = value
    return row


def load(path: str | Path, steps: bool = True, calls: bool = True) -> Results:
    """The episodes, steps (turns) and model calls of every run directory at or below `path` as
    pandas data frames (see the module docstring). `steps=False` / `calls=False` skip reading the
    trajectory or calls files (the frames are then empty), which is quicker for a large sweep."""
    _pandas()  # without pandas: one message naming the extra, before any file is read
    folder = Path(path)
    runs = find_runs(folder)
    if not runs:
        raise ConfigError(f"'{path}' holds no run directory (no episodes.jsonl in it or below it)")
    episode_rows: list[dict[str, Any]] = []
    step_rows: list[dict[str, Any]] = []
    call_rows: list[dict[str, Any]] = []
    sweep_cells = cells(folder)
    for run_path in runs:
        name = folder.name if run_path == folder else run_path.relative_to(folder).as_posix()
        reader = RunReader(run_path)
        cell = sweep_cells.get(run_path.name) if run_path.parent == folder else None
        for record in reader.records():
            row = episode_row(name, record)
            if cell is not None:
                row["cell"] = cell["name"]
                for key, value in (cell.get("grid") or {}).items():
                    row[f"grid.{key}"] = json.dumps(value) if isinstance(value, list | dict) else value
            episode_rows.append(row)
            key = {
                "run": name,
                "task": record["task"],
                "instance_id": record["instance_id"],
                "trial": record["trial"],
            }
            if steps:
                step_rows.extend(step_row(key, line) for line in reader.trajectory(record)[0])
            if calls:
                call_rows.extend(call_row(key, call) for call in reader.calls(record)[0])
    return frames(episode_rows, step_rows, call_rows)


def step_row(key: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """The `steps` frame's row of one trajectory line of the episode `key` (run, task, instance, trial)."""
    usage = line.get("usage") if isinstance(line.get("usage"), dict) else {}
    return {
        **key,
        **{c: line.get(c) for c in STEP_COLUMNS},
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "info": line.get("info"),
    }


def call_row(key: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
    """The `calls` frame's row of one recorded model call of the episode `key`."""
    usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
    response = call.get("response") if isinstance(call.get("response"), dict) else {}
    request = call.get("request") if isinstance(call.get("request"), dict) else {}
    return {
        **key,
        **{c: call.get(c) for c in ("call", "turn", "role", "purpose", "model")},
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "reasoning_tokens": usage.get("reasoning_tokens"),
        "cost": usage.get("cost"),
        **{c: call.get(c) for c in ("latency_s", "retries", "cached", "error")},
        "text": response.get("text"),
        "reasoning": response.get("reasoning"),
        "finish_reason": response.get("finish_reason"),
        "messages": request.get("messages"),
        "params": request.get("params"),
    }


def frames(
    episode_rows: list[dict[str, Any]], step_rows: list[dict[str, Any]], call_rows: list[dict[str, Any]]
) -> Results:
    """The three frames from their rows (an empty frame keeps its key columns)."""
    pd = _pandas()
    step_columns = [*EPISODE_KEY, *STEP_COLUMNS, "input_tokens", "output_tokens", "info"]
    call_columns = [*EPISODE_KEY, "call", "turn", "role", "purpose", "model", "input_tokens", "output_tokens"]
    return Results(
        episodes=pd.DataFrame(episode_rows),
        steps=pd.DataFrame(step_rows) if step_rows else pd.DataFrame(columns=step_columns),
        calls=pd.DataFrame(call_rows) if call_rows else pd.DataFrame(columns=call_columns),
    )


def load_export(path: str | Path, steps: bool = True, calls: bool = True) -> Results:
    """An export written by `playbench export` (Parquet or Hugging Face `datasets`) as the same three
    frames `load` gives for the run directories it was made from: same rows, columns and values (for
    an export of several DIRs, each DIR's frames concatenated with `pandas.concat(ignore_index=True)`).
    Needs pyarrow, and `datasets` for an `hf` export (`pip install 'playbench[export]'`)."""
    from playbench.export.loader import load_export as load_exported

    return load_exported(path, steps=steps, calls=calls)


# --- the audit --------------------------------------------------------------------------------------
@dataclass
class Replay:
    """An episode played again from its calls file: `matches` when every request was the recorded
    one and the new trajectory equals the recorded one; `differences` says where not."""

    matches: bool
    differences: list[str] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)


# What may differ between two plays of the same episode without changing it.
VOLATILE = ("duration_s",)


def replay(run_dir: str | Path, record: dict[str, Any]) -> Replay:
    """Play `record`'s episode again with its seats' models answering from the calls file: each
    request must equal the recorded one, and the trajectory and record must come out the same."""
    from playbench.runner.calls import ReplayPool
    from playbench.runner.episode import run_episode
    from playbench.runner.run import RunConfig, plan

    reader = RunReader(run_dir)
    config = reader.config()
    if not isinstance(config.get("run"), dict):
        raise ConfigError(f"'{run_dir}' has no readable config.json, so its episodes cannot be replayed")
    if not record.get("calls"):
        raise ConfigError("this episode has no calls file (the run was made with --no-calls)")
    run_config = RunConfig.from_dict(config["run"])
    run_config.tasks = [record["task"]]
    run_config.instance_ids = [str(record["instance_id"])]
    run_config.trials = int(record["trial"]) + 1
    jobs, _ = plan(run_config)
    job = next((j for j in jobs if j.key == record_key(record)), None)
    if job is None:
        raise ConfigError(f"the run's configuration no longer plans {record_key(record)}")
    calls, warnings = reader.calls(record)
    recorded, more = reader.trajectory(record)
    pool = ReplayPool(calls, key_filename(job.key))
    output = asyncio.run(run_episode(job, pool, save_images=False))  # type: ignore[arg-type]
    differences = [*warnings, *more]
    unused = {spec: m.unused for spec, m in pool.models.items() if m.unused}
    for spec, n in unused.items():
        differences.append(f"{n} recorded call(s) of {spec} were not made again")
    played = output.steps
    if len(played) != len(recorded):
        differences.append(f"{len(played)} turns played again, {len(recorded)} on record")
    for new, old in zip(played, recorded, strict=False):
        for key in sorted(set(new) | set(old)):
            if new.get(key) != old.get(key):
                differences.append(f"turn {old.get('turn')}: '{key}' differs")
    for key in sorted(set(output.record) | set(record)):
        if (
            key not in VOLATILE
            and key not in ("usage_by_model", "usage_breakdown")
            and output.record.get(key) != record.get(key)
        ):
            differences.append(f"record: '{key}' differs")
    return Replay(not differences, differences, output.record, played)
