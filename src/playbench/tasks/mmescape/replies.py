"""MM-Escape's replies: reading the player's reply, applying it, the original's re-ask of an unusable
reply (`replies=retry`) or its invalid step (`replies=step`), and what a step leaves in the history.

`RepliesMixin` is a part of `EscapeTask` (task.py), which mixes it in and holds the episode's state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from playbench.core.episode import ParseError
from playbench.core.termination import Termination
from playbench.core.types import StepResult, Validity
from playbench.tasks.mmescape.actions import Action, RangeError
from playbench.tasks.mmescape.actions import ParseError as ActionParseError
from playbench.tasks.mmescape.chain import Chain
from playbench.tasks.mmescape.engine import Outcome
from playbench.tasks.mmescape.observation import PastStep

RETRY_NOTE = "The reply was not used; the same turn is asked again."


@dataclass(frozen=True)
class OutOfRange:
    """A readable action JSON with a value out of range: an invalid step."""

    message: str
    text: str


@dataclass(frozen=True)
class StoryAnswer:
    """The player's reply to the debriefing."""

    text: str


class RepliesMixin:
    """`EscapeTask`'s stepping (its attributes are set by `EscapeTask._begin`)."""

    _phase: str
    _parse_reply: Any
    _state: Any
    _rules: Any
    _observed: Any
    _retries: int
    _story_answer: str | None
    _usable_reply: str | None
    _chat_reply: str | None
    _reask: bool
    _pending: Any
    _feedback: str
    _history: list[PastStep]
    _grabs: int
    _grab_successes: int
    _interactions: list[tuple[str, str]]
    _obtained: set[str]
    _core: set[str]
    _core_step: int | None
    _invalid: int
    _unparseable: int
    _chains: list[Chain]
    _steps: int
    config: Any

    def _parse(self, text: str) -> Action | OutOfRange | StoryAnswer | ParseError:
        if self._phase == "debrief":
            return StoryAnswer(text.strip()[:8000])
        try:
            return self._parse_reply(text)
        except ActionParseError as exc:
            return ParseError(
                f"Could not read your action: {exc}.",
                "format",
                text.strip()[:80] if isinstance(text, str) else "",
            )
        except RangeError as exc:
            return OutOfRange(f"Invalid action: {exc}.", text)

    def _apply(self, parsed: Action | OutOfRange | StoryAnswer) -> StepResult:
        if isinstance(parsed, StoryAnswer):
            self._story_answer = parsed.text
            return StepResult(
                Validity.EFFECTIVE,
                "Thank you, your account of the story was recorded.",
                parsed="story",
                info={"phase": "debrief"},
            )
        if isinstance(parsed, OutOfRange):
            return self._reject(
                Validity.INVALID, "out_of_range", parsed.message, json.dumps(parsed.text.strip()[:80])
            )
        action = parsed
        state = self._state
        before = (state.pose_key(), state.visual())
        centre = None
        if self._observed is not None and self._observed[0] == before[0] and self._observed[1] == before[1]:
            centre = self._observed[2]
        outcome = self._rules.apply(state, action, centre_entity=centre)
        if outcome.invalid:
            return self._reject(Validity.INVALID, "not_in_bag", outcome.invalid, action.canonical(), action)
        self._retries = 0
        self._count(action, outcome, self._steps + 1)  # the template counts this step after _apply
        if state.escaped and self.config.debrief and any(self._level_story(c) for c in self._chains):
            self._phase = "debrief"
        self._usable_reply = action.reply_json()
        self._pending = (
            before[0],
            before[1],
            action.canonical(),
            outcome.key_step,
            action.rationale,
            self._turn_text(),
            self._usable_reply,
        )
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info = {
            "phase": "play",
            "escaped": state.escaped,
            "grab": outcome.grabbed,
            "grab_success": outcome.grab_success,
            "grab_targets": [self._rules.entity_name(t) for t in outcome.targets],
            "moved": round(outcome.moved, 4),
            "obtained": list(outcome.obtained),
            "opened": list(outcome.opened),
            "read": outcome.read,
            "key_step": outcome.key_step,
            "pose": dict(zip(("x", "z", "yaw", "pitch"), state.pose_key(), strict=True)),
            "bag": list(state.bag),
        }
        return StepResult(validity, outcome.feedback, parsed=action.canonical(with_rationale=True), info=info)

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return self._reject(Validity.UNPARSEABLE, error.reason, error.message, json.dumps(error.snippet))

    def _reject(
        self, validity: Validity, reason: str, message: str, shown: str, action: Action | None = None
    ) -> StepResult:
        """An unparseable or invalid reply: nothing changes. With `replies=step` it is a step and
        enters the history; with `replies=retry` (the original) the same turn is asked again, and
        `max_retries` such replies in a row end the episode."""
        if validity == Validity.UNPARSEABLE:
            self._unparseable += 1
        else:
            self._invalid += 1
        parsed = action.canonical(with_rationale=True) if action else None
        if self.config.replies == "retry":
            self._retries += 1
            info = {"phase": "play", "retry": self._retries}
            if self._retries >= self.config.max_retries:
                self.end(Termination.MISTAKE_LIMIT)
                note = f"{self._retries} unusable replies in a row: the game ends, as the original's does."
                return StepResult(validity, f"{message} {note}", parsed=parsed, reason=reason, info=info)
            return StepResult(validity, f"{message} {RETRY_NOTE}", parsed=parsed, reason=reason, info=info)
        state = self._state
        self._pending = (
            state.pose_key(),
            state.visual(),
            shown,
            False,
            action.rationale if action else "",
            self._turn_text(),
            shown,
        )
        return StepResult(
            validity, message + " Nothing changed.", parsed=parsed, reason=reason, info={"phase": "play"}
        )

    def _count(self, action: Action, out: Outcome, step: int) -> None:
        if out.grabbed:
            self._grabs += 1
            if out.grab_success:
                self._grab_successes += 1
            if out.interaction is not None:
                self._interactions.append((action.rationale, out.interaction))
        for item in out.obtained:
            self._obtained.add(item)
            if item in self._core and self._core_step is None:
                self._core_step = step
        for what in out.opened:
            self._obtained.add(what)

    def _counts_step(self, role: str, result: StepResult) -> bool:
        if result.info.get("phase") == "debrief":
            return False
        # the original re-asks an unusable reply without using a step
        return "retry" not in result.info

    def _check_end(self, result: StepResult) -> Termination | None:
        if self._story_answer is not None or (self._state.escaped and self._phase == "play"):
            return Termination.GOAL_REACHED
        return None

    def _end_feedback(self, termination: Termination) -> str:
        if termination == Termination.STEP_CAP:
            return f"You have used all {self._play_cap()} steps without escaping."
        return ""

    def _after_step(self, role: str, result: StepResult) -> None:
        if "retry" in result.info:
            # the original asks the same turn again: nothing the player is shown changes, and the
            # unusable exchange is not kept in its conversation (the reply before it stands as it was)
            self._reask, self._chat_reply = True, None
            return
        # a usable reply stands in the conversation as the original keeps it; an unusable one that
        # was a step (replies=step) as it was sent
        self._reask = False
        self._chat_reply, self._usable_reply = self._usable_reply, None
        # the feedback, cap note included, is shown next turn and kept in the history
        self._feedback = result.feedback
        if self._pending is not None:
            pose, visual, shown, key, rationale, turn_text, reply = self._pending
            self._history.append(
                PastStep(self._steps, pose, visual, shown, result.feedback, key, rationale, turn_text, reply)
            )
            self._pending = None

    @staticmethod
    def _level_story(chain: Chain) -> str | None:
        """The level's own story (what the judge compares with): the chain's story, else its story note's."""
        return chain.story or chain.story_text()
