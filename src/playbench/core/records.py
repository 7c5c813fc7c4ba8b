"""Typed records of a run: one `StepRecord` per trajectory line, one `EpisodeRecord` per line of
episodes.jsonl (docs/DESIGN.md, "Runner and outputs"). Readers get plain dicts of the same shape.

Two counts, named the same everywhere: a **turn** is one seat's move (every trajectory line: a
solver's action, an expert's message, a judge's answer), a **step** is what the task counts (toward
its `max_steps`, and as the episode's `steps`). `turns` is the number of trajectory lines; a line's
`step` is the task's step count once that turn was played.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from typing import Any


@dataclass
class StepRecord:
    """One turn of one seat: what it saw, what it replied, how the task judged it."""

    turn: int  # 1-based position in the trajectory (every seat's turns)
    step: int | None  # the task's step count after this turn (None: the task does not report one)
    role: str
    observation: str
    images: list[dict[str, str]]  # {"file": path relative to trajectories/, "label": ...}
    feedback_before: str
    raw_output: str | None
    action: str
    rationale: str | None
    parsed: str | None
    validity: str
    reason: str | None
    feedback: str
    info: dict[str, Any]  # the task's structured account of the step (StepResult.info)
    usage: dict[str, Any]
    calls: int = 0  # model calls made for this turn (the calls file's lines with this `turn`)
    instructions: str | None = None  # the seat's instructions, on its first turn only
    # the task's own earlier turns sent before this turn's message (Observation.turns): role, text, images
    turns_before: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        # shallow: the values are plain JSON data made for this record (asdict's deep copy of every
        # step's info and usage was a measurable share of the runner's own time per step)
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class EpisodeRecord:
    """One finished episode. `termination` is a `Termination` value; `usage` totals every seat,
    `usage_by_role` splits it per seat, `usage_by_model` per model called, and `usage_breakdown` per
    seat, purpose ("act", "caption", ...) and model. `calls` is the calls file (None with `--no-calls`)."""

    task: str
    instance_id: str
    seed: int
    trial: int
    agent: str
    model: str | None
    roles: dict[str, str]
    success: bool
    steps: int
    turns: int
    optimal_steps: int | None
    metrics: dict[str, Any]
    termination: str
    error: str | None
    error_kind: str | None  # output_budget, refusal, model_call or exception (None without an error)
    truncated_replies: int  # replies with text that the output budget cut (they went to the task)
    usage: dict[str, Any]
    usage_by_role: dict[str, dict[str, Any]]
    usage_by_model: dict[str, dict[str, Any]]
    usage_breakdown: list[dict[str, Any]]
    duration_s: float
    trajectory: str
    calls: str | None

    def to_dict(self) -> dict[str, Any]:
        # shallow: the values are plain JSON data made for this record (asdict's deep copy of every
        # step's info and usage was a measurable share of the runner's own time per step)
        return {f.name: getattr(self, f.name) for f in fields(self)}


def finite(value: Any) -> Any:
    """`value` with every NaN or infinite float replaced by None, so the JSON written is valid JSON (a
    metric with no value, a mean over no episodes, is `null`, never a bare `NaN` other readers reject)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def finite_json(value: Any, **options: Any) -> str:
    """`json.dumps(finite(value), **options)`, without walking `value` first when it holds no NaN or
    infinity (nearly always): the walk was a third of writing an episode's record."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a NaN or infinite float somewhere: write it as null
        return json.dumps(finite(value), **options)
