"""Wire puzzle: 3 to 6 coloured wires, exactly one of which must be cut.

Which wire is correct depends on the number of wires, their colours and order (top to bottom), and
for some branches the parity of the serial number's last digit. Cutting any other wire is a strike,
also cutting a wire that is already cut (the authors' `modules/wires.py` checks every cut); the
module is disarmed the moment the correct wire is cut. As in the authors' module the picture does
not change when a wire is cut; `mark_cut_wires` (ours, off by default) draws a gap in cut wires.
"""

from __future__ import annotations

import random
from typing import Any

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

COLORS: tuple[str, ...] = ("red", "blue", "yellow", "black", "white")
MIN_WIRES, MAX_WIRES = 3, 6


def correct_wire(colors: list[str], serial: str) -> int:
    """The 1-based index of the wire to cut, by the manual's rules for this many wires."""
    n = len(colors)
    count = colors.count
    odd = int(serial[-1]) % 2 == 1
    last = colors[-1]

    def last_of(color: str) -> int:
        return max(i for i, c in enumerate(colors) if c == color) + 1

    if n == 3:
        if count("red") == 0:
            return 2
        if last == "white":
            return n
        if count("blue") > 1:
            return last_of("blue")
        return n
    if n == 4:
        if count("red") > 1 and odd:
            return last_of("red")
        if last == "yellow" and count("red") == 0:
            return 1
        if count("blue") == 1:
            return 1
        if count("yellow") > 1:
            return n
        return 2
    if n == 5:
        if last == "black" and odd:
            return 4
        if count("red") == 1 and count("yellow") > 1:
            return 1
        if count("black") == 0:
            return 2
        return 1
    if n == 6:
        if count("yellow") == 0 and odd:
            return 3
        if count("yellow") == 1 and count("white") > 1:
            return 4
        if count("red") == 0:
            return n
        return 4
    raise ValueError(f"a wire module has {MIN_WIRES}-{MAX_WIRES} wires, not {n}")


# the paper's Appendix A manual, in our words
MANUAL = """\
WIRE PUZZLE

The module has 3 to 6 wires. Cutting the one correct wire disarms it. Wires are counted from the
top: the first wire is the top one.

3 wires:
- If no wire is red, cut the second wire.
- Else, if the last wire is white, cut the last wire.
- Else, if more than one wire is blue, cut the last blue wire.
- Else, cut the last wire.

4 wires:
- If more than one wire is red and the serial number ends in an odd digit, cut the last red wire.
- Else, if the last wire is yellow and no wire is red, cut the first wire.
- Else, if exactly one wire is blue, cut the first wire.
- Else, if more than one wire is yellow, cut the last wire.
- Else, cut the second wire.

5 wires:
- If the last wire is black and the serial number ends in an odd digit, cut the fourth wire.
- Else, if exactly one wire is red and more than one wire is yellow, cut the first wire.
- Else, if no wire is black, cut the second wire.
- Else, cut the first wire.

6 wires:
- If no wire is yellow and the serial number ends in an odd digit, cut the third wire.
- Else, if exactly one wire is yellow and more than one wire is white, cut the fourth wire.
- Else, if no wire is red, cut the last wire.
- Else, cut the fourth wire.
"""


class WireModule(PuzzleModule):
    name = "wire"
    title = "Wire Puzzle"
    realtime = False

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.colors: list[str] = list(params["colors"])
        self.serial: str = str(params["serial"])
        if not MIN_WIRES <= len(self.colors) <= MAX_WIRES:
            raise ValueError(f"a wire module has {MIN_WIRES}-{MAX_WIRES} wires, got {len(self.colors)}")
        unknown = sorted(set(self.colors) - set(COLORS))
        if unknown:
            raise ValueError(f"unknown wire colours {unknown}; known: {', '.join(COLORS)}")
        if len(self.serial) != 6 or not self.serial.isdigit():
            raise ValueError(f"serial number must be 6 digits, got {self.serial!r}")
        self.answer = correct_wire(self.colors, self.serial)
        self.cut: list[bool] = [False] * len(self.colors)

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        n = rng.randint(MIN_WIRES, MAX_WIRES)
        colors = [rng.choice(COLORS) for _ in range(n)]
        serial = "".join(str(rng.randint(0, 9)) for _ in range(6))
        return {"colors": colors, "serial": serial}

    @classmethod
    def manual(cls) -> str:
        return MANUAL

    def actions(self) -> list[str]:
        return [f"cut_wire_{i}" for i in range(1, len(self.colors) + 1)]

    def apply(self, action: str, clock: float) -> ActionResult:
        if action not in self.actions():
            return ActionResult(f"{action!r} is not an action of this module.", mistake=False, changed=False)
        index = int(action.rsplit("_", 1)[1])
        if self.solved:
            return ActionResult("The module is already disarmed.", mistake=False, changed=False)
        if self.cut[index - 1]:  # the correct wire is never cut here: that would have disarmed it
            return ActionResult(
                f"Wire {index} is already cut. Strike: that was not the correct wire.", mistake=True
            )
        self.cut[index - 1] = True
        if index == self.answer:
            return ActionResult(f"Wire {index} is cut. The module is disarmed.")
        return ActionResult(f"Wire {index} is cut. Strike: that was not the correct wire.", mistake=True)

    @property
    def solved(self) -> bool:
        return self.cut[self.answer - 1]

    def partial_score(self) -> float:
        return 1.0 if self.solved else 0.0

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        draw.caption(d, (x0 + 16, y0 + 12), f"Serial Number: {self.serial}", size=20)
        n = len(self.colors)
        top = y0 + 48
        left, right = x0 + 80, x1 - 36
        spacing = (y1 - 12 - top) / n
        number_font = draw.font(26, "bold")
        for i, color in enumerate(self.colors):
            y = round(top + spacing * (i + 0.5))
            draw_centered_text(d, (x0 + 38, y), str(i + 1), number_font, draw.INK)
            for x in (left, right):  # the terminals the wire runs between
                d.rectangle(
                    (x - 12, y - 16, x + 12, y + 16), fill=(95, 95, 92), outline=draw.PANEL_EDGE, width=2
                )
            if self.cut[i] and self.options.get("mark_cut_wires"):
                middle = (left + right) // 2
                segments = [(left, middle - 26), (middle + 26, right)]
            else:
                segments = [(left, right)]
            for a, b in segments:
                # a dark outline keeps white and black wires visible on the light panel
                d.rectangle((a, y - 9, b, y + 9), fill=(30, 30, 30))
                d.rectangle((a, y - 6, b, y + 6), fill=draw.COLORS[color])
        return image

    def describe(self, clock: float) -> str:
        parity = "odd" if int(self.serial[-1]) % 2 else "even"
        wires = ", ".join(
            f"{i} {color}{' (cut)' if self.cut[i - 1] else ''}" for i, color in enumerate(self.colors, 1)
        )
        state = "disarmed" if self.solved else "not disarmed"
        return (
            f"{len(self.colors)} wires, from top to bottom: {wires}. Serial number {self.serial} "
            f"(last digit {self.serial[-1]}, {parity}). The module is {state}."
        )

    def oracle_actions(self, clock: float) -> list[str]:
        if self.solved:
            return []
        return [f"cut_wire_{self.answer}"]
