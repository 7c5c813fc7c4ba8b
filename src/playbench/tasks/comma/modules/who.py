"""Who puzzle: a display word and six labelled buttons; one button is correct.

Step 1 maps the display word to a button position whose label must be read; step 2 maps that label
to a priority list of words, and the correct button is the first word of the list that is a label
on the module. Pressing any other button is a strike. The module has one stage. The six labels are
drawn from all 28 step-2 words, both word groups mixed, as the authors' generator does.
"""

from __future__ import annotations

import random
from typing import Any

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

POSITIONS: tuple[str, ...] = (
    "top_left",
    "top_right",
    "middle_left",
    "middle_right",
    "bottom_left",
    "bottom_right",
)
POSITION_WORDS = {p: p.replace("_", " ").title() for p in POSITIONS}  # "Top Left"

# Step 1: display word -> position of the button whose label is read. "" is an empty display,
# listed in the manual as (No Text); "BLANK" is the word BLANK written on the display.
STEP1: dict[str, str] = {
    "YES": "middle_left",
    "FIRST": "top_right",
    "DISPLAY": "bottom_right",
    "OKAY": "top_right",
    "SAYS": "bottom_right",
    "NOTHING": "middle_left",
    "": "bottom_left",
    "BLANK": "middle_right",
    "NO": "bottom_right",
    "LED": "middle_left",
    "LEAD": "bottom_right",
    "READ": "middle_right",
    "RED": "middle_right",
    "REED": "bottom_left",
    "LEED": "bottom_left",
    "HOLD ON": "bottom_right",
    "YOU": "middle_right",
    "YOU ARE": "bottom_right",
    "YOUR": "middle_right",
    "YOU'RE": "middle_right",
    "UR": "top_left",
    "THERE": "bottom_right",
    "THEY'RE": "bottom_left",
    "THEIR": "middle_right",
    "THEY ARE": "middle_left",
    "SEE": "bottom_right",
    "C": "top_right",
    "CEE": "bottom_right",
}


# Step 2: button label -> priority list; every list holds all fourteen words of its group,
# the label itself included, so the rule always names a button.
STEP2_TABLE = """
READY: YES, OKAY, WHAT, MIDDLE, LEFT, PRESS, RIGHT, BLANK, READY, NO, FIRST, UHHH, NOTHING, WAIT
FIRST: LEFT, OKAY, YES, MIDDLE, NO, RIGHT, NOTHING, UHHH, WAIT, READY, BLANK, WHAT, PRESS, FIRST
NO: BLANK, UHHH, WAIT, FIRST, WHAT, READY, RIGHT, YES, NOTHING, LEFT, PRESS, OKAY, NO, MIDDLE
BLANK: WAIT, RIGHT, OKAY, MIDDLE, BLANK, PRESS, READY, NOTHING, NO, WHAT, LEFT, UHHH, YES, FIRST
NOTHING: UHHH, RIGHT, OKAY, MIDDLE, YES, BLANK, NO, PRESS, LEFT, WHAT, WAIT, FIRST, NOTHING, READY
YES: OKAY, RIGHT, UHHH, MIDDLE, FIRST, WHAT, PRESS, READY, NOTHING, YES, LEFT, BLANK, NO, WAIT
WHAT: UHHH, WHAT, LEFT, NOTHING, READY, BLANK, MIDDLE, NO, OKAY, FIRST, WAIT, YES, PRESS, RIGHT
UHHH: READY, NOTHING, LEFT, WHAT, OKAY, YES, RIGHT, NO, PRESS, BLANK, UHHH, MIDDLE, WAIT, FIRST
LEFT: RIGHT, LEFT, FIRST, NO, MIDDLE, YES, BLANK, WHAT, UHHH, WAIT, PRESS, READY, OKAY, NOTHING
RIGHT: YES, NOTHING, READY, PRESS, NO, WAIT, WHAT, RIGHT, MIDDLE, LEFT, UHHH, BLANK, OKAY, FIRST
MIDDLE: BLANK, READY, OKAY, WHAT, NOTHING, PRESS, NO, WAIT, LEFT, MIDDLE, RIGHT, FIRST, UHHH, YES
OKAY: MIDDLE, NO, FIRST, YES, UHHH, NOTHING, WAIT, OKAY, LEFT, READY, BLANK, PRESS, WHAT, RIGHT
WAIT: UHHH, NO, BLANK, OKAY, YES, LEFT, FIRST, PRESS, WHAT, WAIT, NOTHING, READY, RIGHT, MIDDLE
PRESS: RIGHT, MIDDLE, YES, READY, PRESS, OKAY, NOTHING, UHHH, BLANK, LEFT, FIRST, WHAT, NO, WAIT
YOU: SURE, YOU ARE, YOUR, YOU'RE, NEXT, UH HUH, UR, HOLD, WHAT?, YOU, UH UH, LIKE, DONE, U
YOU ARE: YOUR, NEXT, LIKE, UH HUH, WHAT?, DONE, UH UH, HOLD, YOU, U, YOU'RE, SURE, UR, YOU ARE
YOUR: UH UH, YOU ARE, UH HUH, YOUR, NEXT, UR, SURE, U, YOU'RE, YOU, WHAT?, HOLD, LIKE, DONE
YOU'RE: YOU, YOU'RE, UR, NEXT, UH UH, YOU ARE, U, YOUR, WHAT?, UH HUH, SURE, DONE, LIKE, HOLD
UR: DONE, U, UR, UH HUH, WHAT?, SURE, YOUR, HOLD, YOU'RE, LIKE, NEXT, UH UH, YOU ARE, YOU
U: UH HUH, SURE, NEXT, WHAT?, YOU'RE, UR, UH UH, DONE, U, YOU, LIKE, HOLD, YOU ARE, YOUR
UH HUH: UH HUH, YOUR, YOU ARE, YOU, DONE, HOLD, UH UH, NEXT, SURE, LIKE, YOU'RE, UR, U, WHAT?
UH UH: UR, U, YOU ARE, YOU'RE, NEXT, UH UH, DONE, YOU, UH HUH, LIKE, YOUR, SURE, HOLD, WHAT?
WHAT?: YOU, HOLD, YOU'RE, YOUR, U, DONE, UH UH, LIKE, YOU ARE, UH HUH, UR, NEXT, WHAT?, SURE
DONE: SURE, UH HUH, NEXT, WHAT?, YOUR, UR, YOU'RE, HOLD, LIKE, YOU, U, YOU ARE, UH UH, DONE
NEXT: WHAT?, UH HUH, UH UH, YOUR, HOLD, SURE, NEXT, LIKE, DONE, YOU ARE, UR, YOU'RE, U, YOU
HOLD: YOU ARE, U, DONE, UH UH, YOU, UR, SURE, WHAT?, YOU'RE, NEXT, HOLD, UH HUH, YOUR, LIKE
SURE: YOU ARE, DONE, LIKE, YOU'RE, YOU, HOLD, UH HUH, UR, SURE, U, WHAT?, NEXT, YOUR, UH UH
LIKE: YOU'RE, NEXT, U, UR, HOLD, DONE, UH UH, WHAT?, UH HUH, YOU, LIKE, SURE, YOU ARE, YOUR
"""
STEP2: dict[str, tuple[str, ...]] = {
    label: tuple(word.strip() for word in words.split(","))
    for label, words in (line.split(": ", 1) for line in STEP2_TABLE.strip().splitlines())
}
# The two label groups: the first fourteen lists and the last fourteen each permute their group.
LABEL_GROUPS: tuple[tuple[str, ...], ...] = (tuple(STEP2)[:14], tuple(STEP2)[14:])


def display_name(display: str) -> str:
    """How the manual and the oracle refer to a display: the empty one is (No Text)."""
    return "(No Text)" if display == "" else f'"{display}"'


def correct_position(display: str, labels: dict[str, str]) -> str:
    """The position of the button to press: step 1 picks the label to read, step 2 the button."""
    read_label = labels[STEP1[display]]
    for word in STEP2[read_label]:
        for position in POSITIONS:
            if labels[position] == word:
                return position
    raise ValueError(f"no label of {labels} appears in the list for {read_label!r}")


def _manual() -> str:
    step1 = "\n".join(f"- {display_name(word)}: {POSITION_WORDS[pos]}" for word, pos in STEP1.items())
    step2 = "\n".join(f'- "{label}": {", ".join(words)}' for label, words in STEP2.items())
    # the paper's Appendix A manual, in our words
    return f"""\
WHO PUZZLE

1. Read the display and look it up in step 1 to learn which button's label to read.
2. Look that label up in step 2 to learn which button to press.

STEP 1: according to the display, ask the SOLVER to read the label of one button, then go on to step 2:
{step1}

STEP 2: for the label from step 1, press the first button whose label appears in that label's list:
{step2}
"""


MANUAL = _manual()


class WhoModule(PuzzleModule):
    name = "who"
    title = "Who Puzzle"
    realtime = False

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.display: str = str(params["display"])
        if self.display not in STEP1:
            raise ValueError(f"display word {self.display!r} is not in the step 1 table")
        labels = list(params["labels"])
        if len(labels) != len(POSITIONS) or len(set(labels)) != len(labels):
            raise ValueError(f"the module needs six distinct button labels, got {labels}")
        unknown = [label for label in labels if label not in STEP2]
        if unknown:
            raise ValueError(f"button labels {unknown} are not in the step 2 table")
        self.labels: dict[str, str] = dict(zip(POSITIONS, labels, strict=True))
        self.answer = correct_position(self.display, self.labels)
        self.pressed: list[str] = []

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        # as the authors' generator (`modules/who.py`): six distinct labels from all 28 step-2 words,
        # both groups mixed; the label read is always in its own list, so an answer always exists
        display = rng.choice(list(STEP1))
        labels = rng.sample(list(STEP2), len(POSITIONS))
        return {"display": display, "labels": labels}

    @classmethod
    def manual(cls) -> str:
        return MANUAL

    def actions(self) -> list[str]:
        return [f"press_{position}_button" for position in POSITIONS]

    def apply(self, action: str, clock: float) -> ActionResult:
        if action not in self.actions():
            return ActionResult(f"{action!r} is not an action of this module.", mistake=False, changed=False)
        if self.solved:
            return ActionResult("The module is already disarmed.", mistake=False, changed=False)
        position = action.removeprefix("press_").removesuffix("_button")
        self.pressed.append(position)
        where = POSITION_WORDS[position].lower()
        if position == self.answer:
            return ActionResult(
                f'You pressed the {where} button ("{self.labels[position]}"). The module is disarmed.'
            )
        return ActionResult(
            f'You pressed the {where} button ("{self.labels[position]}"). '
            "Strike: that was not the correct button.",
            mistake=True,
        )

    @property
    def solved(self) -> bool:
        return self.answer in self.pressed

    def partial_score(self) -> float:
        return 1.0 if self.solved else 0.0

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        screen = (x0 + 40, y0 + 20, x1 - 40, y0 + 100)
        d.rectangle(screen, fill=(18, 40, 30), outline=draw.PANEL_EDGE, width=4)
        if self.display:
            size = 48 if len(self.display) <= 7 else 40
            center = ((screen[0] + screen[2]) / 2, (screen[1] + screen[3]) / 2)
            draw_centered_text(d, center, self.display, draw.font(size, "bold"), (120, 255, 160))
        gap, top = 22, y0 + 124
        button_w = (x1 - x0 - 80 - gap) // 2
        button_h = (y1 - 16 - top - 2 * gap) // 3
        for index, position in enumerate(POSITIONS):
            row, col = divmod(index, 2)
            bx = x0 + 40 + col * (button_w + gap)
            by = top + row * (button_h + gap)
            draw.button_box(d, (bx, by, bx + button_w, by + button_h), self.labels[position], size=28)
        return image

    def describe(self, clock: float) -> str:
        shown = "nothing (it is empty)" if self.display == "" else f'"{self.display}"'
        buttons = "; ".join(f'{POSITION_WORDS[p].lower()} "{self.labels[p]}"' for p in POSITIONS)
        state = "disarmed" if self.solved else "not disarmed"
        return f"The display shows {shown}. Buttons: {buttons}. The module is {state}."

    def oracle_actions(self, clock: float) -> list[str]:
        if self.solved:
            return []
        return [f"press_{self.answer}_button"]
