"""Memory puzzle: five stages; a display digit and four labelled buttons; press by position or label.

Each stage shows a digit 1-4 on the display above four buttons labelled 1-4. The manual (the
paper's rules exactly) says which button to press from the display, the stage, and the positions
or labels pressed in earlier stages. A wrong press is a strike and resets the module to stage 1.

As in the authors' module (`modules/memory.py` of pschwendy/multimodal_comms) the display shows a
new random digit after every press, right or wrong, and the labels stay where they are for the
whole module; ours are a permutation drawn per instance. The digits come from a seed of the
instance and the number of presses so far, so a run is reproducible. Partial score, as the
authors' `get_score`: the stages completed at the last correct press / 5 (a strike does not take
it away, a later correct press sets it again). The actions are the authors': `press_N` presses the
button *labelled* N (wherever it sits), listed by label, `press_1` to `press_4`.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

from playbench.core.task import derive_seed
from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

STAGES = 5
ORDINAL = ("first", "second", "third", "fourth")

# (kind, argument) per stage and display digit: ("pos", n) position n; ("label", n) the button
# labelled n; ("same_pos", s) the position pressed in stage s; ("same_label", s) the label pressed in s.
RULES: dict[int, dict[int, tuple[str, int]]] = {
    1: {1: ("pos", 2), 2: ("pos", 2), 3: ("pos", 3), 4: ("pos", 4)},
    2: {1: ("label", 4), 2: ("same_pos", 1), 3: ("pos", 1), 4: ("same_pos", 1)},
    3: {1: ("same_label", 2), 2: ("same_label", 1), 3: ("pos", 3), 4: ("label", 4)},
    4: {1: ("same_pos", 1), 2: ("pos", 1), 3: ("same_pos", 2), 4: ("same_pos", 2)},
    5: {1: ("same_label", 1), 2: ("same_label", 2), 3: ("same_label", 4), 4: ("same_label", 3)},
}


def rule_text(kind: str, arg: int) -> str:
    if kind == "pos":
        return f"press the button in the {ORDINAL[arg - 1]} position"
    if kind == "label":
        return f'press the button labelled "{arg}"'
    if kind == "same_pos":
        return f"press the button in the same position as the one you pressed in stage {arg}"
    return f"press the button with the same label as the one you pressed in stage {arg}"


def action_for(label: int) -> str:
    """The authors' action name for the button labelled `label`."""
    return f"press_{label}"


class MemoryModule(PuzzleModule):
    name: ClassVar[str] = "memory"
    title: ClassVar[str] = "Memory Puzzle"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.labels: list[int] = [int(x) for x in params["labels"]]
        if sorted(self.labels) != [1, 2, 3, 4]:
            raise ValueError(f"the four buttons are labelled 1-4 once each, not {self.labels}")
        self.seed = int(params["seed"])
        # displays for the first presses, given (tests and replays of a known game); later ones are drawn
        self.script: list[int] = [int(d) for d in params.get("displays", [])]
        self.stage = 1
        self.pressed: list[tuple[int, int]] = []  # (position, label) pressed in stages 1.. so far
        self.presses = 0
        self.display = self._digit(0)
        self.scored = 0  # stages completed at the last correct press (the authors' score)

    derived: ClassVar[frozenset[str]] = frozenset({"labels", "seed", "script"})

    def _digit(self, presses: int) -> int:
        """The display after `presses` presses."""
        if presses < len(self.script):
            return self.script[presses]
        return random.Random(derive_seed("comma-memory", self.seed, presses)).randint(1, 4)

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        labels = [1, 2, 3, 4]
        rng.shuffle(labels)
        return {"labels": labels, "seed": rng.randrange(2**31)}

    @classmethod
    def manual(cls) -> str:
        # the paper's Appendix A manual, in our words
        lines = [
            "MEMORY PUZZLE",
            "",
            "Press the correct button to move the module on to the next stage; finishing every stage "
            "disarms it. A wrong press sends the module back to stage 1. Button positions count from "
            "left to right.",
        ]
        for stage in range(1, STAGES + 1):
            lines.append("")
            lines.append(f"STAGE {stage}:")
            for display, (kind, arg) in RULES[stage].items():
                lines.append(f"- Display {display}: {rule_text(kind, arg)}.")
        return "\n".join(lines)

    def actions(self) -> list[str]:
        return [] if self.solved else self.action_vocabulary()

    def action_vocabulary(self) -> list[str]:
        return [action_for(label) for label in range(1, 5)]  # the authors' order: by label

    def correct_position(self) -> int:
        """The position (1-4) the manual requires in the current stage."""
        labels = self.labels
        kind, arg = RULES[self.stage][self.display]
        if kind == "pos":
            return arg
        if kind == "label":
            return labels.index(arg) + 1
        if kind == "same_pos":
            return self.pressed[arg - 1][0]
        return labels.index(self.pressed[arg - 1][1]) + 1

    def apply(self, action: str, clock: float) -> ActionResult:
        if self.solved:
            return ActionResult("The module is already disarmed.", changed=False)
        label = next((n for n in range(1, 5) if action_for(n) == action), None)
        if label is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        position = self.labels.index(label) + 1
        right = position == self.correct_position()
        self.presses += 1
        self.display = self._digit(self.presses)  # a new digit after every press, right or wrong
        if not right:
            self.stage, self.pressed = 1, []
            return ActionResult(
                f"Strike! Position {position} (label {label}) was wrong; the module is back at stage 1.",
                mistake=True,
            )
        self.pressed.append((position, label))
        self.stage += 1
        self.scored = len(self.pressed)
        if self.solved:
            return ActionResult(f"Position {position} (label {label}) was correct. The module is disarmed.")
        return ActionResult(f"Position {position} (label {label}) was correct. Stage {self.stage} begins.")

    @property
    def solved(self) -> bool:
        return self.stage > STAGES

    def partial_score(self) -> float:
        return self.scored / STAGES

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        # the display
        dx0, dy0, dx1, dy1 = x0 + 60, y0 + 24, x1 - 140, y0 + 184
        d.rounded_rectangle(
            (dx0, dy0, dx1, dy1), radius=8, fill=(24, 60, 40), outline=draw.PANEL_EDGE, width=4
        )
        digit = "" if self.solved else str(self.display)
        draw_centered_text(
            d, ((dx0 + dx1) / 2, (dy0 + dy1) / 2), digit, draw.font(110, "bold"), (120, 255, 150)
        )
        # the stage lights, bottom (stage 1) to top (stage 5)
        for i in range(STAGES):
            draw.lamp(
                d, (x1 - 60, dy1 - 8 - i * 34), 11, draw.LIGHT_SOLVED if i < len(self.pressed) else None
            )
        draw.caption(d, (x1 - 86, y0 + 2), "STAGE", 13)
        # the buttons, left to right
        width, gap = 92, 18
        bx0 = x0 + 24
        by0, by1 = y0 + 230, y1 - 50
        labels = self.labels
        for p in range(4):
            bx = bx0 + p * (width + gap)
            text = "" if self.solved else str(labels[p])
            draw.button_box(d, (bx, by0, bx + width, by1), text, size=60)
        return image

    def describe(self, clock: float) -> str:
        if self.solved:
            return "All five stages are done; the module is disarmed."
        labels = ", ".join(str(x) for x in self.labels)
        history = "; ".join(
            f"stage {i} position {p} label {label}" for i, (p, label) in enumerate(self.pressed, 1)
        )
        return (
            f"Stage {self.stage} of {STAGES}; the display shows {self.display}; button labels "
            f"left to right: {labels}. Pressed so far: {history or 'nothing'}."
        )

    def oracle_actions(self, clock: float) -> list[str]:
        return [] if self.solved else [action_for(self.labels[self.correct_position() - 1])]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        kind, arg = RULES[self.stage][self.display]
        position = self.correct_position()
        label = self.labels[position - 1]
        return (
            f"Stage {self.stage}, display {self.display}: {rule_text(kind, arg)}. "
            f"That is position {position}, the button labelled {label}:\n{action_for(label)}"
        )
