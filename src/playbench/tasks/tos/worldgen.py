"""Theory of Space world generators: the authors' scene layout (the default) and our earlier grid
(`layout=grid`), and `cached_world`, the draw every tos task shares (see `world.py` for the frame)."""

from __future__ import annotations

import random
from functools import lru_cache

from playbench.core.task import derive_seed
from playbench.tasks.tos.oracle_plan import plan_observations
from playbench.tasks.tos.world import FACINGS, Gate, Pose, Room, World, WorldObject

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
