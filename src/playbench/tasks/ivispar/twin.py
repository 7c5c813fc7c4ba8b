"""Fresh twins of the paper's 300 boards (`dataset=twin`): one new board per paper board, as hard.

The paper's boards are public and may be in a model's training data; a twin set asks the same
questions with new content. Each twin is drawn by the suite's own generator (`generator.py`: random
goal tiles, then a backward walk that takes one geom one tile further from its goal per move) and
matched to its paper board on every difficulty statistic (`difficulty`):

- `num_geoms`, `optimal_length`, `board`: exact by construction (the walk's Manhattan sum is its
  length and a lower bound, so the optimum is that length, interference 0 as in the paper's set);
- `colors`, `shapes` (how many distinct colours and shapes the geoms use): exact, the geoms are
  redrawn until both counts equal the paper board's;
- `moved_geoms` (geoms whose start differs from their goal): exact, walks are redrawn until the
  count equals the paper board's;
- `blocked_goals` (geoms to move whose goal tile another geom holds at the start: an order the
  solution must respect): not forced, it follows from the draw; its distribution is tested.

A draw equal to any paper board (same geoms on the same start and goal tiles) is rejected, so every
twin is new. A twin depends only on the run's seed and its paper board's id (`derive_seed`), never
on how many are asked or on filters, so `num_geoms`/`optimal_length` select the twins of the boards
they select in the paper set.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.core.twins import twin_id
from playbench.tasks.ivispar.board import DIRECTIONS, Board, get_board
from playbench.tasks.ivispar.generator import backward_walk
from playbench.tasks.ivispar.paper_data import paper_boards
from playbench.tasks.ivispar.schema import GeomSpec, SGPInstance

# The paper's vocabulary: the twins use it, as the paper's boards do.
PAPER_COLORS: tuple[str, ...] = ("green", "red", "blue", "yellow")
PAPER_SHAPES: tuple[str, ...] = ("cube", "sphere", "pyramid", "cylinder")
# Draws tried for one twin. The rarest paper board needs a few hundred (e.g. every one of 11 geoms
# moved in 11 moves); the budget leaves a wide margin and still fails fast on an impossible board.
MAX_DRAWS = 50_000


def content_key(instance: SGPInstance) -> tuple[tuple[str, str, str, str], ...]:
    """What a board is, whatever its id, geom order or stored solution: its geoms and their tiles."""
    return tuple(sorted((g.color, g.shape, g.start, g.goal) for g in instance.geoms))


def difficulty(instance: SGPInstance, optimal_length: int | None = None) -> dict[str, Any]:
    """The difficulty statistics of a board (see the module docstring). `optimal_length` overrides
    the instance's `optimal_steps` (board inference keeps the puzzle's length elsewhere)."""
    length = instance.optimal_steps if optimal_length is None else optimal_length
    if length is None:  # a loaded board without its length: the solver's
        from playbench.tasks.ivispar.solver import Solver

        length = Solver(instance.board(), instance.goal_state()).distance(instance.start_state())
    starts = {g.start for g in instance.geoms}
    return {
        "num_geoms": len(instance.geoms),
        "optimal_length": int(length),
        "board": f"{instance.board_size[0]}x{instance.board_size[1]}",
        "colors": len({g.color for g in instance.geoms}),
        "shapes": len({g.shape for g in instance.geoms}),
        "moved_geoms": sum(g.start != g.goal for g in instance.geoms),
        "blocked_goals": sum(1 for g in instance.geoms if g.start != g.goal and g.goal in starts),
    }


@lru_cache(maxsize=1)
def _paper_keys() -> frozenset[tuple[tuple[str, str, str, str], ...]]:
    return frozenset(content_key(b) for b in paper_boards())


def _draw_geoms(rng: random.Random, count: int, colors: int, shapes: int) -> list[tuple[str, str]]:
    """`count` distinct geoms of the paper's vocabulary using exactly `colors` colours and `shapes`
    shapes (uniform among such sets: rejection from uniform draws)."""
    combos = [(c, s) for c in PAPER_COLORS for s in PAPER_SHAPES]
    for _ in range(MAX_DRAWS):
        geoms = rng.sample(combos, count)
        if len({c for c, _ in geoms}) == colors and len({s for _, s in geoms}) == shapes:
            return geoms
    raise ConfigError(f"no set of {count} geoms with {colors} colours and {shapes} shapes was drawn")


def make_twin(paper: SGPInstance, seed: int) -> SGPInstance:
    """The twin of one paper board for `seed` (see the module docstring)."""
    target = difficulty(paper)
    board: Board = get_board(*paper.board_size)
    count, length = target["num_geoms"], target["optimal_length"]
    rng = random.Random(derive_seed("ivispar/sgp/twin", seed, paper.id))
    for _ in range(MAX_DRAWS):
        geoms = _draw_geoms(rng, count, target["colors"], target["shapes"])
        goal = tuple(rng.sample(range(board.cells), count))
        walk = backward_walk(board, goal, length, rng)
        if walk is None:
            continue
        start, solution = walk
        if sum(s != g for s, g in zip(start, goal, strict=True)) != target["moved_geoms"]:
            continue
        twin = _instance(board, geoms, start, goal, solution, paper, seed)
        if content_key(twin) not in _paper_keys():
            return twin
    raise ConfigError(
        f"ivispar: no twin of paper board {paper.id} was found in {MAX_DRAWS} draws with seed {seed}"
    )


def _instance(
    board: Board,
    geoms: list[tuple[str, str]],
    start: tuple[int, ...],
    goal: tuple[int, ...],
    solution: list[tuple[int, int]],
    paper: SGPInstance,
    seed: int,
) -> SGPInstance:
    # geoms in vocabulary order, as the generated set lists them, whatever the sampling order
    order = sorted(
        range(len(geoms)), key=lambda i: (PAPER_COLORS.index(geoms[i][0]), PAPER_SHAPES.index(geoms[i][1]))
    )
    specs = [
        GeomSpec(color=geoms[i][0], shape=geoms[i][1], start=board.coord(start[i]), goal=board.coord(goal[i]))
        for i in order
    ]
    return SGPInstance(
        id=twin_id(paper.id, seed),
        optimal_steps=len(solution),
        board_size=[board.width, board.height],
        geoms=specs,
        num_geoms=len(geoms),
        interference=0,
        seed=seed,
        rep=paper.rep,
        solution=[f"move {geoms[i][0]} {geoms[i][1]} {DIRECTIONS[d]}" for i, d in solution],
    )


def twin_instances(
    n: int | None, seed: int, num_geoms: int | None, optimal_length: int | None
) -> list[SGPInstance]:
    """The twins of the first `n` paper boards (all if None) with the filters, in the paper's order."""
    from playbench.tasks.ivispar.paper_data import paper_instances

    return [make_twin(p, seed) for p in paper_instances(n, num_geoms, optimal_length)]
