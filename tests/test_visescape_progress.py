"""VisEscape's progress for error maps: along the oracle's escape the distance falls by one per step to 0,
GC rises to 1, and asking never changes the state."""

from __future__ import annotations

import pytest

from playbench.core.registry import make_task


@pytest.mark.parametrize("task_id", ["visescape/room-01", "visescape/room-07", "visescape/generated"])
def test_the_oracle_path_counts_down(task_id: str) -> None:
    task = make_task(task_id)
    for instance in task.instances(2, 0):
        task.reset(instance)
        start = task.progress()
        assert start.distance == instance.optimal_steps and start.fraction == 0.0
        previous = start.distance
        while not task.done:
            digest = task.state_digest()
            now = task.progress()
            assert task.state_digest() == digest  # asking changes nothing
            assert now.distance == previous
            task.step(task.oracle_action("player"))
            previous -= 1
        end = task.progress()
        assert end.distance == 0 and end.fraction == 1.0 and task.outcome().success


def test_a_wasted_move_keeps_the_distance() -> None:
    task = make_task("visescape/room-01")
    task.reset(task.instances(1, 0)[0])
    before = task.progress().distance
    task.step("this is not an action")
    assert task.progress().distance == before
