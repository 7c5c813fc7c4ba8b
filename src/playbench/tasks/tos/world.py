"""Theory of Space worlds: rooms, doors, objects, the observation model and the oracle explorer.

Frame: x grows to the east, y to the north; every coordinate is an integer point and the agent
starts at (0, 0) facing north, so stored coordinates are already in the start frame that `Query`
and the allocentric questions use. Angles are degrees clockwise from north (bearings) or from the
agent's facing (egocentric: 0 is straight ahead, + is clockwise, - counter-clockwise).

A room is a rectangle of interior points [x0..x1] x [y0..y1]; the lines just outside are walls.
Two rooms side by side share one wall line and a door is one point on it. A point on a door
belongs to both rooms it joins: standing there the agent sees into both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from playbench.core.task import derive_seed

Facing = Literal["north", "east", "south", "west"]
FACINGS: tuple[str, ...] = ("north", "east", "south", "west")
HEADING: dict[str, int] = {"north": 0, "east": 90, "south": 180, "west": 270}
FACING_OF_HEADING: dict[int, str] = {v: k for k, v in HEADING.items()}
UNIT: dict[str, tuple[int, int]] = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
ROTATIONS: tuple[int, ...] = (0, 90, -90, 180, 270, -270)  # the degrees Rotate accepts (FACTS.md)

EGO_BINS: tuple[str, ...] = (
    "front-left",
    "front-slight-left",
    "front",
    "front-slight-right",
    "front-right",
    "beyond-fov",
)
CARDINAL_BINS: tuple[str, ...] = (
    "north",
    "north-east",
    "east",
    "south-east",
    "south",
    "south-west",
    "west",
    "north-west",
)
DISTANCE_BINS: tuple[str, ...] = (
    "same distance",
    "near",
    "mid distance",
    "slightly far",
    "far",
    "very far",
    "extremely far",
)
DISTANCE_EDGES: tuple[float, ...] = (2.0, 4.0, 8.0, 16.0, 32.0)  # upper edges (inclusive) of near..very far
EGO_ORIENTATIONS: dict[int, str] = {0: "forward", 90: "right", 180: "backward", 270: "left"}
WALL_WORDS: dict[int, str] = {0: "front", 90: "right", 180: "back", 270: "left"}


# --- binning (the prompt's bins, edges exactly as written there) ----------------------------------
def ego_bin(angle: float) -> str:
    """Egocentric bearing bin: 0 front; [-22.5,0) slight left; [-45,-22.5) left; mirrored on the right."""
    if angle == 0:
        return "front"
    if -22.5 <= angle < 0:
        return "front-slight-left"
    if -45 <= angle < -22.5:
        return "front-left"
    if 0 < angle <= 22.5:
        return "front-slight-right"
    if 22.5 < angle <= 45:
        return "front-right"
    return "beyond-fov"


def cardinal_bin(angle: float) -> str:
    """Allocentric bin of a bearing (clockwise from north): (-22.5, 22.5] is north, then 45° each."""
    a = angle % 360.0
    if a > 337.5:
        a -= 360.0
    if a <= 22.5:
        return "north"
    return CARDINAL_BINS[math.ceil((a - 22.5) / 45.0)]


def distance_bin(distance: float) -> str:
    """=0 same distance, (0,2] near, (2,4] mid distance, (4,8] slightly far, (8,16] far, (16,32] very far."""
    if distance <= 0:
        return "same distance"
    for edge, name in zip(DISTANCE_EDGES, DISTANCE_BINS[1:], strict=False):
        if distance <= edge:
            return name
    return "extremely far"


def distance_bin_points(dx: int, dy: int) -> str:
    """`distance_bin` of an integer offset, compared on squared lengths so edges are exact."""
    d2 = dx * dx + dy * dy
    if d2 == 0:
        return "same distance"
    for edge, name in zip(DISTANCE_EDGES, DISTANCE_BINS[1:], strict=False):
        if d2 <= edge * edge:
            return name
    return "extremely far"


_OCTANT_BEARINGS = {
    (0, 1): 0,
    (1, 1): 45,
    (1, 0): 90,
    (1, -1): 135,
    (0, -1): 180,
    (-1, -1): 225,
    (-1, 0): 270,
    (-1, 1): 315,
}


def bearing(dx: int, dy: int) -> float:
    """Bearing of an offset in degrees clockwise from north, in [0, 360); exact on axes and diagonals."""
    if dx == 0 and dy == 0:
        return 0.0
    if dx == 0 or dy == 0 or abs(dx) == abs(dy):
        # axis and diagonal offsets are multiples of 45° exactly (atan2 may be off by an ulp)
        sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
        return float(_OCTANT_BEARINGS[(sx, sy)])
    return math.degrees(math.atan2(dx, dy)) % 360.0


def relative_angle(dx: int, dy: int, facing: str) -> float:
    """Egocentric angle of an offset for an agent facing `facing`, in (-180, 180]."""
    a = (bearing(dx, dy) - HEADING[facing]) % 360.0
    return a - 360.0 if a > 180.0 else a


def turn(facing: str, degrees: int) -> str:
    return FACING_OF_HEADING[(HEADING[facing] + degrees) % 360]


def ego_orientation(obj_facing: str, agent_facing: str) -> str:
    return EGO_ORIENTATIONS[(HEADING[obj_facing] - HEADING[agent_facing]) % 360]


def rotation_between(current: str, wanted: str) -> int:
    """The Rotate degrees (0, 90, -90 or 180) that turn `current` into `wanted`."""
    return {0: 0, 90: 90, 180: 180, 270: -90}[(HEADING[wanted] - HEADING[current]) % 360]


# --- world data ---------------------------------------------------------------------------------
class Room(BaseModel):
    id: int
    x0: int
    y0: int
    x1: int
    y1: int

    def contains(self, x: int, y: int) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def wall_of(self, x: int, y: int) -> str:
        """Which wall of this room a point on its boundary line lies on."""
        if x > self.x1:
            return "east"
        if x < self.x0:
            return "west"
        if y > self.y1:
            return "north"
        return "south"


class Gate(BaseModel):
    name: str
    x: int
    y: int
    rooms: tuple[int, int]


class WorldObject(BaseModel):
    name: str
    x: int
    y: int
    room: int
    facing: Facing | None = None


class World(BaseModel):
    """A grid world; `width` x `height` is its N×M extent including the outer walls."""

    width: int
    height: int
    rooms: list[Room]
    gates: list[Gate] = Field(default_factory=list)
    objects: list[WorldObject]


@dataclass(frozen=True)
class Item:
    """An observable thing: an object or a gate, with the rooms it is seen from."""

    name: str
    x: int
    y: int
    rooms: frozenset[int]
    facing: str | None
    is_gate: bool


def items_of(world: World) -> list[Item]:
    out = [Item(o.name, o.x, o.y, frozenset((o.room,)), o.facing, False) for o in world.objects]
    out += [Item(g.name, g.x, g.y, frozenset(g.rooms), None, True) for g in world.gates]
    return out


def rooms_at(world: World, x: int, y: int) -> frozenset[int]:
    for g in world.gates:
        if (g.x, g.y) == (x, y):
            return frozenset(g.rooms)
    return frozenset(r.id for r in world.rooms if r.contains(x, y))


@dataclass(frozen=True)
class Pose:
    x: int
    y: int
    facing: str


START = Pose(0, 0, "north")


def visible_items(world: World, pose: Pose, items: Iterable[Item] | None = None) -> list[Item]:
    """What Observe() reports from `pose`: items in the agent's room(s), inside the 90° field of
    view, not at the agent's own point; ordered left to right, nearer first on a tie."""
    here = rooms_at(world, pose.x, pose.y)
    seen = []
    for it in items_of(world) if items is None else items:
        dx, dy = it.x - pose.x, it.y - pose.y
        if (dx, dy) == (0, 0) or not (it.rooms & here):
            continue
        angle = relative_angle(dx, dy, pose.facing)
        if ego_bin(angle) != "beyond-fov":
            seen.append((angle, dx * dx + dy * dy, it.name, it))
    return [s[3] for s in sorted(seen)]


def in_fov(pose: Pose, x: int, y: int) -> bool:
    dx, dy = x - pose.x, y - pose.y
    return (dx, dy) != (0, 0) and ego_bin(relative_angle(dx, dy, pose.facing)) != "beyond-fov"


def gate_wall(world: World, gate: Item, agent_rooms: frozenset[int]) -> str:
    """The wall (north/east/south/west) of the agent's room that `gate` sits on."""
    shared = sorted(gate.rooms & agent_rooms) or sorted(gate.rooms)
    room = next(r for r in world.rooms if r.id == shared[0])
    return room.wall_of(gate.x, gate.y)


def describe_item(world: World, pose: Pose, it: Item) -> str:
    """One observation line: `name: <ego bin>, <distance bin>[, orientation]`."""
    dx, dy = it.x - pose.x, it.y - pose.y
    text = f"{it.name}: {ego_bin(relative_angle(dx, dy, pose.facing))}, {distance_bin_points(dx, dy)}"
    if it.is_gate:
        wall = gate_wall(world, it, rooms_at(world, pose.x, pose.y))
        text += f", on {WALL_WORDS[(HEADING[wall] - HEADING[pose.facing]) % 360]} wall"
    elif it.facing is not None:
        text += f", facing {ego_orientation(it.facing, pose.facing)}"
    return text


def close_pairs(pose: Pose, seen: list[Item]) -> list[str]:
    """Relations between visible objects that are near each other (distance <= 2), with the
    agent's facing direction called north, as the original environment adds to each view."""
    lines = []
    for i, a in enumerate(seen):
        for b in seen[i + 1 :]:
            dx, dy = a.x - b.x, a.y - b.y
            if dx * dx + dy * dy > 4:
                continue
            rel = (bearing(dx, dy) - HEADING[pose.facing]) % 360.0
            lines.append(f"{a.name} is {cardinal_bin(rel)} of {b.name}, {distance_bin_points(dx, dy)}")
    return lines


def observation_text(world: World, pose: Pose) -> str:
    seen = visible_items(world, pose)
    if not seen:
        return "No objects in field of view."
    lines = [f"- {describe_item(world, pose, it)}" for it in seen]
    pairs = close_pairs(pose, seen)
    if pairs:
        lines.append('Close pairs (treating your current facing direction as "north"):')
        lines += [f"- {p}" for p in pairs]
    return "\n".join(lines)


def observation_key(world: World, pose: Pose) -> tuple[str, ...]:
    """What an observation says, comparable between poses (used to check question uniqueness)."""
    return tuple(describe_item(world, pose, it) for it in visible_items(world, pose))


def pair_relation(world_obj: WorldObject | Item, anchor: WorldObject | Item) -> str:
    """`<cardinal>, <distance>` of an object relative to an anchor (top-down, north up)."""
    dx, dy = world_obj.x - anchor.x, world_obj.y - anchor.y
    return f"{cardinal_bin(bearing(dx, dy))}, {distance_bin_points(dx, dy)}"


def ego_relation(pose: Pose, x: int, y: int) -> str:
    dx, dy = x - pose.x, y - pose.y
    return f"{ego_bin(relative_angle(dx, dy, pose.facing))}, {distance_bin_points(dx, dy)}"


# --- generator ----------------------------------------------------------------------------------
FACING_NAMES: tuple[str, ...] = (
    "sofa", "chair", "tv", "bed", "desk", "bookshelf", "piano", "fridge", "stove", "armchair",
    "bench", "wardrobe", "fireplace", "toilet", "dresser", "monitor",
)  # fmt: skip
PLAIN_NAMES: tuple[str, ...] = (
    "lamp", "plant", "vase", "table", "ball", "globe", "stool", "barrel", "basket", "candle",
    "trophy", "cactus", "bucket", "fan",
)  # fmt: skip
GATE_NAMES: tuple[str, ...] = ("red door", "blue door", "green door")
ROOM_SIDE = 6  # interior side of a room in points: the paper's main setting uses 6 x 6 rooms
FACING_SHARE = 0.6  # share of objects that have a facing direction

# slots of a 2x2 layout as (column, row); the rooms of a k-room world are k connected slots
_SLOTS = ((0, 0), (1, 0), (0, 1), (1, 1))
_LAYOUTS: dict[int, list[tuple[tuple[int, int], ...]]] = {
    1: [((0, 0),)],
    2: [((0, 0), (1, 0)), ((0, 0), (0, 1))],
    3: [tuple(s for s in _SLOTS if s != miss) for miss in _SLOTS],
    4: [_SLOTS],
}


def _adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def generate_world(rooms: int, objects_per_room: int, seed: int, room_side: int = ROOM_SIDE) -> World:
    """A random world: `rooms` rooms of `room_side` x `room_side` points in connected slots of a 2x2
    layout, joined by doors along a spanning tree, `objects_per_room` named objects per room, the
    agent at (0, 0) (a random point of room 0, facing north)."""
    rng = random.Random(seed)
    slots = list(rng.choice(_LAYOUTS[rooms]))
    rng.shuffle(slots)  # the first slot is the agent's room
    widths = [room_side, room_side]
    heights = [room_side, room_side]
    col_x0 = [0, widths[0] + 1]
    row_y0 = [0, heights[0] + 1]
    raw_rooms = []
    for i, (c, r) in enumerate(slots):
        x0, y0 = col_x0[c], row_y0[r]
        raw_rooms.append((i, x0, y0, x0 + widths[c] - 1, y0 + heights[r] - 1))
    # doors along a random spanning tree of the slot adjacency (grown from the agent's room)
    gates_raw: list[tuple[int, int, tuple[int, int]]] = []
    joined = [0]
    while len(joined) < len(slots):
        options = [
            (a, b)
            for a in joined
            for b in range(len(slots))
            if b not in joined and _adjacent(slots[a], slots[b])
        ]
        a, b = rng.choice(options)
        ra, rb = raw_rooms[a], raw_rooms[b]
        if slots[a][1] == slots[b][1]:  # side by side: a vertical wall x = between the columns
            x = max(ra[1], rb[1]) - 1
            y = rng.randint(max(ra[2], rb[2]), min(ra[4], rb[4]))
        else:
            y = max(ra[2], rb[2]) - 1
            x = rng.randint(max(ra[1], rb[1]), min(ra[3], rb[3]))
        gates_raw.append((x, y, (min(a, b), max(a, b))))
        joined.append(b)
    start_room = raw_rooms[0]
    sx, sy = rng.randint(start_room[1], start_room[3]), rng.randint(start_room[2], start_room[4])
    names_f = list(FACING_NAMES)
    names_p = list(PLAIN_NAMES)
    rng.shuffle(names_f)
    rng.shuffle(names_p)
    objs: list[WorldObject] = []
    for rid, x0, y0, x1, y1 in raw_rooms:
        free = [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) if (x, y) != (sx, sy)]
        for x, y in rng.sample(free, objects_per_room):
            if rng.random() < FACING_SHARE and names_f:
                name, facing = names_f.pop(), rng.choice(FACINGS)
            else:
                name, facing = (names_p.pop(), None) if names_p else (names_f.pop(), rng.choice(FACINGS))
            objs.append(WorldObject(name=name, x=x - sx, y=y - sy, room=rid, facing=facing))
    xs = [c for r in raw_rooms for c in (r[1], r[3])]
    ys = [c for r in raw_rooms for c in (r[2], r[4])]
    return World(
        width=max(xs) - min(xs) + 3,
        height=max(ys) - min(ys) + 3,
        rooms=[Room(id=i, x0=a - sx, y0=b - sy, x1=c - sx, y1=d - sy) for i, a, b, c, d in raw_rooms],
        gates=[
            Gate(name=GATE_NAMES[k], x=x - sx, y=y - sy, rooms=rr) for k, (x, y, rr) in enumerate(gates_raw)
        ],
        objects=objs,
    )


# --- oracle explorer ----------------------------------------------------------------------------
def reachable_rooms(world: World, observed: Iterable[str]) -> frozenset[int]:
    """Rooms the agent can get into: its start room, then through every observed door."""
    seen = set(observed)
    rooms = set(rooms_at(world, 0, 0))
    changed = True
    while changed:
        changed = False
        for g in world.gates:
            if g.name in seen and set(g.rooms) & rooms and not set(g.rooms) <= rooms:
                rooms |= set(g.rooms)
                changed = True
    return frozenset(rooms)


def standing_points(world: World, observed: frozenset[str]) -> list[tuple[int, int]]:
    """Points the agent can stand on: the start, and every observed item in a reachable room."""
    rooms = reachable_rooms(world, observed)
    pts = [(0, 0)]
    for it in items_of(world):
        if it.name in observed and it.rooms & rooms:
            pts.append((it.x, it.y))
    return pts


def plan_observations(
    world: World, targets: Iterable[str] | None = None, limit: int = 40, known: frozenset[str] = frozenset()
) -> list[Pose]:
    """A shortest list of Observe poses that sees every target (all objects by default).

    Moves are free, so the cost of an exploration is its number of Observe() turns; a turn can
    reach any standing point (jumps through items already known, Return() to the start), except
    the first, which may not jump. `known` are items observed in an earlier phase: they can be
    jumped to but still have to be seen again. The search is breadth-first over the sets seen so
    far, keeping only sets not contained in another of the same depth (seeing more never reaches
    less), so it is exact and small.
    """
    want = frozenset(o.name for o in world.objects) if targets is None else frozenset(targets)
    items = items_of(world)
    views: dict[Pose, frozenset[str]] = {}

    def view(pose: Pose) -> frozenset[str]:
        v = views.get(pose)
        if v is None:
            v = views[pose] = frozenset(i.name for i in visible_items(world, pose, items))
        return v

    level: dict[frozenset[str], list[Pose]] = {frozenset(): []}
    for depth in range(limit):
        nxt: dict[frozenset[str], list[Pose]] = {}
        for seen, path in sorted(level.items(), key=lambda kv: sorted(kv[0])):
            points = [(0, 0)] if depth == 0 else standing_points(world, known | seen)
            for x, y in points:
                for facing in FACINGS:
                    pose = Pose(x, y, facing)
                    new = seen | view(pose)
                    if new != seen and new not in nxt:
                        nxt[new] = path + [pose]
        done = [s for s in nxt if want <= s]
        if done:
            best = min(done, key=lambda s: (-len(s), sorted(s)))
            return nxt[best]
        if not nxt:
            break
        # keep the maximal sets only
        keys = sorted(nxt, key=len, reverse=True)
        kept: list[frozenset[str]] = []
        for k in keys:
            if not any(k < other for other in kept):
                kept.append(k)
        level = {k: nxt[k] for k in kept}
    raise ValueError("no observation plan within the limit covers every object")


def moves_to(world: World, pose: Pose, target: Pose, observed: frozenset[str]) -> list[str]:
    """Move actions (Return, Rotate, JumpTo) taking the agent from `pose` to `target`, each jump
    to an observed item that is in the field of view when it is made."""
    moves: list[str] = []
    cur = pose
    if (target.x, target.y) == (0, 0):
        if (cur.x, cur.y) != (0, 0):
            moves.append("Return()")
            cur = START
    elif (cur.x, cur.y) != (target.x, target.y):
        by_point = {(it.x, it.y): it for it in items_of(world) if it.name in observed}
        # breadth-first over standing points joined when they share a room
        start = (cur.x, cur.y)
        prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = [start]
        goal = (target.x, target.y)
        while queue and goal not in prev:
            p = queue.pop(0)
            here = rooms_at(world, *p)
            for q, it in sorted(by_point.items(), key=lambda kv: kv[1].name):
                if q not in prev and it.rooms & here:
                    prev[q] = p
                    queue.append(q)
        if goal not in prev:
            moves.append("Return()")
            return moves + moves_to(world, START, target, observed)[0:]
        hops = []
        q: tuple[int, int] | None = goal
        while q is not None and q != start:
            hops.append(q)
            q = prev[q]
        for hx, hy in reversed(hops):
            if not in_fov(cur, hx, hy):
                for deg in (90, -90, 180):
                    if in_fov(Pose(cur.x, cur.y, turn(cur.facing, deg)), hx, hy):
                        moves.append(f"Rotate({deg})")
                        cur = Pose(cur.x, cur.y, turn(cur.facing, deg))
                        break
            moves.append(f"JumpTo({by_point[(hx, hy)].name})")
            cur = Pose(hx, hy, cur.facing)
    deg = rotation_between(cur.facing, target.facing)
    if deg:
        moves.append(f"Rotate({deg})")
    return moves


def plan_turns(
    world: World, poses: list[Pose], start: Pose = START, observed: frozenset[str] = frozenset()
) -> list[str]:
    """The oracle's turns (`Actions: [...]` strings) that observe from `poses` in order."""
    turns = []
    cur = start
    seen = set(observed)
    items = items_of(world)
    for pose in poses:
        moves = moves_to(world, cur, pose, frozenset(seen))
        turns.append("Actions: [" + ", ".join([*moves, "Observe()"]) + "]")
        seen |= {i.name for i in visible_items(world, pose, items)}
        cur = pose
    return turns


@lru_cache(maxsize=1024)
def cached_world(
    rooms: int, objects: int, seed: int, index: int | str, max_steps: int, room_side: int = ROOM_SIDE
) -> tuple[World, tuple[Pose, ...]]:
    """The `index`-th world for these parameters with its oracle plan; a world whose plan would not
    fit the step cap (with one turn left for Term) is replaced by the next draw. Cached: every tos
    task draws the same worlds, and the kernel's instance cache is per task."""
    for attempt in range(100):
        world = generate_world(
            rooms,
            objects,
            derive_seed("tos-world", rooms, objects, room_side, seed, index, attempt),
            room_side,
        )
        try:
            poses = plan_observations(world, limit=max_steps)
        except ValueError:
            continue
        if len(poses) + 1 <= max_steps:
            return world, tuple(poses)
    raise ValueError(
        f"no world with {rooms} rooms and {objects} objects per room fits a step cap of {max_steps}"
    )
