"""A study's row in `playbench report`: "Humans (this study)" beside the paper's own rows (its human rows
among them), in every published table of every preset that has a column for one of the study's tasks.

The study's episodes are pooled over its participants (the seat `human:<pseudonym>` read as one agent),
and the interval treats the instance as the unit, as for any run: an instance played by r people counts
once, with the mean of their r episodes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.preset import PaperPreset, get_preset, preset_names
from playbench.export.tables import drop_pseudonym

LABEL = "Humans (this study)"


def is_study(run: dict[str, Any]) -> bool:
    return (run.get("config") or {}).get("source") == "study"


def pooled(run: dict[str, Any]) -> dict[str, Any]:
    """The run with its summary recomputed over every participant's episodes together."""
    from playbench.report.summary import summarize

    records = [drop_pseudonym(r) for r in run.get("records", [])]
    options = (run.get("config") or {}).get("task_options_resolved")
    return {
        **run,
        "records": records,
        "summary": summarize(records, options if isinstance(options, dict) else None),
    }


def label(run: dict[str, Any], partnered: bool) -> str:
    """`Humans (this study)`, with the seats in a table of a task with a partner (as the papers'
    "Human / GPT4o")."""
    study = (run.get("config") or {}).get("study") or {}
    partner = study.get("partner")
    if not partner or not partnered:
        return LABEL
    seat = study.get("seat") or "first role"
    return f"{LABEL}: {seat} = human, other seat = {partner}"


def tables_for(preset: PaperPreset, tasks: set[str]) -> PaperPreset | None:
    """The preset with only the tables that have a column (or a measure's column) for one of `tasks`."""
    kept = [
        table
        for table in preset.tables
        if any((m.task_for(c) or "") in tasks for c in table.conditions for m in table.measures)
    ]
    return preset.model_copy(update={"tables": kept}) if kept else None


def study_comparisons(
    runs: list[dict[str, Any]], compare: Callable[[PaperPreset, list[dict[str, Any]]], list[Any]]
) -> list[Any]:
    """`compare(preset, [run])` (report.paper.comparisons) for every study run and every preset with a
    column for one of its tasks, the run's rows named `Humans (this study)`."""
    out: list[Any] = []
    studies = [run for run in runs if is_study(run)]
    if not studies:
        return out
    for run in studies:
        tasks = {str(r.get("task")) for r in run.get("records", [])}
        partnered = {str(r.get("task")) for r in run.get("records", []) if len(r.get("roles") or {}) > 1}
        whole = pooled(run)
        for name in preset_names():
            try:
                preset = tables_for(get_preset(name), tasks)
            except ConfigError:
                continue
            for table in preset.tables if preset is not None else []:
                columns = {m.task_for(c) for c in table.conditions for m in table.measures}
                name_row = label(run, bool(columns & partnered))
                for comparison in compare(preset.model_copy(update={"tables": [table]}), [whole]):
                    for row in comparison.rows:
                        if row.source == "run":
                            row.label = name_row
                    out.append(comparison)
    return out
