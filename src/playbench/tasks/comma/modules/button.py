"""Button puzzle (real time): hold a button and release it when the timer shows the strip's digit.

The paper's manual and the authors' generator (`modules/old/button.py` of pschwendy/multimodal_comms,
the module the paper ran before it was replaced) cover yellow buttons only: a yellow button is held,
and a held button is released when the countdown shows a digit chosen by the colour of the strip
that lights up while it is held (blue 4, white 1, yellow 5, any other colour 1). The strip is red,
white, yellow, blue or green, fixed per instance and shown only while the button is held. That is
the default palette, `yellow`.

The palette `all` (ours, an option off by default) adds red, blue and white buttons with rules of
our own for the clauses the paper lost with its figure: yellow and blue buttons are held, red and
white ones tapped (`tap_button`), and the strip is blue, white, yellow or red.

Releasing at the wrong time (or, in `all`, a wrong tap or releasing a button to be tapped) is a
strike; after a strike the button is released and can be tried again.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import MAX_WAIT, ActionResult, PuzzleModule, wait_line

PALETTES: tuple[str, ...] = ("yellow", "all")
BUTTON_COLORS: tuple[str, ...] = ("red", "blue", "yellow", "white")  # palette "all" (ours)
STRIP_COLORS: tuple[str, ...] = ("blue", "white", "yellow", "red")  # palette "all" (ours)
# the authors' generator: a yellow button labelled PRESS, a strip of one of five colours
PAPER_STRIP_COLORS: tuple[str, ...] = ("red", "white", "yellow", "blue", "green")
HOLD_COLORS: frozenset[str] = frozenset({"yellow", "blue"})
RELEASE_DIGIT: dict[str, str] = {"blue": "4", "white": "1", "yellow": "5"}
OTHER_STRIP_DIGIT = "1"

TAP, HOLD, RELEASE = "tap_button", "hold_button", "release_button"


def release_digit(strip: str) -> str:
    """The digit the countdown must show (in any position) to release a held button."""
    return RELEASE_DIGIT.get(strip, OTHER_STRIP_DIGIT)


def shows_digit(clock: float, digit: str) -> bool:
    """True when the MM:SS countdown has `digit` in any position."""
    return digit in draw.format_clock(clock).replace(":", "")


class ButtonModule(PuzzleModule):
    name: ClassVar[str] = "button"
    title: ClassVar[str] = "Button Puzzle"
    realtime: ClassVar[bool] = True

    generation_options: ClassVar[tuple[str, ...]] = ("palette",)
    derived: ClassVar[frozenset[str]] = frozenset({"palette"})

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.color: str = params["button_color"]
        self.strip: str = params["strip_color"]
        # instances made before the palette option were drawn from every colour
        self.palette: str = params.get("palette", "all")
        if self.palette not in PALETTES:
            raise ValueError(f"palette {self.palette!r} is not one of {', '.join(PALETTES)}")
        if self.palette == "yellow" and self.color != "yellow":
            raise ValueError(f"the yellow palette has yellow buttons only, not {self.color}")
        self.held = False
        self._solved = False

    @classmethod
    def generate(cls, rng: random.Random, palette: str = "yellow") -> dict[str, Any]:
        if palette == "yellow":
            return {
                "button_color": "yellow",
                "strip_color": rng.choice(PAPER_STRIP_COLORS),
                "palette": palette,
            }
        return {
            "button_color": rng.choice(BUTTON_COLORS),
            "strip_color": rng.choice(STRIP_COLORS),
            "palette": palette,
        }

    def manual(self) -> str:  # type: ignore[override]
        if self.palette == "yellow":
            return PAPER_MANUAL
        return (
            "The module has one large coloured button, an unlit strip to its right and the countdown "
            "timer (Time Left, minutes:seconds).\n"
            "\n"
            "Step 1 - what to do with the button, by its colour:\n"
            "- Yellow button: hold it down (action hold_button) and release it by the rules of step 2.\n"
            "- Blue button: hold it down (hold_button) and release it by the rules of step 2.\n"
            "- Red button: press it and let go at once (action tap_button).\n"
            "- White button: press it and let go at once (tap_button).\n"
            "\n"
            "Step 2 - releasing a held button. While the button is held, the strip lights up in one "
            "colour. Release the button (action release_button) at a moment when the countdown timer "
            "shows a particular digit in any of its positions:\n"
            "- Blue strip: release when the timer shows a 4 anywhere.\n"
            "- White strip: release when the timer shows a 1 anywhere.\n"
            "- Yellow strip: release when the timer shows a 5 anywhere.\n"
            "- A strip of any other colour: release when the timer shows a 1 anywhere.\n"
            "\n"
            "Releasing at any other moment, tapping a button that must be held, or releasing a button "
            "that should have been tapped is a strike; the button is then released and can be tried again."
        )

    def _must_hold(self) -> bool:
        return self.color in HOLD_COLORS

    def actions(self) -> list[str]:
        if self._solved:
            return []
        if self.held:
            return [RELEASE]
        return [HOLD] if self.palette == "yellow" else [TAP, HOLD]

    def action_vocabulary(self) -> list[str]:
        return [HOLD, RELEASE] if self.palette == "yellow" else [TAP, HOLD, RELEASE]

    def apply(self, action: str, clock: float) -> ActionResult:
        if self._solved:
            return ActionResult("The module is already disarmed.", changed=False)
        if action == TAP and self.palette == "all":
            if self.held:
                return ActionResult("The button is being held; release it instead.", changed=False)
            if self._must_hold():
                return ActionResult("Strike! This button had to be held, not tapped.", mistake=True)
            self._solved = True
            return ActionResult("You tapped the button. The module is disarmed.")
        if action == HOLD:
            if self.held:
                return ActionResult("You are already holding the button.", changed=False)
            self.held = True
            return ActionResult(f"You are holding the button. The strip lights up {self.strip}.")
        if action == RELEASE:
            if not self.held:
                return ActionResult("The button is not being held.", changed=False)
            self.held = False
            if not self._must_hold():
                return ActionResult("Strike! This button had to be tapped, not held.", mistake=True)
            digit = release_digit(self.strip)
            if not shows_digit(clock, digit):
                return ActionResult(
                    f"Strike! You released the button at {draw.format_clock(clock)}, the wrong moment.",
                    mistake=True,
                )
            self._solved = True
            return ActionResult(
                f"You released the button at {draw.format_clock(clock)}. The module is disarmed."
            )
        return ActionResult(f"'{action}' is not an action of this module.", changed=False)

    @property
    def solved(self) -> bool:
        return self._solved

    def partial_score(self) -> float:
        return 1.0 if self._solved else 0.0  # a single-step puzzle: partial score equals success

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self._solved)
        cx, cy, r = (x0 + x1) // 2 - 50, (y0 + y1) // 2, 125
        pressed = 6 if self.held else 0
        d.ellipse((cx - r - 8, cy - r - 8, cx + r + 8, cy + r + 8), fill=(70, 70, 70))  # the collar
        d.ellipse(
            (cx - r + pressed, cy - r + pressed, cx + r, cy + r),
            fill=draw.COLORS[self.color],
            outline=draw.PANEL_EDGE,
            width=4,
        )
        draw_centered_text(d, (cx + pressed / 2, cy + pressed / 2), "PRESS", draw.font(44, "bold"), draw.INK)
        sx0, sy0 = x1 - 80, y0 + 40
        strip_fill = draw.COLORS[self.strip] if self.held else (60, 60, 60)
        d.rounded_rectangle(
            (sx0, sy0, sx0 + 44, y1 - 40), radius=6, fill=strip_fill, outline=draw.PANEL_EDGE, width=3
        )
        draw.caption(d, (sx0 - 6, y1 - 34), "STRIP", 14)
        draw.caption(d, (x0 + 14, y1 - 30), "HELD DOWN" if self.held else "", 16)
        return image

    def describe(self, clock: float) -> str:
        strip = f"lit {self.strip}" if self.held else "unlit"
        state = "held down" if self.held else "not held"
        solved = " The module is disarmed." if self._solved else ""
        return (
            f"A {self.color} button ({state}); the strip is {strip}; "
            f"the timer shows {draw.format_clock(clock)}.{solved}"
        )

    def state_key(self, clock: float) -> str:
        # The situation as the rules read it. The countdown never shows the same time twice, so
        # keeping the whole reading would make every state new and hide any repetition loop; it
        # matters only to a release, through whether it shows the strip's digit.
        if not self.held:
            return f"{self.color} button, not held"
        digit = release_digit(self.strip)
        shows = "shows" if shows_digit(clock, digit) else "does not show"
        return f"{self.color} button held, strip lit {self.strip}, the timer {shows} a {digit}"

    def _wait_for_digit(self, clock: float) -> int:
        """Seconds (0 = now) until the timer shows the strip's digit."""
        digit = release_digit(self.strip)
        return next(w for w in range(MAX_WAIT + 1) if shows_digit(clock - w, digit))

    def oracle_actions(self, clock: float, waits: bool = False) -> list[str]:
        if self._solved:
            return []
        if not self._must_hold():
            return [RELEASE] if self.held else [TAP]
        wait = self._wait_for_digit(clock)
        hold = [] if self.held else [HOLD]
        if wait == 0:
            return [*hold, RELEASE]  # when the digit is already showing, release in the same instant
        if waits:
            return [*hold, wait_line(wait), RELEASE]
        return hold

    def oracle_instruction(self, clock: float, waits: bool = False) -> str:
        if self._solved:
            return "The module is disarmed; nothing more to do."
        if not self._must_hold():
            if self.held:
                return f"A {self.color} button must be tapped. Let go now:\n{RELEASE}"
            return f"A {self.color} button is pressed and released at once:\n{TAP}"
        digit = release_digit(self.strip)
        actions = self.oracle_actions(clock, waits=waits)
        head = f"A {self.color} button is held. With a {self.strip} strip, release when the timer shows a {digit}."
        if not actions:
            return head + " Not yet: keep holding and wait for the digit."
        return head + " Do this now:\n" + "\n".join(actions)


PAPER_MANUAL = """\
BUTTON PUZZLE

If the button is yellow, hold it down and use the rules below to decide when to let it go.

While the button is held down, a strip on the right side of the module lights up in a colour.
The strip's colour tells when to release the button:
- Blue strip: release when the countdown timer shows a 4 in any position.
- White strip: release when the countdown timer shows a 1 in any position.
- Yellow strip: release when the countdown timer shows a 5 in any position.
- A strip of any other colour: release when the countdown timer shows a 1 in any position.
"""
