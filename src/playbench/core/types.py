"""Plain data passed between tasks, agents, models and the runner."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


@dataclass(frozen=True)
class TextPart:
    text: str


IMAGE_FORMATS = ("png", "jpeg")
IMAGE_DETAILS = ("low", "high", "auto")


@dataclass(frozen=True)
class ImagePart:
    """A PNG image. It stays PNG bytes until a model backend encodes it for the wire: as PNG, or as
    JPEG when `send_as` says so (an original that sent JPEG), with `detail` ("low", "high", "auto")
    where the provider takes one (OpenAI's image detail; None sends none)."""

    png: bytes
    label: str = ""
    send_as: str = "png"
    detail: str | None = None

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.png).hexdigest()[:16]


Part = TextPart | ImagePart


@dataclass
class Turn:
    """One message of a conversation a task builds itself (`Observation.turns`)."""

    role: str  # "user" or "assistant"
    parts: list[Part]


@dataclass
class Observation:
    """What one role sees before acting.

    `parts` is the ordered content (text and images) of this turn's message to the agent;
    `instructions` the task's public instructions (the system prompt for a model);
    `legal_actions` the actions the paper lets the agent see, or the moves that change the state
    (what the random baseline samples from); `feedback` the result of the previous action;
    `data` the same public facts as structured values (the current view, the inventory, ...), so a
    suite's own agents read data instead of scraping `text`. `data` never holds hidden state, and a
    model is never shown it: only `parts` and `instructions` reach a model.
    """

    role: str
    parts: list[Part]
    instructions: str = ""
    legal_actions: list[str] = field(default_factory=list)
    feedback: str = ""
    step: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    # For an agent that keeps a real chat (`history`): how this seat's previous reply stands in the
    # conversation when the original kept a cleaned form of it (MM-Escape keeps the parsed JSON), or
    # None to keep it as sent; and `reask`: this turn asks again after an unusable reply, whose
    # exchange the original dropped from the conversation.
    reply_in_history: str | None = None
    reask: bool = False
    # The original's own conversation before this turn's message, rebuilt by the task at every turn
    # when the original's chat is not a window of earlier exchanges (iVISPAR renumbers its past turns
    # and shows only past states; COMMA sends a second user message): a model receives the system prompt,
    # these turns, then `parts` as the last user message; the agent keeps no window of its own then.
    turns: list[Turn] | None = None

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    def shown_parts(self) -> list[Part]:
        """Everything a model receives after the instructions, for a person or a record: the task's own
        earlier turns (each headed by who said it), then this turn's parts."""
        if not self.turns:
            return list(self.parts)
        out: list[Part] = []
        for i, turn in enumerate(self.turns, 1):
            who = "your reply" if turn.role == "assistant" else "shown"
            out.append(TextPart(f"[earlier message {i}, {who}]"))
            out.extend(turn.parts)
        out.append(TextPart("[this turn]"))
        out.extend(self.parts)
        return out

    @property
    def all_images(self) -> list[ImagePart]:
        """The images of the earlier turns and of this turn, in the order a model receives them."""
        parts = [p for t in self.turns or [] for p in t.parts] + list(self.parts)
        return [p for p in parts if isinstance(p, ImagePart)]

    @property
    def images(self) -> list[ImagePart]:
        return [p for p in self.parts if isinstance(p, ImagePart)]


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cost: float | None = 0.0
    cached_calls: int = 0
    retries: int = 0  # attempts that failed and were retried (429, 5xx, timeouts, malformed replies)

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.retries += other.retries
        # cost becomes unknown as soon as one call has no price
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "retries": self.retries,
            "cost": None if self.cost is None else round(self.cost, 8),
        }


@dataclass
class Action:
    """An agent's move. `text` goes to the task, which parses it; `raw` is the full model output."""

    text: str
    raw: str | None = None
    rationale: str | None = None
    usage: Usage = field(default_factory=Usage)


class Validity(StrEnum):
    EFFECTIVE = "effective"
    INEFFECTIVE = "ineffective"
    INVALID = "invalid"
    UNPARSEABLE = "unparseable"


@dataclass
class StepResult:
    """How the task judged one action.

    `invalid` means rule-illegal (`reason` says which rule: `occupied`, `out_of_bounds`, ...);
    `unparseable` a format error. Neither changes the state. `parsed` is the canonical action
    the task understood, if any.
    """

    validity: Validity
    feedback: str
    parsed: str | None = None
    reason: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Progress:
    """How far the current state is from the goal, for error maps (`Task.progress`). `distance`: the
    oracle's count of steps from this state to the goal (0 at the goal; None where the task has no exact
    one); `fraction`: the task's own progress measure in [0, 1] (1 at the goal; chain progress, FSM
    progress, coverage), None where it has none."""

    distance: int | None = None
    fraction: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"distance": self.distance, "fraction": self.fraction}


@dataclass
class EpisodeResult:
    """A finished (or interrupted) episode as the task scores it. `termination` says why it ended
    (a `Termination` value); None only from a task that does not track it."""

    success: bool
    steps: int
    metrics: dict[str, Any] = field(default_factory=dict)
    termination: str | None = None
