"""Aggregate statistics with 95% intervals that stay inside their metric's range.

- A proportion (a boolean metric, success) gets a Wilson score interval, inside [0, 1] by
  construction. With repeated trials per instance the instance is the unit: the interval is the
  Wilson interval of the mean of the instances' rates with the number of instances as the sample
  size. That is conservative: a rate in [0, 1] with mean p varies no more than one Bernoulli(p) trial.
- A mean of any other number gets a seeded percentile bootstrap interval over the units. Every
  resampled mean lies between the smallest and the largest value observed, so the interval never
  leaves the metric's range (a ratio in [0, 1], a non-negative count, a 0-5 score) whatever that is.
- With fewer than two units a mean has no interval (`ci95` is None and `note` says "n < 2"): one
  value says nothing about its spread, and a zero-width "interval" would claim certainty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import stats

N_BELOW_TWO = "n < 2"
BOOTSTRAP_RESAMPLES = 2000


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion (`successes` may be fractional: n times a mean rate);
    (0, 1) when there is no data."""
    if n <= 0:
        return (0.0, 1.0)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = min(1.0, max(0.0, successes / n))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if p <= 0.0 else max(0.0, float(centre - half))
    hi = 1.0 if p >= 1.0 else min(1.0, float(centre + half))
    return (lo, hi)


def t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval for a mean; a single value (or zero spread) gives a zero-width interval.

    Unbounded: on a bounded quantity it can leave the range (the summaries use `mean`, which does not).
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    mean = float(arr.mean())
    if arr.size == 1:
        return (mean, mean)
    sem = float(arr.std(ddof=1)) / math.sqrt(arr.size)
    half = float(stats.t.ppf(0.5 + confidence / 2, arr.size - 1)) * sem
    return (mean - half, mean + half)


SHARED_RESAMPLE_ENTRIES = 2_000_000  # up to this many indices (16 MB) are drawn once and shared
RESAMPLE_CHUNK_ENTRIES = 1 << 20  # beyond it, the indices are drawn this many (8 MB) at a time


def _resample_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    """The bootstrap's resampling indices, for up to SHARED_RESAMPLE_ENTRIES of them. They are the
    same for every metric over the same episodes (same size, same seed), so they are drawn once per
    summary, not once per metric."""
    if size * resamples > SHARED_RESAMPLE_ENTRIES:
        raise ValueError(f"{size} x {resamples} resampling indices are drawn in chunks, not kept")
    return _shared_resample_indices(size, resamples, seed)


@lru_cache(maxsize=2)
def _shared_resample_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    indices = np.random.default_rng(seed).integers(0, size, size=(resamples, size))
    indices.flags.writeable = False  # shared between calls: nobody may change it
    return indices


def _resampled_means(arr: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The mean of each of `resamples` resamples of `arr` (drawn with replacement, seeded). Large
    samples are drawn a chunk of rows at a time from the same generator, which gives the same indices
    as drawing them all at once: 8,192 episodes took 131 MB of indices and 131 MB of gathered values
    per metric that way (100,000 would take 3 GB)."""
    size = arr.size
    if size * resamples <= SHARED_RESAMPLE_ENTRIES:
        return arr[_resample_indices(size, resamples, seed)].mean(axis=1)
    rng = np.random.default_rng(seed)
    rows = max(1, RESAMPLE_CHUNK_ENTRIES // size)
    means = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        means[start:stop] = arr[rng.integers(0, size, size=(stop - start, size))].mean(axis=1)
    return means


def bootstrap_interval(
    values: Sequence[float], confidence: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval for a mean, seeded so reports are reproducible. It lies within
    [min(values), max(values)]."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    if arr.size == 1 or float(arr.min()) == float(arr.max()):
        return (float(arr[0]), float(arr[0]))
    means = _resampled_means(arr, resamples, seed)
    lo, hi = np.quantile(means, [(1 - confidence) / 2, 0.5 + confidence / 2])
    # quantiles of means of observed values cannot leave the observed range; clip float noise
    return (max(float(lo), float(arr.min())), min(float(hi), float(arr.max())))


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
    """A success rate with a Wilson 95% interval. With `units` (one per flag) holding repeats, the
    unit is the independent observation: each unit's rate is taken first, and the interval is the
    Wilson interval of their mean with the number of units as n (see the module docstring)."""
    n = len(flags)
    rates = per_unit([float(bool(f)) for f in flags], units)
    if rates is None:
        k = int(sum(bool(f) for f in flags))
        out: dict[str, Any] = {"kind": "proportion", "n": n, "value": k / n if n else math.nan}
        out["ci95"] = list(wilson_interval(k, n)) if n else None
        out["method"] = "wilson"
        return out
    value = float(np.mean(rates))
    return {
        "kind": "proportion",
        "n": len(rates),
        "episodes": n,
        "value": value,
        "ci95": list(wilson_interval(value * len(rates), len(rates))),
        "method": "wilson",
        "unit": "instance",
    }


def mean(
    values: Sequence[float], method: str = "bootstrap", units: Sequence[Any] | None = None
) -> dict[str, Any]:
    """A mean with a 95% interval over the units (`units` holding repeats: over the per-unit means).

    `method` "bootstrap" (the default) stays inside the observed range; "t" is the Student-t
    interval, which can leave it. Fewer than two units: `ci95` None and `note` "n < 2".
    """
    if method not in ("bootstrap", "t"):
        raise ValueError(f"unknown interval method {method!r} (accepted: bootstrap, t)")
    arr = [float(v) for v in values]
    reduced = per_unit(arr, units)
    sample = arr if reduced is None else reduced
    out: dict[str, Any] = {
        "kind": "mean",
        "n": len(sample),
        "value": float(np.mean(sample)) if sample else math.nan,
        "ci95": None,
        "method": method,
    }
    if len(sample) >= 2:
        lo, hi = t_interval(sample) if method == "t" else bootstrap_interval(sample)
        out["ci95"] = [lo, hi]
    elif sample:
        out["note"] = N_BELOW_TWO
    if reduced is not None:
        out.update(episodes=len(arr), unit="instance")
    return out


def interval(stat: dict[str, Any] | None) -> tuple[float, float] | None:
    """A summary statistic's 95% interval as numbers, or None when it has none (no data, n < 2)."""
    if not isinstance(stat, dict):
        return None
    ci = stat.get("ci95")
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return None
    lo, hi = ci
    if not isinstance(lo, int | float) or not isinstance(hi, int | float) or math.isnan(lo) or math.isnan(hi):
        return None
    return (float(lo), float(hi))


def aggregate_metrics(
    rows: list[dict[str, Any]], units: Sequence[Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Aggregate every scalar metric found in the rows: booleans as proportions, numbers as means.
    `units` (one per row, e.g. the instance id) makes repeated trials of a unit count once.

    Lists and nested objects are left to a task's own `summarize`.
    """
    # one pass over the rows: each metric's values and their units, metrics in order of first appearance
    columns: dict[str, tuple[list[Any], list[Any]]] = {}
    for unit, row in zip(units or [None] * len(rows), rows, strict=True):
        for k, v in row.items():
            if isinstance(v, bool | int | float) and not _nan(v):
                column = columns.get(k)
                if column is None:
                    column = columns[k] = ([], [])
                column[0].append(v)
                column[1].append(unit)
    out: dict[str, dict[str, Any]] = {}
    for k, (vals, picked_units) in columns.items():
        unit_list = picked_units if units is not None else None
        if all(isinstance(v, bool) for v in vals):
            out[k] = proportion(vals, unit_list)
        else:
            out[k] = mean([float(v) for v in vals], units=unit_list)
    return out


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
