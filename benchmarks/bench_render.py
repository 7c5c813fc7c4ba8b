"""Frame times of the iVISPAR image renderers (a script, not a test).

    .venv/bin/python benchmarks/bench_render.py [--frames N]

Prints the median time of one 512x512 frame of a 4x4 board with 12 geoms, PNG bytes included, for
the 3D renderer (target <= 15 ms) and the 2D renderer (target <= 10 ms). Every frame shows a new
state, so no cache helps. Beside the wall-clock median it prints the median CPU time of the
process (all threads, so Mesa's llvmpipe workers count): when other programs share the cores,
wall time grows but CPU time stays near the real cost. The GL renderer in use is printed first;
on a CPU it is llvmpipe, which rasterises on LP_NUM_THREADS threads (default: one per core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from playbench.render import gl3d
from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.schema import SGPConfig
from playbench.tasks.ivispar.render2d import render_board
from playbench.tasks.ivispar.render3d import render_geoms

COLORS = ["green", "red", "blue", "yellow"]
SHAPES = ["cube", "sphere", "pyramid", "cylinder"]


def states(n: int, seed: int = 0) -> list[list[tuple[int, str, str]]]:
    """`n` random placements of the 12 colour x shape geoms on the 16 tiles."""
    rng = random.Random(seed)
    geoms = [(c, s) for c in COLORS[:3] for s in SHAPES]
    out = []
    for _ in range(n):
        cells = rng.sample(range(16), len(geoms))
        out.append([(cell, c, s) for cell, (c, s) in zip(cells, geoms, strict=True)])
    return out


def measure(render: Callable[[list[tuple[int, str, str]]], bytes], frames: int) -> tuple[float, float]:
    """Median (wall, CPU) milliseconds per frame, after a few warm-up frames."""
    for pieces in states(5, seed=1):
        render(pieces)
    wall, cpu = [], []
    for pieces in states(frames):
        t, c = time.perf_counter(), time.process_time()
        png = render(pieces)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        assert png.startswith(b"\x89PNG")
    return statistics.median(wall), statistics.median(cpu)


def line(name: str, wall: float, cpu: float, target: float) -> None:
    verdict = "ok" if wall <= target else "OVER TARGET"
    print(f"{name:<40} {wall:7.2f} ms  (cpu {cpu:6.2f} ms)  target <= {target:g} ms  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    board = get_board(4, 4)
    config = SGPConfig(modality="3d", board_size=[4, 4], image_size=512)
    info = gl3d.gl_info()
    print(f"GL: {info['GL_RENDERER']} ({info['GL_VERSION']})")
    wall, cpu = measure(lambda p: render_geoms(board, p, "current", config), args.frames)
    line("3D frame, 512x512, 12 geoms on 4x4", wall, cpu, 15)
    wall, cpu = measure(lambda p: render_board(board, p, "current", labels=True, size=512), args.frames)
    line("2D frame, 512x512, 12 geoms on 4x4", wall, cpu, 10)


if __name__ == "__main__":
    main()
