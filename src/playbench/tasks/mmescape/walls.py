"""Walls and doors: the rooms' shells (floors, ceilings, walls with their door openings and
skirting boards, a house's inner walls) and each exit door with its frame, panel and lock.

Holds the wall lines and their inward directions, the walls and door cuts to build, the structure's
parts (`structure_parts`, `inner_wall_boxes`) and a door's parts in its open or closed state
(`door_parts`, with `_local_to_world_door` for points in a door's own frame). It is separate because
the room shell is a phase of its own: the world (`world.py`) builds on it, both for drawing and for
the walls' footprints, and the layout, planner and difficulty code measure doors with it.
`geometry.py` re-exports its public names and `_local_to_world_door`.
"""

from __future__ import annotations

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.schema import DoorSpec, EscapeInstance, RoomSpec
from playbench.tasks.mmescape.shapes import (
    CEILING_ID,
    DOOR_BASE,
    FLOOR_ID,
    RGB,
    ROOM_H,
    WALL_ID,
    WALL_T,
    Decal,
    Part,
)

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
