"""Play COMMA's paper set and its twin with the oracle and random agents and compare (issue 30).

    PLAYBENCH_ORIGINALS=DIR .venv/bin/python scripts/comma_twin_baselines.py [SEED ...]

Needs the authors' clone in the originals folder (the paper set). For each seed (default 0 and 1) and
each of the eight puzzles of the authors' set, plays all 100 paper puzzles and their 100 twins with
the oracle pair and the random solver (runner, in process) and prints success rate (SR, Wilson 95%
interval), partial score (PSR, t interval) and whether the two intervals overlap (and, stricter, whether each
set's estimate lies inside the other's interval). Also prints the difficulty tests (`core.twins.compare_distributions`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from playbench.agents import AgentSpec
from playbench.core.metrics import mean, proportion
from playbench.core.registry import make_task
from playbench.core.twins import compare_distributions
from playbench.runner.episode import run_episode
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import RunConfig, plan_run
from playbench.tasks.comma.paper_set import PAPER_MODULES
from playbench.tasks.comma.twin import paper_records

MODULES = [
    m for m in ("wire", "who", "led", "memory", "keypad", "password", "color", "maze") if m in PAPER_MODULES
]


def play(
    task_id: str, agent: str, dataset: str, seed: int, episodes: int | None = None
) -> list[dict[str, Any]]:
    config = RunConfig(
        tasks=[task_id],
        agents={"*": AgentSpec(agent)},
        out="unused",
        seed=seed,
        episodes=episodes,
        task_options={"dataset": dataset},
        save_images=False,
        save_calls=False,
    )

    async def go() -> list[dict[str, Any]]:
        return [
            (await run_episode(job, ModelPool(), save_images=False)).record for job in plan_run(config).jobs
        ]

    return asyncio.run(go())


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The two 95% intervals overlap (a point interval, e.g. PSR 1.0 of every episode, included)."""
    (alo, ahi), (blo, bhi) = a["ci95"] or (a["value"],) * 2, b["ci95"] or (b["value"],) * 2
    return alo <= bhi and blo <= ahi


def inside(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Stricter: each set's estimate lies inside the other's interval."""
    (alo, ahi), (blo, bhi) = a["ci95"] or (a["value"],) * 2, b["ci95"] or (b["value"],) * 2
    return blo <= a["value"] <= bhi and alo <= b["value"] <= ahi


def fmt(stat: dict[str, Any]) -> str:
    lo, hi = stat["ci95"]
    return f"{100 * stat['value']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def main(argv: list[str]) -> int:
    seeds = [int(s) for s in argv] or [0, 1]
    started = time.perf_counter()
    for seed in seeds:
        for name in MODULES:
            task = make_task(f"comma/{name}", dataset="twin")
            twin = [task.difficulty(i) for i in task.instances(None, seed)]
            paper = [
                {k: v for k, v in r.items() if k not in ("id", "module", "content")}
                for r in paper_records(name)
            ]
            worst = min(t.p_value for t in compare_distributions(paper, twin))
            for agent in ("oracle", "random"):
                runs = {ds: play(f"comma/{name}", agent, ds, seed) for ds in ("default", "twin")}
                sr = {ds: proportion([r["success"] for r in recs]) for ds, recs in runs.items()}
                psr = {
                    ds: mean([r["metrics"]["partial_score"] for r in recs], "t") for ds, recs in runs.items()
                }
                agree = overlap(sr["default"], sr["twin"]) and overlap(psr["default"], psr["twin"])
                strict = inside(sr["default"], sr["twin"]) and inside(psr["default"], psr["twin"])
                print(
                    f"seed {seed} {name:8s} {agent:6s} min p {worst:.3g} | SR paper {fmt(sr['default'])} twin {fmt(sr['twin'])}"
                    f" | PSR paper {100 * psr['default']['value']:.1f} twin {100 * psr['twin']['value']:.1f}"
                    f" | {'agree' if agree else 'DIFFER'}{'' if strict else ' (an estimate outside the other interval)'}",
                    flush=True,
                )
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
