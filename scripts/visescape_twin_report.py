"""The VisEscape twin's figures for the suite README (issue 30): statistics, p-values, oracle and random rates.

    python scripts/visescape_twin_report.py [--seeds 0 1] [--clone PATH] [--trials 3]

For each seed: the twin's per-statistic two-sample tests against the authors' rooms' shipped figures
(`core/twins.compare_distributions`) and its generation time; the oracle's and the random baseline's success
rates with 95% intervals on the twin and, with a clone of pull-ups/VisEscape-demo, on the authors' rooms; and
the same tests for playbench's own twenty hand-made rooms (`visescape/rooms`) as a second reference.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from playbench.core.registry import make_task
from playbench.core.twins import compare_distributions
from playbench.tasks.visescape.generated import paper_figures
from playbench.tasks.visescape.twin_check import play_oracle, play_random, rate


def show_rates(label: str, task, instances, trials: int) -> None:  # type: ignore[no-untyped-def]
    oracle = [play_oracle(task, i)[0] for i in instances]
    rnd = [play_random(task, i, t) for i in instances for t in range(trials)]
    (o, oi), (r, ri) = rate(oracle), rate(rnd)
    print(
        f"  {label}: oracle {o:.2f} [{oi[0]:.2f}, {oi[1]:.2f}] ({len(oracle)}); "
        f"random {r:.2f} [{ri[0]:.2f}, {ri[1]:.2f}] ({len(rnd)} episodes)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--clone", default="/work/originals/VisEscape-demo")
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args(argv)
    paper = [{k: v for k, v in r.items() if k != "id"} for r in paper_figures()]
    for seed in args.seeds:
        task = make_task("visescape/generated", dataset="twin")
        start = time.time()
        twins = task.instances(None, seed)
        made = time.time() - start
        records = [task.difficulty(i) for i in twins]
        exact = sum(
            all(r[k] == p[k] for k in r if k != "longest_stall") for r, p in zip(records, paper, strict=True)
        )
        print(
            f"seed {seed}: twin made in {made:.1f} s; {exact} of {len(twins)} twins equal their paper room on "
            "every matched statistic"
        )
        for test in compare_distributions(paper, records):
            print("  " + test.line())
        show_rates("twin", task, twins, args.trials)
    ours = make_task("visescape/rooms")
    own = ours.instances(None, 0)
    print("playbench's own twenty rooms (visescape/rooms) against the authors':")
    for test in compare_distributions(paper, [ours.difficulty(i) for i in own]):
        print("  " + test.line())
    show_rates("our rooms", ours, own, args.trials)
    if Path(args.clone).is_dir():
        original = make_task("visescape/original", source=args.clone)
        show_rates("authors' rooms", original, original.instances(None, 0), args.trials)
    else:
        print(f"no clone at {args.clone}: the authors' rooms' rates need one (--clone PATH)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
