"""Seeded instances of the sliding tile puzzle with an exact optimal length L.

A random walk leaves the goal, never undoing its previous move, and the solver follows it with
the exact distance of every state it visits (each step changes the distance by exactly one, so
one bounded search per step decides which way). The walk stops the first time it stands exactly
L moves from the goal, and that state is the instance: a random-walk state of optimal length L,
found without the many full solves that rejecting walk end points of the wrong length would
cost. Long targets simply make longer walks. Before it first reaches L the walk is always closer
than L, so every search stays below depth L.

Distances are exact whatever the solver has cached, and the stored solution comes from a fresh
search (`TileSolver.solve` never splices cached plans), so an instance depends only on the seed,
the board and L, not on what the process solved before.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import OrderedDict

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.stp_schema import DIAMETERS, STPInstance, move_text, rows_from_state
from playbench.tasks.ivispar.stp_solver import State, TileSolver, blank_of, get_solver, slide

# Steps a walk may take before giving up: far more than walks need on boards where L exists
# (about 2L on 4x4), so only lengths at or near a small board's diameter run out.
WALK_FACTOR, WALK_EXTRA = 50, 2000
# Solutions of generated instances, so that asking for the same instances again, as runs and
# tests do, costs no search; valid because `TileSolver.solve` is deterministic.
_PLANS: OrderedDict[tuple[int, int, State], list[int]] = OrderedDict()
_PLAN_CACHE_SIZE = 4096


def first_passage(solver: TileSolver, length: int, rng: random.Random) -> State | None:
    """The first state of a non-backtracking random walk from the goal at distance `length`."""
    board = solver.board
    state = solver.goal
    distance = 0
    came_from = -1
    for _ in range(WALK_FACTOR * length + WALK_EXTRA):
        blank = blank_of(board, state)
        options = [n for n in board.neighbors[blank] if n >= 0 and n != came_from]
        n = rng.choice(options)
        state = slide(state, state.index(n) + 1, blank)
        came_from = blank
        distance = solver.distance_near(state, distance)
        if distance == length:
            return state
    return None


def _plan(solver: TileSolver, state: State) -> list[int]:
    key = (solver.board.width, solver.board.height, state)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = solver.solve(state)
        if len(_PLANS) > _PLAN_CACHE_SIZE:
            _PLANS.popitem(last=False)
    else:
        _PLANS.move_to_end(key)
    return plan


def generate(width: int, height: int, length: int, rng: random.Random) -> tuple[State, list[int]]:
    """A start state at distance exactly `length` and one shortest plan (tiles moved)."""
    solver = get_solver(width, height)
    state = first_passage(solver, length, rng)
    if state is None:
        known = DIAMETERS.get((width, height))
        hint = f" (the longest on this board is {known}, reached from very few states)" if known else ""
        raise ConfigError(
            f"could not generate a {width}x{height} sliding tile puzzle of optimal length {length}: a "
            f"random walk of {WALK_FACTOR * length + WALK_EXTRA} moves never got that far{hint}; "
            "choose a shorter optimal_length"
        )
    return state, _plan(solver, state)


def make_instance(width: int, height: int, length: int, seed: int, rep: int) -> STPInstance:
    """The instance of one (board, length, rep) slot for `seed`."""
    rng = random.Random(derive_seed("ivispar/stp", seed, width, height, length, rep))
    state, plan = generate(width, height, length, rng)
    board = get_board(width, height)
    rows = rows_from_state(board, state)
    actions = []
    s = state
    for tile in plan:
        actions.append(move_text(board, s, tile))
        s = slide(s, tile, blank_of(board, s))
    digest = hashlib.sha256(json.dumps({"board_size": [width, height], "rows": rows}).encode()).hexdigest()[
        :8
    ]
    return STPInstance(
        id=f"stp-{width}x{height}-l{length:02d}-r{rep}-{digest}",
        optimal_steps=length,
        board_size=[width, height],
        rows=rows,
        seed=seed,
        rep=rep,
        solution=actions,
    )
