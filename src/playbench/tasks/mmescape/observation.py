"""MM-Escape's observations: what the player is shown each turn (the system prompt, the turn's text,
its view, the past as the `history` option repeats it) and the random baseline's actions.

`ObservingMixin` is a part of `EscapeTask` (task.py), which mixes it in and holds the episode's state.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from playbench.core.judge import JUDGE_ROLE
from playbench.core.task import derive_seed
from playbench.core.types import ImagePart, Observation, Part, TextPart
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape import prompts
from playbench.tasks.mmescape.playbench_rules import TYPE_WORDS
from playbench.tasks.mmescape.words import HINT

FRAME_CACHE = 256
DEBRIEF_LEGAL = "I do not remember any story behind the room."


@dataclass
class PastStep:
    """One step of play as the history shows it."""

    step: int  # 1-based
    pose: tuple[float, float, float, float]
    visual: geo.VisualState
    action: str
    feedback: str
    key: bool
    rationale: str
    turn_text: str = ""  # the turn's message as the player was shown it (history=turns)
    reply: str = ""  # the player's reply as the original keeps it in the conversation


class ObservingMixin:
    """`EscapeTask`'s observing (its attributes are set by `EscapeTask._begin`)."""

    _frames: Any
    _renderers: Any
    _world: Any
    _rules: Any
    _state: Any
    _chains: Any
    _history: list[PastStep]
    _original: bool
    _feedback: str
    _observed: Any
    _chat_reply: str | None
    _reask: bool
    _steps: int
    instance: Any
    config: Any
    words: Any

    def _renderer(self) -> Any:
        from playbench.tasks.mmescape.view import ViewRenderer  # first use only: no GL for non-observing play

        key = (self.instance.id, self._world.aids)
        r = self._renderers.get(key)
        if r is None:
            self._renderers.clear()
            r = self._renderers[key] = ViewRenderer(self._world)
        return r

    def _frame(self, pose: tuple[float, float, float, float], visual: geo.VisualState) -> tuple[bytes, int]:
        from playbench.render.gl3d import encode_png

        view = self.view()
        key = (self.instance.id, self._world.aids, pose, visual, view, self.config.red_dot)
        hit = self._frames.get(key)
        if hit is not None:
            self._frames.move_to_end(key)
            return hit
        rgb, centre = self._renderer().render(
            visual, *pose, view, dot="square" if self.config.red_dot == "square" else "disc"
        )
        value = (encode_png(rgb), centre)
        self._frames[key] = value
        if len(self._frames) > FRAME_CACHE:
            self._frames.popitem(last=False)
        return value

    def instructions(self) -> str:
        cfg = self.config
        if self._original:
            # their src/main.py: the hint's system prompt, else the paper's Table 13
            text = self.words.system(hint=cfg.hint == "original", key_history=cfg.history == "key")
        else:
            text = prompts.INSTRUCTIONS
            if cfg.hint == "original":
                text += HINT
        if len(self._chains) > 1:
            text += "\n\n" + prompts.multi_room_note(len(self._chains))
        if cfg.hint == "chain":
            text += "\n\n" + prompts.hint(self._chains)
        return text

    def bag_text(self) -> str:
        if self._original:
            return self._rules.bag_text(self._state)
        if not self._state.bag:
            return "nothing"
        return ", ".join(f"{i} ({TYPE_WORDS[self._rules.items[i].type]})" for i in self._state.bag)

    def _public_data(self, phase: str) -> dict[str, Any]:
        """What the player's text states, as data (the pose is not shown to the player, so not here)."""
        return {
            "phase": phase,
            "step": self._steps,
            "max_steps": self._play_cap(),
            "bag": [{"id": i, "type": self._rules.items[i].type} for i in self._state.bag],
            "rooms": len(self._chains),
        }

    def _turn_text(self) -> str:
        """This turn's message (without its view)."""
        if self._original:
            return self.words.step(self._feedback, self._rules.bag_lines(self._state))
        return prompts.step_text(self._steps, self._play_cap(), self._feedback, self.bag_text())

    def _observe(self, role: str) -> Observation:
        if role == JUDGE_ROLE:  # the judge seat before the play has ended
            return Observation(role=role, parts=[TextPart("Nothing is left to judge.")], step=self._steps)
        phase = self.phase
        data = self._public_data(phase)
        if phase == "debrief":
            parts = self._history_parts(final=True)
            if self._original:
                text = self.words.story(self._rules.bag_lines(self._state))
                record: list[str] = []
            else:
                record = self._debrief_record()
                text = prompts.debrief_text(record)
            parts.append(TextPart(text))
            return Observation(
                role=role,
                parts=parts,
                instructions=self.instructions(),
                legal_actions=[DEBRIEF_LEGAL],
                feedback=self._feedback,
                step=self._steps,
                data={**data, "key_moments": record},
                reply_in_history=self._chat_reply,
                reask=self._reask,
            )
        parts: list[Part] = self._history_parts()
        parts.append(TextPart(self._turn_text()))
        if phase == "play":
            pose = self._state.pose_key()
            visual = self._state.visual()
            png, centre = self._frame(pose, visual)
            self._observed = (pose, visual, centre)
            parts.append(ImagePart(png, label="view"))
        return Observation(
            role=role,
            parts=parts,
            instructions=self.instructions(),
            legal_actions=self.legal_actions() if phase == "play" else [],
            feedback=self._feedback,
            step=self._steps,
            data=data,
            reply_in_history=self._chat_reply,
            reask=self._reask,
        )

    def _history_parts(self, final: bool = False) -> list[Part]:
        """The past as this turn's message repeats it (`history`); "chat" and "none": nothing (with
        "chat" the agent keeps the conversation). `final`: the debriefing, after the last turn."""
        mode = self.config.history
        steps = int(self.config.history_steps or 1)
        if mode in ("none", "chat") or not self._history:
            return []
        if mode == "turns":
            return self._turn_parts(
                self._history[-(steps if final else steps - 1) :] if steps > 1 or final else []
            )
        if mode == "full":
            records = self._history
        elif mode == "key":
            records = [r for r in self._history if r.key]
        else:
            records = self._history[-steps:]
        if not records:
            return []
        titles = {"full": "all earlier steps", "key": "earlier key steps", "last": "the latest steps"}
        parts: list[Part] = [TextPart(f"History ({titles[mode]}):")]
        for r in records:
            if self.config.history_images:
                parts.append(TextPart(f"Step {r.step}: your view before acting:"))
                png, _ = self._frame(r.pose, r.visual)
                parts.append(ImagePart(png, label=f"step-{r.step}"))
            reason = f" (your reason: {r.rationale})" if r.rationale else ""
            parts.append(TextPart(f"Step {r.step}: you did {r.action}{reason}; result: {r.feedback}"))
        return parts

    def _turn_parts(self, records: list[PastStep]) -> list[Part]:
        """The original's conversation as one message: each earlier turn's message, its view and the
        reply to it, oldest first (the original keeps the last 50 turns, the current one included)."""
        if not records:
            return []
        parts: list[Part] = [TextPart("The earlier turns of this game, oldest first:")]
        for r in records:
            parts.append(TextPart(f"[Turn {r.step}]\n{r.turn_text}"))
            if self.config.history_images:
                png, _ = self._frame(r.pose, r.visual)
                parts.append(ImagePart(png, label=f"step-{r.step}"))
            parts.append(TextPart(f"[Your reply in turn {r.step}]\n{r.reply}"))
        parts.append(TextPart("[The current turn]"))
        return parts

    def _debrief_record(self) -> list[str]:
        return [f"Step {r.step}: {r.feedback}" for r in self._history if r.key]

    def legal_actions(self) -> list[str]:
        """A finite sample of actions for the random baseline, fixed by the state (not the step)."""
        s = self._state
        rng = random.Random(
            derive_seed(
                "mmescape-random",
                self.instance.id,
                s.pose_key(),
                sorted(s.bag),
                sorted(s.opened),
                sorted(s.doors_open),
            )
        )

        def num(lo: float, hi: float, digits: int = 1) -> float:
            return round(rng.uniform(lo, hi), digits)

        # mostly looking and walking, as an aimless explorer would; a few grabs and item uses
        acts: list[dict[str, Any]] = [{"rotate_right": num(-180, 180)} for _ in range(5)]
        acts += [{"rotate_right": num(-60, 60), "move_forward": num(0.5, 4.0, 2)} for _ in range(3)]
        acts += [{"move_forward": num(-3.0, 5.0, 2)} for _ in range(3)]
        acts += [
            {"move_forward": num(0.5, 3.0, 2), "jump": True},
            {"rotate_down": num(-30, 50)},
            {"rotate_down": num(-30, 50)},
            {"look_at": [round(rng.random(), 3), round(rng.random(), 3)]},
            {"look_at": [round(rng.random(), 3), round(rng.random(), 3)]},
            {"grab": True},
            {"grab": True, "interactions": {"input": f"{rng.randrange(10_000):04d}"}},
        ]
        if s.bag:
            acts.append({"grab": True, "interactions": {"use_item_id": rng.choice(s.bag)}})
            acts.append({"read": rng.choice(s.bag)})
        return [json.dumps({**a, "rationale": "random exploration"}) for a in acts]
