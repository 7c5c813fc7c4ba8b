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


def proportion(flags: Sequence[bool]) -> dict[str, Any]:
    n = len(flags)
    k = int(sum(bool(f) for f in flags))
    lo, hi = wilson_interval(k, n)
    return {"kind": "proportion", "n": n, "value": k / n if n else math.nan, "ci95": [lo, hi]}


def mean(values: Sequence[float], method: str = "t") -> dict[str, Any]:
    arr = [float(v) for v in values]
    lo, hi = t_interval(arr) if method == "t" else bootstrap_interval(arr)
    return {
        "kind": "mean",
        "n": len(arr),
        "value": float(np.mean(arr)) if arr else math.nan,
        "ci95": [lo, hi],
        "method": method,
    }


def aggregate_metrics(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Aggregate every scalar metric found in the rows: booleans as proportions, numbers as means.

    Lists and nested objects are left to a task's own `summarize`.
    """
    keys: list[str] = []
    for row in rows:
        for k, v in row.items():
            if k not in keys and (isinstance(v, bool | int | float)) and v is not None:
                keys.append(k)
    out: dict[str, dict[str, Any]] = {}
    for k in keys:
        vals = [row[k] for row in rows if k in row and row[k] is not None]
        if all(isinstance(v, bool) for v in vals):
            out[k] = proportion(vals)
        else:
            out[k] = mean([float(v) for v in vals])
    return out
