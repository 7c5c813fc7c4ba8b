"""Throughput at high concurrency: llm episodes against a model answering after a fixed 100 ms.

For each concurrency C in 1, 8, 32, 128, 256, 512 it runs 2·C text episodes of ivispar/sgp (every reply is
an illegal command, so each episode takes the full 20 steps) and prints steps per second, the ratio
to the ideal C / latency, CPU per step and memory per concurrent episode. Two paths, as in
bench_harness.py: over HTTP (the lean transport, the default for a `--base-url` server; scripted
server in its own process) and in process (the `mock:` provider, `--model mock:FILE?delay=0.1`, which only sleeps, so the figures are
playbench's own). Each measurement runs in a fresh process so its peak RSS can be attributed:
memory per episode = (peak RSS − peak RSS at C = 1) / C.
Goal: ≥ 95% of ideal at 128 concurrent episodes, < 5 MB per concurrent text episode. Then the same
episodes in 1 and in 2 worker processes (`--executor processes`), both paths: goal ≥ 1.8× from one to two,
end to end and steady (episodes finished from the first eighth to the last, so planning, worker
start-up and the summary are left out), beside what this machine gives two busy processes at all, and the
driver's own CPU per episode (planning, receiving, appending lines, the summary: what workers cannot share).
Run directories stay until the benchmark ends (a few GB at the defaults).

    .venv/bin/python benchmarks/bench_throughput.py [--latency 0.1] [--levels 1,8,32,128,256]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPLY = "Let me think.\naction: move purple cube up"


# Every measurement's run directory is kept until the benchmark ends. Why: on an ext4 without a journal
# (this machine's) a new file costs several times more for ~10 s after many files were deleted (its
# inode allocator checks each recently freed inode), so deleting one measurement's 10,000+ files just
# before the next would slow the next one's writes by a leftover of this benchmark, not of playbench.


def _one(
    mode: str, concurrency: int, latency: float, base_url: str, jitter: float, tmp: Path, workers: int
) -> dict:
    from playbench.agents import AgentSpec
    from playbench.runner.model_pool import ModelSettings
    from playbench.runner.run import RunConfig, execute

    if mode == "memory":
        # jittered latencies are drawn from a seeded generator: the same on every run, mean `latency`
        replies = tmp / "replies.jsonl"
        # token counts given, as a server reports them, so the mock estimates nothing
        replies.write_text(json.dumps({"reply": REPLY, "input_tokens": 500, "output_tokens": 12}) + "\n")
        model = f"mock:{replies}?delay={latency}&jitter={jitter}&seed=0"
    else:
        model = "openai:scripted"
    # warm up: a two-episode run of two steps in this process first, so imports, the SDK's first
    # connection and other first-use costs (one-offs in a real run of hundreds of episodes) fall outside
    # the timing; the timed run below starts from the state a long run is in after its first episodes
    asyncio.run(
        execute(
            RunConfig(
                ["ivispar/sgp"],
                {"*": AgentSpec("llm", model)},
                str(tmp / "warm-up"),
                episodes=2,
                concurrency=2,
                models=ModelSettings(base_url=base_url, concurrency=2, timeout=60),
                task_options={"dataset": "generated", "max_steps": 2},
            )
        )
    )
    cfg = RunConfig(
        ["ivispar/sgp"],
        {"*": AgentSpec("llm", model)},
        str(tmp / "run"),
        # with worker processes, more episodes per slot so each worker's start-up (a fresh interpreter
        # importing playbench) is spread as it is over a real run's hundreds of episodes
        episodes=(8 if workers else 2) * concurrency,
        concurrency=concurrency,
        models=ModelSettings(base_url=base_url, concurrency=concurrency, timeout=60),
        # generated boards: the paper's set holds 300, and C = 256 asks for 512 episodes
        task_options={"dataset": "generated"},
        # workers > 0: --executor processes with that many worker processes (their CPU counted too)
        executor="processes" if workers else "local",
        executor_options={"workers": workers} if workers else {},
    )
    finished: list[float] = []  # when each episode reached the driver
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(execute(cfg, on_progress=lambda *_: finished.append(time.perf_counter())))
    wall, driver_cpu = time.perf_counter() - t0, time.process_time() - c0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = driver_cpu + (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    recs = [json.loads(x) for x in (tmp / "run" / "episodes.jsonl").read_text().splitlines()]
    steps = sum(r["steps"] for r in recs)
    # the steady rate: episodes (20 steps each) finished from the first eighth to the last, so the start
    # (planning, worker start-up, the first round) and the end (the last round, the summary) are left out
    lo, hi = len(finished) // 8, len(finished) - len(finished) // 8
    steady = (hi - lo) * steps / len(recs) / (finished[hi - 1] - finished[lo - 1]) if lo else float("nan")
    return {
        "steps": steps,
        "steady_rate": steady,
        "errors": sum(1 for r in recs if r["error"]),
        "wall": wall,
        "cpu": cpu,
        # the driver's own CPU per episode (planning and the summary included): with worker processes,
        # the one part that does not grow with them, so 1 / this is the episodes per second no number
        # of workers can pass
        "driver_ms_per_episode": 1000 * driver_cpu / len(recs),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _spin(n: int) -> float:
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t


def cpu_scaling(n: int = 20_000_000) -> tuple[float, float]:
    """Seconds for one process to count to `n`, and for two processes to do it each at once (the
    processes started before the clock): what two cores of this machine give two busy processes."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(2) as pool:
        alone = pool.apply(_spin, (n,))
        pool.map(_spin, [1000, 1000])  # both started
        t = time.perf_counter()
        pool.map(_spin, [n, n], chunksize=1)
        together = time.perf_counter() - t
    return alone, together


def measure(
    root: Path,
    mode: str,
    concurrency: int,
    latency: float,
    base_url: str,
    jitter: float = 0.0,
    workers: int = 0,
) -> dict:
    """One measurement in a fresh process, its run directory a new folder in `root`."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--one",
            mode,
            str(concurrency),
            str(latency),
            base_url,
            str(jitter),
            str(workers),
            tempfile.mkdtemp(dir=root),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--levels", default="1,8,32,128,256,512")
    ap.add_argument(
        "--scaling-concurrency",
        type=int,
        default=1024,
        # one process must be CPU-bound for a second one to help: at 100 ms and ~0.3-0.5 ms of CPU a
        # step that takes more than ~300 episodes in flight
        help="concurrency of the 1 -> 2 worker processes comparison",
    )
    ap.add_argument(
        "--jitter", type=float, default=0.2, help="± fraction of latency for the extra in-process run"
    )
    ap.add_argument("--one", nargs=7, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        mode, conc, latency, base_url, jitter, workers, tmp = args.one
        print(
            json.dumps(
                _one(mode, int(conc), float(latency), base_url, float(jitter), Path(tmp), int(workers))
            )
        )
        return

    from playbench.testing.scripted_server import server_process

    levels = [int(x) for x in args.levels.split(",")]
    with (
        tempfile.TemporaryDirectory(prefix="bench-throughput-") as root_name,
        server_process([REPLY], args.latency) as base_url,
    ):
        root = Path(root_name)
        runs = (
            ("memory", 0.0, "in process (model sleeps; playbench only)"),
            (
                "memory",
                args.jitter,
                f"in process, latency jittered ±{100 * args.jitter:.0f}% (episodes fall out of step)",
            ),
            ("http", 0.0, "over HTTP (lean transport, scripted server in its own process)"),
        )
        for mode, jitter, title in runs:
            print(f"\n{title}, latency {1000 * args.latency:.0f} ms")
            print(
                f"{'conc':>5} {'steps/s':>9} {'ideal':>7} {'ratio':>7} {'CPU/step':>9} {'MB/episode':>11}  errors"
            )
            base_rss = None
            for conc in levels:
                m = measure(root, mode, conc, args.latency, base_url, jitter)
                rate, ideal = m["steps"] / m["wall"], conc / args.latency
                if base_rss is None:
                    base_rss = m["rss_mb"]
                per_episode = (m["rss_mb"] - base_rss) / conc if conc > levels[0] else float("nan")
                flag = ""
                if conc == 128:
                    flag = "  <- goal >= 95%" + (" ok" if rate / ideal >= 0.95 else " MISSED")
                print(
                    f"{conc:>5} {rate:>9.0f} {ideal:>7.0f} {100 * rate / ideal:>6.1f}% "
                    f"{1000 * m['cpu'] / m['steps']:>7.2f}ms {per_episode:>10.2f}  {m['errors']}{flag}"
                )
        # worker processes: the same episodes in 1 and in 2 worker processes (--executor processes), at a
        # concurrency where one process is CPU-bound; CPU per step counts the workers' CPU
        conc = args.scaling_concurrency
        print(
            f"\nworker processes (--executor processes), concurrency {conc}, latency {1000 * args.latency:.0f} ms"
        )
        print(
            f"{'path':>10} {'workers':>8} {'steps/s':>9} {'ratio':>7} {'steady/s':>9} {'CPU/step':>9} "
            f"{'driver/episode':>15}  errors"
        )
        for mode in ("memory", "http"):
            rates, steady = {}, {}
            for workers in (1, 2):
                m = measure(root, mode, conc, args.latency, base_url, 0.0, workers)
                rates[workers], steady[workers] = m["steps"] / m["wall"], m["steady_rate"]
                print(
                    f"{mode:>10} {workers:>8} {rates[workers]:>9.0f} {100 * rates[workers] * args.latency / conc:>6.1f}% "
                    f"{steady[workers]:>9.0f} {1000 * m['cpu'] / m['steps']:>7.2f}ms "
                    f"{m['driver_ms_per_episode']:>13.3f}ms  {m['errors']}"
                )
            gain = rates[2] / rates[1]
            print(
                f"{mode:>10}  2 workers / 1 worker: {gain:.2f}x end to end, {steady[2] / steady[1]:.2f}x steady "
                f"<- goal >= 1.8x" + (" ok" if gain >= 1.8 else " MISSED")
            )
        alone, together = cpu_scaling()
        print(
            f"this machine: two processes of pure Python arithmetic (no driver, no I/O) run {2 * alone / together:.2f}x "
            "as fast as one: the ceiling for any two workers here"
        )
    print("\nmemory goal: < 5 MB per concurrent text episode")


if __name__ == "__main__":
    main()
