"""Theory of Space worlds: rooms, doors, objects and the observation model (the generators are in
`worldgen.py`, the oracle's exploration plan in `oracle_plan.py`).

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
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

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
