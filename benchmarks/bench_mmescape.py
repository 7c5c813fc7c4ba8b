"""MM-Escape rendering speed: a first-person frame of a furnished room at 512x512.

Target (issue 7): median <= 20 ms per frame on a CPU (Mesa llvmpipe). Prints the GL renderer in
use, the median and 90th percentile of the render itself (scene drawn with the object-id image,
red dot included) and of the whole observation frame (render + PNG encoding), over views from
random poses in several generated rooms.

    .venv/bin/python benchmarks/bench_mmescape.py [--frames 60] [--size 512]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from playbench.render import gl3d
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.task import EscapeTask
from playbench.tasks.mmescape.view import ViewRenderer

TARGET_MS = 20.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--size", type=int, default=512)
    args = parser.parse_args()
    print("GL:", gl3d.gl_info())
    task = EscapeTask(level="level-3-note-key")
    rooms = task.instances(4, 0)
    rng = random.Random(0)
    render_ms: list[float] = []
    frame_ms: list[float] = []
    parts = 0
    for inst in rooms:
        world = geo.build_world(inst)
        renderer = ViewRenderer(world)
        visual = geo.VisualState()
        parts = max(parts, len(world.parts(visual)[0]))
        renderer.render(visual, inst.start.x, inst.start.z, 0.0, 0.0, args.size)  # warm-up: scene and shaders
        room = inst.rooms[0]
        for _ in range(args.frames // len(rooms)):
            x = rng.uniform(room.x0 + 0.5, room.x0 + room.width - 0.5)
            z = rng.uniform(room.z0 + 0.5, room.z0 + room.depth - 0.5)
            yaw, pitch = rng.uniform(0, 360), rng.uniform(-10, 40)
            t0 = time.perf_counter()
            rgb, _ = renderer.render(visual, x, z, yaw, pitch, args.size)
            t1 = time.perf_counter()
            gl3d.encode_png(rgb)
            t2 = time.perf_counter()
            render_ms.append((t1 - t0) * 1000)
            frame_ms.append((t2 - t0) * 1000)

    def stats(v: list[float]) -> str:
        q = statistics.quantiles(v, n=10)
        return f"median {statistics.median(v):6.1f} ms   p90 {q[-1]:6.1f} ms"

    print(f"{len(render_ms)} views of furnished rooms ({parts} primitives) at {args.size}x{args.size}:")
    print(
        f"  render (colour + object ids, red dot): {stats(render_ms)}   target <= {TARGET_MS:g} ms:",
        "met" if statistics.median(render_ms) <= TARGET_MS else "NOT met",
    )
    print(f"  observation frame (render + PNG):      {stats(frame_ms)}")


if __name__ == "__main__":
    main()
