"""Aggregates shared by the puzzle tasks' `summarize` (regret curve, outcome statistics by group)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from statistics import fmean
from typing import Any

Episode = dict[str, Any]


def scored_rows(
    episodes: Iterable[Episode], int_metrics: tuple[str, ...] = ("optimal_steps",)
) -> list[Episode]:
    """Episodes that carry a regret list and the named integer metrics (errored ones may not)."""
    return [
        e
        for e in episodes
        if isinstance(e.get("metrics"), dict)
        and e["metrics"].get("regret")
        and all(isinstance(e["metrics"].get(k), int) for k in int_metrics)
    ]


def regret_curve(rows: list[Episode]) -> dict[str, list]:
    """Mean R(t) per t; an episode that ended early keeps its last value (R is frozen at the goal)."""
    curves = [list(e["metrics"]["regret"]) for e in rows]
    horizon = max(len(c) for c in curves)
    return {
        "t": list(range(horizon)),
        "mean": [fmean(c[t] if t < len(c) else c[-1] for c in curves) for t in range(horizon)],
    }


def outcome_stats(items: list[Episode]) -> dict[str, Any]:
    """Success rate, mean step deviation and mean final distance of a group. Episodes without a
    step deviation (fewer actions than the optimal length) are left out of its mean, as the
    original's means leave out its missing values; None when no episode of the group has one."""
    deviations = [d for e in items if (d := e["metrics"].get("step_deviation")) is not None]
    return {
        "n": len(items),
        "success_rate": fmean(bool(e.get("success")) for e in items),
        "mean_step_deviation": fmean(deviations) if deviations else None,
        "mean_final_distance": fmean(e["metrics"].get("final_distance", 0) for e in items),
    }


def without_step_deviation(rows: list[Episode]) -> int:
    """Episodes that have no step deviation (fewer actions than their optimal length)."""
    return sum(1 for e in rows if e["metrics"].get("step_deviation") is None)


def grouped(rows: list[Episode], key: Callable[[Episode], Any]) -> dict[Any, list[Episode]]:
    out: dict[Any, list[Episode]] = defaultdict(list)
    for e in rows:
        out[key(e)].append(e)
    return dict(sorted(out.items()))


def actions_per_episode(rows: list[Episode], counters: Iterable[str]) -> dict[str, float]:
    return {k: fmean(e["metrics"].get(k, 0) for e in rows) for k in counters}
