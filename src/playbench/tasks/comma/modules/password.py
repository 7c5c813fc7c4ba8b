"""Password puzzle: five letter slots, each cycling through three alphabetically consecutive letters.

Exactly one combination of the slots' letters spells a word of the manual's list; set it and press
submit. Submitting anything else is a strike. The solver sees only the letter each slot shows now
and must cycle a slot (its up or down button) to see its other letters. The actions are the
authors': `up_button_N` and `down_button_N` for slot N (1-5, left to right), listed slot by slot
(up, then down), then `submit`.
"""

from __future__ import annotations

import random
from string import ascii_uppercase
from typing import Any

from PIL import Image

from playbench.render.draw2d import draw_centered_text
from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule

WORDS: tuple[str, ...] = (
    "about", "after", "again", "below", "could", "every", "first", "found", "great", "house",
    "large", "learn", "never", "other", "place", "plant", "point", "right", "small", "sound",
    "spell", "still", "study", "their", "there", "these", "thing", "think", "three", "water",
    "where", "which", "world", "would", "write",
)  # fmt: skip
SLOTS = 5
CYCLE = 3  # letters per slot, consecutive in the alphabet


def cycle_letters(start: str) -> str:
    """The three letters of a slot whose cycle begins at `start` (e.g. "R" -> "RST"); past Z it wraps
    to A, which only the authors' puzzle set uses (their cycles are a letter and its two neighbours)."""
    first = ascii_uppercase.index(start)
    return "".join(ascii_uppercase[(first + k) % 26] for k in range(CYCLE))


def spellable(starts: list[str]) -> list[str]:
    """Every listed word the slots can spell (the generator keeps exactly one)."""
    cycles = [cycle_letters(s) for s in starts]
    return [w for w in WORDS if all(letter.upper() in cycle for letter, cycle in zip(w, cycles, strict=True))]


# the paper's Appendix A manual, in our words
MANUAL = f"""\
PASSWORD PUZZLE

The buttons above and below each letter cycle through the letters possible at that position. Each
cycle holds 3 consecutive letters. Exactly one combination of the available letters spells a
password from the list below. Once the right word is set, press the submit button.

LIST OF POSSIBLE WORDS:
{", ".join(WORDS)}
"""


class PasswordModule(PuzzleModule):
    name = "password"
    title = "Password Puzzle"
    realtime = False

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        starts = [str(s).upper() for s in params["starts"]]
        shown = [int(i) for i in params["shown"]]
        if len(starts) != SLOTS or len(shown) != SLOTS:
            raise ValueError(f"a password module has {SLOTS} slots")
        # the authors' puzzle set names its answer: their cycles may wrap past Z and spell more words
        given = str(params["answer"]).upper() if "answer" in params else None
        first_letters = ascii_uppercase if given else ascii_uppercase[: 26 - CYCLE + 1]
        if any(s not in first_letters for s in starts):
            raise ValueError(f"slot cycles must start at A..X, got {starts}")
        if any(not 0 <= i < CYCLE for i in shown):
            raise ValueError(f"shown letter indices must be 0..{CYCLE - 1}, got {shown}")
        words = [w.upper() for w in spellable(starts)]
        if given is not None and given not in words:
            raise ValueError(f"the slots cannot spell the answer {given}")
        if given is None and len(words) != 1:
            raise ValueError(f"the slots must spell exactly one listed word, they spell {words}")
        self.starts = starts
        self.answer = given or words[0]
        self.shown = shown
        self.submitted = False

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        while True:
            word = rng.choice(WORDS).upper()
            starts = []
            for letter in word:
                index = ascii_uppercase.index(letter)
                options = [s for s in range(index - CYCLE + 1, index + 1) if 0 <= s <= 26 - CYCLE]
                starts.append(ascii_uppercase[rng.choice(options)])
            if len(spellable(starts)) != 1:
                continue  # another listed word fits these cycles too: draw again
            target = [cycle_letters(s).index(letter) for s, letter in zip(starts, word, strict=True)]
            shown = [rng.randrange(CYCLE) for _ in range(SLOTS)]
            if shown != target:  # never start on the answer
                return {"starts": starts, "shown": shown}

    @classmethod
    def manual(cls) -> str:
        return MANUAL

    def actions(self) -> list[str]:
        # the authors' names and order: up_button_1, down_button_1, up_button_2, ..., submit
        slots = range(1, SLOTS + 1)
        return [name for i in slots for name in (f"up_button_{i}", f"down_button_{i}")] + ["submit"]

    @property
    def current_word(self) -> str:
        return "".join(cycle_letters(s)[i] for s, i in zip(self.starts, self.shown, strict=True))

    def apply(self, action: str, clock: float) -> ActionResult:
        if action not in self.actions():
            return ActionResult(f"{action!r} is not an action of this module.", mistake=False, changed=False)
        if self.solved:
            return ActionResult("The module is already disarmed.", mistake=False, changed=False)
        if action == "submit":
            if self.current_word == self.answer:
                self.submitted = True
                return ActionResult(f"You submitted {self.current_word}. The module is disarmed.")
            return ActionResult(
                f"You submitted {self.current_word}. Strike: that is not the password.", mistake=True
            )
        direction, slot = action.split("_button_")
        index = int(slot) - 1
        step = 1 if direction == "up" else -1
        self.shown[index] = (self.shown[index] + step) % CYCLE
        letter = cycle_letters(self.starts[index])[self.shown[index]]
        return ActionResult(f"Slot {slot} now shows {letter}; the word reads {self.current_word}.")

    @property
    def solved(self) -> bool:
        return self.submitted

    def partial_score(self) -> float:
        return 1.0 if self.solved else 0.0

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        slot_w, gap = 80, 14
        left = (x0 + x1 - SLOTS * slot_w - (SLOTS - 1) * gap) // 2
        letter_font, number_font = draw.font(60, "bold"), draw.font(20, "bold")
        for i, letter in enumerate(self.current_word):
            sx = left + i * (slot_w + gap)
            cx = sx + slot_w / 2
            draw_centered_text(d, (cx, y0 + 22), str(i + 1), number_font, draw.INK)
            up = (sx + 6, y0 + 40, sx + slot_w - 6, y0 + 84)
            down = (sx + 6, y0 + 238, sx + slot_w - 6, y0 + 282)
            for box, pointing_up in ((up, True), (down, False)):
                draw.button_box(d, box, "")
                high, low = box[1] + 11, box[3] - 11
                tip, base = (high, low) if pointing_up else (low, high)
                d.polygon([(cx, tip), (cx - 18, base), (cx + 18, base)], fill=draw.INK)
            d.rectangle(
                (sx, y0 + 98, sx + slot_w, y0 + 224), fill=(18, 40, 30), outline=draw.PANEL_EDGE, width=3
            )
            draw_centered_text(d, (cx, y0 + 161), letter, letter_font, (120, 255, 160))
        submit = ((x0 + x1) // 2 - 100, y1 - 96, (x0 + x1) // 2 + 100, y1 - 36)
        draw.button_box(d, submit, "SUBMIT", size=28)
        return image

    def describe(self, clock: float) -> str:
        slots = "; ".join(
            f"slot {i} shows {cycle_letters(s)[k]} (its cycle is {', '.join(cycle_letters(s))})"
            for i, (s, k) in enumerate(zip(self.starts, self.shown, strict=True), 1)
        )
        state = "disarmed" if self.solved else "not disarmed"
        return f"The word reads {self.current_word}: {slots}. The module is {state}."

    def oracle_actions(self, clock: float) -> list[str]:
        if self.solved:
            return []
        lines = []
        for i, (start, letter) in enumerate(zip(self.starts, self.answer, strict=True), 1):
            offset = (cycle_letters(start).index(letter) - self.shown[i - 1]) % CYCLE
            if offset == 1:
                lines.append(f"up_button_{i}")
            elif offset == CYCLE - 1:
                lines.append(f"down_button_{i}")
        return [*lines, "submit"]
