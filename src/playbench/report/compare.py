"""Several runs side by side (a sweep's cells, or any runs given to `playbench report`): a tasks × runs
table of success, and paired comparisons of every two runs over the instances both scored.

A paired comparison looks only at instances that both runs scored (errored episodes are missing),
reduces each run's trials of an instance to its success rate, and reports the mean difference A − B
with a seeded percentile-bootstrap 95% interval over the shared instances (it stays within [−1, 1]),
how many instances each run did better on, and a two-sided exact sign test on those (with one trial
per instance this is McNemar's exact test).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

from scipy import stats

from playbench.core.metrics import N_BELOW_TWO, bootstrap_interval
from playbench.report.tables import _pct, scored_text


def run_label(run: dict[str, Any]) -> str:
    return str(run["name"])


def tasks_of(runs: list[dict[str, Any]]) -> list[str]:
    return sorted({str(entry["task"]) for run in runs for entry in run["summary"]["tasks"].values()})


def matrix(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """{"columns": run names, "rows": [{"task", "cells": [{"success", "scored", "errors", "text"} or None]}]}."""
    columns = [run_label(r) for r in runs]
    rows = []
    for task in tasks_of(runs):
        cells: list[dict[str, Any] | None] = []
        for run in runs:
            entries = [e for e in run["summary"]["tasks"].values() if e["task"] == task]
            if not entries:
                cells.append(None)
                continue
            entry = entries[0]
            success = entry["success"]
            cells.append(
                {
                    "success": success.get("value") if success.get("n") else None,
                    "ci95": success.get("ci95"),
                    "scored": entry.get("scored"),
                    "errors": entry.get("errors"),
                    "text": f"{_pct(success)} ({scored_text(entry)})",
                }
            )
        rows.append({"task": task, "cells": cells})
    return {"columns": columns, "rows": rows}


def _instance_rates(run: dict[str, Any], task: str) -> dict[str, float]:
    flags: dict[str, list[bool]] = {}
    for rec in run["records"]:
        if rec["task"] == task and not rec.get("error"):
            flags.setdefault(str(rec["instance_id"]), []).append(bool(rec.get("success")))
    return {k: sum(v) / len(v) for k, v in flags.items()}


def paired(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pair of runs on every task both played: success over their shared scored instances."""
    out = []
    for task in tasks_of(runs):
        rates = [(run_label(r), _instance_rates(r, task)) for r in runs]
        rates = [(name, r) for name, r in rates if r]
        for (a, ra), (b, rb) in combinations(rates, 2):
            shared = sorted(set(ra) & set(rb))
            row: dict[str, Any] = {"task": task, "a": a, "b": b, "shared": len(shared)}
            if not shared:
                out.append({**row, "note": "no shared scored instance"})
                continue
            stat = paired_difference(ra, rb, shared)
            row.update(success_a=stat["mean_a"], success_b=stat["mean_b"])
            row.update({k: v for k, v in stat.items() if k not in ("mean_a", "mean_b")})
            out.append(row)
    return out


def paired_difference(ra: dict[str, float], rb: dict[str, float], shared: list[str]) -> dict[str, Any]:
    """A − B over the `shared` units (each unit's value already averaged over its trials): the means,
    the mean difference with a seeded bootstrap 95% interval (None and a note below two units), the
    units where A's value is higher (`a_better`), lower (`b_better`) or equal, and the two-sided exact
    sign test on the units that differ."""
    diffs = [ra[i] - rb[i] for i in shared]
    better_a = sum(1 for d in diffs if d > 0)
    better_b = sum(1 for d in diffs if d < 0)
    out: dict[str, Any] = {
        "mean_a": sum(ra[i] for i in shared) / len(shared),
        "mean_b": sum(rb[i] for i in shared) / len(shared),
        "difference": sum(diffs) / len(diffs),
        "a_better": better_a,
        "b_better": better_b,
        "ties": len(diffs) - better_a - better_b,
    }
    out["ci95"] = list(bootstrap_interval(diffs)) if len(diffs) >= 2 else None
    if len(diffs) < 2:
        out["note"] = N_BELOW_TWO
    discordant = better_a + better_b
    out["p_value"] = float(stats.binomtest(better_a, discordant).pvalue) if discordant else 1.0
    return out


def _signed_pct(x: float) -> str:
    return f"{100 * x:+.1f}"


def comparison_text(row: dict[str, Any]) -> str:
    if "difference" not in row:
        return row.get("note", "–")
    ci = row.get("ci95")
    interval = f"[{_signed_pct(ci[0])}, {_signed_pct(ci[1])}]" if ci else f"({N_BELOW_TWO})"
    return f"{_signed_pct(row['difference'])} pts {interval}"


def to_markdown(runs: list[dict[str, Any]]) -> list[str]:
    if len(runs) < 2:
        return []
    grid = matrix(runs)
    head = ["task", *grid["columns"]]
    lines = [
        "",
        "## Tasks × models",
        "",
        "Success with its Wilson 95% interval and (scored / errored) episodes, one column per run "
        "(for a sweep, per cell: model, grid values and seed).",
        "",
        "| " + " | ".join(h.replace("|", "\\|") for h in head) + " |",
        "|" + "---|" * len(head),
    ]
    for row in grid["rows"]:
        cells = [c["text"] if c else "–" for c in row["cells"]]
        lines.append("| " + " | ".join([row["task"], *cells]) + " |")
    pairs = paired(runs)
    if pairs:
        lines += [
            "",
            "## Paired comparisons over shared instances",
            "",
            "Success of A minus B, in percentage points, over the instances both scored (each instance's "
            "trials averaged first), with a bootstrap 95% interval; instances each did better on; exact "
            "two-sided sign test (McNemar's with one trial per instance).",
            "",
            "| task | A | B | shared | A | B | A − B | A better | B better | p |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in pairs:
            if "difference" not in row:
                lines.append(
                    f"| {row['task']} | {row['a']} | {row['b']} | 0 | – | – | {row.get('note')} | – | – | – |"
                )
                continue
            lines.append(
                f"| {row['task']} | {row['a']} | {row['b']} | {row['shared']} | {100 * row['success_a']:.1f}% | "
                f"{100 * row['success_b']:.1f}% | {comparison_text(row)} | {row['a_better']} | {row['b_better']} | "
                f"{p_text(row['p_value'])} |"
            )
    return lines


def p_text(p: float | None) -> str:
    return "–" if p is None or math.isnan(p) else (f"{p:.3f}" if p >= 0.001 else "< 0.001")


CSV_FIELDS = (
    "task",
    "a",
    "b",
    "shared",
    "success_a",
    "success_b",
    "difference",
    "ci95_low",
    "ci95_high",
    "a_better",
    "b_better",
    "ties",
    "p_value",
    "note",
)


def csv_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in paired(runs):
        ci = row.get("ci95") or [None, None]
        out.append({f: row.get(f) for f in CSV_FIELDS} | {"ci95_low": ci[0], "ci95_high": ci[1]})
    return out
