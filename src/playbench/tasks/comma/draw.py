"""Shared drawing for COMMA module images: one panel look, the timer, a status light and fonts.

Every module draws onto `module_canvas(...)` so all ten puzzles share the same frame: a dark bomb
casing, the module's title, the "Time Left" display (the simulated clock) and a status light that
turns green once the module is disarmed. Fonts are matplotlib's packaged DejaVu faces (a pip
dependency), never system fonts, so the same calls give the same pixels on every machine.
"""

from __future__ import annotations

import os
from functools import lru_cache

import matplotlib
from PIL import Image, ImageDraw, ImageFont

from playbench.render.draw2d import draw_centered_text

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

WIDTH, HEIGHT = 520, 520  # every module image has this size
HEADER = 78  # pixels of frame above the module's own area

CASING: RGB = (58, 62, 68)
PANEL: RGB = (196, 198, 190)
PANEL_EDGE: RGB = (30, 32, 36)
INK: RGB = (20, 20, 20)
TIMER_BACK: RGB = (18, 18, 18)
TIMER_DIGITS: RGB = (255, 60, 50)
LIGHT_OFF: RGB = (70, 74, 70)
LIGHT_SOLVED: RGB = (40, 220, 70)

# Named colours the modules share, so "red" means the same pixels everywhere (and the oracle's
# descriptions and the expert's manual use the same words).
COLORS: dict[str, RGB] = {
    "red": (214, 40, 40),
    "blue": (40, 90, 220),
    "green": (40, 170, 70),
    "yellow": (240, 210, 40),
    "white": (245, 245, 245),
    "magenta": (210, 50, 200),
    "purple": (130, 60, 200),
    "orange": (245, 140, 30),
    "black": (25, 25, 25),
    "grey": (128, 128, 128),
}

_FONT_FILES = {
    "sans": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono-Bold.ttf",
}


def font_path(face: str = "sans") -> str:
    """Path of a packaged DejaVu face ("sans", "bold" or "mono") shipped with matplotlib."""
    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf", _FONT_FILES[face])


@lru_cache(maxsize=64)
def font(size: int, face: str = "sans") -> ImageFont.FreeTypeFont:
    """A DejaVu font at `size` pixels; cached per (size, face)."""
    return ImageFont.truetype(font_path(face), size=int(size))


def format_clock(clock: float) -> str:
    """Seconds left as the MM:SS the module shows (never negative)."""
    seconds = max(0, int(clock))
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def module_canvas(title: str, clock: float, solved: bool) -> tuple[Image.Image, ImageDraw.ImageDraw, Box]:
    """A fresh module image with the shared frame drawn; returns (image, draw, content box).

    The content box is the light panel below the header where a module draws its own parts.
    """
    image = Image.new("RGB", (WIDTH, HEIGHT), CASING)
    draw = ImageDraw.Draw(image)
    draw.text((16, 12), title, font=font(22, "bold"), fill=(235, 235, 235))
    # the timer: dark display with red digits, like a bomb's countdown
    draw.rounded_rectangle((16, 42, 220, 72), radius=4, fill=TIMER_BACK, outline=PANEL_EDGE, width=2)
    draw.text((24, 46), "Time Left", font=font(14, "bold"), fill=(200, 200, 200))
    draw.text((110, 43), format_clock(clock), font=font(24, "mono"), fill=TIMER_DIGITS)
    # status light, top right: green once disarmed
    cx, cy, r = WIDTH - 40, 40, 16
    draw.ellipse((cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3), fill=PANEL_EDGE)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=LIGHT_SOLVED if solved else LIGHT_OFF)
    draw.text(
        (cx - r - 74, cy - 8), "DISARMED" if solved else "ARMED", font=font(13, "bold"), fill=(220, 220, 220)
    )
    content: Box = (12, HEADER + 6, WIDTH - 12, HEIGHT - 12)
    draw.rounded_rectangle(content, radius=10, fill=PANEL, outline=PANEL_EDGE, width=3)
    return image, draw, content


def button_box(
    draw: ImageDraw.ImageDraw,
    box: Box,
    label: str,
    fill: RGB = (232, 226, 205),
    size: int = 30,
    face: str = "bold",
    text_fill: RGB | None = None,
) -> None:
    """A raised rectangular key with a centred label (text or a single glyph)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle((x0 + 4, y0 + 5, x1 + 4, y1 + 5), radius=8, fill=(90, 90, 86))  # shadow
    draw.rounded_rectangle(box, radius=8, fill=fill, outline=PANEL_EDGE, width=3)
    ink = text_fill if text_fill is not None else contrast(fill)
    draw_centered_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), label, font(size, face), ink)


def lamp(draw: ImageDraw.ImageDraw, center: tuple[int, int], radius: int, color: RGB | None) -> None:
    """A small round indicator light; `color` None draws it dark."""
    cx, cy = center
    draw.ellipse((cx - radius - 2, cy - radius - 2, cx + radius + 2, cy + radius + 2), fill=PANEL_EDGE)
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=color or LIGHT_OFF)


def contrast(background: RGB) -> RGB:
    """Black or white text, whichever reads better on `background`."""
    r, g, b = background
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (250, 250, 250)


def caption(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int = 16) -> None:
    """A small dark label on the panel."""
    draw.text(xy, text, font=font(size, "bold"), fill=INK)
