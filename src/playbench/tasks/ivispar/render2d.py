"""Top-down 2D view of a board (the paper's "vision 2D" modality).

A coloured frame tells which state an image shows, in the original's colours and words
(`Data/Params/color_codes.json` of `anon148/iVISPAR`: grey `past`, blue `active` for the current
state, green `goal`), with the word written in its top band; the board sits below with column
letters (upper case, as the original's) under it, row numbers to its left and, optionally, each
free tile's coordinate written in it. Geoms are flat glyphs filled with their colour (see
`board.SHAPE_GLYPH`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from playbench.render.draw2d import contrast_text, draw_centered_text, draw_glyph, get_font, to_png
from playbench.tasks.ivispar.board import GEOM_COLORS, SHAPE_GLYPH, Board

# kind -> (background RGB, the word shown): the original's colours, and its word `active` for the
# current state
KINDS: dict[str, tuple[tuple[int, int, int], str]] = {
    "past": ((141, 153, 174), "past"),
    "current": ((82, 138, 174), "active"),
    "goal": ((100, 191, 106), "goal"),
}
TILE = (236, 236, 232)
GRID = (70, 70, 70)
FREE_LABEL = (150, 150, 150)
OUTLINE = (25, 25, 25)

Piece = tuple[int, str, str]  # (cell, color, shape)


@dataclass(frozen=True)
class Layout:
    size: int
    header: int
    margin: int  # room for the edge labels
    tile: int
    x0: int  # left edge of the board
    y0: int  # top edge of the board

    def tile_box(self, board: Board, cell: int) -> tuple[int, int, int, int]:
        col, row = board.col_row(cell)
        x = self.x0 + col * self.tile
        y = self.y0 + (board.height - 1 - row) * self.tile  # row 1 at the bottom
        return x, y, x + self.tile, y + self.tile


@lru_cache(maxsize=32)
def layout(width: int, height: int, size: int) -> Layout:
    header = round(size * 0.11)
    margin = round(size * 0.08)
    pad = margin // 3
    avail_w = size - 2 * margin
    avail_h = size - header - pad - margin
    tile = max(4, min(avail_w // width, avail_h // height))
    x0 = margin + (avail_w - tile * width) // 2
    y0 = header + pad + (avail_h - tile * height) // 2
    return Layout(size, header, margin, tile, x0, y0)


@lru_cache(maxsize=32)
def board_base(width: int, height: int, kind: str, labels: bool, size: int) -> Image.Image:
    """Frame, title, empty grid and edge labels: everything but the pieces; callers draw on a copy."""
    board = Board(width, height)
    lay = layout(width, height, size)
    background, title = KINDS[kind]
    img = Image.new("RGB", (size, size), background)
    draw = ImageDraw.Draw(img)
    ink = contrast_text(background)
    draw_centered_text(draw, (size / 2, lay.header / 2), title, get_font(round(lay.header * 0.62)), ink)
    line = max(1, lay.tile // 60)
    for cell in range(board.cells):
        draw.rectangle(lay.tile_box(board, cell), fill=TILE, outline=GRID, width=line)
    if labels:
        font = get_font(max(8, round(min(lay.tile * 0.3, size * 0.05))))
        below = lay.y0 + lay.tile * height + lay.margin / 2
        for col, letter in enumerate(board.column_letters):
            draw_centered_text(draw, (lay.x0 + (col + 0.5) * lay.tile, below), letter.upper(), font, ink)
        for row in range(height):
            y = lay.y0 + (height - 1 - row + 0.5) * lay.tile
            draw_centered_text(draw, (lay.x0 - lay.margin / 2, y), str(row + 1), font, ink)
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
        font = get_font(max(7, round(lay.tile * 0.2)))
        for cell in range(board.cells):
            if cell not in occupied:
                x0, y0, x1, y1 = lay.tile_box(board, cell)
                label = board.coord(cell).upper()
                draw_centered_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), label, font, FREE_LABEL)
    inset = max(2, round(lay.tile * 0.17))
    width = max(1, lay.tile // 40)
    for cell, color, shape in pieces:
        x0, y0, x1, y1 = lay.tile_box(board, cell)
        box = (x0 + inset, y0 + inset, x1 - inset, y1 - inset)
        draw_glyph(draw, SHAPE_GLYPH[shape], box, palette[color], OUTLINE, width)
    return to_png(img)
