"""Aggregate statistics with 95% intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion; (0, 1) when there is no data."""
    if n <= 0:
        return (0.0, 1.0)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, float(centre - half))
    hi = 1.0 if successes == n else min(1.0, float(centre + half))
    return (lo, hi)


def t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval for a mean; a single value (or zero spread) gives a zero-width interval."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    mean = float(arr.mean())
    if arr.size == 1:
        return (mean, mean)
    sem = float(arr.std(ddof=1)) / math.sqrt(arr.size)
    half = float(stats.t.ppf(0.5 + confidence / 2, arr.size - 1)) * sem
    return (mean - half, mean + half)


def bootstrap_interval(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval for a mean, seeded so reports are reproducible."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = rng.choice(arr, size=(resamples, arr.size), replace=True).mean(axis=1)
    lo, hi = np.quantile(means, [(1 - confidence) / 2, 0.5 + confidence / 2])
    return (float(lo), float(hi))


def per_unit(values: Sequence[float], units: Sequence[Any] | None) -> list[float] | None:
    """The mean value of each unit (e.g. instance) in order of first appearance, or None when every
    value is its own unit (then the values themselves are independent)."""
    if units is None or len(set(units)) == len(units):
        return None
    groups: dict[Any, list[float]] = {}
    for unit, value in zip(units, values, strict=True):
        groups.setdefault(unit, []).append(float(value))
    return [float(np.mean(v)) for v in groups.values()]


def proportion(flags: Sequence[bool], units: Sequence[Any] | None = None) -> dict[str, Any]:
    """A success rate with a 95% interval. With `units` (one per flag) holding repeats, the unit is
    the independent observation: each unit's rate is taken first and the interval is a t interval
    over the unit rates, clipped to [0, 1], instead of pooling repeated trials as independent."""
    n = len(flags)
    rates = per_unit([float(bool(f)) for f in flags], units)
    if rates is None:
        k = int(sum(bool(f) for f in flags))
        lo, hi = wilson_interval(k, n)
        return {"kind": "proportion", "n": n, "value": k / n if n else math.nan, "ci95": [lo, hi]}
    lo, hi = t_interval(rates)
    return {
        "kind": "proportion",
        "n": len(rates),
        "episodes": n,
        "value": float(np.mean(rates)),
        "ci95": [max(0.0, lo), min(1.0, hi)],
        "unit": "instance",
    }


def mean(values: Sequence[float], method: str = "t", units: Sequence[Any] | None = None) -> dict[str, Any]:
    """A mean with a 95% interval; with `units` holding repeats, over the per-unit means."""
    arr = [float(v) for v in values]
    reduced = per_unit(arr, units)
    sample = arr if reduced is None else reduced
    lo, hi = t_interval(sample) if method == "t" else bootstrap_interval(sample)
    out = {
        "kind": "mean",
        "n": len(sample),
        "value": float(np.mean(sample)) if sample else math.nan,
        "ci95": [lo, hi],
        "method": method,
    }
    if reduced is not None:
        out.update(episodes=len(arr), unit="instance")
    return out


def aggregate_metrics(
    rows: list[dict[str, Any]], units: Sequence[Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Aggregate every scalar metric found in the rows: booleans as proportions, numbers as means.
    `units` (one per row, e.g. the instance id) makes repeated trials of a unit count once.

    Lists and nested objects are left to a task's own `summarize`.
    """
    keys: list[str] = []
    for row in rows:
        for k, v in row.items():
            if k not in keys and (isinstance(v, bool | int | float)) and v is not None:
                keys.append(k)
    out: dict[str, dict[str, Any]] = {}
    for k in keys:
        picked = [
            (u, row[k])
            for u, row in zip(units or [None] * len(rows), rows, strict=True)
            if k in row and row[k] is not None
        ]
        vals = [v for _, v in picked]
        unit_list = [u for u, _ in picked] if units is not None else None
        if all(isinstance(v, bool) for v in vals):
            out[k] = proportion(vals, unit_list)
        else:
            out[k] = mean([float(v) for v in vals], units=unit_list)
    return out
