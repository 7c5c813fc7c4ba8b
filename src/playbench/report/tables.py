"""Tables from run directories: the terminal, Markdown and CSV."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from playbench.core.errors import ConfigError
from playbench.runner.reader import RunReader

HEADLINE = [
    "run",
    "task",
    "agent",
    "model",
    "episodes",
    "success",
    "steps",
    "optimal",
    "errors",
    "tokens",
    "cost",
]


def load_run(path: str | Path) -> dict[str, Any]:
    """Summarise a run directory from its episodes.jsonl (so a half-finished run reports too)."""
    reader = RunReader(path)
    if not reader.is_run:
        raise ConfigError(f"'{path}' is not a run directory (no episodes.jsonl in it)")
    return reader.load()


def _pct(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("n", 0) == 0:
        return "–"
    lo, hi = stat["ci95"]
    return f"{100 * stat['value']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _num(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("n", 0) == 0 or math.isnan(stat["value"]):
        return "–"
    lo, hi = stat["ci95"]
    if stat.get("kind") == "proportion":
        return _pct(stat)
    if lo == hi:
        return f"{stat['value']:.2f}"
    return f"{stat['value']:.2f} [{lo:.2f}, {hi:.2f}]"


def headline_rows(runs: list[dict[str, Any]]) -> list[dict[str, str]]:
    rows = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            usage = entry.get("usage", {})
            tokens = usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
            cost = usage.get("cost")
            rows.append(
                {
                    "run": run["name"],
                    "task": entry["task"],
                    "agent": entry["agent"],
                    "model": entry.get("model") or "–",
                    "episodes": str(entry["episodes"]),
                    "success": _pct(entry["success"]),
                    "steps": _num(entry["steps"]),
                    "optimal": _num(entry.get("optimal_steps")),
                    "errors": str(entry["errors"]),
                    "tokens": str(tokens) if tokens else "–",
                    "cost": "–" if cost is None or not tokens else f"${cost:.4f}",
                }
            )
    return rows


def metric_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Long format: one row per run, task, agent, model and metric."""
    rows = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            stats = {"success": entry["success"], "steps": entry["steps"], **entry["metrics"]}
            if "optimal_steps" in entry:
                stats.setdefault("optimal_steps", entry["optimal_steps"])
            for name, stat in stats.items():
                rows.append(
                    {
                        "run": run["name"],
                        "task": entry["task"],
                        "agent": entry["agent"],
                        "model": entry.get("model") or "",
                        "metric": name,
                        "kind": stat.get("kind"),
                        "n": stat.get("n"),
                        "value": stat.get("value"),
                        "ci95_low": stat["ci95"][0],
                        "ci95_high": stat["ci95"][1],
                    }
                )
    return rows


def print_table(runs: list[dict[str, Any]], console: Console | None = None) -> None:
    if console is None:
        console = Console()
        if not console.is_terminal:  # logs and pipes: keep rows whole rather than folded at 80 columns
            console = Console(width=200)
    table = Table(title="playbench results (95% intervals)")
    for col in HEADLINE:
        table.add_column(col, overflow="fold")
    for row in headline_rows(runs):
        table.add_row(*(row[c] for c in HEADLINE))
    console.print(table)


def to_markdown(runs: list[dict[str, Any]]) -> str:
    lines = [
        "# playbench report",
        "",
        "Success is a proportion with a Wilson 95% interval; means carry t intervals.",
        "",
    ]
    lines.append("| " + " | ".join(HEADLINE) + " |")
    lines.append("|" + "---|" * len(HEADLINE))
    for row in headline_rows(runs):
        lines.append("| " + " | ".join(row[c].replace("|", "\\|") for c in HEADLINE) + " |")
    lines += ["", "## All metrics", ""]
    current = None
    for row in metric_rows(runs):
        group = (row["run"], row["task"], row["agent"], row["model"])
        if group != current:
            current = group
            title = f"{row['task']} · {row['agent']}" + (f" · {row['model']}" if row["model"] else "")
            lines += [
                "",
                f"### {title} ({row['run']})",
                "",
                "| metric | n | value | 95% interval |",
                "|---|---|---|---|",
            ]
        value = row["value"]
        shown = "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4g}"
        lo, hi = row["ci95_low"], row["ci95_high"]
        interval = (
            "–" if lo is None or (isinstance(lo, float) and math.isnan(lo)) else f"[{lo:.4g}, {hi:.4g}]"
        )
        lines.append(f"| {row['metric']} | {row['n']} | {shown} | {interval} |")
    from playbench.report.paper import comparisons_for
    from playbench.report.paper import to_markdown as paper_markdown

    lines += paper_markdown(comparisons_for(runs))
    summaries = [
        (run["name"], entry)
        for run in runs
        for entry in run["summary"]["tasks"].values()
        if entry.get("extra")
    ]
    if summaries:
        lines += ["", "## Task summaries", ""]
    for run_name, entry in summaries:
        title = f"{entry['task']} · {entry['agent']}" + (f" · {entry['model']}" if entry.get("model") else "")
        lines += ["", f"### {title} ({run_name})"]
        for key, value in entry["extra"].items():
            lines += ["", f"**{_cell(key)}**", "", *extra_markdown(value)]
    return "\n".join(lines) + "\n"


EXTRA_JSON_CHARS = 2000  # a summary too irregular for a table is shown as JSON, cut at this length


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.4g}"
    if value is None:
        return "–"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text.replace("|", "\\|").replace("\n", " ")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _grid(row_names: list[str], rows: list[dict[str, Any]], corner: str) -> list[str]:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = ["| " + " | ".join([corner, *map(_cell, columns)]) + " |", "|" + "---|" * (len(columns) + 1)]
    for name, row in zip(row_names, rows, strict=True):
        out.append("| " + " | ".join([_cell(name), *(_cell(row.get(c)) for c in columns)]) + " |")
    return out


def extra_markdown(value: Any) -> list[str]:
    """A suite's own summary value (summary.json's task `extra`) as Markdown: scalars and lists of them
    inline, a mapping of scalars or of rows, equal-length columns and lists of rows as tables, anything
    else as JSON."""
    if _scalar(value):
        return [_cell(value)]
    if isinstance(value, list) and all(_scalar(v) for v in value):
        return [", ".join(_cell(v) for v in value) or "(empty)"]
    if isinstance(value, dict) and value and all(_scalar(v) for v in value.values()):
        return _grid(["value"], [value], "")
    rows_by_name = isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values())
    if rows_by_name and all(_scalar(x) for v in value.values() for x in v.values()):
        return _grid([str(k) for k in value], list(value.values()), "")
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        lengths = {len(v) for v in value.values()}
        if len(lengths) == 1 and all(_scalar(x) for v in value.values() for x in v):
            (length,) = lengths
            rows = [{k: v[i] for k, v in value.items()} for i in range(length)]
            return _grid([str(i + 1) for i in range(length)], rows, "#")
    row_list = isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    if row_list and all(_scalar(x) for v in value for x in v.values()):
        return _grid([str(i + 1) for i in range(len(value))], value, "#")
    text = json.dumps(value, default=str)
    if len(text) > EXTRA_JSON_CHARS:
        text = text[:EXTRA_JSON_CHARS] + " …"
    return ["```json", text, "```"]


def to_csv(runs: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    rows = metric_rows(runs)
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["run"])
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def write_report(runs: list[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.md", out / "report.csv", out / "report.json"]
    paths[0].write_text(to_markdown(runs))
    paths[1].write_text(to_csv(runs))
    paths[2].write_text(
        json.dumps([{"run": r["path"], "summary": r["summary"]} for r in runs], indent=2, default=str) + "\n"
    )
    from playbench.report.paper import comparisons_for

    beside = [c.to_dict() for c in comparisons_for(runs)]
    if beside:  # the paper's published rows beside the run's, as in report.md
        paths.append(out / "paper.json")
        paths[-1].write_text(json.dumps(beside, indent=2) + "\n")
    return paths
