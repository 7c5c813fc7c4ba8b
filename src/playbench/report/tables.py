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
from playbench.core.metrics import N_BELOW_TWO, interval
from playbench.core.records import finite_json
from playbench.runner.reader import RunReader

HEADLINE = [
    "run",
    "task",
    "agent",
    "model",
    "scored / errored",
    "success",
    "steps",
    "optimal",
    "tokens",
    "cost",
]
SCORED = "scored / errored"
TERMINAL_PAIRS = 20  # paired comparisons printed in the terminal; the report files hold them all


def load_run(path: str | Path) -> dict[str, Any]:
    """Summarise a run directory from its episodes.jsonl (so a half-finished run reports too)."""
    reader = RunReader(path)
    if not reader.is_run:
        raise ConfigError(f"'{path}' is not a run directory (no episodes.jsonl in it)")
    return reader.load()


def _pct(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("n", 0) == 0:
        return "–"
    ci = interval(stat)
    if ci is None:
        return f"{100 * stat['value']:.1f}% ({N_BELOW_TWO})"
    return f"{100 * stat['value']:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _num(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("n", 0) == 0 or math.isnan(stat["value"]):
        return "–"
    if stat.get("kind") == "proportion":
        return _pct(stat)
    ci = interval(stat)
    if ci is None:
        return f"{stat['value']:.2f} ({N_BELOW_TWO})"
    lo, hi = ci
    if lo == hi:  # every instance had the same value: nothing to draw an interval from
        return f"{stat['value']:.2f} (all {stat['n']} equal)"
    return f"{stat['value']:.2f} [{lo:.2f}, {hi:.2f}]"


def scored_text(entry: dict[str, Any]) -> str:
    """'8 / 2': episodes scored and episodes that ended with an error (left out of every score)."""
    episodes = int(entry.get("episodes") or 0)
    errors = int(entry.get("errors") or 0)
    return f"{entry.get('scored', episodes - errors)} / {errors}"


def usage_text(usage: dict[str, Any] | None) -> tuple[str, str]:
    """(tokens, cost) of a usage dict as table cells."""
    usage = usage or {}
    tokens = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
    cost = usage.get("cost")
    return (str(tokens) if tokens else "–", "–" if cost is None or not tokens else f"${cost:.4f}")


def headline_rows(runs: list[dict[str, Any]]) -> list[dict[str, str]]:
    rows = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            tokens, cost = usage_text(entry.get("usage"))
            rows.append(
                {
                    "run": run["name"],
                    "task": entry["task"],
                    "agent": entry["agent"],
                    "model": entry.get("model") or "–",
                    SCORED: scored_text(entry),
                    "success": _pct(entry["success"]),
                    "steps": _num(entry["steps"]),
                    "optimal": _num(entry.get("optimal_steps")),
                    "tokens": tokens,
                    "cost": cost,
                }
            )
    return rows


CSV_FIELDS = [
    "run",
    "task",
    "agent",
    "model",
    "metric",
    "kind",
    "n",
    "value",
    "ci95_low",
    "ci95_high",
    "note",
    "scored",
    "errored",
    "seat",
    "purpose",
    "call_model",
]
USAGE_METRICS = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "calls",
    "cached_calls",
    "retries",
    "cost",
)


def metric_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Long format: one row per run, task, agent, model and metric (the report.csv rows).

    Scores (`kind` proportion or mean, over the scored episodes) come first, then counts (`episodes`,
    `errors`, `termination.<word>`), then usage totals (`kind` total): for the whole group, and per
    seat (`seat`: the role), `purpose` (`act`, `caption`, ...) and `call_model` (the model called).
    """
    rows = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            base = {
                "run": run["name"],
                "task": entry["task"],
                "agent": entry["agent"],
                "model": entry.get("model") or "",
                "scored": entry.get("scored", entry.get("episodes", 0) - entry.get("errors", 0)),
                "errored": entry.get("errors", 0),
                "seat": "",
                "purpose": "",
                "call_model": "",
            }
            stats = {"success": entry["success"], "steps": entry["steps"]}
            if "turns" in entry:
                stats["turns"] = entry["turns"]
            stats.update(entry["metrics"])
            if "optimal_steps" in entry:
                stats.setdefault("optimal_steps", entry["optimal_steps"])
            for name, stat in stats.items():
                ci = interval(stat)
                rows.append(
                    {
                        **base,
                        "metric": name,
                        "kind": stat.get("kind"),
                        "n": stat.get("n"),
                        "value": stat.get("value"),
                        "ci95_low": None if ci is None else ci[0],
                        "ci95_high": None if ci is None else ci[1],
                        "note": stat.get("note") or "",
                    }
                )

            counts = [("episodes", entry.get("episodes", 0)), ("errors", entry.get("errors", 0))]
            counts += [(f"termination.{word}", k) for word, k in (entry.get("termination") or {}).items()]
            for name, value in counts:
                rows.append(
                    {**base, "metric": name, "kind": "count", "n": entry.get("episodes"), "value": value}
                )
            usage_sets = [({}, entry.get("usage") or {})]
            usage_sets += [
                (
                    {
                        "seat": u.get("role", ""),
                        "purpose": u.get("purpose", ""),
                        "call_model": u.get("model", ""),
                    },
                    u,
                )
                for u in entry.get("usage_breakdown") or []
            ]
            for where, usage in usage_sets:
                for name in USAGE_METRICS:
                    if name in usage or name != "reasoning_tokens":
                        rows.append(
                            {**base, **where, "metric": name, "kind": "total", "value": usage.get(name, 0)}
                        )
    return [{field: row.get(field) for field in CSV_FIELDS} for row in rows]


# Columns a narrow terminal gives up first (report.md keeps the full table): a single run's name says
# nothing the folder does not, then cost, tokens, the optimal steps, the model (the agent names it)
DROP_ORDER = ("run", "cost", "tokens", "optimal", "model", "scored / errored")


def _columns_that_fit(rows: list[dict[str, str]], width: int) -> list[str]:
    """The headline columns whose widest cells fit `width` on one line each (borders counted)."""
    columns = list(HEADLINE)
    several_runs = len({r["run"] for r in rows}) > 1  # then the run names the row: kept
    drop = [c for c in DROP_ORDER if not (several_runs and c == "run")]

    def needed(cols: list[str]) -> int:
        widest = [max([len(c), *(len(r[c]) for r in rows)]) for c in cols]
        return sum(widest) + 3 * len(cols) + 1

    while needed(columns) > width and drop:
        columns.remove(drop.pop(0))
    return columns


def print_table(runs: list[dict[str, Any]], console: Console | None = None) -> None:
    if console is None:
        console = Console()
        if not console.is_terminal:  # logs and pipes: keep rows whole rather than folded at 80 columns
            console = Console(width=200)
    rows = headline_rows(runs)
    columns = _columns_that_fit(rows, console.width)
    title = "playbench results (95% intervals; errored episodes are left out of every score)"
    if columns != HEADLINE:
        title += f"; {', '.join(c for c in HEADLINE if c not in columns)} in report.md"
    table = Table(title=title)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    console.print(table)
    if len(runs) > 1:
        print_matrix(runs, console)


def print_matrix(runs: list[dict[str, Any]], console: Console) -> None:
    """The tasks x runs table (success, scored / errored) and the paired comparisons in the terminal."""
    from playbench.report import compare

    grid = compare.matrix(runs)
    table = Table(title="tasks × models: success [95% interval] (scored / errored)")
    table.add_column("task", overflow="fold")
    for name in grid["columns"]:
        table.add_column(name, overflow="fold")
    for row in grid["rows"]:
        table.add_row(row["task"], *(c["text"] if c else "–" for c in row["cells"]))
    console.print(table)
    pairs = [p for p in compare.paired(runs) if "difference" in p]
    shown = pairs[:TERMINAL_PAIRS]
    if pairs:
        table = Table(title="paired over shared scored instances: success A − B (percentage points)")
        for col in ("task", "A", "B", "shared", "A − B [95%]", "A better", "B better", "p"):
            table.add_column(col, overflow="fold")
        for p in shown:
            table.add_row(
                p["task"],
                p["a"],
                p["b"],
                str(p["shared"]),
                compare.comparison_text(p),
                str(p["a_better"]),
                str(p["b_better"]),
                compare.p_text(p["p_value"]),
            )
        console.print(table)
        if len(pairs) > len(shown):
            console.print(
                f"{len(pairs) - len(shown)} more pairs in report.md and comparisons.csv", highlight=False
            )


def _stat_cells(row: dict[str, Any]) -> tuple[str, str]:
    value = row["value"]
    shown = "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4g}"
    lo, hi = row["ci95_low"], row["ci95_high"]
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return shown, row.get("note") or "–"
    return shown, f"[{lo:.4g}, {hi:.4g}]"


INTERVALS_NOTE = (
    "Errored episodes are missing, not failed: every score is over the scored episodes, and "
    "`scored / errored` says how many each is over. Success and other yes/no metrics carry Wilson 95% "
    "intervals, other means percentile-bootstrap 95% intervals (seeded), both with the instance as the "
    "unit; neither leaves its metric's range. A mean over fewer than two instances has no interval "
    f"(`{N_BELOW_TWO}`)."
)


def to_markdown(runs: list[dict[str, Any]]) -> str:
    lines = ["# playbench report", "", INTERVALS_NOTE, ""]
    lines.append("| " + " | ".join(HEADLINE) + " |")
    lines.append("|" + "---|" * len(HEADLINE))
    for row in headline_rows(runs):
        lines.append("| " + " | ".join(row[c].replace("|", "\\|") for c in HEADLINE) + " |")
    lines += errors_markdown(runs)
    from playbench.report import model_side

    lines += model_side.fidelity_markdown(runs)
    lines += model_side.to_markdown(runs)
    from playbench.report import compare

    lines += compare.to_markdown(runs)
    lines += ["", "## All metrics", ""]
    current = None
    for row in metric_rows(runs):
        if row["kind"] not in ("proportion", "mean"):
            continue
        group = (row["run"], row["task"], row["agent"], row["model"])
        if group != current:
            current = group
            title = f"{row['task']} · {row['agent']}" + (f" · {row['model']}" if row["model"] else "")
            lines += [
                "",
                f"### {title} ({row['run']})",
                "",
                f"{row['scored']} scored / {row['errored']} errored episodes",
                "",
                "| metric | n | value | 95% interval |",
                "|---|---|---|---|",
            ]
        shown, ci = _stat_cells(row)
        lines.append(f"| {row['metric']} | {row['n']} | {shown} | {ci} |")
    lines += usage_markdown(runs)
    from playbench.report import error_summary

    lines += error_summary.to_markdown(runs)
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


def _group_title(run: dict[str, Any], entry: dict[str, Any]) -> str:
    model = f" · {entry['model']}" if entry.get("model") else ""
    return f"{entry['task']} · {entry['agent']}{model} ({run['name']})"


def errors_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """The errored episodes per group: how many, and their most common messages."""
    out: list[str] = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            if not entry.get("errors"):
                continue
            out += [
                "",
                f"- **{_cell(_group_title(run, entry))}**: {entry['errors']} of {entry['episodes']} errored",
            ]
            for message, k in (entry.get("error_messages") or {}).items():
                quoted = message.replace("`", "'")
                out.append(f"  - {k}× `{quoted}`")
    return ["", "## Errors (left out of every score)", *out] if out else []


def usage_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """Usage per seat, purpose and model, and how the episodes ended, per group."""
    usage_lines: list[str] = []
    end_lines: list[str] = []
    for run in runs:
        for entry in run["summary"]["tasks"].values():
            title = _cell(_group_title(run, entry))
            for u in entry.get("usage_breakdown") or []:
                tokens, cost = usage_text(u)
                usage_lines.append(
                    f"| {title} | {_cell(u.get('role'))} | {_cell(u.get('purpose'))} | {_cell(u.get('model'))} | "
                    f"{u.get('calls', 0)} | {u.get('input_tokens', 0)} | {u.get('output_tokens', 0)} | "
                    f"{u.get('reasoning_tokens', '–')} | {u.get('retries', 0)} | {cost} |"
                )
            ends = ", ".join(f"{word} {k}" for word, k in (entry.get("termination") or {}).items())
            end_lines.append(f"| {title} | {_cell(ends or '–')} |")
    out: list[str] = []
    if usage_lines:
        out += [
            "",
            "## Usage per seat and model",
            "",
            "| group | seat | purpose | model | calls | input tokens | output tokens | reasoning tokens | retries | cost |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *usage_lines,
        ]
    if end_lines:
        out += [
            "",
            "## How the episodes ended (termination)",
            "",
            "| group | episodes |",
            "|---|---|",
            *end_lines,
        ]
    return out


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
        finite_json([{"run": r["path"], "summary": r["summary"]} for r in runs], indent=2, default=str) + "\n"
    )
    from playbench.report.paper import comparisons_for

    beside = [c.to_dict() for c in comparisons_for(runs)]
    if beside:  # the paper's published rows beside the run's, as in report.md
        paths.append(out / "paper.json")
        paths[-1].write_text(finite_json(beside, indent=2) + "\n")
    from playbench.report import error_summary

    error_maps = error_summary.to_data(runs)
    if error_maps is not None:  # every episode's replayed progress, the aggregates and modality gaps
        paths.append(out / "error_maps.json")
        paths[-1].write_text(finite_json(error_maps, indent=2, default=str) + "\n")
    if len(runs) > 1:  # the tasks x runs table and the paired comparisons, as in report.md
        from playbench.report import compare

        paths.append(out / "comparisons.json")
        data = {"matrix": compare.matrix(runs), "paired": compare.paired(runs)}
        paths[-1].write_text(finite_json(data, indent=2, default=str) + "\n")
        # always written for two or more runs: runs of different tasks share no instance, so the file then
        # holds the header alone (report.md says why there is no paired comparison)
        rows = compare.csv_rows(runs)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(compare.CSV_FIELDS))
        writer.writeheader()
        writer.writerows(rows)
        paths.append(out / "comparisons.csv")
        paths[-1].write_text(buf.getvalue())
    return paths
