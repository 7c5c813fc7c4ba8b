"""summary.json's usage totals: the running sums (`UsageSum`) equal folding the records' usage dicts one
by one through `Usage` (the definition), roundings included, for every shape a record's usage takes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from playbench.core.types import Usage
from playbench.report.summary import add_usage, usage_totals


def _reference_add(total: dict[str, Any], data: dict[str, Any] | None) -> dict[str, Any]:
    """One addition by the definition: both sides as `Usage`, added, as a dict; the optional fields
    (reasoning tokens, latency to 4 digits, failed calls) added when either side has them."""

    def as_usage(u: dict[str, Any]) -> Usage:
        return Usage(
            input_tokens=int(u.get("input_tokens") or 0),
            output_tokens=int(u.get("output_tokens") or 0),
            calls=int(u.get("calls") or 0),
            cost=u.get("cost", 0.0),
            cached_calls=int(u.get("cached_calls") or 0),
            retries=int(u.get("retries") or 0),
        )

    u = as_usage(total)
    u.add(as_usage(data or {}))
    out = u.to_dict()
    for extra, digits in (("reasoning_tokens", None), ("latency_s", 4), ("failed_calls", None)):
        values = [d.get(extra) for d in (total, data or {}) if isinstance(d.get(extra), int | float)]
        if values:
            out[extra] = round(sum(values), digits) if digits else sum(values)
    return out


def _random_usage(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.05:
        return None
    u: dict[str, Any] = {}
    for key in ("input_tokens", "output_tokens", "calls", "cached_calls", "retries"):
        if rng.random() < 0.8:
            u[key] = rng.choice([rng.randint(0, 5000), float(rng.randint(0, 50)), None])
    if rng.random() < 0.9:
        u["cost"] = rng.choice(
            [rng.random() / 7, 0.0, 1e-9 * rng.random(), None if rng.random() < 0.1 else 0.3]
        )
    if rng.random() < 0.5:
        u["latency_s"] = rng.random() * 3
    if rng.random() < 0.3:
        u["reasoning_tokens"] = rng.randint(0, 900)
    if rng.random() < 0.2:
        u["failed_calls"] = rng.randint(0, 3)
    return u


def _record(rng: random.Random) -> dict[str, Any]:
    roles, models = ["player", "judge"], ["openai:a", "anthropic:b"]
    return {
        "usage": _random_usage(rng),
        "usage_by_role": {r: _random_usage(rng) for r in rng.sample(roles, rng.randint(0, 2))},
        "usage_by_model": {m: _random_usage(rng) for m in rng.sample(models, rng.randint(0, 2))},
        "usage_breakdown": [
            {"role": rng.choice(roles), "purpose": rng.choice(["act", "judge"]), "model": rng.choice(models)}
            | (_random_usage(rng) or {})
            for _ in range(rng.randint(0, 3))
        ],
    }


@pytest.mark.parametrize("seed", range(6))
def test_usage_totals_equal_the_one_by_one_fold(seed: int) -> None:
    rng = random.Random(seed)
    records = [_record(rng) for _ in range(rng.randint(0, 300))]
    total: dict[str, Any] = {}
    by_role: dict[str, dict[str, Any]] = {}
    by_model: dict[str, dict[str, Any]] = {}
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in records:
        total = _reference_add(total, r["usage"])
        for role, u in r["usage_by_role"].items():
            by_role[role] = _reference_add(by_role.get(role, {}), u)
        for model, u in r["usage_by_model"].items():
            by_model[model] = _reference_add(by_model.get(model, {}), u)
        for row in r["usage_breakdown"]:
            key = (row["role"], row["purpose"], row["model"])
            rows[key] = _reference_add(rows.get(key, {}), row)
    got = usage_totals(records)
    assert got["total"] == (total or Usage().to_dict())
    assert list(got["total"]) == list(total or Usage().to_dict())  # the same keys, in the same order
    assert got["by_role"] == dict(sorted(by_role.items()))
    assert got["by_model"] == dict(sorted(by_model.items()))
    assert got["breakdown"] == [
        {"role": k[0], "purpose": k[1], "model": k[2], **v} for k, v in sorted(rows.items())
    ]


def test_add_usage_keeps_an_unknown_cost_unknown_and_rounds_latency() -> None:
    once = add_usage({}, {"calls": 2, "cost": 0.1, "latency_s": 0.123456})
    assert once["calls"] == 2 and once["latency_s"] == 0.1235
    assert add_usage(once, {"calls": 1, "cost": None})["cost"] is None
    assert add_usage(once, {"calls": 1})["cost"] == pytest.approx(0.1)
    assert add_usage(once, None) == once
