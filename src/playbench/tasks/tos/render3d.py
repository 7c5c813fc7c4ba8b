"""First-person 3D views and the object legend of the vision modality, drawn with `playbench.render.gl3d`.

World to GL: grid x -> GL x, grid y (north) -> GL -z, up is GL y; one grid unit is one GL unit.
Rooms have a checkerboard floor (one tile per integer point, so distances can be counted), walls
on the lines around them and a coloured door panel in each doorway; a door the agent stands in is
open (not drawn), as the prompt says. The camera is at eye height on the agent's point, looking
along its facing with a 90° horizontal field of view, so what the text modality reports as in
view is what the image shows. The object the agent stands on is not drawn.

Every object is a small model built from the renderer's unit meshes in its own frame (u right,
v up, w forward); objects with a facing have a clear front (a screen, a seat, a keyboard, ...).
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from playbench.render import gl3d
from playbench.render.draw2d import get_font
from playbench.tasks.tos.world import UNIT, Pose, World, turn

RGB = tuple[int, int, int]
Part = tuple[str, tuple[float, float, float], tuple[float, float, float], RGB]  # shape, centre, size, colour

EYE_HEIGHT = 0.62
WALL_HEIGHT = 1.5
WALL_THICK = 0.14
DOOR_WIDTH = 0.8
DOOR_HEIGHT = 1.25
ASPECT = 1.0  # square views, as the paper (384 x 384)
SKY = (222, 228, 236)
WALL = (196, 190, 178)
GROUND = (150, 146, 138)
ROOM_FLOORS: tuple[tuple[RGB, RGB], ...] = (
    ((236, 226, 204), (220, 208, 182)),
    ((214, 228, 214), (194, 212, 194)),
    ((222, 218, 236), (202, 198, 222)),
    ((236, 214, 210), (220, 194, 190)),
)
DOOR_COLORS: dict[str, RGB] = {
    "red door": (200, 40, 40),
    "blue door": (40, 80, 200),
    "green door": (40, 160, 70),
    "yellow door": (225, 200, 40),
    "purple door": (130, 60, 170),
    "orange door": (235, 130, 30),
}

DARK_WOOD = (95, 60, 35)
BLACK = (35, 35, 38)
WHITE = (240, 240, 240)
GOLD = (215, 175, 40)


def _legs(w: float, d: float, h: float, color: RGB, r: float = 0.05) -> list[Part]:
    return [("cylinder", (su * w, h / 2, sw * d), (r, h, r), color) for su in (-1, 1) for sw in (-1, 1)]


# Each model: parts in the object's frame, (u, v, w) = (right, up, forward), centres and sizes.
MODELS: dict[str, list[Part]] = {
    "sofa": [("box", (0, 0.17, 0.03), (0.9, 0.22, 0.5), (60, 90, 170)),
             ("box", (0, 0.38, -0.2), (0.9, 0.42, 0.12), (50, 75, 150)),
             ("box", (-0.43, 0.3, 0.03), (0.1, 0.3, 0.5), (45, 70, 140)),
             ("box", (0.43, 0.3, 0.03), (0.1, 0.3, 0.5), (45, 70, 140))],
    "armchair": [("box", (0, 0.17, 0.03), (0.55, 0.22, 0.5), (200, 120, 50)),
                 ("box", (0, 0.42, -0.2), (0.55, 0.5, 0.12), (180, 100, 40)),
                 ("box", (-0.27, 0.3, 0.03), (0.09, 0.3, 0.5), (170, 95, 35)),
                 ("box", (0.27, 0.3, 0.03), (0.09, 0.3, 0.5), (170, 95, 35))],
    "chair": [("box", (0, 0.32, 0), (0.45, 0.06, 0.45), (200, 50, 50)),
              ("box", (0, 0.6, -0.2), (0.45, 0.5, 0.06), (180, 40, 40))] + _legs(0.19, 0.19, 0.3, (120, 30, 30)),
    "bench": [("box", (0, 0.32, 0), (0.9, 0.07, 0.32), (130, 90, 60)),
              ("box", (0, 0.55, -0.14), (0.9, 0.3, 0.05), (115, 80, 50))] + _legs(0.4, 0.12, 0.3, (80, 55, 35)),
    "tv": [("box", (0, 0.03, 0), (0.35, 0.06, 0.2), BLACK), ("cylinder", (0, 0.25, 0), (0.06, 0.4, 0.06), BLACK),
           ("box", (0, 0.65, 0), (0.85, 0.48, 0.07), (50, 50, 55)),
           ("box", (0, 0.65, 0.04), (0.76, 0.4, 0.02), (60, 170, 230))],
    "monitor": [("box", (0, 0.03, 0), (0.25, 0.06, 0.18), WHITE), ("cylinder", (0, 0.2, 0), (0.05, 0.3, 0.05), WHITE),
                ("box", (0, 0.5, 0), (0.5, 0.34, 0.06), (225, 225, 225)),
                ("box", (0, 0.5, 0.035), (0.44, 0.28, 0.02), (70, 200, 110))],
    "bed": [("box", (0, 0.2, 0.02), (0.72, 0.25, 0.88), (150, 90, 170)),
            ("box", (0, 0.35, -0.45), (0.72, 0.6, 0.07), DARK_WOOD),
            ("box", (0, 0.37, -0.28), (0.5, 0.09, 0.2), WHITE)] + _legs(0.32, 0.4, 0.1, DARK_WOOD),
    "desk": [("box", (0, 0.55, 0), (0.85, 0.05, 0.5), (205, 170, 110)),
             ("box", (-0.4, 0.27, 0), (0.05, 0.54, 0.5), (185, 150, 95)),
             ("box", (0.4, 0.27, 0), (0.05, 0.54, 0.5), (185, 150, 95)),
             ("box", (0, 0.3, -0.23), (0.8, 0.4, 0.03), (170, 135, 85)),
             ("box", (0.2, 0.45, 0.24), (0.3, 0.12, 0.03), (150, 115, 70))],
    "bookshelf": [("box", (0, 0.6, -0.05), (0.8, 1.2, 0.3), DARK_WOOD),
                  ("box", (-0.2, 0.3, 0.11), (0.3, 0.25, 0.03), (200, 60, 60)),
                  ("box", (0.18, 0.3, 0.11), (0.3, 0.25, 0.03), (60, 120, 200)),
                  ("box", (-0.15, 0.65, 0.11), (0.4, 0.25, 0.03), (230, 190, 60)),
                  ("box", (0.22, 0.65, 0.11), (0.25, 0.25, 0.03), (70, 170, 90)),
                  ("box", (0, 1.0, 0.11), (0.6, 0.25, 0.03), (190, 110, 200))],
    "piano": [("box", (0, 0.45, -0.08), (0.9, 0.9, 0.35), BLACK),
              ("box", (0, 0.45, 0.16), (0.86, 0.06, 0.16), WHITE),
              ("box", (0, 0.49, 0.12), (0.86, 0.02, 0.05), (20, 20, 20))],
    "fridge": [("box", (0, 0.62, 0), (0.6, 1.24, 0.55), (235, 238, 242)),
               ("box", (0.22, 0.75, 0.29), (0.04, 0.4, 0.04), (90, 90, 95)),
               ("box", (0, 0.9, 0.28), (0.58, 0.02, 0.02), (150, 150, 155))],
    "stove": [("box", (0, 0.3, 0), (0.6, 0.6, 0.55), (170, 172, 178)),
              ("box", (0, 0.25, 0.28), (0.42, 0.22, 0.02), BLACK),
              ("cylinder", (-0.14, 0.61, 0.1), (0.16, 0.02, 0.16), BLACK),
              ("cylinder", (0.14, 0.61, 0.1), (0.16, 0.02, 0.16), BLACK),
              ("box", (0, 0.48, 0.28), (0.5, 0.05, 0.02), (230, 110, 40))],
    "wardrobe": [("box", (0, 0.68, 0), (0.85, 1.36, 0.45), (120, 80, 50)),
                 ("box", (0, 0.68, 0.23), (0.02, 1.3, 0.02), (70, 45, 25)),
                 ("sphere", (-0.07, 0.75, 0.24), (0.06, 0.06, 0.06), GOLD),
                 ("sphere", (0.07, 0.75, 0.24), (0.06, 0.06, 0.06), GOLD)],
    "fireplace": [("box", (0, 0.42, -0.05), (0.9, 0.84, 0.35), (170, 70, 55)),
                  ("box", (0, 0.3, 0.1), (0.5, 0.42, 0.08), (30, 20, 20)),
                  ("cone", (0, 0.22, 0.12), (0.25, 0.25, 0.1), (250, 140, 30)),
                  ("box", (0, 0.86, 0), (1.0, 0.06, 0.42), (120, 110, 105))],
    "toilet": [("cylinder", (0, 0.18, 0.06), (0.36, 0.36, 0.46), WHITE),
               ("box", (0, 0.5, -0.2), (0.42, 0.4, 0.15), WHITE),
               ("cylinder", (0, 0.37, 0.06), (0.38, 0.03, 0.48), (200, 205, 215))],
    "dresser": [("box", (0, 0.32, 0), (0.8, 0.64, 0.42), (225, 200, 160)),
                ("box", (0, 0.14, 0.22), (0.6, 0.03, 0.02), DARK_WOOD),
                ("box", (0, 0.32, 0.22), (0.6, 0.03, 0.02), DARK_WOOD),
                ("box", (0, 0.5, 0.22), (0.6, 0.03, 0.02), DARK_WOOD)],
    "lamp": [("cylinder", (0, 0.02, 0), (0.3, 0.04, 0.3), BLACK), ("cylinder", (0, 0.5, 0), (0.04, 0.95, 0.04), BLACK),
             ("cone", (0, 1.0, 0), (0.42, 0.32, 0.42), (245, 215, 90))],
    "plant": [("cylinder", (0, 0.15, 0), (0.3, 0.3, 0.3), (190, 95, 60)),
              ("sphere", (0, 0.52, 0), (0.52, 0.52, 0.52), (60, 150, 60))],
    "vase": [("cylinder", (0, 0.22, 0), (0.26, 0.44, 0.26), (40, 160, 160)),
             ("sphere", (0, 0.45, 0), (0.32, 0.2, 0.32), (40, 150, 150))],
    "table": [("cylinder", (0, 0.56, 0), (0.8, 0.05, 0.8), (170, 120, 70)),
              ("cylinder", (0, 0.28, 0), (0.08, 0.55, 0.08), (120, 80, 45)),
              ("cylinder", (0, 0.02, 0), (0.4, 0.04, 0.4), (120, 80, 45))],
    "ball": [("sphere", (0, 0.21, 0), (0.42, 0.42, 0.42), (240, 120, 30))],
    "globe": [("cylinder", (0, 0.03, 0), (0.25, 0.06, 0.25), GOLD), ("cylinder", (0, 0.2, 0), (0.04, 0.3, 0.04), GOLD),
              ("sphere", (0, 0.5, 0), (0.4, 0.4, 0.4), (50, 110, 200))],
    "stool": [("cylinder", (0, 0.46, 0), (0.4, 0.06, 0.4), (200, 60, 120))] + _legs(0.12, 0.12, 0.44, (90, 90, 90), 0.04),
    "barrel": [("cylinder", (0, 0.33, 0), (0.5, 0.66, 0.5), (140, 90, 50)),
               ("cylinder", (0, 0.15, 0), (0.52, 0.04, 0.52), (60, 60, 60)),
               ("cylinder", (0, 0.5, 0), (0.52, 0.04, 0.52), (60, 60, 60))],
    "basket": [("cylinder", (0, 0.15, 0), (0.46, 0.3, 0.46), (210, 170, 100)),
               ("box", (0, 0.42, 0), (0.42, 0.04, 0.04), (170, 130, 70))],
    "candle": [("cylinder", (0, 0.03, 0), (0.24, 0.06, 0.24), GOLD), ("cylinder", (0, 0.25, 0), (0.12, 0.4, 0.12), WHITE),
               ("cone", (0, 0.52, 0), (0.08, 0.14, 0.08), (255, 150, 20))],
    "trophy": [("box", (0, 0.06, 0), (0.26, 0.12, 0.26), BLACK), ("cylinder", (0, 0.22, 0), (0.06, 0.2, 0.06), GOLD),
               ("cylinder", (0, 0.45, 0), (0.3, 0.28, 0.3), GOLD)],
    "cactus": [("cylinder", (0, 0.08, 0), (0.3, 0.16, 0.3), (190, 95, 60)),
               ("cylinder", (0, 0.5, 0), (0.18, 0.7, 0.18), (70, 140, 60)),
               ("cylinder", (0.16, 0.55, 0), (0.1, 0.3, 0.1), (70, 140, 60))],
    "bucket": [("cylinder", (0, 0.18, 0), (0.36, 0.36, 0.36), (140, 150, 165)),
               ("cylinder", (0, 0.37, 0), (0.38, 0.03, 0.38), (90, 95, 105))],
    "fan": [("cylinder", (0, 0.03, 0), (0.3, 0.06, 0.3), (80, 80, 90)), ("cylinder", (0, 0.35, 0), (0.05, 0.6, 0.05), (80, 80, 90)),
            ("sphere", (0, 0.75, 0), (0.4, 0.4, 0.4), (170, 200, 220))],
}  # fmt: skip
# the authors' scene vocabulary (their default generator and scene files): simple models with a
# clear front where the object has a facing
RED = (200, 50, 50)
MODELS.update({
    "television": MODELS["tv"],
    "red chair": MODELS["chair"],
    "shelf": MODELS["bookshelf"],
    "truck": [("box", (0, 0.2, -0.1), (0.4, 0.22, 0.5), (220, 180, 40)), ("box", (0, 0.32, 0.22), (0.4, 0.3, 0.2), (200, 60, 40)),
              ("box", (0, 0.36, 0.33), (0.34, 0.14, 0.02), (120, 190, 230))]
             + [("sphere", (su * 0.2, 0.09, sw * 0.2), (0.08, 0.18, 0.18), BLACK) for su in (-1, 1) for sw in (-1, 1)],
    "bike": [("sphere", (0, 0.25, 0.3), (0.06, 0.5, 0.5), BLACK), ("sphere", (0, 0.25, -0.3), (0.06, 0.5, 0.5), BLACK),
             ("box", (0, 0.42, 0), (0.05, 0.05, 0.6), (40, 120, 200)), ("box", (0, 0.62, 0.28), (0.4, 0.04, 0.04), (90, 90, 90))],
    "backpack": [("box", (0, 0.3, 0), (0.4, 0.55, 0.22), (60, 130, 70)), ("box", (0, 0.22, 0.13), (0.3, 0.22, 0.06), (40, 100, 55))],
    "pan": [("cylinder", (0, 0.05, -0.08), (0.42, 0.08, 0.42), (60, 60, 65)), ("box", (0, 0.07, 0.3), (0.06, 0.04, 0.35), DARK_WOOD)],
    "cap": [("sphere", (0, 0.1, -0.05), (0.36, 0.24, 0.36), (60, 80, 190)), ("box", (0, 0.04, 0.2), (0.3, 0.02, 0.2), (50, 70, 170))],
    "rubberduck": [("sphere", (0, 0.14, -0.05), (0.34, 0.26, 0.4), (250, 220, 40)), ("sphere", (0, 0.32, 0.08), (0.2, 0.2, 0.2), (250, 220, 40)),
                   ("cone", (0, 0.3, 0.2), (0.08, 0.1, 0.08), (240, 130, 30))],
    "laptop": [("box", (0, 0.03, 0.05), (0.5, 0.04, 0.35), (170, 170, 175)), ("box", (0, 0.2, -0.12), (0.5, 0.32, 0.03), (60, 60, 65)),
               ("box", (0, 0.2, -0.1), (0.44, 0.26, 0.02), (70, 160, 230))],
    "shoes": [("box", (-0.1, 0.07, 0.05), (0.14, 0.12, 0.36), (150, 60, 40)), ("box", (0.1, 0.07, 0.05), (0.14, 0.12, 0.36), (150, 60, 40))],
    "shoppingcart": [("box", (0, 0.45, 0), (0.45, 0.3, 0.6), (190, 190, 200)), ("box", (0, 0.65, -0.33), (0.45, 0.04, 0.04), RED)]
                    + [("sphere", (su * 0.18, 0.06, sw * 0.25), (0.1, 0.12, 0.12), BLACK) for su in (-1, 1) for sw in (-1, 1)],
    "airplane": [("cylinder", (0, 0.3, 0), (0.14, 0.14, 0.7), WHITE), ("box", (0, 0.3, 0.02), (0.8, 0.03, 0.16), (90, 130, 200)),
                 ("cone", (0, 0.3, 0.4), (0.14, 0.14, 0.14), RED), ("box", (0, 0.42, -0.32), (0.03, 0.2, 0.12), (90, 130, 200))],
    "alarmclock": [("cylinder", (0, 0.2, 0), (0.3, 0.3, 0.12), (220, 60, 60)), ("box", (0, 0.2, 0.07), (0.22, 0.22, 0.01), WHITE),
                   ("sphere", (-0.1, 0.38, 0), (0.1, 0.1, 0.1), GOLD), ("sphere", (0.1, 0.38, 0), (0.1, 0.1, 0.1), GOLD)],
    "desklamp": [("cylinder", (0, 0.02, 0), (0.24, 0.04, 0.24), BLACK), ("box", (0, 0.25, -0.05), (0.04, 0.45, 0.04), BLACK),
                 ("cone", (0, 0.45, 0.1), (0.22, 0.18, 0.22), (90, 200, 120))],
    "teddybear": [("sphere", (0, 0.2, 0), (0.36, 0.4, 0.3), (160, 110, 60)), ("sphere", (0, 0.48, 0.02), (0.26, 0.26, 0.24), (160, 110, 60)),
                  ("sphere", (0, 0.46, 0.13), (0.1, 0.08, 0.06), (90, 60, 30))],
    "scooter": [("box", (0, 0.06, 0), (0.16, 0.04, 0.6), (200, 40, 120)), ("box", (0, 0.4, 0.27), (0.04, 0.7, 0.04), (90, 90, 90)),
                ("box", (0, 0.75, 0.27), (0.4, 0.04, 0.04), BLACK)],
    "wine": [("cylinder", (0, 0.16, 0), (0.16, 0.32, 0.16), (90, 20, 40)), ("cylinder", (0, 0.4, 0), (0.06, 0.16, 0.06), (90, 20, 40))],
    "books": [("box", (0, 0.04, 0), (0.4, 0.08, 0.3), (200, 60, 60)), ("box", (0, 0.12, 0), (0.36, 0.08, 0.28), (60, 120, 200)),
              ("box", (0, 0.2, 0), (0.32, 0.08, 0.26), (230, 190, 60))],
})  # fmt: skip
FALLBACK: list[Part] = [("cube", (0, 0.25, 0), (0.5, 0.5, 0.5), (128, 128, 128))]


def _frame(x: float, y: float, facing: str) -> np.ndarray:
    """Object frame -> GL: columns right, up, backward (so the frame keeps its handedness)."""
    fx, fy = UNIT[facing]
    rx, ry = UNIT[turn(facing, 90)]
    m = np.eye(4)
    m[:3, 0] = (rx, 0.0, -ry)
    m[:3, 2] = (-fx, 0.0, fy)
    m[:3, 3] = (x, 0.0, -y)
    return m


def add_model(scene: gl3d.Scene, name: str, x: float, y: float, facing: str, object_id: int = 0) -> None:
    frame = _frame(x, y, facing)
    for shape, (u, v, w), size, color in MODELS.get(name, FALLBACK):
        local = gl3d.compose(gl3d.translate(u, v, -w), gl3d.scale(*size))
        scene.add_mesh(shape, frame @ local, color, object_id)


def _world_key(world: World) -> str:
    return hashlib.sha1(world.model_dump_json().encode()).hexdigest()


def _walls(world: World, open_door: tuple[int, int] | None) -> gl3d.Scene:
    scene = gl3d.Scene(background=SKY)
    # one ground slab under the whole world, so no sky shows between the floor tiles and the walls
    x0 = min(r.x0 for r in world.rooms) - 1.5
    x1 = max(r.x1 for r in world.rooms) + 1.5
    y0 = min(r.y0 for r in world.rooms) - 1.5
    y1 = max(r.y1 for r in world.rooms) + 1.5
    scene.add_box(((x0 + x1) / 2, -0.08, -(y0 + y1) / 2), (x1 - x0, 0.1, y1 - y0), GROUND)
    for r in world.rooms:
        light, dark = ROOM_FLOORS[r.id % len(ROOM_FLOORS)]
        for x in range(r.x0 - 1, r.x1 + 2):
            for y in range(r.y0 - 1, r.y1 + 2):
                inside = r.x0 <= x <= r.x1 and r.y0 <= y <= r.y1
                if inside:
                    scene.add_box((x, -0.05, -y), (1.0, 0.1, 1.0), light if (x + y) % 2 == 0 else dark)
        doors = [(g.x, g.y) for g in world.gates]
        # the four wall lines of the room, each split around its doorways
        sides = [
            ((r.x0 - 1.5, r.y1 + 1), (r.x1 + 1.5, r.y1 + 1)),
            ((r.x0 - 1.5, r.y0 - 1), (r.x1 + 1.5, r.y0 - 1)),
            ((r.x0 - 1, r.y0 - 1.5), (r.x0 - 1, r.y1 + 1.5)),
            ((r.x1 + 1, r.y0 - 1.5), (r.x1 + 1, r.y1 + 1.5)),
        ]
        for (ax, ay), (bx, by) in sides:
            horizontal = ay == by
            lo, hi = (ax, bx) if horizontal else (ay, by)
            line = ay if horizontal else ax
            cuts = sorted(d[0] if horizontal else d[1] for d in doors if (d[1] if horizontal else d[0]) == line
                          and lo < (d[0] if horizontal else d[1]) < hi)  # fmt: skip
            start = lo
            for c in [*cuts, None]:
                end = hi if c is None else c - DOOR_WIDTH / 2
                if end > start:
                    mid, length = (start + end) / 2, end - start
                    if horizontal:
                        scene.add_box((mid, WALL_HEIGHT / 2, -line), (length, WALL_HEIGHT, WALL_THICK), WALL)
                    else:
                        scene.add_box((line, WALL_HEIGHT / 2, -mid), (WALL_THICK, WALL_HEIGHT, length), WALL)
                if c is not None:
                    start = c + DOOR_WIDTH / 2
                    # lintel above the doorway
                    top = WALL_HEIGHT - DOOR_HEIGHT
                    if horizontal:
                        scene.add_box((c, DOOR_HEIGHT + top / 2, -line), (DOOR_WIDTH, top, WALL_THICK), WALL)
                    else:
                        scene.add_box((line, DOOR_HEIGHT + top / 2, -c), (WALL_THICK, top, DOOR_WIDTH), WALL)
    for g in world.gates:
        if (g.x, g.y) == open_door:
            continue
        ra, rb = (next(r for r in world.rooms if r.id == i) for i in g.rooms)
        vertical_wall = not (ra.x0 <= g.x <= ra.x1) or not (rb.x0 <= g.x <= rb.x1)
        size = (
            (WALL_THICK * 0.6, DOOR_HEIGHT, DOOR_WIDTH)
            if vertical_wall
            else (DOOR_WIDTH, DOOR_HEIGHT, WALL_THICK * 0.6)
        )
        scene.add_box((g.x, DOOR_HEIGHT / 2, -g.y), size, DOOR_COLORS.get(g.name, (120, 60, 160)))
        knob = (0.0, 0.0, 0.25) if vertical_wall else (0.25, 0.0, 0.0)
        for side in (-1, 1):
            off = (side * 0.06, 0.0, 0.0) if vertical_wall else (0.0, 0.0, side * 0.06)
            scene.add_mesh(
                "sphere",
                gl3d.compose(
                    gl3d.translate(g.x + knob[0] + off[0], 0.62, -g.y + knob[2] + off[2]), gl3d.scale(0.07)
                ),
                GOLD,
            )
    return scene


@lru_cache(maxsize=64)
def _backdrop(key: str, world_json: str, open_door: tuple[int, int] | None) -> gl3d.Scene:
    return _walls(World.model_validate_json(world_json), open_door)


def view_camera(pose: Pose) -> gl3d.Camera:
    fx, fy = UNIT[pose.facing]
    eye = (float(pose.x), EYE_HEIGHT, float(-pose.y))
    target = (pose.x + fx, EYE_HEIGHT - 0.12, -(pose.y + fy))
    fov_y = math.degrees(2 * math.atan(math.tan(math.radians(45)) / ASPECT))
    return gl3d.Camera(eye, target, fov_y=fov_y, near=0.05, far=60.0)


def render_view(world: World, pose: Pose, width: int = 384) -> bytes:
    """PNG of the first-person view from `pose` (90° horizontal field of view)."""
    height = round(width / ASPECT)
    door = next(((g.x, g.y) for g in world.gates if (g.x, g.y) == (pose.x, pose.y)), None)
    world_json = world.model_dump_json()
    scene = gl3d.Scene(background=SKY)
    scene.set_backdrop(_backdrop(_world_key(world), world_json, door), (_world_key(world), door))
    for k, o in enumerate(world.objects, start=1):
        if (o.x, o.y) != (pose.x, pose.y):
            add_model(scene, o.name, o.x, o.y, o.facing or "south", k)
    return gl3d.encode_png(scene.render_rgb(width, height, view_camera(pose)))


# The example view of the vision prompt: four cylinders around an agent at the origin facing north,
# as (colour name, rgb, distance, egocentric angle in degrees, height); the red one is taller so
# that it shows above the blue one in front of it.
EXAMPLE_CYLINDERS: tuple[tuple[str, RGB, float, float, float], ...] = (
    ("blue", (40, 80, 200), 1.0, 0.0, 0.45),
    ("red", (200, 40, 40), 2.0, 0.0, 1.0),
    ("yellow", (230, 200, 40), 2.0, -45.0, 0.6),
    ("green", (40, 160, 70), 3.0, 22.5, 0.6),
)


@lru_cache(maxsize=4)
def render_example(width: int = 384) -> bytes:
    """The example observation: the cylinders of `EXAMPLE_CYLINDERS` in an empty room."""
    room = World(width=9, height=9, rooms=[{"id": 0, "x0": -3, "y0": -2, "x1": 3, "y1": 4}], objects=[])
    scene = gl3d.Scene(background=SKY)
    scene.set_backdrop(_backdrop(_world_key(room), room.model_dump_json(), None), (_world_key(room), None))
    for _, color, dist, angle, height in EXAMPLE_CYLINDERS:
        x, y = dist * math.sin(math.radians(angle)), dist * math.cos(math.radians(angle))
        place = gl3d.compose(gl3d.translate(x, height / 2, -y), gl3d.scale(0.26, height, 0.26))
        scene.add_mesh("cylinder", place, color)
    return gl3d.encode_png(scene.render_rgb(width, round(width / ASPECT), view_camera(Pose(0, 0, "north"))))


TILE = (300, 190)


def _tile(name: str, has_facing: bool) -> Image.Image:
    scene = gl3d.Scene(background=(250, 250, 250))
    scene.add_box((0, -0.02, 0), (3.0, 0.04, 1.6), (225, 225, 225))
    if has_facing:
        add_model(scene, name, -0.6, 0.0, "south")  # front towards the camera
        add_model(scene, name, 0.6, 0.0, "west")  # front towards the left of the image
        xs = (-1.1, 1.1)
    else:
        add_model(scene, name, 0.0, 0.0, "south")
        xs = (-0.55, 0.55)
    pts = [(x, y, z) for x in xs for y in (0.0, 1.3) for z in (-0.5, 0.5)]
    cam = gl3d.fit_camera(pts, pitch=18.0, yaw=0.0, fov_y=30.0, aspect=TILE[0] / TILE[1], fill=0.86)
    return scene.render_image(TILE[0], TILE[1], cam)


def render_legend(world: World) -> bytes:
    """The object legend: one numbered tile per object of the world, in the scene's object order
    (the numbered object list the agent is given, as the authors' legend is numbered)."""
    objs = list(world.objects)
    cols = 3
    rows = math.ceil(len(objs) / cols)
    sheet = Image.new("RGB", (cols * TILE[0], rows * TILE[1]), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    font = get_font(20)
    for k, o in enumerate(objs):
        x, y = (k % cols) * TILE[0], (k // cols) * TILE[1]
        sheet.paste(_tile(o.name, o.facing is not None), (x, y))
        draw.rectangle((x, y, x + TILE[0] - 1, y + TILE[1] - 1), outline=(160, 160, 160))
        # the label sits on its own light plate, so a tall dark model (a wardrobe) cannot hide it
        label = f"{k + 1}. {o.name}"
        left, top, right, bottom = draw.textbbox((x + 8, y + 6), label, font=font)
        draw.rectangle(
            (left - 4, top - 3, right + 4, bottom + 3), fill=(250, 250, 250), outline=(160, 160, 160)
        )
        draw.text((x + 8, y + 6), label, font=font, fill=(20, 20, 20))
    return gl3d.encode_png(sheet)
