"""The nine question families: generation, the question text, ground truth, answer parsing, scoring.

A question is plain data (`{"family": ..., ...params}`) stored in the instance; the truth is
computed from the world. Every answer is read from the text after the last `Answer:` (or, without
that marker, the last non-empty line) and scored exactly: bins and names must match, coordinate
lists and orders are scored per object (the share of objects right), `correct` is all right.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from dataclasses import dataclass
from typing import Any

from playbench.tasks.tos.grammar import normalize_name, split_items
from playbench.tasks.tos.world import (
    CARDINAL_BINS,
    DISTANCE_BINS,
    EGO_BINS,
    FACINGS,
    ROTATIONS,
    START,
    Pose,
    World,
    bearing,
    cardinal_bin,
    ego_relation,
    in_fov,
    items_of,
    observation_key,
    observation_text,
    pair_relation,
    rooms_at,
    turn,
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
ORIGIN = (
    "Treat your starting position as the origin (0, 0) while facing north; x grows to the east "
    "(right), y to the north (up). "
)


class QuestionError(ValueError):
    """This world cannot host a question of this family (the generator tries another draw)."""


@dataclass
class Scored:
    score: float
    correct: bool
    parsed: bool
    detail: str
    similarity: float | None = None  # coordinate families: the paper's coordinate similarity


def coordinate_similarity(got: list[tuple[float, float]], want: list[tuple[int, int]]) -> float:
    """Allocentric map: mean of position similarity (K/N) * exp(-RMSE / L), with the answers paired
    with the objects in order and L the RMS norm of the true coordinates, and direction accuracy
    (share of ordered object pairs whose cardinal bin is kept), after the paper's coordinate score."""
    pairs = list(zip(got, want, strict=False))
    if not want or not pairs:
        return 0.0
    scale = max(1.0, math.sqrt(sum(x * x + y * y for x, y in want) / len(want)))
    rmse = math.sqrt(sum((g[0] - w[0]) ** 2 + (g[1] - w[1]) ** 2 for g, w in pairs) / len(pairs))
    position = len(pairs) / len(want) * math.exp(-rmse / scale)
    ordered = [(i, j) for i in range(len(want)) for j in range(len(want)) if i != j]
    kept = 0
    for i, j in ordered:
        if i < len(got) and j < len(got) and got[i] != got[j] and want[i] != want[j]:
            dg = (got[i][0] - got[j][0], got[i][1] - got[j][1])
            dw = (want[i][0] - want[j][0], want[i][1] - want[j][1])
            kept += cardinal_bin(_bearing_any(*dg)) == cardinal_bin(bearing(*dw))
    direction = kept / len(ordered) if ordered else 1.0
    return (position + direction) / 2


def _bearing_any(dx: float, dy: float) -> float:
    """`bearing` for offsets that may not be integers (answers may carry decimals)."""
    if float(dx).is_integer() and float(dy).is_integer():
        return bearing(int(dx), int(dy))
    return math.degrees(math.atan2(dx, dy)) % 360.0


# --- answer extraction and normalisation ----------------------------------------------------
def extract_answer(text: str) -> str:
    text = text if isinstance(text, str) else str(text)
    m = list(re.finditer(r"answer\s*:", text, re.I))
    if m:
        tail = text[m[-1].end() :]
    else:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        tail = lines[-1] if lines else ""
    tail = tail.strip().strip("`*").strip()
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
    items: list[str] = []
    for line in lines:  # a list written one item per line ("1. mug", "- sofa") is read as "mug, sofa"
        m = _LIST_ITEM.match(line)
        if m is None:
            break
        items.append(m.group(1).strip().strip("`*").rstrip(",.").strip())
    if items:
        return ", ".join(items)
    first = lines[0] if lines else ""
    return first.strip().strip("`*").rstrip(".").strip()


_LIST_ITEM = re.compile(r"^(?:\d+[.)]|[-*\u2022])\s+(.+)$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


def _object_name(text: str, names: set[str]) -> str:
    """An object name as written in an answer: unwrapped, normalised, and without a leading article
    when that is what keeps it from matching ("the lamp")."""
    name = normalize_name(_unwrap(text))
    if name not in names:
        bare = _ARTICLE.sub("", name)
        if bare in names:
            return bare
    return name


def _squash(s: str) -> str:
    return re.sub(r"[\s_\-]+", "", s.lower())


_WRAPPERS = "<>[](){}\"'`*"


def _unwrap(s: str) -> str:
    """Drop the brackets and quotes a model wraps answers in: `<front>`, `[lamp, sofa]`, `(east, near)`
    (the answer formats are written with angle-bracket placeholders, which models copy)."""
    return s.strip().strip(_WRAPPERS).strip()


# Accepted spellings of each bin (compared squashed: case, spaces, hyphens and underscores ignored).
# The canonical names come first; the variants are the usual abbreviations and word orders, which
# the original evaluation also accepts, so a right answer is not lost to its spelling.
_CARDINAL_WORDS: dict[str, str] = {_squash(b): b for b in CARDINAL_BINS} | {
    "n": "north", "e": "east", "s": "south", "w": "west",
    "ne": "north-east", "nw": "north-west", "se": "south-east", "sw": "south-west",
}  # fmt: skip
_EGO_WORDS: dict[str, str] = {_squash(b): b for b in EGO_BINS} | {
    "leftfront": "front-left", "rightfront": "front-right",
    "frontslightlyleft": "front-slight-left", "slightfrontleft": "front-slight-left",
    "slightlyfrontleft": "front-slight-left",
    "frontslightlyright": "front-slight-right", "slightfrontright": "front-slight-right",
    "slightlyfrontright": "front-slight-right",
    "straightahead": "front", "ahead": "front", "outsidefov": "beyond-fov",
}  # fmt: skip
_DIST_WORDS: dict[str, str] = {_squash(b): b for b in DISTANCE_BINS} | {
    "same": "same distance", "mid": "mid distance", "medium": "mid distance",
    "mediumdistance": "mid distance", "extreme": "extremely far",
}  # fmt: skip


def parse_relation(answer: str, kind: str) -> tuple[str, str] | str:
    """`<direction>, <distance>` -> (direction bin, distance bin), or an error message.

    The two vocabularies are disjoint, so `<distance>, <direction>` is read too."""
    parts = [_unwrap(p) for p in _unwrap(answer).split(",")]
    if len(parts) != 2:
        return f"expected '<direction>, <distance>', got '{answer[:80]}'"
    words = _CARDINAL_WORDS if kind == "cardinal" else _EGO_WORDS
    first, second = _squash(parts[0]), _squash(parts[1])
    if words.get(first) is None and words.get(second) is not None and _DIST_WORDS.get(first) is not None:
        first, second = second, first
        parts.reverse()
    direction = words.get(first)
    distance = _DIST_WORDS.get(second)
    if direction is None:
        names = ", ".join(dict.fromkeys(words.values()))
        return f"'{parts[0][:40]}' is not a {kind} direction (one of: {names})"
    if distance is None:
        return f"'{parts[1][:40]}' is not a distance bin (one of: {', '.join(DISTANCE_BINS)})"
    return direction, distance


# an (x, y) pair; the parentheses may be missing and the numbers may carry decimals
_COORD = re.compile(r"\(?\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)?")


def parse_coordinates(answer: str) -> list[tuple[float, float]]:
    """Every (x, y) pair in `answer`; integral values come back as ints, others as floats (which
    can never equal a grid point, so they score as wrong rather than as unreadable)."""

    def num(text: str) -> float:
        value = float(text)
        return int(value) if value.is_integer() else value

    return [(num(a), num(b)) for a, b in _COORD.findall(answer)]


# --- helpers --------------------------------------------------------------------------------
def _obj(world: World, name: str) -> Any:
    return next(o for o in world.objects if o.name == name)


def standing_points(world: World) -> list[tuple[int, int]]:
    pts = [(x, y) for r in world.rooms for x in range(r.x0, r.x1 + 1) for y in range(r.y0, r.y1 + 1)]
    return pts + [(g.x, g.y) for g in world.gates]


_MOVE = re.compile(r"(JumpTo|Rotate|Return)\s*\(([^()]*)\)", re.I | re.S)  # one move, no nested parentheses


def parse_moves(answer: str) -> list[str] | str:
    """A view2action answer as its list of move actions, or an error message. The list may be
    written bare (`JumpTo(lamp), Rotate(90)`) or bracketed (`Actions: [JumpTo(lamp), Rotate(90)]`)."""
    text = answer.strip()
    if "[" in text:
        inner = text[text.index("[") + 1 :]
        text = inner[: inner.rindex("]")] if "]" in inner else inner
    moves = split_items(text)
    if not moves:
        return "no move actions found"
    for raw in moves:
        if _MOVE.fullmatch(raw.strip()) is None:
            return f"'{raw[:40]}' is not a move action (JumpTo(OBJ), Rotate(DEG), Return())"
    return moves


def run_moves(world: World, moves: list[str]) -> Pose | str:
    """Execute move actions from the start (every object counts as observed; rooms and field of
    view still apply); the final pose, or an error message."""
    by_name = {it.name: it for it in items_of(world)}
    cur = START
    for raw in moves:
        m = re.fullmatch(r"([A-Za-z]+)\s*\((.*)\)", raw.strip())
        if m is None:
            return f"'{raw[:40]}' is not a move action"
        kind, arg = m.group(1).lower(), m.group(2).strip()
        if kind == "rotate":
            try:
                deg = int(arg.rstrip("°").strip())
            except ValueError:
                return f"Rotate({arg[:20]}) needs integer degrees"
            if deg not in ROTATIONS:
                return f"Rotate({deg}) is not allowed"
            cur = Pose(cur.x, cur.y, turn(cur.facing, deg))
        elif kind == "return" and not arg:
            cur = START
        elif kind == "jumpto":
            it = by_name.get(normalize_name(arg))
            if it is None:
                return f"there is no '{arg[:30]}'"
            if (it.x, it.y) != (cur.x, cur.y) and not (
                it.rooms & rooms_at(world, cur.x, cur.y) and in_fov(cur, it.x, it.y)
            ):
                return f"'{it.name}' is not visible when jumping"
            cur = Pose(it.x, it.y, cur.facing)
        else:
            return f"'{raw[:40]}' is not a move action (JumpTo, Rotate, Return)"
    return cur


def _random_moves(world: World, rng: random.Random, jumps: int) -> tuple[list[str], Pose] | None:
    """A valid move sequence of `jumps` jumps, each preceded by an optional rotation, then a turn."""
    by_name = {it.name: it for it in items_of(world) if not it.is_gate}
    cur = START
    moves: list[str] = []
    for _ in range(jumps):
        deg = rng.choice((0, 0, 90, -90, 180))
        facing = turn(cur.facing, deg)
        here = rooms_at(world, cur.x, cur.y)
        options = [
            it for it in by_name.values()
            if it.rooms & here and (it.x, it.y) != (cur.x, cur.y) and in_fov(Pose(cur.x, cur.y, facing), it.x, it.y)
        ]  # fmt: skip
        if not options:
            return None
        if deg:
            moves.append(f"Rotate({deg})")
        it = rng.choice(sorted(options, key=lambda i: i.name))
        moves.append(f"JumpTo({it.name})")
        cur = Pose(it.x, it.y, facing)
    deg = rng.choice((0, 90, -90, 180))
    if deg:
        moves.append(f"Rotate({deg})")
        cur = Pose(cur.x, cur.y, turn(cur.facing, deg))
    return moves, cur


def _targets_in_view(world: World, pose: Pose, exclude: str | None = None) -> list[str]:
    return sorted(o.name for o in world.objects if o.name != exclude and in_fov(pose, o.x, o.y))


def _view_text(world: World, pose: Pose) -> str:
    """An observation on one line. The close-pair relations keep their frame (the viewer's facing
    called "north"): without it, "a is south of b" would read as a map direction."""
    lines = observation_text(world, pose).splitlines()
    cut = next((k for k, ln in enumerate(lines) if ln.startswith("Close pairs")), len(lines))
    items = [ln[2:] for ln in lines[:cut] if ln.startswith("- ")]
    pairs = [ln[2:] for ln in lines[cut:] if ln.startswith("- ")]
    text = "; ".join(items)
    if pairs:
        text += '; close pairs (your current facing direction called "north"): ' + "; ".join(pairs)
    return text


def mental_rotation_order(world: World, names: list[str], direction: str) -> list[str]:
    def key(name: str) -> tuple[float, int, str]:
        o = _obj(world, name)
        b = bearing(o.x, o.y) % 360.0
        return ((360.0 - b) % 360.0 if direction == "counterclockwise" else b, o.x * o.x + o.y * o.y, name)

    return sorted(names, key=key)


# --- generation -------------------------------------------------------------------------------
def generate(world: World, family: str, rng: random.Random) -> dict[str, Any]:
    """A question of `family` about `world`; raises QuestionError when none fits."""
    objs = sorted(world.objects, key=lambda o: o.name)
    names = [o.name for o in objs]
    facing_objs = [o for o in objs if o.facing is not None]
    if family == "pairwise-direction":
        if len(names) < 2:
            raise QuestionError("a pairwise question needs two objects")
        obj, anchor = rng.sample(names, 2)
        return {"family": family, "obj": obj, "anchor": anchor}
    if family == "perspective-taking":
        pairs = [
            (a.name, t)
            for a in facing_objs
            for t in _targets_in_view(world, Pose(a.x, a.y, a.facing), a.name)
        ]
        if not pairs:
            raise QuestionError("no object is in view from an object with a facing")
        anchor, obj = rng.choice(pairs)
        return {"family": family, "anchor": anchor, "obj": obj}
    if family == "perspective-determine":
        keys = {o.name: observation_key(world, Pose(o.x, o.y, o.facing)) for o in facing_objs}
        unique = [n for n, k in keys.items() if k and list(keys.values()).count(k) == 1]
        if not unique:
            raise QuestionError("no object's view is unique")
        return {"family": family, "anchor": rng.choice(unique)}
    if family in ("action2view", "view2action"):
        for _ in range(30):
            drawn = _random_moves(world, rng, rng.choice((1, 2)))
            if drawn is None:
                continue
            moves, pose = drawn
            if family == "action2view":
                targets = _targets_in_view(world, pose)
                if targets:
                    return {"family": family, "actions": moves, "target": rng.choice(targets)}
            elif observation_key(world, pose):
                return {"family": family, "actions": moves, "x": pose.x, "y": pose.y, "facing": pose.facing}
        raise QuestionError("no move sequence with something in view")
    if family == "allocentric-map":
        k = min(len(names), rng.randint(3, 5))
        return {"family": family, "objects": rng.sample(names, k)}
    if family == "mental-rotation":
        k = min(len(names), rng.randint(3, 4))
        return {
            "family": family,
            "objects": rng.sample(names, k),
            "direction": rng.choice(("clockwise", "counterclockwise")),
        }
    if family == "location2view":
        occupied = {(o.x, o.y) for o in world.objects} | {(0, 0)}
        free = [p for p in standing_points(world) if p not in occupied]
        for _ in range(50):
            x, y = rng.choice(free)
            facing = rng.choice(FACINGS)
            targets = _targets_in_view(world, Pose(x, y, facing))
            if targets:
                return {"family": family, "x": x, "y": y, "facing": facing, "target": rng.choice(targets)}
        raise QuestionError("no free location with an object in view")
    if family == "view2location":
        occupied = {(o.x, o.y) for o in world.objects}
        points = [p for p in standing_points(world) if p not in occupied and p != (0, 0)]
        rng.shuffle(points)
        for x, y in points:
            facing = rng.choice(FACINGS)
            key = observation_key(world, Pose(x, y, facing))
            if len(key) < 2:
                continue
            matches = sum(
                observation_key(world, Pose(px, py, facing)) == key for px, py in standing_points(world)
            )
            if matches <= 2:
                return {"family": family, "x": x, "y": y, "facing": facing}
        raise QuestionError("no location with a telling view")
    raise ValueError(f"unknown question family {family!r} (known: {', '.join(FAMILIES)})")


# --- question text ----------------------------------------------------------------------------
ANSWER_FORMATS: dict[str, tuple[str, str]] = {
    "pairwise-direction": ("<cardinal direction>, <distance>", "north-west, near"),
    "perspective-taking": ("<ego direction>, <distance>", "front-left, near"),
    "perspective-determine": ("<object_name>", "lamp"),
    "action2view": ("<ego direction>, <distance>", "front, near"),
    "view2action": ("<sequence of move actions>", "JumpTo(lamp), Rotate(90)"),
    "allocentric-map": ("(x0, y0); (x1, y1); ... in the same order", "(1, 0); (-2, 3); (0, -1)"),
    "mental-rotation": ("<object_name1>, <object_name2>, ...", "mug, sofa, plant"),
    "location2view": ("<direction>, <distance>", "front, near"),
    "view2location": ("(x, y)", "(2, -1)"),
}


def question_pose(world: World, q: dict[str, Any]) -> Pose | None:
    """The pose whose view the question shows (an image in the vision modality)."""
    fam = q["family"]
    if fam == "perspective-determine":
        o = _obj(world, q["anchor"])
        return Pose(o.x, o.y, o.facing)
    if fam in ("view2action", "view2location"):
        return Pose(q["x"], q["y"], q["facing"])
    return None


def question_text(world: World, q: dict[str, Any], view_as_image: bool = False) -> str:
    """The question in our own words, carrying the paper's parameters and answer format."""
    fam = q["family"]
    pose = question_pose(world, q)
    view = "the view shown in the image below" if view_as_image else (_view_text(world, pose) if pose else "")
    if fam == "pairwise-direction":
        body = (
            "You are back at your starting position, facing north. Looking at the layout from above, "
            f"where is {q['obj']} relative to {q['anchor']}?"
        )
    elif fam == "perspective-taking":
        body = (
            f"Imagine you jump to {q['anchor']}'s position and face the direction it faces. "
            f"Where is {q['obj']} relative to you?"
        )
    elif fam == "perspective-determine":
        body = (
            "Imagine you jump to the position of one of the objects and face the direction it faces. "
            f"From there you observe: {view}. At which object are you standing?"
        )
    elif fam == "action2view":
        body = (
            "You are back at your starting position, facing north. You carry out this action sequence: "
            f"{', '.join(q['actions'])}. Afterwards, what is the egocentric relation of {q['target']} to you?"
        )
    elif fam == "view2action":
        body = (
            "You are back at your starting position, facing north. You then carried out a sequence of "
            f"moves that left you at a new position and facing. There you observe: {view}. Which action "
            "sequence got you there? It must be a valid sequence of move actions only (JumpTo, Rotate, Return)."
        )
    elif fam == "allocentric-map":
        body = ORIGIN + f"Give the coordinates (x east, y north) of these objects: {', '.join(q['objects'])}."
    elif fam == "mental-rotation":
        side = "right" if q["direction"] == "clockwise" else "left"
        body = (
            "You are back at your starting position, facing north. You now turn in place through a full "
            f"circle, continuously {q['direction']} (to your {side}). Pretend the walls are gone, so every "
            f"object can be seen. Consider only these objects: {', '.join(q['objects'])}. List them in the "
            "order in which each comes directly in front of you during the turn; if two share a bearing, "
            "the nearer one comes first."
        )
    elif fam == "location2view":
        body = (
            ORIGIN + f"You move to ({q['x']}, {q['y']}) and face {q['facing']}. What is the egocentric "
            f"relation of {q['target']} to you?"
        )
    else:  # view2location
        body = (
            f"You move to a new position and face {q['facing']}. There you observe: {view}. "
            + ORIGIN
            + "What is your new position (x, y)?"
        )
    fmt, example = ANSWER_FORMATS[fam]
    return (
        f"{body}\nAnswer format: {fmt} (e.g. {example}).\nEnd your reply with a line `Answer: <your answer>`."
    )


# --- truth and scoring ------------------------------------------------------------------------
def truth(world: World, q: dict[str, Any]) -> str:
    """The canonical correct answer."""
    fam = q["family"]
    if fam == "pairwise-direction":
        return pair_relation(_obj(world, q["obj"]), _obj(world, q["anchor"]))
    if fam == "perspective-taking":
        a, o = _obj(world, q["anchor"]), _obj(world, q["obj"])
        return ego_relation(Pose(a.x, a.y, a.facing), o.x, o.y)
    if fam == "perspective-determine":
        return q["anchor"]
    if fam == "action2view":
        pose = run_moves(world, q["actions"])
        assert isinstance(pose, Pose)
        o = _obj(world, q["target"])
        return ego_relation(pose, o.x, o.y)
    if fam == "view2action":
        return ", ".join(q["actions"]) if q["actions"] else "Rotate(0)"
    if fam == "allocentric-map":
        return "; ".join(f"({_obj(world, n).x}, {_obj(world, n).y})" for n in q["objects"])
    if fam == "mental-rotation":
        return ", ".join(mental_rotation_order(world, q["objects"], q["direction"]))
    if fam == "location2view":
        o = _obj(world, q["target"])
        return ego_relation(Pose(q["x"], q["y"], q["facing"]), o.x, o.y)
    return f"({q['x']}, {q['y']})"


def score(world: World, q: dict[str, Any], reply: str) -> Scored:
    """Score a reply; unreadable answers score 0 with the reason in `detail`."""
    fam = q["family"]
    answer = extract_answer(reply)
    if not answer:
        return Scored(0.0, False, False, "no answer found (end the reply with `Answer: ...`)")
    expected = truth(world, q)
    if fam in ("pairwise-direction", "perspective-taking", "action2view", "location2view"):
        got = parse_relation(answer, "cardinal" if fam == "pairwise-direction" else "ego")
        if isinstance(got, str):
            return Scored(0.0, False, False, got)
        want = tuple(p.strip() for p in expected.split(","))
        hits = (got[0] == want[0]) + (got[1] == want[1])
        return Scored(hits / 2, hits == 2, True, f"{got[0]}, {got[1]}")
    if fam == "perspective-determine":
        name = _object_name(answer, {o.name for o in world.objects})
        if name not in {o.name for o in world.objects}:
            return Scored(0.0, False, False, f"'{answer[:40]}' is not an object of this world")
        return Scored(float(name == expected), name == expected, True, name)
    if fam == "view2action":
        moves = parse_moves(answer)
        if isinstance(moves, str):
            return Scored(0.0, False, False, moves)
        pose = run_moves(world, moves)
        if isinstance(pose, str):
            # well-formed but not executable (a turn of 45°, a jump out of view): a wrong answer
            return Scored(0.0, False, True, f"invalid move sequence: {pose}")
        ok = observation_key(world, pose) == observation_key(world, Pose(q["x"], q["y"], q["facing"]))
        return Scored(float(ok), ok, True, ", ".join(moves))
    if fam == "allocentric-map":
        coords = parse_coordinates(answer)
        if not coords:
            return Scored(0.0, False, False, "no (x, y) coordinates found")
        want = parse_coordinates(expected)
        hits = sum(a == b for a, b in zip(coords, want, strict=False))
        ok = hits == len(want) and len(coords) == len(want)
        similarity = coordinate_similarity(coords, [(int(x), int(y)) for x, y in want])
        return Scored(hits / len(want), ok, True, answer, similarity)
    if fam == "mental-rotation":
        known = {o.name for o in world.objects}
        got_names = [_object_name(n, known) for n in _unwrap(answer).split(",") if _unwrap(n)]
        want_names = expected.split(", ")
        if not set(got_names) & set(want_names):
            return Scored(
                0.0,
                False,
                False,
                f"expected the listed objects in order ({', '.join(q['objects'])}), got '{answer[:60]}'",
            )
        hits = sum(a == b for a, b in zip(got_names, want_names, strict=False))
        return Scored(hits / len(want_names), got_names == want_names, True, ", ".join(got_names))
    coords = parse_coordinates(answer)
    if len(coords) != 1:
        return Scored(0.0, False, False, f"expected one (x, y) coordinate, got '{answer[:40]}'")
    (x, y), facing = coords[0], q["facing"]
    legal = (x, y) in set(standing_points(world))
    ok = legal and observation_key(world, Pose(x, y, facing)) == observation_key(
        world, Pose(q["x"], q["y"], facing)
    )
    # the paper's localisation similarity exp(-error / |truth|), counted only when the view matches
    error = math.hypot(x - q["x"], y - q["y"])
    similarity = math.exp(-error / max(1.0, math.hypot(q["x"], q["y"]))) if ok else 0.0
    return Scored(float(ok), ok, True, f"({x}, {y})", similarity)


def answer_space(world: World, q: dict[str, Any], rng: random.Random, k: int = 12) -> list[str]:
    """Well-formed answers for the random baseline: the whole space when it is small, else a
    uniform sample of it (drawn without looking at the truth)."""
    fam = q["family"]
    if fam == "pairwise-direction":
        return [f"Answer: {d}, {r}" for d in CARDINAL_BINS for r in DISTANCE_BINS[1:]]
    if fam in ("perspective-taking", "action2view", "location2view"):
        return [f"Answer: {d}, {r}" for d in EGO_BINS[:-1] for r in DISTANCE_BINS[1:]]
    names = sorted(o.name for o in world.objects)
    if fam == "perspective-determine":
        return [f"Answer: {n}" for n in names]
    xs = range(min(r.x0 for r in world.rooms), max(r.x1 for r in world.rooms) + 1)
    ys = range(min(r.y0 for r in world.rooms), max(r.y1 for r in world.rooms) + 1)
    if fam == "allocentric-map":
        return [
            "Answer: " + "; ".join(f"({rng.choice(xs)}, {rng.choice(ys)})" for _ in q["objects"])
            for _ in range(k)
        ]
    if fam == "mental-rotation":
        perms = [", ".join(p) for p in itertools.permutations(q["objects"])]
        return [f"Answer: {p}" for p in perms]
    if fam == "view2location":
        return [
            f"Answer: ({x}, {y})"
            for x, y in rng.sample(standing_points(world), min(k, len(standing_points(world))))
        ]
    out = []
    for _ in range(k * 3):
        drawn = _random_moves(world, rng, rng.choice((1, 2)))
        if drawn is not None:
            out.append("Answer: " + (", ".join(drawn[0]) or "Rotate(0)"))
        if len(out) >= k:
            break
    return out or ["Answer: Rotate(0)"]


def make_question(world: World, family: str, seed: int) -> dict[str, Any]:
    """A question of `family`, retrying draws; QuestionError when the world cannot host one."""
    rng = random.Random(seed)
    for _ in range(20):
        try:
            return generate(world, family, rng)
        except QuestionError:
            continue
    raise QuestionError(f"this world cannot host a {family} question")
