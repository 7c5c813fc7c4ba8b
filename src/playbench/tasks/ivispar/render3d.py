"""3D view of a board (the paper's "vision 3D" modality), drawn with `playbench.render.gl3d`.

The scene imitates the original's Unity scene (`SlidingGeomPuzzle.unity` with the camera settings
of the paper's experiment files, read from the authors' repository):

- **Camera**: for a 4x4 board exactly the original's: it looks down at 56.5° (the camera offset
  (0, 5.57, -3.68) from its anchor: atan(5.57 / 3.68)) with a vertical field of view of 60°, from
  0.2 tiles left of the board's middle towards a point 1 tile below the board (the anchor
  (6.8, -1, 6.8) of a board whose middle is (7, 0, 7)). Other boards scale that placement by
  their larger side / 4, so the board fills the frame the same way.
- **Frame**: 4:3 like the original's 1200x900 screenshots: `image_size` is the width, the height
  3/4 of it. The background is the state's colour and the state's name sits in a rounded,
  half-transparent box at the top right, as the original's agent drew it.
- **Board**: bare tiles, one unit each, in a dark and light checkerboard (A1 dark) with a stone
  texture (procedural here; the original samples a photo texture), no frame; column letters
  lie on the ground in front of the board and row numbers to its left, in white; free tiles show
  their coordinate in bold, white on dark tiles and black on light ones (`labels`).
- **Geoms** fill their tile: 1 x 1 x 1 tile, standing on it, so nearer geoms hide parts of
  farther ones (paper, section 3.3).
- **Light**: the original's directional light (from the right, behind the board, 32° above the
  ground) with a flat ambient term, Lambert shading and a soft highlight, and hard shadows that
  the geoms cast onto the board.

Not reproduced: shadows on other geoms (only the board receives them), the geoms' texture and
normal map, the reflections of Unity's standard shader. Geom colours are the configured palette
(`SGPConfig.color_rgb`; the original used the HTML colours of the names).

`render_tiles` draws the classic numbered sliding-tile puzzle on the same board.

Cell indices follow `board.Board`: ``cell = row * width + col`` with row 0 at the **bottom**
(nearest the viewer) and column 0 on the left.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache

import numpy as np
from PIL import Image

from playbench.render import gl3d
from playbench.render.draw2d import get_font
from playbench.tasks.ivispar.board import GEOM_COLORS, MAX_SIDE, Board, get_board
from playbench.tasks.ivispar.render2d import KINDS, label_patch
from playbench.tasks.ivispar.schema import SGPConfig

Piece = tuple[int, str, str]  # (cell, color, shape)

# --- the original's scene, in our axes (x right, y up, z towards the viewer; tiles 1 unit, the
# board centred at 0). Unity's (X, Y, Z) maps to (X - 7, Y, 7 - Z) for the paper's 4x4 board.
ASPECT = 4 / 3  # width / height of a frame (the original's 1200x900)
FOV_Y = 60.0  # vertical field of view, degrees
CAMERA_EYE = (-0.2, 4.57, 3.88)  # anchor (6.8, -1, 6.8) + offset (0, 5.57, -3.68)
CAMERA_TARGET = (-0.2, -1.0, 0.2)  # the anchor the camera looks at
PITCH = math.degrees(math.atan2(5.57, 3.68))  # 56.55°: the camera's elevation
REFERENCE_SIDE = 4  # the board side the original's camera was placed for
LIGHT_TOWARDS = (0.7236, 0.5281, -0.4444)  # towards the original's directional light

# Shading, fitted to the original's screenshots: faces turned from the light keep ~0.47 of their
# colour (sRGB), faces facing up get ~1.25x plus a whitish highlight, shadows on the board ~0.43.
AMBIENT = 0.19
KEY_STRENGTH = 2.4
SPECULAR = 0.28
SHININESS = 8.0
SHADOW = 0.43
SHADOW_LIFT = 0.003  # shadows lie a hair above the tiles to win their depth test
TEXT_LIFT = 0.006

TILE_DARK = (64, 61, 58)  # albedo (sRGB); lit from above they show as ~(80, 77, 72) ...
TILE_LIGHT = (172, 167, 160)  # ... and ~(215, 209, 200)
TILE_ID_BASE = 10_000  # object id of a board tile = TILE_ID_BASE + cell; geoms and puzzle tiles use 1..

EDGE_INK = (255, 255, 255)
CELL_INK_ON_DARK = (255, 255, 255)
CELL_INK_ON_LIGHT = (0, 0, 0)
# Text heights (cap height, in tiles) and placement measured on the original's screenshots.
EDGE_CAP = 0.40
LETTER_AHEAD = 0.59  # column letters: centre this far in front of the board's front edge
NUMBER_LEFT = 0.85  # row numbers: centre this far left of the board's left edge
NUMBER_SHIFT = 0.165  # ... and this far nearer the viewer than their row's centre
CELL_CAP = 0.28
CELL_SHIFT = 0.06  # cell labels: this far nearer the viewer than the tile's centre

# Every geom fills its tile and stands one tile tall, as the original's unit meshes do.
GEOM_SIZE: dict[str, tuple[float, float, float]] = {
    shape: (1.0, 1.0, 1.0) for shape in ("cube", "sphere", "pyramid", "cylinder", "cone", "prism")
}
# The prism lies with its ridge running away from the viewer so that its triangular end faces
# the camera: with the ridge across the view its front slope reads as a plain box.
GEOM_TURN: dict[str, float] = {"prism": 90.0}

PUZZLE_TILE = (233, 196, 136)
PUZZLE_INK = (50, 36, 20)
PUZZLE_SIZE = 0.96  # side of a numbered tile, in tiles (the original's fill it; a gap keeps them apart)
PUZZLE_HEIGHT = 0.5  # as the original's tile blocks


def frame_size(size: int) -> tuple[int, int]:
    """(width, height) of a frame for `image_size` = `size`: the width, and 3/4 of it."""
    return size, max(1, round(size / ASPECT))


def tile_center(board: Board, cell: int) -> tuple[float, float]:
    """(x, z) world position of a tile's centre: tiles are 1 unit, the board is centred at 0."""
    col, row = board.col_row(cell)
    return col - (board.width - 1) / 2, (board.height - 1) / 2 - row


@lru_cache(maxsize=64)
def board_camera(width: int, height: int) -> gl3d.Camera:
    """The original's camera for a 4x4 board, scaled by the board's larger side / 4."""
    s = max(width, height) / REFERENCE_SIDE
    eye = tuple(s * v for v in CAMERA_EYE)
    target = tuple(s * v for v in CAMERA_TARGET)
    return gl3d.Camera(eye, target, fov_y=FOV_Y, near=0.3 * s, far=40.0 * s)


@lru_cache(maxsize=64)
def lighting(width: int, height: int) -> gl3d.Lighting:
    """The original's light; shadows fall on the board only (beyond it there is no floor)."""
    return gl3d.Lighting(
        key=LIGHT_TOWARDS,
        key_strength=KEY_STRENGTH,
        ambient=AMBIENT,
        specular=SPECULAR,
        shininess=SHININESS,
        shadow=SHADOW,
        ground=SHADOW_LIFT,
        shadow_area=(-width / 2, -height / 2, width / 2, height / 2),
    )


# --- textures ------------------------------------------------------------------------------


def _texels_per_tile(board: Board, size: int) -> int:
    # About as many texels as a tile gets pixels at 2x supersampling (a tile of the front row
    # spans ~0.54 of the width over the board's larger side), capped to keep textures small.
    span = max(board.width, board.height)
    return int(max(16, min(round(2 * size * 0.54 / span), 256, 2048 // span)))


def _text_px(cap: float, tpt: int) -> int:
    # font size (texels) whose digits are `cap` tiles tall at `tpt` texels per tile
    return max(8, round(cap * tpt / 0.72))


def _box_height(text: str, ink: tuple[int, int, int], px: int, stroke: int, cap: float) -> float:
    """Height (tiles) of `text`'s decal box so that its digits are `cap` tiles tall."""
    font = get_font(px)
    _, top, _, bottom = font.getbbox("0")
    return cap * gl3d.text_image(text, ink, px, stroke).height / max(1, bottom - top)


@lru_cache(maxsize=16)
def _stone(width: int, height: int, tpt: int) -> Image.Image:
    """The board's texture: a dark and light checkerboard of mottled stone (A1 dark), one tile
    per `tpt` texels, the image's top row being the board's far edge. Value noise at a few
    scales, the same for every call (fixed seed)."""
    rng = np.random.default_rng(20250131)
    h, w = height * tpt, width * tpt
    field = np.zeros((h, w))
    for cells, weight in ((1.2, 0.45), (3, 0.3), (7, 0.16), (18, 0.09)):
        gh, gw = max(2, round(height * cells) + 2), max(2, round(width * cells) + 2)
        grid = Image.fromarray((rng.random((gh, gw)) * 255).astype(np.uint8), "L")
        field += weight * np.asarray(grid.resize((w, h), Image.Resampling.BICUBIC), dtype=np.float64) / 255
    field = np.clip((field - field.mean()) / (field.std() + 1e-9), -3, 3)  # about N(0, 1)
    rows = (height - 1 - np.arange(h) // tpt)[:, None]
    cols = (np.arange(w) // tpt)[None, :]
    light = ((rows + cols) % 2 == 1)[..., None]
    base = np.where(light, np.array(TILE_LIGHT, dtype=np.float64), np.array(TILE_DARK, dtype=np.float64))
    # light tiles: white stone with grey clouds; dark tiles: a quieter, darker mottle
    amount = np.where(light, 0.14, 0.09)
    pixels = base * (1 + amount * field[..., None])
    return Image.fromarray(np.clip(np.rint(pixels), 0, 255).astype(np.uint8), "RGB")


def _draw_label(view: np.ndarray, kind: str) -> np.ndarray:
    x, y, patch = label_patch(KINDS[kind][1], view.shape[1])
    h = min(patch.height, view.shape[0] - y)
    if h <= 0:
        return view
    region = Image.fromarray(view[y : y + h, x : x + patch.width]).convert("RGBA")
    done = Image.alpha_composite(region, patch.crop((0, 0, patch.width, h)))
    view[y : y + h, x : x + patch.width] = np.asarray(done.convert("RGB"))
    return view


# --- scenes --------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _backdrop(width: int, height: int, kind: str, labels: bool, size: int) -> gl3d.Scene:
    """Everything that does not depend on the state: the board's tiles and the edge labels.

    Each tile is a quad showing its part of the stone texture and carrying its tile id; being
    in the cached backdrop, the texture costs nothing per frame.
    """
    board = get_board(width, height)
    scene = gl3d.Scene(background=KINDS[kind][0], lighting=lighting(width, height))
    tpt = _texels_per_tile(board, size)
    stone = _stone(width, height, tpt)
    key = ("ivispar-stone", width, height, tpt)
    for cell in range(board.cells):
        x, z = tile_center(board, cell)
        col, row = board.col_row(cell)
        uv = (col / width, (height - 1 - row) / height, (col + 1) / width, (height - row) / height)
        where = gl3d.ground_quad((x, 0.0, z), 1.0, 1.0)
        scene.add_textured_quad(stone, where, object_id=TILE_ID_BASE + cell, lit=True, uv=uv, key=key)
    if labels:
        px = _text_px(EDGE_CAP, tpt)
        for col, letter in enumerate(board.column_letters):
            letter = letter.upper()
            x, _ = tile_center(board, board.cell(col, 0))
            box = _box_height(letter, EDGE_INK, px, 0, EDGE_CAP)
            where = gl3d.ground_quad((x, TEXT_LIFT, height / 2 + LETTER_AHEAD), box, box)
            scene.add_text(letter, where, EDGE_INK, px)
        for row in range(height):
            _, z = tile_center(board, board.cell(0, row))
            text = str(row + 1)
            box = _box_height(text, EDGE_INK, px, 0, EDGE_CAP)
            where = gl3d.ground_quad((-width / 2 - NUMBER_LEFT, TEXT_LIFT, z + NUMBER_SHIFT), box, box)
            scene.add_text(text, where, EDGE_INK, px)
    return scene


def _board_scene(board: Board, occupied: set[int], kind: str, labels: bool, size: int) -> gl3d.Scene:
    # The cached backdrop plus what changes with the state: the labels of the free tiles.
    scene = gl3d.Scene(background=KINDS[kind][0], lighting=lighting(board.width, board.height))
    backdrop = _backdrop(board.width, board.height, kind, labels, size)
    scene.set_backdrop(backdrop, ("ivispar-board-v2", board.width, board.height, kind, labels, size))
    if labels:
        tpt = _texels_per_tile(board, size)
        px = _text_px(CELL_CAP, tpt)
        stroke = max(1, round(px * 0.04))
        for cell in range(board.cells):
            if cell not in occupied:
                x, z = tile_center(board, cell)
                col, row = board.col_row(cell)
                ink = CELL_INK_ON_LIGHT if (col + row) % 2 else CELL_INK_ON_DARK
                text = board.coord(cell).upper()
                box = _box_height(text, ink, px, stroke, CELL_CAP)
                where = gl3d.ground_quad((x, TEXT_LIFT, z + CELL_SHIFT), box, box)
                scene.add_text(text, where, ink, px, stroke)
    return scene


def geom_scene(
    board: Board,
    pieces: list[Piece],
    kind: str,
    labels: bool = True,
    size: int = 512,
    palette: Mapping[str, tuple[int, int, int]] = GEOM_COLORS,
) -> tuple[gl3d.Scene, gl3d.Camera]:
    """The 3D scene of `pieces` on `board` and its camera (for a `frame_size(size)` view).
    Object ids: the geom `pieces[i]` has id i + 1, a board tile `TILE_ID_BASE + cell`; the
    background 0."""
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
    return scene, board_camera(board.width, board.height)


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
    tpt = _texels_per_tile(board, size)
    top = PUZZLE_HEIGHT
    for i, (cell, number) in enumerate(tiles):
        x, z = tile_center(board, cell)
        scene.add_box((x, top / 2, z), (PUZZLE_SIZE, top, PUZZLE_SIZE), PUZZLE_TILE, i + 1)
        text = str(number)
        cap = 0.42 if len(text) < 3 else 0.3  # long numbers get smaller
        px = _text_px(cap, tpt)
        box = _box_height(text, PUZZLE_INK, px, 0, cap)
        where = gl3d.ground_quad((x, top + TEXT_LIFT, z), box, box)
        scene.add_text(text, where, PUZZLE_INK, px)
    return scene, board_camera(width, height)


def _frame(scene: gl3d.Scene, camera: gl3d.Camera, kind: str, size: int) -> bytes:
    view = scene.render_rgb(*frame_size(size), camera)
    return gl3d.encode_png(_draw_label(view, kind))


# --- public renderers ----------------------------------------------------------------------


def render_geoms(board: Board, pieces: list[Piece], kind: str, config: SGPConfig) -> bytes:
    """PNG bytes of the 3D view of `pieces` on `board` framed as `kind` (the `STATE_RENDERERS`
    signature); uses `config.labels` and `config.image_size` (the width; the height is 3/4)."""
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
    """PNG bytes of a numbered sliding-tile puzzle in 3D (`image_size` wide, 3/4 as high): `tiles`
    are (cell, number) with cell = row * width + col, row 0 at the bottom (nearest the viewer);
    each tile is a raised block with its number on top. Free cells show their coordinate when
    `labels` is on."""
    scene, camera = tile_scene(width, height, tiles, kind, labels, image_size)
    return _frame(scene, camera, kind, image_size)
