"""Visual quiz kinds: how a clue and a lock are parameterised, drawn, captioned and answered.

Every kind splits its information so the lock alone never gives the answer: the lock shows only
*which* attributes matter (coloured dots, shapes, a clock icon, colour buttons, arrow keys) and the
clue, kept elsewhere in the room, shows the values or the order (digits by colour, counts by shape,
a time, a sequence). `params` fully fix one puzzle; `generate(rng)` draws fresh ones (rooms that
omit `params`, and seeded room variants).
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from PIL import ImageDraw

from playbench.tasks.visescape import drawing as dw

QUIZ_COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange")
DIRECTION_WORDS: tuple[str, ...] = ("up", "down", "left", "right")
WORDS: tuple[str, ...] = (
    "DOOR",
    "LAMP",
    "KEYS",
    "MOON",
    "STAR",
    "FISH",
    "WOLF",
    "GOLD",
    "RAIN",
    "SHIP",
    "BIRD",
    "TIME",
    "ROSE",
    "SALT",
    "CAKE",
    "WIND",
    "LION",
    "BOLT",
    "MINT",
    "JADE",
    "PEAR",
    "DUSK",
    "FERN",
    "OPAL",
)


def _perm(rng: random.Random, seq: list[Any]) -> list[Any]:
    out = list(seq)
    rng.shuffle(out)
    return out


def _derange(rng: random.Random, seq: list[Any]) -> list[Any]:
    """A shuffle that differs from `seq` (so a lock's order never repeats the clue's order)."""
    for _ in range(50):
        out = _perm(rng, seq)
        if out != list(seq):
            return out
    return list(seq[1:]) + list(seq[:1])


def _need(params: dict[str, Any], *keys: str) -> None:
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"missing params: {', '.join(missing)}")


def _scatter(seed: int, groups: list[int], area: dw.Box, size: float) -> list[tuple[int, float, float]]:
    """Non-overlapping positions for `groups[k]` marks of group k (deterministic per seed)."""
    rng = random.Random(seed)
    x0, y0, x1, y1 = area
    placed: list[tuple[int, float, float]] = []
    for g, count in enumerate(groups):
        for _ in range(count):
            for _attempt in range(400):
                x = rng.uniform(x0 + size / 2, x1 - size / 2)
                y = rng.uniform(y0 + size / 2, y1 - size / 2)
                if all((x - px) ** 2 + (y - py) ** 2 > (size * 1.15) ** 2 for _, px, py in placed):
                    break
            placed.append((g, x, y))
    return placed


class QuizKind(ABC):
    name: str = ""
    answer_type: str = "digits"  # digits | letters | colors | directions

    @abstractmethod
    def generate(self, rng: random.Random) -> dict[str, Any]: ...

    @abstractmethod
    def check(self, params: dict[str, Any]) -> None:
        """Raise ValueError with a clear message when `params` are malformed."""

    @abstractmethod
    def answer(self, params: dict[str, Any]) -> str: ...

    @abstractmethod
    def clue_caption(self, params: dict[str, Any]) -> str: ...

    @abstractmethod
    def lock_caption(self, params: dict[str, Any]) -> str: ...

    @abstractmethod
    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None: ...

    @abstractmethod
    def draw_lock(
        self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool
    ) -> None: ...

    # --- answers -------------------------------------------------------------------------------
    def normalize(self, text: str) -> str:
        """Canonical form of an answer text for comparison."""
        if self.answer_type == "digits":
            return re.sub(r"\D", "", text)
        if self.answer_type == "letters":
            return re.sub(r"[^A-Za-z]", "", text).upper()
        words = re.findall(r"[a-z]+", text.lower())
        return ", ".join(words)

    def is_correct(self, params: dict[str, Any], text: str) -> bool:
        return self.normalize(text) == self.normalize(self.answer(params)) and bool(self.normalize(text))

    def answer_format(self, params: dict[str, Any]) -> str:
        n = (
            len(self.normalize(self.answer(params)).split(", "))
            if self.answer_type in ("colors", "directions")
            else len(self.normalize(self.answer(params)))
        )
        return {
            "digits": f"{n} digits, e.g. <ANSWER>{'1234567890'[:n]}</ANSWER>",
            "letters": f"{n} letters, e.g. <ANSWER>{'ABCDEFGH'[:n]}</ANSWER>",
            "colors": f"{n} colours in order, e.g. <ANSWER>red, blue, ...</ANSWER>",
            "directions": f"{n} directions in order, e.g. <ANSWER>up, left, ...</ANSWER>",
        }[self.answer_type]

    def guesses(self, params: dict[str, Any], rng: random.Random, k: int) -> list[str]:
        """`k` answers of the right form drawn at random (the random baseline's candidates)."""
        truth = self.answer(params)
        out: list[str] = []
        for _ in range(k):
            if self.answer_type == "digits":
                out.append("".join(rng.choice("0123456789") for _ in self.normalize(truth)))
            elif self.answer_type == "letters":
                out.append("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in self.normalize(truth)))
            elif self.answer_type == "colors":  # any colours, repeats allowed: a blind guess
                out.append(", ".join(rng.choice(QUIZ_COLORS) for _ in self.normalize(truth).split(", ")))
            else:
                out.append(", ".join(rng.choice(DIRECTION_WORDS) for _ in self.normalize(truth).split(", ")))
        return out


# --- digit wheels shared by several kinds -------------------------------------------------------


def _lock_body(draw: ImageDraw.ImageDraw, box: dw.Box, solved: bool, title: str) -> dw.Box:
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=(x1 - x0) * 0.05, fill=(70, 74, 82), outline=dw.INK, width=3)
    led = (0, 190, 80) if solved else (200, 40, 40)
    r = (y1 - y0) * 0.045
    draw.ellipse((x1 - 4 * r, y0 + 1.2 * r, x1 - 2 * r, y0 + 3.2 * r), fill=led, outline=dw.INK)
    dw.text(
        draw,
        ((x0 + x1) / 2, y0 + (y1 - y0) * 0.09),
        title + (" - OPEN" if solved else ""),
        int((y1 - y0) * 0.065),
        (235, 235, 235),
    )
    return (x0 + (x1 - x0) * 0.06, y0 + (y1 - y0) * 0.2, x1 - (x1 - x0) * 0.06, y1 - (y1 - y0) * 0.06)


def _wheels(
    draw: ImageDraw.ImageDraw,
    inner: dw.Box,
    n: int,
    marker: Any,
    shown: list[str] | None,
) -> None:
    """`n` wheels with a marker drawn above each (marker(draw, k, box)); `shown` prints symbols."""
    x0, y0, x1, y1 = inner
    slot = (x1 - x0) / n
    for k in range(n):
        cx = x0 + slot * (k + 0.5)
        w = slot * 0.62
        top = y0 + (y1 - y0) * 0.42
        marker(
            draw, k, (cx - w * 0.42, y0 + (y1 - y0) * 0.02, cx + w * 0.42, y0 + (y1 - y0) * 0.02 + w * 0.84)
        )
        draw.rounded_rectangle(
            (cx - w / 2, top, cx + w / 2, y1), radius=w * 0.12, fill=(245, 245, 240), outline=dw.INK, width=2
        )
        for frac in (0.2, 0.8):
            yy = top + (y1 - top) * frac
            draw.line((cx - w / 2 + 4, yy, cx + w / 2 - 4, yy), fill=(190, 190, 190), width=1)
        dw.text(draw, (cx, (top + y1) / 2), shown[k] if shown else "?", int(w * 0.55))


def _marked_wheel_lock(
    quiz: QuizKind,
    draw: ImageDraw.ImageDraw,
    box: dw.Box,
    params: dict[str, Any],
    solved: bool,
    title: str,
    marker: Any,
) -> None:
    """A lock body titled `title` with one wheel per entry of `lock_order`, each under marker(d, k, box)."""
    inner = _lock_body(draw, box, solved, title)
    shown = list(quiz.answer(params)) if solved else None
    _wheels(draw, inner, len(params["lock_order"]), marker, shown)


class ColorDigits(QuizKind):
    """Clue: coloured discs each bearing a digit; lock: digit wheels marked with coloured dots."""

    name = "color_digits"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        colors = rng.sample(QUIZ_COLORS, 4)
        return {
            "colors": colors,
            "digits": [rng.randint(0, 9) for _ in colors],
            "lock_order": _derange(rng, colors),
        }

    def check(self, params: dict[str, Any]) -> None:
        _need(params, "colors", "digits", "lock_order")
        if len(params["colors"]) != len(params["digits"]) or sorted(params["colors"]) != sorted(
            params["lock_order"]
        ):
            raise ValueError("colors, digits and lock_order must match in length and colours")
        if any(c not in dw.COLORS for c in params["colors"]) or len(set(params["colors"])) != len(
            params["colors"]
        ):
            raise ValueError(f"colors must be distinct names from {', '.join(QUIZ_COLORS)}")

    def answer(self, params: dict[str, Any]) -> str:
        value = dict(zip(params["colors"], params["digits"], strict=True))
        return "".join(str(value[c]) for c in params["lock_order"])

    def clue_caption(self, params: dict[str, Any]) -> str:
        pairs = ", ".join(
            f"{'an' if c[0] in 'aeiou' else 'a'} {c} disc with the digit {d}"
            for c, d in zip(params["colors"], params["digits"], strict=True)
        )
        return f"It shows {len(params['colors'])} coloured discs, from left to right: {pairs}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A number lock with {len(params['lock_order'])} digit wheels; above the wheels, from left to right, "
            f"coloured dots: {', '.join(params['lock_order'])}."
        )

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        x0, y0, x1, y1 = box
        n = len(params["colors"])
        slot = (x1 - x0) / n
        d = min(slot * 0.8, (y1 - y0) * 0.7)
        cy = (y0 + y1) / 2
        for k, (c, digit) in enumerate(zip(params["colors"], params["digits"], strict=True)):
            cx = x0 + slot * (k + 0.5)
            draw.ellipse(
                (cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2), fill=dw.rgb(c), outline=dw.INK, width=2
            )
            draw.ellipse((cx - d / 3.4, cy - d / 3.4, cx + d / 3.4, cy + d / 3.4), fill=(255, 255, 255))
            dw.text(draw, (cx, cy), str(digit), int(d * 0.42))

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        order = params["lock_order"]

        def dot(d: ImageDraw.ImageDraw, k: int, b: dw.Box) -> None:
            d.ellipse(b, fill=dw.rgb(order[k]), outline=dw.INK, width=2)

        _marked_wheel_lock(self, draw, box, params, solved, "NUMBER LOCK", dot)


class _CountingQuiz(QuizKind):
    """Clue: marks of a few kinds scattered over a surface; lock: one digit wheel under each kind, in
    another order. The answer is how many marks of each kind, in the lock's order."""

    key: ClassVar[str]  # the params entry holding the kinds of mark
    max_count: ClassVar[int]
    mark_scale: ClassVar[float]  # half the side of a mark in the clue, as a share of the scatter cell

    @abstractmethod
    def pick(self, rng: random.Random) -> list[str]:
        """The kinds of mark of one instance."""

    @abstractmethod
    def check_marks(self, kinds: list[str], counts: list[int]) -> None:
        """Raise ValueError for a kind or a count this quiz cannot show."""

    @abstractmethod
    def draw_mark(self, draw: ImageDraw.ImageDraw, kind: str, box: dw.Box, on_lock: bool) -> None: ...

    def generate(self, rng: random.Random) -> dict[str, Any]:
        kinds = self.pick(rng)
        return {
            self.key: kinds,
            "counts": [rng.randint(1, self.max_count) for _ in kinds],
            "lock_order": _derange(rng, kinds),
            "layout_seed": rng.randint(0, 10**6),
        }

    def check(self, params: dict[str, Any]) -> None:
        _need(params, self.key, "counts", "lock_order", "layout_seed")
        kinds = params[self.key]
        if sorted(kinds) != sorted(params["lock_order"]) or len(kinds) != len(params["counts"]):
            raise ValueError(f"{self.key}, counts and lock_order must match")
        self.check_marks(kinds, params["counts"])

    def answer(self, params: dict[str, Any]) -> str:
        count = dict(zip(params[self.key], params["counts"], strict=True))
        return "".join(str(count[k]) for k in params["lock_order"])

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        x0, y0, x1, y1 = box
        size = min(x1 - x0, y1 - y0) / 7
        half = size * self.mark_scale
        for g, x, y in _scatter(params["layout_seed"], params["counts"], box, size):
            self.draw_mark(draw, params[self.key][g], (x - half, y - half, x + half, y + half), False)

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        order = params["lock_order"]

        def mark(d: ImageDraw.ImageDraw, k: int, b: dw.Box) -> None:
            self.draw_mark(d, order[k], b, True)

        _marked_wheel_lock(self, draw, box, params, solved, "NUMBER LOCK", mark)


class ShapeCount(_CountingQuiz):
    """Clue: a picture of scattered shapes; lock: digit wheels marked with shapes (count each shape)."""

    name = "shape_count"
    key = "shapes"
    max_count = 6
    mark_scale = 0.42

    def pick(self, rng: random.Random) -> list[str]:
        return rng.sample(list(dw.SHAPES), 4)

    def check_marks(self, kinds: list[str], counts: list[int]) -> None:
        if any(s not in dw.SHAPES for s in kinds) or not all(1 <= c <= 9 for c in counts):
            raise ValueError(f"shapes must come from {', '.join(dw.SHAPES)} and counts be 1-9")

    def clue_caption(self, params: dict[str, Any]) -> str:
        parts = ", ".join(
            f"{c} {s}{'s' if c > 1 else ''}" for s, c in zip(params["shapes"], params["counts"], strict=True)
        )
        return f"It shows dark shapes scattered over the surface: {parts}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A number lock with {len(params['lock_order'])} digit wheels; above the wheels, from left to right, "
            f"small symbols: {', '.join(params['lock_order'])}."
        )

    def draw_mark(self, draw: ImageDraw.ImageDraw, kind: str, box: dw.Box, on_lock: bool) -> None:
        dw.shape(draw, kind, box, (250, 250, 250) if on_lock else dw.rgb("navy"))


class ColorCount(_CountingQuiz):
    """Clue: scattered coloured dots; lock: digit wheels marked with colours (count each colour)."""

    name = "color_count"
    key = "colors"
    max_count = 7
    mark_scale = 0.45

    def pick(self, rng: random.Random) -> list[str]:
        return rng.sample(QUIZ_COLORS, rng.choice((3, 4)))

    def check_marks(self, kinds: list[str], counts: list[int]) -> None:
        if not all(1 <= c <= 9 for c in counts):
            raise ValueError("counts must be 1-9")

    def clue_caption(self, params: dict[str, Any]) -> str:
        parts = ", ".join(f"{n} {c}" for c, n in zip(params["colors"], params["counts"], strict=True))
        return f"It shows coloured stars scattered over the surface: {parts}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A number lock with {len(params['lock_order'])} digit wheels; above the wheels, from left to right, "
            f"coloured stars: {', '.join(params['lock_order'])}."
        )

    def draw_mark(self, draw: ImageDraw.ImageDraw, kind: str, box: dw.Box, on_lock: bool) -> None:
        dw.shape(draw, "star", box, dw.rgb(kind))


class ColorOrder(QuizKind):
    """Clue: a row of coloured bars; lock: a panel of coloured buttons pressed in the clue's order."""

    name = "color_order"
    answer_type = "colors"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        order = rng.sample(QUIZ_COLORS, 4)
        return {"order": order, "buttons": _derange(rng, order)}

    def check(self, params: dict[str, Any]) -> None:
        _need(params, "order", "buttons")
        if sorted(params["order"]) != sorted(params["buttons"]) or len(set(params["order"])) != len(
            params["order"]
        ):
            raise ValueError("order and buttons must hold the same distinct colours")

    def answer(self, params: dict[str, Any]) -> str:
        return ", ".join(params["order"])

    def clue_caption(self, params: dict[str, Any]) -> str:
        return f"It shows {len(params['order'])} coloured bars side by side, from left to right: {', '.join(params['order'])}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A button lock with {len(params['buttons'])} coloured buttons ({', '.join(params['buttons'])}, left to "
            "right) to be pressed in some order."
        )

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        x0, y0, x1, y1 = box
        n = len(params["order"])
        slot = (x1 - x0) / n
        for k, c in enumerate(params["order"]):
            draw.rectangle(
                (
                    x0 + slot * k + slot * 0.12,
                    y0 + (y1 - y0) * 0.1,
                    x0 + slot * (k + 1) - slot * 0.12,
                    y1 - (y1 - y0) * 0.1,
                ),
                fill=dw.rgb(c),
                outline=dw.INK,
                width=2,
            )

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        x0, y0, x1, y1 = _lock_body(draw, box, solved, "BUTTON LOCK")
        n = len(params["buttons"])
        slot = (x1 - x0) / n
        d = min(slot * 0.7, (y1 - y0) * 0.6)
        cy = (y0 + y1) / 2
        for k, c in enumerate(params["buttons"]):
            cx = x0 + slot * (k + 0.5)
            draw.ellipse(
                (cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2),
                fill=dw.rgb(c),
                outline=(230, 230, 230),
                width=3,
            )
        if solved:
            dw.text(
                draw,
                ((x0 + x1) / 2, y1 - (y1 - y0) * 0.08),
                ", ".join(params["order"]),
                int((y1 - y0) * 0.09),
                (235, 235, 235),
            )


class ShapeLetters(QuizKind):
    """Clue: shapes each holding a letter; lock: letter wheels marked with shapes."""

    name = "shape_letters"
    answer_type = "letters"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        word = rng.choice(WORDS)
        shapes = rng.sample(list(dw.SHAPES), len(word))
        return {"word": word, "lock_order": shapes, "clue_order": _derange(rng, shapes)}

    def check(self, params: dict[str, Any]) -> None:
        _need(params, "word", "lock_order", "clue_order")
        if len(params["word"]) != len(params["lock_order"]) or sorted(params["lock_order"]) != sorted(
            params["clue_order"]
        ):
            raise ValueError("word, lock_order and clue_order must match")
        if not str(params["word"]).isalpha():
            raise ValueError("word must be letters")

    def _letter(self, params: dict[str, Any]) -> dict[str, str]:
        return dict(zip(params["lock_order"], str(params["word"]).upper(), strict=True))

    def answer(self, params: dict[str, Any]) -> str:
        return str(params["word"]).upper()

    def clue_caption(self, params: dict[str, Any]) -> str:
        letter = self._letter(params)
        parts = ", ".join(f"a {s} with the letter {letter[s]}" for s in params["clue_order"])
        return f"It shows {len(params['clue_order'])} shapes, from left to right: {parts}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A letter lock with {len(params['lock_order'])} letter wheels; above the wheels, from left to right, "
            f"symbols: {', '.join(params['lock_order'])}."
        )

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        x0, y0, x1, y1 = box
        letter = self._letter(params)
        n = len(params["clue_order"])
        slot = (x1 - x0) / n
        d = min(slot * 0.85, (y1 - y0) * 0.8)
        cy = (y0 + y1) / 2
        for k, s in enumerate(params["clue_order"]):
            cx = x0 + slot * (k + 0.5)
            dw.shape(draw, s, (cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2), (255, 236, 170))
            dw.text(draw, (cx, cy + d * 0.06), letter[s], int(d * 0.3))

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        order = params["lock_order"]

        def sym(d: ImageDraw.ImageDraw, k: int, b: dw.Box) -> None:
            dw.shape(d, order[k], b, (250, 250, 250))

        _marked_wheel_lock(self, draw, box, params, solved, "LETTER LOCK", sym)


class ClockTime(QuizKind):
    """Clue: an analog clock showing a time; lock: four digit wheels under a clock icon (HHMM)."""

    name = "clock_time"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {"hour": rng.randint(1, 12), "minute": rng.choice(range(5, 60, 5))}

    def check(self, params: dict[str, Any]) -> None:
        _need(params, "hour", "minute")
        if not (
            1 <= int(params["hour"]) <= 12
            and 0 <= int(params["minute"]) < 60
            and int(params["minute"]) % 5 == 0
        ):
            raise ValueError("hour must be 1-12 and minute a multiple of 5 below 60")

    def answer(self, params: dict[str, Any]) -> str:
        return f"{int(params['hour']):02d}{int(params['minute']):02d}"

    def normalize(self, text: str) -> str:
        digits = re.sub(r"\D", "", text)
        return digits.zfill(4) if len(digits) == 3 else digits

    def clue_caption(self, params: dict[str, Any]) -> str:
        return f"An analog clock whose hands show {int(params['hour'])}:{int(params['minute']):02d}."

    def lock_caption(self, params: dict[str, Any]) -> str:
        return "A number lock with 4 digit wheels (two, a colon, two) under a small clock icon."

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        dw.clock_face(draw, box, int(params["hour"]), int(params["minute"]))

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        inner = _lock_body(draw, box, solved, "TIME LOCK")
        x0, y0, x1, y1 = inner

        def none(d: ImageDraw.ImageDraw, k: int, b: dw.Box) -> None:
            if k == 1:  # one clock icon centred over the wheels
                s = (b[3] - b[1]) * 1.1
                cx = (x0 + x1) / 2
                dw.clock_face(d, (cx - s / 2, b[1], cx + s / 2, b[1] + s), None, None)

        _wheels(draw, inner, 4, none, list(self.answer(params)) if solved else None)
        dw.text(draw, ((x0 + x1) / 2, y0 + (y1 - y0) * 0.7), ":", int((y1 - y0) * 0.2), (235, 235, 235))


class ArrowOrder(QuizKind):
    """Clue: a row of arrows; lock: a direction pad (enter the arrows' directions in order)."""

    name = "arrow_order"
    answer_type = "directions"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {"arrows": [rng.choice(DIRECTION_WORDS) for _ in range(4)], "color": rng.choice(QUIZ_COLORS)}

    def check(self, params: dict[str, Any]) -> None:
        _need(params, "arrows", "color")
        if not params["arrows"] or any(a not in DIRECTION_WORDS for a in params["arrows"]):
            raise ValueError(f"arrows must be from {', '.join(DIRECTION_WORDS)}")

    def answer(self, params: dict[str, Any]) -> str:
        return ", ".join(params["arrows"])

    def clue_caption(self, params: dict[str, Any]) -> str:
        return (
            f"It shows {len(params['arrows'])} {params['color']} arrows in a row, from left to right pointing: "
            f"{', '.join(params['arrows'])}."
        )

    def lock_caption(self, params: dict[str, Any]) -> str:
        return (
            f"A direction lock: a pad with up, down, left and right keys, each marked with a small {params['color']} "
            f"arrow; it takes {len(params['arrows'])} presses."
        )

    def draw_clue(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any]) -> None:
        x0, y0, x1, y1 = box
        n = len(params["arrows"])
        slot = (x1 - x0) / n
        d = min(slot * 0.8, (y1 - y0) * 0.75)
        cy = (y0 + y1) / 2
        for k, a in enumerate(params["arrows"]):
            cx = x0 + slot * (k + 0.5)
            dw.arrow(draw, a, (cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2), dw.rgb(params["color"]))

    def draw_lock(self, draw: ImageDraw.ImageDraw, box: dw.Box, params: dict[str, Any], solved: bool) -> None:
        x0, y0, x1, y1 = _lock_body(draw, box, solved, "DIRECTION LOCK")
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        s = min(x1 - x0, y1 - y0) / 3.3
        spots = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
        for a, (dx, dy) in spots.items():
            bx, by = cx + dx * s * 1.05, cy + dy * s * 1.05
            draw.rounded_rectangle(
                (bx - s / 2, by - s / 2, bx + s / 2, by + s / 2),
                radius=s * 0.15,
                fill=(225, 225, 220),
                outline=dw.INK,
                width=2,
            )
            dw.arrow(
                draw, a, (bx - s * 0.35, by - s * 0.35, bx + s * 0.35, by + s * 0.35), dw.rgb(params["color"])
            )
        draw.ellipse((cx - s * 0.3, cy - s * 0.3, cx + s * 0.3, cy + s * 0.3), fill=(40, 40, 40))


QUIZ_KINDS: dict[str, QuizKind] = {
    k.name: k
    for k in (
        ColorDigits(),
        ShapeCount(),
        ColorCount(),
        ColorOrder(),
        ShapeLetters(),
        ClockTime(),
        ArrowOrder(),
    )
}


def get_kind(name: str) -> QuizKind:
    try:
        return QUIZ_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown quiz kind {name!r}; known: {', '.join(QUIZ_KINDS)}") from None
