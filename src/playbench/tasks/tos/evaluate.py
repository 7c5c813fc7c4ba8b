"""Answer scoring as the authors' evaluation does it (`tos_base/utils/eval_utilities.py` of
williamzhangNU/ToS_Base at 244a8335, the version their recorded runs agree with), in our code.

- Relations (pairwise direction, perspective taking, action2view, location2view): the reply is
  split into two labels (comma list, else `;`/line list, else words); each label is compared with
  the truth after normalising (case, spaces and hyphens dropped, their alias table) as a whole label
  (`west` does not match `north west`; a version of their file that splits labels into words would
  say it does, their recorded run scores it as we do); the score is
  the share of the two that match, in the given order or swapped, whichever is higher: 0, 0.5 or 1.
- Mental rotation: the comma list must equal the true order exactly (case and spaces aside): 0 or 1.
- Allocentric map: every `x, y` pair of the reply, in order; the count must match; the score is
  (position similarity + direction similarity) / 2 with position similarity exp(-RMSE / L)
  (L the RMS length of the true coordinates) and direction similarity the share of object pairs
  whose cardinal bin between them is kept.
- View to location: the first `x, y` pair; exp(-|error| / |truth|) (1 for an exact answer at the
  origin, 0 for any other answer there).
- Perspective determine (text): 1 if the reply names the right object, or names an object whose
  view (from its point, facing its way, in the truth's rooms) agrees with every shown entry.
- View to action (text): the reply is `JumpTo(x), Rotate(d), ...` (comma separated, nothing else);
  it is walked from the start facing north (each jump target must be within 45° of the heading;
  walls are not checked); 1 if the end pose's view agrees with every shown entry, else 0.
- False belief: F1 over (object, position|orientation) labels, and per type over object names.
"""

from __future__ import annotations

import math
import re
from typing import Any

from playbench.tasks.tos.world import (
    HEADING,
    Pose,
    World,
    distance_bin_points,
    ego_bin,
    item_orientation,
    items_of,
    relative_angle,
    turn,
)

LABEL_ALIASES: dict[str, tuple[str, ...]] = {
    "front-left": ("front-left", "left-front", "front left", "left front", "frontleft", "leftfront", "fl"),
    "front-right": ("front-right", "right-front", "front right", "right front", "frontright", "rightfront", "fr"),
    "front-slight-left": ("front-slight-left", "front slightly left", "slightly front left", "frontslightleft",
                          "slight front left"),
    "front-slight-right": ("front-slight-right", "front slightly right", "slightly front right", "frontslightright",
                           "slight front right"),
    "mid distance": ("mid distance", "mid-distance", "mid", "medium", "medium distance"),
    "same distance": ("same distance", "same", "same-distance"),
    "slightly far": ("slightly far", "slightly-far"),
    "very far": ("very far", "very-far"),
    "extremely far": ("extremely far", "extremely-far", "extreme", "extreme far"),
    "north": ("north", "n"),
    "south": ("south", "s"),
    "east": ("east", "e"),
    "west": ("west", "w"),
    "north-east": ("north-east", "north east", "northeast", "ne"),
    "north-west": ("north-west", "north west", "northwest", "nw"),
    "south-east": ("south-east", "south east", "southeast", "se"),
    "south-west": ("south-west", "south west", "southwest", "sw"),
}  # fmt: skip


def _joined(text: str) -> str:
    return re.sub(r"[\s-]+", "", text.lower())


_LOOKUP: dict[str, str] = {}
for _canon, _variants in LABEL_ALIASES.items():
    _LOOKUP[_joined(_canon)] = _joined(_canon)
    for _v in _variants:
        _LOOKUP[_joined(_v)] = _joined(_canon)


KNOWN: frozenset[str] = frozenset(_LOOKUP.values()) | frozenset(
    _joined(b) for b in ("front", "beyond-fov", "near", "far")
)


def canonical(label: Any) -> str:
    norm = _joined(str(label)) if label is not None else ""
    return _LOOKUP.get(norm, norm)


def labels_match(a: Any, b: Any) -> bool:
    ca, cb = canonical(a), canonical(b)
    return bool(ca) and bool(cb) and ca == cb


def extract_sequence(raw: Any) -> list[str] | None:
    """The comma-separated items of a reply; inside its first (...) or else [...] group if it has one."""
    if raw is None:
        return None
    if isinstance(raw, list | tuple):
        return [str(x) for x in raw]
    text = str(raw)
    content = text
    if "(" in text and ")" in text:
        m = re.search(r"\((.*?)\)", text)
        if m:
            content = m.group(1)
    elif "[" in text and "]" in text:
        m = re.search(r"\[(.*?)\]", text)
        if m:
            content = m.group(1)
    items = [tok.strip().strip("'\"") for tok in content.split(",")]
    items = [x for x in items if x]
    return items or None


def parse_two(raw: str) -> tuple[str, str] | None:
    items = extract_sequence(raw)
    if items and len(items) >= 2:
        return items[0], items[1]
    segs = [s.strip() for s in re.split(r"[;\n]", str(raw)) if s.strip()]
    if len(segs) >= 2:
        return segs[0], segs[1]
    words = [w.strip() for w in re.split(r"[ ,]", str(raw)) if w.strip()]
    if len(words) >= 2:
        return (" ".join(words[:-1]), words[-1]) if len(words) > 2 else (words[0], words[1])
    return None


def relation_score(pred: str, answer: str) -> float:
    """0, 0.5 or 1: the share of the two labels right, in order or swapped (whichever is more)."""
    got = parse_two(pred)
    want = parse_two(answer)
    if not got or not want:
        return 0.0
    w0, w1 = canonical(want[0]), canonical(want[1])
    g0, g1 = canonical(got[0]), canonical(got[1])
    normal = (labels_match(g0, w0) + labels_match(g1, w1)) / 2
    swapped = (labels_match(g1, w0) + labels_match(g0, w1)) / 2
    return max(normal, swapped)


def sequence_score(pred: str, answer: list[str]) -> float:
    tokens = extract_sequence(pred)
    if not tokens or len(tokens) != len(answer):
        return 0.0
    norm = [re.sub(r"\s+", " ", t.strip()).lower() for t in tokens]
    return float(norm == [re.sub(r"\s+", " ", a.strip()).lower() for a in answer])


_PAIR = re.compile(r"-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?")


def coordinate_list(raw: str) -> list[tuple[float, float]]:
    out = []
    for pair in _PAIR.findall(str(raw)):
        x, y = pair.split(",")
        out.append((float(x), float(y)))
    return out


def coord_similarity(pred: tuple[float, float], truth: tuple[float, float]) -> float:
    err = math.hypot(pred[0] - truth[0], pred[1] - truth[1])
    norm = math.hypot(*truth)
    if norm == 0:
        return 1.0 if err == 0 else 0.0
    return math.exp(-err / norm)


def location_score(pred: str, truth: tuple[int, int]) -> float:
    coords = coordinate_list(pred)
    if not coords:
        m = re.search(r"\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)", str(pred))
        if not m:
            return 0.0
        coords = [(float(m.group(1)), float(m.group(2)))]
    return coord_similarity(coords[0], (float(truth[0]), float(truth[1])))


def _bin8(dx: float, dy: float) -> int:
    """The cardinal bin index of an offset (their `_CardinalBinsBase.bin`; a zero offset is north)."""
    deg = 0.0 if abs(dx) < 1e-6 and abs(dy) < 1e-6 else -math.degrees(math.atan2(-dx, dy))
    w = (deg + 360.0) % 360.0
    return int(((w + 22.5) // 45.0) % 8)


def map_similarity(pred: list[tuple[float, float]], truth: list[tuple[int, int]]) -> float:
    """(position similarity + direction similarity) / 2 of a coordinate list against the truth."""
    if len(pred) != len(truth) or not truth:
        return 0.0
    mean_sq = sum(x * x + y * y for x, y in truth) / len(truth)
    length = math.sqrt(mean_sq) if mean_sq > 0 else 1.0
    rmse = math.sqrt(
        sum((p[0] - t[0]) ** 2 + (p[1] - t[1]) ** 2 for p, t in zip(pred, truth, strict=True)) / len(truth)
    )
    pos = math.exp(-rmse / length)
    n = len(truth)
    names = sorted(str(i) for i in range(n))  # their pair order: the point indices sorted as text
    pairs = [(int(names[i]), int(names[j])) for i in range(n) for j in range(i + 1, n)]
    if not pairs:
        direction = 1.0
    else:
        kept = sum(
            _bin8(pred[a][0] - pred[b][0], pred[a][1] - pred[b][1])
            == _bin8(truth[a][0] - truth[b][0], truth[a][1] - truth[b][1])
            for a, b in pairs
        )
        direction = kept / len(pairs)
    return (pos + direction) / 2


def map_score(pred: str, truth: list[tuple[int, int]]) -> float:
    return map_similarity(coordinate_list(pred), truth)


# --- view consistency (perspective determine, view to action) --------------------------------------
def view_matches(world: World, pose: Pose, rooms: frozenset[int], shown: list[dict[str, Any]]) -> bool:
    """Whether every shown entry (name, direction, distance, orientation) is what one sees from
    `pose` when standing in `rooms` (the truth's rooms, as the authors check it)."""
    by_name = {it.name.lower(): it for it in items_of(world)}
    for entry in shown:
        it = by_name.get(str(entry["name"]).lower())
        if it is None or (it.x, it.y) == (pose.x, pose.y) or not (it.rooms & rooms):
            return False
        dx, dy = it.x - pose.x, it.y - pose.y
        if ego_bin(relative_angle(dx, dy, pose.facing)) == "beyond-fov":
            return False
        if canonical(ego_bin(relative_angle(dx, dy, pose.facing))) != canonical(entry["direction"]):
            return False
        if canonical(distance_bin_points(dx, dy)) != canonical(entry["distance"]):
            return False
        has_orientation = it.is_gate or it.facing is not None
        if (
            entry.get("orientation")
            and has_orientation
            and canonical(item_orientation(world, pose, it, rooms)) != canonical(entry["orientation"])
        ):
            return False
    return True


def determine_score(world: World, pred: str, truth: dict[str, Any]) -> float:
    name = str(pred).strip()
    by_name = {it.name.lower(): it for it in items_of(world)}
    it = by_name.get(name.lower())
    if it is None:
        return 0.0
    if labels_match(name, truth["answer"]):
        return 1.0
    pose = Pose(it.x, it.y, it.facing or "north")
    return float(view_matches(world, pose, frozenset(truth["rooms"]), truth["shown"]))


def parse_moves(text: str) -> list[tuple[str, Any]]:
    """`JumpTo(x), Rotate(d), ...` as (kind, argument) pairs; [] if any part is anything else."""
    out: list[tuple[str, Any]] = []
    for tok in [p.strip() for p in str(text).split(",") if p.strip()]:
        jump = re.match(r"JumpTo\s*\(\s*(.+?)\s*\)", tok, re.IGNORECASE)
        if jump:
            out.append(("jumpto", jump.group(1).strip()))
            continue
        rot = re.match(r"Rotate\s*\(\s*(-?\d+)\s*\)", tok, re.IGNORECASE)
        if rot:
            out.append(("rotate", int(rot.group(1))))
            continue
        return []
    return out


def walk_moves(world: World, moves: list[tuple[str, Any]], end: tuple[int, int]) -> Pose | None:
    """Walk `moves` from the start facing north; a jump needs its target within 45° of the
    heading (walls are not checked); `initial_pos` names the true end point (the authors' stub)."""
    points = {it.name.lower(): (it.x, it.y) for it in items_of(world)}
    points["initial_pos"] = end
    x, y, facing = 0, 0, "north"
    for kind, arg in moves:
        if kind == "rotate":
            if int(arg) % 45:
                return None
            facing = turn(facing, int(arg))
        else:
            target = points.get(str(arg).lower())
            if target is None or target == (x, y):
                return None
            dx, dy = target[0] - x, target[1] - y
            if ego_bin(relative_angle(dx, dy, facing)) == "beyond-fov":
                return None
            x, y = target
    return Pose(x, y, facing)


def moves_score(world: World, pred: str, truth: dict[str, Any]) -> float:
    moves = parse_moves(pred)
    if not moves:
        return 0.0
    end = walk_moves(world, moves, (truth["x"], truth["y"]))
    if end is None:
        return 0.0
    if HEADING[end.facing] % 90 and any(e.get("orientation") for e in truth["shown"]):
        return 0.0  # a diagonal heading has no facing words (the authors' check cannot run there)
    return float(view_matches(world, end, frozenset(truth["rooms"]), truth["shown"]))


# --- false belief -----------------------------------------------------------------------------------
def _f1(truth: set[Any], reported: set[Any]) -> float:
    if not truth:
        return 0.0
    correct = len(truth & reported)
    precision = correct / len(reported) if reported else 0.0
    recall = correct / len(truth)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def changes_f1(reported: list[tuple[str, str]], truth: list[tuple[str, str]]) -> dict[str, float]:
    """F1 over (object, change type) labels, and per type over the object names (theirs:
    `SpatialGym._evaluate_changes`; an empty truth scores 0)."""
    t, r = set(truth), set(reported)
    if not t:
        return {"f1": 0.0, "f1_position": 0.0, "f1_orientation": 0.0, "precision": 0.0, "recall": 0.0}
    correct = len(t & r)
    return {
        "f1": _f1(t, r),
        "f1_position": _f1({n for n, k in t if k == "position"}, {n for n, k in r if k == "position"}),
        "f1_orientation": _f1(
            {n for n, k in t if k == "orientation"}, {n for n, k in r if k == "orientation"}
        ),
        "precision": correct / len(r) if r else 0.0,
        "recall": correct / len(t),
    }
