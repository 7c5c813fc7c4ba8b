"""Procedural rooms: furniture against the walls and in the open, chain props on or beside it.

`generate` builds one instance from realised chains and a seeded `random.Random`: the room sizes
and scene types, the doors (a connecting door per pair of rooms, an exit to the outside in the
last room), each scene's typical furniture (with companions: nightstands beside a bed, a chair at
a desk, a coffee table before a sofa, chairs round a dining table), wall decorations, the visible
chain props (keys and notes on surfaces, boxes on the floor or on a large surface), clutter, and
the start pose. It then runs the oracle on the result and keeps the room only if the oracle
escapes; otherwise it draws again from the same generator (so the result is still a function of
the seed).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.chain import Chain
from playbench.tasks.mmescape.schema import DoorSpec, EscapeInstance, Placed, Pose, PropPlace, RoomSpec

Rect = tuple[float, float, float, float]
GAP = 0.1  # between pieces of furniture
DOOR_ZONE = 1.4  # kept free in front of a door, metres into the room
MAX_ATTEMPTS = 40
# The original's generated rooms are 7.3 m squares (3 x 3 floor tiles of 2.5 m) with 10-20 pieces
# of furniture and about as many small objects on them; ours vary around that size.
ROOM_SIDE = (6.6, 8.0)
EXTRA_CHANCE = 0.85  # each of a scene's optional pieces is tried with this probability
CLUTTER_COUNT = (7, 12)  # distractor objects per room


def _overlap(a: Rect, b: Rect, gap: float = 0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _inside(r: Rect, room: RoomSpec, margin: float = 0.0) -> bool:
    return (
        r[0] >= room.x0 + margin
        and r[1] >= room.z0 + margin
        and r[2] <= room.x0 + room.width - margin
        and r[3] <= room.z0 + room.depth - margin
    )


class _RoomPlan:
    """Furniture footprints, reserved zones and surfaces of one room while it is being furnished."""

    def __init__(self, index: int, room: RoomSpec, zones: list[Rect]) -> None:
        self.index, self.room, self.zones = index, room, zones
        self.rects: list[tuple[Rect, float]] = []  # footprint and height of each standing piece
        self.mounted: list[tuple[str, Rect]] = []  # wall, span rectangle
        self.pieces: list[Placed] = []
        self.floor_props: list[Rect] = []

    def fits(self, rect: Rect, gap: float = GAP) -> bool:
        if not _inside(rect, self.room):
            return False
        if any(_overlap(rect, z) for z in self.zones):
            return False
        return not any(_overlap(rect, r, gap) for r, _ in self.rects) and not any(
            _overlap(rect, r, gap) for r in self.floor_props
        )

    def add(self, piece: Placed) -> None:
        self.pieces.append(piece)
        kind = fx.KINDS[piece.kind]
        if kind.solid and not kind.mounted:
            self.rects.append((geo.footprint(piece.kind, piece.x, piece.z, piece.rot), kind.height))


def _against_wall(room: RoomSpec, wall: str, along: float, depth: float) -> tuple[float, float, int]:
    axis, plane, _, _ = geo.wall_line(room, wall)
    nx, nz = geo.inward(wall)
    into = depth / 2 + 0.01
    if axis == "x":
        return along, plane + nz * into, geo.WALL_YAW[wall]
    return plane + nx * into, along, geo.WALL_YAW[wall]


def _front(x: float, z: float, rot: int, distance: float) -> tuple[float, float]:
    dx, dz = geo.rotate_xz(0.0, 1.0, rot)
    return x + dx * distance, z + dz * distance


def _side(x: float, z: float, rot: int, distance: float) -> tuple[float, float]:
    dx, dz = geo.rotate_xz(1.0, 0.0, rot)
    return x + dx * distance, z + dz * distance


def _try_wall_piece(plan: _RoomPlan, kind: str, rng: random.Random, walls: list[str]) -> bool:
    k = fx.KINDS[kind]
    for _ in range(30):
        wall = rng.choice(walls)
        _, _, a0, a1 = geo.wall_line(plan.room, wall)
        lo, hi = a0 + k.width / 2 + 0.02, a1 - k.width / 2 - 0.02
        if lo >= hi:
            continue
        along = rng.uniform(lo, hi)
        x, z, rot = _against_wall(plan.room, wall, along, k.depth)
        piece = Placed(kind=kind, room=plan.index, x=x, z=z, rot=rot, variant=rng.randrange(1 << 30))
        companions = _companions(plan, piece, rng)
        if companions is None:
            continue
        plan.add(piece)
        for c in companions:
            plan.add(c)
        return True
    return False


def _companions(plan: _RoomPlan, piece: Placed, rng: random.Random) -> list[Placed] | None:
    """Pieces that go with `piece`, or None when `piece` itself does not fit."""
    rect = geo.footprint(piece.kind, piece.x, piece.z, piece.rot)
    if not plan.fits(rect):
        return None
    k = fx.KINDS[piece.kind]
    out: list[Placed] = []
    taken: list[Rect] = [rect]

    def offer(kind: str, x: float, z: float, rot: int, required: bool = False) -> bool:
        r = geo.footprint(kind, x, z, rot)
        if plan.fits(r) and not any(_overlap(r, t, 0.02) for t in taken):
            out.append(Placed(kind=kind, room=plan.index, x=x, z=z, rot=rot, variant=rng.randrange(1 << 30)))
            taken.append(r)
            return True
        return not required

    if piece.kind == "bed":
        ns = fx.KINDS["nightstand"]
        for sign in (-1, 1):
            x, z = _side(piece.x, piece.z, piece.rot, sign * (k.width / 2 + ns.width / 2 + 0.05))
            x, z = _front(x, z, piece.rot, -(k.depth - ns.depth) / 2)
            offer("nightstand", x, z, piece.rot)
    elif piece.kind == "desk":
        x, z = _front(piece.x, piece.z, piece.rot, k.depth / 2 + 0.27)
        offer("chair", x, z, (piece.rot + 180) % 360)
    elif piece.kind == "sofa":
        ct = fx.KINDS["coffee_table"]
        x, z = _front(piece.x, piece.z, piece.rot, k.depth / 2 + 0.55 + ct.depth / 2)
        if offer("coffee_table", x, z, piece.rot) and rng.random() < 0.7:
            out.insert(
                0,
                Placed(kind="rug", room=plan.index, x=x, z=z, rot=piece.rot, variant=rng.randrange(1 << 30)),
            )
    return out


def _try_dining(plan: _RoomPlan, rng: random.Random) -> bool:
    k = fx.KINDS["dining_table"]
    room = plan.room
    for _ in range(30):
        rot = rng.choice((0, 90))
        x = rng.uniform(room.x0 + 1.6, room.x0 + room.width - 1.6)
        z = rng.uniform(room.z0 + 1.6, room.z0 + room.depth - 1.6)
        piece = Placed(
            kind="dining_table", room=plan.index, x=x, z=z, rot=rot, variant=rng.randrange(1 << 30)
        )
        rect = geo.footprint("dining_table", x, z, rot)
        # keep a walkway of a metre around the table and its chairs
        grown = (rect[0] - 0.9, rect[1] - 0.9, rect[2] + 0.9, rect[3] + 0.9)
        if not plan.fits(rect) or any(_overlap(grown, r) for r, _ in plan.rects):
            continue
        plan.add(piece)
        for sign in (-1, 1):
            for along in (-0.4, 0.4):
                cx, cz = _side(x, z, rot, along)
                cx, cz = _front(cx, cz, rot, sign * (k.depth / 2 + 0.25))
                chair_rot = (rot + (180 if sign > 0 else 0)) % 360
                plan.add(
                    Placed(
                        kind="chair",
                        room=plan.index,
                        x=cx,
                        z=cz,
                        rot=chair_rot,
                        variant=rng.randrange(1 << 30),
                    )
                )
        return True
    return False


def _try_rug(plan: _RoomPlan, rng: random.Random) -> None:
    room = plan.room
    for _ in range(10):
        rot = rng.choice((0, 90))
        x = rng.uniform(room.x0 + 1.5, room.x0 + room.width - 1.5)
        z = rng.uniform(room.z0 + 1.5, room.z0 + room.depth - 1.5)
        rect = geo.footprint("rug", x, z, rot)
        if _inside(rect, room, 0.3) and not any(_overlap(rect, r) for r, _ in plan.rects):
            plan.pieces.insert(
                0, Placed(kind="rug", room=plan.index, x=x, z=z, rot=rot, variant=rng.randrange(1 << 30))
            )
            return


def _try_mounted(
    plan: _RoomPlan, kind: str, rng: random.Random, walls: list[str], door_spans: list[tuple[str, Rect]]
) -> None:
    k = fx.KINDS[kind]
    room = plan.room
    for _ in range(20):
        wall = rng.choice(walls)
        _, _, a0, a1 = geo.wall_line(room, wall)
        if a1 - a0 < k.width + 0.6:
            continue
        along = rng.uniform(a0 + k.width / 2 + 0.3, a1 - k.width / 2 - 0.3)
        x, z, rot = _against_wall(room, wall, along, k.depth)
        x, z = _front(x, z, rot, -0.009)  # flush with the wall (1 mm off), not 1 cm like furniture
        span = geo.footprint(kind, x, z, rot)
        reach = (span[0] - 0.35, span[1] - 0.35, span[2] + 0.35, span[3] + 0.35)
        if any(w == wall and _overlap(span, r, 0.3) for w, r in plan.mounted + door_spans):
            continue
        if any(_overlap(reach, r) and h > 0.9 for r, h in plan.rects):
            continue
        plan.mounted.append((wall, span))
        plan.pieces.append(
            Placed(kind=kind, room=plan.index, x=x, z=z, rot=rot, variant=rng.randrange(1 << 30))
        )
        return


# --- small things on surfaces ----------------------------------------------------------------


class _Surface:
    def __init__(self, rect: Rect, y: float, clearance: float, owner: str) -> None:
        self.rect, self.y, self.clearance, self.owner = rect, y, clearance, owner
        self.used: list[Rect] = []

    def put(self, w: float, d: float, h: float, rng: random.Random, rot: int) -> tuple[float, float] | None:
        if rot % 180:
            w, d = d, w
        if h > self.clearance:
            return None
        x0, z0, x1, z1 = self.rect
        if x1 - x0 < w or z1 - z0 < d:
            return None
        for _ in range(12):
            x = rng.uniform(x0 + w / 2, x1 - w / 2)
            z = rng.uniform(z0 + d / 2, z1 - d / 2)
            r = (x - w / 2, z - d / 2, x + w / 2, z + d / 2)
            if not any(_overlap(r, u, 0.04) for u in self.used):
                self.used.append(r)
                return x, z
        return None


def _surfaces(plan: _RoomPlan) -> list[_Surface]:
    out = []
    for piece in plan.pieces:
        for s in fx.surfaces(piece.kind):
            lx0, lz0, lx1, lz1 = s.rect
            corners = [geo.rotate_xz(a, b, piece.rot) for a in (lx0, lx1) for b in (lz0, lz1)]
            xs = [piece.x + c[0] for c in corners]
            zs = [piece.z + c[1] for c in corners]
            out.append(
                _Surface((min(xs), min(zs), max(xs), max(zs)), s.y, s.clearance, fx.KINDS[piece.kind].name)
            )
    return out


def _place_props(
    plan: _RoomPlan, chain: Chain, surfaces: list[_Surface], rng: random.Random
) -> list[PropPlace] | None:
    out: list[PropPlace] = []
    for it in chain.items:
        if not it.show:
            continue
        w, d, h = fx.PROP_SIZE[it.type]
        placed = False
        if it.type == "box" and rng.random() < 0.55:
            placed = _box_on_floor(plan, it.id, rng, out)
        if not placed:
            for s in rng.sample(surfaces, len(surfaces)):
                rot = rng.choice((0, 90, 180, 270))
                spot = s.put(w, d, h, rng, rot)
                if spot is not None:
                    out.append(
                        PropPlace(
                            item=it.id, room=plan.index, x=spot[0], y=s.y, z=spot[1], rot=rot, on=s.owner
                        )
                    )
                    placed = True
                    break
        if not placed and it.type == "box":
            placed = _box_on_floor(plan, it.id, rng, out)
        if not placed:
            return None
    return out


def _box_on_floor(plan: _RoomPlan, item: str, rng: random.Random, out: list[PropPlace]) -> bool:
    w, d, _ = fx.PROP_SIZE["box"]
    walls = ["north", "south", "west", "east"]
    for _ in range(30):
        wall = rng.choice(walls)
        _, _, a0, a1 = geo.wall_line(plan.room, wall)
        along = rng.uniform(a0 + w, a1 - w)
        x, z, rot = _against_wall(plan.room, wall, along, d)
        x, z = _front(x, z, rot, 0.04)
        rect = geo.prop_footprint("box", x, z, rot)
        if plan.fits(rect, gap=0.2):
            plan.floor_props.append(rect)
            out.append(PropPlace(item=item, room=plan.index, x=x, y=0.0, z=z, rot=rot, on="floor"))
            return True
    return False


def _clutter(
    plan: _RoomPlan, scene: fx.SceneType, surfaces: list[_Surface], rng: random.Random
) -> list[Placed]:
    out: list[Placed] = []
    for _ in range(rng.randint(*CLUTTER_COUNT)):
        kind = rng.choice(scene.clutter)
        w, d, h = fx.CLUTTER[kind]
        for s in rng.sample(surfaces, len(surfaces)):
            rot = rng.choice((0, 90, 180, 270))
            spot = s.put(w, d, h, rng, rot)
            if spot is not None:
                out.append(
                    Placed(
                        kind=kind,
                        room=plan.index,
                        x=spot[0],
                        y=s.y,
                        z=spot[1],
                        rot=rot,
                        variant=rng.randrange(1 << 30),
                    )
                )
                break
    return out


# --- rooms, doors, start ---------------------------------------------------------------------


def _door_zones(
    inst_rooms: list[RoomSpec], doors: list[DoorSpec], k: int
) -> tuple[list[Rect], list[tuple[str, Rect]]]:
    """Floor kept free in front of every door of room k, and the doors' spans on its walls."""
    zones: list[Rect] = []
    spans: list[tuple[str, Rect]] = []
    room = inst_rooms[k]
    for door in doors:
        sides = []
        if door.room == k:
            sides.append(door.wall)
        if door.leads_to == k:
            sides.append({"east": "west", "west": "east", "north": "south", "south": "north"}[door.wall])
        for wall in sides:
            axis, plane, _, _ = geo.wall_line(room, wall)
            nx, nz = geo.inward(wall)
            half = geo.DOOR_W / 2 + 0.35
            if axis == "x":
                z1 = plane + nz * DOOR_ZONE
                zones.append((door.center - half, min(plane, z1), door.center + half, max(plane, z1)))
                spans.append((wall, (door.center - half, plane - 0.1, door.center + half, plane + 0.1)))
            else:
                x1 = plane + nx * DOOR_ZONE
                zones.append((min(plane, x1), door.center - half, max(plane, x1), door.center + half))
                spans.append((wall, (plane - 0.1, door.center - half, plane + 0.1, door.center + half)))
    return zones, spans


def free_spots(world: geo.World, room: RoomSpec) -> list[tuple[float, float]]:
    """Where a player may start: the points of a 0.25 m grid of the room at least 0.7 m from anything."""
    obstacles = world.obstacles(geo.VisualState())
    spots = []
    step = 0.25
    nx = int(room.width / step)
    nz = int(room.depth / step)
    for i in range(1, nx):
        for j in range(1, nz):
            x, z = room.x0 + i * step, room.z0 + j * step
            if all(_clearance(ob, x, z) >= 0.7 for ob in obstacles):
                spots.append((x, z))
    return spots


def _start_pose(world: geo.World, room: RoomSpec, rng: random.Random) -> Pose | None:
    spots = free_spots(world, room)
    if not spots:
        return None
    x, z = rng.choice(spots)
    return Pose(x=round(x, 3), z=round(z, 3), yaw=float(rng.randrange(360)), pitch=0.0)


def _clearance(ob: geo.Obstacle, x: float, z: float) -> float:
    dx = max(ob.x0 - x, 0.0, x - ob.x1)
    dz = max(ob.z0 - z, 0.0, z - ob.z1)
    return math.hypot(dx, dz)


Solver = Callable[[EscapeInstance], tuple[int, float] | None]


def generate(
    instance_id: str,
    level: str,
    chains: list[Chain],
    rng: random.Random,
    max_steps: int,
    solve: Solver,
    scene: str | None = None,
    view: geo.ViewSpec = geo.SQUARE_512,
) -> EscapeInstance:
    """A furnished instance whose prop chains the oracle (`solve`: steps and distance, or None)
    can escape; `chains` are already realised (passwords and stories filled in)."""
    last_error = "no attempt made"
    for _ in range(MAX_ATTEMPTS):
        inst = _attempt(instance_id, level, chains, rng, max_steps, scene)
        if inst is None:
            last_error = "furniture or props did not fit"
            continue
        solved = solve(inst)
        if solved is None:
            last_error = "the oracle could not escape"
            continue
        steps, distance = solved
        if steps > max_steps:
            last_error = f"the oracle needs {steps} steps, more than the cap {max_steps}"
            continue
        return inst.model_copy(
            update={
                "optimal_steps": steps,
                "optimal_distance": round(distance, 4),
                "exit_visible_at_start": exit_visible(inst, view),
            }
        )
    raise RuntimeError(f"could not generate a playable room for {instance_id} ({last_error})")


def draft(
    instance_id: str, level: str, chains: list[Chain], rng: random.Random, max_steps: int, scene: str | None
) -> EscapeInstance | None:
    """One furnished room set with a random start (None when the furniture or props did not fit),
    before the oracle's check: what `generate` tries, and what a twin (`twins.py`) searches."""
    return _attempt(instance_id, level, chains, rng, max_steps, scene)


def _attempt(
    instance_id: str, level: str, chains: list[Chain], rng: random.Random, max_steps: int, scene: str | None
) -> EscapeInstance | None:
    n = len(chains)
    depth = round(rng.uniform(*ROOM_SIDE), 1)
    rooms: list[RoomSpec] = []
    x0 = 0.0
    names = list(fx.SCENE_NAMES)
    for k, chain in enumerate(chains):
        kind = scene or rng.choice(names)
        if scene is None and n > 1 and k > 0 and kind == rooms[-1].scene:
            kind = rng.choice([s for s in names if s != kind])
        st = fx.SCENES[kind]
        width = round(rng.uniform(*ROOM_SIDE), 1)
        rooms.append(
            RoomSpec(
                scene=kind,
                x0=round(x0, 3),
                z0=0.0,
                width=width,
                depth=depth,
                wall_color=rng.choice(st.walls),
                floor_color=rng.choice(st.floors),
                chain=chain,
            )
        )
        x0 += width + geo.WALL_T
    doors: list[DoorSpec] = []
    for k, room in enumerate(rooms):
        if k < n - 1:
            center = rng.uniform(room.z0 + 1.2, room.z0 + room.depth - 1.2)
            doors.append(DoorSpec(room=k, wall="east", center=round(center, 3), leads_to=k + 1))
        else:
            walls = ["north", "south", "east"] + (["west"] if k == 0 else [])
            wall = rng.choice(walls)
            _, _, a0, a1 = geo.wall_line(room, wall)
            doors.append(
                DoorSpec(room=k, wall=wall, center=round(rng.uniform(a0 + 1.0, a1 - 1.0), 3), leads_to=None)
            )
    furniture: list[Placed] = []
    clutter: list[Placed] = []
    props: list[PropPlace] = []
    for k, room in enumerate(rooms):
        zones, spans = _door_zones(rooms, doors, k)
        plan = _RoomPlan(k, room, zones)
        st = fx.SCENES[room.scene]
        walls = ["north", "south", "west", "east"]
        for kind in st.anchors:
            if kind == "dining_table":
                _try_dining(plan, rng)
            else:
                _try_wall_piece(plan, kind, rng, walls)
        extras = [e for e in st.extras if rng.random() < EXTRA_CHANCE]
        for kind in extras:
            if kind == "rug":
                _try_rug(plan, rng)
            elif kind == "dining_table":
                _try_dining(plan, rng)
            elif fx.KINDS[kind].wall:
                _try_wall_piece(plan, kind, rng, walls)
        for kind in st.decorations:
            _try_mounted(plan, kind, rng, walls, spans)
        surfaces = _surfaces(plan)
        if not surfaces and any(it.show and it.type != "box" for it in room.chain.items):
            return None
        room_props = _place_props(plan, room.chain, surfaces, rng)
        if room_props is None:
            return None
        props += room_props
        clutter += _clutter(plan, st, surfaces, rng)
        furniture += plan.pieces
    draft = EscapeInstance(
        id=instance_id,
        level=level,
        rooms=rooms,
        doors=doors,
        furniture=furniture,
        clutter=clutter,
        props=props,
        start=Pose(x=0.0, z=0.0),
        max_steps=max_steps,
    )
    world = geo._build_world(draft)
    start = _start_pose(world, rooms[0], rng)
    if start is None:
        return None
    return draft.model_copy(update={"start": start})


def exit_visible(inst: EscapeInstance, view: geo.ViewSpec = geo.SQUARE_512) -> bool:
    """Whether any of a few points of the first room's exit door is in the start view, unhidden."""
    world = geo.build_world(inst)
    parts, _ = world.parts(geo.VisualState())
    caster = geo.RayCaster(parts)
    door = inst.doors[0]
    room = inst.rooms[door.room]
    eye = (inst.start.x, geo.EYE_H, inst.start.z)
    for along in (-0.35, 0.0, 0.35):
        for y in (0.4, 1.0, 1.8):
            point = geo._local_to_world_door(room, door, along, y, 0.04)
            if not geo.in_view(inst.start.yaw, inst.start.pitch, view, eye, point):
                continue
            v = np.subtract(point, eye)
            hit, _ = caster.cast(np.array(eye), v / np.linalg.norm(v))
            if hit == geo.DOOR_BASE:
                return True
    return False
