"""summary.json: per task (and agent/model), episode and instance counts and every aggregate metric
with a 95% interval that treats the instance, not the trial, as the independent unit."""

from __future__ import annotations

from typing import Any

from playbench.core.metrics import aggregate_metrics, mean, proportion
from playbench.core.types import Usage


def _usage_total(records: list[dict[str, Any]]) -> Usage:
    usage = Usage()
    for r in records:
        u = r.get("usage") or {}
        usage.add(
            Usage(
                input_tokens=u.get("input_tokens", 0),
                output_tokens=u.get("output_tokens", 0),
                calls=u.get("calls", 0),
                cost=u.get("cost"),
                cached_calls=u.get("cached_calls", 0),
                retries=u.get("retries", 0),
            )
        )
    return usage


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
    """Per task (and agent/model): `episodes`, `instances` (the independent units), errors, and every
    aggregate with a 95% interval; repeated trials of an instance are reduced to its mean first."""
    groups: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["task"], rec["agent"], rec.get("model")), []).append(rec)
    tasks: dict[str, Any] = {}
    for (task_id, agent, model), recs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")
    ):
        recs.sort(key=lambda r: (str(r["instance_id"]), r["trial"]))
        units = [str(r["instance_id"]) for r in recs]
        entry: dict[str, Any] = {
            "task": task_id,
            "agent": agent,
            "model": model,
            "episodes": len(recs),
            "instances": len(set(units)),
            "errors": sum(1 for r in recs if r.get("error")),
            "success": proportion([bool(r["success"]) for r in recs], units),
            "steps": mean([r["steps"] for r in recs], units=units),
            "metrics": aggregate_metrics([r.get("metrics") or {} for r in recs], units),
            "usage": _usage_total(recs).to_dict(),
        }
        terminations: dict[str, int] = {}
        for r in recs:
            word = str(r.get("termination") or "unrecorded")
            terminations[word] = terminations.get(word, 0) + 1
        entry["termination"] = dict(sorted(terminations.items()))
        optimal = [
            (u, r["optimal_steps"])
            for u, r in zip(units, recs, strict=True)
            if r.get("optimal_steps") is not None
        ]
        if optimal:
            entry["optimal_steps"] = mean([v for _, v in optimal], units=[u for u, _ in optimal])
        extra = _task_extras(task_id, recs, (task_options or {}).get(task_id))
        if extra:
            entry["extra"] = extra
        label = task_id if sum(1 for k in groups if k[0] == task_id) == 1 else f"{task_id} [{agent}]"
        tasks[label] = entry
    return {
        "tasks": tasks,
        "episodes": len(records),
        "instances": len({(r["task"], str(r["instance_id"])) for r in records}),
    }
