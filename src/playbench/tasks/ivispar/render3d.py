"""3D view of a board (the paper's "vision 3D" modality), drawn with `playbench.render.gl3d`.

The board is seen from the front-top (47° above the ground) with a moderate perspective, so
nearer geoms can hide parts of farther ones (paper, section 3.3). As in the 2D images the
background colour and the word in the top band tell the kind of state (grey past, blue current,
green goal). Column letters run along the front edge, row numbers along the left edge, and free
tiles show their coordinate (`labels`). Geoms keep the colours of the 2D images.

`render_tiles` draws the classic numbered sliding-tile puzzle on the same board.

Cell indices follow `board.Board`: ``cell = row * width + col`` with row 0 at the **bottom**
(nearest the viewer) and column 0 on the left.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from playbench.render import gl3d
from playbench.render.draw2d import contrast_text, draw_centered_text, get_font
from playbench.tasks.ivispar.board import GEOM_COLORS, MAX_SIDE, Board, get_board
from playbench.tasks.ivispar.render2d import KINDS
from playbench.tasks.ivispar.schema import SGPConfig

Piece = tuple[int, str, str]  # (cell, color, shape)

PITCH = 47.0  # camera elevation in degrees
FOV_Y = 30.0
MARGIN = 0.6  # frame around the tiles, in tiles; holds the edge labels
SLAB_DEPTH = 0.22
TILE_FILL = 0.95  # side of a tile's face; the rest of the tile pitch shows the grid
TILE_LIFT = 0.003  # tiles and text sit a hair above the surface below them to win the depth test
TEXT_LIFT = 0.006
TILE_ID_BASE = 10_000  # object id of a board tile = TILE_ID_BASE + cell; geoms and puzzle tiles use 1..

TILE_LIGHT = (238, 236, 230)
TILE_DARK = (216, 214, 206)
FRAME = (62, 66, 74)
FRAME_INK = (240, 240, 236)
FREE_LABEL = (125, 125, 125)

# Size of each shape as (x, y, z) extents in tiles. Sizes differ a little so that silhouettes
# differ too. Seen from 47° the taller ones hide the foot of the geom behind them (the paper's
# 3D views may show partly occluded objects), but heights stay well below a tile so no geom is
# ever hidden whole.
GEOM_SIZE: dict[str, tuple[float, float, float]] = {
    "cube": (0.6, 0.6, 0.6),
    "sphere": (0.68, 0.68, 0.68),
    "pyramid": (0.68, 0.66, 0.68),
    "cylinder": (0.62, 0.66, 0.62),
    "cone": (0.64, 0.8, 0.64),
    "prism": (0.64, 0.56, 0.8),
}
# The prism lies with its ridge running away from the viewer so that its triangular end faces
# the camera: with the ridge across the view its front slope reads as a plain box.
GEOM_TURN: dict[str, float] = {"prism": 90.0}

PUZZLE_TILE = (233, 196, 136)
PUZZLE_INK = (50, 36, 20)
PUZZLE_SIZE = 0.9  # side of a numbered tile, in tiles
PUZZLE_HEIGHT = 0.18


def header_height(size: int) -> int:
    """Height of the top band holding the kind's name (the same as the 2D images)."""
    return round(size * 0.11)


def tile_center(board: Board, cell: int) -> tuple[float, float]:
    """(x, z) world position of a tile's centre: tiles are 1 unit, the board is centred at 0."""
    col, row = board.col_row(cell)
    return col - (board.width - 1) / 2, (board.height - 1) / 2 - row


# --- textures ------------------------------------------------------------------------------


def _texels_per_tile(board: Board, size: int) -> int:
    # About as many texels as a tile gets pixels at 2x supersampling, so text stays sharp
    # without paying for larger textures than the screen can show.
    span = max(board.width, board.height) + 2 * MARGIN
    return int(max(24, min(round(2 * size / span * 1.1), 1024)))


@lru_cache(maxsize=16)
def _header(kind: str, size: int) -> np.ndarray:
    background, title = KINDS[kind]
    band = header_height(size)
    img = Image.new("RGB", (size, band), background)
    draw = ImageDraw.Draw(img)
    draw_centered_text(
        draw, (size / 2, band / 2), title, get_font(round(band * 0.62)), contrast_text(background)
    )
    pixels = np.asarray(img)
    pixels.flags.writeable = False  # shared by every frame of this kind and size
    return pixels


# --- scenes --------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _backdrop(width: int, height: int, kind: str, labels: bool, size: int) -> gl3d.Scene:
    """Everything that does not depend on the state: board slab, tiles and edge labels.

    Tiles, frame and grid are untextured meshes and only text is textured: on a CPU (llvmpipe)
    texture sampling costs far more per pixel than flat shading. The grid lines are the dark
    frame showing between the tiles.
    """
    board = get_board(width, height)
    scene = gl3d.Scene(background=KINDS[kind][0])
    w, h = width + 2 * MARGIN, height + 2 * MARGIN
    scene.add_box((0.0, -SLAB_DEPTH / 2, 0.0), (w, SLAB_DEPTH, h), FRAME)
    for cell in range(board.cells):
        x, z = tile_center(board, cell)
        col, row = board.col_row(cell)
        color = TILE_LIGHT if (col + row) % 2 else TILE_DARK
        transform = gl3d.ground_quad((x, TILE_LIFT, z), TILE_FILL, TILE_FILL)
        scene.add_mesh("plane", transform, color, TILE_ID_BASE + cell)
    if labels:
        tpx = _texels_per_tile(board, size)
        edge = 0.5  # height of an edge label's text box, in tiles
        for col, letter in enumerate(board.column_letters):
            x, _ = tile_center(board, board.cell(col, 0))
            where = gl3d.ground_quad((x, TEXT_LIFT, height / 2 + MARGIN / 2), edge, edge)
            scene.add_text(letter, where, FRAME_INK, round(tpx * edge))
        for row in range(height):
            _, z = tile_center(board, board.cell(0, row))
            where = gl3d.ground_quad((-width / 2 - MARGIN / 2, TEXT_LIFT, z), edge, edge)
            scene.add_text(str(row + 1), where, FRAME_INK, round(tpx * edge))
    return scene


def _board_scene(board: Board, occupied: set[int], kind: str, labels: bool, size: int) -> gl3d.Scene:
    # The cached backdrop plus what changes with the state: the labels of the free tiles.
    scene = gl3d.Scene(background=KINDS[kind][0])
    backdrop = _backdrop(board.width, board.height, kind, labels, size)
    scene.set_backdrop(backdrop, ("ivispar-board", board.width, board.height, kind, labels, size))
    if labels:
        tpx = _texels_per_tile(board, size)
        free = 0.4  # height of a free tile's text box, in tiles
        for cell in range(board.cells):
            if cell not in occupied:
                x, z = tile_center(board, cell)
                where = gl3d.ground_quad((x, TEXT_LIFT, z), free, free)
                scene.add_text(board.coord(cell), where, FREE_LABEL, round(tpx * free))
    return scene


def _camera(board: Board, size: int, top: float) -> gl3d.Camera:
    aspect = size / (size - header_height(size))
    return _fit(board.width, board.height, round(aspect * 10_000), top)


@lru_cache(maxsize=64)
def _fit(width: int, height: int, aspect_e4: int, top: float) -> gl3d.Camera:
    # Frame the slab (frame included) and the tallest thing that can stand on a tile; things
    # only stand on tiles, so the height is checked over the tiles and not over the frame.
    w, h = width / 2 + MARGIN, height / 2 + MARGIN
    points = [(sx * w, y, sz * h) for sx in (-1, 1) for sz in (-1, 1) for y in (-SLAB_DEPTH, 0.0)]
    points += [(sx * width / 2, top, sz * height / 2) for sx in (-1, 1) for sz in (-1, 1)]
    return gl3d.fit_camera(points, pitch=PITCH, fov_y=FOV_Y, aspect=aspect_e4 / 10_000, fill=0.96)


def geom_scene(
    board: Board,
    pieces: list[Piece],
    kind: str,
    labels: bool = True,
    size: int = 512,
    palette: Mapping[str, tuple[int, int, int]] = GEOM_COLORS,
) -> tuple[gl3d.Scene, gl3d.Camera]:
    """The 3D scene of `pieces` on `board` and its camera. Object ids: the geom `pieces[i]` has
    id i + 1, a board tile `TILE_ID_BASE + cell`; the frame and background 0."""
    if kind not in KINDS:
        raise ValueError(f"unknown image kind {kind!r}; known: {', '.join(KINDS)}")
    scene = _board_scene(board, {cell for cell, _, _ in pieces}, kind, labels, size)
    for i, (cell, color, shape) in enumerate(pieces):
        sx, sy, sz = GEOM_SIZE[shape]
        x, z = tile_center(board, cell)
        turn = GEOM_TURN.get(shape, 0.0)
        if turn % 180:  # a quarter turn swaps the mesh's x and z extents
            sx, sz = sz, sx
        place = gl3d.compose(gl3d.translate(x, sy / 2, z), gl3d.rotate_y(turn), gl3d.scale(sx, sy, sz))
        scene.add_mesh(shape, place, palette[color], i + 1)
    return scene, _camera(board, size, max(s[1] for s in GEOM_SIZE.values()))


def tile_scene(
    width: int, height: int, tiles: list[tuple[int, int]], kind: str, labels: bool = True, size: int = 512
) -> tuple[gl3d.Scene, gl3d.Camera]:
    """The 3D scene of a numbered sliding-tile puzzle. The tile `tiles[i]` has id i + 1."""
    if kind not in KINDS:
        raise ValueError(f"unknown image kind {kind!r}; known: {', '.join(KINDS)}")
    if not (2 <= width <= MAX_SIDE and 2 <= height <= MAX_SIDE):
        raise ValueError(
            f"board width and height must each be between 2 and {MAX_SIDE}, got {width}x{height}"
        )
    cells = [cell for cell, _ in tiles]
    bad = [c for c in cells if not 0 <= c < width * height]
    if bad or len(set(cells)) != len(cells):
        raise ValueError(f"tile cells must be distinct and in 0..{width * height - 1}, got {cells}")
    board = get_board(width, height)
    scene = _board_scene(board, {cell for cell, _ in tiles}, kind, labels, size)
    tpx = _texels_per_tile(board, size)
    top = PUZZLE_HEIGHT
    for i, (cell, number) in enumerate(tiles):
        x, z = tile_center(board, cell)
        scene.add_box((x, top / 2, z), (PUZZLE_SIZE, top, PUZZLE_SIZE), PUZZLE_TILE, i + 1)
        text = str(number)
        box = 0.62 if len(text) < 3 else 0.44  # text box height in tiles; long numbers get smaller
        where = gl3d.ground_quad((x, top + TEXT_LIFT, z), box, box)
        scene.add_text(text, where, PUZZLE_INK, round(tpx * box))
    return scene, _camera(board, size, top)


def _frame(scene: gl3d.Scene, camera: gl3d.Camera, kind: str, size: int) -> bytes:
    band = header_height(size)
    view = scene.render_rgb(size, size - band, camera)
    return gl3d.encode_png([_header(kind, size), view])


# --- public renderers ----------------------------------------------------------------------


def render_geoms(board: Board, pieces: list[Piece], kind: str, config: SGPConfig) -> bytes:
    """PNG bytes of the 3D view of `pieces` on `board` framed as `kind` (the `STATE_RENDERERS`
    signature); uses `config.labels` and `config.image_size`."""
    size = config.image_size
    scene, camera = geom_scene(board, pieces, kind, config.labels, size, config.palette())
    return _frame(scene, camera, kind, size)


def render_tiles(
    width: int,
    height: int,
    tiles: list[tuple[int, int]],
    kind: str,
    image_size: int = 512,
    labels: bool = True,
) -> bytes:
    """PNG bytes of a numbered sliding-tile puzzle in 3D: `tiles` are (cell, number) with
    cell = row * width + col, row 0 at the bottom (nearest the viewer); each tile is a raised
    block with its number on top. Free cells show their coordinate when `labels` is on."""
    scene, camera = tile_scene(width, height, tiles, kind, labels, image_size)
    return _frame(scene, camera, kind, image_size)
