"""Error-map figures (`playbench report`), for every task whose `progress()` returns something:

| file                                   | content |
|----------------------------------------|---------|
| `error_distance_<task>.png`            | distance to the goal per step: median and interquartile band per run and agent |
| `error_fraction_<task>.png`            | the same for a task's progress fraction (tasks that report one) |
| `error_departures_<task>.png`          | histogram of the step at which episodes first left every optimal path |

An episode's value at step s is its value after the last turn at or before step s, held after the
episode ended (an episode that stopped early keeps its final distance). Only the episodes the error
maps count (`EpisodeMap.usable`) are drawn. Conventions as `report/plots.py`: matplotlib without
pyplot, a fixed style, reproducible PNG bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.ticker import MaxNLocator

from playbench.report.error_maps import EpisodeMap, Group
from playbench.report.plots import new_figure, palette, plot_style, save_png, slug


def _label(group: Group, several_runs: bool) -> str:
    model = f" ({group.model})" if group.model and group.model not in group.agent else ""
    return f"{group.agent}{model}" + (f" · {group.run}" if several_runs else "")


def series(maps: list[EpisodeMap], attr: str, last: int) -> np.ndarray:
    """Per episode (rows) its `attr` (distance or fraction) at steps 0..last (columns), held after
    its last point; NaN where the episode has no value."""
    out = np.full((len(maps), last + 1), np.nan)
    for row, m in enumerate(maps):
        value, k = np.nan, 0
        points = m.points
        for s in range(last + 1):
            while k < len(points) and (points[k].step or 0) <= s:
                v = getattr(points[k], attr)
                value = np.nan if v is None else float(v)
                k += 1
            out[row, s] = value
    return out


def _last_step(maps: list[EpisodeMap]) -> int:
    return max((p.step or 0 for m in maps for p in m.points), default=0)


def write_error_plots(groups: list[Group], out_dir: Path) -> list[Path]:
    """Every error-map figure for `groups` (see the module docstring)."""
    written: list[Path] = []
    by_task: dict[str, list[Group]] = {}
    for g in groups:
        by_task.setdefault(g.task, []).append(g)
    several_runs = len({g.run for g in groups}) > 1
    with plot_style():
        for task, task_groups in sorted(by_task.items()):
            for attr, name, ylabel in (
                ("distance", "distance", "distance to the goal (moves)"),
                ("fraction", "fraction", "progress fraction"),
            ):
                path = _curves(
                    task, task_groups, attr, ylabel, out_dir / f"error_{name}_{slug(task)}.png", several_runs
                )
                if path is not None:
                    written.append(path)
            path = _departures(
                task, task_groups, out_dir / f"error_departures_{slug(task)}.png", several_runs
            )
            if path is not None:
                written.append(path)
    return written


def _curves(
    task: str, groups: list[Group], attr: str, ylabel: str, path: Path, several_runs: bool
) -> Path | None:
    drawn: list[tuple[str, np.ndarray]] = []
    for g in groups:
        maps = [m for m in g.maps if m.usable and getattr(m.points[0], attr) is not None]
        if maps:
            drawn.append((_label(g, several_runs), series(maps, attr, _last_step(maps))))
    if not drawn:
        return None
    colors = palette([label for label, _ in drawn])
    fig = new_figure(8.0, 4.6)
    ax = fig.add_subplot()
    for label, values in drawn:
        steps = np.arange(values.shape[1])
        median = np.nanmedian(values, axis=0)
        q1, q3 = np.nanpercentile(values, [25, 75], axis=0)
        ax.fill_between(steps, q1, q3, color=colors[label], alpha=0.2, linewidth=0, step="post")
        ax.step(steps, median, where="post", color=colors[label], label=f"{label} (n={values.shape[0]})")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step (the task's count)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    fig.suptitle(
        f"{task}: {ylabel} per step\n(median and interquartile band over episodes)", fontweight="bold"
    )
    ax.legend(loc="upper right")
    return save_png(fig, path)


def _departures(task: str, groups: list[Group], path: Path, several_runs: bool) -> Path | None:
    counts: list[tuple[str, list[int], int]] = []
    for g in groups:
        maps = [m for m in g.maps if m.usable and m.has_distance]
        if not maps:
            continue
        steps = [int(m.first_departure["step"]) for m in maps if m.first_departure]
        counts.append((_label(g, several_runs), steps, len(maps) - len(steps)))
    if not counts:
        return None
    colors = palette([label for label, _, _ in counts])
    top = max((max(s) for _, s, _ in counts if s), default=1)
    bins = np.arange(0.5, top + 1.5, 1.0)
    fig = new_figure(8.0, 4.6)
    ax = fig.add_subplot()
    for label, steps, never in counts:
        text = f"{label}: {len(steps)} departed, {never} never"
        if steps:
            ax.hist(steps, bins=bins, histtype="step", linewidth=1.5, color=colors[label], label=text)
        else:
            ax.plot([], [], color=colors[label], label=text)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step of the first departure from every optimal path")
    ax.set_ylabel("episodes")
    fig.suptitle(f"{task}: where episodes first left every optimal path", fontweight="bold")
    ax.legend(loc="upper right")
    return save_png(fig, path)


def plot_groups(runs: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """The error-map figures of `runs` (scored episodes only), for `report.plots.write_plots`."""
    from playbench.report.error_summary import groups_of

    groups = groups_of(runs)
    if not groups:
        return []
    return write_error_plots(groups, out_dir)
