"""Harness overhead: 32 concurrent llm episodes against a model that answers after 50 ms.

Ideal: every step waits only for the model, so 32 episodes in flight make 32 / 0.05 = 640 steps/s.
Targets: at least 90% of that over HTTP, and at most 0.5 ms of client CPU per model call for the
transport. Three figures, measured in the same run, each after a two-episode warm-up run through the
same path (imports, the task's data and the SDK load once per process, not per step):

1. over HTTP, for each transport (`--transports lean,sdk`): the lean transport
   (`playbench.models.lean_http`, the default) and the real `openai` SDK, against the scripted
   OpenAI-compatible server, which runs in its own process as a remote server would (in-process it
   would compete for this one's GIL);
2. in process: the same episodes with the `mock:` provider (`--model mock:FILE?delay=0.05`), which
   just sleeps 50 ms before each reply, so every CPU cycle spent is playbench's own (task, agent,
   runner, run directory).

The difference between an HTTP run's CPU per step and the in-process one is that transport's cost
per model call (one call a step); on a small machine that share, not playbench's, is what bounds
the HTTP figure, so the script prints the ceiling it implies for one process.

    .venv/bin/python benchmarks/bench_harness.py [--episodes 64] [--concurrency 32] [--latency 0.05]
        [--transports lean,sdk]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from playbench.agents import AgentSpec
from playbench.models.remote import TRANSPORT_ENV, TRANSPORTS
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import server_process

# An unknown colour is always an illegal command, so every episode runs the full 20-step cap.
REPLY = "I will try this.\naction: move purple cube up"
TARGET_RATIO = 90.0  # % of ideal over HTTP
TARGET_CALL_MS = 0.5  # transport CPU per model call


def run_once(
    task: str,
    model: str,
    episodes: int,
    concurrency: int,
    base_url: str | None,
    tmp: str,
    name: str,
    workers: int = 0,
    trials: int = 1,
) -> tuple[int, float, float]:
    """One run; `workers` > 0 runs it with `--executor processes` (their CPU counted in)."""
    cfg = RunConfig(
        [task],
        {"*": AgentSpec("llm", model)},
        str(Path(tmp) / name),
        episodes=episodes,
        trials=trials,
        concurrency=concurrency,
        models=ModelSettings(base_url=base_url, concurrency=concurrency),
        executor="processes" if workers else "local",
        executor_options={"workers": workers} if workers else {},
    )
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(execute(cfg))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if workers:
        cpu += after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    recs = [json.loads(x) for x in (Path(tmp) / name / "episodes.jsonl").read_text().splitlines()]
    errors = [r["error"] for r in recs if r["error"]]
    if errors:
        raise SystemExit(f"{len(errors)} episodes failed, e.g. {errors[0]}")
    return sum(r["steps"] for r in recs), wall, cpu


def run_http(
    transport: str,
    args: argparse.Namespace,
    base_url: str,
    tmp: str,
    workers: int = 0,
    trials: int = 1,
    warm_up: bool = True,
) -> tuple[int, float, float]:
    """One HTTP run with the given transport ($PLAYBENCH_TRANSPORT, which every model made then reads,
    worker processes included), after a two-episode warm-up run in this process (imports, the task's
    data), as the in-process run below gets one: one-off costs are not per-step ones."""
    before = os.environ.get(TRANSPORT_ENV)
    os.environ[TRANSPORT_ENV] = transport
    try:
        name = f"{transport}-w{workers}"
        if warm_up:
            run_once(args.task, "openai:scripted", 2, 2, base_url, tmp, f"warm-{name}")
        return run_once(
            args.task,
            "openai:scripted",
            args.episodes,
            args.concurrency,
            base_url,
            tmp,
            name,
            workers,
            trials,
        )
    finally:
        if before is None:
            os.environ.pop(TRANSPORT_ENV, None)
        else:
            os.environ[TRANSPORT_ENV] = before


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="ivispar/sgp")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--transports", default="lean,sdk", help="comma-separated, measured in this order")
    ap.add_argument(
        "--workers",
        type=int,
        default=2,
        help="also run the lean transport with --executor processes and this many workers (0: skip)",
    )
    args = ap.parse_args()
    transports = [t.strip() for t in args.transports.split(",") if t.strip()]
    bad = [t for t in transports if t not in TRANSPORTS]
    if bad or not transports:
        ap.error(f"bad --transports {args.transports!r} (accepted: {', '.join(TRANSPORTS)})")
    ideal = args.concurrency / args.latency

    http: dict[str, tuple[int, float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for transport in transports:
            # a server of its own per transport: its CPU, read when it has exited, is that run's
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            with server_process([REPLY], args.latency) as base_url:
                http[transport] = steps, wall, cpu = run_http(transport, args, base_url, tmp)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            server = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / steps
            rate = steps / wall
            print(
                f"HTTP, {transport} transport (server in its own process): {steps} steps in {wall:.2f} s, "
                f"client CPU {1000 * cpu / steps:.3f} ms/step, scripted server CPU {1000 * server:.3f} ms/request "
                "(its 40 warm-up requests included)"
            )
            print(
                f"  step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% "
                f"(target >= {TARGET_RATIO:g}%)"
            )

        if args.workers and "lean" in transports:
            # worker processes: the per-round work of the episodes in flight is shared between cores; the
            # run is long enough (4 trials of each episode) that the workers' start-up does not dominate it
            with server_process([REPLY], args.latency) as base_url:
                steps, wall, cpu = run_http("lean", args, base_url, tmp, args.workers, trials=4)
            rate = steps / wall
            print(
                f"HTTP, lean transport, --executor processes --workers {args.workers}: {steps} steps in "
                f"{wall:.2f} s (worker start-up included), client CPU {1000 * cpu / steps:.3f} ms/step"
            )
            print(
                f"  step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% "
                f"(target >= {TARGET_RATIO:g}%)"
            )

        replies = Path(tmp) / "replies.jsonl"
        # token counts given, as a server reports them, so the mock estimates nothing
        replies.write_text(json.dumps({"reply": REPLY, "input_tokens": 500, "output_tokens": 12}) + "\n")
        mock = f"mock:{replies}?delay={args.latency}"
        run_once(args.task, mock, 2, 2, None, tmp, "warm-mem")
        steps, wall, cpu = run_once(args.task, mock, args.episodes, args.concurrency, None, tmp, "mem")
        rate = steps / wall
        own = cpu / steps
        print(
            f"in process (model sleeps, no HTTP): {steps} steps in {wall:.2f} s, "
            f"playbench CPU {1000 * own:.3f} ms/step"
        )
        print(
            f"  step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% "
            f"(the ceiling for any transport)"
        )

    print(f"transport CPU per model call (HTTP run minus in process; target <= {TARGET_CALL_MS} ms):")
    for transport, (steps, wall, cpu) in http.items():
        call = cpu / steps - own
        ratio = 100 * steps / wall / ideal
        verdict = "met" if call <= TARGET_CALL_MS / 1000 and ratio >= TARGET_RATIO else "missed"
        print(
            f"  {transport:4s}: {1000 * call:.3f} ms/call; one process can make at most "
            f"{1 / (call + own):.0f} steps/s ({100 / (call + own) / ideal:.0f}% of ideal); "
            f"measured {ratio:.1f}% of ideal: targets {verdict}"
        )


if __name__ == "__main__":
    main()
