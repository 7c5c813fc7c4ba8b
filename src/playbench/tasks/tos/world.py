"""Theory of Space worlds: rooms, doors, objects, the observation model, generators, the oracle.

Frame: x grows to the east, y to the north; every coordinate is an integer point and the agent
starts at (0, 0) facing north, so stored coordinates are already in the start frame that `Query`
and the allocentric questions use. Angles are degrees clockwise from north (bearings) or from the
agent's heading (egocentric: 0 is straight ahead, + is clockwise, - counter-clockwise).

A room is a rectangle of interior points [x0..x1] x [y0..y1]; the lines just outside are walls.
Two rooms side by side share one wall line and a door is one point on it. A point on a door
belongs to both rooms it joins: standing there the agent sees into both.

The observation model, its texts and the default generator follow the authors' environment
(`vagen/env/spatial/Base/tos_base` in mll-lab-nu/Theory-of-Space; see the suite README's fidelity
table): items are listed in the scene's object order and then the doors, close pairs follow under
the "your facing is north" note, cardinal labels are written with a space ("north east").
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
from playbench.tasks.tos.feedback import OURS, Feedback

Facing = Literal["north", "east", "south", "west"]
FACINGS: tuple[str, ...] = ("north", "east", "south", "west")
# the eight headings the authors' localization and navigation questions use (multiples of 45°)
HEADINGS8: tuple[str, ...] = (
    "north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west",
)  # fmt: skip
HEADING: dict[str, int] = {name: 45 * k for k, name in enumerate(HEADINGS8)}
FACING_OF_HEADING: dict[int, str] = {v: k for k, v in HEADING.items()}
UNIT: dict[str, tuple[int, int]] = {
    "north": (0, 1), "north-east": (1, 1), "east": (1, 0), "south-east": (1, -1),
    "south": (0, -1), "south-west": (-1, -1), "west": (-1, 0), "north-west": (-1, 1),
}  # fmt: skip
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270, -90, -180, -270)  # the degrees Rotate accepts (theirs)

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
# the environment writes its cardinal labels with a space (its answers are compared normalised)
CARDINAL_LABELS: dict[str, str] = {b: b.replace("-", " ") for b in CARDINAL_BINS}
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
PROXIMITY = 2.0  # close pairs: objects at most this far apart (theirs: ProximityRelationship)


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
    """Allocentric bin of a bearing (clockwise from north): (-22.5, 22.5] is north, then 45° each.
    (Integer offsets never fall on an edge, so the authors' [-22.5, 22.5) reading agrees.)"""
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
    """Egocentric angle of an offset for an agent heading `facing` (one of 8), in (-180, 180]."""
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

    def cells(self) -> list[tuple[int, int]]:
        return [(x, y) for x in range(self.x0, self.x1 + 1) for y in range(self.y0, self.y1 + 1)]


class Gate(BaseModel):
    """A door: one point on the wall between two rooms. `rooms` lists the room on the west (or
    south) side first; the door's own facing (what `Query` reports) points into the second."""

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


class TaskPose(BaseModel):
    """A pose the scene prepared for a question (the authors' vision scenes render three)."""

    x: int
    y: int
    facing: Facing
    family: str = "view2location"


class World(BaseModel):
    """A grid world; `width` x `height` is its N×M extent including the outer walls."""

    width: int
    height: int
    rooms: list[Room]
    gates: list[Gate] = Field(default_factory=list)
    objects: list[WorldObject]
    # what Query reports as the facing of an object without one (the authors' scene loader gives
    # such objects east, their generator north); None: Query reports no facing for them
    unoriented_facing: Facing | None = None
    task_poses: list[TaskPose] = Field(default_factory=list)
    source: str | None = None  # the scene folder a loaded world came from (e.g. "run05")


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
    """Objects in the scene's order, then the doors: the order every view lists them in."""
    out = [Item(o.name, o.x, o.y, frozenset((o.room,)), o.facing, False) for o in world.objects]
    out += [Item(g.name, g.x, g.y, frozenset(g.rooms), None, True) for g in world.gates]
    return out


def room_by_id(world: World, rid: int) -> Room:
    return next(r for r in world.rooms if r.id == rid)


def rooms_at(world: World, x: int, y: int) -> frozenset[int]:
    for g in world.gates:
        if (g.x, g.y) == (x, y):
            return frozenset(g.rooms)
    return frozenset(r.id for r in world.rooms if r.contains(x, y))


def gate_facing(world: World, name: str) -> str:
    """A door's own facing: from its first room into its second (what Query reports for it)."""
    g = next(g for g in world.gates if g.name == name)
    wall = room_by_id(world, g.rooms[1]).wall_of(g.x, g.y)
    return {"east": "west", "west": "east", "north": "south", "south": "north"}[wall]


@dataclass(frozen=True)
class Pose:
    x: int
    y: int
    facing: str  # one of the 4 facings while exploring; questions may use the 8 headings


START = Pose(0, 0, "north")


def in_fov(pose: Pose, x: int, y: int) -> bool:
    dx, dy = x - pose.x, y - pose.y
    return (dx, dy) != (0, 0) and ego_bin(relative_angle(dx, dy, pose.facing)) != "beyond-fov"


def visible_items(
    world: World, pose: Pose, items: Iterable[Item] | None = None, rooms: frozenset[int] | None = None
) -> list[Item]:
    """What Observe() reports from `pose`: items in a room the agent is in (`rooms`, by default the
    rooms of its point), inside the 90° field of view, not at the agent's own point; in the scene's
    order (objects, then doors)."""
    here = rooms_at(world, pose.x, pose.y) if rooms is None else rooms
    seen = []
    for it in items_of(world) if items is None else items:
        if (it.x, it.y) == (pose.x, pose.y) or not (it.rooms & here):
            continue
        if in_fov(pose, it.x, it.y):
            seen.append(it)
    return seen


def gate_wall(world: World, gate: Item, agent_rooms: frozenset[int]) -> str:
    """The wall (north/east/south/west) of the agent's room that `gate` sits on."""
    shared = sorted(gate.rooms & agent_rooms) or sorted(gate.rooms)
    room = room_by_id(world, shared[0])
    return room.wall_of(gate.x, gate.y)


def item_orientation(world: World, pose: Pose, it: Item, rooms: frozenset[int] | None = None) -> str | None:
    """`facing forward|right|backward|left` of an object, `on <front|right|back|left> wall` of a
    door, relative to the agent; None for an object without a facing."""
    if it.is_gate:
        wall = gate_wall(world, it, rooms_at(world, pose.x, pose.y) if rooms is None else rooms)
        return f"on {WALL_WORDS[(HEADING[wall] - HEADING[pose.facing]) % 360]} wall"
    if it.facing is not None:
        return f"facing {ego_orientation(it.facing, pose.facing)}"
    return None


def describe_item(world: World, pose: Pose, it: Item, rooms: frozenset[int] | None = None) -> str:
    """One observation entry: `name: <ego bin>, <distance bin>[, orientation]`."""
    dx, dy = it.x - pose.x, it.y - pose.y
    text = f"{it.name}: {ego_bin(relative_angle(dx, dy, pose.facing))}, {distance_bin_points(dx, dy)}"
    ori = item_orientation(world, pose, it, rooms)
    return f"{text}, {ori}" if ori else text


def close_pairs(pose: Pose, seen: list[Item]) -> list[str]:
    """Relations between visible items at most 2 apart, with the agent's heading called north:
    `a is <cardinal>, <distance> to b` for every pair in listing order."""
    lines = []
    for i, a in enumerate(seen):
        for b in seen[i + 1 :]:
            dx, dy = a.x - b.x, a.y - b.y
            if dx * dx + dy * dy > PROXIMITY * PROXIMITY:
                continue
            rel = (bearing(dx, dy) - HEADING[pose.facing]) % 360.0
            lines.append(
                f"{a.name} is {CARDINAL_LABELS[cardinal_bin(rel)]}, {distance_bin_points(dx, dy)} to {b.name}"
            )
    return lines


def view_answer(world: World, pose: Pose, rooms: frozenset[int] | None = None, words: Feedback = OURS) -> str:
    """What an Observe() reports from `pose`, as the environment writes it: one `• entry` line per
    visible item after a line break, then the close pairs after the note (`words`: `feedback.py`)."""
    seen = visible_items(world, pose, rooms=rooms)
    if not seen:
        return words.nothing
    text = "\n" + "\n".join(f"• {describe_item(world, pose, it, rooms)}" for it in seen)
    pairs = close_pairs(pose, seen)
    if pairs:
        text += words.pairs_text("\n".join(f"• {p}" for p in pairs))
    return text


def observe_message(
    world: World, pose: Pose, rooms: frozenset[int] | None = None, words: Feedback = OURS
) -> str:
    return words.observe_text(view_answer(world, pose, rooms, words))


def observation_text(world: World, pose: Pose) -> str:
    """The view from `pose` (the Observe() answer without the leading line break)."""
    return view_answer(world, pose).lstrip("\n")


def observation_key(world: World, pose: Pose) -> tuple[str, ...]:
    """What an observation says, comparable between poses (used to check question uniqueness)."""
    return tuple(describe_item(world, pose, it) for it in visible_items(world, pose))


def pair_relation(world_obj: WorldObject | Item, anchor: WorldObject | Item) -> str:
    """`<cardinal>, <distance>` of an object relative to an anchor (top-down, north up)."""
    dx, dy = world_obj.x - anchor.x, world_obj.y - anchor.y
    return f"{CARDINAL_LABELS[cardinal_bin(bearing(dx, dy))]}, {distance_bin_points(dx, dy)}"


def ego_relation(pose: Pose, x: int, y: int) -> str:
    dx, dy = x - pose.x, y - pose.y
    return f"{ego_bin(relative_angle(dx, dy, pose.facing))}, {distance_bin_points(dx, dy)}"


# --- the default generator (the authors' scene layout) ------------------------------------------
# Object vocabulary of the authors' scenes (their 3-room example scenes), with whether each kind
# has a facing direction there.
ORIENTED_NAMES: tuple[str, ...] = (
    "television", "chair", "truck", "bike", "backpack", "pan", "cap", "rubberduck", "laptop",
    "shoes", "shoppingcart", "airplane", "alarmclock", "desklamp", "teddybear", "scooter",
)  # fmt: skip
UNORIENTED_NAMES: tuple[str, ...] = (
    "lamp", "vase", "shelf", "books", "wine", "basket", "table", "plant",
)  # fmt: skip
TOS_GATE_NAMES: tuple[str, ...] = (
    "red door", "blue door", "green door", "yellow door", "purple door", "orange door",
)  # fmt: skip
MIN_SPACING = 1.42  # minimum distance between two objects (their scenes' `min_distance`)
SIDES: tuple[str, ...] = ("north", "east", "south", "west")


def _spaced(p: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= MIN_SPACING * MIN_SPACING for q in taken)


def generate_world(rooms: int, objects_per_room: int, seed: int, room_side: int = 6) -> World:
    """A world laid out as the authors' scenes: a main room (room 1, where the agent starts)
    with every other room attached to one of its sides (2 rooms: a line; 3: a T; 4: a cross),
    each joined to the main room by one door; rooms of `room_side` x `room_side` points, shifted
    along the shared wall by a random offset; `objects_per_room` objects per room at least 1.42
    apart; the agent at a free point of the main room, facing north."""
    rng = random.Random(seed)
    s = room_side
    raw: list[tuple[int, int, int, int]] = [(0, 0, s - 1, s - 1)]
    doors: list[tuple[int, int, int]] = []  # (x, y, room index)
    for side in rng.sample(SIDES, rooms - 1):
        for _ in range(100):
            shift = rng.randint(-(s // 2), s // 2)
            if side in ("north", "south"):
                y0 = s + 1 if side == "north" else -s - 1
                box = (shift, y0, shift + s - 1, y0 + s - 1)
                lo, hi = max(0, shift), min(s - 1, shift + s - 1)
                wall = (s if side == "north" else -1, None)
            else:
                x0 = s + 1 if side == "east" else -s - 1
                box = (x0, shift, x0 + s - 1, shift + s - 1)
                lo, hi = max(0, shift), min(s - 1, shift + s - 1)
                wall = (None, s if side == "east" else -1)
            # rooms keep at least one wall line between them (no other room may touch this one)
            if all(
                box[2] + 1 < b[0] or box[0] > b[2] + 1 or box[3] + 1 < b[1] or box[1] > b[3] + 1
                for b in raw[1:]
            ):
                break
        else:  # pragma: no cover - four sides always fit
            raise ValueError("could not place a side room")
        raw.append(box)
        along = rng.randint(lo, hi)
        if wall[0] is not None:
            doors.append((along, wall[0], len(raw) - 1))
        else:
            doors.append((wall[1], along, len(raw) - 1))
    # objects: per room, points at least MIN_SPACING apart
    oriented = list(ORIENTED_NAMES)
    plain = list(UNORIENTED_NAMES)
    rng.shuffle(oriented)
    rng.shuffle(plain)
    placed: list[tuple[str, int, int, int, str | None]] = []
    for rid, (x0, y0, x1, y1) in enumerate(raw, start=1):
        cells = [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
        for _ in range(200):
            rng.shuffle(cells)
            taken: list[tuple[int, int]] = []
            for c in cells:
                if _spaced(c, taken):
                    taken.append(c)
                    if len(taken) == objects_per_room:
                        break
            if len(taken) == objects_per_room:
                break
        else:
            raise ValueError(f"{objects_per_room} objects at least {MIN_SPACING} apart do not fit a room")
        for x, y in taken:
            # the authors' vocabulary: about two thirds of the kinds have a facing direction
            if plain and (not oriented or rng.random() < len(plain) / (len(plain) + len(oriented))):
                placed.append((plain.pop(), x, y, rid, None))
            else:
                placed.append((oriented.pop(), x, y, rid, rng.choice(FACINGS)))
    rng.shuffle(placed)  # the scene's object order (which every view lists objects in)
    x0, y0, x1, y1 = raw[0]
    free = [
        (x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) if all((x, y) != p[1:3] for p in placed)
    ]
    sx, sy = rng.choice(free)
    room_models = [
        Room(id=i, x0=a - sx, y0=b - sy, x1=c - sx, y1=d - sy) for i, (a, b, c, d) in enumerate(raw, 1)
    ]
    gates = []
    for k, (gx, gy, ri) in enumerate(doors):
        pair = sorted((1, ri + 1), key=lambda r: (raw[r - 1][0], raw[r - 1][1]))
        gates.append(Gate(name=TOS_GATE_NAMES[k], x=gx - sx, y=gy - sy, rooms=(pair[0], pair[1])))
    objs = [WorldObject(name=n, x=x - sx, y=y - sy, room=r, facing=f) for n, x, y, r, f in placed]
    xs = [c for r in raw for c in (r[0], r[2])]
    ys = [c for r in raw for c in (r[1], r[3])]
    return World(
        width=max(xs) - min(xs) + 3,
        height=max(ys) - min(ys) + 3,
        rooms=room_models,
        gates=gates,
        objects=objs,
        unoriented_facing="north",
    )


# --- our earlier generator (option `layout=grid`) -------------------------------------------------
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


def generate_grid_world(rooms: int, objects_per_room: int, seed: int, room_side: int = ROOM_SIDE) -> World:
    """Our earlier worlds (`--set layout=grid`): `rooms` rooms in connected slots of a 2x2 layout,
    joined along a random spanning tree, objects on any free points (no spacing), the agent at a
    random point of room 1."""
    rng = random.Random(seed)
    slots = list(rng.choice(_LAYOUTS[rooms]))
    rng.shuffle(slots)  # the first slot is the agent's room
    col_x0 = [0, room_side + 1]
    row_y0 = [0, room_side + 1]
    raw_rooms = []
    for i, (c, r) in enumerate(slots):
        x0, y0 = col_x0[c], row_y0[r]
        raw_rooms.append((i, x0, y0, x0 + room_side - 1, y0 + room_side - 1))
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
        first, second = sorted((a, b), key=lambda k: (raw_rooms[k][1], raw_rooms[k][2]))
        gates_raw.append((x, y, (first + 1, second + 1)))
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
            objs.append(WorldObject(name=name, x=x - sx, y=y - sy, room=rid + 1, facing=facing))
    xs = [c for r in raw_rooms for c in (r[1], r[3])]
    ys = [c for r in raw_rooms for c in (r[2], r[4])]
    return World(
        width=max(xs) - min(xs) + 3,
        height=max(ys) - min(ys) + 3,
        rooms=[Room(id=i + 1, x0=a - sx, y0=b - sy, x1=c - sx, y1=d - sy) for i, a, b, c, d in raw_rooms],
        gates=[
            Gate(name=GATE_NAMES[k], x=x - sx, y=y - sy, rooms=rr) for k, (x, y, rr) in enumerate(gates_raw)
        ],
        objects=objs,
        unoriented_facing="north",
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
    """Observed items in reachable rooms: the points jumps can reach (moves are free and every
    item of a room the agent is in comes into view after some turn)."""
    rooms = reachable_rooms(world, observed)
    return [(it.x, it.y) for it in items_of(world) if it.name in observed and it.rooms & rooms]


def plan_observations(
    world: World,
    targets: Iterable[str] | None = None,
    limit: int = 40,
    known: frozenset[str] = frozenset(),
    allow_return: bool = False,
    seen: frozenset[str] = frozenset(),
    home: bool = True,
) -> list[Pose]:
    """A shortest list of Observe poses that sees every target (all objects by default).

    Moves are free, so the cost of an exploration is its number of Observe() turns. The agent
    starts at (0, 0) and can stay there; once it has jumped away it can come back only with
    Return() (`allow_return`, our extension). `known` are items observed in an earlier phase:
    they can be jumped to but still have to be seen again. The search is breadth-first over the
    sets seen so far (with whether the agent is still at the start), keeping only sets not
    contained in another of the same depth, so it is exact and small. `seen` and `home` start it
    from the middle of an exploration (the items observed so far; whether the agent still stands
    at the start): the rest of the plan (empty once every target is seen).
    """
    want = frozenset(o.name for o in world.objects) if targets is None else frozenset(targets)
    items = items_of(world)
    views: dict[Pose, frozenset[str]] = {}

    def view(pose: Pose) -> frozenset[str]:
        v = views.get(pose)
        if v is None:
            v = views[pose] = frozenset(i.name for i in visible_items(world, pose, items))
        return v

    if seen and want <= seen:
        return []
    level: dict[tuple[frozenset[str], bool], list[Pose]] = {(frozenset(seen), home): []}
    for _depth in range(limit):
        nxt: dict[tuple[frozenset[str], bool], list[Pose]] = {}
        for (seen, home), path in sorted(level.items(), key=lambda kv: (sorted(kv[0][0]), not kv[0][1])):
            points = standing_points(world, known | seen)
            if home or allow_return:
                points = [(0, 0), *points]
            for x, y in points:
                at_home = (x, y) == (0, 0) and (home or allow_return)
                for facing in FACINGS:
                    pose = Pose(x, y, facing)
                    new = seen | view(pose)
                    key = (new, at_home)
                    if new != seen and key not in nxt:
                        nxt[key] = path + [pose]
        done = [k for k in nxt if want <= k[0]]
        if done:
            best = min(done, key=lambda k: (-len(k[0]), sorted(k[0]), not k[1]))
            return nxt[best]
        if not nxt:
            break
        # keep the maximal sets only (being at the start is worth keeping apart: it can observe there)
        keys = sorted(nxt, key=lambda k: (len(k[0]), k[1]), reverse=True)
        kept: list[tuple[frozenset[str], bool]] = []
        for k in keys:
            if not any(k[0] <= o[0] and (o[1] or not k[1]) and k != o for o in kept):
                kept.append(k)
        level = {k: nxt[k] for k in kept}
    raise ValueError("no observation plan within the limit covers every object")


def moves_to(
    world: World, pose: Pose, target: Pose, observed: frozenset[str], allow_return: bool = False
) -> list[str]:
    """Move actions (Rotate, JumpTo; Return() when allowed) taking the agent from `pose` to `target`,
    each jump to an observed item that is in view (its room and field of view) when it is made."""
    moves: list[str] = []
    cur = pose
    if (target.x, target.y) == (0, 0) and (cur.x, cur.y) != (0, 0):
        if not allow_return:
            raise ValueError("the start cannot be reached again without Return()")
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
            if not allow_return:
                raise ValueError(f"no chain of jumps reaches {goal}")
            return ["Return()", *moves_to(world, START, target, observed, allow_return)]
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
    world: World,
    poses: list[Pose],
    start: Pose = START,
    observed: frozenset[str] = frozenset(),
    allow_return: bool = False,
) -> list[str]:
    """The oracle's turns (`Actions: [...]` strings) that observe from `poses` in order."""
    turns = []
    cur = start
    seen = set(observed)
    items = items_of(world)
    for pose in poses:
        moves = moves_to(world, cur, pose, frozenset(seen), allow_return)
        turns.append("Actions: [" + ", ".join([*moves, "Observe()"]) + "]")
        seen |= {i.name for i in visible_items(world, pose, items)}
        cur = pose
    return turns


@lru_cache(maxsize=1024)
def cached_world(
    rooms: int,
    objects: int,
    seed: int,
    index: int | str,
    max_steps: int,
    room_side: int = ROOM_SIDE,
    layout: str = "tos",
    allow_return: bool = False,
) -> tuple[World, tuple[Pose, ...]]:
    """The `index`-th world for these parameters with its oracle plan; a world whose plan would not
    fit the step cap (with one turn left for Term) is replaced by the next draw. Cached: every tos
    task draws the same worlds, and the kernel's instance cache is per task."""
    make = generate_world if layout == "tos" else generate_grid_world
    label = "tos-scene" if layout == "tos" else "tos-world"
    for attempt in range(100):
        try:
            world = make(
                rooms,
                objects,
                derive_seed(label, rooms, objects, room_side, seed, index, attempt),
                room_side,
            )
            poses = plan_observations(world, limit=max_steps, allow_return=allow_return)
        except ValueError:
            continue
        if len(poses) + 1 <= max_steps:
            return world, tuple(poses)
    raise ValueError(
        f"no world with {rooms} rooms and {objects} objects per room fits a step cap of {max_steps}"
    )
