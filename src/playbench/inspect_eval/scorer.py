"""The scorer: the episode's success as Inspect's CORRECT / INCORRECT, its scalar metrics beside it.

An episode that ended with an error (a failed model call, a reply whose output budget ran out, a
refusal) is scored INCORRECT, as its record says (`success` false), and counted by the `errors`
metric; its `termination` and `error_kind` are in the score's metadata. playbench's own summaries
leave such episodes out of every rate; `accuracy` here does not, so check `errors` (0 in a clean run).
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from playbench.inspect_eval.solver import RECORD_KEY


def scalar_metrics(metrics: dict[str, Any]) -> dict[str, float | int | bool]:
    """The task's metrics that are single finite numbers or booleans (lists and tables stay in the record)."""
    out: dict[str, float | int | bool] = {}
    for name, value in metrics.items():
        if isinstance(value, bool) or (isinstance(value, int | float) and math.isfinite(value)):
            out[name] = value
    return out


@metric
def errors() -> Metric:
    """How many samples' episodes ended with an error (left out of playbench's own rates)."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(1 for s in scores if (s.score.metadata or {}).get("error_kind")))

    return compute


@scorer(metrics=[accuracy(), stderr(), errors()])
def playbench_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        record = state.metadata.get(RECORD_KEY)
        if record is None:
            return Score(
                value=INCORRECT, explanation="the episode was not played", metadata={"error_kind": "missing"}
            )
        optimal = record.get("optimal_steps")
        explanation = f"{record['termination']} after {record['steps']} steps" + (
            f" (optimal {optimal})" if optimal is not None else ""
        )
        if record.get("error"):
            explanation += f"; error ({record.get('error_kind')}): {record['error']}"
        return Score(
            value=CORRECT if record["success"] else INCORRECT,
            answer=record["termination"],
            explanation=explanation,
            metadata={
                "success": record["success"],
                "steps": record["steps"],
                "optimal_steps": optimal,
                "termination": record["termination"],
                "error_kind": record.get("error_kind"),
                "metrics": scalar_metrics(record.get("metrics") or {}),
            },
        )

    return score
