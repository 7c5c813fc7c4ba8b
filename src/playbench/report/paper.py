"""The paper's published rows beside a run's rows: one table per published table and measure, laid
out as the paper prints it (models down, conditions such as modalities across), in its units."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.preset import Measure, PaperPreset, PublishedTable, get_preset


@dataclass
class Cell:
    value: float | None
    ci95: tuple[float, float] | None = None
    n: int | None = None


@dataclass
class ComparisonRow:
    label: str
    source: str  # "paper" or "run"
    cells: list[Cell]


@dataclass
class Comparison:
    suite: str
    paper: str
    table: str  # "Table 2"
    title: str
    measure: str  # with its unit, e.g. "Completed episodes (%)"
    columns: list[str]
    digits: int = 2
    rows: list[ComparisonRow] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "paper": self.paper,
            "table": self.table,
            "title": self.title,
            "measure": self.measure,
            "columns": self.columns,
            "rows": [
                {
                    "label": r.label,
                    "source": r.source,
                    "values": [c.value for c in r.cells],
                    "ci95": [list(c.ci95) if c.ci95 else None for c in r.cells],
                    "n": [c.n for c in r.cells],
                }
                for r in self.rows
            ],
        }


def run_preset(run: dict[str, Any]) -> str | None:
    preset = (run.get("config") or {}).get("run", {}).get("preset")
    return preset if isinstance(preset, str) else None


def _entry(run: dict[str, Any], task_id: str) -> dict[str, Any] | None:
    for entry in run["summary"]["tasks"].values():
        if entry.get("task") == task_id:
            return entry
    return None


def _stat(entry: dict[str, Any], metric: str) -> dict[str, Any] | None:
    if metric in ("success", "steps"):
        return entry.get(metric)
    _, _, name = metric.partition("metrics.")
    return (entry.get("metrics") or {}).get(name)


def _run_cell(run: dict[str, Any], task_id: str, measure: Measure) -> Cell:
    entry = _entry(run, task_id)
    stat = _stat(entry, measure.metric) if entry else None
    if not stat or stat.get("n", 0) == 0 or stat.get("value") is None or math.isnan(stat["value"]):
        return Cell(None)
    lo, hi = stat.get("ci95") or (math.nan, math.nan)
    ci = None if lo is None or math.isnan(lo) else (lo * measure.scale, hi * measure.scale)
    return Cell(stat["value"] * measure.scale, ci, stat.get("n"))


def _fill_average(table: PublishedTable, cells: list[Cell]) -> list[Cell]:
    """A column without a task is the mean of the row's other columns that have a value."""
    values = [
        c.value for c, cond in zip(cells, table.conditions, strict=True) if cond.task and c.value is not None
    ]
    mean = sum(values) / len(values) if values else None
    return [Cell(mean) if cond.task is None else c for c, cond in zip(cells, table.conditions, strict=True)]


def _run_label(run: dict[str, Any]) -> str:
    agents = sorted({str(r.get("agent")) for r in run.get("records", [])})
    return f"{', '.join(agents) or run['name']} (this run: {run['name']})"


def comparisons(preset: PaperPreset, runs: list[dict[str, Any]]) -> list[Comparison]:
    out: list[Comparison] = []
    for table in preset.tables:
        columns = [c.name for c in table.conditions]
        for measure in table.measures:
            unit = f" ({measure.unit})" if measure.unit else ""
            comp = Comparison(
                preset.suite,
                preset.paper,
                table.id,
                table.title,
                measure.name + unit,
                columns,
                measure.digits,
            )
            for row in table.rows:
                values = row.values.get(measure.name)
                if values is None:
                    continue
                comp.rows.append(ComparisonRow(row.model, "paper", [Cell(values.get(c)) for c in columns]))
            for run in runs:
                cells = [
                    _run_cell(run, task, measure) if (task := measure.task_for(cond)) else Cell(None)
                    for cond in table.conditions
                ]
                comp.rows.append(ComparisonRow(_run_label(run), "run", _fill_average(table, cells)))
            out.append(comp)
    return out


def comparisons_for(runs: list[dict[str, Any]]) -> list[Comparison]:
    """The comparisons of every preset the runs were made with (`playbench reproduce` records it)."""
    by_preset: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        name = run_preset(run)
        if name:
            by_preset.setdefault(name, []).append(run)
    out: list[Comparison] = []
    for name, group in by_preset.items():
        try:
            preset = get_preset(name)
        except ConfigError:
            continue  # a run made with a preset this installation does not have
        out += comparisons(preset, group)
    from playbench.study.results import study_comparisons

    return out + study_comparisons(runs, comparisons)  # a human study's row beside the paper's


def format_cell(cell: Cell, digits: int = 2, with_ci: bool = True) -> str:
    if cell.value is None:
        return "–"
    text = f"{cell.value:.{digits}f}"
    if with_ci and cell.ci95 is not None and cell.ci95[0] != cell.ci95[1]:
        text += f" [{cell.ci95[0]:.{digits}f}, {cell.ci95[1]:.{digits}f}]"
    return text


def to_markdown(items: list[Comparison]) -> list[str]:
    if not items:
        return []
    lines = [
        "",
        "## Beside the paper",
        "",
        "The paper's published numbers (as printed) and this run's, same metric and unit; this run's "
        "cells carry their 95% interval.",
    ]
    for comp in items:
        lines += ["", f"### {comp.table}: {comp.measure}", "", f"_{comp.paper}. {comp.title}_", ""]
        lines.append("| model | " + " | ".join(comp.columns) + " |")
        lines.append("|---|" + "---|" * len(comp.columns))
        for row in comp.rows:
            label = f"**{row.label}**" if row.source == "run" else row.label
            lines.append(f"| {label} | " + " | ".join(format_cell(c, comp.digits) for c in row.cells) + " |")
    return lines
