"""Seeded instance generator: puzzles of an exact optimal length and an exact interference.

Interference 0 (the paper's dataset): goals are placed at random, then the generator walks
backwards from the goal for L moves, each taking one geom one step further from its own goal.
The reversed walk is a legal solution of L moves, and the sum of Manhattan distances of the start
is exactly L, a lower bound; so the optimal length is L and the interference is 0. Dead ends (no
geom can move further away) restart the attempt with a fresh placement.

Interference I > 0 (optimal length L = Manhattan sum M + I): the same backward walk first builds
an interference-free state with M = L - I. Then pairs of moves, one geom one step away from its
goal and one geom (any other move than the undo) one step towards it, keep M fixed while the
solver follows the exact distance d of every state reached (one bounded search per move: a move
changes d by exactly one). A pair that lowers d is undone; d climbs in steps of 2 from M and the
first state with d = L is the instance, with the solver's shortest plan as its solution. Random
walks of length L rarely have their detours forced, so rejecting them is thousands of times
slower for I >= 4; the climb finds e.g. 5x5 boards with 15 geoms, L = 16, I = 6 in a fraction of
a second. An attempt that stalls starts over with a new placement.
"""

from __future__ import annotations

import hashlib
import json
import random

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.tasks.ivispar.board import (
    DIRECTIONS,
    OPPOSITE,
    Board,
    State,
    moved,
    occupancy,
    state_changing_moves,
)
from playbench.tasks.ivispar.schema import GeomSpec, SGPInstance
from playbench.tasks.ivispar.solver import Solver, goal_tables

MAX_ATTEMPTS = 2000
MAX_INTERFERENCE_ATTEMPTS = 300  # placements tried for one interfering instance
PAIR_BUDGET = 60  # move pairs tried from one placement before it is abandoned


def cell_order(geom_counts: tuple[int, ...], lengths: tuple[int, ...]) -> list[tuple[int, int]]:
    """Every (geoms, length) cell once, ordered so that any prefix is spread over both scales.

    Position ``q * G + a`` holds geoms ``geom_counts[a]`` and length ``lengths[(q + a) % L]``: for a
    fixed `a` the lengths cycle through all values, so this is a bijection, and the first G cells
    already cover every geom count (and every length when G >= L).
    """
    n_g, n_l = len(geom_counts), len(lengths)
    return [(geom_counts[a], lengths[(q + a) % n_l]) for q in range(n_l) for a in range(n_g)]


def backward_walk(
    board: Board, goal: State, length: int, rng: random.Random
) -> tuple[State, list[tuple[int, int]]] | None:
    """Start state and forward solution (geom, direction) of a walk that ends at `goal`, or None."""
    # per geom, each cell's moves away from its goal (one step further, in direction order)
    away = [goal_tables(board.width, board.height, g)[2] for g in goal]
    state = goal
    backward: list[tuple[int, int]] = []
    for _ in range(length):
        occ = occupancy(state)
        options = [(i, d, n) for i, c in enumerate(state) for d, n in away[i][c] if not (occ >> n) & 1]
        if not options:
            return None
        i, d, n = rng.choice(options)
        state = moved(state, i, n)
        backward.append((i, d))
    forward = [(i, OPPOSITE[d]) for i, d in reversed(backward)]
    return state, forward


def generate(
    board: Board,
    colors: list[str],
    shapes: list[str],
    num_geoms: int,
    length: int,
    rng: random.Random,
) -> tuple[list[tuple[str, str]], State, State, list[tuple[int, int]]]:
    """Geoms (color, shape), start, goal and one shortest solution; ConfigError if infeasible."""
    combos = [(c, s) for c in colors for s in shapes]
    if num_geoms > min(len(combos), board.cells - 1):
        raise ConfigError(f"cannot place {num_geoms} distinct geoms on a {board.width}x{board.height} board")
    for _ in range(MAX_ATTEMPTS):
        geoms = rng.sample(combos, num_geoms)
        goal = tuple(rng.sample(range(board.cells), num_geoms))
        walk = backward_walk(board, goal, length, rng)
        if walk is not None:
            start, solution = walk
            return geoms, start, goal, solution
    raise ConfigError(
        f"could not generate a puzzle with {num_geoms} geoms and optimal length {length} on a "
        f"{board.width}x{board.height} board in {MAX_ATTEMPTS} attempts; choose other num_geoms/optimal_length"
    )


def climb_interference(
    board: Board, goal: State, length: int, interference: int, rng: random.Random
) -> tuple[State, Solver] | None:
    """A state with Manhattan sum `length - interference` and distance `length`, or None."""
    manhattan = length - interference
    walk = backward_walk(board, goal, manhattan, rng)
    if walk is None:
        return None
    state = walk[0]
    md = [tuple(board.manhattan(c, g) for c in range(board.cells)) for g in goal]
    solver = Solver(board, goal)
    d = manhattan  # the walk's start is interference-free
    for _ in range(PAIR_BUDGET):
        away = [m for m in state_changing_moves(board, state) if md[m[0]][m[2]] > md[m[0]][state[m[0]]]]
        if not away:
            return None
        i, _, dest = rng.choice(away)
        middle = moved(state, i, dest)
        d_middle = solver.distance_near(middle, d)
        back = [
            m
            for m in state_changing_moves(board, middle)
            if md[m[0]][m[2]] < md[m[0]][middle[m[0]]] and not (m[0] == i and m[2] == state[i])
        ]
        if not back:
            continue
        j, _, dest2 = rng.choice(back)
        after = moved(middle, j, dest2)
        d_after = solver.distance_near(after, d_middle)
        if d_after >= d:  # climb or wander on the plateau; a pair that lowers d is undone
            state, d = after, d_after
            if d == length:
                return state, solver
    return None


def generate_interfering(
    board: Board,
    colors: list[str],
    shapes: list[str],
    num_geoms: int,
    length: int,
    interference: int,
    rng: random.Random,
) -> tuple[list[tuple[str, str]], State, State, list[tuple[int, int]]]:
    """Like `generate`, with optimal length `length` = Manhattan sum + `interference` exactly."""
    combos = [(c, s) for c in colors for s in shapes]
    if num_geoms > min(len(combos), board.cells - 1):
        raise ConfigError(f"cannot place {num_geoms} distinct geoms on a {board.width}x{board.height} board")
    if interference % 2 or length - interference < 2:
        raise ConfigError(
            f"interference {interference} with optimal length {length} does not exist (it must be even "
            "and leave a Manhattan sum of at least 2)"
        )
    for _ in range(MAX_INTERFERENCE_ATTEMPTS):
        geoms = rng.sample(combos, num_geoms)
        goal = tuple(rng.sample(range(board.cells), num_geoms))
        found = climb_interference(board, goal, length, interference, rng)
        if found is not None:
            start, solver = found
            return geoms, start, goal, solver.plan(start)
    raise ConfigError(
        f"could not generate a puzzle with {num_geoms} geoms, optimal length {length} and interference "
        f"{interference} on a {board.width}x{board.height} board in {MAX_INTERFERENCE_ATTEMPTS} attempts; "
        "such puzzles may not exist (few geoms rarely obstruct each other): choose more geoms, a longer "
        "optimal_length or a smaller interference"
    )


def make_instance(
    board: Board,
    colors: list[str],
    shapes: list[str],
    num_geoms: int,
    length: int,
    seed: int,
    rep: int,
    interference: int = 0,
) -> SGPInstance:
    """The instance of one (geoms, length, rep) cell for `seed`; independent of how many are asked.

    Interference 0 keeps the paper's dataset exactly as it always was (seeds, ids, content).
    """
    if interference:
        rng = random.Random(
            derive_seed("ivispar/sgp", seed, num_geoms, length, rep, "interference", interference)
        )
        geoms, start, goal, solution = generate_interfering(
            board, colors, shapes, num_geoms, length, interference, rng
        )
    else:
        rng = random.Random(derive_seed("ivispar/sgp", seed, num_geoms, length, rep))
        geoms, start, goal, solution = generate(board, colors, shapes, num_geoms, length, rng)
    # list geoms in vocabulary order so the instance reads the same whatever the sampling order
    order = sorted(range(num_geoms), key=lambda i: (colors.index(geoms[i][0]), shapes.index(geoms[i][1])))
    specs = [
        GeomSpec(color=geoms[i][0], shape=geoms[i][1], start=board.coord(start[i]), goal=board.coord(goal[i]))
        for i in order
    ]
    actions = [f"move {geoms[i][0]} {geoms[i][1]} {DIRECTIONS[d]}" for i, d in solution]
    content = {
        "board_size": [board.width, board.height],
        "geoms": [s.model_dump() for s in specs],
    }
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:8]
    tag = f"-i{interference}" if interference else ""
    return SGPInstance(
        id=f"sgp-g{num_geoms:02d}-l{length:02d}{tag}-r{rep}-{digest}",
        optimal_steps=length,
        board_size=[board.width, board.height],
        geoms=specs,
        num_geoms=num_geoms,
        interference=interference,
        seed=seed,
        rep=rep,
        solution=actions,
    )
