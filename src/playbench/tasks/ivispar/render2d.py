"""Top-down 2D view of a board (the paper's "vision 2D" modality), laid out as the original's.

The authors' 2D view (`Source/Experiment/render_2D.py` of `anon148/iVISPAR`, `render_schematic`,
and the agents' `color_code_observation` / `add_action_text`) is a 4:3 image (1200x900) in the
state's colour (`Data/Params/color_codes.json`: grey `past`, blue `active` for the current state,
green `goal`) with the state's name in a rounded, half-transparent white box at the top right.
The board is a square grid of black lines over that colour, its centre at 52.5 % of the width and
half the height, 55 % of the width wide (or 80 % of the height high); column letters (upper case)
under it and row numbers to its left in white; each free tile shows its coordinate in white;
geoms are flat glyphs filled with their colour and outlined in black, two thirds of a tile wide
(see `board.SHAPE_GLYPH`). `image_size` is the width; the height is three quarters of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from playbench.render.draw2d import draw_centered_text, draw_glyph, get_font, text_box, to_png
from playbench.tasks.ivispar.board import GEOM_COLORS, SHAPE_GLYPH, Board

# kind -> (background RGB, the word shown): the original's colours, and its word `active` for the
# current state
KINDS: dict[str, tuple[tuple[int, int, int], str]] = {
    "past": ((141, 153, 174), "past"),
    "current": ((82, 138, 174), "active"),
    "goal": ((100, 191, 106), "goal"),
}
GRID = (0, 0, 0)
LABEL_INK = (255, 255, 255)  # edge and free-tile labels
FREE_LABEL = LABEL_INK
OUTLINE = (0, 0, 0)

Piece = tuple[int, str, str]  # (cell, color, shape)


def image_height(width: int) -> int:
    return round(width * 3 / 4)


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    tile: int
    x0: int  # left edge of the board
    y0: int  # top edge of the board
    line: int  # grid line width
    font: int  # label size

    @property
    def size(self) -> int:
        return self.width

    def tile_box(self, board: Board, cell: int) -> tuple[int, int, int, int]:
        col, row = board.col_row(cell)
        x = self.x0 + col * self.tile
        y = self.y0 + (board.height - 1 - row) * self.tile  # row 1 at the bottom
        return x, y, x + self.tile, y + self.tile


@lru_cache(maxsize=32)
def layout(width: int, height: int, size: int) -> Layout:
    """Where the board of `width` x `height` tiles sits in an image `size` pixels wide."""
    w, h = size, image_height(size)
    tile = max(4, int(min(0.55 * w / width, 0.8 * h / height)))
    x0 = round(0.525 * w - tile * width / 2)
    y0 = round(0.5 * h - tile * height / 2)
    line = max(1, round(w / 430))
    # the original's labels are 32 pt on a 1200-wide image (about 44 px); smaller on dense boards
    font = max(7, round(min(0.037 * w, 0.27 * tile)))
    return Layout(w, h, tile, x0, y0, line, font)


@lru_cache(maxsize=16)
def label_patch(title: str, width: int) -> tuple[int, int, Image.Image]:
    """(x, y, RGBA patch) of the state's name at the top right, as the original's agents drew it on a
    1200-wide image: 50 px text 50 px from the top and right, 10 + 20 px padding, rounded corners with a
    3 px black border, white at half opacity; scaled to `width`. Shared by the 2D and 3D images;
    cached, so callers composite it and never draw on it."""
    f = width / 1200
    font = get_font(max(8, round(50 * f)))
    left, top, right, bottom = font.getbbox(title)
    text_w, text_h = right - left, bottom - top
    pad, extra, margin = 10 * f, 20 * f, 50 * f
    border, radius = max(1, round(3 * f)), max(2, round(20 * f))
    x1 = width - pad - margin + extra + border
    x0 = width - text_w - pad - margin - pad - extra - border
    y0 = margin - pad - extra - border
    y1 = margin + text_h + pad + extra + border
    X0, Y0 = max(0, math.floor(x0)), max(0, math.floor(y0))
    X1, Y1 = min(width, math.ceil(x1) + 1), math.ceil(y1) + 1
    patch = Image.new("RGBA", (X1 - X0, Y1 - Y0), (0, 0, 0, 0))
    draw = ImageDraw.Draw(patch)
    box = (x0 - X0, y0 - Y0, x1 - X0, y1 - Y0)
    draw.rounded_rectangle(box, radius=radius + border, fill=(0, 0, 0, 255))
    inner = (box[0] + border, box[1] + border, box[2] - border, box[3] - border)
    draw.rounded_rectangle(inner, radius=radius, fill=(0, 0, 0, 0))
    white = Image.new("RGBA", patch.size, (0, 0, 0, 0))
    ImageDraw.Draw(white).rounded_rectangle(inner, radius=radius, fill=(255, 255, 255, 128))
    patch = Image.alpha_composite(patch, white)
    # like the original: the text's origin (not its ink) at the margin, so it sits low in the box
    text_x = width - text_w - pad - margin - X0
    ImageDraw.Draw(patch).text((text_x, margin - Y0), title, font=font, fill=(0, 0, 0, 255))
    return X0, Y0, patch


def label_box(image: Image.Image, title: str) -> None:
    """The state's name in its box at the top right of `image` (see `label_patch`)."""
    x, y, patch = label_patch(title, image.width)
    framed = image.convert("RGBA")
    framed.alpha_composite(patch, (x, y))
    image.paste(framed.convert("RGB"))


@lru_cache(maxsize=32)
def board_base(width: int, height: int, kind: str, labels: bool, size: int) -> Image.Image:
    """Frame, name box, empty grid and edge labels: everything but the pieces and the free-tile
    labels; callers draw on a copy."""
    board = Board(width, height)
    lay = layout(width, height, size)
    background, title = KINDS[kind]
    img = Image.new("RGB", (lay.width, lay.height), background)
    draw = ImageDraw.Draw(img)
    for cell in range(board.cells):
        draw.rectangle(lay.tile_box(board, cell), outline=GRID, width=lay.line)
    right, bottom = lay.x0 + lay.tile * width, lay.y0 + lay.tile * height
    draw.rectangle((lay.x0, lay.y0, right, bottom), outline=GRID, width=2 * lay.line)
    if labels:
        font = get_font(lay.font)
        gap = lay.font * 0.45
        below = bottom + gap + lay.font / 2
        for col, letter in enumerate(board.column_letters):
            draw_centered_text(
                draw, (lay.x0 + (col + 0.5) * lay.tile, below), letter.upper(), font, LABEL_INK
            )
        for row in range(height):
            y = lay.y0 + (height - 1 - row + 0.5) * lay.tile
            number = str(row + 1)
            x = lay.x0 - gap - text_box(number, font)[2] / 2
            draw_centered_text(draw, (x, y), number, font, LABEL_INK)
    label_box(img, title)
    return img


def render_board(
    board: Board,
    pieces: list[Piece],
    kind: str,
    labels: bool = True,
    size: int = 512,
    palette: Mapping[str, tuple[int, int, int]] = GEOM_COLORS,
) -> bytes:
    """PNG bytes of `pieces` on `board`, framed as `kind` ("past", "current" or "goal")."""
    if kind not in KINDS:
        raise ValueError(f"unknown image kind {kind!r}; known: {', '.join(KINDS)}")
    img = board_base(board.width, board.height, kind, labels, size).copy()
    draw = ImageDraw.Draw(img)
    lay = layout(board.width, board.height, size)
    if labels:
        occupied = {cell for cell, _, _ in pieces}
        font = get_font(lay.font)
        for cell in range(board.cells):
            if cell not in occupied:
                x0, y0, x1, y1 = lay.tile_box(board, cell)
                label = board.coord(cell).upper()
                draw_centered_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), label, font, FREE_LABEL)
    inset = max(2, round(lay.tile * 0.17))
    width = max(1, lay.tile // 80)
    for cell, color, shape in pieces:
        x0, y0, x1, y1 = lay.tile_box(board, cell)
        box = (x0 + inset, y0 + inset, x1 - inset, y1 - inset)
        draw_glyph(draw, SHAPE_GLYPH[shape], box, palette[color], OUTLINE, width)
    return to_png(img)
