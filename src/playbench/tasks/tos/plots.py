"""Theory of Space report figures.

| file                              | content |
|-----------------------------------|---------|
| `tos_accuracy_by_family.png`      | accuracy (share of fully correct answers, Wilson 95%) per question family, cognitive map and false belief, one bar per agent × modality × exploration mode |
| `tos_cost_vs_coverage.png`        | exploration cost against coverage: every active episode as a dot, the mean per agent × modality with 95% t intervals on both axes |

Called by `playbench.report.plots.write_plots`; each figure is drawn only when its data exists
and is guarded on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playbench.report.plots import (
    agent_label,
    grouped_bars,
    guarded,
    mean_ci,
    new_figure,
    number,
    order_labels,
    palette,
    plot_style,
    proportion_ci,
    save_png,
)
from playbench.tasks.tos.questions import FAMILIES

# x-axis order: the nine families in the paper's order, then the map and false belief
TASK_ORDER: tuple[str, ...] = (*FAMILIES, "cogmap", "false-belief")


def _option(run: dict[str, Any], task_id: str, key: str, default: str) -> str:
    resolved = ((run.get("config") or {}).get("task_options_resolved") or {}).get(task_id) or {}
    value = resolved.get(key)
    return value if isinstance(value, str) else default


def collect(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per scored episode: task name, series label, the record."""
    rows = []
    for run in runs:
        for rec in run.get("records", []):
            task = str(rec.get("task", ""))
            if not task.startswith("tos/") or rec.get("error"):
                continue
            name = task.split("/", 1)[1]
            modality = _option(run, task, "modality", "text")
            mode = _option(run, task, "exploration", "active")
            series = f"{agent_label(rec)} · {modality}" + (" · passive" if mode == "passive" else "")
            rows.append({"task": name, "series": series, "record": rec, "passive": mode == "passive"})
    return rows


def plot_accuracy(rows: Sequence[dict[str, Any]], out_dir: Path) -> list[Path]:
    scored = [r for r in rows if r["task"] in TASK_ORDER]
    if not scored:
        return []
    flags: dict[tuple[str, str], list[bool]] = {}
    for r in scored:
        flags.setdefault((r["task"], r["series"]), []).append(bool(r["record"].get("success")))
    tasks = [t for t in TASK_ORDER if any(k[0] == t for k in flags)]
    series = order_labels({k[1] for k in flags})
    stats = {k: tuple(100 * v for v in proportion_ci(f)) for k, f in flags.items()}
    fig = new_figure(min(18.0, max(8.0, 1.6 + len(tasks) * (0.45 + 0.3 * len(series)))), 4.8)
    ax = fig.add_subplot()
    grouped_bars(ax, tasks, series, stats, palette(series), value_format="{:.0f}")  # type: ignore[arg-type]
    ax.set_ylim(0, 112)
    ax.set_ylabel("accuracy (% fully correct)")
    n = sum(len(v) for v in flags.values())
    fig.suptitle(
        f"Theory of Space: accuracy per question family and modality\n({n} episodes, 95% Wilson intervals)"
    )
    fig.legend(*ax.get_legend_handles_labels(), title="agent · modality", loc="outside right upper")
    return [save_png(fig, out_dir / "tos_accuracy_by_family.png")]


def plot_cost_coverage(rows: Sequence[dict[str, Any]], out_dir: Path) -> list[Path]:
    points: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        # the false-belief cost adds a second exploration, which the coverage does not measure
        if r["passive"] or r["task"] == "false-belief":
            continue
        m = r["record"].get("metrics") or {}
        cost, coverage = number(m.get("cost")), number(m.get("coverage"))
        if cost is not None and coverage is not None:
            points.setdefault(r["series"], []).append((cost, 100 * coverage))
    if not points:
        return []
    series = order_labels(points)
    colors = palette(series)
    fig = new_figure(9.5, 4.8)
    ax = fig.add_subplot()
    for name in series:
        xs, ys = zip(*points[name], strict=True)
        ax.scatter(xs, ys, s=12, alpha=0.25, color=colors[name], linewidths=0)
        mx, xlo, xhi = mean_ci(list(xs))
        my, ylo, yhi = mean_ci(list(ys))
        ax.errorbar(
            [mx], [my], xerr=[[mx - xlo], [xhi - mx]], yerr=[[my - ylo], [yhi - my]],
            fmt="s" if "· vision" in name else "o", ms=9 if "· vision" in name else 6, mfc="none" if "· vision" in name else None,
            mew=1.8, color=colors[name], capsize=3, label=f"{name} (n={len(xs)})",
        )  # fmt: skip
    ax.set_xlabel("exploration cost (Observe 1, Query 2, invalid 0.5)")
    ax.set_ylabel("coverage (% of objects observed)")
    ax.set_ylim(-3, 105)
    ax.grid(True, axis="both", alpha=0.3)
    # the title sits over the axes (not the figure) so the legend outside on the right cannot cover it
    ax.set_title(
        "Theory of Space: exploration cost vs coverage\n(dots: episodes; markers: means with 95% intervals)"
    )
    fig.legend(*ax.get_legend_handles_labels(), title="agent · modality", loc="outside right upper")
    return [save_png(fig, out_dir / "tos_cost_vs_coverage.png")]


def make_plots(runs: list[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write the Theory of Space figures for `runs` into `out_dir`."""
    out = Path(out_dir)
    rows = collect(runs)
    paths: list[Path] = []
    with plot_style():
        for what, fn in (("accuracy", plot_accuracy), ("cost vs coverage", plot_cost_coverage)):
            paths += guarded(f"tos {what} plot", fn, rows, out) or []
    return paths
