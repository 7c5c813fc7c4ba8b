"""Procedural views of a room state (Pillow) and their ground-truth captions.

Three view kinds, as in the paper: a wall view per direction (every visible receptacle in its
current state, items visible inside open ones), a receptacle close-up (the receptacle large, the
items it shows with their names) and an item close-up (a key, a note's clue, a lock's face).
Every state flag a room uses (locked, open, open compartments, lit, moved, solved, pressed, picked)
changes the picture. Captions are generated from the same state, so both modes see the same facts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PIL import Image, ImageDraw

from playbench.core.task import derive_seed
from playbench.render.draw2d import to_png
from playbench.tasks.visescape import drawing as dw
from playbench.tasks.visescape.engine import Engine, GameState, state_words, view_wall
from playbench.tasks.visescape.quizzes import get_kind
from playbench.tasks.visescape.schema import Item, Quiz, Receptacle, StateSpec

W, H = 640, 480
FLOOR_Y = 418  # wall views: the floor strip below holds the name tags
CEILING_Y = 40  # wall views: nothing is drawn above this line (the title bar is above it)
WALL_MARGIN = 14  # wall views: free pixels at the left and right edges
MAX_WALL_SCALE = 2.1  # a lone small object is enlarged at most this much

# (width, height) at scale 1 and whether it hangs on the wall. Wall views scale every wall so that
# its furniture fills the picture (largest scale that fits, see `wall_scale`).
SIZES: dict[str, tuple[float, float, bool]] = {
    "door": (120, 250, False),
    "wardrobe": (140, 250, False),
    "cabinet": (110, 150, False),
    "drawers": (120, 150, False),
    "desk": (160, 120, False),
    "safe": (115, 115, False),
    "chest": (140, 90, False),
    "bookshelf": (130, 230, False),
    "painting": (130, 100, True),
    "clock": (100, 100, True),
    "lamp": (60, 200, False),
    "computer": (140, 150, False),
    "table": (140, 100, False),
    "plant": (80, 150, False),
    "mirror": (90, 130, True),
    "board": (150, 110, True),
}
# Furniture drawn beyond its box in some state, as fractions of its width (left, right) or height
# (above): swung-open doors, a painting or plant moved aside, items lying on a surface, an open lid.
SWING: dict[str, tuple[float, float]] = {
    "door": (0.0, 0.35),
    "wardrobe": (0.3, 0.3),
    "cabinet": (0.3, 0.0),
    "safe": (0.3, 0.0),
}
SELF_LIT_KINDS = ("lamp", "computer", "mirror", "painting")  # they show being lit by themselves
# items that stay in the furniture they are used on (a gem in a socket); tools and keys do not
INSTALLED_KINDS = ("gem", "bulb", "fuse", "battery", "handle", "coin")
MOVED_RIGHT: dict[str, float] = {
    "painting": 0.85,
    "mirror": 0.85,
    "board": 0.85,
    "clock": 0.85,
    "plant": 0.95,
}
ABOVE: dict[str, float] = {"desk": 0.45, "drawers": 0.4, "table": 0.2, "chest": 0.35}


def extents(r: Receptacle) -> tuple[float, float, float]:
    """(left, right, above) overhang of `r` over all its states, as fractions of its size."""
    left = right = above = 0.0
    if any(s.open or s.open_parts for s in r.states):
        left, right = SWING.get(r.kind, (0.0, 0.0))
        if r.kind == "chest":
            above = ABOVE["chest"]
    if any(s.moved for s in r.states):
        right = max(right, MOVED_RIGHT.get(r.kind, 0.0))
    if r.kind in ("desk", "drawers", "table"):
        above = ABOVE[r.kind]
    if r.kind == "lamp" and any(s.lit for s in r.states):
        left, right = 0.7, 0.7  # the light cone
    return left, right, above


def wall_scale(recs: list[Receptacle]) -> float:
    """The largest scale at which all of a wall's furniture fits side by side, overhangs included."""
    if not recs:
        return 1.0
    gap = 18.0
    widths = 0.0
    fits = [MAX_WALL_SCALE]
    for r in recs:
        bw, bh, hung = SIZES[r.kind]
        left, right, above = extents(r)
        widths += bw * (1 + left + right)
        if hung:
            fits.append(230 / (bh * (1.3 if r.contains else 1.0)))  # hung pictures stay up on the wall
        else:
            fits.append((FLOOR_Y - CEILING_Y) / (bh * (1 + above)))
    fits.append((W - 2 * WALL_MARGIN - gap * (len(recs) - 1)) / widths)
    return min(fits)


KIND_WORDS: dict[str, str] = {
    "door": "door",
    "wardrobe": "wardrobe",
    "cabinet": "cabinet",
    "drawers": "chest of drawers",
    "desk": "desk",
    "safe": "safe",
    "chest": "chest",
    "bookshelf": "bookshelf",
    "painting": "framed painting",
    "clock": "wall clock",
    "lamp": "floor lamp",
    "computer": "computer on a stand",
    "table": "small table",
    "plant": "potted plant",
    "mirror": "mirror",
    "board": "notice board",
}


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


@dataclass
class Spots:
    """Where a drawn receptacle can show things: open compartments, its surface, a display."""

    compartments: dict[int, dw.Box]
    surface: dw.Box | None = None
    display: dw.Box | None = None
    mount: dw.Box | None = None  # where locks/buttons sit on the front


def _padlock(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    d.arc(
        (cx - s * 0.35, cy - s * 0.75, cx + s * 0.35, cy - s * 0.05),
        180,
        360,
        fill=(90, 90, 95),
        width=max(2, int(s / 7)),
    )
    d.rounded_rectangle(
        (cx - s / 2, cy - s * 0.35, cx + s / 2, cy + s * 0.45),
        radius=s * 0.1,
        fill=(205, 165, 40),
        outline=dw.INK,
        width=1,
    )
    d.ellipse((cx - s * 0.08, cy - s * 0.08, cx + s * 0.08, cy + s * 0.08), fill=dw.INK)


def _interior(d: ImageDraw.ImageDraw, box: dw.Box) -> None:
    d.rectangle(box, fill=(58, 44, 36), outline=dw.INK, width=2)


def draw_receptacle(d: ImageDraw.ImageDraw, r: Receptacle, look: StateSpec, box: dw.Box, s: float) -> Spots:
    """Draw receptacle `r` in state `look` into `box`; `s` scales line widths and details."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    base = dw.rgb(r.color)
    dark, light = dw.shade(base, 0.6), dw.shade(base, 1.25)
    lw = max(1, int(2 * s))
    spots = Spots(compartments={})
    kind = r.kind
    opened = look.open or bool(look.open_parts)
    if kind in ("door", "wardrobe", "cabinet", "safe"):
        frame = (x0, y0, x1, y1)
        if kind == "door":
            d.rectangle((x0 - 6 * s, y0 - 6 * s, x1 + 6 * s, y1), fill=dw.shade(base, 0.45))
        d.rectangle(frame, fill=base if kind != "safe" else dw.shade(base, 0.9), outline=dw.INK, width=lw)
        if opened:
            inner = (x0 + w * 0.06, y0 + h * 0.05, x1 - w * 0.06, y1 - h * 0.03)
            if kind == "door":
                d.rectangle(inner, fill=(255, 246, 200), outline=dw.INK, width=lw)
                dw.text(
                    d, ((inner[0] + inner[2]) / 2, inner[1] + h * 0.3), "EXIT", int(h * 0.09), (30, 140, 60)
                )
                d.polygon(
                    [(x1, y0), (x1 + w * 0.35, y0 + h * 0.06), (x1 + w * 0.35, y1 - h * 0.02), (x1, y1)],
                    fill=light,
                    outline=dw.INK,
                )
            else:
                _interior(d, inner)
                # swung-open door leaf
                d.polygon(
                    [(x0, y0), (x0 - w * 0.3, y0 + h * 0.05), (x0 - w * 0.3, y1 - h * 0.03), (x0, y1)],
                    fill=light,
                    outline=dw.INK,
                )
                if kind == "wardrobe":
                    d.polygon(
                        [(x1, y0), (x1 + w * 0.3, y0 + h * 0.05), (x1 + w * 0.3, y1 - h * 0.03), (x1, y1)],
                        fill=light,
                        outline=dw.INK,
                    )
                shelf_y = inner[1] + (inner[3] - inner[1]) * 0.62
                d.line((inner[0], shelf_y, inner[2], shelf_y), fill=(120, 95, 70), width=max(2, int(3 * s)))
                spots.compartments[0] = (inner[0] + 4, inner[1] + 4, inner[2] - 4, shelf_y - 2)
        else:
            if kind == "wardrobe":
                d.line(((x0 + x1) / 2, y0, (x0 + x1) / 2, y1), fill=dw.INK, width=lw)
                for hx in (x0 + w * 0.45, x0 + w * 0.55):
                    d.rectangle((hx - 2 * s, y0 + h * 0.45, hx + 2 * s, y0 + h * 0.55), fill=dw.rgb("silver"))
            elif kind in ("door", "cabinet"):
                d.rectangle(
                    (x0 + w * 0.12, y0 + h * 0.08, x1 - w * 0.12, y0 + h * 0.42), outline=dark, width=lw
                )
                d.rectangle(
                    (x0 + w * 0.12, y0 + h * 0.52, x1 - w * 0.12, y1 - h * 0.06), outline=dark, width=lw
                )
                d.ellipse(
                    (x1 - w * 0.2, y0 + h * 0.46, x1 - w * 0.12, y0 + h * 0.46 + w * 0.08),
                    fill=dw.rgb("gold"),
                    outline=dw.INK,
                )
            else:  # safe
                d.rectangle(
                    (x0 + w * 0.08, y0 + h * 0.08, x1 - w * 0.08, y1 - h * 0.08), outline=dark, width=lw
                )
                cx, cy, rr = x0 + w * 0.7, (y0 + y1) / 2, min(w, h) * 0.12
                d.ellipse(
                    (cx - rr, cy - rr, cx + rr, cy + rr), fill=dw.rgb("silver"), outline=dw.INK, width=lw
                )
                d.line((cx, cy, cx + rr * 0.8, cy - rr * 0.4), fill=dw.INK, width=lw)
            if look.locked:
                _padlock(
                    d,
                    x0 + w * (0.5 if kind == "wardrobe" else 0.82),
                    y0 + h * 0.62,
                    max(10.0, min(w, h) * 0.16),
                )
        spots.mount = (x0 + w * 0.12, y0 + h * 0.12, x0 + w * 0.6, y0 + h * 0.55) if not opened else None
        if kind == "door" and not opened:
            spots.mount = (x0 + w * 0.55, y0 + h * 0.25, x1 - w * 0.05, y0 + h * 0.45)
    elif kind in ("drawers", "desk"):
        if kind == "desk":
            top = y0 + h * 0.12
            d.rectangle((x0, y0, x1, top), fill=light, outline=dw.INK, width=lw)
            d.rectangle((x0 + w * 0.04, top, x0 + w * 0.1, y1), fill=dark, outline=dw.INK)
            d.rectangle((x1 - w * 0.1, top, x1 - w * 0.04, y1), fill=dark, outline=dw.INK)
            body = (x0 + w * 0.5, top, x1 - w * 0.1, top + h * (0.28 * r.parts))
            spots.surface = (x0 + w * 0.05, y0 - h * 0.45, x1 - w * 0.05, y0)
        else:
            body = (x0, y0, x1, y1 - h * 0.05)
            d.rectangle((x0 + w * 0.05, y1 - h * 0.05, x0 + w * 0.15, y1), fill=dark)
            d.rectangle((x1 - w * 0.15, y1 - h * 0.05, x1 - w * 0.05, y1), fill=dark)
            spots.surface = (x0 + w * 0.05, y0 - h * 0.4, x1 - w * 0.05, y0)
        d.rectangle(body, fill=base, outline=dw.INK, width=lw)
        n = r.parts
        bh = (body[3] - body[1]) / n
        for k in range(n):
            dy0, dy1 = body[1] + bh * k, body[1] + bh * (k + 1)
            is_open = look.open or k in look.open_parts
            if is_open:
                # a pulled-out drawer sits a little lower, never below the feet
                pull = min(bh * 0.25, h * 0.1)
                tray = (
                    body[0] - (body[2] - body[0]) * 0.08,
                    dy0 + pull,
                    body[2] + (body[2] - body[0]) * 0.08,
                    min(dy1 + pull, y1),
                )
                d.rectangle(tray, fill=light, outline=dw.INK, width=lw)
                inner = (
                    tray[0] + 4 * s,
                    tray[1] + 3 * s,
                    tray[2] - 4 * s,
                    tray[1] + (tray[3] - tray[1]) * 0.55,
                )
                _interior(d, inner)
                spots.compartments[k] = inner
            else:
                d.rectangle(
                    (body[0] + 3 * s, dy0 + 3 * s, body[2] - 3 * s, dy1 - 3 * s), outline=dark, width=lw
                )
                cx, cy = (body[0] + body[2]) / 2, (dy0 + dy1) / 2
                d.rectangle(
                    (cx - w * 0.06, cy - 2 * s, cx + w * 0.06, cy + 2 * s),
                    fill=dw.rgb("silver"),
                    outline=dw.INK,
                )
                if look.locked:
                    _padlock(d, cx + w * 0.22, cy, max(8.0, min(bh * 0.4, w * 0.16)))
        spots.mount = (body[0], body[1], body[2], body[1] + bh)
    elif kind == "chest":
        body = (x0, y0 + h * 0.35, x1, y1)
        d.rectangle(body, fill=base, outline=dw.INK, width=lw)
        for fx in (0.15, 0.85):
            d.rectangle((x0 + w * fx - 3 * s, body[1], x0 + w * fx + 3 * s, y1), fill=dw.rgb("gold"))
        if opened:
            d.polygon(
                [
                    (x0, body[1]),
                    (x1, body[1]),
                    (x1 - w * 0.05, y0 - h * 0.35),
                    (x0 + w * 0.05, y0 - h * 0.35),
                ],
                fill=light,
                outline=dw.INK,
            )
            inner = (x0 + w * 0.06, body[1] + 3 * s, x1 - w * 0.06, body[1] + (y1 - body[1]) * 0.6)
            _interior(d, inner)
            spots.compartments[0] = inner
        else:
            d.rectangle((x0, y0, x1, body[1]), fill=light, outline=dw.INK, width=lw)
            if look.locked:
                _padlock(d, (x0 + x1) / 2, body[1] + h * 0.12, max(8.0, h * 0.22))
        spots.mount = (x0 + w * 0.3, body[1], x1 - w * 0.3, y1)
    elif kind == "bookshelf":
        d.rectangle(box, fill=dark, outline=dw.INK, width=lw)
        rng = random.Random(derive_seed("books", r.id))
        shelves = 4
        sh = h / shelves
        for k in range(shelves):
            sy1 = y0 + sh * (k + 1)
            d.rectangle((x0, sy1 - 5 * s, x1, sy1), fill=base, outline=dw.INK)
            if k == 1:
                spots.compartments[0] = (x0 + 5 * s, sy1 - sh + 4 * s, x1 - 5 * s, sy1 - 6 * s)
                continue
            bx = x0 + 6 * s
            while bx < x1 - 14 * s:
                bw = rng.uniform(7, 13) * s
                bh = sh * rng.uniform(0.55, 0.8)
                color = dw.rgb(rng.choice(("red", "blue", "green", "navy", "brown", "teal", "beige")))
                d.rectangle((bx, sy1 - 5 * s - bh, bx + bw, sy1 - 5 * s), fill=color, outline=dw.INK)
                bx += bw + 1.5 * s
        if look.moved:
            d.rectangle(
                (x0 + w * 0.2, y1 - sh * 0.9, x1 - w * 0.2, y1 - 6 * s), fill=(30, 25, 22), outline=dw.INK
            )
            spots.compartments[1] = (x0 + w * 0.22, y1 - sh * 0.85, x1 - w * 0.22, y1 - 8 * s)
        spots.display = (x0 + w * 0.1, y0 + sh * 1.1, x1 - w * 0.1, y0 + sh * 1.85)
        spots.mount = (x0 + w * 0.2, y0 + sh * 2.1, x1 - w * 0.2, y0 + sh * 2.9)
    elif kind in ("painting", "mirror", "board", "clock"):
        if look.moved:
            hole = (x0 + w * 0.2, y0 + h * 0.2, x1 - w * 0.2, y1 - h * 0.2)
            _interior(d, hole)
            spots.compartments[0] = (hole[0] + 3 * s, hole[1] + 3 * s, hole[2] - 3 * s, hole[3] - 3 * s)
            off = w * 0.85  # clear of the hidden compartment it uncovers
            x0, x1 = x0 + off, x1 + off
            y0, y1 = y0 + h * 0.12, y1 + h * 0.12
        if kind == "clock":
            d.ellipse((x0, y0, x1, y1), fill=base, outline=dw.INK, width=lw)
            face = (x0 + w * 0.08, y0 + h * 0.08, x1 - w * 0.08, y1 - h * 0.08)
            dw.clock_face(d, face, None, None)
            spots.display = face
        elif kind == "mirror":
            d.ellipse((x0, y0, x1, y1), fill=base, outline=dw.INK, width=lw)
            glass = (x0 + w * 0.1, y0 + h * 0.08, x1 - w * 0.1, y1 - h * 0.08)
            d.ellipse(glass, fill=(200, 225, 235), outline=dw.INK)
            d.line(
                (glass[0] + w * 0.2, glass[1] + h * 0.2, glass[0] + w * 0.35, glass[1] + h * 0.08),
                fill=(255, 255, 255),
                width=lw * 2,
            )
            spots.display = (glass[0] + w * 0.08, glass[1] + h * 0.2, glass[2] - w * 0.08, glass[3] - h * 0.2)
        else:
            d.rectangle((x0, y0, x1, y1), fill=base, outline=dw.INK, width=lw)
            canvas = (x0 + w * 0.08, y0 + h * 0.1, x1 - w * 0.08, y1 - h * 0.1)
            if kind == "board":
                d.rectangle(
                    canvas, fill=(196, 154, 108) if r.color != "white" else (250, 250, 250), outline=dw.INK
                )
            else:
                cx0, cy0, cx1, cy1 = canvas
                d.rectangle(canvas, fill=(150, 200, 235), outline=dw.INK)
                d.rectangle((cx0, cy0 + (cy1 - cy0) * 0.62, cx1, cy1), fill=(90, 160, 80))
                d.polygon(
                    [
                        (cx0, cy0 + (cy1 - cy0) * 0.62),
                        (cx0 + (cx1 - cx0) * 0.35, cy0 + (cy1 - cy0) * 0.25),
                        (cx0 + (cx1 - cx0) * 0.7, cy0 + (cy1 - cy0) * 0.62),
                    ],
                    fill=(120, 120, 140),
                )
                d.ellipse(
                    (
                        cx1 - (cx1 - cx0) * 0.22,
                        cy0 + 4 * s,
                        cx1 - (cx1 - cx0) * 0.08,
                        cy0 + 4 * s + (cx1 - cx0) * 0.14,
                    ),
                    fill=(250, 220, 60),
                )
            spots.display = canvas
        spots.mount = (x0 + w * 0.25, y1 - h * 0.05, x1 - w * 0.25, y1 + h * 0.25)
    elif kind == "lamp":
        cx = (x0 + x1) / 2
        shade_fill = (255, 230, 120) if look.lit else dw.shade(base, 1.1)
        if look.lit:  # the light cone first, so the pole and the foot stay visible on it
            d.polygon(
                [
                    (cx - w * 0.45, y0 + h * 0.3),
                    (cx + w * 0.45, y0 + h * 0.3),
                    (cx + w * 1.2, y1),
                    (cx - w * 1.2, y1),
                ],
                fill=(255, 248, 200),
            )
        d.rectangle((cx - 3 * s, y0 + h * 0.3, cx + 3 * s, y1 - h * 0.05), fill=dw.INK)
        d.ellipse((cx - w * 0.4, y1 - h * 0.06, cx + w * 0.4, y1), fill=dw.INK)
        d.polygon(
            [
                (cx - w * 0.25, y0),
                (cx + w * 0.25, y0),
                (cx + w * 0.45, y0 + h * 0.3),
                (cx - w * 0.45, y0 + h * 0.3),
            ],
            fill=shade_fill,
            outline=dw.INK,
            width=lw,
        )
        spots.mount = (cx + w * 0.1, y0 + h * 0.45, cx + w * 0.6, y0 + h * 0.6)
        spots.surface = (x0 - w * 0.4, y1 - h * 0.3, x1 + w * 0.4, y1 - h * 0.06)
    elif kind == "computer":
        top = y0 + h * 0.65
        d.rectangle((x0, top, x1, top + h * 0.07), fill=light, outline=dw.INK, width=lw)
        d.rectangle((x0 + w * 0.08, top + h * 0.07, x0 + w * 0.14, y1), fill=dark)
        d.rectangle((x1 - w * 0.14, top + h * 0.07, x1 - w * 0.08, y1), fill=dark)
        mon = (x0 + w * 0.15, y0, x1 - w * 0.15, top - h * 0.12)
        d.rectangle(mon, fill=(40, 40, 45), outline=dw.INK, width=lw)
        d.rectangle(((x0 + x1) / 2 - 4 * s, mon[3], (x0 + x1) / 2 + 4 * s, top), fill=(40, 40, 45))
        screen = (mon[0] + 5 * s, mon[1] + 5 * s, mon[2] - 5 * s, mon[3] - 5 * s)
        d.rectangle(screen, fill=(235, 245, 255) if look.lit else (15, 15, 20))
        d.rectangle((x0 + w * 0.25, top - h * 0.06, x1 - w * 0.25, top), fill=(200, 200, 200), outline=dw.INK)
        spots.display = screen
        spots.mount = (x1 - w * 0.3, top - h * 0.16, x1 - w * 0.05, top)
        spots.surface = (x0 + w * 0.02, top - h * 0.2, x0 + w * 0.3, top)
    elif kind == "table":
        top = y0 + h * 0.35
        d.rectangle((x0, top, x1, top + h * 0.1), fill=light, outline=dw.INK, width=lw)
        d.rectangle((x0 + w * 0.06, top + h * 0.1, x0 + w * 0.12, y1), fill=dark)
        d.rectangle((x1 - w * 0.12, top + h * 0.1, x1 - w * 0.06, y1), fill=dark)
        spots.surface = (x0 + w * 0.05, y0 - h * 0.2, x1 - w * 0.05, top)
        spots.mount = (x0 + w * 0.3, top + h * 0.1, x1 - w * 0.3, top + h * 0.4)
    elif kind == "plant":
        cx = (x0 + x1) / 2
        pot_x = cx + (w * 0.9 if look.moved else 0)
        if look.moved:
            spot = (cx - w * 0.45, y1 - h * 0.12, cx + w * 0.45, y1)
            d.ellipse(spot, fill=(80, 60, 45), outline=dw.INK)
            spots.compartments[0] = (cx - w * 0.4, y1 - h * 0.3, cx + w * 0.4, y1 - h * 0.03)
        d.polygon(
            [
                (pot_x - w * 0.35, y1 - h * 0.35),
                (pot_x + w * 0.35, y1 - h * 0.35),
                (pot_x + w * 0.25, y1),
                (pot_x - w * 0.25, y1),
            ],
            fill=base,
            outline=dw.INK,
            width=lw,
        )
        for k, (dx, dy) in enumerate(((-0.3, 0.0), (0.0, -0.05), (0.3, 0.0), (-0.15, 0.2), (0.15, 0.2))):
            leaf_box = (
                pot_x + w * (dx - 0.25),
                y0 + h * (dy + 0.05),
                pot_x + w * (dx + 0.25),
                y0 + h * (dy + 0.45),
            )
            d.ellipse(leaf_box, fill=(40 + 20 * k, 140, 60), outline=dw.INK)
        d.line((pot_x, y0 + h * 0.4, pot_x, y1 - h * 0.35), fill=(60, 110, 40), width=lw * 2)
        spots.mount = (pot_x - w * 0.3, y1 - h * 0.3, pot_x + w * 0.3, y1 - h * 0.05)
    return spots


def draw_item(d: ImageDraw.ImageDraw, item: Item, box: dw.Box, pressed: bool = False) -> None:
    """A small icon of `item` filling `box` (its close-up is drawn by `ViewMaker.item_view`)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    c = dw.rgb(item.color)
    lw = max(1, int(min(w, h) / 30))
    k = item.kind
    if k == "key":
        r = min(w, h) * 0.22
        d.ellipse((x0 + w * 0.05, cy - r, x0 + w * 0.05 + 2 * r, cy + r), fill=c, outline=dw.INK, width=lw)
        d.ellipse(
            (x0 + w * 0.05 + r * 0.6, cy - r * 0.4, x0 + w * 0.05 + r * 1.4, cy + r * 0.4), fill=(60, 45, 35)
        )
        d.rectangle(
            (x0 + w * 0.05 + 2 * r, cy - h * 0.06, x1 - w * 0.05, cy + h * 0.06),
            fill=c,
            outline=dw.INK,
            width=lw,
        )
        for tx in (0.7, 0.82):
            d.rectangle(
                (x0 + w * tx, cy + h * 0.06, x0 + w * (tx + 0.07), cy + h * 0.22), fill=c, outline=dw.INK
            )
    elif k == "card":
        d.rounded_rectangle(
            (x0 + w * 0.05, y0 + h * 0.2, x1 - w * 0.05, y1 - h * 0.2),
            radius=min(w, h) * 0.08,
            fill=c,
            outline=dw.INK,
            width=lw,
        )
        d.rectangle((x0 + w * 0.05, y0 + h * 0.32, x1 - w * 0.05, y0 + h * 0.42), fill=dw.INK)
        if item.label:
            dw.fit_text(
                d,
                (x0 + w * 0.1, y0 + h * 0.45, x1 - w * 0.1, y1 - h * 0.22),
                item.label,
                int(h * 0.2),
                dw.contrast(c),
            )
    elif k == "coin":
        r = min(w, h) * 0.4
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c, outline=dw.INK, width=lw)
        d.ellipse(
            (cx - r * 0.75, cy - r * 0.75, cx + r * 0.75, cy + r * 0.75), outline=dw.shade(c, 0.7), width=lw
        )
        dw.text(d, (cx, cy), item.label or "1", int(r))
    elif k == "battery":
        d.rectangle(
            (x0 + w * 0.1, cy - h * 0.2, x1 - w * 0.15, cy + h * 0.2), fill=c, outline=dw.INK, width=lw
        )
        d.rectangle(
            (x1 - w * 0.15, cy - h * 0.08, x1 - w * 0.08, cy + h * 0.08),
            fill=dw.rgb("silver"),
            outline=dw.INK,
        )
        dw.text(d, (cx - w * 0.05, cy), "+", int(h * 0.3), dw.contrast(c))
    elif k == "fuse":
        d.rectangle(
            (x0 + w * 0.22, cy - h * 0.13, x1 - w * 0.22, cy + h * 0.13),
            fill=(230, 240, 245),
            outline=dw.INK,
            width=lw,
        )
        d.line((x0 + w * 0.22, cy, x1 - w * 0.22, cy), fill=c, width=max(2, lw * 2))
        for ex in ((x0 + w * 0.08, x0 + w * 0.22), (x1 - w * 0.22, x1 - w * 0.08)):
            d.rectangle((ex[0], cy - h * 0.16, ex[1], cy + h * 0.16), fill=dw.rgb("silver"), outline=dw.INK)
    elif k == "screwdriver":
        d.rounded_rectangle(
            (x0 + w * 0.05, cy - h * 0.12, x0 + w * 0.45, cy + h * 0.12),
            radius=h * 0.08,
            fill=c,
            outline=dw.INK,
            width=lw,
        )
        d.rectangle(
            (x0 + w * 0.45, cy - h * 0.04, x1 - w * 0.1, cy + h * 0.04), fill=dw.rgb("silver"), outline=dw.INK
        )
        d.polygon(
            [(x1 - w * 0.1, cy - h * 0.06), (x1 - w * 0.03, cy), (x1 - w * 0.1, cy + h * 0.06)],
            fill=dw.rgb("silver"),
            outline=dw.INK,
        )
    elif k == "gem":
        d.polygon(
            [
                (cx - w * 0.3, cy - h * 0.12),
                (cx - w * 0.15, cy - h * 0.3),
                (cx + w * 0.15, cy - h * 0.3),
                (cx + w * 0.3, cy - h * 0.12),
                (cx, cy + h * 0.35),
            ],
            fill=c,
            outline=dw.INK,
            width=lw,
        )
        d.line((cx - w * 0.3, cy - h * 0.12, cx + w * 0.3, cy - h * 0.12), fill=dw.INK, width=lw)
    elif k == "bulb":
        r = min(w, h) * 0.28
        d.ellipse(
            (cx - r, y0 + h * 0.1, cx + r, y0 + h * 0.1 + 2 * r),
            fill=(255, 250, 200),
            outline=dw.INK,
            width=lw,
        )
        d.rectangle(
            (cx - r * 0.45, y0 + h * 0.1 + 1.8 * r, cx + r * 0.45, y0 + h * 0.1 + 2.6 * r),
            fill=dw.rgb("silver"),
            outline=dw.INK,
        )
    elif k == "handle":
        d.arc(
            (x0 + w * 0.1, cy - h * 0.3, x1 - w * 0.1, cy + h * 0.3), 180, 360, fill=c, width=max(3, lw * 4)
        )
        d.rectangle((x0 + w * 0.05, cy - h * 0.02, x0 + w * 0.2, cy + h * 0.1), fill=dw.INK)
        d.rectangle((x1 - w * 0.2, cy - h * 0.02, x1 - w * 0.05, cy + h * 0.1), fill=dw.INK)
    elif k == "remote":
        d.rounded_rectangle(
            (cx - w * 0.18, y0 + h * 0.08, cx + w * 0.18, y1 - h * 0.08),
            radius=w * 0.06,
            fill=(50, 50, 55),
            outline=dw.INK,
            width=lw,
        )
        d.ellipse((cx - w * 0.07, y0 + h * 0.15, cx + w * 0.07, y0 + h * 0.15 + w * 0.14), fill=c)
        for row in range(3):
            for col in (-1, 1):
                bx, by = cx + col * w * 0.07, y0 + h * (0.45 + row * 0.13)
                d.ellipse(
                    (bx - w * 0.035, by - w * 0.035, bx + w * 0.035, by + w * 0.035), fill=(200, 200, 200)
                )
    elif k in ("note", "poster"):
        d.rectangle(
            (x0 + w * 0.12, y0 + h * 0.08, x1 - w * 0.12, y1 - h * 0.08),
            fill=dw.PAPER,
            outline=dw.INK,
            width=lw,
        )
        for ly in range(4):
            yy = y0 + h * (0.25 + ly * 0.15)
            d.line((x0 + w * 0.22, yy, x1 - w * 0.22, yy), fill=(150, 150, 170), width=lw)
    elif k == "photo":
        d.rectangle(
            (x0 + w * 0.08, y0 + h * 0.15, x1 - w * 0.08, y1 - h * 0.15),
            fill=(255, 255, 255),
            outline=dw.INK,
            width=lw,
        )
        d.rectangle((x0 + w * 0.14, y0 + h * 0.22, x1 - w * 0.14, y1 - h * 0.3), fill=(120, 150, 190))
    elif k == "book":
        d.rectangle(
            (x0 + w * 0.15, y0 + h * 0.1, x1 - w * 0.15, y1 - h * 0.1), fill=c, outline=dw.INK, width=lw
        )
        d.rectangle((x0 + w * 0.15, y0 + h * 0.1, x0 + w * 0.25, y1 - h * 0.1), fill=dw.shade(c, 0.6))
        if item.label:
            dw.fit_text(
                d,
                (x0 + w * 0.27, cy - h * 0.12, x1 - w * 0.17, cy + h * 0.12),
                item.label,
                int(h * 0.14),
                dw.contrast(c),
            )
    elif k == "lock":
        d.rounded_rectangle(
            (x0 + w * 0.15, y0 + h * 0.2, x1 - w * 0.15, y1 - h * 0.1),
            radius=w * 0.06,
            fill=(70, 74, 82),
            outline=dw.INK,
            width=lw,
        )
        for col in range(3):
            bx = x0 + w * (0.3 + col * 0.2)
            d.rectangle(
                (bx - w * 0.07, cy - h * 0.08, bx + w * 0.07, cy + h * 0.18),
                fill=(240, 240, 235),
                outline=dw.INK,
            )
        d.ellipse(
            (x1 - w * 0.28, y0 + h * 0.25, x1 - w * 0.2, y0 + h * 0.25 + w * 0.08),
            fill=(0, 190, 80) if pressed else (200, 40, 40),
        )
    elif k == "button":
        d.rectangle(
            (x0 + w * 0.15, y0 + h * 0.15, x1 - w * 0.15, y1 - h * 0.15),
            fill=(90, 90, 95),
            outline=dw.INK,
            width=lw,
        )
        r = min(w, h) * 0.22
        fill = dw.shade(c, 0.5) if pressed else c
        d.ellipse(
            (cx - r, cy - r + (r * 0.15 if pressed else 0), cx + r, cy + r),
            fill=fill,
            outline=dw.INK,
            width=lw,
        )


class ViewMaker:
    """Images and captions of one room's views, with caches for the episode."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.room = engine.room
        self.clue_quiz: dict[str, Quiz] = {q.clue: q for q in self.room.quizzes}
        self._png: dict[tuple, bytes] = {}

    # --- helpers -------------------------------------------------------------------------------
    def _look(self, state: GameState, r: Receptacle) -> StateSpec:
        return r.state(self.engine.rec_state(state, r.id))

    def _clue_shown(self, state: GameState, r: Receptacle) -> Quiz | None:
        quiz = self.clue_quiz.get(r.id)
        if quiz is None:
            return None
        if quiz.clue_states is not None and self.engine.rec_state(state, r.id) not in quiz.clue_states:
            return None
        return quiz

    def _draw_quiz_clue(
        self, d: ImageDraw.ImageDraw, quiz: Quiz, box: dw.Box, background: bool = True
    ) -> None:
        if background:
            d.rectangle(box, fill=dw.PAPER, outline=dw.INK)
        x0, y0, x1, y1 = box
        pad = min(x1 - x0, y1 - y0) * 0.06
        get_kind(quiz.kind).draw_clue(
            d, (x0 + pad, y0 + pad, x1 - pad, y1 - pad), self.engine.quiz_params[quiz.id]
        )

    def _draw_receptacle(
        self, d: ImageDraw.ImageDraw, state: GameState, r: Receptacle, box: dw.Box, s: float, names: bool
    ) -> None:
        look = self._look(state, r)
        spots = draw_receptacle(d, r, look, box, s)
        self._draw_state_marks(d, r, look, box, spots, s)
        quiz = self._clue_shown(state, r)
        if quiz is not None and spots.display is not None:
            # a clock's own face carries the clue; other displays get a sheet of paper behind it
            self._draw_quiz_clue(d, quiz, spots.display, background=r.kind != "clock")
        items = self.engine.visible_items(state, r.id)
        placed = self._place_items(r, items, spots, box, 64.0 if names else 0.0)
        for item, ibox in placed:
            draw_item(d, item, ibox, pressed=self._item_on(state, item))
            if names:
                dw.label(d, ((ibox[0] + ibox[2]) / 2, ibox[3] + 12), item.id, 15)

    def _draw_state_marks(
        self, d: ImageDraw.ImageDraw, r: Receptacle, look: StateSpec, box: dw.Box, spots: Spots, s: float
    ) -> None:
        """State cues the furniture drawing itself has no picture for, so no state change goes unseen:
        screws on a screwed front, an indicator light for on/off states, an installed item."""
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        if look.screwed:
            r_screw = max(3.0, min(w, h) * 0.045)
            for cx, cy in ((x0 + w * 0.1, y0 + h * 0.1), (x1 - w * 0.1, y0 + h * 0.1)):
                for yy in (cy, y1 - (cy - y0)):
                    d.ellipse(
                        (cx - r_screw, yy - r_screw, cx + r_screw, yy + r_screw),
                        fill=dw.rgb("silver"),
                        outline=dw.INK,
                        width=max(1, int(s)),
                    )
                    d.line(
                        (cx - r_screw * 0.7, yy, cx + r_screw * 0.7, yy), fill=dw.INK, width=max(1, int(s))
                    )
        if r.kind in ("mirror", "painting") and look.lit:  # lit up: a glowing rim
            glow = {"outline": (255, 214, 60), "width": max(3, int(4 * s))}
            if r.kind == "painting":
                d.rectangle(box, **glow)
            else:
                d.ellipse(box, **glow)
        if r.kind not in SELF_LIT_KINDS and any(st.lit for st in r.states):
            r_led = max(4.0, min(w, h) * 0.05)
            cx, cy = x1 - r_led * 1.6, y0 + r_led * 1.6
            d.ellipse(
                (cx - r_led, cy - r_led, cx + r_led, cy + r_led),
                fill=(40, 220, 90) if look.lit else (70, 70, 70),
                outline=dw.INK,
                width=max(1, int(s)),
            )
        shown_otherwise = look.locked or look.open or look.open_parts or look.lit or look.moved
        if not shown_otherwise:
            placed = [
                self.engine.items[t.item]
                for t in self.engine.transitions[r.id]
                if t.action == "use"
                and t.consume
                and t.to == look.name
                and t.item is not None
                and self.engine.items[t.item].kind in INSTALLED_KINDS
            ]
            if placed:
                size = min(w, h) * 0.32
                area = spots.mount or box
                cx, cy = (area[0] + area[2]) / 2, (area[1] + area[3]) / 2
                d.ellipse(
                    (cx - size * 0.62, cy - size * 0.62, cx + size * 0.62, cy + size * 0.62),
                    fill=(45, 40, 38),
                    outline=dw.INK,
                    width=max(1, int(s)),
                )
                draw_item(d, placed[0], (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2))

    def _item_on(self, state: GameState, item: Item) -> bool:
        if item.kind == "lock":
            return self.engine.solved(state, item.id)
        if item.kind == "button":
            return f"pressed_{item.id}" in state.triggers
        return False

    def _place_items(
        self, r: Receptacle, items: list[Item], spots: Spots, box: dw.Box, min_size: float = 0.0
    ) -> list[tuple[Item, dw.Box]]:
        """Lay items out in the compartment they belong to (else the surface, else the front)."""
        groups: dict[str, list[Item]] = {}
        part_of = {c.item: c.part for c in r.contains}
        for item in items:
            if item.kind in ("lock", "button") and spots.mount is not None:
                key = "mount"
            elif part_of.get(item.id) is not None and part_of[item.id] in spots.compartments:
                key = f"c{part_of[item.id]}"
            elif spots.compartments:
                key = f"c{min(spots.compartments)}"
            elif spots.surface is not None:
                key = "surface"
            else:
                key = "mount"
            groups.setdefault(key, []).append(item)
        out: list[tuple[Item, dw.Box]] = []
        for key, group in groups.items():
            if key == "mount":
                area = spots.mount or box
            elif key == "surface":
                area = spots.surface or box
            else:
                area = spots.compartments[int(key[1:])]
            x0, y0, x1, y1 = area
            n = len(group)
            slot = (x1 - x0) / n
            size = min(slot * 0.9, max((y1 - y0) * 0.9, min_size))
            for k, item in enumerate(group):
                cx, cy = x0 + slot * (k + 0.5), (y0 + y1) / 2
                out.append((item, (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2)))
        return out

    def _canvas(self, wall: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
        img = Image.new("RGB", (W, H), dw.rgb(self.room.wall_color))
        d = ImageDraw.Draw(img)
        d.rectangle((0, FLOOR_Y, W, H), fill=dw.shade(dw.rgb(self.room.floor_color), 0.9))
        d.line((0, FLOOR_Y, W, FLOOR_Y), fill=dw.INK, width=2)
        return img, d

    def _title(self, d: ImageDraw.ImageDraw, words: str) -> None:
        font_size = 16
        d.rectangle((0, 0, W, 26), fill=(30, 32, 40))
        dw.text(d, (W / 2, 13), words, font_size, (240, 240, 240))

    # --- the three views -------------------------------------------------------------------------
    def wall_layout(self, state: GameState, wall: str) -> tuple[float, list[tuple[Receptacle, dw.Box]]]:
        """The wall's scale and each visible receptacle's box, spread evenly over the wall's width.

        The scale depends only on which receptacles are visible (not their states), so opening or
        moving something never resizes the wall."""
        recs = self.engine.visible_receptacles(state, wall)
        if not recs:
            return 1.0, []
        scale = wall_scale(recs)
        spans = []
        for r in recs:
            bw, _, _ = SIZES[r.kind]
            left, right, _ = extents(r)
            spans.append((bw * scale * left, bw * scale, bw * scale * right))
        used = sum(a + b + c for a, b, c in spans)
        gap = (W - 2 * WALL_MARGIN - used) / (len(recs) + 1)
        x = WALL_MARGIN + gap
        out = []
        for r, (left, width, right) in zip(recs, spans, strict=True):
            _, bh, hung = SIZES[r.kind]
            bh *= scale
            x0 = x + left
            if hung:
                top = CEILING_Y + 12
                out.append((r, (x0, top, x0 + width, top + bh)))
            else:
                out.append((r, (x0, FLOOR_Y - bh, x0 + width, FLOOR_Y)))
            x = x0 + width + right + gap
        return scale, out

    def wall_image(self, state: GameState, wall: str) -> Image.Image:
        img, d = self._canvas(wall)
        scale, layout = self.wall_layout(state, wall)
        for r, box in layout:
            self._draw_receptacle(d, state, r, box, scale, names=False)
        for r, box in layout:
            y = FLOOR_Y + 24 if not SIZES[r.kind][2] else box[3] + 16
            if SIZES[r.kind][2] and self.engine.visible_items(state, r.id):  # below the items it shows
                y += (box[3] - box[1]) * 0.3
            if SIZES[r.kind][2] and self._look(state, r).moved:  # a picture moved aside hangs lower
                y += (box[3] - box[1]) * 0.12
            dw.label(d, ((box[0] + box[2]) / 2, y), r.id, 16)
        if not layout:
            dw.text(d, (W / 2, H / 2), "(bare wall)", 18, (90, 90, 90))
        self._title(d, f"{wall.upper()} WALL - {self.room.title}")
        return img

    def receptacle_image(self, state: GameState, rid: str) -> Image.Image:
        r = self.engine.recs[rid]
        img, d = self._canvas(r.wall)
        bw, bh, hung = SIZES[r.kind]
        # surfaces leave room above them for the items they hold
        room_above = 90 if r.kind in ("desk", "drawers", "chest", "table") else 0
        # hung furniture shows its items (and their name tags) just below it
        below = 0.45 if hung and r.contains else 0.0
        scale = min((365 - room_above) / (bh * (1 + below)), 440 / bw)
        if self._look(state, r).moved and r.kind in ("painting", "mirror", "board", "clock", "plant"):
            scale *= 0.7
        bw, bh = bw * scale, bh * scale
        cx = W / 2 - (bw * 0.3 if self._look(state, r).moved else 0)
        bottom = 445 if not hung else 60 + room_above + bh + 20
        box = (cx - bw / 2, bottom - bh, cx + bw / 2, bottom)
        self._draw_receptacle(d, state, r, box, scale, names=True)
        shown = f" ({self._state_words(state, r)})" if len(r.states) > 1 else ""
        self._title(d, f"{r.id}{shown} - close-up, {r.wall} wall")
        return img

    def item_image(self, state: GameState, iid: str) -> Image.Image:
        item = self.engine.items[iid]
        img = Image.new("RGB", (W, H), (60, 62, 70))
        d = ImageDraw.Draw(img)
        d.rectangle((30, 40, W - 30, H - 20), fill=(222, 214, 196), outline=dw.INK, width=2)
        box = (80, 70, W - 80, H - 50)
        quiz = self.clue_quiz.get(iid)
        if item.kind == "lock":
            kind, params = self.engine.quiz_kind(iid)
            kind.draw_lock(d, (70, 80, W - 70, H - 60), params, self.engine.solved(state, iid))
        elif quiz is not None:
            if item.kind == "photo":
                d.rectangle(box, fill=(255, 255, 255), outline=dw.INK, width=3)
                self._draw_quiz_clue(d, quiz, (box[0] + 20, box[1] + 20, box[2] - 20, box[3] - 20))
            else:
                d.rectangle(
                    box, fill=dw.PAPER if item.kind != "book" else (248, 240, 220), outline=dw.INK, width=3
                )
                if item.kind == "book":
                    d.line(
                        ((box[0] + box[2]) / 2, box[1], (box[0] + box[2]) / 2, box[3]),
                        fill=(150, 130, 110),
                        width=3,
                    )
                self._draw_quiz_clue(
                    d, quiz, (box[0] + 20, box[1] + 20, box[2] - 20, box[3] - 20), background=False
                )
        elif item.kind in ("note", "poster", "book", "photo") and item.text:
            d.rectangle(box, fill=dw.PAPER, outline=dw.INK, width=3)
            self._write(d, item.text, box)
        else:
            draw_item(d, item, (170, 110, W - 170, H - 90), pressed=self._item_on(state, item))
        where = "held" if iid in state.held else "close-up"
        self._title(d, f"{iid} - {item.words} ({where})")
        return img

    @staticmethod
    def _write(d: ImageDraw.ImageDraw, words: str, box: dw.Box) -> None:
        x0, y0, x1, y1 = box
        lines: list[str] = []
        for para in words.split("\n"):
            line = ""
            for word in para.split():
                if len(line) + len(word) + 1 > 30:
                    lines.append(line)
                    line = word
                else:
                    line = f"{line} {word}".strip()
            lines.append(line)
        step = min(44.0, (y1 - y0 - 40) / max(1, len(lines)))
        for k, line in enumerate(lines):
            dw.text(d, ((x0 + x1) / 2, y0 + 30 + step * (k + 0.5)), line, int(min(30, step * 0.7)))

    def image(self, state: GameState) -> bytes:
        key = self.render_key(state)
        png = self._png.get(key)
        if png is None:
            v = state.view
            if v[0] == "wall":
                img = self.wall_image(state, v[1])
            elif v[0] == "rec":
                img = self.receptacle_image(state, v[1])
            else:
                img = self.item_image(state, v[1])
            png = to_png(img)
            if len(self._png) > 256:
                self._png.clear()
            self._png[key] = png
        return png

    def render_key(self, state: GameState) -> tuple:
        """Everything a view depends on (the view's own wall or object, not the whole state)."""
        v = state.view
        if v[0] == "item":
            return ("item", v[1], v[1] in state.held, self._item_on(state, self.engine.items[v[1]]))
        return (v[0], v[1], state.states, state.gone, state.triggers)

    # --- captions --------------------------------------------------------------------------------
    def _state_words(self, state: GameState, r: Receptacle) -> str:
        return state_words(r, self.engine.rec_state(state, r.id))

    def _rec_phrase(self, state: GameState, r: Receptacle, detailed: bool) -> str:
        look = self._look(state, r)
        words = f'"{r.id}" ({article(r.color)} {r.color} {KIND_WORDS[r.kind]}'
        if len(r.states) > 1:
            words += f", {self._state_words(state, r)}"
        if look.description:
            words += f"; {look.description}"
        if r.description and detailed:
            words += f"; {r.description}"
        words += ")"
        items = self.engine.visible_items(state, r.id)
        if items:
            inner = ", ".join(f'"{i.id}"' + (f" ({i.words})" if detailed else "") for i in items)
            words += f" showing {inner}"
        return words

    def caption(self, state: GameState) -> str:
        v = state.view
        if v[0] == "wall":
            layout = self.engine.visible_receptacles(state, v[1])
            if not layout:
                return f"The {v[1]} wall of the room. It is bare."
            listed = "; ".join(self._rec_phrase(state, r, False) for r in layout)
            return f"The {v[1]} wall of the room. From left to right: {listed}."
        if v[0] == "rec":
            r = self.engine.recs[v[1]]
            out = f"Close-up of {self._rec_phrase(state, r, True)}, at the {r.wall} wall."
            quiz = self._clue_shown(state, r)
            if quiz is not None:
                out += " " + get_kind(quiz.kind).clue_caption(self.engine.quiz_params[quiz.id])
            for item in self.engine.visible_items(state, r.id):
                if item.kind == "lock":
                    out += f' "{item.id}" is {"open (solved)" if self.engine.solved(state, item.id) else "shut"}.'
                if item.kind == "button" and self._item_on(state, item):
                    out += f' "{item.id}" is pressed in.'
            return out
        item = self.engine.items[v[1]]
        held = " (in your inventory)" if item.id in state.held else ""
        out = (
            f'Close-up of "{item.id}"{held}: {article(item.color)} {item.color} {item.kind}'
            if item.kind not in ("note", "photo", "poster", "book", "lock")
            else (f'Close-up of "{item.id}"{held}: a {item.kind}')
        )
        if item.label:
            out += f' labelled "{item.label}"'
        out += "."
        if item.kind == "lock":
            kind, params = self.engine.quiz_kind(item.id)
            out += " " + kind.lock_caption(params)
            out += " It is open (solved)." if self.engine.solved(state, item.id) else " It is shut."
        elif item.id in self.clue_quiz:
            quiz = self.clue_quiz[item.id]
            out += " " + get_kind(quiz.kind).clue_caption(self.engine.quiz_params[quiz.id])
        elif item.text:
            out += f' It reads: "{item.text}"'
        return out

    def header(self, state: GameState) -> str:
        """`<direction> side of room - <what is shown>` as in the paper's observation tag."""
        v = state.view
        wall = view_wall(v, self.room)
        if v[0] == "wall":
            what = "wall view"
        elif v[0] == "rec":
            what = f"close-up of {v[1]}"
        else:
            what = f"close-up of item {v[1]}"
        return f"{wall} side of room - {what}"
