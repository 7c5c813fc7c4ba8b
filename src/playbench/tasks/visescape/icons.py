"""Small pictures of items (keys, cards, notes, locks, buttons, ...): one drawer per item kind in `ICONS`.

An icon fills the box it is given: items lying in a receptacle, in a socket, or an item's close-up when it
has nothing more to show (a note's text, a quiz clue and a lock's face are drawn by `views.ViewMaker`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PIL import ImageDraw

from playbench.tasks.visescape import drawing as dw
from playbench.tasks.visescape.schema import Item


@dataclass(frozen=True)
class Icon:
    """One item being drawn into a box: its corners, size, centre, colour and line width."""

    d: ImageDraw.ImageDraw
    item: Item
    pressed: bool  # a pressed button, an opened lock
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def w(self) -> float:
        return self.x1 - self.x0

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def c(self) -> dw.RGB:
        return dw.rgb(self.item.color)

    @property
    def lw(self) -> int:
        return max(1, int(min(self.w, self.h) / 30))


def _key(i: Icon) -> None:
    d, x0, x1, w, h, cy, c, lw = i.d, i.x0, i.x1, i.w, i.h, i.cy, i.c, i.lw
    r = min(w, h) * 0.22
    d.ellipse((x0 + w * 0.05, cy - r, x0 + w * 0.05 + 2 * r, cy + r), fill=c, outline=dw.INK, width=lw)
    d.ellipse(
        (x0 + w * 0.05 + r * 0.6, cy - r * 0.4, x0 + w * 0.05 + r * 1.4, cy + r * 0.4), fill=(60, 45, 35)
    )
    d.rectangle(
        (x0 + w * 0.05 + 2 * r, cy - h * 0.06, x1 - w * 0.05, cy + h * 0.06), fill=c, outline=dw.INK, width=lw
    )
    for tx in (0.7, 0.82):
        d.rectangle((x0 + w * tx, cy + h * 0.06, x0 + w * (tx + 0.07), cy + h * 0.22), fill=c, outline=dw.INK)


def _card(i: Icon) -> None:
    d, x0, y0, x1, y1, w, h, c = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h, i.c
    d.rounded_rectangle(
        (x0 + w * 0.05, y0 + h * 0.2, x1 - w * 0.05, y1 - h * 0.2),
        radius=min(w, h) * 0.08,
        fill=c,
        outline=dw.INK,
        width=i.lw,
    )
    d.rectangle((x0 + w * 0.05, y0 + h * 0.32, x1 - w * 0.05, y0 + h * 0.42), fill=dw.INK)
    if i.item.label:
        box = (x0 + w * 0.1, y0 + h * 0.45, x1 - w * 0.1, y1 - h * 0.22)
        dw.fit_text(d, box, i.item.label, int(h * 0.2), dw.contrast(c))


def _coin(i: Icon) -> None:
    d, cx, cy, c, lw = i.d, i.cx, i.cy, i.c, i.lw
    r = min(i.w, i.h) * 0.4
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c, outline=dw.INK, width=lw)
    d.ellipse(
        (cx - r * 0.75, cy - r * 0.75, cx + r * 0.75, cy + r * 0.75), outline=dw.shade(c, 0.7), width=lw
    )
    dw.text(d, (cx, cy), i.item.label or "1", int(r))


def _battery(i: Icon) -> None:
    d, x0, x1, w, h, cx, cy, c = i.d, i.x0, i.x1, i.w, i.h, i.cx, i.cy, i.c
    d.rectangle((x0 + w * 0.1, cy - h * 0.2, x1 - w * 0.15, cy + h * 0.2), fill=c, outline=dw.INK, width=i.lw)
    d.rectangle(
        (x1 - w * 0.15, cy - h * 0.08, x1 - w * 0.08, cy + h * 0.08), fill=dw.rgb("silver"), outline=dw.INK
    )
    dw.text(d, (cx - w * 0.05, cy), "+", int(h * 0.3), dw.contrast(c))


def _fuse(i: Icon) -> None:
    d, x0, x1, w, h, cy, lw = i.d, i.x0, i.x1, i.w, i.h, i.cy, i.lw
    d.rectangle(
        (x0 + w * 0.22, cy - h * 0.13, x1 - w * 0.22, cy + h * 0.13),
        fill=(230, 240, 245),
        outline=dw.INK,
        width=lw,
    )
    d.line((x0 + w * 0.22, cy, x1 - w * 0.22, cy), fill=i.c, width=max(2, lw * 2))
    for ex in ((x0 + w * 0.08, x0 + w * 0.22), (x1 - w * 0.22, x1 - w * 0.08)):
        d.rectangle((ex[0], cy - h * 0.16, ex[1], cy + h * 0.16), fill=dw.rgb("silver"), outline=dw.INK)


def _screwdriver(i: Icon) -> None:
    d, x0, x1, w, h, cy = i.d, i.x0, i.x1, i.w, i.h, i.cy
    d.rounded_rectangle(
        (x0 + w * 0.05, cy - h * 0.12, x0 + w * 0.45, cy + h * 0.12),
        radius=h * 0.08,
        fill=i.c,
        outline=dw.INK,
        width=i.lw,
    )
    d.rectangle(
        (x0 + w * 0.45, cy - h * 0.04, x1 - w * 0.1, cy + h * 0.04), fill=dw.rgb("silver"), outline=dw.INK
    )
    d.polygon(
        [(x1 - w * 0.1, cy - h * 0.06), (x1 - w * 0.03, cy), (x1 - w * 0.1, cy + h * 0.06)],
        fill=dw.rgb("silver"),
        outline=dw.INK,
    )


def _gem(i: Icon) -> None:
    d, w, h, cx, cy, lw = i.d, i.w, i.h, i.cx, i.cy, i.lw
    d.polygon(
        [
            (cx - w * 0.3, cy - h * 0.12),
            (cx - w * 0.15, cy - h * 0.3),
            (cx + w * 0.15, cy - h * 0.3),
            (cx + w * 0.3, cy - h * 0.12),
            (cx, cy + h * 0.35),
        ],
        fill=i.c,
        outline=dw.INK,
        width=lw,
    )
    d.line((cx - w * 0.3, cy - h * 0.12, cx + w * 0.3, cy - h * 0.12), fill=dw.INK, width=lw)


def _bulb(i: Icon) -> None:
    d, y0, h, cx = i.d, i.y0, i.h, i.cx
    r = min(i.w, h) * 0.28
    d.ellipse(
        (cx - r, y0 + h * 0.1, cx + r, y0 + h * 0.1 + 2 * r), fill=(255, 250, 200), outline=dw.INK, width=i.lw
    )
    d.rectangle(
        (cx - r * 0.45, y0 + h * 0.1 + 1.8 * r, cx + r * 0.45, y0 + h * 0.1 + 2.6 * r),
        fill=dw.rgb("silver"),
        outline=dw.INK,
    )


def _handle(i: Icon) -> None:
    d, x0, x1, w, h, cy = i.d, i.x0, i.x1, i.w, i.h, i.cy
    d.arc(
        (x0 + w * 0.1, cy - h * 0.3, x1 - w * 0.1, cy + h * 0.3), 180, 360, fill=i.c, width=max(3, i.lw * 4)
    )
    d.rectangle((x0 + w * 0.05, cy - h * 0.02, x0 + w * 0.2, cy + h * 0.1), fill=dw.INK)
    d.rectangle((x1 - w * 0.2, cy - h * 0.02, x1 - w * 0.05, cy + h * 0.1), fill=dw.INK)


def _remote(i: Icon) -> None:
    d, y0, y1, w, h, cx = i.d, i.y0, i.y1, i.w, i.h, i.cx
    d.rounded_rectangle(
        (cx - w * 0.18, y0 + h * 0.08, cx + w * 0.18, y1 - h * 0.08),
        radius=w * 0.06,
        fill=(50, 50, 55),
        outline=dw.INK,
        width=i.lw,
    )
    d.ellipse((cx - w * 0.07, y0 + h * 0.15, cx + w * 0.07, y0 + h * 0.15 + w * 0.14), fill=i.c)
    for row in range(3):
        for col in (-1, 1):
            bx, by = cx + col * w * 0.07, y0 + h * (0.45 + row * 0.13)
            d.ellipse((bx - w * 0.035, by - w * 0.035, bx + w * 0.035, by + w * 0.035), fill=(200, 200, 200))


def _note(i: Icon) -> None:
    """A note or a poster: a lined sheet."""
    d, x0, y0, x1, y1, w, h, lw = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h, i.lw
    d.rectangle(
        (x0 + w * 0.12, y0 + h * 0.08, x1 - w * 0.12, y1 - h * 0.08), fill=dw.PAPER, outline=dw.INK, width=lw
    )
    for ly in range(4):
        yy = y0 + h * (0.25 + ly * 0.15)
        d.line((x0 + w * 0.22, yy, x1 - w * 0.22, yy), fill=(150, 150, 170), width=lw)


def _photo(i: Icon) -> None:
    d, x0, y0, x1, y1, w, h = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h
    d.rectangle(
        (x0 + w * 0.08, y0 + h * 0.15, x1 - w * 0.08, y1 - h * 0.15),
        fill=(255, 255, 255),
        outline=dw.INK,
        width=i.lw,
    )
    d.rectangle((x0 + w * 0.14, y0 + h * 0.22, x1 - w * 0.14, y1 - h * 0.3), fill=(120, 150, 190))


def _book(i: Icon) -> None:
    d, x0, y0, x1, y1, w, h, cy, c = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h, i.cy, i.c
    d.rectangle(
        (x0 + w * 0.15, y0 + h * 0.1, x1 - w * 0.15, y1 - h * 0.1), fill=c, outline=dw.INK, width=i.lw
    )
    d.rectangle((x0 + w * 0.15, y0 + h * 0.1, x0 + w * 0.25, y1 - h * 0.1), fill=dw.shade(c, 0.6))
    if i.item.label:
        box = (x0 + w * 0.27, cy - h * 0.12, x1 - w * 0.17, cy + h * 0.12)
        dw.fit_text(d, box, i.item.label, int(h * 0.14), dw.contrast(c))


def _lock(i: Icon) -> None:
    """A small keypad lock whose light turns green once it is open."""
    d, x0, y0, x1, y1, w, h, cy = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h, i.cy
    d.rounded_rectangle(
        (x0 + w * 0.15, y0 + h * 0.2, x1 - w * 0.15, y1 - h * 0.1),
        radius=w * 0.06,
        fill=(70, 74, 82),
        outline=dw.INK,
        width=i.lw,
    )
    for col in range(3):
        bx = x0 + w * (0.3 + col * 0.2)
        d.rectangle(
            (bx - w * 0.07, cy - h * 0.08, bx + w * 0.07, cy + h * 0.18), fill=(240, 240, 235), outline=dw.INK
        )
    d.ellipse(
        (x1 - w * 0.28, y0 + h * 0.25, x1 - w * 0.2, y0 + h * 0.25 + w * 0.08),
        fill=(0, 190, 80) if i.pressed else (200, 40, 40),
    )


def _button(i: Icon) -> None:
    d, x0, y0, x1, y1, w, h, cx, cy, lw = i.d, i.x0, i.y0, i.x1, i.y1, i.w, i.h, i.cx, i.cy, i.lw
    d.rectangle(
        (x0 + w * 0.15, y0 + h * 0.15, x1 - w * 0.15, y1 - h * 0.15),
        fill=(90, 90, 95),
        outline=dw.INK,
        width=lw,
    )
    r = min(w, h) * 0.22
    fill = dw.shade(i.c, 0.5) if i.pressed else i.c
    d.ellipse(
        (cx - r, cy - r + (r * 0.15 if i.pressed else 0), cx + r, cy + r), fill=fill, outline=dw.INK, width=lw
    )


ICONS: dict[str, Callable[[Icon], None]] = {
    "key": _key,
    "card": _card,
    "coin": _coin,
    "battery": _battery,
    "fuse": _fuse,
    "screwdriver": _screwdriver,
    "gem": _gem,
    "bulb": _bulb,
    "handle": _handle,
    "remote": _remote,
    "note": _note,
    "poster": _note,
    "photo": _photo,
    "book": _book,
    "lock": _lock,
    "button": _button,
}


def draw_item(d: ImageDraw.ImageDraw, item: Item, box: dw.Box, pressed: bool = False) -> None:
    """A small icon of `item` filling `box` (its close-up is drawn by `ViewMaker.item_image`)."""
    x0, y0, x1, y1 = box
    ICONS[item.kind](Icon(d, item, pressed, x0, y0, x1, y1))
