"""The authors' rooms, observing: the paper's turn as their runner composes it and the actions offered
(mixed into `OriginalTask`, `task.py`)."""

from __future__ import annotations

import random
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.core.types import Observation, Part, TextPart
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.original.clone import CloneError


class Observing:
    """The turn's observation and the actions offered, over the task's game, state and options
    (`task.py`)."""

    def legal_actions(self) -> list[str]:
        """The available actions; at a lock that takes a typed answer, a few random answers of the
        answer's length and kind besides (what the random baseline samples)."""
        game = self._game
        out = list(game.available_actions())
        item = game.current_item()
        if game.takes_answer() and item is not None and item.answer:
            rng = random.Random(
                derive_seed("visescape-original-guess", self.instance.id, item.name, self._steps)
            )
            out += [
                f"<ANSWER>{_guess(item.answer, rng)}</ANSWER>" for _ in range(self.config.answer_candidates)
            ]
        return out

    def view_objects(self) -> list[str]:
        """The names of what the view shows (the names the original caption prompts give)."""
        game = self._game
        if game.view == "WALL":
            out = []
            for rid in game.wall_recs():
                out.append(rid)
                out += game.visible_items(rid)
            return out
        if game.view == "RECEPTACLE" and game.rec:
            return [game.rec, *game.visible_items(game.rec)]
        return [game.item] if game.item else []

    def _observe(self, role: str) -> Observation:
        game = self._game
        image = game.image()
        view: list[Part]
        if image:
            try:
                view = pc.image_view(self._clone.image_bytes(game.room.name, image))
            except CloneError as exc:
                raise ConfigError(str(exc)) from None
        else:
            view = [TextPart("(the original has no image for this view)")]
        hint = self.hint_text()
        available = [] if self.done else game.available_actions()
        takes_answer = game.takes_answer() and not self.done
        if self._turns is not None:
            parts, instructions = self._turns.observe(
                first=not self._log.entries,
                direction=game.wall,
                view=view if image else [],
                caption=None,
                log=self._log,
                history=self.config.history,
                inventory=list(game.inventory),
                available=available,
                takes_answer=takes_answer,
                hint=hint,
                rejected=self._rejected if self._rejection else None,
            )
        else:
            instructions = pc.INSTRUCTIONS
            parts = pc.observation_parts(
                first=not self._log.entries,
                direction=game.wall,
                view=view,
                log=self._log,
                history=self.config.history,
                inventory=list(game.inventory),
                available=available,
                takes_answer=takes_answer,
                hint=hint,
                extra=[self._rejection] if self._rejection else [],
            )
        kind = {"WALL": "wall", "RECEPTACLE": "receptacle", "ITEM": "item"}[game.view]
        data: dict[str, Any] = {
            "step": self._steps,
            "direction": game.wall,
            "view": {
                "kind": kind,
                "name": game.wall if kind == "wall" else (game.rec if kind == "receptacle" else game.item),
                "location": game.location(),
            },
            "scene": image,
            "objects": self.view_objects(),
            "inventory": list(game.inventory),
            "available_actions": available,
            "takes_answer": game.takes_answer() and not self.done,
            "hint": hint,
            "previous_action": self._log.previous,
            "recent_actions": self._log.recent(self.config.history),
            "salient_actions": self._log.salient(),
            "rejected": self._rejection or None,
            # the paper agents read their prompts from the same clone (None: ours)
            "originals": str(self._turns.prompts.source.clone.path) if self._turns is not None else None,
        }
        return Observation(
            role=role,
            parts=parts,
            instructions=instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._rejection,
            step=self._steps,
            data=data,
        )


def _guess(answer: str, rng: random.Random) -> str:
    """A random answer of the same length and kind (digits, upper or lower letters)."""
    out = []
    for ch in answer:
        if ch.isdigit():
            out.append(rng.choice("0123456789"))
        elif ch.isalpha():
            pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            out.append(rng.choice(pool) if ch.isupper() else rng.choice(pool.lower()))
        else:
            out.append(ch)
    return "".join(out)
