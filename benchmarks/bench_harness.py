"""Harness overhead: 32 concurrent llm episodes against a scripted server that answers after 50 ms.

Ideal: every step waits only for the server, so 32 episodes in flight make 32 / 0.05 = 640 steps/s.
Target: at least 90% of that. Prints the measured rate and the ratio.

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
from playbench.runner.models import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedServer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default="ivispar/sgp")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()

    # An always-invalid move keeps every episode at the full 20-step cap, so all steps are alike.
    reply = ["I will try this.\naction: move purple cube up"]
    with ScriptedServer(reply, latency=args.latency, cycle=True) as srv, tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(
            [args.task],
            {"*": AgentSpec("llm", "openai:scripted")},
            str(Path(tmp) / "run"),
            episodes=args.episodes,
            concurrency=args.concurrency,
            models=ModelSettings(base_url=srv.base_url, concurrency=args.concurrency),
        )
        t0 = time.perf_counter()
        asyncio.run(execute(cfg))
        elapsed = time.perf_counter() - t0
        recs = [json.loads(x) for x in (Path(tmp) / "run" / "episodes.jsonl").read_text().splitlines()]
    steps = sum(r["steps"] for r in recs)
    errors = sum(1 for r in recs if r["error"])
    rate = steps / elapsed
    ideal = args.concurrency / args.latency
    print(f"episodes {len(recs)} (errors {errors}), steps {steps}, wall {elapsed:.2f} s")
    print(f"step rate {rate:.0f}/s vs ideal {ideal:.0f}/s: {100 * rate / ideal:.1f}% (target >= 90%)")


if __name__ == "__main__":
    main()
