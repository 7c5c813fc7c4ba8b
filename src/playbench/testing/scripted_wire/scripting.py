"""What a test scripts: `ScriptedReply` (an answer with reasoning, finish reason or a blocked
prompt), `ScriptedFailure` (an HTTP error to answer with) and the fault kinds; how each looks on the
wire is described in `playbench.testing.scripted_server`'s module docstring."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from playbench.testing.scripted_wire.requests import estimate_tokens

# What the "no_action" fault answers: plausible model prose in which no task finds an action.
NO_ACTION_REPLY = "I am not sure."

FAULT_KINDS = frozenset({"timeout", "drop", "truncated", "empty_choices", "no_action", "ok"})

FINISHES = ("stop", "length", "filter", "refusal")
# ScriptedReply.finish in each protocol's words (see the table in scripted_server's docstring).
_FINISH_WIRE = {
    "openai": {"stop": "stop", "length": "length", "filter": "content_filter", "refusal": "stop"},
    "anthropic": {"stop": "end_turn", "length": "max_tokens", "filter": "refusal", "refusal": "refusal"},
    "google": {"stop": "STOP", "length": "MAX_TOKENS", "filter": "SAFETY", "refusal": "SAFETY"},
}


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer with more than text: reasoning, its token count, how it ended, a blocked
    prompt. See scripted_server's module docstring for how each field looks on each protocol's wire."""

    text: str = ""
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    finish: str = "stop"
    finish_reason: str | None = None  # put on the wire as it is, instead of `finish`'s mapping
    blocked: str | None = None  # a Gemini prompt block reason: no candidates at all

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise ValueError(f"ScriptedReply.text must be a string (got {self.text!r})")
        for name in ("reasoning", "finish_reason", "blocked"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or (name != "reasoning" and not value)):
                raise ValueError(f"ScriptedReply.{name} must be a non-empty string or None (got {value!r})")
        r = self.reasoning_tokens
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 0):
            raise ValueError(f"ScriptedReply.reasoning_tokens must be an integer >= 0 (got {r!r})")
        if self.finish not in FINISHES:
            raise ValueError(
                f"unknown ScriptedReply.finish {self.finish!r}: expected one of {', '.join(FINISHES)}"
            )

    @property
    def thinking_tokens(self) -> int:
        """The reasoning's token count as usage reports it."""
        if self.reasoning_tokens is not None:
            return self.reasoning_tokens
        return estimate_tokens(self.reasoning or "")

    @property
    def has_reasoning(self) -> bool:
        return self.reasoning is not None or self.reasoning_tokens is not None

    def wire_finish(self, protocol: str) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        finish = "filter" if self.blocked is not None else self.finish
        return _FINISH_WIRE[protocol][finish]


Reply = str | ScriptedReply | Mapping[str, Any]
Responder = Reply | Sequence[Reply] | Callable[[dict[str, Any]], Reply]


def as_reply(value: object) -> ScriptedReply:
    """A responder's reply as a ScriptedReply: a string is its text; a mapping gives the fields."""
    if isinstance(value, ScriptedReply):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - set(ScriptedReply.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown ScriptedReply field(s) {', '.join(sorted(map(str, unknown)))}")
        return ScriptedReply(**value)
    return ScriptedReply(text=str(value))


class ScriptedFailure(Exception):  # noqa: N818 - reads as what the responder wants: a failure
    """An HTTP error to answer with: raised by a responder callable, or an entry of `faults`.

    `retry_after` (seconds) adds a Retry-After header; None sends none.
    """

    def __init__(self, status: int, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(message or f"scripted failure (HTTP {status})")
        self.status = status
        self.message = message or f"scripted failure (HTTP {status})"
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickling replays only args; keep the status and header too.
        return (type(self), (self.status, self.message, self.retry_after))

    def __repr__(self) -> str:
        return f"ScriptedFailure({self.status!r}, {self.message!r}, retry_after={self.retry_after!r})"


Fault = int | ScriptedFailure | str | None


def _check_fault(fault: object) -> Fault:
    # bool is an int: True would silently become HTTP 1
    if isinstance(fault, bool) or not (
        fault is None
        or isinstance(fault, int | ScriptedFailure)
        or (isinstance(fault, str) and fault in FAULT_KINDS)
    ):
        raise ValueError(
            f"unknown fault {fault!r}: expected an HTTP status, a ScriptedFailure, None or one of "
            f"{', '.join(sorted(FAULT_KINDS))}"
        )
    if isinstance(fault, int) and not 100 <= fault <= 599:
        raise ValueError(f"fault status {fault} is not an HTTP status")
    return cast(Fault, fault)


def _fault_name(fault: Fault) -> str | None:
    if fault is None or fault == "ok":
        return None
    if isinstance(fault, ScriptedFailure):
        return str(fault.status)
    return str(fault)
