"""Memory puzzle: five stages; a display digit and four labelled buttons; press by position or label.

Each stage shows a digit 1-4 on the display and four buttons labelled 1-4 in some order. The manual
(the paper's rules exactly) says which button to press from the display, the stage, and the
positions or labels pressed in earlier stages. A wrong press is a strike and resets the module to
stage 1.

Choices (README): every stage's display and labels are fixed by the instance, so after a reset
stage 1 looks exactly as it did at the start (the run stays reproducible and a solver can learn from
its mistake). Partial score: the most stages ever completed in a row / 5, the furthest the solver
progressed.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

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


def action_for(position: int) -> str:
    return f"press_position_{position}"


class MemoryModule(PuzzleModule):
    name: ClassVar[str] = "memory"
    title: ClassVar[str] = "Memory Puzzle"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.displays: list[int] = [int(d) for d in params["displays"]]
        self.labels: list[list[int]] = [[int(x) for x in row] for row in params["labels"]]
        self.stage = 1
        self.pressed: list[tuple[int, int]] = []  # (position, label) pressed in stages 1.. so far
        self.best = 0

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        labels = []
        for _ in range(STAGES):
            row = [1, 2, 3, 4]
            rng.shuffle(row)
            labels.append(row)
        return {"displays": [rng.randint(1, 4) for _ in range(STAGES)], "labels": labels}

    @classmethod
    def manual(cls) -> str:
        lines = [
            "The module has a display showing a number from 1 to 4, four buttons labelled 1 to 4 in some "
            "order, and five stage lights. Press the correct button to advance to the next stage; finish "
            "all five stages to disarm the module. A wrong press is a strike and sends the module back to "
            "stage 1. Button positions count from left to right (first to fourth). Remember which "
            "position and which label you pressed in every stage: later stages refer to them.",
            "Button actions (by position, left to right): press_position_1, press_position_2, "
            "press_position_3, press_position_4.",
        ]
        for stage in range(1, STAGES + 1):
            lines.append("")
            lines.append(f"STAGE {stage}:")
            for display, (kind, arg) in RULES[stage].items():
                lines.append(f"- Display {display}: {rule_text(kind, arg)}.")
        return "\n".join(lines)

    def actions(self) -> list[str]:
        return [] if self.solved else [action_for(p) for p in range(1, 5)]

    def action_vocabulary(self) -> list[str]:
        return [action_for(p) for p in range(1, 5)]

    def correct_position(self) -> int:
        """The position (1-4) the manual requires in the current stage."""
        labels = self.labels[self.stage - 1]
        kind, arg = RULES[self.stage][self.displays[self.stage - 1]]
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
        position = next((p for p in range(1, 5) if action_for(p) == action), None)
        if position is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        label = self.labels[self.stage - 1][position - 1]
        if position != self.correct_position():
            self.stage, self.pressed = 1, []
            return ActionResult(
                f"Strike! Position {position} (label {label}) was wrong; the module is back at stage 1.",
                mistake=True,
            )
        self.pressed.append((position, label))
        self.stage += 1
        self.best = max(self.best, len(self.pressed))
        if self.solved:
            return ActionResult(f"Position {position} (label {label}) was correct. The module is disarmed.")
        return ActionResult(f"Position {position} (label {label}) was correct. Stage {self.stage} begins.")

    @property
    def solved(self) -> bool:
        return self.stage > STAGES

    def partial_score(self) -> float:
        return self.best / STAGES

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        shown = min(self.stage, STAGES) - 1
        # the display
        dx0, dy0, dx1, dy1 = x0 + 60, y0 + 24, x1 - 140, y0 + 184
        d.rounded_rectangle(
            (dx0, dy0, dx1, dy1), radius=8, fill=(24, 60, 40), outline=draw.PANEL_EDGE, width=4
        )
        digit = "" if self.solved else str(self.displays[shown])
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
        labels = self.labels[shown]
        for p in range(4):
            bx = bx0 + p * (width + gap)
            text = "" if self.solved else str(labels[p])
            draw.button_box(d, (bx, by0, bx + width, by1), text, size=60)
        return image

    def describe(self, clock: float) -> str:
        if self.solved:
            return "All five stages are done; the module is disarmed."
        labels = ", ".join(str(x) for x in self.labels[self.stage - 1])
        history = "; ".join(
            f"stage {i} position {p} label {label}" for i, (p, label) in enumerate(self.pressed, 1)
        )
        return (
            f"Stage {self.stage} of {STAGES}; the display shows {self.displays[self.stage - 1]}; button labels "
            f"left to right: {labels}. Pressed so far: {history or 'nothing'}."
        )

    def oracle_actions(self, clock: float) -> list[str]:
        return [] if self.solved else [action_for(self.correct_position())]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        kind, arg = RULES[self.stage][self.displays[self.stage - 1]]
        position = self.correct_position()
        return (
            f"Stage {self.stage}, display {self.displays[self.stage - 1]}: {rule_text(kind, arg)}. "
            f"That is position {position}:\n{action_for(position)}"
        )
