"""Spatial belief probing: the cognitive maps the authors ask for during exploration, and their scores.

The authors probe a model's belief after every exploration turn with separate questions that never
enter the exploration itself: a global map, a local map and an uncertainty ("fog") probe; and after
every turn of the false-belief phase, a global map of everything. This module holds those prompts
(our words, their facts: `tos_base/prompts/cogmap_prompts.py`) and our own implementation of their
scoring (`managers/cognitive_map_manager.py`, `utils/cogmap/{metrics,consistency,transforms,
unexplored}.py`, `managers/exploration_manager.py` in mll-lab-nu/Theory-of-Space, MIT), checked
against the metrics their recorded runs logged (tests/test_tos_probing.py):

- A map is read as theirs reads it: the largest JSON object in the reply (fenced blocks first);
  flat `{name: {"position": [x, y], "facing": ...}}` or nested `{"objects": ..., "gates": ...}`;
  a global map keeps the observed objects, every door and "agent"; a local map keeps what is in
  view and turns its `+x/-x/+y/-y` facings into world facings with the agent's true facing. A facing
  word they do not know counts as north; an entry without a facing has none.
- Two maps compare on the names of the truth: direction (share of all pairs, the start included as
  "initial", whose cardinal bin agrees), facing (share of the truth's oriented objects, doors and
  unoriented objects aside, given the right facing), position (exp(-RMSE / L) times the share of
  names placed; L the RMS distance of the scene's objects from the start) and overall (their mean).
- Per turn: global against the observed truth, the full truth (the final turn: "correctness") and
  the agent alone ("self-tracking"); local against the true view ("perception"); local against the
  global map carried into the agent pose the global map gives ("local-global"); the fog probe's F1
  ("uncertainty"). Over turns: "stability", for each pair of successive turns, the share of objects
  not seen in the later turn whose predicted position did not move away from the truth (facing: did
  not turn wrong, nor change while wrong).
- False belief: each changed object is scored the turn it is first seen again: its position and
  facing in that turn's map against the new truth ("belief correctness") and against the model's
  own map at the end of the first exploration ("belief inertia": how much of the old belief stayed).

An unreadable map scores nothing (their extraction failure: the turn drops out of the averages).
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from playbench.tasks.tos.world import (
    FACINGS,
    UNIT,
    Item,
    Pose,
    World,
    gate_facing,
    in_fov,
    items_of,
    rooms_at,
    turn,
    visible_items,
)

# --- prompts (our words; the facts of their cognitive-map prompts) ------------------------------
_SCHEMA = """Cognitive map (JSON): describe the scene as one JSON object.
- position: [x, y], integers
- facing: "north", "south", "east" or "west" (global map) or "+x", "-x", "+y", "-y" (local map)"""

_OBSERVED_ONLY = """- Put in only the objects you have observed.
- Every object that has a facing direction MUST have a "facing" key."""

GLOBAL_SPEC = """Global cognitive map:
- A compact global map of the N×M grid.
- Frame: [0, 0] is your initial position, and the direction you faced at the start is north.
- Content: every object and door you have observed, and yourself as "agent".
- Facing: only "north", "south", "east" or "west".
Example:
```json
{
    "agent": {"position": [1, -2], "facing": "south"},
    "table": {"position": [3, -2], "facing": "west"},
    "sofa": {"position": [4, 1], "facing": "north"}
}
```"""

FALSE_BELIEF_SPEC = """Global cognitive map:
- A compact global map of the N×M grid.
- Frame: [0, 0] is your initial position, and the direction you faced at the start is north.
- Content: ALL objects and doors, and yourself as "agent".
- Facing: only "north", "south", "east" or "west".
Note: the map must hold every object and every door.
Example:
```json
{
    "agent": {"position": [1, -2], "facing": "south"},
    "table": {"position": [3, -2], "facing": "west"},
    "sofa": {"position": [4, 1], "facing": "north"}
}
```"""

LOCAL_SPEC = """Local cognitive map:
- Layout: an "objects" dictionary whose positions and facings are taken from where you stand and face now.
- Frame: it must contain "origin": "agent". The origin is your current position and facing:
  - +y is straight ahead of you;
  - facing +y, +x is to your right, -x to your left and -y behind you;
  - every position and facing is given in this frame.
- Content: the "objects" dictionary holds every object and door you can see from here now; leave yourself out.
- Facing: "+x", "-x", "+y" or "-y" (the local axes).
Example:
```json
{
    "origin": "agent",
    "objects": {
      "table": {"position": [1, 2], "facing": "+x"}
    }
}
```"""

FOG_SPEC = """Unexplored regions:
{legend}
The map marks candidate points with the letters A-Z. Pick the points that lie in regions you have not explored (not yet observed).
Map:
{map}
Example:
```json
{{
    "unexplored": ["A", "C"]
}}
```"""

FOG_LEGEND = """Map symbols: `#` wall or outside, `.` floor of a room, `+` door, `*` you (your current position), `A`, `B`, ... the candidate points. North is up: each row is one y (largest y at the top), each column one x (x grows to the right, east)."""

FOG_VISION_MAP = """The map image shows the environment from above:
- North is up.
- Coordinates: (0, 0) is the bottom-left point; x grows to the right (east) and y upward (north).
- Grey dots: the points of the rooms with integer coordinates (dark squares are walls, brown squares doors).
- Red letters (A-Z): the candidate points to judge.
- Blue dot: your current position."""

FORMAT_RULES = """IMPORTANT OUTPUT RULES:
1. Always answer with these two labels, each followed by a line break:
THINK: [your thoughts on the map]
FINAL ANSWER: [the JSON only]
2. After FINAL ANSWER write nothing but the JSON.
3. Any other form is invalid."""


def global_prompt() -> str:
    return f"{_SCHEMA}\n{_OBSERVED_ONLY}\n\n{GLOBAL_SPEC}\n\n{FORMAT_RULES}"


def false_belief_prompt() -> str:
    schema_rule = '- Every object that has a facing direction MUST have a "facing" key.'
    return f"{_SCHEMA}\n{schema_rule}\n\n{FALSE_BELIEF_SPEC}\n\n{FORMAT_RULES}"


def local_prompt() -> str:
    return f"{_SCHEMA}\n{_OBSERVED_ONLY}\n\n{LOCAL_SPEC}\n\n{FORMAT_RULES}"


def fog_prompt(symbol_map: str | None) -> str:
    """The uncertainty probe; `symbol_map` is the text map, or None when the map is an image."""
    if symbol_map is None:
        body = FOG_SPEC.format(legend=FOG_VISION_MAP, map="(the image below)")
    else:
        body = FOG_SPEC.format(legend=FOG_LEGEND, map=symbol_map)
    return f"{body}\n\n{FORMAT_RULES}"


# --- maps as their evaluator reads them ----------------------------------------------------------
@dataclass(frozen=True)
class Placed:
    """One entry of a map: a position, a facing vector ((0, 0) when none) and whether it has one."""

    x: float
    y: float
    ori: tuple[int, int] = (0, 0)
    oriented: bool = False


Map = dict[str, Placed]
FACING_VECTOR: dict[str, tuple[int, int]] = {f: UNIT[f] for f in FACINGS}
_GLOBAL_WORDS = {
    "north": "north", "n": "north", "south": "south", "s": "south", "east": "east", "e": "east",
    "west": "west", "w": "west", "+y": "north", "-y": "south", "+x": "east", "-x": "west",
    "forward": "north", "front": "north", "ahead": "north", "back": "south", "backward": "south",
    "behind": "south", "right": "east", "left": "west",
}  # fmt: skip


def outermost_objects(text: str) -> list[str]:
    """Every outermost `{...}` of `text`, in order (their readers' brace scan)."""
    out: list[str] = []
    depth, start = 0, None
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                out.append(text[start : i + 1])
                start = None
    return out


def extract_json(text: str) -> dict[str, Any] | None:
    """Their reading of a reply: fenced ```json blocks and every outermost {...}; the longest one
    that parses wins."""
    if not isinstance(text, str):
        return None
    candidates = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, flags=re.DOTALL | re.IGNORECASE)
    candidates += outermost_objects(text)
    for cand in sorted(candidates, key=len, reverse=True):
        try:
            data = json.loads(cand)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, dict):
            return data
    return None


def _flatten(data: dict[str, Any]) -> dict[str, Any]:
    """Their nested form `{"objects": [...] or {...}, "gates": ...}` as a flat name -> entry map."""
    if "objects" not in data and "gates" not in data:
        return data
    flat: dict[str, Any] = {}
    for k, v in data.items():
        if k not in ("objects", "gates") and isinstance(v, dict):
            flat[str(k).replace("_", " ")] = v

    def emit(name: str, info: dict[str, Any]) -> None:
        pos = info.get("position") or info.get("pos") or info.get("xy")
        if not name or pos is None:
            return
        out: dict[str, Any] = {"position": pos}
        if "facing" in info:
            out["facing"] = info["facing"]
        flat[name] = out

    for key in ("objects", "gates"):
        section = data.get(key)
        if isinstance(section, list):
            for it in section:
                if isinstance(it, dict):
                    label = it.get("label") or it.get("name") or it.get("id") or it.get("type") or ""
                    emit(str(label).strip().replace("_", " "), it)
        elif isinstance(section, dict):
            for name, info in section.items():
                if isinstance(info, dict):
                    emit(str(name).replace("_", " "), info)
    return flat or data


def _kept_name(key: str, keep: set[str]) -> str | None:
    """Their name filter: the key itself, or (for keys with underscores) the kept name it equals
    once underscores are dropped on both sides."""
    if key in keep:
        return key
    if "_" in key:
        bare = key.replace("_", "")
        for k in keep:
            if k.replace("_", "") == bare:
                return k
    return None


def _to_map(entries: dict[str, Any]) -> Map:
    out: Map = {}
    for name, info in entries.items():
        if not isinstance(info, dict):
            continue
        pos = info.get("position")
        if (
            not isinstance(pos, list)
            or len(pos) != 2
            or not all(isinstance(v, int | float | str) for v in pos)
        ):
            continue
        try:
            x, y = float(pos[0]), float(pos[1])
        except ValueError:  # theirs raises on a non-numeric string; we drop the entry
            continue
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        facing = info.get("facing")
        if isinstance(facing, str):
            out[str(name).replace("_", " ")] = Placed(x, y, FACING_VECTOR.get(facing.lower(), (0, 1)), True)
        else:
            out[str(name).replace("_", " ")] = Placed(x, y)
    return out


def read_global(data: dict[str, Any] | None, keep: Iterable[str]) -> Map | None:
    """A global map as theirs keeps it: observed names, every door, and "agent" (`keep` holds them)."""
    if data is None:
        return None
    flat = _flatten(copy.deepcopy(data))
    keep_set = set(keep)
    entries: dict[str, Any] = {}
    for key, info in flat.items():
        if not isinstance(info, dict):
            continue
        name = _kept_name(str(key), keep_set)
        if name is None:
            continue
        if "facing" in info and isinstance(info["facing"], str):
            word = info["facing"].strip().lower()
            info = {**info, "facing": _GLOBAL_WORDS.get(word, word)}
        entries[name] = info
    return _to_map(entries)


def _local_word(word: str, facing: str) -> str:
    s = word.strip().lower()
    return {"+y": facing, "+x": turn(facing, 90), "-y": turn(facing, 180), "-x": turn(facing, -90)}.get(s, s)


def read_local(data: dict[str, Any] | None, visible: Iterable[str], facing: str) -> Map | None:
    """A local map: only what is in view; `+x/-x/+y/-y` facings turned into world facings with the
    agent's true facing (positions stay in the agent's frame)."""
    if data is None:
        return None
    flat = _flatten(copy.deepcopy(data))
    if "objects" in flat and isinstance(flat["objects"], dict):
        flat = flat["objects"]
    keep_set = set(visible)
    entries: dict[str, Any] = {}
    for key, info in flat.items():
        if not isinstance(info, dict):
            continue
        name = _kept_name(str(key), keep_set)
        if name is None:
            continue
        if "facing" in info and isinstance(info["facing"], str):
            info = {**info, "facing": _local_word(info["facing"], facing)}
        entries[name] = info
    return _to_map(entries)


# --- the truth ---------------------------------------------------------------------------------
def _item_entry(it: Item, world: World) -> Placed:
    if it.is_gate:
        return Placed(float(it.x), float(it.y), FACING_VECTOR[gate_facing(world, it.name)], True)
    if it.facing is None:
        return Placed(float(it.x), float(it.y), FACING_VECTOR.get(world.unoriented_facing or "north", (0, 1)))
    return Placed(float(it.x), float(it.y), FACING_VECTOR[it.facing], True)


def truth_full(world: World, agent: Pose) -> Map:
    """Every object and door and the agent, in the start frame (their `gt_room_state_full`)."""
    out: Map = {it.name: _item_entry(it, world) for it in items_of(world)}
    out["agent"] = Placed(float(agent.x), float(agent.y), FACING_VECTOR[agent.facing], True)
    return out


def truth_observed(world: World, agent: Pose, observed: Iterable[str]) -> Map:
    names = set(observed) | {"agent"}
    return {k: v for k, v in truth_full(world, agent).items() if k in names}


def truth_agent(agent: Pose) -> Map:
    return {"agent": Placed(float(agent.x), float(agent.y), FACING_VECTOR[agent.facing], True)}


def to_frame(x: float, y: float, origin: tuple[float, float], facing: tuple[int, int]) -> tuple[float, float]:
    """A point in the frame of a pose: +y ahead, +x to the right (their `transform_point`; a pose
    without a facing is taken as facing north)."""
    fx, fy = facing if facing in FACING_VECTOR.values() else (0, 1)
    dx, dy = x - origin[0], y - origin[1]
    return (dx * fy - dy * fx, dx * fx + dy * fy)


def truth_local(world: World, agent: Pose) -> Map:
    """What is in view, positions in the agent's frame, facings as in the world."""
    out: Map = {}
    for it in visible_items(world, agent):
        e = _item_entry(it, world)
        lx, ly = to_frame(e.x, e.y, (agent.x, agent.y), FACING_VECTOR[agent.facing])
        out[it.name] = Placed(lx, ly, e.ori, e.oriented)
    return out


def position_scale(world: World) -> float:
    """L: the RMS distance of the scene's objects (doors aside) from the start (1 when 0)."""
    if not world.objects:
        return 1.0
    value = math.sqrt(sum(o.x * o.x + o.y * o.y for o in world.objects) / len(world.objects))
    return value if value > 0 else 1.0


# --- comparing two maps ------------------------------------------------------------------------
@dataclass(frozen=True)
class Scores:
    direction: float
    facing: float
    position: float

    @property
    def overall(self) -> float:
        return (self.direction + self.facing + self.position) / 3.0


class FarOff(ValueError):
    """A pair more than 64 apart: their distance bins end there and their evaluation fails."""


def _cardinal_index(dx: float, dy: float) -> int:
    deg = 0.0 if abs(dx) < 1e-6 and abs(dy) < 1e-6 else math.degrees(math.atan2(dx, dy))
    return int(((((deg + 360.0) % 360.0) + 22.5) // 45.0) % 8)


def _direction(pred: Map, truth: Map) -> float:
    origin = Placed(0.0, 0.0, (0, 1), False)
    p = {**pred, "initial": origin}
    t = {**truth, "initial": origin}
    names = sorted(t)
    if len(names) < 2:
        return 1.0
    total = hits = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ta, tb = t[a], t[b]
            if math.hypot(ta.x - tb.x, ta.y - tb.y) > 64 + 1e-6:
                raise FarOff(f"{a} and {b}")
            if a in p and b in p:
                pa, pb = p[a], p[b]
                if math.hypot(pa.x - pb.x, pa.y - pb.y) > 64 + 1e-6:
                    raise FarOff(f"{a} and {b}")
                hits += _cardinal_index(pa.x - pb.x, pa.y - pb.y) == _cardinal_index(ta.x - tb.x, ta.y - tb.y)
            total += 1
    return hits / total if total else 0.0


def _facing(pred: Map, truth: Map) -> float:
    total = hits = 0
    for name in sorted(truth):
        t = truth[name]
        if not t.oriented or "door" in name:
            continue
        total += 1
        hits += name in pred and pred[name].ori == t.ori
    return hits / total if total else 1.0


def _position(pred: Map, truth: Map, scale: float | None) -> float:
    names = sorted(truth)
    matched = [n for n in names if n in pred]
    if not names:
        return 1.0
    if not matched:
        return 0.0
    sq = [(pred[n].x - truth[n].x) ** 2 + (pred[n].y - truth[n].y) ** 2 for n in matched]
    rmse = math.sqrt(sum(sq) / len(sq))
    if scale is None:
        scale = math.sqrt(sum(truth[n].x ** 2 + truth[n].y ** 2 for n in matched) / len(matched))
    base = math.exp(-rmse / scale) if scale > 0 else 0.0
    return base * len(matched) / len(names)


def compare(pred: Map | None, truth: Map, scale: float | None) -> Scores | None:
    """Their `compute_map_metrics`; None when the prediction is unreadable or runs off their bins."""
    if pred is None:
        return None
    try:
        return Scores(_direction(pred, truth), _facing(pred, truth), _position(pred, truth, scale))
    except FarOff:
        return None


def local_vs_global(local: Map | None, glob: Map | None, scale: float) -> Scores | None:
    """Consistency of a turn's two maps: the global map carried into the agent pose it gives, compared
    with the local map on the names both hold (all 1 for an empty local map, all 0 with no overlap)."""
    if local is None or glob is None or "agent" not in glob:
        return None
    me = glob["agent"]
    moved = {k: Placed(*to_frame(v.x, v.y, (me.x, me.y), me.ori), v.ori, v.oriented) for k, v in glob.items()}
    if not local:
        return Scores(1.0, 1.0, 1.0)
    common = set(local) & set(moved)
    if not common:
        return Scores(0.0, 0.0, 0.0)
    return compare(
        {k: v for k, v in local.items() if k in common},
        {k: v for k, v in moved.items() if k in common},
        scale,
    )


# --- one turn's probe record and the per-episode summary ----------------------------------------
@dataclass
class TurnProbe:
    """What one exploration reply left for the belief metrics."""

    visible: frozenset[str]  # their `visible_objects` (kept from the last Observe() on turns without one)
    truth: Map  # the full truth at this turn (the agent at its pose then)
    probed: bool = False
    global_map: Map | None = None  # the parsed global map (None: not asked, or unreadable)
    global_scores: Scores | None = None  # against the observed truth
    full_scores: Scores | None = None  # against the full truth
    agent_scores: Scores | None = None
    local_scores: Scores | None = None
    local_global: Scores | None = None
    fog: tuple[float, float, float] | None = None  # precision, recall, F1
    raw_global: dict[str, Any] | None = None


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _facing_valid(name: str, curr: Map, prev: Map) -> bool:
    if name == "agent":
        return False
    ref = curr.get(name) or prev.get(name)
    gate = "door" in name.lower() or "gate" in name.lower()
    if ref is not None:
        return ref.oriented and not gate
    return not gate


def stability(turns: list[TurnProbe]) -> tuple[list[float | None], list[float | None]]:
    """Per pair of successive exploration replies: the position and facing stability of the objects
    the later reply did not see (their `stability`, `position_stability` / `facing_stability`)."""
    pos_out: list[float | None] = []
    face_out: list[float | None] = []
    for prev, curr in zip(turns, turns[1:], strict=False):
        pp, pc = prev.global_map or {}, curr.global_map or {}
        tp, tc = prev.truth if prev.probed else {}, curr.truth if curr.probed else {}
        common = (set(pp) & set(pc) & set(tp) & set(tc)) - curr.visible - {"agent"}
        pos_scores: list[float] = []
        face_scores: list[float] = []
        for name in sorted(common):
            d_prev = math.hypot(pp[name].x - tp[name].x, pp[name].y - tp[name].y)
            d_curr = math.hypot(pc[name].x - tc[name].x, pc[name].y - tc[name].y)
            pos_scores.append(1.0 if d_curr <= d_prev else 0.0)
            if _facing_valid(name, tc, tp):
                was, now = pp[name].ori == tp[name].ori, pc[name].ori == tc[name].ori
                if was and not now:
                    face_scores.append(0.0)
                elif now and not was:
                    face_scores.append(1.0)
                else:
                    face_scores.append(1.0 if pc[name].ori == pp[name].ori else 0.0)
        pos_out.append(sum(pos_scores) / len(pos_scores) if pos_scores else None)
        face_out.append(sum(face_scores) / len(face_scores) if face_scores else None)
    return pos_out, face_out


def episode_metrics(turns: list[TurnProbe]) -> dict[str, float | None]:
    """The per-episode belief metrics (their `aggregate_per_sample`), as averages over probed turns."""
    probed = [t for t in turns if t.probed]
    local = [t.local_scores for t in probed]
    agent = [t.agent_scores for t in probed]
    lvg = [t.local_global for t in probed]
    pos_stab, face_stab = stability(turns)
    return {
        "perception_position": _mean(s.position if s else None for s in local),
        "perception_facing": _mean(s.facing if s else None for s in local),
        "self_tracking_position": _mean(s.position if s else None for s in agent),
        "self_tracking_facing": _mean(s.facing if s else None for s in agent),
        "local_global_position": _mean(s.position if s else None for s in lvg),
        "local_global_facing": _mean(s.facing if s else None for s in lvg),
        "stability_position": _mean(pos_stab),
        "stability_facing": _mean(face_stab),
        "uncertainty": _mean(t.fog[2] if t.fog else None for t in probed),
    }


# --- uncertainty: what has not been seen yet -----------------------------------------------------
class Unexplored:
    """Room points not yet inside any observed field of view (their `_subtract_fov`): per room, an
    Observe() marks its own point and every point of the room within 45° of its heading as explored,
    for each room the agent stands in."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.gates = {(g.x, g.y) for g in world.gates}
        self.unexplored: dict[int, set[tuple[int, int]]] = {r.id: set(r.cells()) for r in world.rooms}
        self.explored: dict[int, set[tuple[int, int]]] = {r.id: set() for r in world.rooms}
        self.visited: set[int] = set()

    def observe(self, pose: Pose) -> None:
        for rid in sorted(rooms_at(self.world, pose.x, pose.y)):
            self.visited.add(rid)
            todo = self.unexplored[rid]
            todo.discard((pose.x, pose.y))
            self.explored[rid].add((pose.x, pose.y))
            seen = {c for c in todo if in_fov(pose, *c)}
            todo -= seen
            self.explored[rid] |= seen

    def candidates(
        self, rng: random.Random, agent: tuple[int, int]
    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Their candidates: per observed room, up to 3 unexplored and as many explored room points
        (doors and the agent's point left out), all shuffled; the unexplored ones are the answer."""
        cells = {c for r in self.world.rooms for c in r.cells()}
        candidates: list[tuple[int, int]] = []
        correct: list[tuple[int, int]] = []
        for rid in sorted(self.visited):
            todo = sorted(
                c for c in self.unexplored[rid] if c in cells and c not in self.gates and c != agent
            )
            done = sorted(c for c in self.explored[rid] if c in cells and c not in self.gates and c != agent)
            k = min(3, len(todo), len(done))
            if k <= 0:
                continue
            picked = rng.sample(todo, k)
            correct += picked
            candidates += picked + rng.sample(done, k)
        rng.shuffle(candidates)
        return candidates, correct


LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def map_bounds(world: World) -> tuple[int, int, int, int]:
    """The drawn area: the rooms' extent and one line of wall around it."""
    xs = [c for r in world.rooms for c in (r.x0, r.x1)]
    ys = [c for r in world.rooms for c in (r.y0, r.y1)]
    return min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1


def symbolic_map(world: World, agent: Pose, candidates: list[tuple[int, int]]) -> str:
    """The text map of the fog probe (as their logged `symbolic_map`): one row per y, top row the
    largest y; `#` wall or outside, `.` room floor, `+` door, `*` the agent, letters the candidates."""
    x0, y0, x1, y1 = map_bounds(world)
    floor = {c for r in world.rooms for c in r.cells()}
    gates = {(g.x, g.y) for g in world.gates}
    marks = {c: LABELS[k] for k, c in enumerate(candidates[: len(LABELS)])}
    rows = []
    for y in range(y1, y0 - 1, -1):
        row = []
        for x in range(x0, x1 + 1):
            if (x, y) == (agent.x, agent.y):
                row.append("*")
            elif (x, y) in marks:
                row.append(marks[(x, y)])
            elif (x, y) in gates:
                row.append("+")
            elif (x, y) in floor:
                row.append(".")
            else:
                row.append("#")
        rows.append("".join(row))
    return "\n".join(rows)


def read_fog_labels(text: str) -> list[str]:
    """Their reading of a fog reply: the JSON's "unexplored" (else "points", "candidates") list of
    single letters, else every standalone capital letter; in order, without repeats."""

    def letters(s: str) -> list[str]:
        found = re.findall(r"\b([A-Z])\b", s)
        if not found:
            found = [c.upper() for c in re.findall(r"['\"]([A-Za-z])[ '\"]?[,;\]]", s)]
        out: list[str] = []
        for c in found:
            if c not in out:
                out.append(c)
        return out

    if not isinstance(text, str):
        return []
    data = _first_json(text)
    if data is None:
        return letters(text.strip())
    value = data.get("unexplored") or data.get("points") or data.get("candidates")
    labels: list[str] = []
    if isinstance(value, list):
        for it in value:
            if isinstance(it, str) and len(it.strip()) == 1:
                labels.append(it.strip().upper())
            elif isinstance(it, list | tuple):
                labels += [
                    str(x).strip().upper() for x in it if isinstance(x, str) and len(str(x).strip()) == 1
                ]
        return labels
    if isinstance(value, str):
        return letters(value)
    return letters(json.dumps(data))


def _first_json(text: str) -> dict[str, Any] | None:
    """Their fog reader takes the first fenced block (else the first outermost {...}) that parses."""
    fenced = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, flags=re.DOTALL | re.IGNORECASE)
    candidates = list(fenced)
    if not candidates:
        candidates = outermost_objects(text)
    for cand in candidates:
        try:
            data = json.loads(cand)
        except (json.JSONDecodeError, RecursionError):
            continue
        return data if isinstance(data, dict) else None
    return None


def fog_scores(
    labels: list[str], candidates: list[tuple[int, int]], correct: list[tuple[int, int]]
) -> tuple[float, float, float]:
    """Precision, recall and F1 of the chosen points against the unexplored ones (letters past the
    candidates are ignored)."""
    chosen = {candidates[ord(c) - ord("A")] for c in labels if 0 <= ord(c) - ord("A") < len(candidates)}
    if not chosen:
        return 0.0, 0.0, 0.0
    right = len(chosen & set(correct))
    p = right / len(chosen)
    r = right / len(set(correct)) if correct else 0.0
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


# --- false belief --------------------------------------------------------------------------------
@dataclass
class BeliefScores:
    """Per changed object, scored the turn it is first seen again."""

    correctness: dict[str, dict[str, float | None]] = field(default_factory=dict)
    inertia: dict[str, dict[str, float | None]] = field(default_factory=dict)


def raw_entry(raw: dict[str, Any] | None, name: str) -> Map | None:
    """One object of a map as the model wrote it (their retention reads the last exploration map's
    JSON entry for the name, spaces or underscores)."""
    if not raw:
        return None
    info = raw.get(name) or raw.get(name.replace(" ", "_"))
    if not isinstance(info, dict):
        return None
    got = _to_map({name: info})
    return got or None


def score_changed(
    name: str,
    kind: str,
    pred: Map | None,
    truth: Map,
    old_raw: dict[str, Any] | None,
    scale: float,
) -> tuple[dict[str, float | None], dict[str, float | None]] | None:
    """Belief correctness and inertia of one changed object (`kind`: position or orientation): the
    new map's entry against the new truth, and against the entry of the map at the end of the first
    exploration. None when this turn's map is unreadable (their evaluation skips the object)."""
    if pred is None:
        return None
    mine = {k: v for k, v in pred.items() if k == name}
    s = compare(mine, {name: truth[name]}, scale)
    if s is None:
        return None
    pos_kind = kind == "position"
    correct = {"position": s.position if pos_kind else None, "facing": None if pos_kind else s.facing}
    old = raw_entry(old_raw, name)
    inertia: dict[str, float | None] = {"position": None, "facing": None}
    if old is not None:
        r = compare(mine, old, scale)
        if r is not None:
            inertia = {"position": r.position if pos_kind else None, "facing": None if pos_kind else r.facing}
    return correct, inertia


def belief_metrics(scored: BeliefScores) -> dict[str, float | None]:
    return {
        "belief_correctness_position": _mean(v["position"] for v in scored.correctness.values()),
        "belief_correctness_facing": _mean(v["facing"] for v in scored.correctness.values()),
        "belief_inertia_position": _mean(v["position"] for v in scored.inertia.values()),
        "belief_inertia_facing": _mean(v["facing"] for v in scored.inertia.values()),
    }


def map_json(entries: Map) -> dict[str, Any]:
    """A map as the JSON a reply would hold (the oracle's answers): integer positions, and the facing
    of everything that has one but the doors."""
    out: dict[str, Any] = {}
    for k, v in entries.items():
        e: dict[str, Any] = {"position": [round(v.x), round(v.y)]}
        if v.oriented and "door" not in k and v.ori in FACING_VECTOR.values():
            e["facing"] = next(f for f, u in FACING_VECTOR.items() if u == v.ori)
        out[k] = e
    return out


def fog_image(world: World, agent: Pose, candidates: list[tuple[int, int]], size: int) -> bytes:
    """The vision uncertainty probe's map (theirs: a top-down picture, north up): grey dots on room
    points, dark squares for walls, brown squares for doors, red letters for the candidates, a blue
    dot where the agent stands. Our drawing of the facts their prompt describes."""
    from PIL import Image, ImageDraw

    from playbench.render.draw2d import draw_centered_text, get_font, to_png

    x0, y0, x1, y1 = map_bounds(world)
    cols, rows = x1 - x0 + 1, y1 - y0 + 1
    cell = max(8, size // max(cols, rows))
    img = Image.new("RGB", (cols * cell, rows * cell), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    floor = {c for r in world.rooms for c in r.cells()}
    gates = {(g.x, g.y) for g in world.gates}
    marks = {c: LABELS[k] for k, c in enumerate(candidates[: len(LABELS)])}
    font = get_font(max(8, int(cell * 0.8)))
    for y in range(y1, y0 - 1, -1):
        for x in range(x0, x1 + 1):
            left, top = (x - x0) * cell, (y1 - y) * cell
            box = (left, top, left + cell - 1, top + cell - 1)
            centre = (left + cell / 2, top + cell / 2)
            if (x, y) in gates:
                draw.rectangle(box, fill=(150, 100, 50))
            elif (x, y) not in floor:
                draw.rectangle(box, fill=(70, 70, 70))
            if (x, y) == (agent.x, agent.y):
                r = cell * 0.3
                draw.ellipse((centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r), fill=(30, 90, 230))
            elif (x, y) in marks:
                draw_centered_text(draw, centre, marks[(x, y)], font, (220, 20, 20))
            elif (x, y) in floor:
                r = max(1.5, cell * 0.1)
                draw.ellipse(
                    (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r), fill=(160, 160, 160)
                )
    return to_png(img)
