"""Small Pillow helpers for 2D diagrams shared by the suites.

Everything here is deterministic: the same calls give the same pixels and the same PNG bytes
(no metadata, fixed compression), which the suites rely on for caching and reproducibility.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

GLYPHS: tuple[str, ...] = ("circle", "square", "triangle", "hexagon", "diamond", "rectangle")


@lru_cache(maxsize=64)
def get_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at `size` pixels (no system font needed); cached per size."""
    return ImageFont.load_default(size=max(1, int(size)))


def text_box(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> Box:
    """Ink bounding box of `text` drawn at the origin."""
    left, top, right, bottom = font.getbbox(text)
    return int(left), int(top), int(right), int(bottom)


def draw_centered_text(
    draw: ImageDraw.ImageDraw,
    center: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    fill: RGB,
) -> None:
    """Draw `text` centred on `center`.

    FreeType fonts centre on the font's middle line, so letters with and without ascenders sit on
    one baseline; bitmap fonts (no anchors) centre their ink box instead.
    """
    if isinstance(font, ImageFont.FreeTypeFont):
        draw.text((round(center[0]), round(center[1])), text, font=font, fill=fill, anchor="mm")
        return
    left, top, right, bottom = text_box(text, font)
    x = round(center[0] - (left + right) / 2)
    y = round(center[1] - (top + bottom) / 2)
    draw.text((x, y), text, font=font, fill=fill)


def glyph_points(glyph: str, box: Box) -> list[tuple[int, int]]:
    """Polygon vertices of a polygonal glyph inscribed in `box` (integer pixels)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    rx, ry = (x1 - x0) / 2, (y1 - y0) / 2
    if glyph == "triangle":
        return [(round(cx), y0), (x1, y1), (x0, y1)]
    if glyph == "diamond":
        return [(round(cx), y0), (x1, round(cy)), (round(cx), y1), (x0, round(cy))]
    if glyph == "hexagon":  # flat top and bottom
        return [
            (round(cx + rx * math.cos(math.radians(a))), round(cy + ry * math.sin(math.radians(a))))
            for a in range(0, 360, 60)
        ]
    raise ValueError(f"glyph {glyph!r} is not a polygon")


def draw_glyph(
    draw: ImageDraw.ImageDraw, glyph: str, box: Box, fill: RGB, outline: RGB, width: int = 2
) -> None:
    """Draw one of `GLYPHS` filling `box` (the rectangle glyph is a wide bar across its middle)."""
    x0, y0, x1, y1 = box
    if glyph == "circle":
        draw.ellipse(box, fill=fill, outline=outline, width=width)
    elif glyph == "square":
        draw.rectangle(box, fill=fill, outline=outline, width=width)
    elif glyph == "rectangle":
        h = (y1 - y0) // 4
        cy = (y0 + y1) // 2
        draw.rectangle((x0, cy - h, x1, cy + h), fill=fill, outline=outline, width=width)
    elif glyph in ("triangle", "diamond", "hexagon"):
        draw.polygon(glyph_points(glyph, box), fill=fill, outline=outline, width=width)
    else:
        raise ValueError(f"unknown glyph {glyph!r}; known: {', '.join(GLYPHS)}")


def contrast_text(background: RGB) -> RGB:
    """Black or white, whichever reads better on `background`."""
    r, g, b = background
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (250, 250, 250)


def to_png(image: Image.Image, compress_level: int = 1) -> bytes:
    """PNG bytes without metadata; level 1 because flat diagrams compress well even at speed."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()
