"""Harness overhead: 32 concurrent llm episodes against a model that answers after 50 ms.

Ideal: every step waits only for the model, so 32 episodes in flight make 32 / 0.05 = 640 steps/s.
Target: at least 90% of that. Two figures, measured in the same run:

1. over HTTP: the real `openai` SDK against the scripted OpenAI-compatible server, which runs in
   its own process as a remote server would (in-process it would compete for this one's GIL);
2. in process: the same episodes with the `mock:` provider (`--model mock:FILE?delay=0.05`), which
   just sleeps 50 ms before each reply, so every CPU cycle spent is playbench's own (task, agent,
   runner, run directory).

The difference between the two CPU costs per step is the SDK and HTTP stack's share; on a small
machine that share, not playbench's, is what bounds the HTTP figure, so the script prints the
ceiling it implies for one process.

    .venv/bin/python benchmarks/bench_harness.py [--episodes 64] [--concurrency 32] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from playbench.agents import AgentSpec
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import server_process

# An unknown colour is always an illegal command, so every episode runs the full 20-step cap.
REPLY = "I will try this.\naction: move purple cube up"


def run_once(
    task: str, model: str, episodes: int, concurrency: int, base_url: str, tmp: str, name: str
) -> tuple[int, float, float]:
    cfg = RunConfig(
        [task],
        {"*": AgentSpec("llm", model)},
        str(Path(tmp) / name),
        episodes=episodes,
        concurrency=concurrency,
        models=ModelSettings(base_url=base_url, concurrency=concurrency),
    )
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(execute(cfg))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    recs = [json.loads(x) for x in (Path(tmp) / name / "episodes.jsonl").read_text().splitlines()]
    errors = [r["error"] for r in recs if r["error"]]
    if errors:
        raise SystemExit(f"{len(errors)} episodes failed, e.g. {errors[0]}")
    return sum(r["steps"] for r in recs), wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="ivispar/sgp")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    ideal = args.concurrency / args.latency

    with server_process([REPLY], args.latency) as base_url:
        with tempfile.TemporaryDirectory() as tmp:
            steps, wall, cpu_http = run_once(
                args.task, "openai:scripted", args.episodes, args.concurrency, base_url, tmp, "http"
            )
            cpu = cpu_http
            rate = steps / wall
            print(
                f"HTTP (openai SDK, server in its own process): {steps} steps in {wall:.2f} s, "
                f"client CPU {1000 * cpu / steps:.2f} ms/step"
            )
            print(
                f"  step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% (target >= 90%)"
            )

            replies = Path(tmp) / "replies.jsonl"
            # token counts given, as a server reports them, so the mock estimates nothing
            replies.write_text(json.dumps({"reply": REPLY, "input_tokens": 500, "output_tokens": 12}) + "\n")
            mock = f"mock:{replies}?delay={args.latency}"
            steps, wall, cpu = run_once(
                args.task, mock, args.episodes, args.concurrency, base_url, tmp, "mem"
            )
            rate = steps / wall
            print(
                f"in process (model sleeps, no SDK): {steps} steps in {wall:.2f} s, "
                f"playbench CPU {1000 * cpu / steps:.3f} ms/step"
            )
            print(
                f"  step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% (target >= 90%)"
            )
        sdk = (cpu_http - cpu) / steps
        print(
            f"SDK + HTTP stack CPU per request: {1000 * sdk:.2f} ms (the difference); with it one process can "
            f"make at most {1 / (sdk + cpu / steps):.0f} steps/s, {100 / (sdk + cpu / steps) / ideal:.0f}% of the ideal"
        )


if __name__ == "__main__":
    main()
