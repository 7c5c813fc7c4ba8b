"""The world's geometry, one source for drawing, grabbing and walking.

From an instance and the state of its props (picked up, boxes open, doors open) this module
builds:
- `Part`s: boxes, vertical cylinders and spheres in world coordinates, each with the integer id
  of the entity it belongs to. The renderer draws exactly these (plus text decals, which have no
  id), and `RayCaster` intersects them exactly: the grab ray and the rendered object-id buffer see
  the same objects.
- `Obstacle`s: footprints (x-z rectangles with a height) of walls, closed doors and furniture,
  for the collision test and the planner's occupancy map.
- `Entity`s: what an id is (structure, furniture, clutter, a chain item, a door) and its name.

World axes: y up, yaw 0 looks along -z ("north"). Walls are 0.12 m thick, outside the rooms'
floor rectangles; rooms are 3.0 m high (the original's height).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.furniture import Prim
from playbench.tasks.mmescape.schema import DoorSpec, EscapeInstance, Placed, PropPlace, RoomSpec

RGB = tuple[int, int, int]
WALL_T = 0.12
ROOM_H = 3.0  # the original's rooms are 3 m high
EYE_H = 1.6
AGENT_R = 0.25
REACH = 4.0  # a grab works within this horizontal distance (FACTS.md)
DOOR_W = 1.0  # playbench's generated doors (the original's are 1.11 x 2.26 m; DoorSpec holds each door's)
DOOR_H = 2.1
JUMP_CLEAR = 0.5  # a jump carries a move over anything lower than this
FOV_Y = 60.0  # vertical field of view of playbench's square first-person view, degrees
SUPERSAMPLE = 2  # the view is drawn at 2x and reduced; the id image samples one subpixel per pixel
# Above this many pixels a frame is drawn without supersampling (the original's 2048 x 1024 view
# would otherwise be drawn at 4096 x 2048 on a CPU rasteriser).
SUPERSAMPLE_MAX_PIXELS = 1024 * 1024
PITCH_LIMIT = 89.0


@dataclass(frozen=True)
class ViewSpec:
    """The first-person camera: image size in pixels and vertical field of view in degrees."""

    width: int = 512
    height: int = 512
    fov_y: float = FOV_Y

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def supersample(self) -> int:
        return SUPERSAMPLE if self.width * self.height <= SUPERSAMPLE_MAX_PIXELS else 1


SQUARE_512 = ViewSpec()

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


# --- walls and doors -----------------------------------------------------------------------

WALL_YAW: dict[str, int] = {"north": 0, "south": 180, "west": 90, "east": 270}  # rotation facing inwards


def wall_line(room: RoomSpec, wall: str) -> tuple[str, float, float, float]:
    """(axis along the wall, plane coordinate, start, end) of a room's inner wall face."""
    if wall == "north":
        return "x", room.z0, room.x0, room.x0 + room.width
    if wall == "south":
        return "x", room.z0 + room.depth, room.x0, room.x0 + room.width
    if wall == "west":
        return "z", room.x0, room.z0, room.z0 + room.depth
    return "z", room.x0 + room.width, room.z0, room.z0 + room.depth


def inward(wall: str) -> tuple[float, float]:
    return {"north": (0.0, 1.0), "south": (0.0, -1.0), "west": (1.0, 0.0), "east": (-1.0, 0.0)}[wall]


def door_point(room: RoomSpec, door: DoorSpec, depth: float) -> tuple[float, float]:
    """The point `depth` metres into the room in front of the door's centre (negative: beyond it)."""
    axis, plane, _, _ = wall_line(room, door.wall)
    nx, nz = inward(door.wall)
    if axis == "x":
        return door.center + nx * depth, plane + nz * depth
    return plane + nx * depth, door.center + nz * depth


def _wall_box(axis: str, plane: float, a0: float, a1: float, outward: float, y0: float, y1: float) -> tuple:
    # A wall slab between a0..a1 along `axis`, from the inner face `plane` WALL_T outwards.
    t0, t1 = sorted((plane, plane + outward * WALL_T))
    if axis == "x":
        return ((a0 + a1) / 2, (y0 + y1) / 2, (t0 + t1) / 2), (a1 - a0, y1 - y0, t1 - t0)
    return ((t0 + t1) / 2, (y0 + y1) / 2, (a0 + a1) / 2), (t1 - t0, y1 - y0, a1 - a0)


def _walls(inst: EscapeInstance) -> list[tuple[RoomSpec, str]]:
    """The walls to build: every room's four, except a west wall shared with the previous room."""
    out = []
    for k, room in enumerate(inst.rooms):
        for wall in ("north", "south", "west", "east"):
            if wall == "west" and k > 0 and _adjacent(inst.rooms[k - 1], room):
                continue
            out.append((room, wall))
    return out


def _adjacent(a: RoomSpec, b: RoomSpec) -> bool:
    return abs(a.x0 + a.width + WALL_T - b.x0) < 1e-6


def _doors_in(inst: EscapeInstance, room: RoomSpec, wall: str) -> list[DoorSpec]:
    """The doors cut into a room's wall. A connecting door belongs to the wall of the room it
    leaves; the next room does not build that wall (see `_walls`)."""
    return [d for d in inst.doors if inst.rooms[d.room] is room and d.wall == wall]


def structure_parts(inst: EscapeInstance) -> list[Part]:
    parts: list[Part] = []
    for room in inst.rooms:
        cx, cz = room.x0 + room.width / 2, room.z0 + room.depth / 2
        w, d = room.width + 2 * WALL_T, room.depth + 2 * WALL_T
        parts.append(Part("box", (cx, -0.05, cz), (w, 0.1, d), room.floor_color, FLOOR_ID))
        ceiling = room.ceiling_color or (244, 243, 240)
        parts.append(Part("box", (cx, ROOM_H + 0.05, cz), (w, 0.1, d), ceiling, CEILING_ID))
    for center, size in inner_wall_boxes(inst):
        parts.append(Part("box", center, size, inst.rooms[0].wall_color, WALL_ID))
    for room, wall in _walls(inst):
        axis, plane, a0, a1 = wall_line(room, wall)
        nx, nz = inward(wall)
        outward = -(nz if axis == "x" else nx)
        a0, a1 = a0 - WALL_T, a1 + WALL_T
        cuts = sorted((d.center, d.width, d.height) for d in _doors_in(inst, room, wall))
        start = a0
        for c, dw, dh in cuts:
            for center, size in (
                _wall_box(axis, plane, start, c - dw / 2, outward, 0.0, ROOM_H),
                _wall_box(axis, plane, c - dw / 2, c + dw / 2, outward, dh, ROOM_H),
            ):
                parts.append(Part("box", center, size, room.wall_color, WALL_ID))
            start = c + dw / 2
        center, size = _wall_box(axis, plane, start, a1, outward, 0.0, ROOM_H)
        parts.append(Part("box", center, size, room.wall_color, WALL_ID))
        # a skirting board along the inner face (between the door openings)
        base = fx.shade(room.wall_color, 0.72)
        start = a0 + WALL_T
        for cut in [*cuts, None]:
            end = (cut[0] - cut[1] / 2 - 0.06) if cut is not None else a1 - WALL_T
            if end - start > 0.05:
                t0 = plane + (nz if axis == "x" else nx) * 0.01
                if axis == "x":
                    parts.append(
                        Part("box", ((start + end) / 2, 0.05, t0), (end - start, 0.1, 0.02), base, WALL_ID)
                    )
                else:
                    parts.append(
                        Part("box", (t0, 0.05, (start + end) / 2), (0.02, 0.1, end - start), base, WALL_ID)
                    )
            if cut is not None:
                start = cut[0] + cut[1] / 2 + 0.06
    return parts


def inner_wall_boxes(
    inst: EscapeInstance,
) -> list[tuple[tuple[float, float, float], tuple[float, float, float]]]:
    """(centre, size) of the boxes of a house's inner walls: a wall with a doorway is its two sides
    and the lintel above the opening."""
    out = []
    for w in inst.inner_walls:
        pieces = []
        if w.opening:
            side = (w.length - w.opening) / 2
            for sign in (-1, 1):
                pieces.append((sign * (w.opening / 2 + side / 2), side, 0.0, ROOM_H))
            pieces.append((0.0, w.opening, w.opening_height, ROOM_H))
        else:
            pieces.append((0.0, w.length, 0.0, ROOM_H))
        for offset, length, y0, y1 in pieces:
            if length <= 1e-6:
                continue
            if w.axis == "x":
                out.append(((w.x + offset, (y0 + y1) / 2, w.z), (length, y1 - y0, w.thickness)))
            else:
                out.append(((w.x, (y0 + y1) / 2, w.z + offset), (w.thickness, y1 - y0, length)))
    return out


def _local_to_world_door(
    room: RoomSpec, door: DoorSpec, along: float, y: float, into: float
) -> tuple[float, float, float]:
    axis, plane, _, _ = wall_line(room, door.wall)
    nx, nz = inward(door.wall)
    # `along` runs to the right when facing the door from inside the room
    rx, rz = nz, -nx  # to the right of someone inside the room facing the wall
    if axis == "x":
        return (door.center + rx * along + nx * into, y, plane + rz * along + nz * into)
    return (plane + rx * along + nx * into, y, door.center + rz * along + nz * into)


def door_parts(
    inst: EscapeInstance, k: int, opened: bool, aids: bool = True
) -> tuple[list[Part], list[Decal]]:
    """Room k's exit door: frame and panel with a handle; with `aids` (playbench's visual aids) also
    the EXIT sign above it and its lock (a keyhole plate or a keypad marked CODE)."""
    door = inst.doors[k]
    room = inst.rooms[door.room]
    dw, dh = door.width, door.height
    eid = DOOR_BASE + k
    lock = room.chain.exit.unlock_method.type
    axis = wall_line(room, door.wall)[0]
    face_yaw = WALL_YAW[door.wall]
    parts: list[Part] = []
    decals: list[Decal] = []

    def slab(
        along: float, y0: float, into: float, w_along: float, h: float, t: float, color: RGB, ent: int
    ) -> None:
        c = _local_to_world_door(room, door, along, y0 + h / 2, into)
        size = (w_along, h, t) if axis == "x" else (t, h, w_along)
        parts.append(Part("box", c, size, color, ent))

    frame = (236, 234, 228)
    mid = -WALL_T / 2  # the frame is centred in the wall and stands 3 cm proud on both sides
    slab(-dw / 2 - 0.04, 0.0, mid, 0.08, dh + 0.06, WALL_T + 0.06, frame, WALL_ID)
    slab(dw / 2 + 0.04, 0.0, mid, 0.08, dh + 0.06, WALL_T + 0.06, frame, WALL_ID)
    slab(0.0, dh, mid, dw + 0.16, 0.06, WALL_T + 0.06, frame, WALL_ID)
    if aids:  # the EXIT sign above the door
        slab(0.0, dh + 0.12, 0.04, 0.44, 0.17, 0.04, (30, 140, 70), WALL_ID)
        decals.append(
            Decal(
                ("EXIT",),
                _local_to_world_door(room, door, 0.0, dh + 0.205, 0.061),
                0.4,
                0.13,
                face_yaw,
                (255, 255, 255),
            )
        )
    panel = (120, 78, 48) if lock != "password" or not aids else (96, 104, 116)
    if not opened:
        slab(0.0, 0.0, -WALL_T / 2 + 0.005, dw - 0.01, dh - 0.01, WALL_T + 0.05, panel, eid)
        slab(0.0, 0.25, 0.036, dw - 0.24, 0.6, 0.01, fx.shade(panel, 1.15), eid)
        slab(0.0, 1.15, 0.036, dw - 0.24, dh - 1.35, 0.01, fx.shade(panel, 1.15), eid)
        slab(dw / 2 - 0.12, 0.98, 0.05, 0.14, 0.035, 0.04, fx.METAL, eid)
        if aids and lock == "key":
            slab(dw / 2 - 0.12, 0.82, 0.035, 0.07, 0.13, 0.012, fx.GOLD, eid)
            slab(dw / 2 - 0.12, 0.85, 0.042, 0.018, 0.05, 0.004, fx.DARK, eid)
        elif aids and lock == "password":
            slab(dw / 2 - 0.14, 1.1, 0.04, 0.16, 0.24, 0.02, (40, 44, 50), eid)
            slab(dw / 2 - 0.14, 1.27, 0.052, 0.12, 0.05, 0.004, (120, 200, 140), eid)
            decals.append(
                Decal(
                    ("CODE",),
                    _local_to_world_door(room, door, dw / 2 - 0.14, 1.17, 0.0515),
                    0.12,
                    0.05,
                    face_yaw,
                    (230, 230, 230),
                )
            )
    else:
        # swung open into the next room, hinged on the left jamb
        hinge = _local_to_world_door(room, door, -dw / 2 + 0.03, dh / 2, -WALL_T - dw / 2)
        size = (0.05, dh - 0.01, dw) if axis == "x" else (dw, dh - 0.01, 0.05)
        parts.append(Part("box", hinge, size, panel, eid))
    return parts, decals


# --- the whole world ------------------------------------------------------------------------


def reading_rot(room: RoomSpec, x: float, z: float) -> int:
    """The quarter turn (0, 90, 180, 270) whose local +z (where an upright text's reader stands)
    points most nearly from (x, z) to the room's centre."""
    cx, cz = room.x0 + room.width / 2, room.z0 + room.depth / 2
    dx, dz = cx - x, cz - z
    return max(
        (0, 90, 180, 270), key=lambda r: dx * rotate_xz(0.0, 1.0, r)[0] + dz * rotate_xz(0.0, 1.0, r)[1]
    )


@dataclass
class World:
    """Static geometry of an instance (built once) and what depends on the visual state. `aids`:
    playbench's visual aids (the EXIT sign, the lock on the door, a note's writing legible where it
    lies); the original's door and notes carry none."""

    inst: EscapeInstance
    aids: bool = True
    static: list[Part] = field(default_factory=list)
    static_decals: list[Decal] = field(default_factory=list)
    entities: dict[int, Entity] = field(default_factory=dict)
    item_entity: dict[str, int] = field(default_factory=dict)
    static_obstacles: list[Obstacle] = field(default_factory=list)
    item_types: dict[str, str] = field(default_factory=dict)
    item_room: dict[str, int] = field(default_factory=dict)
    note_text: dict[str, str] = field(default_factory=dict)

    def prop_scale(self, place_: PropPlace) -> tuple[float, float, float]:
        kind = self.item_types[place_.item]
        if place_.size is None:
            return (1.0, 1.0, 1.0)
        w, d, h = fx.PROP_SIZE[kind]
        sw, sh, sd = place_.size
        return (sw / w, sh / h, sd / d)

    def parts(self, state: VisualState) -> tuple[list[Part], list[Decal]]:
        parts = list(self.static)
        decals = list(self.static_decals)
        for place_ in self.inst.props:
            if place_.item in state.picked:
                continue
            kind = self.item_types[place_.item]
            eid = self.item_entity[place_.item]
            prims = fx.prop_pieces(kind, opened=place_.item in state.opened)
            parts += place(prims, place_.x, place_.y, place_.z, place_.rot, eid, self.prop_scale(place_))
            if kind == "paper" and self.aids:
                # The writing reads upright for someone facing the sheet from the room's centre (the
                # open side of furniture against a wall); across a sheet lying crosswise to that
                # direction it runs along the long side (a landscape decal).
                text_rot = reading_rot(self.inst.rooms[place_.room], place_.x, place_.z)
                sw, sd, _ = prop_size(place_, "paper")
                along = (text_rot - place_.rot) % 180 == 0
                w, h = (sw - 0.02, sd - 0.02) if along else (sd - 0.02, sw - 0.02)
                decals.append(
                    Decal(
                        tuple(self.note_text.get(place_.item, "").splitlines()),
                        (place_.x, place_.y + prop_size(place_, "paper")[2] + 0.0005, place_.z),
                        w,
                        h,
                        "up",
                        (30, 30, 40),
                        rot=text_rot,
                    )
                )
        for k in range(len(self.inst.doors)):
            p, d = door_parts(self.inst, k, k in state.doors_open, self.aids)
            parts += p
            decals += d
        return parts, decals

    def obstacles(self, state: VisualState) -> list[Obstacle]:
        out = list(self.static_obstacles)
        for place_ in self.inst.props:
            kind = self.item_types[place_.item]
            if kind == "box" and place_.on == "floor" and place_.item not in state.picked:
                w, d, h = prop_size(place_, kind)
                out.append(obstacle(place_.x, place_.z, w, d, place_.rot, h, self.item_entity[place_.item]))
        for k, door in enumerate(self.inst.doors):
            parts, _ = door_parts(self.inst, k, k in state.doors_open, self.aids)
            for p in parts:
                if p.entity == DOOR_BASE + k and p.size[1] > 1.0:
                    cx, _, cz = p.center
                    sx, _, sz = p.size
                    out.append(
                        Obstacle(cx - sx / 2, cz - sz / 2, cx + sx / 2, cz + sz / 2, door.height, p.entity)
                    )
        return out


@lru_cache(maxsize=32)
def _world_cached(key: str, data: str, aids: bool) -> World:
    return _build_world(EscapeInstance.model_validate_json(data), aids)


def build_world(inst: EscapeInstance, aids: bool = True) -> World:
    """The world of an instance, cached by its content (instances are immutable data)."""
    return _world_cached(inst.id, inst.model_dump_json(), aids)


def _build_world(inst: EscapeInstance, aids: bool = True) -> World:
    world = World(inst, aids)
    world.static = structure_parts(inst)
    world.entities[FLOOR_ID] = Entity(FLOOR_ID, "structure", "floor", None, 0.0, 0.0)
    world.entities[CEILING_ID] = Entity(CEILING_ID, "structure", "ceiling", None, 0.0, 0.0)
    world.entities[WALL_ID] = Entity(WALL_ID, "structure", "wall", None, 0.0, 0.0)
    for room, wall in _walls(inst):
        axis, plane, a0, a1 = wall_line(room, wall)
        nx, nz = inward(wall)
        outward = -(nz if axis == "x" else nx)
        t0, t1 = sorted((plane, plane + outward * WALL_T))
        cuts = sorted((d.center, d.width) for d in _doors_in(inst, room, wall))
        start = a0 - WALL_T
        for c, dw in [*cuts, (a1 + WALL_T + 0.5, 1.0)]:
            end = c - dw / 2
            if axis == "x":
                world.static_obstacles.append(Obstacle(start, t0, end, t1, ROOM_H, WALL_ID))
            else:
                world.static_obstacles.append(Obstacle(t0, start, t1, end, ROOM_H, WALL_ID))
            start = c + dw / 2
    for (cx, cy, cz), (sx, sy, sz) in inner_wall_boxes(inst):
        if cy - sy / 2 < 0.5:  # the sides of a doorway (not its lintel)
            world.static_obstacles.append(
                Obstacle(cx - sx / 2, cz - sz / 2, cx + sx / 2, cz + sz / 2, ROOM_H, WALL_ID)
            )
    for i, piece in enumerate(inst.furniture):
        eid = FURNITURE_BASE + i
        kind = fx.KINDS[piece.kind]
        scale = piece_scale(piece)
        surface = piece.surface / scale[1] if piece.surface is not None else None
        world.static += place(
            fx.pieces(piece.kind, piece.variant, surface),
            piece.x,
            piece.y,
            piece.z,
            piece.rot,
            eid,
            scale,
        )
        world.entities[eid] = Entity(eid, "furniture", piece.name or kind.name, i, piece.x, piece.z)
        solid = (kind.solid and not kind.mounted) if piece.solid is None else piece.solid
        if solid:
            w, h, d = piece_size(piece)
            world.static_obstacles.append(obstacle(piece.x, piece.z, w, d, piece.rot, piece.y + h, eid))
    for i, bit in enumerate(inst.clutter):
        eid = CLUTTER_BASE + i
        scale = (1.0, 1.0, 1.0)
        if bit.size is not None:
            cw, cd, ch = fx.CLUTTER[bit.kind]
            scale = (bit.size[0] / cw, bit.size[1] / ch, bit.size[2] / cd)
        world.static += place(
            fx.clutter_pieces(bit.kind, bit.variant), bit.x, bit.y, bit.z, bit.rot, eid, scale
        )
        world.entities[eid] = Entity(eid, "clutter", bit.name or bit.kind, i, bit.x, bit.z)
    for r, room in enumerate(inst.rooms):
        for it in room.chain.items:
            world.item_types[it.id] = it.type
            world.item_room[it.id] = r
            if it.type == "paper":
                world.note_text[it.id] = it.text or ""
    for n, place_ in enumerate(inst.props):
        eid = ITEM_BASE + n
        world.item_entity[place_.item] = eid
        kind = world.item_types[place_.item]
        name = {"key": "key", "paper": "note", "box": "box"}[kind]
        world.entities[eid] = Entity(eid, "item", name, place_.item, place_.x, place_.z)
    for k, door in enumerate(inst.doors):
        room = inst.rooms[door.room]
        x, z = door.anchor if door.anchor is not None else door_point(room, door, 0.0)
        world.entities[DOOR_BASE + k] = Entity(DOOR_BASE + k, "door", "door", k, x, z)
    return world


# --- rays ------------------------------------------------------------------------------------


class RayCaster:
    """Exact first hits of rays against boxes, vertical cylinders and spheres."""

    def __init__(self, parts: list[Part]) -> None:
        boxes = [p for p in parts if p.shape == "box" and not p.yaw]
        turned = [p for p in parts if p.shape == "box" and p.yaw]
        self.obb_c = np.array([p.center for p in turned], dtype=np.float64).reshape(-1, 3)
        self.obb_h = np.array([[s / 2 for s in p.size] for p in turned], dtype=np.float64).reshape(-1, 3)
        rad = np.radians([p.yaw for p in turned])
        self.obb_cos, self.obb_sin = np.cos(rad), np.sin(rad)
        self.obb_ids = np.array([p.entity for p in turned], dtype=np.int64)
        cyls = [p for p in parts if p.shape == "cylinder"]
        sphs = [p for p in parts if p.shape == "sphere"]
        self.box_lo = np.array(
            [[c - s / 2 for c, s in zip(p.center, p.size, strict=True)] for p in boxes]
        ).reshape(-1, 3)
        self.box_hi = np.array(
            [[c + s / 2 for c, s in zip(p.center, p.size, strict=True)] for p in boxes]
        ).reshape(-1, 3)
        self.box_ids = np.array([p.entity for p in boxes], dtype=np.int64)
        self.cyl = np.array(
            [
                [
                    p.center[0],
                    p.center[2],
                    p.size[0] / 2,
                    p.center[1] - p.size[1] / 2,
                    p.center[1] + p.size[1] / 2,
                ]
                for p in cyls
            ]
        ).reshape(-1, 5)
        self.cyl_ids = np.array([p.entity for p in cyls], dtype=np.int64)
        self.sph = np.array([[*p.center, p.size[0] / 2] for p in sphs]).reshape(-1, 4)
        self.sph_ids = np.array([p.entity for p in sphs], dtype=np.int64)

    def cast(self, origin: np.ndarray, direction: np.ndarray) -> tuple[int, float]:
        """(entity id, distance along the unit `direction`) of the first hit, or (0, inf)."""
        best_t, best_id = math.inf, 0
        o = np.asarray(origin, dtype=np.float64)
        d = np.asarray(direction, dtype=np.float64)
        if len(self.box_ids):
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / np.where(np.abs(d) < 1e-12, 1e-12, d)
                t0 = (self.box_lo - o) * inv
                t1 = (self.box_hi - o) * inv
            tmin = np.minimum(t0, t1).max(axis=1)
            tmax = np.maximum(t0, t1).min(axis=1)
            ok = (tmax >= np.maximum(tmin, 0.0)) & (tmax > 1e-9)
            if ok.any():
                tt = np.where(tmin > 0, tmin, 0.0)
                tt = np.where(ok, tt, np.inf)
                k = int(np.argmin(tt))
                if tt[k] < best_t:
                    best_t, best_id = float(tt[k]), int(self.box_ids[k])
        if len(self.obb_ids):
            # each turned box in its own frame (turned back by its yaw about its centre)
            rel = o - self.obb_c
            c, s = self.obb_cos, self.obb_sin
            lo_ = np.stack([rel[:, 0] * c - rel[:, 2] * s, rel[:, 1], rel[:, 0] * s + rel[:, 2] * c], axis=1)
            ld = np.stack([d[0] * c - d[2] * s, np.full_like(c, d[1]), d[0] * s + d[2] * c], axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / np.where(np.abs(ld) < 1e-12, 1e-12, ld)
                t0 = (-self.obb_h - lo_) * inv
                t1 = (self.obb_h - lo_) * inv
            tmin = np.minimum(t0, t1).max(axis=1)
            tmax = np.maximum(t0, t1).min(axis=1)
            ok = (tmax >= np.maximum(tmin, 0.0)) & (tmax > 1e-9)
            if ok.any():
                tt = np.where(ok, np.where(tmin > 0, tmin, 0.0), np.inf)
                k = int(np.argmin(tt))
                if tt[k] < best_t:
                    best_t, best_id = float(tt[k]), int(self.obb_ids[k])
        for k in range(len(self.cyl_ids)):
            cx, cz, r, y0, y1 = self.cyl[k]
            t = _ray_cylinder(o, d, cx, cz, r, y0, y1)
            if t < best_t:
                best_t, best_id = t, int(self.cyl_ids[k])
        for k in range(len(self.sph_ids)):
            cx, cy, cz, r = self.sph[k]
            t = _ray_sphere(o, d, np.array([cx, cy, cz]), r)
            if t < best_t:
                best_t, best_id = t, int(self.sph_ids[k])
        return best_id, best_t


def _ray_sphere(o: np.ndarray, d: np.ndarray, c: np.ndarray, r: float) -> float:
    oc = o - c
    b = float(np.dot(oc, d))
    cc = float(np.dot(oc, oc)) - r * r
    disc = b * b - cc
    if disc < 0:
        return math.inf
    s = math.sqrt(disc)
    for t in (-b - s, -b + s):
        if t > 1e-9:
            return t
    return math.inf


def _ray_cylinder(
    o: np.ndarray, d: np.ndarray, cx: float, cz: float, r: float, y0: float, y1: float
) -> float:
    best = math.inf
    ox, oy, oz = float(o[0]) - cx, float(o[1]), float(o[2]) - cz
    dx, dy, dz = float(d[0]), float(d[1]), float(d[2])
    a = dx * dx + dz * dz
    if a > 1e-12:
        b = ox * dx + oz * dz
        c = ox * ox + oz * oz - r * r
        disc = b * b - a * c
        if disc >= 0:
            s = math.sqrt(disc)
            for t in ((-b - s) / a, (-b + s) / a):
                if t > 1e-9 and y0 <= oy + t * dy <= y1:
                    best = min(best, t)
                    break
    if abs(dy) > 1e-12:
        for y in (y0, y1):
            t = (y - oy) / dy
            if t > 1e-9:
                px, pz = ox + t * dx, oz + t * dz
                if px * px + pz * pz <= r * r:
                    best = min(best, t)
    return best


def centre_ndc(size: int | ViewSpec, supersample: int | None = None) -> tuple[float, float]:
    """Device coordinates of the sample the object-id image keeps for the centre pixel
    (width // 2, height // 2) of a view: the grab ray goes exactly through it. `size` is a square
    view's side (playbench's) or a ViewSpec."""
    view = size if isinstance(size, ViewSpec) else ViewSpec(size, size)
    ss = view.supersample if supersample is None else supersample

    def ndc(n: int) -> float:
        return 2 * (ss * (n // 2) + ss // 2 + 0.5) / (n * ss) - 1

    return ndc(view.width), -ndc(view.height)


def view_direction(yaw: float, pitch: float) -> np.ndarray:
    """Unit view vector for yaw (0 = -z, positive to the right) and pitch (positive down)."""
    y, p = math.radians(yaw), math.radians(pitch)
    return np.array([math.sin(y) * math.cos(p), -math.sin(p), -math.cos(y) * math.cos(p)])


def pixel_direction(
    yaw: float, pitch: float, fov_y: float, ndc_x: float, ndc_y: float, aspect: float = 1.0
) -> np.ndarray:
    """Unit direction through normalised device coordinates (x right, y up, -1..1) of a view with
    vertical field of view `fov_y` and width/height `aspect`."""
    f = view_direction(yaw, pitch)
    s = np.cross(f, (0.0, 1.0, 0.0))
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    t = math.tan(math.radians(fov_y) / 2)
    v = f + ndc_x * t * aspect * s + ndc_y * t * u
    return v / np.linalg.norm(v)


def in_view(
    yaw: float,
    pitch: float,
    view: ViewSpec,
    eye: tuple[float, float, float],
    point: tuple[float, float, float],
) -> bool:
    """Whether `point` projects inside the image of a view from `eye` (in front of the camera, within
    both fields of view; nothing in between is considered)."""
    f = view_direction(yaw, pitch)
    s = np.cross(f, (0.0, 1.0, 0.0))
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    v = np.subtract(point, eye)
    depth = float(np.dot(v, f))
    if depth <= 1e-9:
        return False
    t = math.tan(math.radians(view.fov_y) / 2)
    return abs(float(np.dot(v, s)) / depth) <= t * view.aspect and abs(float(np.dot(v, u)) / depth) <= t


# --- moving ----------------------------------------------------------------------------------


def sweep(
    obstacles: list[Obstacle],
    x: float,
    z: float,
    dx: float,
    dz: float,
    dist: float,
    radius: float,
    jump: bool,
) -> tuple[float, Obstacle | None]:
    """How far (<= dist) a disc of `radius` at (x, z) can move along the unit (dx, dz), and what
    stops it. With `jump`, obstacles lower than JUMP_CLEAR are passed over but never landed in.
    Obstacles the disc already overlaps are ignored, so it can always move out of them."""
    if dist <= 0:
        return 0.0, None
    hits: list[tuple[float, float, Obstacle]] = []
    for ob in obstacles:
        px, pz, ddx, ddz = x, z, dx, dz
        if ob.yaw:  # a turned footprint: the move in the footprint's own frame
            px, pz = ob.to_local(x, z)
            ddx, ddz = rotate_xz(dx, dz, -ob.yaw)
        x0, z0, x1, z1 = ob.x0 - radius, ob.z0 - radius, ob.x1 + radius, ob.z1 + radius
        if x0 < px < x1 and z0 < pz < z1:
            continue
        t_in, t_out = 0.0, math.inf
        ok = True
        for p, dp, lo, hi in ((px, ddx, x0, x1), (pz, ddz, z0, z1)):
            if abs(dp) < 1e-12:
                if not lo < p < hi:
                    ok = False
                    break
                continue
            a, b = (lo - p) / dp, (hi - p) / dp
            a, b = min(a, b), max(a, b)
            t_in, t_out = max(t_in, a), min(t_out, b)
        if ok and t_in < t_out and t_in < dist:
            hits.append((t_in, t_out, ob))
    limit, blocker = dist, None
    for t_in, _, ob in sorted(hits, key=lambda h: h[0]):
        if not jump or ob.height >= JUMP_CLEAR:
            if t_in < limit:
                limit, blocker = t_in, ob
            break
    if jump:
        # never land inside a low obstacle: back off to just before the one the landing is in
        changed = True
        while changed:
            changed = False
            for t_in, t_out, ob in hits:
                if t_in < limit < t_out:
                    limit, blocker, changed = t_in, ob, True
    return max(0.0, limit - 1e-3 if blocker is not None else limit), blocker
