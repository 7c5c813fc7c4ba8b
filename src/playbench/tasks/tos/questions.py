"""The nine question families and their generators (the question text, the true answer and scoring are in
`question_scoring.py`).

The generators follow the authors' (`tos_base/evaluation/{direction,e2a,rotation,navigation_tasks,
localization,tasks}.py`, see the README's fidelity table); draws use our own seeded RNG, so the
questions are theirs in kind and distribution, not draw for draw. A question is plain data
(`{"family": ..., ...}`) stored in the instance with what scoring needs (`evaluate.py`).

Where the authors' code is not runnable as published (their navigation and localization code
turns by 45° and then asks for facing words its own relation code cannot give for such headings,
so it raises), question poses use the four cardinal facings; the README says so.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from playbench.tasks.tos.world import (
    FACINGS,
    START,
    Item,
    Pose,
    World,
    WorldObject,
    bearing,
    distance_bin_points,
    ego_bin,
    ego_relation,
    item_orientation,
    items_of,
    pair_relation,
    relative_angle,
    room_by_id,
    rooms_at,
    rotation_between,
    visible_items,
)

FAMILIES: tuple[str, ...] = (
    "pairwise-direction",
    "perspective-taking",
    "perspective-determine",
    "action2view",
    "view2action",
    "allocentric-map",
    "mental-rotation",
    "location2view",
    "view2location",
)
# the authors' class names, as their results files and the paper preset name the families
CLASS_NAMES: dict[str, str] = {
    "pairwise-direction": "DirectionEvaluationTask",
    "perspective-taking": "PovEvaluationTask",
    "perspective-determine": "BackwardPovTextEvaluationTask",
    "action2view": "Action2ViewEvaluationTask",
    "view2action": "View2ActionTextEvaluationTask",
    "allocentric-map": "AlloMappingEvaluationTask",
    "mental-rotation": "RotEvaluationTask",
    "location2view": "Location2ViewEvaluationTask",
    "view2location": "View2LocationTextEvaluationTask",
}
VIEW_FAMILIES = ("perspective-determine", "view2action", "view2location")
MAX_SHOWN = 3  # views quoted in a question show at most three entries (theirs: max_obs=3)
PLAN_CANDIDATES = 5  # navigation plans drawn per question (theirs: plan_retry)


class QuestionError(ValueError):
    """This world cannot host a question of this family (the generator tries another draw)."""


@dataclass
class Scored:
    score: float
    correct: bool
    parsed: bool
    detail: str = ""


# --- helpers -----------------------------------------------------------------------------------
def _obj(world: World, name: str) -> WorldObject | Item:
    for o in world.objects:
        if o.name == name:
            return o
    return next(i for i in items_of(world) if i.name == name)


def _entries(world: World, pose: Pose, rooms: frozenset[int]) -> list[dict[str, Any]]:
    """The view from `pose` (standing in `rooms`) as entries: name, direction, distance, orientation."""
    out = []
    for it in visible_items(world, pose, rooms=rooms):
        dx, dy = it.x - pose.x, it.y - pose.y
        out.append({
            "name": it.name,
            "direction": ego_bin(relative_angle(dx, dy, pose.facing)),
            "distance": distance_bin_points(dx, dy),
            "orientation": item_orientation(world, pose, it, rooms),
        })  # fmt: skip
    return out


def _weighted(rng: random.Random, results: list[tuple[int, Any]]) -> Any:
    """Pick a candidate with probability proportional to how many things it sees (theirs)."""
    return rng.choices([r[1] for r in results], weights=[r[0] for r in results])[0]


def _limit(rng: random.Random, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    entries = list(entries)
    if len(entries) > MAX_SHOWN:
        rng.shuffle(entries)
    return entries[:MAX_SHOWN]


def entry_text(e: dict[str, Any]) -> str:
    text = f"{e['name']}: {e['direction']}, {e['distance']}"
    return f"{text}, {e['orientation']}" if e.get("orientation") else text


def _closest_facing(dx: int, dy: int) -> str:
    """The cardinal facing closest to an offset (ties to the earlier of north, east, south, west)."""
    best = max(FACINGS, key=lambda f: {"north": dy, "east": dx, "south": -dy, "west": -dx}[f])
    return best


# --- generators ----------------------------------------------------------------------------------
def _direction(world: World, rng: random.Random) -> dict[str, Any]:
    objs = list(world.objects)
    if len(objs) < 2:
        raise QuestionError("needs two objects")
    rng.shuffle(objs)
    obj, anchor = objs[0], objs[1]
    return {"obj": obj.name, "anchor": anchor.name, "answer": pair_relation(obj, anchor)}


def _anchor_pose(o: WorldObject) -> tuple[Pose, frozenset[int]]:
    return Pose(o.x, o.y, o.facing or "north"), frozenset((o.room,))


def _perspective_taking(world: World, rng: random.Random) -> dict[str, Any]:
    oriented = [o for o in world.objects if o.facing]
    rng.shuffle(oriented)
    for anchor in oriented:
        pose, rooms = _anchor_pose(anchor)
        cands = [o for o in world.objects if o is not anchor]
        rng.shuffle(cands)
        seen = [o for o in cands if (o.x, o.y) != (pose.x, pose.y) and o.room in rooms
                and ego_bin(relative_angle(o.x - pose.x, o.y - pose.y, pose.facing)) != "beyond-fov"]  # fmt: skip
        if seen:
            target = rng.choice(seen)
            return {
                "anchor": anchor.name,
                "obj": target.name,
                "answer": ego_relation(pose, target.x, target.y),
            }
    raise QuestionError("no oriented object sees another object")


def _perspective_determine(world: World, rng: random.Random) -> dict[str, Any]:
    oriented = [o for o in world.objects if o.facing]
    rng.shuffle(oriented)
    results = []
    for o in oriented:
        pose, rooms = _anchor_pose(o)
        entries = _entries(world, pose, rooms)
        if entries:
            results.append((len(entries), (o, entries)))
    if not results:
        raise QuestionError("no oriented object sees anything")
    anchor, entries = _weighted(rng, results)
    return {
        "anchor": anchor.name,
        "answer": anchor.name,
        "rooms": [anchor.room],
        "shown": _limit(rng, entries),
    }


def _plan(world: World, rng: random.Random, steps: int) -> tuple[list[tuple[str, Any]], Pose]:
    """A navigation plan from the start (theirs: `_generate_plan`): `steps` jumps, each to an
    object or door of the agent's room(s), a door chosen six times in ten when one is there and,
    after a door, an object of the room beyond it preferred; a turn towards each target first,
    then a final facing that sees at least one thing."""
    pose = START
    plan: list[tuple[str, Any]] = []
    after_gate: frozenset[int] = frozenset()
    items = items_of(world)
    for _ in range(steps):
        here = rooms_at(world, pose.x, pose.y)
        cand = [i for i in items if i.rooms & here and (i.x, i.y) != (pose.x, pose.y)]
        if not cand:
            raise QuestionError("nowhere to jump")
        gates = [i for i in cand if i.is_gate]
        plain = [i for i in cand if not i.is_gate]
        if after_gate:
            pool = [i for i in plain if i.rooms & after_gate] or plain or gates
            target = rng.choice(pool)
        elif gates and rng.randrange(10) < 6:
            target = rng.choice(gates)
        else:
            target = rng.choice(plain or cand)
        facing = _closest_facing(target.x - pose.x, target.y - pose.y)
        deg = rotation_between(pose.facing, facing)
        if deg:
            plan.append(("rotate", -180 if deg == 180 else deg))
        plan.append(("jumpto", target.name))
        pose = Pose(target.x, target.y, facing)
        after_gate = (target.rooms - here) if target.is_gate else frozenset()
    rooms = rooms_at(world, pose.x, pose.y)
    options = [f for f in FACINGS if visible_items(world, Pose(pose.x, pose.y, f), rooms=rooms)]
    final = rng.choice(options) if options else "north"
    deg = rotation_between(pose.facing, final)
    if deg:
        plan.append(("rotate", -180 if deg == 180 else deg))
    return plan, Pose(pose.x, pose.y, final)


def _plan_with_view(
    world: World, rng: random.Random, steps: int
) -> tuple[list[tuple[str, Any]], Pose, list[dict[str, Any]]]:
    results = []
    for _ in range(PLAN_CANDIDATES):
        plan, end = _plan(world, rng, steps)
        entries = _entries(world, end, rooms_at(world, end.x, end.y))
        if entries:
            results.append((len(entries), (plan, end, entries)))
    if not results:
        raise QuestionError("no plan ends with something in view")
    plan, end, entries = _weighted(rng, results)
    return plan, end, _limit(rng, entries)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe_jump(world: World, pose: Pose, name: str) -> str:
    """A jump written relative to the agent (theirs: `_describe_target`): the target's bins, and
    when other visible things share both bins, its rank from the left and from near to far."""
    target = _obj(world, name)
    dx, dy = target.x - pose.x, target.y - pose.y
    d_bin, s_bin = ego_bin(relative_angle(dx, dy, pose.facing)), distance_bin_points(dx, dy)
    group = []
    for it in visible_items(world, pose):
        ix, iy = it.x - pose.x, it.y - pose.y
        if ego_bin(relative_angle(ix, iy, pose.facing)) == d_bin and distance_bin_points(ix, iy) == s_bin:
            group.append((it.name, relative_angle(ix, iy, pose.facing), ix * ix + iy * iy))
    if len(group) > 1:
        left = 1 + [g[0] for g in sorted(group, key=lambda g: g[1])].index(name)
        near = 1 + [g[0] for g in sorted(group, key=lambda g: g[2])].index(name)
        near_text = (
            "nearest" if near == 1 else "farthest" if near == len(group) else f"{_ordinal(near)} nearest"
        )
        return (f"Among the things at {d_bin}, {s_bin} from you, you jump to the {_ordinal(left)} from the "
                f"left, which is also the {near_text} one.")  # fmt: skip
    return f"You jump to the thing at {d_bin}, {s_bin}."


def plan_lines(world: World, plan: list[tuple[str, Any]]) -> list[str]:
    lines, pose = [], START
    for k, (kind, arg) in enumerate(plan, start=1):
        if kind == "rotate":
            lines.append(f"{k}. Rotate({arg})")
            pose = Pose(pose.x, pose.y, _turned(pose.facing, arg))
        else:
            lines.append(f"{k}. {describe_jump(world, pose, arg)}")
            t = _obj(world, arg)
            pose = Pose(t.x, t.y, pose.facing)
    return lines


def _turned(facing: str, deg: int) -> str:
    return FACINGS[(FACINGS.index(facing) + deg // 90) % 4]


def _action2view(world: World, rng: random.Random) -> dict[str, Any]:
    plan, end, shown = _plan_with_view(world, rng, steps=2)
    rng.shuffle(shown)
    first = shown[0]
    return {
        "plan": [list(p) for p in plan],
        "target": first["name"],
        "answer": f"{first['direction']}, {first['distance']}",
    }


def _view2action(world: World, rng: random.Random) -> dict[str, Any]:
    plan, end, shown = _plan_with_view(world, rng, steps=3)
    return {
        "plan": [list(p) for p in plan],
        "x": end.x,
        "y": end.y,
        "facing": end.facing,
        "rooms": sorted(rooms_at(world, end.x, end.y)),
        "shown": shown,
    }


def _allocentric(world: World, rng: random.Random) -> dict[str, Any]:
    pool = list(world.objects)
    rng.shuffle(pool)
    count = rng.randint(3, min(5, len(pool))) if len(pool) >= 3 else len(pool)
    if count < 1:
        raise QuestionError("no objects")
    chosen = pool[:count]
    return {"objects": [o.name for o in chosen], "coords": [[o.x, o.y] for o in chosen]}


ROTATION_EPS = 30.0  # objects chosen for mental rotation differ in bearing by more than this (theirs)


def _rotation(world: World, rng: random.Random) -> dict[str, Any]:
    direction = rng.choice(["clockwise", "counterclockwise"])
    cands = []
    for o in world.objects:
        if (o.x, o.y) == (0, 0):
            continue
        b = bearing(o.x, o.y)
        ang = b % 360.0 if direction == "clockwise" else (-b) % 360.0
        if ang < 1e-3 or ang > 360.0 - 1e-3:
            continue  # never the object straight ahead at the start
        cands.append((o.name, ang, o.x * o.x + o.y * o.y))
    if len(cands) < 3:
        raise QuestionError("fewer than three objects for the rotation")
    schedule = list(
        dict.fromkeys(max(v, 1.0) for v in (ROTATION_EPS, ROTATION_EPS / 2, ROTATION_EPS / 4, 1.0))
    )
    for eps in schedule:
        for _ in range(5):
            rng.shuffle(cands)
            picked: list[tuple[str, float, int]] = []
            for c in cands:
                if all(abs(c[1] - p[1]) > eps for p in picked):
                    picked.append(c)
            if len(picked) >= 3:
                picked.sort(key=lambda c: (c[1], c[2]))
                count = rng.randint(3, min(len(picked), 5))
                order = [c[0] for c in picked[:count]]
                return {"direction": direction, "objects": sorted(order), "answer": order}
    raise QuestionError("no well separated objects for the rotation")


def _pick_room(world: World, rng: random.Random) -> int:
    rids = [r.id for r in world.rooms]
    rng.shuffle(rids)
    for rid in rids:
        objs = [o for o in world.objects if o.room == rid]
        if any((a.x - b.x) ** 2 + (a.y - b.y) ** 2 > 1 for a, b in itertools.combinations(objs, 2)):
            return rid
    return world.rooms[0].id


def _located_pose(world: World, rng: random.Random) -> tuple[Pose, int, list[dict[str, Any]]]:
    """A free point and facing that sees at least two things (theirs: `_pick_best_pose_and_obs`)."""
    occupied = {(o.x, o.y) for o in world.objects}
    results = []
    for _ in range(20):
        rid = _pick_room(world, rng)
        room = room_by_id(world, rid)
        for _ in range(10):
            x, y = rng.randint(room.x0, room.x1), rng.randint(room.y0, room.y1)
            if (x, y) not in occupied:
                pose = Pose(x, y, rng.choice(FACINGS))
                entries = _entries(world, pose, frozenset((rid,)))
                if len(entries) >= 2:
                    results.append((len(entries), (pose, rid, entries)))
                break
    if not results:
        raise QuestionError("no point sees two things")
    pose, rid, entries = _weighted(rng, results)
    return pose, rid, _limit(rng, entries)


def _origin(world: World, rng: random.Random, rid: int) -> dict[str, Any]:
    """The start, or (when the pose is in another room) a door of the pose's room (theirs)."""
    if rid in rooms_at(world, 0, 0):
        return {"origin": None, "ox": 0, "oy": 0}
    gates = [g for g in world.gates if rid in g.rooms]
    if not gates:
        return {"origin": None, "ox": 0, "oy": 0}
    g = rng.choice(gates)
    return {"origin": g.name, "ox": g.x, "oy": g.y}


def _location2view(world: World, rng: random.Random) -> dict[str, Any]:
    pose, rid, entries = _located_pose(world, rng)
    origin = _origin(world, rng, rid)
    first = entries[0]
    return {"x": pose.x, "y": pose.y, "facing": pose.facing, **origin, "target": first["name"],
            "answer": f"{first['direction']}, {first['distance']}"}  # fmt: skip


def _view2location(world: World, rng: random.Random, task_pose: Pose | None = None) -> dict[str, Any]:
    if task_pose is None:
        pose, rid, entries = _located_pose(world, rng)
    else:  # a pose the scene prepared (the authors' vision scenes)
        pose = task_pose
        rid = min(rooms_at(world, pose.x, pose.y))
        entries = _limit(rng, _entries(world, pose, frozenset((rid,))))
    origin = _origin(world, rng, rid)
    return {"x": pose.x, "y": pose.y, "facing": pose.facing, "room": rid, **origin, "shown": entries,
            "coord": [pose.x - origin["ox"], pose.y - origin["oy"]]}  # fmt: skip


_GENERATORS = {
    "pairwise-direction": _direction,
    "perspective-taking": _perspective_taking,
    "perspective-determine": _perspective_determine,
    "action2view": _action2view,
    "view2action": _view2action,
    "allocentric-map": _allocentric,
    "mental-rotation": _rotation,
    "location2view": _location2view,
    "view2location": _view2location,
}


def make_question(world: World, family: str, seed: int, task_pose: Pose | None = None) -> dict[str, Any]:
    """A question of `family` about `world` (raises QuestionError if the world cannot host one)."""
    rng = random.Random(seed)
    if family == "view2location" and task_pose is not None:
        q = _view2location(world, rng, task_pose)
    else:
        q = _GENERATORS[family](world, rng)
    return {"family": family, **q}
