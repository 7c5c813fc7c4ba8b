"""Keypad puzzle: four symbol keys in a 2x2 grid, pressed in the order one manual column gives.

The manual's symbol page holds six columns of seven symbols, laid out as the authors' page
(`images/KeyPadPuzzle.jpg` of pschwendy/multimodal_comms; their module draws its keys from the same
columns, `images/keypad/Col1..Col6`): 27 different symbols, 15 of them in two columns, at the same
places as there, so no two columns share more than three symbols and every set of four symbols from
one column occurs in that column only. The glyphs are ours (DejaVu Sans characters); the original's
pictures are not shipped. The expert gets the page as a picture (`manual_image`), where the paper's
keypad expert finds the column (their published agent looks for it under `images/manuals/`, where
the tree has no page; see the README's fidelity table); the text-only manual (`--set expert_manual=text`)
lists the columns with a written description of every glyph instead. `columns=4` (params) is our
earlier layout of four columns, kept for the `keypad_columns=4` option.

As in the authors' module, pressing any key other than the next one in the order (a key pressed
correctly before too) is a strike and the sequence starts again. Partial score, as the authors'
`get_score`: the keys pressed in order at the last correct press / 4 (a strike does not take it
away). The authors' keys show nothing when pressed, and so does ours by default; the task's
`keypad_lights` option (ours, `options["keypad_lights"]`) lights each key pressed in order. The
actions are listed in the authors' order: top left, bottom left, top right, bottom right (it decides
which one a line naming several carries out).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, ClassVar

from PIL import Image, ImageDraw

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
    "ټ": "Arabic teh with ring: a shallow bowl with two dots above it and a small ring below",
    "҂": "Cyrillic thousands sign: two short slanted strokes crossed by two more, like a tilted hash",
}

# The six columns, top to bottom: 27 symbols, the 15 shared ones at the places the authors' page
# shares them (the same file in two column folders). Any two columns share at most three symbols.
COLUMNS: tuple[tuple[str, ...], ...] = (
    ("Ϙ", "Ѧ", "ƛ", "Ϟ", "Ѭ", "ϗ", "Ͽ"),
    ("Ӭ", "Ϙ", "Ͽ", "Ҩ", "☆", "ϗ", "¿"),
    ("©", "Ѽ", "Ҩ", "Җ", "Ԇ", "ƛ", "☆"),
    ("б", "¶", "ѣ", "Ѭ", "Җ", "¿", "ټ"),
    ("ψ", "ټ", "ѣ", "Ͼ", "¶", "Ѯ", "★"),
    ("б", "Ӭ", "҂", "æ", "ψ", "Ҋ", "Ω"),
)
# Our earlier four columns (any two share at most two symbols), for `keypad_columns=4`.
COLUMNS_4: tuple[tuple[str, ...], ...] = (
    ("Ϙ", "Ѧ", "ƛ", "Ϟ", "Ѭ", "ϗ", "Ͼ"),
    ("Ӭ", "Ϙ", "Ͼ", "Ҩ", "☆", "¿", "©"),
    ("Ѽ", "Җ", "Ԇ", "ƛ", "б", "¶", "ѣ"),
    ("ψ", "Ͽ", "Ѯ", "★", "æ", "Ҋ", "Ω"),
)
TABLES: dict[int, tuple[tuple[str, ...], ...]] = {6: COLUMNS, 4: COLUMNS_4}

# the paper's Appendix A manual text (the columns themselves were its figure), in our words
PAPER_TEXT = (
    "Exactly one column holds all four symbols of the keypad. Press the four buttons in the order "
    "in which their symbols appear in that column, from top to bottom."
)

POSITIONS: tuple[str, ...] = ("top_left", "top_right", "bottom_left", "bottom_right")  # params order
# the actions in the authors' order (their module's list), column by column
ACTION_ORDER: tuple[str, ...] = ("top_left", "bottom_left", "top_right", "bottom_right")


def action_for(position: str) -> str:
    return f"press_{position}_button"


class KeypadModule(PuzzleModule):
    name: ClassVar[str] = "keypad"
    title: ClassVar[str] = "Keypad Puzzle"

    generation_options: ClassVar[tuple[str, ...]] = ("columns",)
    derived: ClassVar[frozenset[str]] = frozenset({"table"})

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        # instances made before the six-column page used the four-column one
        columns = int(params.get("columns", 4))
        if columns not in TABLES:
            raise ValueError(f"the keypad manual has 6 (or our 4) columns, not {columns}")
        self.table = TABLES[columns]
        self.symbols: list[str] = list(params["symbols"])  # in POSITIONS order
        column = self.table[int(params["column"])]
        if len(self.symbols) != 4 or not set(self.symbols) <= set(column):
            raise ValueError(
                f"keypad symbols {self.symbols} are not four symbols of column {params['column']}"
            )
        # positions in the order they must be pressed
        self.order: list[str] = sorted(
            POSITIONS, key=lambda p: column.index(self.symbols[POSITIONS.index(p)])
        )
        self.progress = 0  # keys pressed in the right order so far
        self.scored = 0  # keys in order at the last correct press (the authors' score)

    @classmethod
    def generate(cls, rng: random.Random, columns: int = 6) -> dict[str, Any]:
        table = TABLES[columns]
        column = rng.randrange(len(table))
        chosen = rng.sample(table[column], 4)  # already in a random placement order
        return {"columns": columns, "column": column, "symbols": chosen}

    def manual(self) -> str:  # type: ignore[override]
        """The text-only manual: the paper's text and every column with its glyphs described."""
        lines = ["KEYPAD PUZZLE", "", PAPER_TEXT, ""]
        for i, column in enumerate(self.table, 1):
            lines.append(f"Column {i} (top to bottom):")
            lines.extend(f"  {k}. {s}  - {SYMBOLS[s]}" for k, s in enumerate(column, 1))
            lines.append("")
        return "\n".join(lines).rstrip()

    def manual_beside_image(self) -> str:
        return f"KEYPAD PUZZLE\n\n{PAPER_TEXT}\n\nThe columns are in the picture of the manual page."

    def manual_image(self) -> Image.Image:
        return manual_page(self.table)

    def actions(self) -> list[str]:
        return [] if self.solved else self.action_vocabulary()

    def action_vocabulary(self) -> list[str]:
        return [action_for(p) for p in ACTION_ORDER]

    @property
    def lights(self) -> bool:
        """Keys pressed in order light up (ours); the authors' keys show nothing."""
        return bool(self.options.get("keypad_lights"))

    def apply(self, action: str, clock: float) -> ActionResult:
        if self.solved:
            return ActionResult("The module is already disarmed.", changed=False)
        position = next((p for p in POSITIONS if action_for(p) == action), None)
        if position is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        label = position.replace("_", " ")
        if position == self.order[self.progress]:
            self.progress += 1
            self.scored = self.progress
            if self.solved:
                return ActionResult(
                    f"The {label} key was the next one. All four keys are pressed in order: the module "
                    "is disarmed."
                )
            return ActionResult(f"The {label} key was the next one ({self.progress} of 4 in order).")
        self.progress = 0
        return ActionResult(
            f"Strike! The {label} key was not the next one; the sequence starts again.", mistake=True
        )

    @property
    def solved(self) -> bool:
        return self.progress == 4

    def partial_score(self) -> float:
        return self.scored / 4

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
            if self.lights:
                draw.lamp(d, (bx + size // 2, by + 16), 8, draw.LIGHT_SOLVED if position in lit else None)
            draw_centered_text(d, (bx + size / 2, by + size / 2 + 12), self.symbols[i], glyph_font, draw.INK)
        return image

    def describe(self, clock: float) -> str:
        """What the solver sees: the symbols, and the lit keys only when keys light up (ours)."""
        keys = ", ".join(f"{p.replace('_', ' ')} {s}" for p, s in zip(POSITIONS, self.symbols, strict=True))
        if self.solved:
            return f"Keypad symbols: {keys}. The module is disarmed."
        if not self.lights:
            return f"Keypad symbols: {keys}."
        lit = ", ".join(p.replace("_", " ") for p in self.order[: self.progress]) or "none"
        return f"Keypad symbols: {keys}. Lit keys: {lit}."

    def state_key(self, clock: float) -> str:
        # a repeated mistake is one made at the same point of the sequence, seen or not
        return f"{self.describe(clock)} progress={self.progress}"

    def oracle_actions(self, clock: float) -> list[str]:
        return [action_for(p) for p in self.order[self.progress :]]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        column = int(self.params["column"]) + 1  # the page numbers its columns from 1
        order = ", ".join(self.symbols[POSITIONS.index(p)] for p in self.order)
        return (
            f"Your symbols are all in column {column}; their order there is {order}. Press, one per line:\n"
            + "\n".join(self.oracle_actions(clock))
        )


@lru_cache(maxsize=2)
def manual_page(table: tuple[tuple[str, ...], ...]) -> Image.Image:
    """The manual's symbol page: the columns side by side, numbered, seven boxed glyphs each."""
    cell, gap, margin, head = 96, 18, 28, 86
    width = 2 * margin + len(table) * cell + (len(table) - 1) * gap
    height = head + 7 * cell + margin
    page = Image.new("RGB", (width, height), (250, 248, 240))
    d = ImageDraw.Draw(page)
    draw_centered_text(d, (width / 2, 30), "KEYPAD - SYMBOL COLUMNS", draw.font(26, "bold"), draw.INK)
    glyph_font = draw.font(62, "sans")
    for c, column in enumerate(table):
        x = margin + c * (cell + gap)
        draw_centered_text(d, (x + cell / 2, head - 22), f"Column {c + 1}", draw.font(18, "bold"), draw.INK)
        for r, symbol in enumerate(column):
            y = head + r * cell
            d.rectangle((x, y, x + cell, y + cell), fill=(255, 255, 255), outline=draw.INK, width=2)
            draw_centered_text(d, (x + cell / 2, y + cell / 2 + 4), symbol, glyph_font, draw.INK)
    return page
