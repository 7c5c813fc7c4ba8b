"""The authors' rooms, stepping: a reply read as their runner reads it, an action checked and played in
the original's game, the step recorded (mixed into `OriginalTask`, `task.py`)."""

from __future__ import annotations

from typing import Any

from playbench.core.episode import ParseError
from playbench.core.types import StepResult, Validity
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.replies import Reply, read_reply, retry_feedback


class Stepping:
    """Reading a reply and playing it: `_parse`, `_apply` and their helpers, over the task's game,
    state and options (`task.py`)."""

    def _parse(self, text: str) -> Reply | ParseError:
        # the game takes an answer at any lock's close-up; the answer slot is shown only where the original
        # agents offer it (`takes_answer`: not at a lock whose name contains "key", such as room 9's Keyboard)
        reply = read_reply(text, self._game.available_actions(), self._game.accepts_answer())
        if reply is None:
            return ParseError("No action was found in the reply.", reason="unparseable")
        return reply

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return self._reject("", error.reason, unparseable=True)

    def _apply(self, reply: Reply) -> StepResult:
        if reply.answer:
            return self._play(reply.action, answered=True)
        if reply.action not in self._game.available_actions():
            return self._reject(reply.action, "unavailable")
        return self._play(reply.action, answered=False)

    def _reject(self, action: str, reason: str, unparseable: bool = False) -> StepResult:
        """The original agents ask the model again (the retry prompt); after `retry_limit` failed
        retries they play the first action of their shuffled list, a random available action. An
        unreadable reply where no answer is taken (their `isquiz()`) gets that action at once
        (`unreadable`, see protocol.py)."""
        self._invalid += 1
        self._retries += 1
        available = self._game.available_actions()
        self._rejection = retry_feedback(action, available)
        self._rejected = action
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        at_once = pc.unreadable_ends_turn(
            self.config.unreadable,
            unparseable=unparseable,
            takes_answer=self._game.takes_answer(),
            streak=self._retries,
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
            result = self._play(chosen, answered=False)
            result.feedback = pc.fallback_note(chosen, at_once, rejection)
            result.info["fallback"] = chosen
            result.info["fallback_after"] = why
            return result
        self._progress.note_hint(self.hint_text())
        self._record(changed=False)
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

    def _play(self, action: str, answered: bool) -> StepResult:
        game = self._game
        before = dict(game.triggers)
        snapshot = game.snapshot()
        situation = repr(snapshot)
        location = game.location()
        objects = self.view_objects()  # what the view the action is taken from shows (Table 9's truth)
        lock = game.item if answered else None
        self._progress.note_hint(self.hint_text())
        game.handle_action(action)
        self._retries = 0
        self._rejection = ""
        self._rejected = None
        self._situations[(situation, action)] += 1
        if lock is not None:
            self._answers += 1
            if f"solved_{lock}" not in game.triggers:
                self._wrong.setdefault(lock, set()).add(action)
        self._log.record(self._steps + 1, action, location, answered)
        self._seen.add(game.image())
        changed = game.triggers != before
        self._record(changed)
        info: dict[str, Any] = {
            "triggers": [t for t in game.triggers if t not in before],
            "image": game.image(),
            "view_objects": objects,
        }
        if lock is not None:
            info["lock"] = {"id": lock, "correct": f"solved_{lock}" in game.triggers}
        shown = f"<ANSWER>{action}</ANSWER>" if answered else action
        return StepResult(
            Validity.EFFECTIVE if game.snapshot() != snapshot else Validity.INEFFECTIVE,
            f"Action taken: {shown}.",
            parsed=shown,
            info=info,
        )

    def _record(self, changed: bool) -> None:
        self._progress.after_step(changed)
        self._gc_curve.append(self._gc())
        if self._essential:
            self._essential_curve.append(len(self._essential & self._seen) / len(self._essential))

    def _cleared(self) -> bool:
        return self._game.cleared()
