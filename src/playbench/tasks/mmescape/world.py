"""The whole world of an instance: its static parts, footprints and entities, built once, and
what changes with the visual state (props picked up or opened, doors open).

Holds `World` (its parts and decals, and its obstacles, for a `VisualState`), the assembling of
it from an instance (`_build_world`: room shells and walls' footprints from `walls.py`, furniture,
clutter, props and doors as entities) and `build_world`, which caches worlds by their instance's
content. It is separate because it is the last phase, joining the shapes (`shapes.py`) and the room
shells (`walls.py`) into the one source that drawing, grabbing and walking read.
`geometry.py` re-exports its public names and `_build_world`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.schema import EscapeInstance, PropPlace, RoomSpec
from playbench.tasks.mmescape.shapes import (
    CEILING_ID,
    CLUTTER_BASE,
    DOOR_BASE,
    FLOOR_ID,
    FURNITURE_BASE,
    ITEM_BASE,
    ROOM_H,
    WALL_ID,
    WALL_T,
    Decal,
    Entity,
    Obstacle,
    Part,
    VisualState,
    obstacle,
    piece_scale,
    piece_size,
    place,
    prop_size,
    rotate_xz,
)
from playbench.tasks.mmescape.walls import (
    _doors_in,
    _walls,
    door_parts,
    door_point,
    inner_wall_boxes,
    inward,
    structure_parts,
    wall_line,
)

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
