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


def fidelity_rows(run: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """(task, stamp) for each task of a run: texts, data and model side (`runner/fidelity.py`)."""
    record = (run.get("config") or {}).get("fidelity") or {}
    return sorted(record.items())


def fidelity_lines(runs: list[dict[str, Any]]) -> list[str]:
    """One line per task and run, and a last line when the runs or tasks compared mix stamps."""
    from playbench.runner.fidelity import describe, mixed

    rows = [(run["name"], task, stamp) for run in runs for task, stamp in fidelity_rows(run)]
    lines = [f"{name} · {task}: {describe(stamp)}" for name, task, stamp in rows]
    differ = mixed([stamp for _, _, stamp in rows])
    if differ:
        lines.append(
            f"these results mix fidelity stamps ({', '.join(differ)} differ): they were not measured the same way"
        )
    return lines


def fidelity_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """The 'Fidelity' section of report.md: what each task's texts, data and model side were."""
    from playbench.runner.fidelity import mixed

    rows = [(run["name"], task, stamp) for run in runs for task, stamp in fidelity_rows(run)]
    if not rows:
        return []
    lines = [
        "",
        "## Fidelity",
        "",
        "What each task ran with: texts (`original@<commit>`: the authors' exact words read from their clone; "
        "`ours`: playbench's paraphrases), data (`original@<commit>`, `ours`, `generated`) and the model side "
        "(`paper`: the original's settings; `user`: settings the command line changed).",
        "",
        "| run | task | texts | data | model side |",
        "|---|---|---|---|---|",
    ]
    for name, task, stamp in rows:
        cells = [name, task, stamp.get("texts", "?"), stamp.get("data", "?"), stamp.get("model_side", "?")]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    differ = mixed([stamp for _, _, stamp in rows])
    if differ:
        lines += [
            "",
            f"**These results mix fidelity stamps** ({', '.join(differ)} differ): rows measured with different "
            "texts, data or model settings are not comparable to the last point.",
        ]
    return lines
