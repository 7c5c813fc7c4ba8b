"""Theory of Space speed figures: world generation with oracle plans, oracle episodes, observations, 3D views.

    .venv/bin/python benchmarks/bench_tos.py [--worlds 100] [--scenes PATH]

With `--scenes` (a folder of the authors' scenes, `room_data/3-room`), also the time to read and
plan them and oracle episodes on them.

Targets (printed beside the figures): the default set of 100 worlds generated and planned in under
1 s; oracle episodes of every task well above 100/s without observing; a text observation in
under 5 ms; a first-person 3D view (384x384) in under 0.25 s on a CPU rasteriser.
"""

from __future__ import annotations

import argparse
import time

from playbench.core.registry import all_specs, make_task
from playbench.tasks.tos.scenes import load_scenes
from playbench.tasks.tos.worldgen import cached_world


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--scenes", default=None, help="a folder of scenes in the authors' format")
    args = parser.parse_args()

    if args.scenes:
        t = time.perf_counter()
        scenes = load_scenes(args.scenes)
        print(f"scenes read: {len(scenes)} in {time.perf_counter() - t:.3f} s")
        task = make_task("tos/pairwise-direction", scenes=args.scenes)
        insts = task.instances(len(scenes) * 3, 0)
        t = time.perf_counter()
        for inst in insts:
            task.reset(inst)
            while not task.done:
                task.step(task.oracle_action("player"))
        took = time.perf_counter() - t
        print(f"oracle episodes on the scenes: {len(insts) / took:.0f} episodes/s")

    t = time.perf_counter()
    for i in range(args.worlds):
        cached_world(3, 4, 12345, i, 20)
    gen = time.perf_counter() - t
    print(
        f"worlds + oracle plans: {args.worlds} in {gen:.3f} s ({gen / args.worlds * 1000:.2f} ms each; target < 1 s)"
    )

    total, episodes = 0.0, 0
    for spec in [s for s in all_specs() if s.id.startswith("tos/")]:
        task = make_task(spec.id)
        insts = task.instances(args.worlds, 0)
        t = time.perf_counter()
        for inst in insts:
            task.reset(inst)
            while not task.done:
                task.step(task.oracle_action("player"))
        total += time.perf_counter() - t
        episodes += len(insts)
    print(f"oracle episodes (12 tasks): {episodes / total:.0f} episodes/s (target > 100/s)")

    # information gain (the AC-3 solver after every reply) and the belief probes of tos/cogmap
    task = make_task("tos/cogmap")
    insts = task.instances(args.worlds, 0)
    t, replies, probes = time.perf_counter(), 0, 0
    for inst in insts:
        task.reset(inst)
        while not task.done:
            probes += task.phase == "probe"
            task.step(task.oracle_action("player"))
            replies += 1
    took = time.perf_counter() - t
    print(
        f"tos/cogmap with probing: {len(insts) / took:.0f} episodes/s, {took / replies * 1000:.2f} ms per reply "
        f"({probes} of {replies} replies are probes)"
    )
    task = make_task("tos/explore")
    t, replies = time.perf_counter(), 0
    for inst in task.instances(args.worlds, 0):
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action("player"))
            replies += 1
    print(
        f"information gain included: {(time.perf_counter() - t) / replies * 1000:.2f} ms per exploration reply"
    )

    task = make_task("tos/pairwise-direction")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    t = time.perf_counter()
    n = 0
    while not task.done:
        task.observe("player")
        task.step(task.oracle_action("player"))
        n += 1
    print(f"text observation + step: {(time.perf_counter() - t) / n * 1000:.2f} ms (target < 5 ms)")

    task = make_task("tos/explore", modality="vision")
    task.reset(inst)
    task.observe("player")  # legend and GL context
    t = time.perf_counter()
    views = 0
    while not task.done:
        task.step(task.oracle_action("player"))
        obs = task.observe("player")
        views += 1
    per_view = (time.perf_counter() - t) / max(1, views)
    print(
        f"vision step with one new 384x384 view: {per_view:.3f} s (target < 0.25 s); images {len(obs.images)}"
    )


if __name__ == "__main__":
    main()
