"""The VisEscape generator's done-when (issue 30): the oracle escapes 1,000 generated rooms in optimal_steps.

    python scripts/visescape_generated_1000.py [N] [--seed S]

Generates N rooms of `visescape/generated` (seed S) and plays the suite's oracle on each through the task,
counting escapes in exactly `optimal_steps`; prints failures and the wall time. Exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import time

from playbench.core.registry import make_task
from playbench.tasks.visescape.twin_check import play_oracle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.time()
    task = make_task("visescape/generated")
    instances = task.instances(args.n, args.seed)
    made = time.time() - start
    failures = []
    for inst in instances:
        escaped, steps = play_oracle(task, inst)
        if not escaped or steps != inst.optimal_steps:
            failures.append(f"{inst.id}: escaped={escaped} steps={steps} optimal={inst.optimal_steps}")
    total = time.time() - start
    print(
        f"{len(instances) - len(failures)} of {len(instances)} rooms escaped in optimal_steps "
        f"(generation {made:.1f} s, total {total:.1f} s)"
    )
    for line in failures:
        print("FAIL", line)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
