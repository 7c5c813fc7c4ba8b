"""The run loop's two guards against stalls (issue 29): the collector frozen while episodes run
(`runner/steady_gc.py`), and episodes written behind the loop on one thread (`store.WriteBehind`)."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path

import pytest

from playbench.runner.episode import EpisodeOutput
from playbench.runner.steady_gc import YOUNG_THRESHOLD, steady_gc
from playbench.runner.store import RunStore, WriteBehind


def test_steady_gc_freezes_until_the_last_overlapping_user_ends() -> None:
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    first, second = steady_gc(), steady_gc()
    first.__enter__()
    assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
    assert gc.get_freeze_count() > frozen_before
    second.__enter__()
    first.__exit__(None, None, None)  # overlapping, not nested: a sweep's cells end in any order
    assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen_before


def test_steady_gc_leaves_a_disabled_collector_alone() -> None:
    before = gc.get_threshold()
    gc.disable()
    try:
        with steady_gc():
            assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    finally:
        gc.enable()
    assert gc.get_threshold() == before


def test_steady_gc_is_undone_when_the_episodes_raise() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), steady_gc():
        raise RuntimeError("an episode's failure")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def _output(k: int) -> EpisodeOutput:
    record = {
        "task": "toy/walk",
        "instance_id": f"i{k}",
        "seed": 0,
        "trial": 0,
        "trajectory": f"trajectories/toy-walk/i{k}-t0.jsonl",
    }
    return EpisodeOutput(record, steps=[{"step": s, "action": f"move {k}.{s}"} for s in range(3)])


class FailingStore(RunStore):
    """A real store whose disk is full for one episode."""

    def __init__(self, out: Path, fail: str) -> None:
        super().__init__(out)
        self.fail, self.threads = fail, set()

    def write(self, output: EpisodeOutput) -> None:
        self.threads.add(threading.current_thread().name)
        if output.record["instance_id"] == self.fail:
            raise OSError(28, f"No space left on device writing {self.fail}")
        (self.out / output.record["trajectory"]).parent.mkdir(parents=True, exist_ok=True)
        super().write(output)


def test_write_behind_writes_everything_in_finishing_order_on_one_thread(tmp_path: Path) -> None:
    with FailingStore(tmp_path / "run", fail="none") as store:
        writer = WriteBehind(store)
        for k in range(40):
            writer.write(_output(k))
        writer.drain()
        assert len(store.threads) == 1 and store.threads != {threading.current_thread().name}
    lines = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert [json.loads(line)["instance_id"] for line in lines] == [f"i{k}" for k in range(40)]
    trajectory = tmp_path / "run" / "trajectories/toy-walk/i39-t0.jsonl"
    assert [json.loads(line)["action"] for line in trajectory.read_text().splitlines()] == [
        "move 39.0",
        "move 39.1",
        "move 39.2",
    ]


def test_a_failed_write_is_raised_by_drain_naming_it_and_the_others_are_written(tmp_path: Path) -> None:
    with FailingStore(tmp_path / "run", fail="i2") as store:
        writer = WriteBehind(store)
        for k in range(4):
            writer.write(_output(k))
        with pytest.raises(OSError, match="No space left on device writing i2"):
            writer.drain()
    lines = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert [json.loads(line)["instance_id"] for line in lines] == ["i0", "i1", "i3"]


def test_a_failed_write_is_raised_by_the_next_write_once_it_is_known(tmp_path: Path) -> None:
    with FailingStore(tmp_path / "run", fail="i0") as store:
        writer = WriteBehind(store)
        writer.write(_output(0))
        writer._pending[0].exception()  # wait until the thread has tried it
        with pytest.raises(OSError, match="writing i0"):
            writer.write(_output(1))
        writer.drain()


class _Odd:
    def __str__(self) -> str:
        return "odd value"


def test_a_step_info_json_cannot_hold_is_written_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from toy import WalkTask

    from playbench.agents import AgentSpec
    from playbench.core.registry import make_task
    from playbench.runner.episode import EpisodeJob, run_episode
    from playbench.runner.model_pool import ModelPool, ModelSettings

    real_step = WalkTask.step

    def step(self, action_text):  # the task's own info, with a value JSON has no form for
        result = real_step(self, action_text)
        result.info["odd"] = _Odd()
        return result

    monkeypatch.setattr(WalkTask, "step", step)
    (instance,) = make_task("toy/walk").instances(1, 0)
    job = EpisodeJob("toy/walk", {}, instance.model_dump(), 0, 0, {"*": AgentSpec("oracle").to_dict()})
    output = asyncio.run(run_episode(job, ModelPool(ModelSettings())))
    assert output.record["error"] is None and output.steps
    assert all(s["info"]["odd"] == "odd value" for s in output.steps)
    assert all(isinstance(s["info"]["position"], int) for s in output.steps)
