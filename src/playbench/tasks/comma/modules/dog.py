"""Dog puzzle (real time): count the dogs in a picture and submit when the timer's last digit matches.

The picture holds 0 to 5 dogs among 2 to 6 other animals (Twemoji art shipped in
`assets/animals/`). Pressing submit while the last digit of the seconds left equals the number of
dogs disarms the module; pressing it at any other time is a strike.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageOps

from playbench.tasks.comma import draw
from playbench.tasks.comma.module import ActionResult, PuzzleModule, wait_line

ART_DIR = Path(__file__).resolve().parent.parent / "assets" / "animals"
DOG_KINDS: tuple[str, ...] = ("dog", "dog_face", "poodle", "guide_dog", "service_dog")
DISTRACTOR_KINDS: tuple[str, ...] = (
    "cat", "cat_face", "rabbit", "rabbit_face", "pig", "cow", "horse", "lion_face", "tiger",
    "bear_face", "mouse", "hamster_face", "monkey", "ewe", "goat", "chicken", "duck", "penguin",
    "elephant", "giraffe", "zebra", "deer", "kangaroo", "frog_face", "turtle", "owl", "camel",
    "panda_face", "koala", "hedgehog", "chipmunk",
)  # fmt: skip
MAX_DOGS = 5
MIN_DISTRACTORS, MAX_DISTRACTORS = 2, 6

# The picture (inside the shared panel) is a grid of 4 x 3 cells, at most one animal per cell,
# placed with jitter; positions are stored in the instance, so only the generator uses this grid.
PICTURE = (24, 96, 496, 424)
GRID_COLS, GRID_ROWS = 4, 3
INSET = 6  # keeps the animals off the picture's frame
MIN_SIZE, MAX_SIZE = 72, 96


def shown_seconds(clock: float) -> int:
    """Whole seconds the timer shows (as `draw.format_clock` does: truncated, never negative)."""
    return max(0, int(clock))


@lru_cache(maxsize=len(DOG_KINDS) + len(DISTRACTOR_KINDS))
def animal_art(kind: str) -> Image.Image:
    """The 128 px RGBA picture of one animal kind (loaded once per process)."""
    path = ART_DIR / f"{kind}.png"
    if not path.is_file():
        raise FileNotFoundError(
            f"dog puzzle art {path} is missing: the package must ship assets/animals/*.png "
            "(package data pattern '*.png')"
        )
    with Image.open(path) as image:
        return image.convert("RGBA")


# the paper's Appendix A manual, in our words
MANUAL = f"""\
DOG PUZZLE

The display will show a picture with between 0 and {MAX_DOGS} dogs in it. Count the dogs, then press
the submit button at a moment when the last digit of the time left equals the number of dogs in
the picture.
"""


class DogModule(PuzzleModule):
    name = "dog"
    title = "Dog Puzzle"
    realtime = True

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.serial: str = str(params["serial"])
        self.animals: list[dict[str, Any]] = [dict(a) for a in params["animals"]]
        known = set(DOG_KINDS) | set(DISTRACTOR_KINDS)
        unknown = sorted({a["kind"] for a in self.animals} - known)
        if unknown:
            raise ValueError(f"unknown animal kinds {unknown}")
        self.dogs = sum(1 for a in self.animals if a["kind"] in DOG_KINDS)
        if not 0 <= self.dogs <= MAX_DOGS:
            raise ValueError(f"the picture must hold 0-{MAX_DOGS} dogs, it holds {self.dogs}")
        if "dogs" in params and int(params["dogs"]) != self.dogs:
            raise ValueError(f"params say {params['dogs']} dogs but the picture holds {self.dogs}")
        self.submitted_at: int | None = None

    @classmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        dogs = rng.randint(0, MAX_DOGS)
        distractors = rng.randint(MIN_DISTRACTORS, MAX_DISTRACTORS)
        kinds = [rng.choice(DOG_KINDS) for _ in range(dogs)] + rng.sample(DISTRACTOR_KINDS, distractors)
        rng.shuffle(kinds)
        cells = rng.sample(range(GRID_COLS * GRID_ROWS), len(kinds))
        inner = (PICTURE[0] + INSET, PICTURE[1] + INSET, PICTURE[2] - INSET, PICTURE[3] - INSET)
        cell_w = (inner[2] - inner[0]) // GRID_COLS
        cell_h = (inner[3] - inner[1]) // GRID_ROWS
        animals = []
        for kind, cell in zip(kinds, cells, strict=True):
            row, col = divmod(cell, GRID_COLS)
            size = rng.randint(MIN_SIZE, MAX_SIZE)
            x = inner[0] + col * cell_w + rng.randint(0, cell_w - size)
            y = inner[1] + row * cell_h + rng.randint(0, cell_h - size)
            animals.append({"kind": kind, "x": x, "y": y, "size": size, "mirror": rng.random() < 0.5})
        serial = "".join(str(rng.randint(0, 9)) for _ in range(6))
        return {"dogs": dogs, "serial": serial, "animals": animals}

    @classmethod
    def manual(cls) -> str:
        return MANUAL

    def actions(self) -> list[str]:
        return ["submit"]

    def apply(self, action: str, clock: float) -> ActionResult:
        if action != "submit":
            return ActionResult(f"{action!r} is not an action of this module.", mistake=False, changed=False)
        if self.solved:
            return ActionResult("The module is already disarmed.", mistake=False, changed=False)
        shown = draw.format_clock(clock)
        if shown_seconds(clock) % 10 == self.dogs:
            self.submitted_at = shown_seconds(clock)
            return ActionResult(f"You pressed submit at {shown}. The module is disarmed.")
        return ActionResult(
            f"You pressed submit at {shown}. Strike: the last digit does not match the number of dogs.",
            mistake=True,
        )

    @property
    def solved(self) -> bool:
        return self.submitted_at is not None

    def partial_score(self) -> float:
        return 1.0 if self.solved else 0.0

    def render(self, clock: float) -> Image.Image:
        image, d, (x0, y0, x1, y1) = draw.module_canvas(self.title, clock, self.solved)
        d.rectangle(PICTURE, fill=(250, 248, 240), outline=draw.PANEL_EDGE, width=3)
        for animal in self.animals:
            art = animal_art(animal["kind"]).resize(
                (animal["size"], animal["size"]), Image.Resampling.LANCZOS
            )
            if animal["mirror"]:
                art = ImageOps.mirror(art)
            image.paste(art, (animal["x"], animal["y"]), art)
        draw.caption(d, (x0 + 14, y1 - 52), f"Serial Number: {self.serial}", size=18)
        draw.button_box(d, (x1 - 190, y1 - 70, x1 - 14, y1 - 16), "SUBMIT", size=26)
        return image

    def describe(self, clock: float) -> str:
        dog_names = [a["kind"].replace("_", " ") for a in self.animals if a["kind"] in DOG_KINDS]
        others = [a["kind"].replace("_", " ") for a in self.animals if a["kind"] not in DOG_KINDS]
        dogs = f"{self.dogs} dog{'s' if self.dogs != 1 else ''}" + (
            f" ({', '.join(dog_names)})" if dog_names else ""
        )
        state = "disarmed" if self.solved else "not disarmed"
        return (
            f"The picture shows {dogs} and {len(others)} other animals ({', '.join(others)}). "
            f"The timer shows {draw.format_clock(clock)} (last digit {shown_seconds(clock) % 10}). "
            f"Serial number {self.serial}. The module is {state}."
        )

    def state_key(self, clock: float) -> str:
        # The situation as the rule reads it: the picture and the timer's last digit (the whole
        # reading never repeats, so it would hide every repetition loop).
        return f"{self.dogs} dogs in the picture, the timer's last digit is {shown_seconds(clock) % 10}"

    def oracle_actions(self, clock: float, waits: bool = False) -> list[str]:
        if self.solved:
            return []
        wait = (shown_seconds(clock) - self.dogs) % 10  # seconds until the last digit is the count
        if wait == 0:
            return ["submit"]
        return [wait_line(wait), "submit"] if waits and clock - wait > 0 else []

    def oracle_instruction(self, clock: float, waits: bool = False) -> str:
        # The expert answers after the turn's clock step, so `clock` is what the solver will see on
        # its next turn; the expert still gives the rule for the count (press submit on a turn whose
        # last digit matches) because a solver that waits or asks again needs it on later turns too.
        if self.solved:
            return "The module is disarmed; nothing more to do."
        plural = "dog" if self.dogs == 1 else "dogs"
        rule = (
            f"The picture has {self.dogs} {plural}. Press submit when the last digit of the timer is "
            f"{self.dogs} (it shows {draw.format_clock(clock)} now)"
        )
        actions = self.oracle_actions(clock, waits=waits)
        if not actions:  # with the turn clock: say it again on a turn whose digit matches
            return rule + ". Not yet: wait for a turn whose last digit matches."
        return rule + ":\n" + "\n".join(actions)
