"""VisEscape stepping: a reply read as the paper's runner reads it, an action checked and played, the
step recorded (mixed into `VisEscapeTask`, `task.py`)."""

from __future__ import annotations

import re
from typing import Any

from playbench.core.episode import ParseError
from playbench.core.types import StepResult, Validity
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.engine import ANSWER_ACTION, Outcome, View
from playbench.tasks.visescape.replies import Reply, read_reply, retry_feedback
from playbench.tasks.visescape.validator import clues_read

# what an action must look like to be an action at all with `lenient_actions`
ACTION_GRAMMAR = re.compile(r"(turn_to_\w+|step_back|(inspect|pick|use|press) \S+|[a-z][a-z0-9_]*)")


class Stepping:
    """Reading a reply and playing it: `_parse`, `_apply` and their helpers, over the task's engine,
    state and options (`task.py`)."""

    def _offered(self) -> tuple[list[str], bool]:
        """The available actions as listed (without the answer slot) and whether a typed answer is taken."""
        available = self.engine.available(self._state)
        return [a for a in available if a != ANSWER_ACTION], ANSWER_ACTION in available

    def _parse(self, text: str) -> Reply | ParseError:
        available, takes_answer = self._offered()
        reply = read_reply(text, available, takes_answer)
        if reply is None and self.config.lenient_actions:
            canon = self.engine.canonical(text.strip().splitlines()[-1] if text.strip() else "")
            if canon in available:
                reply = Reply(canon)
        if reply is None:
            return ParseError("No action was found in the reply.", reason="unparseable")
        if self.config.lenient_actions and not reply.answer and reply.action not in available:
            canon = self.engine.canonical(reply.action)
            if ACTION_GRAMMAR.fullmatch(canon) and canon in available:
                reply = Reply(canon)
        return reply

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return self._reject("", error.reason, unparseable=True)

    def _apply(self, reply: Reply) -> StepResult:
        available, _ = self._offered()
        if reply.answer:
            return self._play(f"<ANSWER>{reply.action}</ANSWER>", answered=reply.action)
        if reply.action not in available:
            return self._reject(reply.action, "unavailable")
        return self._play(reply.action)

    def _reject(self, action: str, reason: str, unparseable: bool = False) -> StepResult:
        """The original agents ask the model again (the retry prompt); after `retry_limit` failed
        retries they play the first action of their shuffled list, a random available action. An
        unreadable reply away from a lock gets that action at once (`unreadable`, see protocol.py)."""
        self._invalid += 1
        self._retries += 1
        available, takes_answer = self._offered()
        self._rejection = retry_feedback(action, available)
        self._rejected = action
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        at_once = pc.unreadable_ends_turn(
            self.config.unreadable, unparseable=unparseable, takes_answer=takes_answer, streak=self._retries
        )
        if not at_once and self._retries <= self.config.retry_limit:
            return StepResult(
                validity, self._rejection, parsed=action or None, reason=reason, info={"step_spent": False}
            )
        self._retries = 0
        why = "unreadable" if at_once else "retries"
        if self.config.fallback == "random_action":
            chosen = pc.fallback_choice(self.episode_seed, self.instance.id, self._steps, available)
            rejection = self._rejection
            result = self._play(chosen)
            result.feedback = pc.fallback_note(chosen, at_once, rejection)
            result.info["fallback"] = chosen
            result.info["fallback_after"] = why
            return result
        self._progress.note_hint(self.hint_text())
        self._record_step(changed=False, new_cps=[])
        self._log.record(self._steps + 1, action or "(no action)", self._location(), False)
        self._rejection += (
            " (No action was found: this reply cost a step.)"
            if at_once
            else " (Retries used up: this reply cost a step.)"
        )
        return StepResult(
            validity,
            self._rejection,
            parsed=action or None,
            reason=reason,
            info={"step_spent": True, "fallback_after": why},
        )

    def _location(self) -> str:
        """Where the agent is, as the original's action memory prefixes it ("At desk, ")."""
        v = self._state.view
        if v[0] == "wall":
            return f"At {v[1].upper()} side of room, "
        return f"At {v[1]}, "

    def _play(self, action: str, answered: str | None = None) -> StepResult:
        engine = self.engine
        before = self._state
        location = self._location()
        objects = self.view_objects()
        self._progress.note_hint(self.hint_text())
        outcome: Outcome = engine.apply(before, action)
        self._retries = 0
        self._rejection = ""
        self._rejected = None
        self._situations[(before, action)] += 1
        if outcome.lock is not None:
            self._answers += 1
            if outcome.wrong_answer is not None:
                self._wrong.setdefault(outcome.lock, set()).add(outcome.wrong_answer)
        self._state = outcome.state
        self._read = self._read | clues_read(engine, outcome.state)
        self._seen_scenes.append(self._views.render_key(self._state))
        new_cps = [t for t in engine.checkpoints if t in outcome.state.triggers and t not in self._reached_at]
        self._log.record(
            self._steps + 1, answered if answered is not None else action, location, answered is not None
        )
        self._record_step(changed=outcome.state.triggers != before.triggers, new_cps=new_cps)
        self._feedback = outcome.feedback
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info: dict[str, Any] = {
            "checkpoints": new_cps,
            "fired": outcome.fired,
            "view": _jsonable_view(self._state.view),
            "view_objects": objects,  # what the view the action was taken from showed (Table 9's truth)
        }
        if outcome.lock is not None:
            info["lock"] = {"id": outcome.lock, "correct": outcome.wrong_answer is None}
        shown = outcome.feedback if self.config.feedback else f"Action taken: {action}."
        return StepResult(validity, shown, parsed=action, info=info)

    def _record_step(self, changed: bool, new_cps: list[str]) -> None:
        """Bookkeeping of a step that counts; the template counts it right after `_apply`."""
        number = self._steps + 1
        for t in new_cps:
            self._reached_at[t] = number
        self._progress.after_step(changed)
        self._gc_curve.append(len(self._reached_at) / len(self.engine.checkpoints))

    def _cleared(self) -> bool:
        return self.engine.cleared(self._state)


def _jsonable_view(view: View) -> list[Any]:
    """A view as JSON data: `["wall", dir]`, `["rec", id]` or `["item", id, parent view]`."""
    return [_jsonable_view(x) if isinstance(x, tuple) else x for x in view]
