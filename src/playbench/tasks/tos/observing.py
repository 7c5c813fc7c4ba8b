"""Theory of Space observations: what the agent is shown. The exploration as the authors' chat
(`conversation=chat`: the opening message, each turn's result as the next user message), the packed
exploration log (the answer turn, the probes, the second exploration, `conversation=log`), the views
and legend images (vision), the status line and public facts, and the sample replies.

`ObservingMixin` is a part of `TosTask` (exploration.py), which mixes it in and holds the episode's
state (set by `TosTask._begin`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playbench.core.types import ImagePart, Observation, Part, StepResult, TextPart
from playbench.tasks.tos.stepping import LogEntry
from playbench.tasks.tos.world import START, Pose, in_fov, items_of, rooms_at, turn


class ObservingMixin:
    """`TosTask`'s observing (its attributes are set by `TosTask._begin`)."""

    _phase: str
    _pose: Pose
    _observed: frozenset[str]
    _log: list[LogEntry]
    _probes: list[str]
    _images: dict[Any, bytes]
    _worlds: list[Any]
    _steps: int
    instance: Any
    config: Any
    texts: Any
    world: Any
    passive: bool
    done: bool

    # --- observing -------------------------------------------------------------------------
    def _scene_image(self, version: int, pose: Pose) -> bytes | None:
        """The authors' own image of this view when the scene folder has it (vision)."""
        ids = self.instance.image_ids
        folder = self._scene_folder()
        if not ids or folder is None or pose.facing not in ("north", "east", "south", "west"):
            return None
        world = self._worlds[version]
        if (pose.x, pose.y) == (0, 0):
            cam = "agent"
        else:
            name = next((i.name for i in items_of(world) if (i.x, i.y) == (pose.x, pose.y)), None)
            cam = ids.get(name or "", "")
        suffix = "_fbexp" if version else ""
        path = folder / f"{cam}_facing_{pose.facing}{suffix}.png"
        if not cam or not path.is_file():
            return None
        from PIL import Image

        from playbench.render.gl3d import encode_png

        with Image.open(path) as img:
            size = self.config.image_size
            return encode_png(img.convert("RGB").resize((size, size)))

    def _scene_folder(self) -> Path | None:
        if not self.config.scenes:
            return None
        base = Path(self.config.scenes).expanduser()
        source = self.instance.world.source
        if (base / "meta_data.json").is_file():
            return base
        return base / source if source else None

    def _image(self, version: int, pose: Pose) -> bytes:
        key = ("view", version, pose)
        png = self._images.get(key)
        if png is None:
            png = self._scene_image(version, pose)
            if png is None:
                from playbench.tasks.tos.render3d import render_view

                png = render_view(self._worlds[version], pose, self.config.image_size)
            self._images[key] = png
        return png

    def _legend(self) -> bytes:
        png = self._images.get("legend")
        if png is None:
            from playbench.tasks.tos.render3d import render_legend

            png = self._images["legend"] = render_legend(self._worlds[0])
        return png

    def _log_parts(self, entries: list[LogEntry], header: str) -> list[Part]:
        parts: list[Part] = []
        lines = [header] if header else []
        vision = self.config.modality == "vision"
        for e in entries:
            lines.append(f"Step {e.step}: {e.action}\n{e.feedback}")
            if vision and e.view is not None:
                parts.append(TextPart("\n".join(lines)))
                parts.append(ImagePart(self._image(*e.view), label=f"view-{e.step}"))
                lines = []
        if lines:
            parts.append(TextPart("\n".join(lines)))
        return parts

    def _intro_parts(self) -> list[Part]:
        if self.config.modality != "vision":
            return []
        from playbench.tasks.tos.render3d import render_example

        example = self._images.get("example")
        if example is None:
            example = self._images["example"] = render_example(self.config.image_size)
        names = [o.name for o in self._worlds[0].objects]  # the legend's order: the scene's
        listing = "; ".join(f"{k}. {n}" for k, n in enumerate(names, start=1))
        return [
            TextPart(
                "An example of an observation: the blue cylinder is 1 unit straight ahead, the red one 2 "
                "units straight ahead, the yellow one 2 units away at 45° to your front-left, the green one "
                "3 units away at 22.5° to your front-slight-right:"
            ),
            ImagePart(example, label="example"),
            TextPart(
                f"Object legend (tile numbers match this list): {listing}. Doors: "
                + (", ".join(g.name for g in self._worlds[0].gates) or "none (a single room)")
                + "."
            ),  # fmt: skip
            ImagePart(self._legend(), label="legend"),
        ]

    def _exploration_header(self) -> str:
        if self.passive:
            return (
                "Here is the log of an exploration of this environment, which started at your starting "
                "position facing north:"
            )
        return "Your exploration so far:" if self._log else "You are at your starting position, facing north."

    def _phase_prompt(self) -> list[Part]:
        if self._phase == "explore":
            return [TextPart(self._status())]
        return []

    def _status(self) -> str:
        if self.texts.footer is not None:  # theirs: the format footer closes every exploration turn
            return self.texts.footer
        return (
            f"Step {self._phase_steps + 1} of {self._phase_cap()}. Total cost so far: {self._cost:g}. "
            "Reply with your actions, ending with `FINAL ANSWER:` and a line `Actions: [ ... ]`."
        )

    def _observe(self, role: str) -> Observation:
        if self._chatting() and self._phase == "explore" and not self._probes and not self.done:
            if self._chat_user is None:
                self._chat_user = self._opening_message()
            return Observation(
                role=role,
                parts=list(self._chat_user),
                instructions=self._instructions,
                legal_actions=self.legal_actions(),
                feedback=self._feedback,
                step=self._steps,
                data=self._public_data(),
                turns=list(self._chat),
            )
        phase1 = self._log if self._fb_log_start is None else self._log[: self._fb_log_start]
        if self._probes:  # a belief probe: the exploration so far, then the probe's question
            prompt = self._probe_context() + self._probe_prompt(self._probes[0])
        else:
            prompt = self._phase_prompt()
        rules = [TextPart(self._rules)] if self._rules else []
        parts = rules + self._intro_parts() + self._log_parts(phase1, self._exploration_header()) + prompt
        return Observation(
            role=role,
            parts=parts,
            instructions=self._instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
            data=self._public_data(),
        )

    def _public_data(self) -> dict[str, Any]:
        """The observation's public facts. Not the exact coordinates: in text they come only from
        Query, and the cognitive map scores the agent for tracking them itself; where it stands is
        named by the object or door it jumped to."""
        exploring = self._phase in ("explore", "fb") and not self._probes
        return {
            "phase": self.phase,
            "probe": self._probes[0] if self._probes else None,
            "step": self._phase_steps,
            "max_steps": self._phase_cap() if exploring else None,
            "cost": self._cost,
            "position": self._position_name(),
            "facing": self._pose.facing,
            "observed": sorted(self._observed),
        }

    def _position_name(self) -> str | None:
        """`start`, or the object or door the agent stands on (moves end only at those points)."""
        if (self._pose.x, self._pose.y) == (START.x, START.y):
            return "start"
        return next(
            (i.name for i in items_of(self.world) if (i.x, i.y) == (self._pose.x, self._pose.y)), None
        )

    def legal_actions(self) -> list[str]:
        """A sample of grammatical replies (what the random baseline picks from)."""
        if self._probes:
            return self._probe_samples(self._probes[0])
        if self._phase == "answer":
            return self._answer_samples()
        acts = ["Actions: [Observe()]"] + [f"Actions: [Rotate({d}), Observe()]" for d in (90, -90, 180)]
        here = rooms_at(self.world, self._pose.x, self._pose.y)
        for it in items_of(self.world):
            if (
                it.name not in self._observed
                or not (it.rooms & here)
                or (it.x, it.y) == (self._pose.x, self._pose.y)
            ):
                continue
            for d in (0, 90, -90, 180):
                facing = turn(self._pose.facing, d)
                if in_fov(Pose(self._pose.x, self._pose.y, facing), it.x, it.y):
                    rot = f"Rotate({d}), " if d else ""
                    acts.append(f"Actions: [{rot}JumpTo({it.name}), Observe()]")
                    break
        if self.config.return_action and self._pose != START:
            acts.append("Actions: [Return(), Observe()]")
        queryable = sorted(o.name for o in self.world.objects if o.name in self._observed)
        if queryable:
            acts.append(f"Actions: [Query({queryable[0]})]")
        acts += self._term_samples()
        return acts

    def _term_samples(self) -> list[str]:
        return ["Actions: [Term()]"]

    def _answer_samples(self) -> list[str]:
        return []

    # --- the exploration as a chat (the authors' conversation) ------------------------------
    def _chatting(self) -> bool:
        """Whether this episode's own exploration is sent as a real chat (`conversation=chat`)."""
        return self.config.conversation == "chat" and not self.passive

    def _opening_message(self) -> list[Part]:
        """The first user message: theirs opens with the task prompt (here our rules: their body is
        not read yet) and closes with the format footer; ours: the start, then the status line."""
        if self.texts.original:
            return [TextPart(self._rules), *self._intro_parts(), TextPart(self._status())]
        return [*self._intro_parts(), TextPart(self._exploration_header()), TextPart(self._status())]

    def _turn_message(self, result: StepResult) -> list[Part]:
        """The user message after an exploration reply: its result (the steps-left line included),
        then the footer (theirs) or status line (ours); after the end of the exploration the
        result alone (theirs: the task-finished text)."""
        text = result.feedback
        entry = self._log[-1] if self._log else None
        parts: list[Part] = [TextPart(text)]
        vision = self.config.modality == "vision" and entry is not None and entry.view is not None
        if vision and "<image>" in text:  # their placeholder: the view goes where the text names it
            assert entry is not None and entry.view is not None
            before, after = text.split("<image>", 1)
            parts = [TextPart(before), ImagePart(self._image(*entry.view), label=f"view-{entry.step}")]
            parts += [TextPart(after)] if after else []
        if self._phase == "explore" and not self.done:
            parts.append(TextPart(self._status()))
        return parts
