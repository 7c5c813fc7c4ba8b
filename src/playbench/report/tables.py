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
from playbench.runner.run import summarize
from playbench.runner.store import RunStore

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
    out = Path(path)
    if not (out / "episodes.jsonl").exists():
        raise ConfigError(f"'{path}' is not a run directory (no episodes.jsonl in it)")
    store = RunStore(out)
    config = store.read_json("config.json") or {}
    records = store.records()
    summary = summarize(records, config.get("task_options_resolved"))
    return {"path": str(out), "name": out.name, "config": config, "summary": summary, "records": records}


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
    return "\n".join(lines) + "\n"


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
    return paths
