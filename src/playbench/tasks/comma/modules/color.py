"""Color puzzle: turn a 4x4 grid of coloured squares white, one group of squares per stage.

Stage 1's group is the colour with the fewest squares (ties go to the earlier colour in the order
red, blue, green, yellow, magenta). After that, the paper's table names the next group from the
number of white squares and the group pressed before. A group is every square of one colour, or
every non-white square of the topmost row (or leftmost column) that still has non-white squares.
Pressing a square of the group turns it white; a stage ends when the whole group is white. Pressing
a non-white square outside the group is a strike and resets the module.

As in the authors' module (`modules/colour.py` of pschwendy/multimodal_comms): the grid is drawn at
random and then its first five squares (in reading order) take red, blue, green, yellow and
magenta, so every colour is present; after each stage every non-white square takes a new random
colour and, while at least five are left, the first five non-white squares again take the five
colours. The draws come from a seed fixed by the instance and the stage, so runs are reproducible.
A reset restores the starting grid; pressing an already white square does nothing. Partial score,
as the authors' `get_score`: the most white squares reached / 16. Choice (ours): if the table
names a colour with no square left (possible only with fewer than five non-white squares), one
non-white square takes that colour, so the named group is never empty and the module stays
solvable. The actions are the authors': `click_row_R_col_C` with rows and columns numbered 0-3 from
the top left, in reading order; the picture and the descriptions number them the same way.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

from playbench.core.task import derive_seed
from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow", "magenta")
GROUPS: tuple[str, ...] = (*COLORS, "row", "column")  # the table's "previously pressed" keys, in order
SIZE = 4

# white squares -> next group for each previously pressed group (GROUPS order)
TABLE: dict[int, tuple[str, ...]] = {
    1: ("blue", "column", "red", "yellow", "row", "green", "magenta"),
    2: ("row", "green", "blue", "magenta", "red", "column", "yellow"),
    3: ("yellow", "magenta", "green", "row", "blue", "red", "column"),
    4: ("blue", "green", "yellow", "column", "red", "row", "magenta"),
    5: ("yellow", "row", "blue", "magenta", "column", "red", "green"),
    6: ("magenta", "red", "yellow", "green", "column", "blue", "row"),
    7: ("green", "row", "column", "blue", "magenta", "yellow", "red"),
    8: ("magenta", "red", "green", "blue", "yellow", "column", "row"),
    9: ("column", "yellow", "red", "green", "row", "magenta", "blue"),
    10: ("green", "column", "row", "red", "magenta", "blue", "yellow"),
    11: ("red", "yellow", "row", "column", "green", "magenta", "blue"),
    12: ("column", "row", "column", "row", "row", "column", "row"),
    13: ("row", "column", "row", "column", "row", "column", "column"),
    14: ("column", "column", "row", "row", "column", "row", "column"),
    15: ("row", "row", "column", "row", "column", "column", "row"),
}


def action_for(index: int) -> str:
    row, col = divmod(index, SIZE)
    return f"click_row_{row}_col_{col}"  # the authors' names: rows and columns from 0


def group_members(grid: list[str], group: str) -> set[int]:
    """Indices of the squares that form `group` in `grid` (empty if none)."""
    if group in COLORS:
        return {i for i, c in enumerate(grid) if c == group}
    lines = (
        [[r * SIZE + c for c in range(SIZE)] for r in range(SIZE)]
        if group == "row"
        else [[r * SIZE + c for r in range(SIZE)] for c in range(SIZE)]
    )
    for line in lines:
        members = {i for i in line if grid[i] != "white"}
        if members:
            return members
    return set()


def first_group(grid: list[str]) -> str:
    """The colour with the fewest squares (present on the grid); ties go to the earlier colour."""
    counts = [(grid.count(c), k, c) for k, c in enumerate(COLORS) if grid.count(c) > 0]
    return min(counts)[2]


def _with_every_colour(grid: list[str]) -> list[str]:
    """The authors' rule: with at least five non-white squares, the first five take the five colours."""
    non_white = [i for i, c in enumerate(grid) if c != "white"]
    if len(non_white) >= len(COLORS):
        for i, color in zip(non_white, COLORS, strict=False):
            grid[i] = color
    return grid


class ColorModule(PuzzleModule):
    name: ClassVar[str] = "color"
    title: ClassVar[str] = "Color Puzzle"

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.start: list[str] = list(params["grid"])
        self.best = 0
        self._reset()

    def _reset(self) -> None:
        self.grid = list(self.start)
        self.stage = 1
        self.previous: str | None = None
        self.target = first_group(self.grid)
        self.group = group_members(self.grid, self.target)

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        grid = _with_every_colour([rng.choice(COLORS) for _ in range(SIZE * SIZE)])
        return {"grid": grid, "seed": rng.randrange(2**31)}

    @classmethod
    def manual(cls) -> str:
        rows = "\n".join(
            f"- {whites} white: " + ", ".join(f"{g} -> {n}" for g, n in zip(GROUPS, nxt, strict=True))
            for whites, nxt in TABLE.items()
        )
        # the paper's Appendix A manual, in our words
        return (
            "COLOR PUZZLE\n"
            "\n"
            "Press every square of the correct group to move the module on. A pressed square lights up "
            "white. The module is disarmed when every square is white.\n"
            "To begin, press the colour group with the fewest squares. On a tie, take the colour that "
            "comes first in this list: red, blue, green, yellow, magenta.\n"
            "After that, the table below gives the group to press at each stage. A group is all squares "
            "of one colour, or all non-white squares of the topmost row, or of the leftmost column, that "
            "still has non-white squares. Pressing a wrong square causes a strike and resets the module. "
            "White squares stay white until the end, but the non-white squares may change colour at each "
            "stage.\n"
            "\n"
            "Next group: look up the number of squares that are white now and the group pressed before "
            "(previously pressed group -> group to press now):\n" + rows
        )

    def actions(self) -> list[str]:
        return [] if self.solved else [action_for(i) for i in range(SIZE * SIZE)]

    def action_vocabulary(self) -> list[str]:
        return [action_for(i) for i in range(SIZE * SIZE)]

    def _advance(self) -> str:
        """The group just finished: recolour, pick the next group; returns feedback."""
        self.previous = self.target
        whites = self.grid.count("white")
        if whites == SIZE * SIZE:
            return "Every square is white: the module is disarmed."
        rng = random.Random(derive_seed("comma-color", self.params["seed"], self.stage))
        self.stage += 1
        self.grid = _with_every_colour([c if c == "white" else rng.choice(COLORS) for c in self.grid])
        self.target = TABLE[whites][GROUPS.index(self.previous)]
        if not group_members(self.grid, self.target):  # only a colour group can be empty here
            spot = rng.choice([i for i, c in enumerate(self.grid) if c != "white"])
            self.grid[spot] = self.target
        self.group = group_members(self.grid, self.target)
        return "That group is complete; the remaining squares may have changed colour."

    def apply(self, action: str, clock: float) -> ActionResult:
        if self.solved:
            return ActionResult("The module is already disarmed.", changed=False)
        index = next((i for i in range(SIZE * SIZE) if action_for(i) == action), None)
        if index is None:
            return ActionResult(f"'{action}' is not an action of this module.", changed=False)
        row, col = divmod(index, SIZE)
        where = f"row {row}, column {col}"
        if self.grid[index] == "white":
            return ActionResult(f"The square at {where} is already white; nothing happens.", changed=False)
        if index not in self.group:
            self._reset()
            return ActionResult(
                f"Strike! The square at {where} was not in the group; the module reset.", mistake=True
            )
        self.grid[index] = "white"
        self.best = max(self.best, self.grid.count("white"))
        if all(self.grid[i] == "white" for i in self.group):
            return ActionResult(f"The square at {where} turned white. " + self._advance())
        return ActionResult(f"The square at {where} turned white.")

    @property
    def solved(self) -> bool:
        return all(c == "white" for c in self.grid)

    def partial_score(self) -> float:
        return self.best / (SIZE * SIZE)

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        cell, gap = 84, 10
        grid_w = SIZE * cell + (SIZE - 1) * gap
        left = (x0 + x1) // 2 - grid_w // 2 + 14
        top = y0 + 44
        label_font = draw.font(18, "bold")
        for k in range(SIZE):
            c = left + k * (cell + gap) + cell / 2
            draw_centered_text(d, (c, top - 20), f"col {k}", label_font, draw.INK)
            r = top + k * (cell + gap) + cell / 2
            draw_centered_text(d, (left - 38, r), f"row {k}", draw.font(15, "bold"), draw.INK)
        for i, color in enumerate(self.grid):
            row, col = divmod(i, SIZE)
            bx, by = left + col * (cell + gap), top + row * (cell + gap)
            d.rounded_rectangle(
                (bx, by, bx + cell, by + cell),
                radius=6,
                fill=draw.COLORS[color],
                outline=draw.PANEL_EDGE,
                width=3,
            )
        return image

    def describe(self, clock: float) -> str:
        rows = "; ".join(f"row {r}: " + ", ".join(self.grid[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE))
        return f"Grid (left to right): {rows}."

    def state_key(self, clock: float) -> str:
        return f"{self.describe(clock)} group={self.target} previous={self.previous}"

    def oracle_actions(self, clock: float) -> list[str]:
        if self.solved:
            return []
        return [action_for(i) for i in sorted(self.group) if self.grid[i] != "white"]

    def oracle_instruction(self, clock: float) -> str:
        if self.solved:
            return "The module is disarmed; nothing more to do."
        whites = self.grid.count("white")
        if self.previous is None:
            why = (
                f"{self.target} has the fewest squares (ties by the order red, blue, green, yellow, magenta)"
            )
        else:
            why = f"with {whites} white squares after {self.previous}, the table says {self.target}"
        return f"Press the {self.target} group ({why}):\n" + "\n".join(self.oracle_actions(clock))
