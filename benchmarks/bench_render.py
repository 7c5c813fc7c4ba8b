"""Frame times of the iVISPAR image renderers (a script, not a test).

    .venv/bin/python benchmarks/bench_render.py [--frames N]

Prints the median time of one frame of a 4x4 board with 12 geoms, PNG bytes included: the 3D
renderer at `image_size` 512 (a 512x384 frame, the original's 4:3; target <= 15 ms, set for a
512x512 frame, so it is also measured at 512x512 pixels' worth, 592x444), the 3D renderer at the
original's resolution 1200x900 (the paper protocol's default since the second audit; no target, for
reference), and the 2D renderer at 512 (target <= 10 ms). Every frame shows a new state, so no cache helps. Beside the wall-clock
median it prints the median CPU time of the process (all threads, so Mesa's llvmpipe workers
count): when other programs share the cores, wall time grows but CPU time stays near the real
cost. The renderers take turns frame by frame, and each figure is also given as a ratio to the 2D
frame measured in the same run (a pure-CPU baseline without GL), which compares figures taken
under different loads better than raw times.
The GL renderer in use is printed first; on a CPU it is llvmpipe, which rasterises on
LP_NUM_THREADS threads (default: one per core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from playbench.render import gl3d
from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.render2d import render_board
from playbench.tasks.ivispar.render3d import frame_size, render_geoms
from playbench.tasks.ivispar.schema import SGPConfig

COLORS = ["green", "red", "blue", "yellow"]
SHAPES = ["cube", "sphere", "pyramid", "cylinder"]
Render = Callable[[list[tuple[int, str, str]]], bytes]


def states(n: int, seed: int = 0) -> list[list[tuple[int, str, str]]]:
    """`n` random placements of the 12 colour x shape geoms on the 16 tiles."""
    rng = random.Random(seed)
    geoms = [(c, s) for c in COLORS[:3] for s in SHAPES]
    out = []
    for _ in range(n):
        cells = rng.sample(range(16), len(geoms))
        out.append([(cell, c, s) for cell, (c, s) in zip(cells, geoms, strict=True)])
    return out


def measure(renders: dict[str, Render], frames: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) milliseconds per frame of each renderer, after a few warm-up frames.
    The renderers take turns on every state, so a change of load hits them all alike."""
    for pieces in states(5, seed=1):
        for render in renders.values():
            render(pieces)
    wall: dict[str, list[float]] = {name: [] for name in renders}
    cpu: dict[str, list[float]] = {name: [] for name in renders}
    for pieces in states(frames):
        for name, render in renders.items():
            t, c = time.perf_counter(), time.process_time()
            png = render(pieces)
            wall[name].append((time.perf_counter() - t) * 1000)
            cpu[name].append((time.process_time() - c) * 1000)
            assert png.startswith(b"\x89PNG")
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in renders}


def line(name: str, wall: float, cpu: float, target: float | None, baseline: float) -> None:
    if target is None:
        verdict = "(no target)"
    else:
        verdict = f"target <= {target:g} ms  " + ("ok" if wall <= target else "OVER TARGET")
    print(f"{name:<46} {wall:7.2f} ms  (cpu {cpu:6.2f} ms)  {wall / baseline:5.2f}x 2D  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    board = get_board(4, 4)
    info = gl3d.gl_info()
    print(f"GL: {info['GL_RENDERER']} ({info['GL_VERSION']})")
    renders: dict[str, Render] = {}
    targets: dict[str, float | None] = {}
    for size in (512, 592, 1200):
        config = SGPConfig(modality="3d", image_size=size)
        w, h = frame_size(size)
        name = f"3D frame, {w}x{h}, 12 geoms on 4x4" + (" (original)" if size == 1200 else "")
        renders[name] = lambda p, c=config: render_geoms(board, p, "current", c)
        targets[name] = None if size == 1200 else 15.0
    flat = "2D frame, 512x512, 12 geoms on 4x4"
    renders[flat] = lambda p: render_board(board, p, "current", labels=True, size=512)
    targets[flat] = 10.0
    results = measure(renders, args.frames)
    for name, (wall, cpu) in results.items():
        line(name, wall, cpu, targets[name], results[flat][0])


if __name__ == "__main__":
    main()
