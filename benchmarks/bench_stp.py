"""Timing figures of the sliding tile puzzle solver (a script, not a test).

    .venv/bin/python benchmarks/bench_stp.py

Prints the pattern-database build time, then the time to solve 20 4x4 instances of optimal length
30..40 (lengths 30..40 and 30..38, seed 0) with empty caches, then 20 end points of plain random
walks at distance 30..40, the first set again with Manhattan distance plus linear conflicts on
the instances up to 34 moves, the generation of the 100 default
instances and random play on 12 of them (the per-step distance classification).
"""

from __future__ import annotations

import random
import statistics
import time

from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.stp import SlidingTileTask
from playbench.tasks.ivispar.stp_generator import make_instance
from playbench.tasks.ivispar.stp_solver import TileSolver, neighbors_of, pattern_database


def line(name: str, value: float, unit: str, target: float | None = None) -> None:
    verdict = "" if target is None else ("  ok" if value < target else "  OVER TARGET")
    limit = "" if target is None else f" (target < {target:g} {unit})"
    print(f"{name:<58} {value:9.3f} {unit}{limit}{verdict}")


def main() -> None:
    t0 = time.perf_counter()
    pattern_database(4, 4)
    line("pattern database 4x4 (three 5-tile tables)", time.perf_counter() - t0, "s", 3.0)

    # lengths 30..40 then 30..38, generated (and so solved once) before the clock starts
    insts = [make_instance(4, 4, 30 + k % 11, seed=0, rep=k) for k in range(20)]
    board = get_board(4, 4)

    times = []
    nodes = 0
    for inst in insts:
        solver = TileSolver(board)  # empty caches
        t = time.perf_counter()
        d = solver.distance(inst.start_state())
        times.append(time.perf_counter() - t)
        nodes += solver.nodes
        assert d == inst.optimal_steps
    line("IDA* + pattern databases: 20 instances of length 30-40", sum(times), "s", 5.0)
    print(
        f"{'':<58} median {statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.0f} ms, "
        f"{nodes / max(sum(times), 1e-9) / 1e3:.0f} k nodes/s"
    )

    # end points of plain random walks (not stopped at a target) whose distance is 30..40: these
    # include the heavy tail of states far beyond their heuristic estimate
    rng = random.Random(1)
    shared = TileSolver(board)
    walks: list[tuple[int, ...]] = []
    while len(walks) < 20:
        state = shared.goal
        for _ in range(rng.randint(40, 120)):
            state = rng.choice(list(neighbors_of(board, state)))
        if 30 <= shared.distance(state) <= 40:
            walks.append(state)
    times = []
    for state in walks:
        solver = TileSolver(board)
        t = time.perf_counter()
        solver.distance(state)
        times.append(time.perf_counter() - t)
    line("IDA* + pattern databases: 20 random-walk states at 30-40", sum(times), "s", 20.0)
    print(f"{'':<58} median {statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.0f} ms")

    short = [i for i in insts if i.optimal_steps <= 34]
    t = time.perf_counter()
    for inst in short:
        assert TileSolver(board, "lc").distance(inst.start_state()) == inst.optimal_steps
    line(f"IDA* + Manhattan/linear conflict: the {len(short)} of length <= 34", time.perf_counter() - t, "s")

    t = time.perf_counter()
    defaults = SlidingTileTask().instances(None, seed=1)
    line("generate the 100 default instances (fresh seed)", time.perf_counter() - t, "s", 10.0)

    task = SlidingTileTask()
    rng = random.Random(0)
    steps = 0
    t = time.perf_counter()
    for inst in defaults[:12]:
        task.reset(inst)
        while not task.done:
            task.step(rng.choice(task.legal_actions()))
            steps += 1
    elapsed = time.perf_counter() - t
    line(f"random play on 12 default instances ({steps} steps)", elapsed, "s")
    print(f"{'':<58} {elapsed / steps * 1e3:.2f} ms per step on average")


if __name__ == "__main__":
    main()
