"""Typed records of a run: one `StepRecord` per trajectory line, one `EpisodeRecord` per line of
episodes.jsonl (docs/DESIGN.md, "Runner and outputs"). Readers get plain dicts of the same shape."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class StepRecord:
    """One step of one seat: what it saw, what it replied, how the task judged it."""

    step: int
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
    instructions: str | None = None  # the seat's instructions, on its first step only

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EpisodeRecord:
    """One finished episode. `termination` is a `Termination` value; `usage` totals every seat and
    `usage_by_role` splits it per seat."""

    task: str
    instance_id: str
    seed: int
    trial: int
    agent: str
    model: str | None
    roles: dict[str, str]
    success: bool
    steps: int
    optimal_steps: int | None
    metrics: dict[str, Any]
    termination: str
    error: str | None
    usage: dict[str, Any]
    usage_by_role: dict[str, dict[str, Any]]
    duration_s: float
    trajectory: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
