"""How a Theory of Space question is put and scored: its text (with the answer format), the pose whose
view it quotes, the true answer, reading and scoring a reply, and the answer space (the questions
themselves are drawn in `questions.py`)."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

from playbench.tasks.tos import evaluate
from playbench.tasks.tos.questions import QuestionError, Scored, _obj, _plan, entry_text, plan_lines
from playbench.tasks.tos.world import (
    CARDINAL_BINS,
    CARDINAL_LABELS,
    DISTANCE_BINS,
    EGO_BINS,
    Pose,
    World,
)

# --- question text ---------------------------------------------------------------------------
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
    """The pose whose view the question quotes (an image with `image_questions`)."""
    fam = q["family"]
    if fam == "perspective-determine":
        o = _obj(world, q["anchor"])
        return Pose(o.x, o.y, getattr(o, "facing", None) or "north")
    if fam in ("view2action", "view2location"):
        return Pose(q["x"], q["y"], q["facing"])
    return None


def _origin_line(q: dict[str, Any]) -> str:
    if q.get("origin"):
        return f"Take the {q['origin']} as the new origin (0, 0).\n"
    return "The origin (0, 0) stays where you started.\n"


def question_text(world: World, q: dict[str, Any], view_as_image: bool = False) -> str:
    """The question in our own words, carrying the authors' question facts and answer format."""
    fam = q["family"]
    if fam == "pairwise-direction":
        body = (f"You are back at your starting position, facing north.\nOn a top-down map, where is {q['obj']} "
                f"relative to {q['anchor']}?")  # fmt: skip
    elif fam == "perspective-taking":
        body = (f"Now you jump to where {q['anchor']} is and face the way it faces.\nWhere is {q['obj']} "
                "relative to you?")  # fmt: skip
    elif fam == "perspective-determine":
        seen = (
            "the view in the image below" if view_as_image else "; ".join(entry_text(e) for e in q["shown"])
        )
        body = ("Now you jump to the position of one of the objects and face the way it faces.\n"
                f"You observe: {seen}.\nWhich object are you standing at?")  # fmt: skip
    elif fam == "action2view":
        steps = "\n".join(plan_lines(world, [tuple(p) for p in q["plan"]]))
        body = ("You are back at your starting position, facing north.\nYou carry out these actions:\n"
                f"{steps}\n\nAfterwards, what is the egocentric relation of {q['target']} to you?")  # fmt: skip
    elif fam == "view2action":
        seen = (
            "the view in the image below"
            if view_as_image
            else "\n".join(f"• {entry_text(e)}" for e in q["shown"])
        )
        body = ("You are back at your starting position, facing north.\nThen you carried out a sequence of "
                f"actions that left you at a new position and facing. There you observe:\n{seen}\n\n"
                "Which sequence of actions brings you to this view? It must be valid and hold move actions only.")  # fmt: skip
    elif fam == "allocentric-map":
        body = ("With the origin (0, 0) where you started and north the way you faced there, give allocentric "
                f"coordinates (x to the right/east, y up/north).\nObjects: {', '.join(q['objects'])}.")  # fmt: skip
    elif fam == "mental-rotation":
        body = ("You are back at your starting position, facing north.\nYou turn in place through a full "
                f"360 degrees, continuously {q['direction']}.\nImagine the walls are gone, so every object can be "
                f"seen.\nConsider these objects: {', '.join(q['objects'])}.\nList them in the order in which "
                "each comes directly in front of you while you turn.\nIf two share a bearing, the nearer comes "
                "first.")  # fmt: skip
    elif fam == "location2view":
        body = (_origin_line(q) + f"You move to ({q['x'] - q['ox']}, {q['y'] - q['oy']}) and face {q['facing']}.\n"
                f"What is the egocentric relation of {q['target']} to you?")  # fmt: skip
    else:  # view2location
        seen = (
            "the view in the image below"
            if view_as_image
            else "\n".join(f"• {entry_text(e)}" for e in q["shown"])
        )
        body = (f"You move to a new position and face {q['facing']}.\nYou observe:\n{seen}\n"
                + _origin_line(q) + "What is your new 2D coordinate (x, y)?")  # fmt: skip
    fmt, example = ANSWER_FORMATS[fam]
    return f"{body}\n\nAnswer format: {fmt}\nExample: {example}\nEnd your reply with `FINAL ANSWER: <your answer>`."


# --- truth and scoring ------------------------------------------------------------------------
def truth(world: World, q: dict[str, Any]) -> str:
    """A correct answer, written as the answer format asks."""
    fam = q["family"]
    if fam in ("pairwise-direction", "perspective-taking", "action2view", "location2view"):
        return str(q["answer"])
    if fam == "perspective-determine":
        return str(q["answer"])
    if fam == "view2action":
        moves = [f"Rotate({a})" if k == "rotate" else f"JumpTo({a})" for k, a in q["plan"]]
        return ", ".join(moves) if moves else "Rotate(0)"
    if fam == "allocentric-map":
        return "; ".join(f"({x}, {y})" for x, y in q["coords"])
    if fam == "mental-rotation":
        return ", ".join(q["answer"])
    return f"({q['coord'][0]}, {q['coord'][1]})"


def extract_answer(text: str) -> str:
    """The answer part of a reply: after the last `FINAL ANSWER:` (else the last `Answer:`), else
    the last non-empty line."""
    if not isinstance(text, str):
        text = str(text)
    for marker in (r"FINAL ANSWER\s*:", r"\bAnswer\s*:"):
        hits = list(re.finditer(marker, text, re.IGNORECASE))
        if hits:
            return text[hits[-1].end() :].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def score(world: World, q: dict[str, Any], reply: str, partial_credit: bool = False) -> Scored:
    """Score a reply as the authors do (`evaluate.py`); `partial_credit` (ours) gives mental rotation
    and allocentric maps the share of positions right instead."""
    fam = q["family"]
    answer = extract_answer(reply)
    if not answer:
        return Scored(0.0, False, False, "no answer found (end the reply with `FINAL ANSWER: ...`)")
    if fam in ("pairwise-direction", "perspective-taking", "action2view", "location2view"):
        two = evaluate.parse_two(answer)
        # read: two parts, one of them a known label (the score itself is theirs either way)
        parsed = two is not None and any(evaluate.canonical(p) in evaluate.KNOWN for p in two)
        s = evaluate.relation_score(answer, q["answer"])
    elif fam == "perspective-determine":
        parsed = True
        s = evaluate.determine_score(world, answer, q)
    elif fam == "view2action":
        parsed = bool(evaluate.parse_moves(answer))
        s = evaluate.moves_score(world, answer, q)
    elif fam == "allocentric-map":
        got = evaluate.coordinate_list(answer)
        parsed = bool(got)
        want = [tuple(c) for c in q["coords"]]
        if partial_credit:
            s = sum(1 for g, w in zip(got, want, strict=False) if g == w) / len(want)
        else:
            s = evaluate.map_similarity(got, want)  # type: ignore[arg-type]
    elif fam == "mental-rotation":
        tokens = evaluate.extract_sequence(answer)
        parsed = bool(tokens)
        if partial_credit:
            norm = [t.strip().lower() for t in tokens or []]
            s = sum(1 for g, w in zip(norm, q["answer"], strict=False) if g == w) / len(q["answer"])
        else:
            s = evaluate.sequence_score(answer, q["answer"])
    else:  # view2location
        parsed = bool(evaluate.coordinate_list(answer)) or "(" in answer
        s = evaluate.location_score(answer, tuple(q["coord"]))
    s = float(s)
    detail = f"score {s:.2f}" if parsed else "the answer could not be read"
    return Scored(s, s >= 1.0 - 1e-9, parsed, detail)


def answer_space(world: World, q: dict[str, Any], rng: random.Random, k: int = 12) -> list[str]:
    """Candidate answers for the random baseline (the whole space where it is small, else a sample),
    drawn without looking at the truth."""
    fam = q["family"]
    if fam == "pairwise-direction":
        return [f"FINAL ANSWER: {CARDINAL_LABELS[c]}, {d}" for c in CARDINAL_BINS for d in DISTANCE_BINS[1:]]
    if fam in ("perspective-taking", "action2view", "location2view"):
        return [f"FINAL ANSWER: {e}, {d}" for e in EGO_BINS[:-1] for d in DISTANCE_BINS[1:]]
    if fam == "perspective-determine":
        return [f"FINAL ANSWER: {o.name}" for o in world.objects]
    if fam == "mental-rotation":
        perms = list(itertools.permutations(q["objects"]))
        rng.shuffle(perms)
        return [f"FINAL ANSWER: {', '.join(p)}" for p in perms[:k]]
    xs = range(min(r.x0 for r in world.rooms), max(r.x1 for r in world.rooms) + 1)
    ys = range(min(r.y0 for r in world.rooms), max(r.y1 for r in world.rooms) + 1)
    if fam == "allocentric-map":
        return ["FINAL ANSWER: " + "; ".join(f"({rng.choice(xs)}, {rng.choice(ys)})" for _ in q["objects"])
                for _ in range(k)]  # fmt: skip
    if fam == "view2location":
        return [f"FINAL ANSWER: ({rng.choice(xs)}, {rng.choice(ys)})" for _ in range(k)]
    out = []  # view2action: random plans of the same generator
    for _ in range(k):
        try:
            plan, _end = _plan(world, rng, 3)
        except QuestionError:
            continue
        out.append("FINAL ANSWER: " + (", ".join(f"Rotate({a})" if kk == "rotate" else f"JumpTo({a})"
                                                 for kk, a in plan) or "Rotate(0)"))  # fmt: skip
    return out or ["FINAL ANSWER: Rotate(0)"]
