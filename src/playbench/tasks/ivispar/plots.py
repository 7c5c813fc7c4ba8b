"""iVISPAR report figures, after the paper's Figures 4, 5/11, 6 and 7.

Called by `playbench.report.plots.write_plots` with the runs' iVISPAR records. Every figure is
drawn only when its data is present and is guarded on its own, so one bad figure costs only itself.

| file                                         | paper       | content |
|----------------------------------------------|-------------|---------|
| `ivispar_success_deviation.png`              | Figure 4    | success rate and mean step deviation per agent and modality |
| `ivispar_action_classes.png`                 | Fig. 5, 11  | mean actions per episode by class (EM, IM, OD, OB, IC) |
| `ivispar_heatmap_<agent>_<modality>.png`     | Figure 7 top| success and step deviation over geoms x optimal length |
| `ivispar_board_inference.png`                | Fig. 5, 6   | board inference: geoms per episode by outcome |
| `ivispar_board_inference_geoms.png`          | Fig. 7 bot. | the same outcomes over the number of geoms |
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np

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
    slug,
    success_plot,
)

SGP_PREFIX = "ivispar/sgp"  # ivispar/sgp, ivispar/sgp-2d, ivispar/sgp-3d
INFERENCE_TASK = "ivispar/board-inference"  # also ivispar/board-inference-2d, -3d

MODALITY_ORDER: tuple[str, ...] = ("3d", "2d", "text")  # the paper's table order
MODALITY_NAMES: dict[str, str] = {"3d": "3D vision", "2d": "2D vision", "text": "text"}
MODALITY_COLORS: dict[str, str] = {"3d": "#4c72b0", "2d": "#55a868", "text": "#c44e52"}
UNKNOWN_MODALITY = "unspecified"

# (metric, paper's abbreviation, meaning), in the order of the paper's Table 3
ACTION_CLASSES: tuple[tuple[str, str, str], ...] = (
    ("actions_effective", "EM", "effective"),
    ("actions_ineffective", "IM", "ineffective"),
    ("actions_occupied", "OD", "occupied\ndestination"),
    ("actions_out_of_bounds", "OB", "out of\nbounds"),
    ("actions_illegal", "IC", "illegal\ncommand"),
)

# (metric, label, colour), in the order of the paper's Tables 4-5
INFERENCE_OUTCOMES: tuple[tuple[str, str, str], ...] = (
    ("correct", "correct", "#2ca02c"),
    ("missed", "missed", "#7f7f7f"),
    ("hallucinated", "hallucinated", "#9467bd"),
    ("coord_errors", "coord errors", "#d62728"),
    ("color_errors", "color errors", "#ff7f0e"),
    ("shape_errors", "shape errors", "#8c564b"),
    ("format_errors", "format errors", "#17becf"),
)


@dataclass(frozen=True)
class Row:
    """One episode with what the figures group by."""

    label: str  # agent (and model)
    modality: str
    task: str
    record: dict[str, Any]

    def metric(self, name: str) -> float | None:
        return number((self.record.get("metrics") or {}).get(name))


# --- entry point ------------------------------------------------------------------------------
# The paper's "step deviation": the distance left after as many actions as the optimal path
# (`metrics.step_deviation`); runs made before that metric existed have no deviation panel.
DEVIATION = "step_deviation"


def make_plots(runs: list[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write the iVISPAR figures for `runs` into `out_dir`; figures without data are skipped."""
    out = Path(out_dir)
    rows = collect(runs)
    sgp = [r for r in rows if r.task.startswith(SGP_PREFIX)]
    inference = [r for r in rows if r.task.startswith(INFERENCE_TASK)]
    figures: list[tuple[str, Callable[[list[Row], Path], list[Path]], list[Row]]] = [
        ("success/deviation", plot_success_deviation, sgp),
        ("action classes", plot_action_classes, sgp),
        ("heatmaps", plot_heatmaps, sgp),
        ("board inference", plot_board_inference, inference),
        ("board inference by geoms", plot_inference_by_geoms, inference),
    ]
    paths: list[Path] = []
    with plot_style():
        for name, fn, data in figures:
            if data:
                paths += guarded(f"ivispar {name} plot", fn, data, out) or []
        # tasks of the suite these figures do not cover still get the generic success figure
        others = {r.task for r in rows} - {r.task for r in sgp + inference}
        if others:
            rest = [
                {**run, "records": [x for x in run["records"] if x.get("task") in others]} for run in runs
            ]
            paths += guarded("ivispar success plot", success_plot, rest, out, "ivispar") or []
    return paths


def collect(runs: list[dict[str, Any]]) -> list[Row]:
    rows = []
    for run in runs:
        for rec in run.get("records", []):
            task = str(rec.get("task", ""))
            rows.append(Row(agent_label(rec), modality_of(run, task), task, rec))
    return rows


def modality_of(run: dict[str, Any], task_id: str) -> str:
    """The run's resolved option, else the task id's suffix, else the task's registered default."""
    resolved = ((run.get("config") or {}).get("task_options_resolved") or {}).get(task_id) or {}
    if isinstance(resolved.get("modality"), str):
        return resolved["modality"]
    name = task_id.split("/", 1)[-1]
    for modality in MODALITY_ORDER:
        if name.endswith(f"-{modality}"):
            return modality
    return _registered_modality(task_id)


@lru_cache(maxsize=32)
def _registered_modality(task_id: str) -> str:
    try:
        from playbench.core.registry import get_spec

        spec = get_spec(task_id)
        if isinstance(spec.options.get("modality"), str):
            return spec.options["modality"]
        default = spec.load_class().Config.model_fields.get("modality")
        if default is not None and isinstance(default.default, str):
            return default.default
    except Exception:  # an unknown or broken task only loses its modality label
        pass
    return UNKNOWN_MODALITY


def _modalities(rows: Sequence[Row]) -> list[str]:
    present = {r.modality for r in rows}
    return [m for m in MODALITY_ORDER if m in present] + sorted(present - set(MODALITY_ORDER))


def _modality_name(modality: str) -> str:
    return MODALITY_NAMES.get(modality, modality)


def _by(rows: Sequence[Row], key: Callable[[Row], Any]) -> dict[Any, list[Row]]:
    out: dict[Any, list[Row]] = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def _values(rows: Sequence[Row], metric: str) -> list[float]:
    return [v for r in rows if (v := r.metric(metric)) is not None]


def _category_panels(
    rows: list[Row],
    metrics: Sequence[tuple[str, str]],
    xlabel: str,
    ylabel: str,
    title: str,
    path: Path,
) -> Path:
    """Mean per episode of each (metric, category) with t intervals: one panel per modality, stacked,
    categories along x and one bar per agent, so many agents widen the figure only moderately."""
    labels = order_labels(r.label for r in rows)
    modalities = _modalities(rows)
    categories = [c for _, c in metrics]
    colors = palette(labels)
    longest_label = max(len(label) for label in labels)
    width = max(8.0, 2.0 + 0.07 * longest_label + len(categories) * (0.55 + 0.17 * len(labels)))
    fig = new_figure(width, 1.1 + 2.9 * len(modalities))
    axes = fig.subplots(len(modalities), 1, sharex=True, sharey=True, squeeze=False)[:, 0]
    top = 0.0
    for ax, modality in zip(axes, modalities, strict=True):
        items = [r for r in rows if r.modality == modality]
        stats = {}
        for label, mine in _by(items, lambda r: r.label).items():
            for metric, category in metrics:
                values = _values(mine, metric)
                if values:
                    stats[(category, label)] = mean_ci(values)
                    top = max(top, stats[(category, label)][2])
        grouped_bars(
            ax, categories, labels, stats, colors, value_format="{:.1f}" if len(labels) <= 4 else None
        )
        ax.set_title(f"{_modality_name(modality)} ({len(items)} episodes)")
        ax.set_ylabel(ylabel)
    axes[-1].set_xlabel(xlabel)
    axes[0].set_ylim(0, max(1.0, top) * 1.15)
    fig.suptitle(title, fontweight="bold")
    handles, names = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:  # an agent may be missing from the first panel
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    order = [names.index(label) for label in labels if label in names]
    fig.legend(
        [handles[i] for i in order], [names[i] for i in order], title="agent", loc="outside right upper"
    )
    return save_png(fig, path)


# --- Figure 4: success rate and step deviation -----------------------------------------------
def plot_success_deviation(rows: list[Row], out_dir: Path) -> list[Path]:
    labels = order_labels(r.label for r in rows)
    modalities = _modalities(rows)
    groups = _by(rows, lambda r: (r.label, r.modality))
    success = {}
    deviation = {}
    for key, items in groups.items():
        value, lo, hi = proportion_ci([bool(r.record.get("success")) for r in items])
        success[key] = (100 * value, 100 * lo, 100 * hi)
        distances = _values(items, DEVIATION)
        if distances:
            deviation[key] = mean_ci(distances)
    names = [_modality_name(m) for m in modalities]
    colors = {_modality_name(m): MODALITY_COLORS.get(m, "#999999") for m in modalities}

    def renamed(stats: dict[tuple[str, str], Any]) -> dict[tuple[str, str], Any]:
        return {(label, _modality_name(m)): v for (label, m), v in stats.items()}

    panels = 2 if deviation else 1
    fig = new_figure(max(8.0, 1.5 + len(labels) * (0.45 + 0.4 * len(modalities))), 3.3 * panels + 1.2)
    axes = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
    grouped_bars(axes[0], labels, names, renamed(success), colors, value_format="{:.0f}%")
    axes[0].set_ylim(0, 115)
    axes[0].set_ylabel("success rate (%)")
    axes[0].set_title("Episodes solved (higher is better)")
    if deviation:
        grouped_bars(axes[1], labels, names, renamed(deviation), colors, value_format="{:.1f}")
        axes[1].set_ylabel("mean step deviation\n(moves left to the goal)")
        axes[1].set_title(
            "Distance from the goal after as many actions as the optimal path (lower is better)"
        )
        top = max((v[2] for v in deviation.values() if not math.isnan(v[2])), default=1.0)
        axes[1].set_ylim(0, max(1.0, top) * 1.15)
    axes[-1].set_xlabel("agent")
    fig.suptitle(
        f"iVISPAR Sliding Geom Puzzle ({len(rows)} episodes)\n"
        "95% intervals: Wilson for success, percentile bootstrap for the mean deviation",
        fontweight="bold",
    )
    handles, names_shown = axes[0].get_legend_handles_labels()
    fig.legend(handles, names_shown, title="modality", loc="outside lower center", ncols=len(handles) or 1)
    return [save_png(fig, out_dir / "ivispar_success_deviation.png")]


# --- Figures 5 and 11: action classes ----------------------------------------------------------
def plot_action_classes(rows: list[Row], out_dir: Path) -> list[Path]:
    rows = [r for r in rows if any(r.metric(m) is not None for m, _, _ in ACTION_CLASSES)]
    if not rows:
        return []
    metrics = [(metric, f"{abbr}\n{meaning}") for metric, abbr, meaning in ACTION_CLASSES]
    title = "iVISPAR Sliding Geom Puzzle: actions per episode by class\n(mean, 95% t intervals)"
    return [
        _category_panels(
            rows,
            metrics,
            "action class",
            "actions per episode",
            title,
            out_dir / "ivispar_action_classes.png",
        )
    ]


# --- Figure 7 (top): complexity heatmaps ------------------------------------------------------
def _optimal(row: Row) -> float | None:
    # the instance's stored length first; the task's recomputed d(s0) for records that lack it
    stored = number(row.record.get("optimal_steps"))
    return stored if stored is not None else row.metric("optimal_steps")


def plot_heatmaps(rows: list[Row], out_dir: Path) -> list[Path]:
    usable = [r for r in rows if r.metric("num_geoms") is not None and _optimal(r) is not None]
    paths = []
    for (label, modality), items in sorted(_by(usable, lambda r: (r.label, r.modality)).items()):
        path = guarded(f"ivispar heatmap {label} {modality}", _heatmap, label, modality, items, out_dir)
        paths += path or []
    return paths


def _heatmap(label: str, modality: str, rows: list[Row], out_dir: Path) -> list[Path]:
    geoms_of = [int(r.metric("num_geoms") or 0) for r in rows]
    length_of = [int(_optimal(r) or 0) for r in rows]
    geoms = list(range(min(geoms_of), max(geoms_of) + 1))
    lengths = list(range(min(length_of), max(length_of) + 1))
    success = np.full((len(geoms), len(lengths)), np.nan)
    distance = np.full_like(success, np.nan)
    cells: dict[tuple[int, int], list[Row]] = {}
    for r, g, length in zip(rows, geoms_of, length_of, strict=True):
        cells.setdefault((g, length), []).append(r)
    for (g, length), items in cells.items():
        i, j = geoms.index(g), lengths.index(length)
        success[i, j] = 100 * sum(bool(r.record.get("success")) for r in items) / len(items)
        values = _values(items, DEVIATION)
        if values:
            distance[i, j] = sum(values) / len(values)
    side = max(3.0, 0.55 * len(lengths) + 1.6)
    panels = [("success rate (%)", success, "viridis", 0.0, 100.0, "{:.0f}")]
    if not np.isnan(distance).all():
        top = float(np.nanmax(distance))
        panels.append(("mean step deviation (moves)", distance, "viridis_r", 0.0, max(1.0, top), "{:.1f}"))
    fig = new_figure(side * len(panels) + 0.8, max(3.0, 0.45 * len(geoms) + 1.6))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, grid, cmap_name, vmin, vmax, fmt) in zip(axes, panels, strict=True):
        cmap = matplotlib.colormaps[cmap_name].with_extremes(bad="white")
        image = ax.imshow(
            np.ma.masked_invalid(grid), origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto"
        )
        for i in range(len(geoms)):
            for j in range(len(lengths)):
                value = grid[i, j]
                if math.isnan(value):
                    continue
                shade = cmap((value - vmin) / (vmax - vmin) if vmax > vmin else 0.0)
                light = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] > 0.5
                ax.text(
                    j,
                    i,
                    fmt.format(value),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if light else "white",
                )
        ax.set_xticks(range(len(lengths)), [str(v) for v in lengths])
        ax.set_yticks(range(len(geoms)), [str(v) for v in geoms])
        ax.set_xlabel("optimal path length (moves)")
        ax.set_ylabel("number of geoms")
        ax.set_title(title)
        ax.grid(False)
        for spine in ax.spines.values():
            spine.set_visible(True)
        fig.colorbar(image, ax=ax, shrink=0.85)
    fig.suptitle(
        f"iVISPAR {label} · {_modality_name(modality)}: by complexity ({len(rows)} episodes; blank = no episode)",
        fontweight="bold",
        fontsize=10,
    )
    return [save_png(fig, out_dir / f"ivispar_heatmap_{slug(label)}_{slug(modality)}.png")]


# --- Figures 5 (bottom) and 6: board inference -----------------------------------------------
def _inference_rows(rows: list[Row]) -> list[Row]:
    return [r for r in rows if any(r.metric(m) is not None for m, _, _ in INFERENCE_OUTCOMES)]


def plot_board_inference(rows: list[Row], out_dir: Path) -> list[Path]:
    rows = _inference_rows(rows)
    if not rows:
        return []
    metrics = [(metric, name.replace(" ", "\n")) for metric, name, _ in INFERENCE_OUTCOMES]
    title = "iVISPAR board state inference: geoms per episode by outcome\n(mean, 95% t intervals)"
    return [
        _category_panels(
            rows, metrics, "geom outcome", "geoms per episode", title, out_dir / "ivispar_board_inference.png"
        )
    ]


def plot_inference_by_geoms(rows: list[Row], out_dir: Path) -> list[Path]:
    rows = [r for r in _inference_rows(rows) if r.metric("num_geoms") is not None]
    if not rows:
        return []
    labels = order_labels(r.label for r in rows)
    modalities = _modalities(rows)
    fig = new_figure(max(8.0, 0.8 + 4.2 * len(modalities)), 1.4 + 2.9 * len(labels))
    axes = fig.subplots(len(labels), len(modalities), sharex=True, sharey=True, squeeze=False)
    for i, label in enumerate(labels):
        for j, modality in enumerate(modalities):
            ax = axes[i, j]
            items = [r for r in rows if r.label == label and r.modality == modality]
            ax.set_title(f"{label} · {_modality_name(modality)}", fontsize=9)
            if not items:
                ax.text(
                    0.5, 0.5, "no episodes", ha="center", va="center", transform=ax.transAxes, color="gray"
                )
                continue
            by_geoms = _by(items, lambda r: int(r.metric("num_geoms") or 0))
            xs = sorted(by_geoms)
            for metric, name, color in INFERENCE_OUTCOMES:
                stats = [mean_ci(_values(by_geoms[x], metric)) for x in xs]
                points = [(x, s) for x, s in zip(xs, stats, strict=True) if not math.isnan(s[0])]
                if not points:
                    continue
                px = [p[0] for p in points]
                ax.plot(px, [p[1][0] for p in points], marker="o", markersize=3, color=color, label=name)
                ax.fill_between(
                    px,
                    [p[1][1] for p in points],
                    [p[1][2] for p in points],
                    color=color,
                    alpha=0.12,
                    linewidth=0,
                )
            ax.set_xticks(xs)
        axes[i, 0].set_ylabel("geoms per episode")
    for ax in axes[-1]:
        ax.set_xlabel("number of geoms on the board")
    axes[0, 0].set_ylim(bottom=0)
    handles = {}
    for ax in axes.flat:
        for h, name in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(name, h)
    if handles:
        order = [name for _, name, _ in INFERENCE_OUTCOMES if name in handles]
        fig.legend([handles[n] for n in order], order, loc="outside lower center", ncols=min(len(order), 4))
    fig.suptitle(
        "iVISPAR board state inference over the number of geoms (mean, 95% t band)", fontweight="bold"
    )
    return [save_png(fig, out_dir / "ivispar_board_inference_geoms.png")]
