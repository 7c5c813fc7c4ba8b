"""The global cognitive map (JSON) and the false-belief changes: prompts, parsing, scoring."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import numpy as np
from pydantic import BaseModel

from playbench.tasks.tos.grammar import normalize_name
from playbench.tasks.tos.world import (
    FACINGS,
    HEADING,
    UNIT,
    Item,
    Pose,
    World,
    bearing,
    cardinal_bin,
    items_of,
    turn,
    visible_items,
)

COGMAP_PROMPT = """Build your cognitive map of the scene as one JSON object.
Schema: every entry has "position": [x, y] (integers) and, for anything with a facing direction, "facing": one of "north", "east", "south", "west".
Frame: global. The origin [0, 0] is where you started, and the way you faced then is north (x grows to the east, y to the north); the world is a {width}×{height} grid.
Content: every object and door you have observed (and nothing you have not), plus yourself under the key "agent" with where you stand and face now. Objects that have a facing direction MUST carry the "facing" key.
Example: {{"agent": {{"position": [1, -2], "facing": "south"}}, "table": {{"position": [3, -2], "facing": "west"}}, "lamp": {{"position": [4, 1]}}}}
Reply with the JSON object (you may reason before it; the last JSON object in your reply is read)."""


LOCAL_PROMPT = """Then give a second JSON object: your local map, in your own frame.
Frame: local. It must include "origin": "agent"; the origin is your current position and +y is the direction you currently face (+x to your right). Positions are [x, y] in that frame; facings are "+x", "-x", "+y" or "-y" in that frame. Include only the objects and doors in your field of view from where you stand now (no "agent" entry; an empty view gives {"origin": "agent"}).
Example: {"origin": "agent", "table": {"position": [1, 2], "facing": "+x"}, "lamp": {"position": [-1, 3]}}
Reply with the global JSON object first and the local one after it."""
LOCAL_FACINGS: dict[int, str] = {0: "+y", 90: "+x", 180: "-y", 270: "-x"}


def cogmap_prompt(world: World, local: bool = False) -> str:
    text = COGMAP_PROMPT.format(width=world.width, height=world.height)
    return text + "\n" + LOCAL_PROMPT if local else text


def to_local(agent: Pose, x: int, y: int, facing: str | None) -> tuple[tuple[int, int], str | None]:
    """A global point and facing in the agent's frame (+y ahead, +x to the right)."""
    fx, fy = UNIT[agent.facing]
    rx, ry = UNIT[turn(agent.facing, 90)]
    dx, dy = x - agent.x, y - agent.y
    local_facing = None if facing is None else LOCAL_FACINGS[(HEADING[facing] - HEADING[agent.facing]) % 360]
    return (dx * rx + dy * ry, dx * fx + dy * fy), local_facing


def local_truth_map(world: World, agent: Pose) -> dict[str, Any]:
    """The true local map: what is in view from the agent's pose, in the agent's frame (the paper's
    local snapshot records only the currently visible objects, with the current pose as origin)."""
    out: dict[str, Any] = {"origin": "agent"}
    for it in visible_items(world, agent):
        (lx, ly), lf = to_local(agent, it.x, it.y, it.facing)
        out[it.name] = {"position": [lx, ly]} | ({"facing": lf} if lf else {})
    return out


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in `text`, in order."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    i = 0
    while True:
        at = text.find("{", i)
        if at < 0:
            return out
        try:
            obj, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            i = at + 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = end


def _local_entry(value: Any) -> tuple[tuple[int, int] | None, str | None]:
    point, _ = _entry(value)
    facing = value.get("facing") if isinstance(value, dict) else None
    return point, facing.strip() if isinstance(
        facing, str
    ) and facing.strip() in LOCAL_FACINGS.values() else None


def score_local(
    world: World,
    agent: Pose,
    global_map: dict[str, Any] | None,
    local_map: dict[str, Any] | None,
) -> dict[str, Any]:
    """Local map accuracy against the true view, and its consistency with the agent's global map.

    The local map holds what is in view from the agent's pose. accuracy: share of the visible items
    placed (facing: oriented) exactly. consistency: share of the items that are in view or named in
    the local map whose local entry equals their global entry carried into the frame of the agent
    pose the global map itself gives (a missing entry on either side, or a global map without a
    valid agent pose, is inconsistent), so a wrong but self-consistent pair of maps scores 1. An
    empty view with an empty local map is vacuously right.
    """
    pred = {normalize_name(k): _local_entry(v) for k, v in (local_map or {}).items() if k != "origin"}
    seen = visible_items(world, agent)
    pos_hits = face_hits = faced = 0
    for it in seen:
        (lx, ly), lf = to_local(agent, it.x, it.y, it.facing)
        pos_hits += pred.get(it.name, (None, None))[0] == (lx, ly)
        if lf is not None:
            faced += 1
            face_hits += pred.get(it.name, (None, None))[1] == lf
    glob = {normalize_name(k): _entry(v) for k, v in (global_map or {}).items() if k != "origin"}
    pose_pos, pose_facing = glob.pop("agent", (None, None))
    names = {it.name for it in seen} | set(pred)
    consistent = 0
    if pose_pos is not None and pose_facing is not None:
        own = Pose(pose_pos[0], pose_pos[1], pose_facing)
        for name in names:
            g, loc = glob.get(name), pred.get(name)
            if g is None or loc is None or g[0] is None:
                continue
            want_pos, want_facing = to_local(own, g[0][0], g[0][1], g[1])
            consistent += loc == (want_pos, want_facing)
    return {
        "local_parsed": local_map is not None,
        "local_position_accuracy": pos_hits / len(seen) if seen else float(not pred),
        "local_facing_accuracy": face_hits / faced if faced else 1.0,
        "local_global_consistency": consistent / len(names) if names else 1.0,
        "local_visible": len(seen),
    }


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last top-level JSON object in `text` that parses, or None."""
    objects = json_objects(text)
    return objects[-1] if objects else None


def _entry(value: Any) -> tuple[tuple[int, int] | None, str | None]:
    if not isinstance(value, dict):
        return None, None
    pos = value.get("position")
    point = None
    numeric = isinstance(pos, list | tuple) and len(pos) == 2 and all(isinstance(v, int | float) for v in pos)
    if numeric and all(float(v).is_integer() for v in pos):
        point = (int(pos[0]), int(pos[1]))
    facing = value.get("facing")
    facing = facing.strip().lower() if isinstance(facing, str) and facing.strip().lower() in FACINGS else None
    return point, facing


def truth_map(world: World, observed: frozenset[str], agent: Pose) -> dict[str, Any]:
    out: dict[str, Any] = {"agent": {"position": [agent.x, agent.y], "facing": agent.facing}}
    for it in items_of(world):
        if it.name in observed:
            entry: dict[str, Any] = {"position": [it.x, it.y]}
            if it.facing is not None:
                entry["facing"] = it.facing
            out[it.name] = entry
    return out


def position_similarity(
    pred: dict[str, tuple[tuple[int, int] | None, str | None]], truth: list[Item], scale: float
) -> float:
    """The paper's positional accuracy (K/N) * exp(-RMSE / L): K of the N true items are placed,
    RMSE is the root mean squared distance of those K from their true points and L (`scale`) the
    RMS norm of the positions of all items of the scene (start frame)."""
    placed = [(pred[it.name][0], it) for it in truth if pred.get(it.name, (None, None))[0] is not None]
    if not truth or not placed:
        return 0.0
    sq = [(p[0] - it.x) ** 2 + (p[1] - it.y) ** 2 for p, it in placed if p is not None]
    rmse = math.sqrt(sum(sq) / len(sq))
    return len(placed) / len(truth) * math.exp(-rmse / scale)


def scene_scale(world: World) -> float:
    """L: the RMS norm of the positions of every object and door (at least 1)."""
    items = items_of(world)
    return max(1.0, math.sqrt(sum(it.x * it.x + it.y * it.y for it in items) / len(items))) if items else 1.0


def score_cogmap(world: World, observed: frozenset[str], agent: Pose, reply: str) -> dict[str, Any]:
    """Position, direction and facing accuracy of a global map against the whole world.

    Every object and door of the world counts, observed or not, so an incomplete exploration
    shows in the map's score (the `observed_*` variant restricts it to what was observed).
    position: the paper's (K/N) * exp(-RMSE / L) (`position_similarity`), and `position_exact`
    the share of objects and doors placed exactly; direction: share of ordered pairs of objects
    whose cardinal bin in the map equals the true one (a missing object gets its pairs wrong);
    facing: share of objects with a facing given the right one. `map_score` (the paper's
    correctness) is the mean of position, direction and facing accuracy.
    """
    data = last_json_object(reply if isinstance(reply, str) else str(reply))
    metrics: dict[str, Any] = {"map_parsed": data is not None}
    pred: dict[str, tuple[tuple[int, int] | None, str | None]] = {}
    for key, value in (data or {}).items():
        if isinstance(key, str) and key not in ("origin",):
            pred[normalize_name(key)] = _entry(value)
    truth = items_of(world)
    seen = [it for it in truth if it.name in observed]

    def placed(it: Any) -> bool:
        return pred.get(it.name, (None, None))[0] == (it.x, it.y)

    objs = [it for it in truth if not it.is_gate]
    pairs = [(a, b) for a in objs for b in objs if a.name != b.name]
    dir_hits = 0
    for a, b in pairs:
        pa, pb = pred.get(a.name, (None, None))[0], pred.get(b.name, (None, None))[0]
        if pa is not None and pb is not None and pa != pb:
            want = cardinal_bin(bearing(a.x - b.x, a.y - b.y))
            dir_hits += cardinal_bin(bearing(pa[0] - pb[0], pa[1] - pb[1])) == want
    faced = [it for it in objs if it.facing is not None]
    face_hits = sum(pred.get(it.name, (None, None))[1] == it.facing for it in faced)
    agent_pred = pred.get("agent", (None, None))
    names = {it.name for it in truth}
    scale = scene_scale(world)
    metrics.update(
        position_accuracy=position_similarity(pred, truth, scale),
        observed_position_accuracy=position_similarity(pred, seen, scale),
        position_exact=sum(map(placed, truth)) / len(truth),
        direction_accuracy=dir_hits / len(pairs) if pairs else 1.0,
        facing_accuracy=face_hits / len(faced) if faced else 1.0,
        agent_correct=agent_pred == ((agent.x, agent.y), agent.facing),
        hallucinated=sum(1 for k in pred if k != "agent" and k not in names),
        mapped=sum(1 for k in pred if k in names),
    )
    metrics["map_score"] = (
        metrics["position_accuracy"] + metrics["direction_accuracy"] + metrics["facing_accuracy"]
    ) / 3
    return metrics


# --- false belief -----------------------------------------------------------------------------
class Change(BaseModel):
    """One object moved (`position`: its new point) or turned (`orientation`: its new facing)."""

    name: str
    kind: str
    x: int
    y: int
    facing: str | None = None


_ORI_ORDER: tuple[str, ...] = ("north", "east", "south", "west")  # theirs: (0,1), (1,0), (0,-1), (-1,0)


def make_changes(world: World, n: int, seed: int) -> list[Change]:
    """The authors' false-belief changes (`ObjectModifier` in `tos_base/utils/room_modifier.py`,
    run with numpy's generator as theirs is): up to two objects with a facing are turned to another
    facing, then objects taken from a shuffled pool of the others are moved to a free point of any
    room at least 6 away, until `n` changes are made. Never both to one object. `seed` is the
    scene's run number for the authors' scenes (their environment seeds it so)."""
    rng = np.random.default_rng(seed)
    objects = list(world.objects)
    orientable = [k for k, o in enumerate(objects) if o.facing is not None]
    n_turn = min(2, len(orientable), n)
    turned = (
        [orientable[int(i)] for i in rng.choice(len(orientable), size=n_turn, replace=False)]
        if n_turn
        else []
    )
    changes: list[Change] = []
    for k in turned:
        o = objects[k]
        options = [f for f in _ORI_ORDER if f != o.facing]
        changes.append(Change(name=o.name, kind="orientation", x=o.x, y=o.y,
                              facing=options[int(rng.integers(0, len(options)))]))  # fmt: skip
    occupied = {(i.x, i.y) for i in items_of(world)} | {(0, 0)}
    pool = [int(i) for i in rng.permutation([k for k in range(len(objects)) if k not in turned])]
    # room points in the order of the authors' mask scan (x, then y)
    cells = sorted(c for r in world.rooms for c in r.cells())
    while pool and len(changes) < n:
        o = objects[pool.pop()]
        free = [c for c in cells if c not in occupied and (c[0] - o.x) ** 2 + (c[1] - o.y) ** 2 >= 36]
        if not free:
            continue
        x, y = free[int(rng.integers(0, len(free)))]
        occupied.discard((o.x, o.y))
        occupied.add((x, y))
        changes.append(Change(name=o.name, kind="position", x=x, y=y, facing=o.facing))
    return changes


def make_room_changes(world: World, n: int, rng: random.Random) -> list[Change]:
    """Our earlier changes (`--set change_rule=room`): `n` objects, each moved to a free point of
    its own room or turned (50/50 for objects with a facing)."""
    occupied = {(o.x, o.y) for o in world.objects} | {(0, 0)}
    chosen = rng.sample(sorted(world.objects, key=lambda o: o.name), min(n, len(world.objects)))
    out = []
    for o in chosen:
        room = next(r for r in world.rooms if r.id == o.room)
        free = [c for c in room.cells() if c not in occupied]
        if o.facing is not None and (rng.random() < 0.5 or not free):
            out.append(Change(name=o.name, kind="orientation", x=o.x, y=o.y,
                              facing=rng.choice([f for f in FACINGS if f != o.facing])))  # fmt: skip
        elif free:
            x, y = rng.choice(free)
            occupied.add((x, y))
            out.append(Change(name=o.name, kind="position", x=x, y=y, facing=o.facing))
    return out


def apply_changes(world: World, changes: list[Change]) -> World:
    """The world after the changes (a moved object belongs to the room its new point is in)."""
    objs = []
    for o in world.objects:
        upd: dict[str, Any] = {}
        for c in changes:
            if c.name != o.name:
                continue
            if c.kind == "position":
                room = next((r.id for r in world.rooms if r.contains(c.x, c.y)), o.room)
                upd.update(x=c.x, y=c.y, room=room)
            else:
                upd["facing"] = c.facing
        objs.append(o.model_copy(update=upd) if upd else o)
    return world.model_copy(update={"objects": objs})


def change_labels(changes: list[Change]) -> list[tuple[str, str]]:
    return [(c.name, c.kind) for c in changes]
