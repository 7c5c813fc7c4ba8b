"""Keypad puzzle: four symbol keys in a 2x2 grid, pressed in the order one manual column gives.

The manual shows four columns of seven symbols; exactly one column holds all four symbols on the
keypad, and the keys are pressed in the order their symbols appear in that column, top to bottom.
The paper's columns were an image lost from its text, so ours are designed here (Choice): any two
columns share at most two symbols, hence every set of four symbols from one column occurs in no
other column and every instance has exactly one answer.

Pressing any key other than the next one in the order is a strike and turns the lit keys off (the
sequence starts again). Partial score (FACTS: keys pressed correctly / 4) counts the longest correct
run reached during the episode.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

# symbol -> how the expert's manual describes it (the solver sees only the glyph)
SYMBOLS: dict[str, str] = {
    "Ϙ": "Greek koppa: a circle on a short vertical stem, like a lollipop",
    "Ѧ": "Cyrillic little yus: an A-like tent with a vertical bar in the middle",
    "ƛ": "lambda with a slash through its upper stroke",
    "Ϟ": "Greek koppa (lightning form): a zigzag like a lightning bolt",
    "Ѭ": "Cyrillic iotified big yus: an H-like bar joined to a tent with a triangle on top",
    "ϗ": "Greek kai: a small k with a tail curling down",
    "Ͼ": "reversed-dot C: a letter C with a dot in the middle",
    "Ӭ": "Cyrillic E with diaeresis: a backwards C with a short middle bar and two dots above",
    "Ҩ": "Cyrillic abkhasian ha: two joined loops, like an omega whose left loop is closed",
    "☆": "an outlined (hollow) five-pointed star",
    "¿": "an upside-down question mark",
    "©": "the copyright sign: a C inside a circle",
    "Ѽ": "Cyrillic omega with a titlo: a w-shaped curve with a hat and a small mark on top",
    "Җ": "Cyrillic zhe with a descender: an asterisk-like K-mirror-K letter with a tail",
    "Ԇ": "Komi zje: a 3-like shape with a hook at the bottom",
    "б": "Cyrillic small be: like a 6 with a flat top stroke",
    "¶": "the paragraph sign (pilcrow): a backwards P with a double stem",
    "ѣ": "Cyrillic small yat: a b-like letter with a crossbar on its stem",
    "ψ": "Greek psi: a trident",
    "Ͽ": "reversed C with a dot in the middle",
    "Ѯ": "Cyrillic ksi: a 3-like zigzag with a curl below and a hat on top",
    "★": "a filled (solid black) five-pointed star",
    "æ": "the ae ligature: a and e joined",
    "Ҋ": "Cyrillic short i with a tail: an N-like letter with a breve on top and a tail",
    "Ω": "Greek capital omega: a horseshoe standing on two feet",
}

# Four columns, top to bottom. Any two share at most two symbols (checked in the tests).
COLUMNS: tuple[tuple[str, ...], ...] = (
    ("Ϙ", "Ѧ", "ƛ", "Ϟ", "Ѭ", "ϗ", "Ͼ"),
    ("Ӭ", "Ϙ", "Ͼ", "Ҩ", "☆", "¿", "©"),
    ("Ѽ", "Җ", "Ԇ", "ƛ", "б", "¶", "ѣ"),
    ("ψ", "Ͽ", "Ѯ", "★", "æ", "Ҋ", "Ω"),
)

POSITIONS: tuple[str, ...] = ("top_left", "top_right", "bottom_left", "bottom_right")


def action_for(position: str) -> str:
    return f"press_{position}_button"


class KeypadModule(PuzzleModule):
    name: ClassVar[str] = "keypad"
    title: ClassVar[str] = "Keypad Puzzle"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.symbols: list[str] = list(params["symbols"])  # in POSITIONS order
        column = COLUMNS[int(params["column"])]
        # positions in the order they must be pressed
        self.order: list[str] = sorted(
            POSITIONS, key=lambda p: column.index(self.symbols[POSITIONS.index(p)])
        )
        self.progress = 0  # keys lit in the right order so far
        self.best = 0

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        column = rng.randrange(len(COLUMNS))
        chosen = rng.sample(COLUMNS[column], 4)  # already in a random placement order
        return {"column": column, "symbols": chosen}

    @classmethod
    def manual(cls) -> str:
        lines = [
            "The module has four keys in a 2x2 grid, each showing one symbol.",
            "Exactly one of the four columns below contains all four symbols of the keypad. Find it, then "
            "press the four keys in the order in which their symbols appear in that column, from top to "
            "bottom. Pressing any other key than the next one in that order is a strike and switches off "
            "the keys already lit, so the sequence starts again from the first symbol.",
            "Key actions: press_top_left_button, press_top_right_button, press_bottom_left_button, "
            "press_bottom_right_button.",
            "",
        ]
        for i, column in enumerate(COLUMNS, 1):
            lines.append(f"Column {i} (top to bottom):")
            lines.extend(f"  {k}. {s}  - {SYMBOLS[s]}" for k, s in enumerate(column, 1))
            lines.append("")
        return "\n".join(lines).rstrip()

    def actions(self) -> list[str]:
        return [] if self.solved else [action_for(p) for p in POSITIONS]

    def action_vocabulary(self) -> list[str]:
        return [action_for(p) for p in POSITIONS]

    def apply(self, action: str, clock: float) -> ActionResult:
        if self.solved:
            return ActionResult("The module is already disarmed.", changed=False)
        position = next((p for p in POSITIONS if action_for(p) == action), None)
        if position is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        label = position.replace("_", " ")
        if position == self.order[self.progress]:
            self.progress += 1
            self.best = max(self.best, self.progress)
            if self.solved:
                return ActionResult(
                    f"The {label} key lights up. All four keys are lit: the module is disarmed."
                )
            return ActionResult(f"The {label} key lights up ({self.progress} of 4 lit).")
        self.progress = 0
        return ActionResult(
            f"Strike! The {label} key was not the next one; all keys went dark.", mistake=True
        )

    @property
    def solved(self) -> bool:
        return self.progress == 4

    def partial_score(self) -> float:
        return self.best / 4

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        lit = set(self.order[: self.progress])
        size, gap = 150, 36
        left = (x0 + x1) // 2 - size - gap // 2
        top = (y0 + y1) // 2 - size - gap // 2 + 6
        glyph_font = draw.font(96, "sans")
        for i, position in enumerate(POSITIONS):
            row, col = divmod(i, 2)
            bx, by = left + col * (size + gap), top + row * (size + gap)
            d.rounded_rectangle((bx + 5, by + 6, bx + size + 5, by + size + 6), radius=10, fill=(90, 90, 86))
            d.rounded_rectangle(
                (bx, by, bx + size, by + size),
                radius=10,
                fill=(236, 230, 208),
                outline=draw.PANEL_EDGE,
                width=3,
            )
            draw.lamp(d, (bx + size // 2, by + 16), 8, draw.LIGHT_SOLVED if position in lit else None)
            draw_centered_text(d, (bx + size / 2, by + size / 2 + 12), self.symbols[i], glyph_font, draw.INK)
        return image

    def describe(self, clock: float) -> str:
        keys = ", ".join(f"{p.replace('_', ' ')} {s}" for p, s in zip(POSITIONS, self.symbols, strict=True))
        lit = ", ".join(p.replace("_", " ") for p in self.order[: self.progress]) or "none"
        return f"Keypad symbols: {keys}. Lit keys: {lit}."

    def oracle_actions(self, clock: float) -> list[str]:
        return [action_for(p) for p in self.order[self.progress :]]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        column = int(self.params["column"]) + 1
        order = ", ".join(self.symbols[POSITIONS.index(p)] for p in self.order)
        return (
            f"Your symbols are all in column {column}; their order there is {order}. Press, one per line:\n"
            + "\n".join(self.oracle_actions(clock))
        )
