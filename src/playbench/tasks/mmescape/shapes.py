"""The world's building blocks: its measures, its entity ids and the shapes every other part
of the geometry is made of, with the placing of a piece's primitives in the world.

Holds the world's dimensions (walls, rooms, the player's eye, reach and radius, jumps), the id
ranges of entities, the records `Part`, `Decal`, `Obstacle`, `Entity` and `VisualState`, and the
helpers that turn, scale and bound a piece of furniture or a prop (`place`, `aabb`, `obstacle`, the
sizes of pieces and props). It is separate because it depends on nothing else of the geometry:
walls and doors (`walls.py`), the assembled world (`world.py`), rays (`rays.py`) and the collision
test (`collision.py`) all build on it. `geometry.py` re-exports its public names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.furniture import Prim
from playbench.tasks.mmescape.schema import Placed, PropPlace

RGB = tuple[int, int, int]
WALL_T = 0.12
ROOM_H = 3.0  # the original's rooms are 3 m high
EYE_H = 1.6
AGENT_R = 0.25
REACH = 4.0  # a grab works within this horizontal distance (FACTS.md)
DOOR_W = 1.0  # playbench's generated doors (the original's are 1.11 x 2.26 m; DoorSpec holds each door's)
DOOR_H = 2.1
JUMP_CLEAR = 0.5  # a jump carries a move over anything lower than this

FLOOR_ID, CEILING_ID, WALL_ID = 1, 2, 3
FURNITURE_BASE, CLUTTER_BASE, ITEM_BASE, DOOR_BASE = 10, 500, 1000, 2000


@dataclass(frozen=True)
class Part:
    shape: str  # box | cylinder | sphere
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    color: RGB
    entity: int
    yaw: float = 0.0  # a box turned about its vertical axis (degrees, as rotate_xz); 0 for the rest


@dataclass(frozen=True)
class Decal:
    """Text or an image drawn on a face, render-only (no id). `facing` is the outward normal:
    "up" for a horizontal face, else a yaw in degrees (0 = +z, 90 = +x)."""

    lines: tuple[str, ...]
    center: tuple[float, float, float]
    width: float
    height: float
    facing: str | float
    ink: RGB
    rot: int = 0  # for "up" decals: quarter turns of the text, as the prop it lies on


@dataclass(frozen=True)
class Obstacle:
    """A footprint: the rectangle x0..x1, z0..z1 turned by `yaw` degrees about its own centre."""

    x0: float
    z0: float
    x1: float
    z1: float
    height: float
    entity: int
    yaw: float = 0.0

    @property
    def center(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.z0 + self.z1) / 2

    def to_local(self, x: float, z: float) -> tuple[float, float]:
        """A world point in the frame where this footprint is the axis-aligned x0..x1, z0..z1."""
        if not self.yaw:
            return x, z
        cx, cz = self.center
        lx, lz = rotate_xz(x - cx, z - cz, -self.yaw)
        return cx + lx, cz + lz


@dataclass(frozen=True)
class Entity:
    id: int
    kind: str  # structure | furniture | clutter | item | door
    name: str
    ref: str | int | None  # item id, door room index, furniture index
    x: float
    z: float


@dataclass(frozen=True)
class VisualState:
    """What changes the look and shape of the world."""

    picked: frozenset[str] = frozenset()
    opened: frozenset[str] = frozenset()
    doors_open: frozenset[int] = frozenset()


# --- placing a piece's primitives in the world ---------------------------------------------


def rotate_xz(x: float, z: float, rot: float) -> tuple[float, float]:
    """A local offset turned by `rot` degrees about the vertical axis, as gl3d.rotate_y (quarter
    turns exactly, any other angle by its sine and cosine)."""
    r = rot % 360
    if r == 0:
        return x, z
    if r == 90:
        return z, -x
    if r == 180:
        return -x, -z
    if r == 270:
        return -z, x
    c, s = math.cos(math.radians(r)), math.sin(math.radians(r))
    return x * c + z * s, -x * s + z * c


def quarter(rot: float) -> bool:
    return rot % 90 == 0


def place(
    prims: list[Prim],
    x: float,
    y: float,
    z: float,
    rot: float,
    entity: int,
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
) -> list[Part]:
    """A piece's primitives in the world: scaled (in the piece's frame), turned by `rot`, moved to
    (x, y, z). Boxes keep an axis-aligned size on quarter turns and carry `yaw` otherwise; a scaled
    cylinder or sphere stays round, with the geometric mean of its horizontal (and vertical) scales."""
    sx_, sy_, sz_ = scale
    out = []
    for p in prims:
        cx, cy, cz = p.center[0] * sx_, p.center[1] * sy_, p.center[2] * sz_
        dx, dz = rotate_xz(cx, cz, rot)
        if p.shape == "box":
            sx, sy, sz = p.size[0] * sx_, p.size[1] * sy_, p.size[2] * sz_
            yaw = 0.0
            if not quarter(rot):
                yaw = rot % 360
            elif rot % 180:
                sx, sz = sz, sx
        elif p.shape == "cylinder":
            d = p.size[0] * math.sqrt(sx_ * sz_)
            sx, sy, sz, yaw = d, p.size[1] * sy_, d, 0.0
        else:
            d = p.size[0] * (sx_ * sy_ * sz_) ** (1 / 3)
            sx, sy, sz, yaw = d, d, d, 0.0
        out.append(Part(p.shape, (x + dx, y + cy, z + dz), (sx, sy, sz), p.color, entity, yaw))
    return out


def aabb(x: float, z: float, w: float, d: float, rot: float) -> tuple[float, float, float, float]:
    """The axis-aligned bounds of a w x d rectangle centred at (x, z) and turned by `rot`."""
    if quarter(rot):
        if rot % 180:
            w, d = d, w
        return (x - w / 2, z - d / 2, x + w / 2, z + d / 2)
    c, s = abs(math.cos(math.radians(rot))), abs(math.sin(math.radians(rot)))
    hw, hd = (w * c + d * s) / 2, (w * s + d * c) / 2
    return (x - hw, z - hd, x + hw, z + hd)


def piece_size(piece: Placed) -> tuple[float, float, float]:
    """(width, height, depth) of a piece of furniture in its own frame: its own size, else its kind's."""
    if piece.size is not None:
        return piece.size
    k = fx.KINDS[piece.kind]
    return (k.width, k.height, k.depth)


def piece_scale(piece: Placed) -> tuple[float, float, float]:
    """How much a piece's model is stretched to the piece's own size (1 for the kind's size)."""
    if piece.size is None:
        return (1.0, 1.0, 1.0)
    k = fx.KINDS[piece.kind]
    w, h, d = piece.size
    return (w / k.width, h / k.height, d / k.depth)


def footprint(kind: str, x: float, z: float, rot: float) -> tuple[float, float, float, float]:
    k = fx.KINDS[kind]
    return aabb(x, z, k.width, k.depth, rot)


def prop_size(place_: PropPlace, item_type: str) -> tuple[float, float, float]:
    """(width, depth, height) of a chain prop: its own size, else playbench's for its type."""
    if place_.size is not None:
        w, h, d = place_.size
        return (w, d, h)
    return fx.PROP_SIZE[item_type]


def prop_footprint(item_type: str, x: float, z: float, rot: float) -> tuple[float, float, float, float]:
    w, d, _ = fx.PROP_SIZE[item_type]
    return aabb(x, z, w, d, rot)


def obstacle(x: float, z: float, w: float, d: float, rot: float, height: float, entity: int) -> Obstacle:
    """The footprint of a w x d piece centred at (x, z), turned by `rot`."""
    if quarter(rot):
        x0, z0, x1, z1 = aabb(x, z, w, d, rot)
        return Obstacle(x0, z0, x1, z1, height, entity)
    return Obstacle(x - w / 2, z - d / 2, x + w / 2, z + d / 2, height, entity, rot % 360)
