"""The cognitive maps of the belief probes: maps read from a reply as their evaluator reads them, and the truth.

A map is a name -> `Placed` dictionary. This module holds how a reply becomes one (the largest JSON
object, flat or nested, the global and local name filters and facing words), the true maps it is
compared with (full, observed, agent alone, the local view in the agent's frame) and the position
scale, plus one entry as the model wrote it and a map written back as a reply's JSON (the oracle's
answers). It is apart from the scoring (`probe_scores.py`) and the uncertainty probe (`fog_probe.py`),
which both build on it; `probing.py` re-exports its public names.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from playbench.tasks.tos.world import (
    FACINGS,
    UNIT,
    Item,
    Pose,
    World,
    gate_facing,
    items_of,
    turn,
    visible_items,
)


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
    return _to_map(_kept_entries(_flatten(copy.deepcopy(data)), set(keep), _global_word))


def _global_word(word: str) -> str:
    s = word.strip().lower()
    return _GLOBAL_WORDS.get(s, s)


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
    return _to_map(_kept_entries(flat, set(visible), lambda word: _local_word(word, facing)))


def _kept_entries(flat: dict[str, Any], keep: set[str], facing_word: Callable[[str], str]) -> dict[str, Any]:
    """The entries of a flattened reply whose names are kept, each text facing read by `facing_word`."""
    entries: dict[str, Any] = {}
    for key, info in flat.items():
        if not isinstance(info, dict):
            continue
        name = _kept_name(str(key), keep)
        if name is None:
            continue
        if "facing" in info and isinstance(info["facing"], str):
            info = {**info, "facing": facing_word(info["facing"])}
        entries[name] = info
    return entries


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


# --- a map as a reply's JSON --------------------------------------------------------------------
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
