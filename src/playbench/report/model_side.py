"""The model side a run used, as the report header and the web run page show it: per task and seat,
every generation setting that was sent, with its source (paper / user / provider default / ...)."""

from __future__ import annotations

from typing import Any

from playbench.runner.protocol import describe_settings


def model_side_rows(run: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(task, seat, model, settings line) for every model-driven seat of the run's tasks."""
    record = (run.get("config") or {}).get("model_side") or {}
    rows = []
    for task_id, entry in sorted(record.items()):
        for role, seat in (entry.get("seats") or {}).items():
            line = describe_settings(seat.get("settings") or {})
            if entry.get("task_options"):
                line += "; task options " + ", ".join(f"{k}={v}" for k, v in entry["task_options"].items())
            rows.append((task_id, role, str(seat.get("model")), line))
    return rows


def to_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """The 'Model side' section of report.md (nothing when no run had a model-driven seat)."""
    rows = [(run["name"], *row) for run in runs for row in model_side_rows(run)]
    if not rows:
        return []
    lines = [
        "",
        "## Model side",
        "",
        "What each model-driven seat was sent: every setting and where it came from (`paper`: the task's "
        "declaration of what the original sent; `user`: the command line; `provider default`: nothing sent).",
        "",
        "| run | task | seat | model | settings |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(c.replace('|', chr(92) + '|') for c in row)} |" for row in rows]
    return lines
