"""The uncertainty ("fog") probe: which room points are unexplored, the map that shows them, its scores.

The candidate points (their `ExplorationManager`: unexplored and explored room points per observed
room), the text map (their `symbolic_map`) and our vision image of it, the reading of a fog reply
and its precision, recall and F1. It is apart from the cognitive maps (`probe_maps.py`,
`probe_scores.py`) because it asks and scores a different question: a set of letters, not a map;
`probing.py` re-exports its public names.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from playbench.tasks.tos.probe_maps import outermost_objects
from playbench.tasks.tos.world import Pose, World, in_fov, rooms_at


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


# --- the vision probe's map ----------------------------------------------------------------------
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
