"""Our SGP solver against a textbook A* written as the paper's Algorithm 1 (a script, not a test).

    .venv/bin/python benchmarks/bench_ivispar_solver.py [--hard 40] [--seed 0] [--budget-s 20]

The reference is appendix A.7.1 line by line: `openSet` is a plain set scanned for the lowest
fScore, `cameFrom`, `gScore` and `fScore` are dicts, d(current, neighbor) = 1 and the heuristic is
the sum of Manhattan distances. Two sets are solved by both, each instance with a fresh `Solver`
(no cache carried over from another instance, since that would flatter ours):

1. the 300 default instances (4x4, 2-11 geoms, optimal length 2-11, interference 0);
2. a harder set generated here: 5x5 boards, 12-15 geoms, interference >= 2 (optimal length minus
   the Manhattan sum), from seeded random walks away from a random goal. Its optimal lengths are
   kept in a band the textbook A* can still finish; an instance whose A* run exceeds the node or
   time budget is reported as skipped and left out of the comparison.

Every instance both finish must give the same path length, and both paths are replayed to check
they are legal and end at the goal.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from playbench.tasks.ivispar.board import Board, State, get_board, manhattan_sum, moved, occupancy
from playbench.tasks.ivispar.sgp import SlidingGeomTask
from playbench.tasks.ivispar.solver import Solver

HARD_BOARD = (5, 5)
HARD_GEOMS = range(12, 16)
HARD_MIN_INTERFERENCE = 2
HARD_LENGTHS = range(6, 14)  # optimal lengths kept; the upper end is where textbook A* still finishes
NODE_BUDGET = 150_000  # textbook A* expansions allowed per instance
TARGET_HARD_RATIO = 20.0


class BudgetExceeded(Exception):
    pass


# --- the reference: Algorithm 1 -------------------------------------------------------------
def neighbors(board: Board, state: State) -> list[State]:
    out = []
    for i, cell in enumerate(state):
        for n in board.neighbors[cell]:
            if n >= 0 and n not in state:
                out.append(moved(state, i, n))
    return out


def heuristic(board: Board, state: State, goal: State) -> int:
    return sum(board.manhattan(a, b) for a, b in zip(state, goal, strict=True))


def reconstruct_path(came_from: dict[State, State], current: State) -> list[State]:
    path = [current]
    while current in came_from:
        current = came_from[current]
        path.append(current)
    path.reverse()
    return path


def textbook_astar(
    board: Board, start: State, goal: State, node_budget: int, deadline: float
) -> tuple[list[State], int]:
    """Path from start to goal (both included) and the number of nodes expanded."""
    open_set = {start}
    came_from: dict[State, State] = {}
    g_score = {start: 0}
    f_score = {start: heuristic(board, start, goal)}
    expanded = 0
    while open_set:
        current = min(open_set, key=f_score.__getitem__)
        if current == goal:
            return reconstruct_path(came_from, current), expanded
        open_set.remove(current)
        expanded += 1
        # the budget check is ours, not the algorithm's: without it one instance can run for hours
        if expanded > node_budget or time.perf_counter() > deadline:
            raise BudgetExceeded
        for neighbor in neighbors(board, current):
            tentative = g_score[current] + 1
            if neighbor not in g_score or tentative < g_score[neighbor]:
                came_from[neighbor] = current
                g_score[neighbor] = tentative
                f_score[neighbor] = tentative + heuristic(board, neighbor, goal)
                if neighbor not in open_set:
                    open_set.add(neighbor)
    raise ValueError("goal not reachable")


# --- instances --------------------------------------------------------------------------------
@dataclass
class Case:
    name: str
    board: Board
    start: State
    goal: State
    optimal: int | None = None  # known in advance for the default set
    interference: int | None = None


def default_cases() -> list[Case]:
    out = []
    for inst in SlidingGeomTask().instances(None, 0):
        out.append(Case(inst.id, inst.board(), inst.start_state(), inst.goal_state(), inst.optimal_steps, 0))
    return out


def random_walk(board: Board, state: State, length: int, rng: random.Random) -> State:
    last: tuple[int, int] | None = None  # (geom, cell it came from): undoing it would waste a step
    for _ in range(length):
        occ = occupancy(state)
        options = [
            (i, n)
            for i, c in enumerate(state)
            for n in board.neighbors[c]
            if n >= 0 and not (occ >> n) & 1 and (i, n) != last
        ]
        i, n = rng.choice(options)
        last = (i, state[i])
        state = moved(state, i, n)
    return state


def hard_cases(count: int, seed: int) -> tuple[list[Case], int]:
    """`count` instances with interference >= 2 and the number of random walks tried for them."""
    board = get_board(*HARD_BOARD)
    rng = random.Random(seed)
    out: list[Case] = []
    tried = 0
    per_length = max(1, count // len(HARD_LENGTHS))
    by_length: dict[int, int] = {}
    while len(out) < count:
        tried += 1
        if tried > 200 * count:
            raise RuntimeError(f"only {len(out)} hard instances after {tried} walks")
        n = rng.choice(HARD_GEOMS)
        goal = tuple(rng.sample(range(board.cells), n))
        start = random_walk(board, goal, rng.randint(6, 18), rng)
        optimal = Solver(board, goal).distance(start)
        interference = optimal - manhattan_sum(board, start, goal)
        if interference < HARD_MIN_INTERFERENCE or optimal not in HARD_LENGTHS:
            continue
        # spread the set over the length band rather than piling up at the commonest length
        if by_length.get(optimal, 0) >= per_length and len(out) < per_length * len(HARD_LENGTHS):
            continue
        by_length[optimal] = by_length.get(optimal, 0) + 1
        out.append(
            Case(
                f"hard-{len(out):02d}-g{n}-l{optimal}-i{interference}",
                board,
                start,
                goal,
                optimal,
                interference,
            )
        )
    return out, tried


# --- comparison -------------------------------------------------------------------------------
def replay_ok(board: Board, path_states: list[State], start: State, goal: State) -> bool:
    if path_states[0] != start or path_states[-1] != goal:
        return False
    return all(b in neighbors(board, a) for a, b in zip(path_states, path_states[1:], strict=False))


def plan_states(board: Board, start: State, plan: list[tuple[int, int]]) -> list[State]:
    states = [start]
    for i, d in plan:
        s = states[-1]
        states.append(moved(s, i, board.neighbors[s[i]][d]))
    return states


@dataclass
class SetResult:
    name: str
    total: int
    compared: int = 0
    skipped: int = 0
    mismatches: int = 0
    ours_s: float = 0.0  # on the instances both finished
    ours_all_s: float = 0.0  # on every instance of the set
    ref_s: float = 0.0
    ref_nodes: int = 0
    ours_nodes: int = 0


def compare(name: str, cases: list[Case], budget_s: float) -> SetResult:
    res = SetResult(name, len(cases))
    for case in cases:
        t0 = time.perf_counter()
        solver = Solver(case.board, case.goal)
        plan = solver.plan(case.start)
        ours = time.perf_counter() - t0
        res.ours_all_s += ours
        if not replay_ok(case.board, plan_states(case.board, case.start, plan), case.start, case.goal):
            raise AssertionError(f"{case.name}: our plan is not a legal path to the goal")
        if case.optimal is not None and len(plan) != case.optimal:
            raise AssertionError(f"{case.name}: our plan has {len(plan)} moves, expected {case.optimal}")
        t0 = time.perf_counter()
        try:
            path, nodes = textbook_astar(case.board, case.start, case.goal, NODE_BUDGET, t0 + budget_s)
        except BudgetExceeded:
            res.skipped += 1
            continue
        ref = time.perf_counter() - t0
        if not replay_ok(case.board, path, case.start, case.goal):
            raise AssertionError(f"{case.name}: the textbook A* path is not a legal path to the goal")
        res.compared += 1
        res.ours_s += ours
        res.ref_s += ref
        res.ref_nodes += nodes
        res.ours_nodes += solver.nodes
        if len(path) - 1 != len(plan):
            res.mismatches += 1
            print(f"  MISMATCH {case.name}: textbook {len(path) - 1} vs ours {len(plan)}")
    return res


def report(res: SetResult, target: float | None) -> None:
    ratio = res.ref_s / res.ours_s if res.ours_s > 0 else float("inf")
    print(f"\n{res.name}")
    print(f"  instances: {res.total}, compared: {res.compared}, skipped (A* over budget): {res.skipped}")
    print(f"  identical path lengths: {res.compared - res.mismatches}/{res.compared}  (target: all)")
    print(f"  textbook A* total: {res.ref_s:9.3f} s   nodes expanded {res.ref_nodes:,}")
    print(f"  our solver total:  {res.ours_s:9.3f} s   nodes expanded {res.ours_nodes:,}")
    if res.skipped:
        print(f"  our solver on all {res.total} (incl. skipped): {res.ours_all_s:.3f} s")
    verdict = (
        ""
        if target is None
        else (f"  (target >= {target:g}x)  " + ("ok" if ratio >= target else "BELOW TARGET"))
    )
    print(f"  speed ratio (textbook / ours): {ratio:8.1f}x{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hard", type=int, default=40, help="number of hard instances (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget-s", type=float, default=20.0, help="textbook A* time budget per instance")
    args = parser.parse_args()

    print(f"budget per instance for textbook A*: {NODE_BUDGET:,} expansions or {args.budget_s:g} s")
    report(
        compare(
            "default set: 300 instances, 4x4, 2-11 geoms, length 2-11, interference 0",
            default_cases(),
            args.budget_s,
        ),
        None,
    )

    t0 = time.perf_counter()
    cases, tried = hard_cases(args.hard, args.seed)
    gen = time.perf_counter() - t0
    lengths = sorted(c.optimal or 0 for c in cases)
    interf = sorted(c.interference or 0 for c in cases)
    print(
        f"\nhard set generated in {gen:.1f} s from {tried} random walks: {len(cases)} instances, "
        f"lengths {lengths[0]}-{lengths[-1]}, interference {interf[0]}-{interf[-1]}"
    )
    report(
        compare(
            f"hard set: {len(cases)} instances, 5x5, 12-15 geoms, interference >= {HARD_MIN_INTERFERENCE}",
            cases,
            args.budget_s,
        ),
        TARGET_HARD_RATIO,
    )


if __name__ == "__main__":
    main()
