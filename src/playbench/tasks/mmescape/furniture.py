"""Furniture, props and wall decorations as primitives (boxes, vertical cylinders, spheres).

Every piece is described in its own frame: centred on its footprint, standing on y = 0, its
front facing +z. A piece is placed with a quarter-turn rotation (0, 90, 180, 270 degrees), so
boxes stay axis-aligned in the world and the same primitives can be drawn by the renderer and
intersected exactly by the grab ray and the collision test (`geometry.py`).

`SURFACES` lists where small things can be put on a piece (a rectangle of its frame at a
height, with the free height above it), which is how keys, notes and clutter end up on beds,
desks and shelves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Prim:
    """One primitive in a piece's frame: `center` and full `size` in metres."""

    shape: str  # "box", "cylinder" (vertical axis) or "sphere"
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    color: RGB


@dataclass(frozen=True)
class Surface:
    """A rectangle (x0, z0, x1, z1) of the piece's frame at height `y`, with `clearance` above."""

    rect: tuple[float, float, float, float]
    y: float
    clearance: float


@dataclass(frozen=True)
class Kind:
    name: str  # how the feedback and README call it
    width: float  # along x of its frame
    depth: float  # along z of its frame (front at +depth/2)
    height: float
    wall: bool  # stands with its back against a wall
    solid: bool = True  # blocks walking
    mounted: bool = False  # hangs on a wall (no footprint on the floor)


def box(cx: float, y0: float, cz: float, sx: float, sy: float, sz: float, color: RGB) -> Prim:
    """A box by the centre of its footprint, its bottom height and its size."""
    return Prim("box", (cx, y0 + sy / 2, cz), (sx, sy, sz), color)


def cyl(cx: float, y0: float, cz: float, diameter: float, height: float, color: RGB) -> Prim:
    return Prim("cylinder", (cx, y0 + height / 2, cz), (diameter, height, diameter), color)


def sphere(cx: float, cy: float, cz: float, diameter: float, color: RGB) -> Prim:
    return Prim("sphere", (cx, cy, cz), (diameter, diameter, diameter), color)


def shade(color: RGB, factor: float) -> RGB:
    return tuple(max(0, min(255, round(c * factor))) for c in color)  # type: ignore[return-value]


KINDS: dict[str, Kind] = {
    "bed": Kind("bed", 1.6, 2.1, 1.0, wall=True),
    "nightstand": Kind("nightstand", 0.5, 0.42, 0.55, wall=True),
    "wardrobe": Kind("wardrobe", 1.2, 0.6, 2.0, wall=True),
    "dresser": Kind("dresser", 1.2, 0.5, 0.85, wall=True),
    "desk": Kind("desk", 1.4, 0.7, 0.75, wall=True),
    "chair": Kind("chair", 0.46, 0.46, 0.95, wall=False),
    "bookshelf": Kind("bookshelf", 1.0, 0.36, 1.9, wall=True),
    "sofa": Kind("sofa", 2.0, 0.9, 0.85, wall=True),
    "coffee_table": Kind("coffee table", 1.1, 0.6, 0.42, wall=False),
    "tv_stand": Kind("TV stand", 1.4, 0.45, 1.3, wall=True),
    "armchair": Kind("armchair", 0.85, 0.85, 0.85, wall=True),
    "side_table": Kind("side table", 0.5, 0.5, 0.6, wall=True),
    "floor_lamp": Kind("floor lamp", 0.4, 0.4, 1.7, wall=True),
    "plant": Kind("potted plant", 0.55, 0.55, 1.15, wall=True),
    "cabinet": Kind("cabinet", 0.9, 0.45, 0.9, wall=True),
    "file_cabinet": Kind("filing cabinet", 0.5, 0.6, 1.3, wall=True),
    "dining_table": Kind("dining table", 1.6, 0.9, 0.75, wall=False),
    "counter": Kind("kitchen counter", 2.0, 0.6, 0.92, wall=True),
    "fridge": Kind("fridge", 0.75, 0.7, 1.8, wall=True),
    "rug": Kind("rug", 2.2, 1.5, 0.01, wall=False, solid=False),
    "painting": Kind("painting", 0.9, 0.04, 0.65, wall=True, solid=False, mounted=True),
    "window": Kind("window", 1.3, 0.05, 1.1, wall=True, solid=False, mounted=True),
    "whiteboard": Kind("whiteboard", 1.5, 0.04, 0.9, wall=True, solid=False, mounted=True),
    # kinds of the paper's scenes (their furniture is drawn as these, stretched to each object's size)
    "toilet": Kind("toilet", 0.4, 0.65, 0.8, wall=True),
    "bathtub": Kind("bathtub", 1.7, 0.75, 0.55, wall=True),
    "basin": Kind("basin", 0.55, 0.47, 0.2, wall=True),
    "sink": Kind("washbasin cabinet", 0.8, 0.48, 0.85, wall=True),
    "shower": Kind("shower", 0.9, 0.9, 2.2, wall=True),
    "washer": Kind("washing machine", 0.6, 0.5, 0.85, wall=True),
    "oven": Kind("oven", 0.6, 0.6, 0.9, wall=True),
    "dishwasher": Kind("dishwasher", 0.6, 0.56, 0.75, wall=True),
    "hob": Kind("hob", 0.56, 0.5, 0.04, wall=True),
    "hood": Kind("cooker hood", 0.6, 0.43, 0.64, wall=True),
    "microwave": Kind("microwave", 0.53, 0.31, 0.3, wall=True),
    "tv": Kind("TV", 1.0, 0.15, 0.7, wall=True),
    "fireplace": Kind("fireplace", 1.1, 0.52, 2.85, wall=True),
    "stool": Kind("bar stool", 0.44, 0.44, 1.04, wall=False),
    "office_chair": Kind("office chair", 0.64, 0.64, 1.1, wall=False),
    "round_table": Kind("table", 0.97, 0.97, 0.8, wall=False),
    "safe": Kind("safe", 0.5, 0.5, 0.4, wall=True),
    "bin": Kind("bin", 0.3, 0.3, 0.38, wall=True),
    "christmas_tree": Kind("Christmas tree", 1.2, 1.1, 2.3, wall=True),
    "lamp": Kind("lamp", 0.3, 0.3, 0.5, wall=True),
    "object": Kind("object", 0.5, 0.5, 0.5, wall=True),  # unknown kinds: a plain box of the object's size
}

WOODS: tuple[RGB, ...] = ((133, 94, 62), (164, 120, 78), (96, 68, 48), (188, 152, 110), (120, 110, 100))
FABRICS: tuple[RGB, ...] = ((70, 96, 140), (150, 60, 60), (80, 120, 90), (170, 150, 110), (110, 90, 130))
BOOKS: tuple[RGB, ...] = (
    (160, 40, 40),
    (40, 80, 150),
    (40, 120, 70),
    (200, 160, 60),
    (90, 60, 120),
    (60, 60, 60),
)
PAINT: tuple[RGB, ...] = ((200, 120, 60), (70, 130, 170), (140, 170, 90), (190, 80, 100), (230, 200, 90))
METAL = (120, 124, 130)
WHITE = (236, 234, 228)
DARK = (40, 42, 46)


def pieces(kind: str, variant: int, surface: float | None = None) -> list[Prim]:
    """The primitives of a piece of furniture; `variant` picks colours and clutter deterministically.
    `surface` (in the kind's own units) is the height of the surface things lie on where an original
    object says so: a bed's mattress, a sofa's seat, the inside of a bathtub, a basin or a washstand."""
    rng = random.Random(variant)
    wood = WOODS[rng.randrange(len(WOODS))]
    fabric = FABRICS[rng.randrange(len(FABRICS))]
    k = KINDS[kind]
    w, d = k.width, k.depth
    out: list[Prim] = []
    if kind == "bed" and surface is not None:
        top = surface - 0.02  # the mattress, then a thin blanket whose top is the surface
        out += [
            box(0, 0, 0.0, w, top * 0.6, d, wood),
            box(0, top * 0.6, 0.02, w - 0.08, top * 0.4, d - 0.12, WHITE),
            box(0, top, 0.3, w - 0.04, 0.02, d - 0.7, fabric),
            box(0, 0, -d / 2 + 0.04, w, 1.0, 0.08, shade(wood, 0.85)),
        ]
    elif kind == "bed":
        out += [
            box(0, 0, 0.0, w, 0.32, d, wood),
            box(0, 0.32, 0.02, w - 0.08, 0.2, d - 0.12, WHITE),
            box(0, 0.52, 0.3, w - 0.04, 0.07, d - 0.7, fabric),
            box(-0.36, 0.52, -d / 2 + 0.32, 0.6, 0.13, 0.38, WHITE),
            box(0.36, 0.52, -d / 2 + 0.32, 0.6, 0.13, 0.38, WHITE),
            box(0, 0, -d / 2 + 0.04, w, 1.0, 0.08, shade(wood, 0.85)),
        ]
    elif kind == "nightstand":
        out += [
            box(0, 0, 0, w, 0.55, d, wood),
            box(0, 0.3, d / 2 + 0.005, w - 0.06, 0.18, 0.01, shade(wood, 0.8)),
            box(0, 0.37, d / 2 + 0.015, 0.1, 0.03, 0.02, METAL),
            cyl(-0.12, 0.55, -0.08, 0.12, 0.03, METAL),
            cyl(-0.12, 0.58, -0.08, 0.025, 0.22, METAL),
            cyl(-0.12, 0.78, -0.08, 0.22, 0.16, (238, 226, 190)),
        ]
    elif kind == "wardrobe":
        out += [box(0, 0, 0, w, 2.0, d, wood)]
        for sx in (-1, 1):
            out.append(box(sx * w / 4, 0.06, d / 2 + 0.006, w / 2 - 0.03, 1.88, 0.012, shade(wood, 1.1)))
            out.append(box(sx * 0.06, 0.95, d / 2 + 0.02, 0.025, 0.22, 0.025, METAL))
    elif kind == "dresser":
        out += [box(0, 0, 0, w, 0.85, d, wood)]
        for level in range(3):
            y0 = 0.08 + level * 0.25
            out.append(box(0, y0, d / 2 + 0.005, w - 0.06, 0.21, 0.01, shade(wood, 1.12)))
            out.append(box(0, y0 + 0.09, d / 2 + 0.015, 0.18, 0.03, 0.02, METAL))
    elif kind == "desk":
        out.append(box(0, 0.71, 0, w, 0.04, d, wood))
        for sx in (-1, 1):
            for sz in (-1, 1):
                out.append(
                    box(sx * (w / 2 - 0.05), 0, sz * (d / 2 - 0.05), 0.05, 0.71, 0.05, shade(wood, 0.8))
                )
        out.append(box(0, 0.3, -d / 2 + 0.04, w - 0.12, 0.4, 0.02, shade(wood, 0.85)))
        if variant % 2 == 0:  # a computer screen at the back of every other desk
            out.append(box(0.25, 0.75, -d / 2 + 0.14, 0.22, 0.02, 0.16, DARK))
            out.append(box(0.25, 0.77, -d / 2 + 0.14, 0.04, 0.12, 0.04, DARK))
            out.append(box(0.25, 0.89, -d / 2 + 0.14, 0.56, 0.34, 0.03, DARK))
            out.append(box(0.25, 0.91, -d / 2 + 0.156, 0.52, 0.3, 0.002, (60, 90, 130)))
    elif kind == "chair":
        out.append(box(0, 0.43, 0, w, 0.05, d, wood))
        for sx in (-1, 1):
            for sz in (-1, 1):
                out.append(
                    box(sx * (w / 2 - 0.03), 0, sz * (d / 2 - 0.03), 0.04, 0.43, 0.04, shade(wood, 0.8))
                )
        out.append(box(0, 0.48, -d / 2 + 0.025, w, 0.47, 0.05, shade(wood, 0.9)))
    elif kind == "bookshelf":
        out.append(box(0, 0, -d / 2 + 0.01, w, 1.9, 0.02, shade(wood, 0.8)))
        for sx in (-1, 1):
            out.append(box(sx * (w / 2 - 0.015), 0, 0, 0.03, 1.9, d, wood))
        for y in (0.0, 0.45, 0.9, 1.35, 1.87):
            out.append(box(0, y, 0, w - 0.06, 0.03, d, wood))
        for y in (0.03, 0.48, 1.38):  # books fill these shelves; the 0.9 one keeps room for props
            x = -w / 2 + 0.04
            while x < w / 2 - 0.1:
                bw = rng.uniform(0.03, 0.06)
                bh = rng.uniform(0.2, 0.34)
                out.append(box(x + bw / 2, y, 0.01, bw, bh, d - 0.1, BOOKS[rng.randrange(len(BOOKS))]))
                x += bw + 0.004
        x = -w / 2 + 0.04
        while x < -0.1:
            bw = rng.uniform(0.03, 0.06)
            out.append(
                box(
                    x + bw / 2,
                    0.93,
                    0.01,
                    bw,
                    rng.uniform(0.2, 0.32),
                    d - 0.1,
                    BOOKS[rng.randrange(len(BOOKS))],
                )
            )
            x += bw + 0.004
    elif kind == "sofa":
        seat = 0.52 if surface is None else surface
        out += [
            box(0, 0, 0.05, w, seat - 0.12, d - 0.1, fabric),
            box(0, seat - 0.12, 0.08, w - 0.34, 0.12, d - 0.3, shade(fabric, 1.12)),
            box(0, 0.4, -d / 2 + 0.12, w, 0.45, 0.24, shade(fabric, 0.9)),
            box(-w / 2 + 0.08, 0.4, 0.05, 0.16, 0.22, d - 0.1, shade(fabric, 0.95)),
            box(w / 2 - 0.08, 0.4, 0.05, 0.16, 0.22, d - 0.1, shade(fabric, 0.95)),
        ]
    elif kind == "coffee_table":
        out.append(box(0, 0.38, 0, w, 0.04, d, wood))
        for sx in (-1, 1):
            for sz in (-1, 1):
                out.append(
                    box(sx * (w / 2 - 0.05), 0, sz * (d / 2 - 0.05), 0.05, 0.38, 0.05, shade(wood, 0.8))
                )
    elif kind == "tv_stand":
        out += [
            box(0, 0, 0, w, 0.5, d, wood),
            box(0, 0.5, -0.1, 0.3, 0.03, 0.15, DARK),
            box(0, 0.53, -0.1, 0.06, 0.1, 0.04, DARK),
            box(0, 0.6, -0.1, 1.2, 0.68, 0.05, DARK),
            box(0, 0.63, -0.074, 1.14, 0.62, 0.002, (30, 40, 60)),
        ]
    elif kind == "armchair":
        out += [
            box(0, 0, 0.05, w, 0.4, d - 0.1, fabric),
            box(0, 0.4, 0.08, w - 0.3, 0.1, d - 0.3, shade(fabric, 1.12)),
            box(0, 0.4, -d / 2 + 0.1, w, 0.45, 0.2, shade(fabric, 0.9)),
            box(-w / 2 + 0.07, 0.4, 0.05, 0.14, 0.2, d - 0.1, shade(fabric, 0.95)),
            box(w / 2 - 0.07, 0.4, 0.05, 0.14, 0.2, d - 0.1, shade(fabric, 0.95)),
        ]
    elif kind == "side_table":
        out += [
            cyl(0, 0, 0, 0.34, 0.03, wood),
            cyl(0, 0.03, 0, 0.06, 0.53, shade(wood, 0.8)),
            cyl(0, 0.56, 0, 0.5, 0.04, wood),
        ]
    elif kind == "floor_lamp":
        out += [
            cyl(0, 0, 0, 0.3, 0.03, METAL),
            cyl(0, 0.03, 0, 0.035, 1.35, METAL),
            cyl(0, 1.35, 0, 0.4, 0.32, (240, 228, 196)),
        ]
    elif kind == "plant":
        out += [
            cyl(0, 0, 0, 0.38, 0.4, (170, 90, 60)),
            sphere(0, 0.78, 0, 0.55, (60, 130, 60)),
            sphere(0.1, 1.0, 0.05, 0.32, (74, 150, 70)),
        ]
    elif kind == "cabinet":
        out += [box(0, 0, 0, w, 0.9, d, wood)]
        for sx in (-1, 1):
            out.append(box(sx * w / 4, 0.06, d / 2 + 0.005, w / 2 - 0.03, 0.78, 0.01, shade(wood, 1.1)))
            out.append(box(sx * 0.05, 0.5, d / 2 + 0.015, 0.02, 0.14, 0.02, METAL))
    elif kind == "file_cabinet":
        out += [box(0, 0, 0, w, 1.3, d, (150, 154, 160))]
        for level in range(4):
            y0 = 0.04 + level * 0.315
            out.append(box(0, y0, d / 2 + 0.005, w - 0.05, 0.29, 0.01, (172, 176, 182)))
            out.append(box(0, y0 + 0.2, d / 2 + 0.015, 0.14, 0.025, 0.02, DARK))
    elif kind == "dining_table":
        out.append(box(0, 0.71, 0, w, 0.04, d, wood))
        for sx in (-1, 1):
            for sz in (-1, 1):
                out.append(
                    box(sx * (w / 2 - 0.07), 0, sz * (d / 2 - 0.07), 0.06, 0.71, 0.06, shade(wood, 0.8))
                )
    elif kind == "counter":
        out += [
            box(0, 0, 0, w, 0.88, d - 0.02, (226, 222, 212)),
            box(0, 0.88, 0, w + 0.02, 0.04, d, (90, 92, 96)),
        ]
        for i in range(4):
            x = -w / 2 + w / 8 + i * w / 4
            out.append(box(x, 0.08, d / 2 - 0.005, w / 4 - 0.03, 0.74, 0.01, (238, 234, 226)))
            out.append(box(x, 0.7, d / 2 + 0.008, 0.14, 0.02, 0.02, METAL))
    elif kind == "fridge":
        out += [
            box(0, 0, 0, w, 1.8, d, (228, 230, 232)),
            box(0, 1.15, d / 2 + 0.004, w - 0.02, 0.012, 0.008, (170, 172, 176)),
            box(-w / 2 + 0.08, 1.25, d / 2 + 0.02, 0.025, 0.35, 0.03, METAL),
            box(-w / 2 + 0.08, 0.6, d / 2 + 0.02, 0.025, 0.35, 0.03, METAL),
        ]
    elif kind == "rug":
        out.append(box(0, 0, 0, w, 0.01, d, shade(fabric, 1.05)))
        out.append(box(0, 0.01, 0, w - 0.3, 0.002, d - 0.3, shade(fabric, 0.8)))
    elif kind == "painting":
        out += [
            box(0, 1.3, 0, w, 0.65, 0.04, (70, 50, 30)),
            box(0, 1.35, 0.021, w - 0.1, 0.55, 0.002, PAINT[rng.randrange(len(PAINT))]),
            box(-0.1, 1.42, 0.023, 0.3, 0.25, 0.002, PAINT[rng.randrange(len(PAINT))]),
        ]
    elif kind == "window":
        out += [
            box(0, 0.95, 0, w, 1.1, 0.05, WHITE),
            box(0, 1.0, 0.026, w - 0.1, 1.0, 0.002, (168, 206, 236)),
            box(0, 1.0, 0.03, 0.04, 1.0, 0.004, WHITE),
        ]
    elif kind == "whiteboard":
        out += [
            box(0, 1.0, 0, w, 0.9, 0.04, (180, 182, 186)),
            box(0, 1.03, 0.021, w - 0.06, 0.84, 0.002, (250, 250, 248)),
        ]
    else:
        out += _paper_pieces(kind, w, d, k.height, rng, wood, fabric, surface)
    return out


WHITE_CERAMIC = (238, 238, 234)
STEEL = (176, 180, 186)
GLASS = (170, 200, 214)


def _paper_pieces(
    kind: str, w: float, d: float, h: float, rng: random.Random, wood: RGB, fabric: RGB, surface: float | None
) -> list[Prim]:
    """The kinds the paper's scenes add (bathroom, kitchen and office pieces): simple shapes at the
    kind's size, each recognisable by its outline and colour."""
    if kind == "toilet":
        return [
            box(0, 0, 0.05, 0.34, 0.4, 0.5, WHITE_CERAMIC),
            cyl(0, 0.4, 0.1, 0.38, 0.04, WHITE_CERAMIC),
            box(0, 0.4, -d / 2 + 0.1, w, 0.4, 0.18, WHITE_CERAMIC),
        ]
    if kind in ("bathtub", "basin"):
        # hollow: a bottom up to 70 % (a basin's 15 %) of the height and a rim, so things lie inside
        floor = surface if surface is not None else h * (0.7 if kind == "bathtub" else 0.15)
        rim = 0.06 if kind == "bathtub" else 0.04
        inside = (200, 214, 222)
        return [
            box(0, 0, 0, w, floor, d, WHITE_CERAMIC),
            box(0, floor - 0.001, 0, w - 2 * rim, 0.002, d - 2 * rim, inside),
            box(0, floor, -d / 2 + rim / 2, w, h - floor, rim, WHITE_CERAMIC),
            box(0, floor, d / 2 - rim / 2, w, h - floor, rim, WHITE_CERAMIC),
            box(-w / 2 + rim / 2, floor, 0, rim, h - floor, d - 2 * rim, WHITE_CERAMIC),
            box(w / 2 - rim / 2, floor, 0, rim, h - floor, d - 2 * rim, WHITE_CERAMIC),
        ]
    if kind == "sink":
        if surface is None or surface > h - 0.03:
            return [
                box(0, 0, 0, w, h - 0.06, d, shade(wood, 1.1)),
                box(0, h - 0.06, 0, w, 0.06, d, WHITE_CERAMIC),
                box(0, h - 0.055, 0.02, w * 0.55, 0.06, d * 0.55, (205, 212, 216)),
                cyl(0, h, -d / 2 + 0.07, 0.03, 0.16, METAL),
            ]
        # a washstand whose basin is sunk to the surface: the cabinet, the basin's floor, its rim
        rim = 0.05
        return [
            box(0, 0, 0, w, surface, d, shade(wood, 1.1)),
            box(0, surface - 0.001, 0, w - 2 * rim, 0.002, d - 2 * rim, (205, 212, 216)),
            box(0, surface, -d / 2 + rim / 2, w, h - surface, rim, WHITE_CERAMIC),
            box(0, surface, d / 2 - rim / 2, w, h - surface, rim, WHITE_CERAMIC),
            box(-w / 2 + rim / 2, surface, 0, rim, h - surface, d - 2 * rim, WHITE_CERAMIC),
            box(w / 2 - rim / 2, surface, 0, rim, h - surface, d - 2 * rim, WHITE_CERAMIC),
            cyl(0, h, -d / 2 + 0.03, 0.03, 0.14, METAL),
        ]
    if kind == "shower":
        return [
            box(0, 0, 0, w, 0.08, d, WHITE_CERAMIC),
            box(-w / 2 + 0.01, 0.08, 0, 0.02, h - 0.1, d, GLASS),
            box(w / 2 - 0.01, 0.08, 0, 0.02, h - 0.1, d, GLASS),
            box(0, 0.08, d / 2 - 0.01, w, h - 0.1, 0.02, GLASS),
            cyl(0, h - 0.3, -d / 2 + 0.15, 0.2, 0.03, METAL),
        ]
    if kind == "washer":
        return [
            box(0, 0, 0, w, h, d, WHITE_CERAMIC),
            box(0, h * 0.2, d / 2 + 0.004, w * 0.55, w * 0.55, 0.008, DARK),  # the round door, drawn square
            box(0, h - 0.12, d / 2 + 0.005, w - 0.06, 0.08, 0.01, (200, 200, 204)),
        ]
    if kind in ("oven", "dishwasher"):
        out = [
            box(0, 0, 0, w, h, d, STEEL),
            box(0, 0.1, d / 2 + 0.005, w - 0.06, h * 0.55, 0.01, DARK),
            box(0, h * 0.7, d / 2 + 0.015, w - 0.16, 0.025, 0.02, METAL),
        ]
        if kind == "oven":
            out += [cyl(sx * 0.14, h, sz * 0.14, 0.18, 0.01, DARK) for sx in (-1, 1) for sz in (-1, 1)]
        return out
    if kind == "hob":
        return [box(0, 0, 0, w, h, d, DARK)] + [
            cyl(sx * 0.13, h, sz * 0.12, 0.16, 0.004, (70, 70, 74)) for sx in (-1, 1) for sz in (-1, 1)
        ]
    if kind == "hood":
        return [box(0, 0, 0, w, h * 0.3, d, STEEL), box(0, h * 0.3, -d / 4, w * 0.4, h * 0.7, d / 2, STEEL)]
    if kind == "microwave":
        return [
            box(0, 0, 0, w, h, d, (60, 62, 66)),
            box(-0.06, 0.04, d / 2 + 0.003, w * 0.6, h * 0.7, 0.006, (30, 34, 40)),
        ]
    if kind == "tv":
        return [
            box(0, 0, 0, w * 0.3, 0.02, d, DARK),
            box(0, 0.02, 0, 0.06, 0.08, 0.04, DARK),
            box(0, 0.1, 0, w, h - 0.1, 0.05, DARK),
            box(0, 0.12, 0.026, w - 0.04, h - 0.14, 0.002, (30, 40, 60)),
        ]
    if kind == "fireplace":
        brick = (150, 84, 64)
        return [
            box(0, 0, 0, w, 1.0, d, brick),
            box(0, 0.12, d / 2 - 0.01, w * 0.6, 0.6, 0.03, (30, 22, 20)),
            box(0, 1.0, 0, w + 0.1, 0.08, d + 0.05, WHITE),
            box(0, 1.08, -d / 4, w * 0.7, h - 1.08, d / 2, shade(brick, 0.9)),
        ]
    if kind == "stool":
        return [
            cyl(0, 0, 0, 0.36, 0.03, METAL),
            cyl(0, 0.03, 0, 0.05, h - 0.1, METAL),
            cyl(0, h - 0.07, 0, w, 0.07, fabric),
        ]
    if kind == "office_chair":
        return [
            cyl(0, 0, 0, w * 0.9, 0.05, DARK),
            cyl(0, 0.05, 0, 0.06, 0.4, METAL),
            box(0, 0.45, 0.02, w * 0.8, 0.08, d * 0.8, fabric),
            box(0, 0.53, -d / 2 + 0.08, w * 0.75, h - 0.53, 0.08, shade(fabric, 0.9)),
        ]
    if kind == "round_table":
        return [
            cyl(0, h - 0.04, 0, w, 0.04, shade(WHITE, 0.98)),
            cyl(0, 0.03, 0, 0.08, h - 0.07, METAL),
            cyl(0, 0, 0, w * 0.45, 0.03, METAL),
        ]
    if kind == "safe":
        return [box(0, 0, 0, w, h, d, (70, 74, 80)), cyl(0.08, h * 0.5, d / 2, 0.1, 0.02, METAL)]
    if kind == "bin":
        return [cyl(0, 0, 0, w, h, (120, 124, 130))]
    if kind == "christmas_tree":
        return [
            cyl(0, 0, 0, 0.3, 0.3, (120, 70, 40)),
            cyl(0, 0.3, 0, w, h * 0.35, (40, 110, 60)),
            cyl(0, 0.3 + h * 0.3, 0, w * 0.7, h * 0.3, (50, 125, 70)),
            cyl(0, 0.3 + h * 0.55, 0, w * 0.4, h * 0.3, (60, 140, 80)),
        ]
    if kind == "lamp":
        return [
            cyl(0, 0, 0, w * 0.5, 0.03, METAL),
            cyl(0, 0.03, 0, 0.03, h * 0.55, METAL),
            cyl(0, h * 0.55, 0, w, h * 0.45, (240, 228, 196)),
        ]
    if kind == "object":
        return [box(0, 0, 0, w, h, d, PAINT[rng.randrange(len(PAINT))])]
    raise ValueError(f"unknown furniture kind {kind!r}")


def surfaces(kind: str) -> list[Surface]:
    """Where small things may be put on a piece (in its frame)."""
    k = KINDS[kind]
    w, d = k.width, k.depth
    m = 0.06
    table = {
        "bed": [Surface((-w / 2 + 0.15, -0.05, w / 2 - 0.15, d / 2 - 0.15), 0.59, 1.0)],
        "nightstand": [Surface((0.0, -d / 2 + m, w / 2 - m, d / 2 - m), 0.55, 0.6)],
        "dresser": [Surface((-w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m), 0.85, 0.8)],
        "desk": [Surface((-w / 2 + m, -d / 2 + 0.05, w / 2 - m, d / 2 - m), 0.75, 0.8)],
        "bookshelf": [Surface((0.0, -d / 2 + 0.05, w / 2 - 0.06, d / 2 - 0.04), 0.93, 0.4)],
        "sofa": [Surface((-w / 2 + 0.25, -0.1, w / 2 - 0.25, d / 2 - 0.1), 0.52, 1.0)],
        "coffee_table": [Surface((-w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m), 0.42, 1.0)],
        "tv_stand": [Surface((-w / 2 + m, 0.0, w / 2 - m, d / 2 - 0.03), 0.5, 0.5)],
        "armchair": [Surface((-0.25, -0.15, 0.25, d / 2 - 0.12), 0.5, 1.0)],
        "side_table": [Surface((-0.16, -0.16, 0.16, 0.16), 0.6, 1.0)],
        "cabinet": [Surface((-w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m), 0.9, 0.8)],
        "file_cabinet": [Surface((-w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m), 1.3, 0.6)],
        "dining_table": [Surface((-w / 2 + 0.1, -d / 2 + 0.1, w / 2 - 0.1, d / 2 - 0.1), 0.75, 1.0)],
        "counter": [Surface((-w / 2 + m, -d / 2 + m, w / 2 - m, d / 2 - m), 0.92, 0.7)],
    }
    return table.get(kind, [])


# --- small things: chain props and clutter -------------------------------------------------

PROP_SIZE: dict[str, tuple[float, float, float]] = {  # footprint w, d and height
    "key": (0.24, 0.1, 0.03),
    "paper": (0.3, 0.4, 0.006),
    "box": (0.46, 0.34, 0.3),
}
GOLD = (222, 178, 40)
PAPER_WHITE = (250, 248, 236)
CHEST = (142, 82, 40)


def prop_pieces(item_type: str, opened: bool = False) -> list[Prim]:
    """A chain prop in its frame (front towards +z). A key is drawn large and golden so it can be
    seen from a few metres in a 512-pixel view; a note is a white sheet; a box is a chest whose lid
    stands open once unlocked."""
    if item_type == "key":
        return [
            box(0.03, 0.0, 0, 0.17, 0.025, 0.03, GOLD),
            cyl(-0.08, 0.0, 0, 0.08, 0.03, GOLD),
            box(0.09, 0.0, 0.03, 0.025, 0.025, 0.04, GOLD),
            box(0.05, 0.0, 0.03, 0.025, 0.025, 0.035, GOLD),
        ]
    if item_type == "paper":
        return [box(0, 0, 0, 0.3, 0.006, 0.4, PAPER_WHITE)]
    if item_type == "box":
        w, d, h = PROP_SIZE["box"]
        base = [
            box(0, 0, 0, w, h * 0.7, d, CHEST),
            box(0, h * 0.15, d / 2 + 0.003, w + 0.01, 0.03, 0.006, shade(GOLD, 0.8)),
            box(0, h * 0.45, d / 2 + 0.006, 0.09, 0.1, 0.012, GOLD),
        ]
        if opened:  # the lid swung back against the rear edge, the inside showing dark
            base += [
                box(0, h * 0.7 - 0.005, 0, w - 0.04, 0.006, d - 0.04, (50, 30, 16)),
                box(0, h * 0.7, -d / 2 - 0.02, w, h * 0.5, 0.04, shade(CHEST, 1.1)),
            ]
        else:
            base.append(box(0, h * 0.7, 0, w, h * 0.3, d, shade(CHEST, 1.1)))
        return base
    raise ValueError(f"no shape for chain items of type {item_type!r}")


CLUTTER: dict[str, tuple[float, float, float]] = {
    "mug": (0.1, 0.1, 0.11),
    "vase": (0.14, 0.14, 0.3),
    "books": (0.22, 0.3, 0.12),
    "bowl": (0.22, 0.22, 0.07),
    "apple": (0.08, 0.08, 0.08),
    "candle": (0.07, 0.07, 0.18),
    "tray": (0.36, 0.26, 0.03),
    "globe": (0.24, 0.24, 0.34),
    # small things of the paper's scenes (drawn at each object's size)
    "bottle": (0.1, 0.1, 0.25),
    "ball": (0.25, 0.25, 0.25),
    "frame": (0.2, 0.06, 0.25),
    "laptop": (0.35, 0.3, 0.2),
    "fruit": (0.1, 0.1, 0.1),
    "item": (0.15, 0.15, 0.15),  # unknown small things: a plain box of the object's size
}
FOOD = ((230, 200, 60), (200, 40, 40), (120, 170, 60), (200, 120, 50), (150, 60, 110), (230, 220, 190))


def clutter_pieces(kind: str, variant: int) -> list[Prim]:
    rng = random.Random(variant)
    color = PAINT[rng.randrange(len(PAINT))]
    if kind == "mug":
        return [cyl(0, 0, 0, 0.09, 0.11, color), box(0.055, 0.03, 0, 0.03, 0.05, 0.015, color)]
    if kind == "vase":
        return [cyl(0, 0, 0, 0.14, 0.2, color), cyl(0, 0.2, 0, 0.07, 0.1, color)]
    if kind == "books":
        a, b = BOOKS[rng.randrange(len(BOOKS))], BOOKS[rng.randrange(len(BOOKS))]
        return [
            box(0, 0, 0, 0.2, 0.05, 0.28, a),
            box(0.01, 0.05, -0.01, 0.18, 0.04, 0.26, b),
            box(0, 0.09, 0, 0.19, 0.03, 0.27, color),
        ]
    if kind == "bowl":
        return [cyl(0, 0, 0, 0.22, 0.07, color), sphere(0.03, 0.08, 0.0, 0.07, (200, 40, 40))]
    if kind == "apple":
        return [sphere(0, 0.04, 0, 0.08, (190, 30, 30))]
    if kind == "candle":
        return [cyl(0, 0, 0, 0.07, 0.15, (245, 240, 220)), cyl(0, 0.15, 0, 0.01, 0.03, DARK)]
    if kind == "tray":
        return [box(0, 0, 0, 0.36, 0.03, 0.26, METAL), cyl(0.08, 0.03, 0, 0.07, 0.08, color)]
    if kind == "globe":
        return [
            cyl(0, 0, 0, 0.14, 0.04, DARK),
            cyl(0, 0.04, 0, 0.02, 0.06, DARK),
            sphere(0, 0.2, 0, 0.24, (70, 120, 180)),
        ]
    if kind == "bottle":
        return [cyl(0, 0, 0, 0.1, 0.17, color), cyl(0, 0.17, 0, 0.04, 0.08, color)]
    if kind == "ball":
        return [sphere(0, 0.125, 0, 0.25, (240, 240, 240))]
    if kind == "frame":
        return [box(0, 0, 0, 0.2, 0.25, 0.03, (70, 50, 30)), box(0, 0.02, 0.016, 0.16, 0.21, 0.002, color)]
    if kind == "laptop":
        return [box(0, 0, 0.05, 0.35, 0.02, 0.2, DARK), box(0, 0.02, -0.095, 0.35, 0.18, 0.01, DARK)]
    if kind == "fruit":
        return [sphere(0, 0.05, 0, 0.1, FOOD[rng.randrange(len(FOOD))])]
    if kind == "item":
        return [box(0, 0, 0, 0.15, 0.15, 0.15, color)]
    raise ValueError(f"unknown clutter kind {kind!r}")


# --- scene types ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SceneType:
    name: str
    walls: tuple[RGB, ...]
    floors: tuple[RGB, ...]
    anchors: tuple[str, ...]  # always placed, in this order
    extras: tuple[str, ...]  # a random subset of these follows
    decorations: tuple[str, ...]  # wall-mounted
    clutter: tuple[str, ...]


SCENES: dict[str, SceneType] = {
    "bedroom": SceneType(
        "bedroom",
        ((214, 200, 182), (196, 210, 214), (222, 212, 222)),
        ((150, 110, 78), (172, 140, 104)),
        ("bed", "wardrobe"),
        ("dresser", "desk", "bookshelf", "plant", "floor_lamp", "armchair", "side_table", "cabinet", "rug"),
        ("painting", "window", "painting"),
        ("books", "candle", "mug", "vase", "globe"),
    ),
    "living room": SceneType(
        "living room",
        ((220, 214, 196), (205, 196, 180), (190, 204, 196)),
        ((128, 96, 70), (160, 130, 100)),
        ("sofa", "tv_stand"),
        (
            "armchair",
            "armchair",
            "bookshelf",
            "side_table",
            "plant",
            "floor_lamp",
            "cabinet",
            "dining_table",
            "rug",
        ),
        ("painting", "window", "painting"),
        ("vase", "bowl", "books", "candle", "tray", "mug"),
    ),
    "office": SceneType(
        "office",
        ((226, 228, 230), (206, 212, 218)),
        ((110, 114, 120), (140, 136, 128)),
        ("desk", "desk", "file_cabinet"),
        (
            "bookshelf",
            "bookshelf",
            "plant",
            "cabinet",
            "side_table",
            "file_cabinet",
            "armchair",
            "dining_table",
        ),
        ("whiteboard", "window", "painting"),
        ("mug", "books", "tray", "globe"),
    ),
    "study": SceneType(
        "study",
        ((196, 176, 150), (170, 160, 140), (200, 190, 170)),
        ((104, 74, 52), (130, 96, 66)),
        ("bookshelf", "bookshelf", "desk"),
        ("bookshelf", "armchair", "side_table", "floor_lamp", "plant", "cabinet", "dining_table", "rug"),
        ("painting", "window"),
        ("books", "globe", "candle", "mug"),
    ),
    "kitchen": SceneType(
        "kitchen",
        ((234, 230, 214), (214, 226, 218)),
        ((170, 170, 164), (150, 140, 124)),
        ("counter", "fridge", "dining_table"),
        ("cabinet", "plant", "counter", "side_table", "cabinet", "floor_lamp"),
        ("window", "painting"),
        ("bowl", "apple", "mug", "tray", "vase"),
    ),
}
SCENE_NAMES: tuple[str, ...] = tuple(SCENES)
