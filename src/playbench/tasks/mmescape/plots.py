"""MM-Escape report figures, after the paper's Tables 2-3 and 8-9 and its Figure 4.

Called by `playbench.report.plots.write_plots` with the runs' MM-Escape records. Each figure is
drawn only when its data is present and is guarded on its own.

| file                             | content |
|----------------------------------|---------|
| `mmescape_overview.png`          | escape rate, prop gain and grab success rate (95% intervals) per task and agent |
| `mmescape_steps_grabs.png`       | mean steps and grab ratio per task and agent |
| `mmescape_distance.png`          | moving distance against the optimal distance, one colour per agent, with Pearson r (Table 8) |
"""

from __future__ import annotations

import math
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
    proportion_ci,
    save_png,
)
from playbench.tasks.mmescape.scoring import distance_correlation

TASK_ORDER = (
    "mmescape/level-1",
    "mmescape/level-2",
    "mmescape/level-3-note-key",
    "mmescape/level-3-key-note",
    "mmescape/multi-room",
)


def _records(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r
        for run in runs
        for r in run.get("records", [])
        if not r.get("error") and isinstance(r.get("metrics"), dict)
    ]


def _tasks(records: list[dict[str, Any]]) -> list[str]:
    present = {r["task"] for r in records}
    return [t for t in TASK_ORDER if t in present] + sorted(present - set(TASK_ORDER))


def _short(task: str) -> str:
    return task.split("/", 1)[-1]


def make_plots(runs: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    records = _records(runs)
    if not records:
        return []
    out: list[Path] = []
    for fn in (_overview, _steps_grabs, _distance):
        paths = guarded(f"mmescape {fn.__name__.strip('_')} plot", fn, records, Path(out_dir))
        out += paths or []
    return out


def _overview(records: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    tasks = _tasks(records)
    agents = order_labels(agent_label(r) for r in records)
    colors = palette(agents)
    fig = new_figure(max(7.0, 1.6 * len(tasks) * 3 / 2), 7.5)
    axes = fig.subplots(3, 1, sharex=True)
    panels = (
        ("Escape rate", lambda rs: proportion_ci([bool(r.get("success")) for r in rs])),
        (
            "Prop gain",
            lambda rs: mean_ci(
                [v for v in (number(r["metrics"].get("prop_gain")) for r in rs) if v is not None]
            ),
        ),
        (
            "Grab success rate",
            lambda rs: mean_ci(
                [v for v in (number(r["metrics"].get("grab_success_rate")) for r in rs) if v is not None]
            ),
        ),
    )
    for ax, (title, stat) in zip(axes, panels, strict=True):
        stats = {}
        for t in tasks:
            for a in agents:
                rs = [r for r in records if r["task"] == t and agent_label(r) == a]
                if rs:
                    stats[(t, a)] = stat(rs)
        grouped_bars(ax, tasks, agents, stats, colors)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(title)
    axes[-1].set_xticks(range(len(tasks)), [_short(t) for t in tasks])
    # above the panels: inside, it would cover the bars of rates at 1.0
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(3, len(agents)), frameon=False)
    fig.suptitle("MM-Escape: escape rate, prop gain, grab success rate (95% CI)", fontweight="bold")
    return [save_png(fig, out_dir / "mmescape_overview.png")]


def _steps_grabs(records: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    tasks = _tasks(records)
    agents = order_labels(agent_label(r) for r in records)
    colors = palette(agents)
    fig = new_figure(max(7.0, 1.6 * len(tasks) * 3 / 2), 5.5)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, (title, key) in zip(axes, (("Steps", "steps"), ("Grab ratio", "grab_ratio")), strict=True):
        stats = {}
        for t in tasks:
            for a in agents:
                vals = [
                    float(r["steps"]) if key == "steps" else number(r["metrics"].get(key))
                    for r in records
                    if r["task"] == t and agent_label(r) == a
                ]
                vals = [v for v in vals if v is not None]
                if vals:
                    stats[(t, a)] = mean_ci(vals)
        grouped_bars(ax, tasks, agents, stats, colors)
        ax.set_ylabel(title)
    axes[-1].set_xticks(range(len(tasks)), [_short(t) for t in tasks])
    axes[0].legend(loc="upper left")
    axes[0].set_title("MM-Escape: steps per episode and grab attempts per step (95% CI)")
    return [save_png(fig, out_dir / "mmescape_steps_grabs.png")]


def _distance(records: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    rows = [r for r in records if number(r["metrics"].get("optimal_distance")) is not None]
    if not rows:
        return []
    agents = order_labels(agent_label(r) for r in rows)
    colors = palette(agents)
    fig = new_figure(6.5, 5.0)
    ax = fig.subplots()
    top = 0.0
    for a in agents:
        rs = [r for r in rows if agent_label(r) == a]
        xs = [float(r["metrics"]["optimal_distance"]) for r in rs]
        ys = [float(r["metrics"]["moving_distance"]) for r in rs]
        top = max([top, *xs, *ys])
        corr = distance_correlation(rs)["pearson_r"]
        label = f"{a} (r = {corr:.2f})" if corr is not None and not math.isnan(corr) else f"{a} (r: n/a)"
        ax.scatter(xs, ys, s=18, alpha=0.75, color=colors[a], label=label)
    ax.plot([0, top or 1.0], [0, top or 1.0], color="#999999", linewidth=0.8, linestyle="--")
    ax.set_xlabel("optimal distance (m)")
    ax.set_ylabel("moving distance (m)")
    ax.set_title("MM-Escape: moving vs optimal distance")
    ax.legend(loc="upper left")
    return [save_png(fig, out_dir / "mmescape_distance.png")]
