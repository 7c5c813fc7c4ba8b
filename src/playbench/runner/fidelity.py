"""The fidelity stamp: per task, what a run used — texts (the authors' `original@<commit>` or `ours`),
data (`original@<commit>`, `ours`, `generated`) and the model side (`paper`, or `user` naming the settings
the command line changed). config.json holds it; report.md, the web run page and `reproduce` show it."""

from __future__ import annotations

from typing import Any

from playbench.core.task import Task


def model_side_stamp(record: dict[str, Any]) -> str:
    """`paper`, `user (temperature, max_tokens)`, `playbench defaults` or `no model`, from config.json's
    model-side record of one task."""
    seats = record.get("seats") or {}
    if not seats:
        return "no model"
    changed = sorted(
        {
            name
            for seat in seats.values()
            for name, s in (seat.get("settings") or {}).items()
            if s.get("source") == "user"
        }
    )
    if changed:
        return f"user ({', '.join(changed)})"
    return "paper" if record.get("declared_by") else "playbench defaults"


def task_stamp(task: Task, model_record: dict[str, Any]) -> dict[str, str]:
    return {
        "texts": task.texts_origin(),
        "data": task.data_origin(),
        "model_side": model_side_stamp(model_record),
    }


def describe(stamp: dict[str, str]) -> str:
    """One line: `texts original@9714019 · data ours · model side paper`."""
    return f"texts {stamp.get('texts', '?')} · data {stamp.get('data', '?')} · model side {stamp.get('model_side', '?')}"


def mixed(stamps: list[dict[str, str]]) -> list[str]:
    """The stamp fields that differ between runs or tasks compared in one report (empty: all agree)."""
    return [key for key in ("texts", "data", "model_side") if len({s.get(key) for s in stamps}) > 1]
