"""VisEscape observing: what the player is shown each turn (the paper's turn, or our options' additions)
and the actions offered (mixed into `VisEscapeTask`, `task.py`)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from playbench.core.task import derive_seed
from playbench.core.types import ImagePart, Observation, Part, TextPart
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.engine import ANSWER_ACTION, view_wall


class Observing:
    """The turn's observation and the actions offered, over the task's engine, state and options
    (`task.py`)."""

    def legal_actions(self) -> list[str]:
        """The available actions, a lock's answer slot replaced by a few random answers."""
        engine = self.engine
        out: list[str] = []
        for a in engine.available(self._state):
            if a == ANSWER_ACTION:
                lock = engine.lock_in_view(self._state)
                assert lock is not None
                kind, params = engine.quiz_kind(lock)
                # seeded by the actions played, so a rejected reply (even one that spends a step) keeps them
                played = sum(self._situations.values())
                rng = random.Random(derive_seed("visescape-guess", self.instance.id, lock, played))
                out += [
                    f"<ANSWER>{g}</ANSWER>" for g in kind.guesses(params, rng, self.config.answer_candidates)
                ]
            else:
                out.append(a)
        return out

    def view_objects(self) -> list[str]:
        """The names of the receptacles and items the view shows (what the original's caption prompts name)."""
        engine, v = self.engine, self._state.view
        if v[0] == "wall":
            out: list[str] = []
            for r in engine.visible_receptacles(self._state, v[1]):
                out.append(r.id)
                out += [i.id for i in engine.visible_items(self._state, r.id)]
            return out
        if v[0] == "rec":
            return [v[1], *(i.id for i in engine.visible_items(self._state, v[1]))]
        return [v[1]]

    def _observe(self, role: str) -> Observation:
        engine = self.engine
        v = self._state.view
        direction = view_wall(v, self._room).upper()
        caption = self._views.caption(self._state) if self.config.observation == "caption" else None
        if caption is not None:
            view: list[Part] = [TextPart(caption)]
            scene = hashlib.sha1(caption.encode()).hexdigest()[:16]
        else:
            image = ImagePart(self._views.image(self._state), label="view")
            view, scene = [image], image.digest
        available, takes_answer = self._offered() if not self.done else ([], False)
        hint = self.hint_text()
        extra: list[str] = []
        if self._rejection:
            extra.append(self._rejection)
        elif self.config.feedback and self._feedback:
            extra.append(f"<Last action result>{self._feedback}</Last action result>")
        lock = engine.lock_in_view(self._state)
        lock_data = None
        if lock is not None:
            kind, params = engine.quiz_kind(lock)
            lock_data = {
                "id": lock,
                "answer_format": kind.answer_format(params) if self.config.answer_format else None,
            }
            if self.config.answer_format:
                extra.append(f"The answer of this lock: {lock_data['answer_format']}.")
        texts_extra = [x for x in extra if x != self._rejection]
        if self._turns is not None:
            parts, instructions = self._turns.observe(
                first=not self._log.entries,
                direction=direction,
                view=view,
                caption=caption,
                log=self._log,
                history=self.config.history,
                inventory=sorted(self._state.held, key=str.lower),
                available=available,
                takes_answer=takes_answer,
                hint=hint,
                rejected=self._rejected if self._rejection else None,
                extra=texts_extra,
            )
        else:
            instructions = pc.INSTRUCTIONS
            parts = pc.observation_parts(
                first=not self._log.entries,
                direction=direction,
                view=view,
                log=self._log,
                history=self.config.history,
                inventory=sorted(self._state.held, key=str.lower),
                available=available,
                takes_answer=takes_answer,
                hint=hint,
                extra=extra,
            )
        kind_name = {"wall": "wall", "rec": "receptacle", "item": "item"}[v[0]]
        data: dict[str, Any] = {
            "step": self._steps,
            "direction": direction,
            "view": {"kind": kind_name, "name": v[1], "location": self._location()},
            "scene": scene,
            "objects": self.view_objects(),
            "inventory": sorted(self._state.held, key=str.lower),
            "available_actions": available,
            "takes_answer": takes_answer,
            "hint": hint,
            "previous_action": self._log.previous,
            "recent_actions": self._log.recent(self.config.history),
            "salient_actions": self._log.salient(),
            "rejected": self._rejection or None,
            "lock": lock_data,
        }
        if self.config.feedback:
            data["last_result"] = self._feedback
        if caption is not None:
            data["caption"] = caption
        # the paper agents read their prompts from the same clone (None: ours)
        data["originals"] = str(self._turns.prompts.source.clone.path) if self._turns is not None else None
        return Observation(
            role=role,
            parts=parts,
            instructions=instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._rejection or (self._feedback if self.config.feedback else ""),
            step=self._steps,
            data=data,
        )

    def caption(self) -> str:
        """The ground-truth caption of the current view."""
        self._require_episode()
        return self._views.caption(self._state)
