"""How each kind of receptacle (furniture) is drawn: one small drawer per kind in `DRAWERS`.

`draw_receptacle` sets up the geometry and colours of one piece (`Piece`) and hands it to the drawer of
its kind, which paints it in its current look and returns the `Spots` where the piece shows things
(open compartments, a surface, a display, the front where locks and buttons sit).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from PIL import ImageDraw

from playbench.core.task import derive_seed
from playbench.tasks.visescape import drawing as dw
from playbench.tasks.visescape.schema import Receptacle, StateSpec


@dataclass
class Spots:
    """Where a drawn receptacle can show things: open compartments, its surface, a display."""

    compartments: dict[int, dw.Box]
    surface: dw.Box | None = None
    display: dw.Box | None = None
    mount: dw.Box | None = None  # where locks/buttons sit on the front


@dataclass(frozen=True)
class Piece:
    """One receptacle being drawn: its box, look, scale `s` (line widths, details) and colours.

    `w` and `h` are the box's size as first given: a piece drawn shifted aside (a moved painting)
    keeps them, so its proportions do not depend on where it is moved to."""

    d: ImageDraw.ImageDraw
    r: Receptacle
    look: StateSpec
    s: float
    x0: float
    y0: float
    x1: float
    y1: float
    w: float
    h: float
    base: dw.RGB
    dark: dw.RGB
    light: dw.RGB
    lw: int

    @property
    def box(self) -> dw.Box:
        return (self.x0, self.y0, self.x1, self.y1)

    @property
    def opened(self) -> bool:
        return self.look.open or bool(self.look.open_parts)


def padlock(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
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


def interior(d: ImageDraw.ImageDraw, box: dw.Box) -> None:
    d.rectangle(box, fill=(58, 44, 36), outline=dw.INK, width=2)


# --- hinged furniture: door, wardrobe, cabinet, safe ----------------------------------------------------


def _hinged(p: Piece, spots: Spots) -> None:
    d, s, kind = p.d, p.s, p.r.kind
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    if kind == "door":
        d.rectangle((x0 - 6 * s, y0 - 6 * s, x1 + 6 * s, y1), fill=dw.shade(p.base, 0.45))
    d.rectangle(p.box, fill=p.base if kind != "safe" else dw.shade(p.base, 0.9), outline=dw.INK, width=p.lw)
    if p.opened:
        _hinged_open(p, spots)
    else:
        _HINGED_FRONTS[kind](p)
        if p.look.locked:
            padlock(
                d,
                x0 + w * (0.5 if kind == "wardrobe" else 0.82),
                y0 + h * 0.62,
                max(10.0, min(w, h) * 0.16),
            )
    spots.mount = (x0 + w * 0.12, y0 + h * 0.12, x0 + w * 0.6, y0 + h * 0.55) if not p.opened else None
    if kind == "door" and not p.opened:
        spots.mount = (x0 + w * 0.55, y0 + h * 0.25, x1 - w * 0.05, y0 + h * 0.45)


def _hinged_open(p: Piece, spots: Spots) -> None:
    """An open door shows the way out; other hinged furniture its shelf and swung-open leaves."""
    d, s, light = p.d, p.s, p.light
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    inner = (x0 + w * 0.06, y0 + h * 0.05, x1 - w * 0.06, y1 - h * 0.03)
    if p.r.kind == "door":
        d.rectangle(inner, fill=(255, 246, 200), outline=dw.INK, width=p.lw)
        dw.text(d, ((inner[0] + inner[2]) / 2, inner[1] + h * 0.3), "EXIT", int(h * 0.09), (30, 140, 60))
        d.polygon(
            [(x1, y0), (x1 + w * 0.35, y0 + h * 0.06), (x1 + w * 0.35, y1 - h * 0.02), (x1, y1)],
            fill=light,
            outline=dw.INK,
        )
        return
    interior(d, inner)
    # swung-open door leaf
    d.polygon(
        [(x0, y0), (x0 - w * 0.3, y0 + h * 0.05), (x0 - w * 0.3, y1 - h * 0.03), (x0, y1)],
        fill=light,
        outline=dw.INK,
    )
    if p.r.kind == "wardrobe":
        d.polygon(
            [(x1, y0), (x1 + w * 0.3, y0 + h * 0.05), (x1 + w * 0.3, y1 - h * 0.03), (x1, y1)],
            fill=light,
            outline=dw.INK,
        )
    shelf_y = inner[1] + (inner[3] - inner[1]) * 0.62
    d.line((inner[0], shelf_y, inner[2], shelf_y), fill=(120, 95, 70), width=max(2, int(3 * s)))
    spots.compartments[0] = (inner[0] + 4, inner[1] + 4, inner[2] - 4, shelf_y - 2)


def _wardrobe_front(p: Piece) -> None:
    d, s = p.d, p.s
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.line(((x0 + x1) / 2, y0, (x0 + x1) / 2, y1), fill=dw.INK, width=p.lw)
    for hx in (x0 + w * 0.45, x0 + w * 0.55):
        d.rectangle((hx - 2 * s, y0 + h * 0.45, hx + 2 * s, y0 + h * 0.55), fill=dw.rgb("silver"))


def _panelled_front(p: Piece) -> None:
    """A door's or cabinet's two panels and knob."""
    d, lw, dark = p.d, p.lw, p.dark
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.rectangle((x0 + w * 0.12, y0 + h * 0.08, x1 - w * 0.12, y0 + h * 0.42), outline=dark, width=lw)
    d.rectangle((x0 + w * 0.12, y0 + h * 0.52, x1 - w * 0.12, y1 - h * 0.06), outline=dark, width=lw)
    d.ellipse(
        (x1 - w * 0.2, y0 + h * 0.46, x1 - w * 0.12, y0 + h * 0.46 + w * 0.08),
        fill=dw.rgb("gold"),
        outline=dw.INK,
    )


def _safe_front(p: Piece) -> None:
    d, lw = p.d, p.lw
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.rectangle((x0 + w * 0.08, y0 + h * 0.08, x1 - w * 0.08, y1 - h * 0.08), outline=p.dark, width=lw)
    cx, cy, rr = x0 + w * 0.7, (y0 + y1) / 2, min(w, h) * 0.12
    d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=dw.rgb("silver"), outline=dw.INK, width=lw)
    d.line((cx, cy, cx + rr * 0.8, cy - rr * 0.4), fill=dw.INK, width=lw)


_HINGED_FRONTS: dict[str, Callable[[Piece], None]] = {
    "door": _panelled_front,
    "cabinet": _panelled_front,
    "wardrobe": _wardrobe_front,
    "safe": _safe_front,
}


# --- drawers and desks ------------------------------------------------------------------------------------


def _drawers(p: Piece, spots: Spots) -> None:
    """A chest of drawers, or a desk with a drawer block under its top; each drawer opens on its own."""
    d, s, lw, dark, light = p.d, p.s, p.lw, p.dark, p.light
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    if p.r.kind == "desk":
        top = y0 + h * 0.12
        d.rectangle((x0, y0, x1, top), fill=light, outline=dw.INK, width=lw)
        d.rectangle((x0 + w * 0.04, top, x0 + w * 0.1, y1), fill=dark, outline=dw.INK)
        d.rectangle((x1 - w * 0.1, top, x1 - w * 0.04, y1), fill=dark, outline=dw.INK)
        body = (x0 + w * 0.5, top, x1 - w * 0.1, top + h * (0.28 * p.r.parts))
        spots.surface = (x0 + w * 0.05, y0 - h * 0.45, x1 - w * 0.05, y0)
    else:
        body = (x0, y0, x1, y1 - h * 0.05)
        d.rectangle((x0 + w * 0.05, y1 - h * 0.05, x0 + w * 0.15, y1), fill=dark)
        d.rectangle((x1 - w * 0.15, y1 - h * 0.05, x1 - w * 0.05, y1), fill=dark)
        spots.surface = (x0 + w * 0.05, y0 - h * 0.4, x1 - w * 0.05, y0)
    d.rectangle(body, fill=p.base, outline=dw.INK, width=lw)
    n = p.r.parts
    bh = (body[3] - body[1]) / n
    for k in range(n):
        dy0, dy1 = body[1] + bh * k, body[1] + bh * (k + 1)
        if p.look.open or k in p.look.open_parts:
            # a pulled-out drawer sits a little lower, never below the feet
            pull = min(bh * 0.25, h * 0.1)
            tray = (
                body[0] - (body[2] - body[0]) * 0.08,
                dy0 + pull,
                body[2] + (body[2] - body[0]) * 0.08,
                min(dy1 + pull, y1),
            )
            d.rectangle(tray, fill=light, outline=dw.INK, width=lw)
            inner = (tray[0] + 4 * s, tray[1] + 3 * s, tray[2] - 4 * s, tray[1] + (tray[3] - tray[1]) * 0.55)
            interior(d, inner)
            spots.compartments[k] = inner
        else:
            d.rectangle((body[0] + 3 * s, dy0 + 3 * s, body[2] - 3 * s, dy1 - 3 * s), outline=dark, width=lw)
            cx, cy = (body[0] + body[2]) / 2, (dy0 + dy1) / 2
            d.rectangle(
                (cx - w * 0.06, cy - 2 * s, cx + w * 0.06, cy + 2 * s), fill=dw.rgb("silver"), outline=dw.INK
            )
            if p.look.locked:
                padlock(d, cx + w * 0.22, cy, max(8.0, min(bh * 0.4, w * 0.16)))
    spots.mount = (body[0], body[1], body[2], body[1] + bh)


def _chest(p: Piece, spots: Spots) -> None:
    d, s, lw = p.d, p.s, p.lw
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    body = (x0, y0 + h * 0.35, x1, y1)
    d.rectangle(body, fill=p.base, outline=dw.INK, width=lw)
    for fx in (0.15, 0.85):
        d.rectangle((x0 + w * fx - 3 * s, body[1], x0 + w * fx + 3 * s, y1), fill=dw.rgb("gold"))
    if p.opened:
        d.polygon(
            [(x0, body[1]), (x1, body[1]), (x1 - w * 0.05, y0 - h * 0.35), (x0 + w * 0.05, y0 - h * 0.35)],
            fill=p.light,
            outline=dw.INK,
        )
        inner = (x0 + w * 0.06, body[1] + 3 * s, x1 - w * 0.06, body[1] + (y1 - body[1]) * 0.6)
        interior(d, inner)
        spots.compartments[0] = inner
    else:
        d.rectangle((x0, y0, x1, body[1]), fill=p.light, outline=dw.INK, width=lw)
        if p.look.locked:
            padlock(d, (x0 + x1) / 2, body[1] + h * 0.12, max(8.0, h * 0.22))
    spots.mount = (x0 + w * 0.3, body[1], x1 - w * 0.3, y1)


def _bookshelf(p: Piece, spots: Spots) -> None:
    """Four shelves of seeded books (the second shelf left free for items); moved aside, a hidden hole."""
    d, s = p.d, p.s
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.rectangle(p.box, fill=p.dark, outline=dw.INK, width=p.lw)
    rng = random.Random(derive_seed("books", p.r.id))
    shelves = 4
    sh = h / shelves
    for k in range(shelves):
        sy1 = y0 + sh * (k + 1)
        d.rectangle((x0, sy1 - 5 * s, x1, sy1), fill=p.base, outline=dw.INK)
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
    if p.look.moved:
        d.rectangle(
            (x0 + w * 0.2, y1 - sh * 0.9, x1 - w * 0.2, y1 - 6 * s), fill=(30, 25, 22), outline=dw.INK
        )
        spots.compartments[1] = (x0 + w * 0.22, y1 - sh * 0.85, x1 - w * 0.22, y1 - 8 * s)
    spots.display = (x0 + w * 0.1, y0 + sh * 1.1, x1 - w * 0.1, y0 + sh * 1.85)
    spots.mount = (x0 + w * 0.2, y0 + sh * 2.1, x1 - w * 0.2, y0 + sh * 2.9)


# --- hung furniture: painting, mirror, board, clock -------------------------------------------------------


def _hung(p: Piece, spots: Spots) -> None:
    """Hung furniture; moved aside it uncovers a hidden compartment and hangs lower, to the right."""
    if p.look.moved:
        x0, y0, x1, y1 = p.box
        w, h, s = p.w, p.h, p.s
        hole = (x0 + w * 0.2, y0 + h * 0.2, x1 - w * 0.2, y1 - h * 0.2)
        interior(p.d, hole)
        spots.compartments[0] = (hole[0] + 3 * s, hole[1] + 3 * s, hole[2] - 3 * s, hole[3] - 3 * s)
        off = w * 0.85  # clear of the hidden compartment it uncovers
        p = replace(p, x0=x0 + off, x1=x1 + off, y0=y0 + h * 0.12, y1=y1 + h * 0.12)
    _HUNG_FACES[p.r.kind](p, spots)
    spots.mount = (p.x0 + p.w * 0.25, p.y1 - p.h * 0.05, p.x1 - p.w * 0.25, p.y1 + p.h * 0.25)


def _clock(p: Piece, spots: Spots) -> None:
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    p.d.ellipse(p.box, fill=p.base, outline=dw.INK, width=p.lw)
    face = (x0 + w * 0.08, y0 + h * 0.08, x1 - w * 0.08, y1 - h * 0.08)
    dw.clock_face(p.d, face, None, None)
    spots.display = face


def _mirror(p: Piece, spots: Spots) -> None:
    d, lw = p.d, p.lw
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.ellipse(p.box, fill=p.base, outline=dw.INK, width=lw)
    glass = (x0 + w * 0.1, y0 + h * 0.08, x1 - w * 0.1, y1 - h * 0.08)
    d.ellipse(glass, fill=(200, 225, 235), outline=dw.INK)
    d.line(
        (glass[0] + w * 0.2, glass[1] + h * 0.2, glass[0] + w * 0.35, glass[1] + h * 0.08),
        fill=(255, 255, 255),
        width=lw * 2,
    )
    spots.display = (glass[0] + w * 0.08, glass[1] + h * 0.2, glass[2] - w * 0.08, glass[3] - h * 0.2)


def _framed(p: Piece, spots: Spots) -> None:
    """A notice board (cork, or white) or a painting (a landscape) in its frame."""
    d = p.d
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    d.rectangle(p.box, fill=p.base, outline=dw.INK, width=p.lw)
    canvas = (x0 + w * 0.08, y0 + h * 0.1, x1 - w * 0.08, y1 - h * 0.1)
    if p.r.kind == "board":
        d.rectangle(canvas, fill=(196, 154, 108) if p.r.color != "white" else (250, 250, 250), outline=dw.INK)
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
        sun = (
            cx1 - (cx1 - cx0) * 0.22,
            cy0 + 4 * p.s,
            cx1 - (cx1 - cx0) * 0.08,
            cy0 + 4 * p.s + (cx1 - cx0) * 0.14,
        )
        d.ellipse(sun, fill=(250, 220, 60))
    spots.display = canvas


_HUNG_FACES: dict[str, Callable[[Piece, Spots], None]] = {
    "clock": _clock,
    "mirror": _mirror,
    "board": _framed,
    "painting": _framed,
}


# --- the rest ---------------------------------------------------------------------------------------------


def _lamp(p: Piece, spots: Spots) -> None:
    d, s = p.d, p.s
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    cx = (x0 + x1) / 2
    shade_fill = (255, 230, 120) if p.look.lit else dw.shade(p.base, 1.1)
    if p.look.lit:  # the light cone first, so the pole and the foot stay visible on it
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
        width=p.lw,
    )
    spots.mount = (cx + w * 0.1, y0 + h * 0.45, cx + w * 0.6, y0 + h * 0.6)
    spots.surface = (x0 - w * 0.4, y1 - h * 0.3, x1 + w * 0.4, y1 - h * 0.06)


def _computer(p: Piece, spots: Spots) -> None:
    d, s, lw = p.d, p.s, p.lw
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    top = y0 + h * 0.65
    d.rectangle((x0, top, x1, top + h * 0.07), fill=p.light, outline=dw.INK, width=lw)
    d.rectangle((x0 + w * 0.08, top + h * 0.07, x0 + w * 0.14, y1), fill=p.dark)
    d.rectangle((x1 - w * 0.14, top + h * 0.07, x1 - w * 0.08, y1), fill=p.dark)
    mon = (x0 + w * 0.15, y0, x1 - w * 0.15, top - h * 0.12)
    d.rectangle(mon, fill=(40, 40, 45), outline=dw.INK, width=lw)
    d.rectangle(((x0 + x1) / 2 - 4 * s, mon[3], (x0 + x1) / 2 + 4 * s, top), fill=(40, 40, 45))
    screen = (mon[0] + 5 * s, mon[1] + 5 * s, mon[2] - 5 * s, mon[3] - 5 * s)
    d.rectangle(screen, fill=(235, 245, 255) if p.look.lit else (15, 15, 20))
    d.rectangle((x0 + w * 0.25, top - h * 0.06, x1 - w * 0.25, top), fill=(200, 200, 200), outline=dw.INK)
    spots.display = screen
    spots.mount = (x1 - w * 0.3, top - h * 0.16, x1 - w * 0.05, top)
    spots.surface = (x0 + w * 0.02, top - h * 0.2, x0 + w * 0.3, top)


def _table(p: Piece, spots: Spots) -> None:
    d = p.d
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    top = y0 + h * 0.35
    d.rectangle((x0, top, x1, top + h * 0.1), fill=p.light, outline=dw.INK, width=p.lw)
    d.rectangle((x0 + w * 0.06, top + h * 0.1, x0 + w * 0.12, y1), fill=p.dark)
    d.rectangle((x1 - w * 0.12, top + h * 0.1, x1 - w * 0.06, y1), fill=p.dark)
    spots.surface = (x0 + w * 0.05, y0 - h * 0.2, x1 - w * 0.05, top)
    spots.mount = (x0 + w * 0.3, top + h * 0.1, x1 - w * 0.3, top + h * 0.4)


def _plant(p: Piece, spots: Spots) -> None:
    """A potted plant; moved aside, it uncovers a spot on the floor."""
    d, lw = p.d, p.lw
    x0, y0, x1, y1 = p.box
    w, h = p.w, p.h
    cx = (x0 + x1) / 2
    pot_x = cx + (w * 0.9 if p.look.moved else 0)
    if p.look.moved:
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
        fill=p.base,
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


Drawer = Callable[[Piece, Spots], None]
DRAWERS: dict[str, Drawer] = {
    "door": _hinged,
    "wardrobe": _hinged,
    "cabinet": _hinged,
    "safe": _hinged,
    "drawers": _drawers,
    "desk": _drawers,
    "chest": _chest,
    "bookshelf": _bookshelf,
    "painting": _hung,
    "mirror": _hung,
    "board": _hung,
    "clock": _hung,
    "lamp": _lamp,
    "computer": _computer,
    "table": _table,
    "plant": _plant,
}


def draw_receptacle(d: ImageDraw.ImageDraw, r: Receptacle, look: StateSpec, box: dw.Box, s: float) -> Spots:
    """Draw receptacle `r` in state `look` into `box`; `s` scales line widths and details."""
    x0, y0, x1, y1 = box
    base = dw.rgb(r.color)
    piece = Piece(
        d=d,
        r=r,
        look=look,
        s=s,
        x0=x0,
        y0=y0,
        x1=x1,
        y1=y1,
        w=x1 - x0,
        h=y1 - y0,
        base=base,
        dark=dw.shade(base, 0.6),
        light=dw.shade(base, 1.25),
        lw=max(1, int(2 * s)),
    )
    spots = Spots(compartments={})
    DRAWERS[r.kind](piece, spots)
    return spots
