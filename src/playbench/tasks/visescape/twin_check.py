"""Playing a VisEscape set quickly for the twin checks: the oracle and the random baseline, without drawing.

The random baseline is the `random` agent's policy (uniform over the task's legal actions, seeded per
instance and trial) applied to the task directly, so no view is rendered: the same moves, a hundred times
faster. Used by `tests/test_visescape_twin.py` and `scripts/visescape_twin_report.py`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from playbench.core.metrics import wilson_interval
from playbench.core.task import Instance, Task, derive_seed


def play_oracle(task: Task, instance: Instance) -> tuple[bool, int]:
    """(escaped, steps) of the task's oracle on one instance."""
    task.reset(instance)
    steps = 0
    while not task.done:
        action = task.oracle_action(task.current_role())
        if action is None:
            break
        task.step(action)
        steps += 1
    return task.outcome().success, steps


def play_random(task: Task, instance: Instance, trial: int = 0) -> bool:
    """Whether the random baseline escapes (the task's own step cap and early stop end it)."""
    rng = random.Random(derive_seed("random-agent", 0, instance.id, trial, "player"))
    task.episode_seed = derive_seed(0, trial)
    task.reset(instance)
    while not task.done:
        task.step(rng.choice(task.legal_actions()))  # type: ignore[attr-defined]
    return task.outcome().success


def rate(flags: Sequence[bool]) -> tuple[float, tuple[float, float]]:
    """A success rate and its 95% Wilson interval."""
    n = len(flags)
    return (sum(flags) / n if n else 0.0), wilson_interval(sum(flags), n)


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]
