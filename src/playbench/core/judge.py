"""A judge phase: after an episode ends, a judge seat answers a queue of questions about it.

COMMA labels a failed conversation; MM-Escape scores the recovered story and the consistency of
interactions. Both are the same shape: show the judge one question, read one verdict from its
reply (or count the reply as unreadable), move on until the queue is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playbench.core.types import Observation, Part, StepResult, TextPart, Validity

JUDGE_ROLE = "judge"


@dataclass(frozen=True)
class JudgeQuestion:
    """One question for the judge. `read` returns the verdict found in a reply, or None."""

    kind: str  # what is judged, e.g. "failure_label", "story", "consistency"
    prompt: list[Part]
    read: Callable[[str], Any | None]
    expected: str  # the reply format, named in the feedback on an unreadable reply
    oracle: str  # the rule-based stand-in reply the oracle agent gives
    instructions: str = ""
    legal_actions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    kind: str
    value: Any | None  # None: the reply could not be read
    reply: str


class JudgePhase:
    """The queue of questions and the verdicts given so far."""

    MAX_REPLY_CHARS = 8000

    def __init__(self, questions: list[JudgeQuestion]) -> None:
        self._queue = list(questions)
        self.verdicts: list[Verdict] = []

    @property
    def pending(self) -> bool:
        return bool(self._queue)

    @property
    def unreadable(self) -> int:
        return sum(1 for v in self.verdicts if v.value is None)

    def values(self, kind: str) -> list[Any]:
        """The readable verdicts of one kind, in order."""
        return [v.value for v in self.verdicts if v.kind == kind and v.value is not None]

    def replied(self, kind: str) -> bool:
        return any(v.kind == kind for v in self.verdicts)

    def observe(self, step: int) -> Observation:
        if not self._queue:
            return Observation(role=JUDGE_ROLE, parts=[TextPart("Nothing is left to judge.")], step=step)
        q = self._queue[0]
        return Observation(
            role=JUDGE_ROLE,
            parts=list(q.prompt),
            instructions=q.instructions,
            legal_actions=list(q.legal_actions),
            step=step,
            data={"judging": q.kind},
        )

    def step(self, text: str) -> StepResult:
        q = self._queue.pop(0)
        value = q.read(text)
        self.verdicts.append(Verdict(q.kind, value, text[: self.MAX_REPLY_CHARS]))
        info = {"phase": JUDGE_ROLE, "judging": q.kind}
        if value is None:
            return StepResult(
                Validity.UNPARSEABLE,
                f"The verdict could not be read (expected {q.expected}). Recorded as unreadable.",
                reason="format",
                info=info,
            )
        return StepResult(Validity.EFFECTIVE, f"Recorded: {value}.", parsed=str(value), info=info)

    def oracle_action(self) -> str | None:
        return self._queue[0].oracle if self._queue else None
