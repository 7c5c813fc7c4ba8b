"""Difficulty statistics of a VisEscape room, the ones a twin set matches the paper set on (issue 30).

Every figure is read off the room's shortest escape (the oracle's path) and its furniture, defined the same
way for the authors' rooms (`scripts/visescape_paper_figures.py`, on their rules) and for ours:

- `receptacles`: the furniture on the four walls, the door included;
- `items`: the items that are not locks (keys, cards, tools, buttons, clue notes and photos);
- `quizzes`: the locks opened by a typed code (ours: a quiz; theirs: a NonKeyLock);
- `optimal_steps`: the length of the shortest escape (codes typed only after their clue was seen);
- `hint_stalls`: the steps of that escape that add a trigger: each ends a stall (resets the stall counter
  of the hint mechanism and of the early stop) and keys the next hint, so a room hands out at most this
  many different hints (the authors' CLEAR_PROGRESS, GC's denominator, counts the same triggers);
- `chain_depth`: those progress steps that pick nothing up: the gates of the lock -> key -> code chain (a
  key, card or tool used, a code solved, a button pressed, a mechanism worked). In the authors' rooms and in
  generated ones every gate's opener lies behind the gate before it, so this is the depth of one chain;
- `longest_stall`: the most steps of that escape before the first progress step or between two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playbench.tasks.visescape.engine import Engine
from playbench.tasks.visescape.schema import Room
from playbench.tasks.visescape.validator import clues_read, shortest_path

STATISTICS = (
    "receptacles",
    "items",
    "quizzes",
    "optimal_steps",
    "hint_stalls",
    "chain_depth",
    "longest_stall",
)


def progress_figures(added: Sequence[Sequence[str]]) -> dict[str, int]:
    """`optimal_steps`, `hint_stalls`, `chain_depth` and `longest_stall` of an escape, given the triggers
    each of its steps added (an empty list for a step that made no progress)."""
    progress = [k for k, new in enumerate(added, 1) if new]
    gaps = [b - a - 1 for a, b in zip([0, *progress], progress, strict=False)]
    return {
        "optimal_steps": len(added),
        "hint_stalls": len(progress),
        "chain_depth": sum(1 for new in added if new and not any(t.startswith("picked_") for t in new)),
        "longest_stall": max(gaps, default=len(added)),
    }


def room_difficulty(
    room: Room, quiz_params: dict[str, dict[str, Any]], carry_clues: bool = False
) -> dict[str, int]:
    """The statistics of one of our rooms (as played) with its quiz parameters fixed."""
    engine = Engine(room, quiz_params, carry_clues=carry_clues)
    state = engine.initial_state()
    path, _ = shortest_path(engine, state, read=clues_read(engine, state))
    if path is None:
        raise ValueError(f"{room.id}: the room cannot be escaped, so it has no difficulty figures")
    added: list[list[str]] = []
    for action in path:
        nxt = engine.apply(state, action).state
        added.append(sorted(nxt.triggers - state.triggers))
        state = nxt
    return {
        "receptacles": len(room.receptacles),
        "items": sum(1 for i in room.items if i.kind != "lock"),
        "quizzes": len(room.quizzes),
        **progress_figures(added),
    }
