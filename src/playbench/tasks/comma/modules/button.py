"""Button puzzle (real time): tap or hold a coloured button; a held button is released by the timer.

The paper's manual keeps only two clauses: a yellow button is held, and a held button is released
when the countdown shows a digit chosen by the colour of the strip that lights up while it is held
(blue 4, white 1, yellow 5, any other colour 1). The clauses for the other button colours were lost
with the manual's figure; ours (Choice, in the README) decide by the button's colour alone, as the
paper's puzzle list says (button colour, strip colour, time):

- yellow or blue button: hold it, then release by the strip rule;
- red or white button: press and immediately release it (tap).

The strip colour is fixed per instance and shown only while the button is held. A wrong tap, a
release at the wrong time or releasing a button that should have been tapped is a strike; after a
strike the button is released and can be tried again.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from PIL import Image

from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

BUTTON_COLORS: tuple[str, ...] = ("red", "blue", "yellow", "white")
STRIP_COLORS: tuple[str, ...] = ("blue", "white", "yellow", "red")
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

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.color: str = params["button_color"]
        self.strip: str = params["strip_color"]
        self.held = False
        self._solved = False

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        return {"button_color": rng.choice(BUTTON_COLORS), "strip_color": rng.choice(STRIP_COLORS)}

    @classmethod
    def manual(cls) -> str:
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
        return [RELEASE] if self.held else [TAP, HOLD]

    def action_vocabulary(self) -> list[str]:
        return [TAP, HOLD, RELEASE]

    def apply(self, action: str, clock: float) -> ActionResult:
        if self._solved:
            return ActionResult("The module is already disarmed.", changed=False)
        if action == TAP:
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

    def oracle_actions(self, clock: float) -> list[str]:
        if self._solved:
            return []
        if not self._must_hold():
            return [RELEASE] if self.held else [TAP]
        ready = shows_digit(clock, release_digit(self.strip))
        if self.held:
            return [RELEASE] if ready else []
        # hold now; when the digit is already showing, release in the same instant
        return [HOLD, RELEASE] if ready else [HOLD]

    def oracle_instruction(self, clock: float) -> str:
        if self._solved:
            return "The module is disarmed; nothing more to do."
        if not self._must_hold():
            if self.held:
                return f"A {self.color} button must be tapped. Let go now:\n{RELEASE}"
            return f"A {self.color} button is pressed and released at once:\n{TAP}"
        digit = release_digit(self.strip)
        actions = self.oracle_actions(clock)
        head = f"A {self.color} button is held. With a {self.strip} strip, release when the timer shows a {digit}."
        if not actions:
            return head + " Not yet: keep holding and wait for the digit."
        return head + " Do this now:\n" + "\n".join(actions)
