"""COMMA report figures, after the paper's Table 2, Figure 5 and Figures 3-4.

Called by `playbench.report.plots.write_plots` with the runs' COMMA records. Each figure is drawn
only when its data is present and is guarded on its own.

| file                          | paper        | content |
|-------------------------------|--------------|---------|
| `comma_turn_limit.png`        | Figure 5     | success rate and mean mistakes vs the conversation-turn limit, per pairing |
| `comma_psr_by_puzzle.png`     | Tables 1-2   | partial success rate per puzzle, per pairing (95% t intervals) |
| `comma_failure_modes.png`     | Figures 3-4  | the judge's failure labels per pairing (only when a judge ran) |
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from matplotlib.ticker import MaxNLocator

from playbench.report.plots import (
    agent_label,
    grouped_bars,
    guarded,
    mean_ci,
    new_figure,
    order_labels,
    palette,
    plot_style,
    save_png,
)
from playbench.tasks.comma.modules import NAMES
from playbench.tasks.comma.prompts import JUDGE_LABELS
from playbench.tasks.comma.summaries import module_of, scored, turn_curve

Records = list[dict[str, Any]]


def pairing_label(record: dict[str, Any]) -> str:
    """'solver / expert' as the paper's legends name a pairing (one name when both seats hold the same
    agent). The judge seat is left out: a random pair judged by a model is still the random pair."""
    roles = record.get("roles")
    if not isinstance(roles, dict) or "solver" not in roles:
        return agent_label(record)
    seats = [str(roles["solver"]), str(roles.get("expert", roles["solver"]))]
    return " / ".join(dict.fromkeys(seats))


def make_plots(runs: list[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write the COMMA figures for `runs` into `out_dir`; figures without data are skipped."""
    out = Path(out_dir)
    by_label: dict[str, Records] = {}
    for run in runs:
        for rec in scored(run.get("records", [])):
            by_label.setdefault(pairing_label(rec), []).append(rec)
    if not by_label:
        return []
    paths: list[Path] = []
    with plot_style():
        for name, fn in (
            ("turn limit", plot_turn_limit),
            ("psr by puzzle", plot_psr_by_puzzle),
            ("failure modes", plot_failure_modes),
        ):
            paths += guarded(f"comma {name} plot", fn, by_label, out) or []
    return paths


def plot_turn_limit(by_label: dict[str, Records], out_dir: Path) -> list[Path]:
    labels = order_labels(by_label)
    colors = palette(labels)
    fig = new_figure(11.0, 4.2)
    success_ax, mistakes_ax = fig.subplots(1, 2)
    for label in labels:
        curve = turn_curve(by_label[label])
        if not curve["k"]:
            continue
        style = {"color": colors[label], "marker": "o", "markersize": 3, "linewidth": 1.6}
        if label.split("(")[0].strip().startswith("random"):
            style.update(linestyle="--", marker="")
        success_ax.plot(curve["k"], [100 * v for v in curve["success_rate"]], label=label, **style)
        mistakes_ax.plot(curve["k"], curve["mean_mistakes"], label=label, **style)
    for ax in (success_ax, mistakes_ax):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    success_ax.set_xlabel("conversation turns allowed")
    success_ax.set_ylabel("success rate (%)")
    success_ax.set_ylim(0, 105)
    success_ax.set_title("Success vs turn limit")
    mistakes_ax.set_xlabel("conversation turns allowed")
    mistakes_ax.set_ylabel("mistakes per episode (mean)")
    mistakes_ax.set_title("Mistakes vs turn limit")
    n = sum(len(v) for v in by_label.values())
    fig.suptitle(
        f"COMMA: outcome when the conversation is cut after k turns ({n} episodes)", fontweight="bold"
    )
    handles, names = success_ax.get_legend_handles_labels()
    fig.legend(handles, names, title="solver / expert", loc="outside right upper")
    return [save_png(fig, out_dir / "comma_turn_limit.png")]


def _puzzles(by_label: dict[str, Records]) -> list[str]:
    present = {module_of(r) for recs in by_label.values() for r in recs}
    return [m for m in NAMES if m in present] + sorted(present - set(NAMES))


def plot_psr_by_puzzle(by_label: dict[str, Records], out_dir: Path) -> list[Path]:
    labels = order_labels(by_label)
    puzzles = _puzzles(by_label)
    stats = {}
    for label in labels:
        for puzzle in puzzles:
            values = [
                100 * float(r["metrics"]["partial_score"]) for r in by_label[label] if module_of(r) == puzzle
            ]
            if values:
                stats[(puzzle, label)] = mean_ci(values)
    fig = new_figure(min(18.0, max(8.0, 3.5 + len(puzzles) * (0.5 + 0.3 * len(labels)))), 4.4)
    ax = fig.add_subplot()
    grouped_bars(
        ax, puzzles, labels, stats, palette(labels), value_format="{:.0f}" if len(labels) <= 3 else None
    )
    ax.set_ylim(0, 115)
    ax.set_ylabel("partial success rate (%)")
    ax.set_xlabel("puzzle")
    ax.set_title("COMMA partial success rate per puzzle (mean, 95% t intervals)")
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, title="solver / expert", loc="outside right upper")
    return [save_png(fig, out_dir / "comma_psr_by_puzzle.png")]


def plot_failure_modes(by_label: dict[str, Records], out_dir: Path) -> list[Path]:
    categories = [*JUDGE_LABELS, "unparseable"]
    counts: dict[str, dict[str, int]] = {}
    for label, recs in by_label.items():
        judged = [
            r["metrics"]["judge_label"] for r in recs if isinstance(r["metrics"].get("judge_label"), str)
        ]
        if judged:
            counts[label] = {c: judged.count(c) for c in categories}
    if not counts:
        return []
    labels = order_labels(counts)
    fig = new_figure(max(7.0, 2.5 + 1.2 * len(labels)), 4.2)
    ax = fig.add_subplot()
    colors = palette(categories)
    colors["unparseable"] = (0.6, 0.6, 0.6, 1.0)  # not a failure mode: grey, apart from the four
    bottoms = [0.0] * len(labels)
    for category in categories:
        shares = []
        for label in labels:
            total = sum(counts[label].values())
            shares.append(100 * counts[label][category] / total if total else math.nan)
        ax.bar(range(len(labels)), shares, bottom=bottoms, color=colors[category], label=category, width=0.6)
        bottoms = [b + (0 if math.isnan(s) else s) for b, s in zip(bottoms, shares, strict=True)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=15, ha="right")
    ax.set_ylabel("share of judged failures (%)")
    ax.set_ylim(0, 100)
    ax.set_title("COMMA failure modes as labelled by the judge")
    # outside the axes: a legend drawn over a full bar would hide that bar's own swatch
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, title="label", loc="outside right upper", fontsize=8)
    return [save_png(fig, out_dir / "comma_failure_modes.png")]
