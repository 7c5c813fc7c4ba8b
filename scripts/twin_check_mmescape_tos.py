"""Print the twin figures of MM-Escape and Theory of Space for their READMEs: generation time, each
statistic's two-sample p-value (pooled; MM-Escape also per level), and the oracle's and a random
player's success rates with 95% intervals on the paper (reference) set and on the twin.

    .venv/bin/python scripts/twin_check_mmescape_tos.py --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from playbench.core.metrics import mean, proportion
from playbench.core.registry import make_task
from playbench.core.twins import compare_distributions

MM_LEVELS = ("level1-", "level2-", "level3_note_first-", "level3_key_first-")


def play(
    task: Any, insts: list[Any], trials: int, oracle: bool
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Success rate and (ToS) mean coverage; the random player draws uniformly from the legal actions."""
    wins, units, coverage = [], [], []
    for inst in insts:
        for trial in range(trials):
            rng = random.Random(f"{inst.id}/{trial}")
            task.reset(inst)
            while not task.done:
                role = task.current_role()
                if oracle:
                    action = task.oracle_action(role)
                elif hasattr(task, "legal_actions") and getattr(task, "phase", None) == "play":
                    action = rng.choice(task.legal_actions())  # MM-Escape: no rendering needed
                else:
                    action = rng.choice(task.observe(role).legal_actions)
                task.step(action)
            out = task.outcome()
            wins.append(out.success)
            units.append(inst.id)
            if "coverage" in out.metrics:
                coverage.append(out.metrics["coverage"])
    rate = proportion(wins, units if trials > 1 else None)
    return rate, (mean(coverage, units=units if trials > 1 else None) if coverage else None)


def fmt(stat: dict[str, Any]) -> str:
    lo, hi = stat["ci95"]
    return f"{stat['value']:.3f} [{lo:.3f}, {hi:.3f}]"


def check(
    task_id: str, twin_options: dict[str, Any], seeds: list[int], trials: int, levels: tuple[str, ...]
) -> None:
    paper_task = make_task(task_id)
    papers = paper_task.instances(None, 0)
    p_records = [paper_task.difficulty(p) for p in papers]
    print(f"## {task_id}: {len(papers)} reference instances")
    o, _ = play(paper_task, papers, 1, True)
    r, c = play(paper_task, papers, trials, False)
    print(f"reference: oracle {fmt(o)}; random {fmt(r)}" + (f"; random coverage {fmt(c)}" if c else ""))
    for seed in seeds:
        task = make_task(task_id, **twin_options)
        t0 = time.perf_counter()
        twins = task.instances(None, seed)
        took = time.perf_counter() - t0
        t_records = [task.difficulty(t) for t in twins]
        tests = compare_distributions(p_records, t_records)
        print(f"seed {seed}: generated in {took:.1f} s")
        for s in tests:
            print("  " + s.line())
        for prefix in levels:
            idx = [k for k, p in enumerate(papers) if p.id.startswith(prefix)]
            sub = compare_distributions([p_records[k] for k in idx], [t_records[k] for k in idx])
            print(f"  {prefix}: min p = {min(s.p_value for s in sub):.3g} ({len(idx)} scenes)")
        steps = compare_distributions(
            [{"optimal_steps": p.optimal_steps} for p in papers],
            [{"optimal_steps": t.optimal_steps} for t in twins],
        )[0]
        print("  (not matched) " + steps.line())
        o, _ = play(task, twins, 1, True)
        r, c = play(task, twins, trials, False)
        print(f"  twin: oracle {fmt(o)}; random {fmt(r)}" + (f"; random coverage {fmt(c)}" if c else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--trials", type=int, default=3, help="random player's games per instance")
    args = parser.parse_args()
    check("mmescape/paper", {"dataset": "twin"}, args.seeds, args.trials, MM_LEVELS)
    check("tos/explore", {"dataset": "twin"}, args.seeds, 1, ())


if __name__ == "__main__":
    main()
