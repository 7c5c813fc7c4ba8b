"""LED puzzle: two to five stages, each a coloured LED (a multiplier) and four lettered buttons.

Letters take the values A = 0 ... Z = 25. A button is correct when its letter's value times the
current stage's multiplier, modulo 26, equals the value of the letter on the diagonally opposite
button (top left <-> bottom right, top right <-> bottom left). Each stage needs one correct press;
the letters change at every stage. The generator guarantees at least one correct button per stage
(more may be correct, as the paper allows) and four different letters.

Choices (README): the LEDs sit in a row at the top, one per stage; finished stages and the current
one are lit in their own colour (finished ones marked "done"), later stages are dark. A wrong press
is a strike and the stage stays (the paper names no reset). Partial score: stages completed / stages.
The actions are listed in the authors' order: top left, top right, bottom right, bottom left (it
decides which one a line naming several carries out).
"""

from __future__ import annotations

import random
import string
from typing import Any, ClassVar

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

MULTIPLIERS: dict[str, int] = {"red": 2, "green": 3, "blue": 4, "yellow": 5, "purple": 6, "orange": 7}
POSITIONS: tuple[str, ...] = ("top_left", "top_right", "bottom_left", "bottom_right")  # params order
# the actions in the authors' order (their module's dict), clockwise from the top left
ACTION_ORDER: tuple[str, ...] = ("top_left", "top_right", "bottom_right", "bottom_left")
OPPOSITE: dict[int, int] = {0: 3, 1: 2, 2: 1, 3: 0}
MIN_STAGES, MAX_STAGES = 2, 5


def value(letter: str) -> int:
    return ord(letter) - ord("A")


def correct_positions(letters: list[str], multiplier: int) -> list[int]:
    """Indices (POSITIONS order) of the buttons that are correct by the manual's rule."""
    return [i for i in range(4) if value(letters[i]) * multiplier % 26 == value(letters[OPPOSITE[i]])]


def action_for(position: str) -> str:
    return f"press_{position}_button"


def _stage(rng: random.Random, color: str) -> list[str]:
    multiplier = MULTIPLIERS[color]
    while True:
        anchor = rng.randrange(4)
        x = rng.randrange(26)
        letters: list[str | None] = [None] * 4
        letters[anchor] = string.ascii_uppercase[x]
        letters[OPPOSITE[anchor]] = string.ascii_uppercase[x * multiplier % 26]
        others = [i for i in range(4) if letters[i] is None]
        for i in others:
            letters[i] = rng.choice(string.ascii_uppercase)
        if len(set(letters)) == 4:
            return [str(c) for c in letters]


class LedModule(PuzzleModule):
    name: ClassVar[str] = "led"
    title: ClassVar[str] = "LED Puzzle"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.colors: list[str] = list(params["colors"])
        self.letters: list[list[str]] = [list(s) for s in params["letters"]]
        self.stage = 0  # index of the current stage; == len(colors) when solved

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(MIN_STAGES, MAX_STAGES)
        colors = [rng.choice(tuple(MULTIPLIERS)) for _ in range(n)]
        return {"colors": colors, "letters": [_stage(rng, c) for c in colors]}

    @classmethod
    def manual(cls) -> str:
        # the paper's Appendix A manual, in our words
        return (
            "LED PUZZLE\n"
            "\n"
            "Two to five LEDs at the top of the module stand for its stages; the stages must be solved in "
            "order to disarm it. Four buttons show four different letters, and the letters change at each "
            "stage. A number in the top left of the module tells the current stage. The LED of the current "
            "stage gives its multiplier by its colour:\n"
            "- Red: 2\n- Green: 3\n- Blue: 4\n- Yellow: 5\n- Purple: 6\n- Orange: 7\n"
            "\n"
            "Give each letter of the alphabet a number from 0 to 25 (A = 0, B = 1, C = 2, and so on). A "
            "button is correct if its letter's number times the current stage's multiplier, modulo 26, "
            "equals the number of the letter on the button diagonally opposite it. In each stage, press a "
            "correct button. More than one button may be correct."
        )

    def actions(self) -> list[str]:
        return [] if self.solved else self.action_vocabulary()

    def action_vocabulary(self) -> list[str]:
        return [action_for(p) for p in ACTION_ORDER]

    def _correct(self) -> list[int]:
        return correct_positions(self.letters[self.stage], MULTIPLIERS[self.colors[self.stage]])

    def apply(self, action: str, clock: float) -> ActionResult:
        if self.solved:
            return ActionResult("The module is already disarmed.", changed=False)
        index = next((i for i, p in enumerate(POSITIONS) if action_for(p) == action), None)
        if index is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        label = f"{POSITIONS[index].replace('_', ' ')} button ({self.letters[self.stage][index]})"
        if index not in self._correct():
            return ActionResult(f"Strike! The {label} was wrong for stage {self.stage + 1}.", mistake=True)
        self.stage += 1
        if self.solved:
            return ActionResult(f"The {label} was correct. Every stage is done: the module is disarmed.")
        return ActionResult(f"The {label} was correct. Stage {self.stage + 1} begins with new letters.")

    @property
    def solved(self) -> bool:
        return self.stage >= len(self.colors)

    def partial_score(self) -> float:
        return self.stage / len(self.colors)

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        n = len(self.colors)
        shown = min(self.stage, n - 1)
        d.text((x0 + 16, y0 + 12), f"{shown + 1}", font=draw.font(40, "bold"), fill=draw.INK)
        spacing = 62
        left = (x0 + x1) // 2 - (n - 1) * spacing // 2
        for i, color in enumerate(self.colors):
            lit = i < self.stage or (i == self.stage and not self.solved)
            draw.lamp(d, (left + i * spacing, y0 + 38), 18, draw.COLORS[color] if lit else None)
            if i < self.stage:
                draw_centered_text(d, (left + i * spacing, y0 + 72), "done", draw.font(12, "bold"), draw.INK)
        letters = self.letters[shown]
        size, gap = 120, 30
        bx0 = (x0 + x1) // 2 - size - gap // 2
        by0 = y0 + 110
        for i in range(4):
            row, col = divmod(i, 2)
            bx, by = bx0 + col * (size + gap), by0 + row * (size + gap)
            label = "" if self.solved else letters[i]
            draw.button_box(d, (bx, by, bx + size, by + size), label, size=64)
        return image

    def describe(self, clock: float) -> str:
        if self.solved:
            return f"All {len(self.colors)} stages are done; the module is disarmed."
        letters = ", ".join(
            f"{p.replace('_', ' ')} {c}" for p, c in zip(POSITIONS, self.letters[self.stage], strict=True)
        )
        return (
            f"Stage {self.stage + 1} of {len(self.colors)}; the stage LED is {self.colors[self.stage]}. "
            f"Buttons: {letters}."
        )

    def oracle_actions(self, clock: float) -> list[str]:
        if self.solved:
            return []
        return [action_for(POSITIONS[self._correct()[0]])]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        index = self._correct()[0]
        m = MULTIPLIERS[self.colors[self.stage]]
        letter = self.letters[self.stage][index]
        other = self.letters[self.stage][OPPOSITE[index]]
        return (
            f"{self.colors[self.stage].capitalize()} means multiply by {m}: {letter} = {value(letter)}, "
            f"{value(letter)} x {m} mod 26 = {value(other)} = {other}, the opposite letter. Press:\n"
            f"{action_for(POSITIONS[index])}"
        )
