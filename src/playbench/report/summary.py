"""summary.json: per task (and agent/model), episode and instance counts and every aggregate metric
with a 95% interval that treats the instance, not the trial, as the independent unit.

Errored episodes are missing, not failed: they are counted (`errors`, and the most common messages in
`error_messages`) and their usage is part of the totals, but no score (success, steps, metrics, a
task's own summary) includes them. `scored` is the number of episodes the scores are over.
"""

from __future__ import annotations

from typing import Any

from playbench.core.metrics import aggregate_metrics, mean, proportion
from playbench.core.types import Usage

ERROR_MESSAGES_KEPT = 5
USAGE_FIELDS = ("input_tokens", "output_tokens", "calls", "cached_calls", "retries")
# usage fields a record may or may not have, and the digits their sums are rounded to (None: exact)
USAGE_EXTRAS = (("reasoning_tokens", None), ("latency_s", 4), ("failed_calls", None))


def usage_of(data: dict[str, Any] | None) -> Usage:
    """A usage dict of a record as a `Usage` (missing fields count as zero)."""
    u = data or {}
    return Usage(
        input_tokens=int(u.get("input_tokens") or 0),
        output_tokens=int(u.get("output_tokens") or 0),
        calls=int(u.get("calls") or 0),
        cost=u.get("cost", 0.0) if "cost" in u else 0.0,
        cached_calls=int(u.get("cached_calls") or 0),
        retries=int(u.get("retries") or 0),
    )


class UsageSum:
    """A running total of usage dicts: `add`ing them one by one gives what folding them with
    `add_usage` gives (the same rounding at every step: cost to 8 digits, latency to 4), without a
    `Usage` and a dict per addition, which was a third of a large run's summary."""

    __slots__ = ("input_tokens", "output_tokens", "calls", "cached_calls", "retries", "cost", "extras")

    def __init__(self, start: dict[str, Any] | None = None) -> None:
        u = usage_of(start)
        self.input_tokens, self.output_tokens, self.calls = u.input_tokens, u.output_tokens, u.calls
        self.cached_calls, self.retries, self.cost = u.cached_calls, u.retries, u.cost
        start = start or {}
        self.extras = {k: start[k] for k, _ in USAGE_EXTRAS if isinstance(start.get(k), int | float)}

    def add(self, data: dict[str, Any] | None) -> UsageSum:
        d = data or {}
        self.input_tokens += int(d.get("input_tokens") or 0)
        self.output_tokens += int(d.get("output_tokens") or 0)
        self.calls += int(d.get("calls") or 0)
        self.cached_calls += int(d.get("cached_calls") or 0)
        self.retries += int(d.get("retries") or 0)
        cost = d.get("cost", 0.0)
        # cost becomes unknown as soon as one call has no price
        self.cost = None if self.cost is None or cost is None else round(self.cost + cost, 8)
        for extra, digits in USAGE_EXTRAS:
            value = d.get(extra)
            if isinstance(value, int | float):
                values = [self.extras[extra], value] if extra in self.extras else [value]
                self.extras[extra] = round(sum(values), digits) if digits else sum(values)
        return self

    def to_dict(self) -> dict[str, Any]:
        out = Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            calls=self.calls,
            cost=self.cost,
            cached_calls=self.cached_calls,
            retries=self.retries,
        ).to_dict()
        out.update((k, self.extras[k]) for k, _ in USAGE_EXTRAS if k in self.extras)
        return out


def add_usage(total: dict[str, Any], data: dict[str, Any] | None) -> dict[str, Any]:
    """`total` plus one usage dict, as a usage dict; `reasoning_tokens`, `latency_s` and
    `failed_calls` add up too when either side has them."""
    return UsageSum(total).add(data).to_dict()


def usage_totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Usage over the records: total, per seat (`by_role`), per model (`by_model`) and per seat,
    purpose and model (`breakdown`, rows)."""
    total = UsageSum()
    by_role: dict[str, UsageSum] = {}
    by_model: dict[str, UsageSum] = {}
    breakdown: dict[tuple[str, str, str], UsageSum] = {}
    for r in records:
        total.add(r.get("usage"))
        for role, u in (r.get("usage_by_role") or {}).items():
            (by_role.get(role) or by_role.setdefault(role, UsageSum())).add(u)
        for model, u in (r.get("usage_by_model") or {}).items():
            (by_model.get(model) or by_model.setdefault(model, UsageSum())).add(u)
        for row in r.get("usage_breakdown") or []:
            key = (str(row.get("role")), str(row.get("purpose")), str(row.get("model")))
            (breakdown.get(key) or breakdown.setdefault(key, UsageSum())).add(row)
    return {
        "total": total.to_dict(),
        "by_role": {role: u.to_dict() for role, u in sorted(by_role.items())},
        "by_model": {model: u.to_dict() for model, u in sorted(by_model.items())},
        "breakdown": [
            {"role": role, "purpose": purpose, "model": model, **u.to_dict()}
            for (role, purpose, model), u in sorted(breakdown.items())
        ],
    }


def error_messages(records: list[dict[str, Any]], keep: int = ERROR_MESSAGES_KEPT) -> dict[str, int]:
    """The most common error messages of errored records, with their counts (most common first)."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("error"):
            message = str(r["error"]).strip().splitlines()[0][:300]
            counts[message] = counts.get(message, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:keep])


def error_kinds(records: list[dict[str, Any]]) -> dict[str, int]:
    """Errored episodes by kind: output_budget, refusal, model_call, exception (older records: unknown)."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("error"):
            kind = str(r.get("error_kind") or "unknown")
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def _task_extras(task_id: str, records: list[dict[str, Any]], options: dict[str, Any] | None) -> dict:
    from playbench.core.registry import get_spec

    try:
        spec = get_spec(task_id)
        return spec.load_class()(**(options if options is not None else spec.options)).summarize(records)
    except Exception as exc:  # a summary must still be written if a task's extras fail
        return {"error": f"{type(exc).__name__}: {exc}"}


def summarize(
    records: list[dict[str, Any]], task_options: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Per task (and agent/model): `episodes` (all), `scored` (without an error), `errors`,
    `instances` (the independent units of the scored episodes), and every aggregate over the scored
    episodes with a 95% interval; repeated trials of an instance are reduced to its mean first."""
    groups: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["task"], rec["agent"], rec.get("model")), []).append(rec)
    tasks: dict[str, Any] = {}
    for (task_id, agent, model), recs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")
    ):
        recs.sort(key=lambda r: (str(r["instance_id"]), r["trial"]))
        scored = [r for r in recs if not r.get("error")]
        units = [str(r["instance_id"]) for r in scored]
        usage = usage_totals(recs)  # errored episodes cost money too
        entry: dict[str, Any] = {
            "task": task_id,
            "agent": agent,
            "model": model,
            "episodes": len(recs),
            "scored": len(scored),
            "errors": len(recs) - len(scored),
            "instances": len(set(units)),
            "success": proportion([bool(r["success"]) for r in scored], units),
            "steps": mean([r["steps"] for r in scored], units=units),
            "metrics": aggregate_metrics([r.get("metrics") or {} for r in scored], units),
            "usage": usage["total"],
            "usage_by_role": usage["by_role"],
            "usage_by_model": usage["by_model"],
            "usage_breakdown": usage["breakdown"],
        }
        turns = [
            (u, r["turns"]) for u, r in zip(units, scored, strict=True) if isinstance(r.get("turns"), int)
        ]
        if turns:
            entry["turns"] = mean([t for _, t in turns], units=[u for u, _ in turns])
        if entry["errors"]:
            entry["error_messages"] = error_messages(recs)
            entry["error_kinds"] = error_kinds(recs)
        truncated = sum(int(r.get("truncated_replies") or 0) for r in recs)
        if truncated:
            entry["truncated_replies"] = truncated
        terminations: dict[str, int] = {}
        for r in recs:
            word = str(r.get("termination") or "unrecorded")
            terminations[word] = terminations.get(word, 0) + 1
        entry["termination"] = dict(sorted(terminations.items()))
        optimal = [
            (u, r["optimal_steps"])
            for u, r in zip(units, scored, strict=True)
            if r.get("optimal_steps") is not None
        ]
        if optimal:
            entry["optimal_steps"] = mean([v for _, v in optimal], units=[u for u, _ in optimal])
        extra = _task_extras(task_id, scored, (task_options or {}).get(task_id)) if scored else {}
        if extra:
            entry["extra"] = extra
        label = task_id if sum(1 for k in groups if k[0] == task_id) == 1 else f"{task_id} [{agent}]"
        tasks[label] = entry
    errors = sum(1 for r in records if r.get("error"))
    return {
        "tasks": tasks,
        "episodes": len(records),
        "scored": len(records) - errors,
        "errors": errors,
        "error_kinds": error_kinds(records),
        "truncated_replies": sum(int(r.get("truncated_replies") or 0) for r in records),
        "instances": len({(r["task"], str(r["instance_id"])) for r in records if not r.get("error")}),
    }
