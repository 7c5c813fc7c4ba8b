"""Top-down 2D view of the numbered sliding tile puzzle (the paper's Figure 10).

Same frame and layout as the geom puzzle's 2D view (`render2d`, the original's): grey past, blue
active, green goal, the state's name in a box at the top right, column letters under the board and
row numbers to its left. Tiles are raised squares with their number; the empty cell shows its
coordinate when labels are on.
"""

from __future__ import annotations

from PIL import ImageDraw

from playbench.render.draw2d import draw_centered_text, get_font, to_png
from playbench.tasks.ivispar.board import Board
from playbench.tasks.ivispar.render2d import FREE_LABEL, KINDS, board_base, layout

TILE_FILL = (238, 214, 170)
TILE_EDGE = (120, 90, 50)
NUMBER_INK = (40, 30, 20)


def render_tiles_2d(
    board: Board, tiles: list[tuple[int, int]], kind: str, labels: bool = True, size: int = 512
) -> bytes:
    """PNG bytes of numbered `tiles` [(cell, number)] on `board`, framed as `kind`."""
    if kind not in KINDS:
        raise ValueError(f"unknown image kind {kind!r}; known: {', '.join(KINDS)}")
    img = board_base(board.width, board.height, kind, labels, size).copy()
    draw = ImageDraw.Draw(img)
    lay = layout(board.width, board.height, size)
    inset = max(1, round(lay.tile * 0.05))
    radius = max(1, round(lay.tile * 0.12))
    edge = max(1, lay.tile // 40)
    number_font = get_font(max(8, round(lay.tile * 0.42)))
    for cell, number in tiles:
        x0, y0, x1, y1 = lay.tile_box(board, cell)
        box = (x0 + inset, y0 + inset, x1 - inset, y1 - inset)
        draw.rounded_rectangle(box, radius=radius, fill=TILE_FILL, outline=TILE_EDGE, width=edge)
        draw_centered_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), str(number), number_font, NUMBER_INK)
    if labels:
        occupied = {cell for cell, _ in tiles}
        font = get_font(lay.font)
        for cell in range(board.cells):
            if cell not in occupied:
                x0, y0, x1, y1 = lay.tile_box(board, cell)
                label = board.coord(cell).upper()
                draw_centered_text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), label, font, FREE_LABEL)
    return to_png(img)
