"""Pillow drawing helpers shared by the quiz and room renderers (deterministic pixels)."""

from __future__ import annotations

import math

from PIL import ImageDraw

from playbench.render.draw2d import draw_centered_text, get_font
from playbench.tasks.visescape.colors import COLORS

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]

SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "hexagon", "star")
INK: RGB = (25, 25, 30)
PAPER: RGB = (250, 246, 232)


def rgb(name: str) -> RGB:
    return COLORS[name]


def shade(color: RGB, factor: float) -> RGB:
    """Darker (<1) or lighter (>1) version of `color`."""
    if factor <= 1:
        return tuple(max(0, int(c * factor)) for c in color)  # type: ignore[return-value]
    return tuple(min(255, int(c + (255 - c) * (factor - 1))) for c in color)  # type: ignore[return-value]


def text(
    draw: ImageDraw.ImageDraw, center: tuple[float, float], words: str, size: int, fill: RGB = INK
) -> None:
    draw_centered_text(draw, center, words, get_font(max(6, int(size))), fill)


def fit_text(draw: ImageDraw.ImageDraw, box: Box, words: str, size: int, fill: RGB = INK) -> None:
    """Centred text shrunk until it fits the box width."""
    x0, y0, x1, y1 = box
    s = int(size)
    while s > 7 and get_font(s).getlength(words) > (x1 - x0) - 4:
        s -= 1
    text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), words, s, fill)


def label(draw: ImageDraw.ImageDraw, center: tuple[float, float], words: str, size: int) -> None:
    """A name tag: dark text on a light rounded plate, readable on any background."""
    font = get_font(size)
    w = font.getlength(words)
    cx, cy = center
    pad = size * 0.35
    draw.rounded_rectangle(
        (cx - w / 2 - pad, cy - size * 0.7, cx + w / 2 + pad, cy + size * 0.7),
        radius=size * 0.3,
        fill=(255, 255, 240),
        outline=(60, 60, 60),
        width=1,
    )
    text(draw, center, words, size)


def star_points(box: Box) -> list[tuple[float, float]]:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r_out, r_in = min(x1 - x0, y1 - y0) / 2, min(x1 - x0, y1 - y0) / 5
    pts = []
    for k in range(10):
        r = r_out if k % 2 == 0 else r_in
        a = math.radians(-90 + 36 * k)
        pts.append((cx + r * math.cos(a), cy + 0.05 * (y1 - y0) + r * math.sin(a)))
    return pts


def shape(
    draw: ImageDraw.ImageDraw, name: str, box: Box, fill: RGB, outline: RGB = INK, width: int = 2
) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if name == "circle":
        draw.ellipse(box, fill=fill, outline=outline, width=width)
    elif name == "square":
        draw.rectangle(box, fill=fill, outline=outline, width=width)
    elif name == "triangle":
        draw.polygon([(cx, y0), (x1, y1), (x0, y1)], fill=fill, outline=outline, width=width)
    elif name == "diamond":
        draw.polygon([(cx, y0), (x1, cy), (cx, y1), (x0, cy)], fill=fill, outline=outline, width=width)
    elif name == "hexagon":
        rx, ry = (x1 - x0) / 2, (y1 - y0) / 2
        pts = [
            (cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in range(0, 360, 60)
        ]
        draw.polygon(pts, fill=fill, outline=outline, width=width)
    elif name == "star":
        draw.polygon(star_points(box), fill=fill, outline=outline, width=width)
    else:
        raise ValueError(f"unknown shape {name!r}; known: {', '.join(SHAPES)}")


def arrow(draw: ImageDraw.ImageDraw, direction: str, box: Box, fill: RGB) -> None:
    """A thick arrow pointing up/down/left/right inside `box`."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    # an upward arrow in unit coordinates, rotated per direction
    unit = [(0.5, 0.05), (0.92, 0.5), (0.66, 0.5), (0.66, 0.95), (0.34, 0.95), (0.34, 0.5), (0.08, 0.5)]
    rot = {
        "up": lambda u, v: (u, v),
        "down": lambda u, v: (u, 1 - v),
        "left": lambda u, v: (v, u),
        "right": lambda u, v: (1 - v, u),
    }[direction]
    pts = [(x0 + rot(u, v)[0] * w, y0 + rot(u, v)[1] * h) for u, v in unit]
    draw.polygon(pts, fill=fill, outline=INK, width=2)


def clock_face(draw: ImageDraw.ImageDraw, box: Box, hour: int | None, minute: int | None) -> None:
    """An analog clock; without a time it shows a plain icon (hands at 10:10)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = min(x1 - x0, y1 - y0) / 2
    draw.ellipse(
        (cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 250), outline=INK, width=max(2, int(r / 14))
    )
    for k in range(12):
        a = math.radians(k * 30 - 90)
        inner = 0.80 if k % 3 == 0 else 0.87
        draw.line(
            (
                cx + r * inner * math.cos(a),
                cy + r * inner * math.sin(a),
                cx + r * 0.95 * math.cos(a),
                cy + r * 0.95 * math.sin(a),
            ),
            fill=INK,
            width=max(1, int(r / 25)) + (1 if k % 3 == 0 else 0),
        )
    if r > 40:
        for k in range(1, 13):
            a = math.radians(k * 30 - 90)
            text(draw, (cx + r * 0.66 * math.cos(a), cy + r * 0.66 * math.sin(a)), str(k), int(r / 6.5))
    h, m = (10, 10) if hour is None or minute is None else (hour, minute)
    am = math.radians((h % 12 + m / 60) * 30 - 90)
    mm = math.radians(m * 6 - 90)
    draw.line(
        (cx, cy, cx + r * 0.5 * math.cos(am), cy + r * 0.5 * math.sin(am)),
        fill=INK,
        width=max(3, int(r / 10)),
    )
    draw.line(
        (cx, cy, cx + r * 0.82 * math.cos(mm), cy + r * 0.82 * math.sin(mm)),
        fill=(180, 30, 30),
        width=max(2, int(r / 18)),
    )
    draw.ellipse((cx - r / 14, cy - r / 14, cx + r / 14, cy + r / 14), fill=INK)


def contrast(background: RGB) -> RGB:
    r, g, b = background
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (250, 250, 250)
