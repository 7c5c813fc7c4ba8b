"""The leaderboard's tables, every number taken from the report's own functions.

Success, intervals and counts come from `report.tables.headline_rows` (report.md's headline table),
`report.compare.matrix` and `compare.paired` (its tasks × models table and paired comparisons),
`report.tables.metric_rows` (its "All metrics"), `report.paper.comparisons` (its "Beside the paper")
and `report.model_side.fidelity_rows` (its "Fidelity"): the site shows the same cells as report.md,
never a second computation of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playbench.report import compare
from playbench.report.model_side import fidelity_rows
from playbench.report.paper import Comparison, comparisons, format_cell, run_preset
from playbench.report.tables import HEADLINE, SCORED, _stat_cells, headline_rows, metric_rows
from playbench.runner.fidelity import mixed
from playbench.site.pages import Cell, link_cell, plain_table, sortable_table, text_cell
from playbench.web.render import esc


def suite_of(task_id: str) -> str:
    return str(task_id).split("/", 1)[0]


def model_label(agent: Any, model: Any) -> str:
    """'random', 'llm · openai:gpt-4o' (an agent whose name already holds its model: the name alone)."""
    return f"{agent} · {model}" if model and str(model) not in str(agent) else str(agent)


@dataclass
class SiteRun:
    """A run as the site shows it: `run` is `report.tables.load_run`'s dict; `page` its page's stem."""

    run: dict[str, Any]
    page: str
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.run["name"])

    def labels(self) -> list[str]:
        return sorted({model_label(e.get("agent"), e.get("model")) for e in self.entries})


@dataclass
class Links:
    """Relative hrefs from a page to the site's other pages."""

    suite: Callable[[str], str]
    model: Callable[[str], str]
    run: Callable[[SiteRun], str]


def _value(stat: Any) -> float | None:
    if not isinstance(stat, dict) or not stat.get("n"):
        return None
    value = stat.get("value")
    return None if not isinstance(value, int | float) or math.isnan(value) else float(value)


def headline(
    runs: list[SiteRun],
    links: Links,
    keep: Callable[[dict[str, Any]], bool] = lambda e: True,
    table_id: str = "headline",
) -> str:
    """report.md's headline table (the same cells), with links, sortable by every column."""
    rows = []
    for site_run in runs:
        texts = headline_rows([site_run.run])
        for text, entry in zip(texts, site_run.entries, strict=True):
            if not keep(entry):
                continue
            usage = entry.get("usage") or {}
            sort = {
                SCORED: entry.get("scored"),
                "success": _value(entry.get("success")),
                "steps": _value(entry.get("steps")),
                "optimal": _value(entry.get("optimal_steps")),
                "tokens": int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0),
                "cost": usage.get("cost") if text["cost"] != "–" else None,
            }
            label = model_label(entry.get("agent"), entry.get("model"))
            cells = []
            for col in HEADLINE:
                if col == "run":
                    cells.append(link_cell(text[col], links.run(site_run)))
                elif col == "task":
                    cells.append(link_cell(text[col], links.suite(suite_of(entry["task"]))))
                elif col == "agent" or (col == "model" and entry.get("model")):
                    cells.append(link_cell(text[col], links.model(label)))
                else:
                    cell = text_cell(text[col])
                    if col in sort:
                        cell.sort = sort[col]
                    cells.append(cell)
            rows.append(cells)
    return sortable_table(
        table_id,
        HEADLINE,
        rows,
        "Success with its Wilson 95% interval, means with bootstrap 95% intervals, over the scored episodes "
        "(errored ones are left out of every score), the instance as the unit; as in report.md.",
        "headline",
    )


def scorecard(
    runs: list[SiteRun],
    grid: dict[str, Any],
    links: Links,
    tasks: set[str] | None = None,
    table_id: str = "scorecard",
) -> str:
    """report.md's tasks × models table (`compare.matrix`): one row per task, one column per run."""
    keep = [i for i, r in enumerate(runs) if tasks is None or any(e["task"] in tasks for e in r.entries)]
    columns = ["suite", "task"] + [
        f"{runs[i].name} ({', '.join(runs[i].labels()) or 'no episodes'})" for i in keep
    ]
    rows = []
    for row in grid["rows"]:
        if tasks is not None and row["task"] not in tasks:
            continue
        suite = suite_of(row["task"])
        cells = [link_cell(suite, links.suite(suite)), link_cell(row["task"], links.suite(suite))]
        for i in keep:
            cell = row["cells"][i]
            if cell is None:
                cells.append(Cell("–", None, f"{runs[i].name} has no episode of {row['task']}"))
            else:
                cells.append(text_cell(cell["text"], cell["success"]))
        rows.append(cells)
    return sortable_table(
        table_id,
        columns,
        rows,
        "success [Wilson 95% interval] (scored / errored), one column per run (click a heading to sort)",
        "scorecard",
    )


def fidelity(runs: list[SiteRun], links: Links, tasks: set[str] | None = None) -> str:
    """Each run's and task's fidelity stamp (config.json `fidelity`), as report.md's "Fidelity"."""
    rows, stamps = [], []
    for site_run in runs:
        for task, stamp in fidelity_rows(site_run.run):
            if tasks is not None and task not in tasks:
                continue
            stamps.append(stamp)
            rows.append(
                [
                    link_cell(site_run.name, links.run(site_run)),
                    link_cell(task, links.suite(suite_of(task))),
                    text_cell(stamp.get("texts", "?")),
                    text_cell(stamp.get("data", "?")),
                    text_cell(stamp.get("model_side", "?")),
                ]
            )
    if not rows:
        return (
            '<p class="muted">The runs recorded no fidelity stamp (made before playbench recorded one).</p>'
        )
    differ = mixed(stamps)
    warning = (
        f'<p class="warnings">These results mix fidelity stamps ({esc(", ".join(differ))} differ): rows '
        "measured with different texts, data or model settings are not comparable to the last point.</p>"
        if differ
        else ""
    )
    return warning + sortable_table(
        "fidelity-" + ("all" if tasks is None else "suite"),
        ["run", "task", "texts", "data", "model side"],
        rows,
        "texts: original@commit (the authors' words from their clone) or ours; data: original, ours or "
        "generated; model side: paper (the original's settings) or user (what the command line changed)",
    )


def paper_tables(preset_name: str, preset: Any, runs: list[SiteRun]) -> str:
    """The paper's published tables with the rows of the runs made with `playbench reproduce` of this
    preset beside them, exactly as report.md's "Beside the paper" (`report.paper.comparisons`)."""
    group = [r.run for r in runs if run_preset(r.run) == preset_name]
    items: list[Comparison] = comparisons(preset, group)
    note = (
        f"{len(group)} run(s) here were made with <code>playbench reproduce {esc(preset_name)}</code>; their rows "
        "(in bold) carry 95% intervals."
        if group
        else f"No run here was made with <code>playbench reproduce {esc(preset_name)}</code> (the paper's settings), "
        "so the paper's rows stand alone; other runs of these tasks are in the tables above."
    )
    out = [f'<p class="muted">{esc(preset.paper)}. {note}</p>']
    for n, comp in enumerate(items):
        rows = []
        for row in comp.rows:
            label = f"<strong>{esc(row.label)}</strong>" if row.source == "run" else esc(row.label)
            cells = [Cell(label, row.label), text_cell(row.source)]
            cells += [text_cell(format_cell(c, comp.digits), c.value) for c in row.cells]
            rows.append(cells)
        out.append(
            f'<h3>{esc(comp.table)}: {esc(comp.measure)}</h3><p class="muted">{esc(comp.title)}</p>'
            + sortable_table(
                f"paper-{preset_name}-{n}", ["model", "source", *comp.columns], rows, css_class="paper"
            )
        )
    return "".join(out)


def paired_table(pairs: list[dict[str, Any]], tasks: set[str], table_id: str = "paired") -> str:
    """report.md's paired comparisons over shared scored instances (`compare.paired`)."""
    rows = []
    for p in pairs:
        if p["task"] not in tasks:
            continue
        if "difference" not in p:
            rows.append(
                [text_cell(p["task"]), text_cell(p["a"]), text_cell(p["b"]), text_cell("0", 0)]
                + [text_cell("–")] * 2
                + [text_cell(p.get("note"))]
                + [text_cell("–")] * 3
            )
            continue
        rows.append(
            [
                text_cell(p["task"]),
                text_cell(p["a"]),
                text_cell(p["b"]),
                text_cell(p["shared"], p["shared"]),
                text_cell(f"{100 * p['success_a']:.1f}%", p["success_a"]),
                text_cell(f"{100 * p['success_b']:.1f}%", p["success_b"]),
                text_cell(compare.comparison_text(p), p["difference"]),
                text_cell(p["a_better"], p["a_better"]),
                text_cell(p["b_better"], p["b_better"]),
                text_cell(compare.p_text(p["p_value"]), p["p_value"]),
            ]
        )
    if not rows:
        return '<p class="muted">No two runs played the same instances of these tasks.</p>'
    return sortable_table(
        table_id,
        ["task", "A", "B", "shared", "A", "B", "A − B", "A better", "B better", "p"],
        rows,
        "success of A minus B in percentage points over the instances both scored (each instance's trials "
        "averaged first), bootstrap 95% interval; exact two-sided sign test",
        "paired",
    )


def all_metrics(metric_table: list[dict[str, Any]], keep: Callable[[dict[str, Any]], bool]) -> str:
    """report.md's "All metrics": per run, task, agent and model, every metric with its interval."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in metric_table:
        if row["kind"] in ("proportion", "mean") and keep(row):
            groups.setdefault((row["run"], row["task"], row["agent"], row["model"]), []).append(row)
    out = []
    opened = " open" if len(groups) <= 4 else ""
    for (run, task, agent, model), rows in groups.items():
        title = f"{task} · {agent}" + (f" · {model}" if model else "") + f" ({run})"
        cells = []
        for row in rows:
            shown, ci = _stat_cells(row)
            cells.append([esc(row["metric"]), esc(row["n"]), esc(shown), esc(ci)])
        out.append(
            f'<details class="metric-group"{opened}><summary><h3>{esc(title)}</h3></summary>'
            f'<p class="muted">{esc(rows[0]["scored"])} scored / {esc(rows[0]["errored"])} errored episodes</p>'
            + plain_table(["metric", "n", "value", "95% interval"], cells, "metrics all-metrics")
            + "</details>"
        )
    return "".join(out) or '<p class="muted">No metrics.</p>'


def metric_table(runs: list[SiteRun]) -> list[dict[str, Any]]:
    return metric_rows([r.run for r in runs])
