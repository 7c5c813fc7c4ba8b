"""`--executor processes`: worker processes give the local executor's results; a dead worker loses only its
episodes in flight; the provider budget is shared by every worker."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest
from toy import WalkTask

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.core import registry
from playbench.core.errors import PlaybenchError
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedServer


class ExitTask(WalkTask):
    """Kills its whole worker process on the second instance, as an out-of-memory kill would."""

    def step(self, action_text):
        if self.instance.id.endswith("-1"):
            os._exit(3)
        return super().step(action_text)


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def _outcomes(out: Path) -> list[tuple]:
    return sorted(
        (
            r["task"],
            r["instance_id"],
            r["trial"],
            r["success"],
            r["steps"],
            json.dumps(r["metrics"], sort_keys=True),
        )
        for r in _records(out)
    )


def test_two_workers_give_the_local_executors_results(tmp_path: Path) -> None:
    common = ["ivispar/sgp", "--agent", "random", "--episodes", "6", "--trials", "2", "--concurrency", "4"]
    assert main(["run", *common, "--out", str(tmp_path / "local")]) == 0
    assert (
        main(["run", *common, "--executor", "processes", "--workers", "2", "--out", str(tmp_path / "proc")])
        == 0
    )
    assert _outcomes(tmp_path / "proc") == _outcomes(tmp_path / "local")
    assert len(_records(tmp_path / "proc")) == 12
    # the workers wrote the episodes' files: the same files, byte for byte, as the local run's store
    local, proc = (
        {f.name: f.read_bytes() for f in (tmp_path / run / "trajectories").iterdir()}
        for run in ("local", "proc")
    )
    assert len(proc) == 2 * 12 and proc == local  # a trajectory and a calls file each
    assert not list((tmp_path / "proc" / "trajectories").glob("*.tmp"))
    steps = [json.loads(x) for x in next(iter(proc.values())).decode().splitlines()]
    assert steps and all("validity" in s for s in steps)


def test_a_worker_that_cannot_write_sends_the_whole_episode_to_the_driver(tmp_path: Path) -> None:
    from playbench.runner.episode import EpisodeOutput
    from playbench.runner.process_executor import _write_files
    from playbench.runner.store import RunStore

    record = {"trajectory": "trajectories/t.jsonl", "calls": None}
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "trajectories").write_text("a file where the folder should be")
    sent = _write_files(str(tmp_path / "broken"), EpisodeOutput(record, step_lines=['{"step": 0}']))
    assert not sent.files_written and sent.step_lines == ['{"step": 0}']  # the driver gets it whole

    (tmp_path / "ok" / "trajectories").mkdir(parents=True)
    written = _write_files(str(tmp_path / "ok"), EpisodeOutput(record, step_lines=['{"step": 0}']))
    assert written.files_written and written.step_lines == [] and written.record == record
    # the driver's store appends the line of an episode whose files a worker wrote, and writes no file
    (tmp_path / "ok" / "trajectories" / "t.jsonl").write_text("the worker's\n")
    with RunStore(tmp_path / "ok") as store:
        store.write(written)
    assert (tmp_path / "ok" / "trajectories" / "t.jsonl").read_text() == "the worker's\n"
    assert json.loads((tmp_path / "ok" / "episodes.jsonl").read_text()) == record


def test_llm_episodes_over_http_share_one_provider_budget(tmp_path: Path) -> None:
    in_flight, peak, lock = 0, 0, threading.Lock()

    def reply(_body: dict) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        threading.Event().wait(0.03)
        with lock:
            in_flight -= 1
        return "action: move purple cube up"

    def config(out: str, executor: str) -> RunConfig:
        return RunConfig(
            ["ivispar/sgp"],
            {"*": AgentSpec("llm", "openai:scripted")},
            out,
            episodes=6,
            concurrency=6,
            executor=executor,
            executor_options={"workers": 2} if executor == "processes" else {},
            task_options={"max_steps": 3},
            models=ModelSettings(base_url=srv.base_url, concurrency=2),
        )

    with ScriptedServer(reply) as srv:
        asyncio.run(execute(config(str(tmp_path / "p"), "processes")))
        assert peak <= 2  # two workers, one budget of two requests in flight
        asyncio.run(execute(config(str(tmp_path / "l"), "local")))
    assert _outcomes(tmp_path / "p") == _outcomes(tmp_path / "l")
    assert all(r["error"] is None and r["usage"]["calls"] == 3 for r in _records(tmp_path / "p"))


@pytest.fixture
def exit_task():
    registry.register("toy/exit-proc", f"{__name__}:ExitTask", description="kills its worker", default=False)
    yield "toy/exit-proc"
    registry._REGISTRY.pop("toy/exit-proc", None)


def test_a_dead_worker_stops_the_run_after_saving_finished_episodes(tmp_path: Path, exit_task: str) -> None:
    out = tmp_path / "dead"
    cfg = RunConfig(
        [exit_task],
        {"*": AgentSpec("oracle")},
        str(out),
        episodes=3,
        concurrency=1,
        executor="processes",
        executor_options={"workers": 1},
    )
    with pytest.raises(PlaybenchError, match=r"exit code 3.*the same command again plays them"):
        asyncio.run(execute(cfg))
    assert [r["instance_id"] for r in _records(out)] == ["walk-0-0"]
    assert json.loads((out / "summary.json").read_text())["run_this_time"] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--executor", "processes", "--workers", "0"], "--workers must be at least 1"),
        (["--workers", "2"], "--workers is for --executor processes"),
        (["--executor", "processes", "--max-cost", "1"], "--max-cost needs the local executor"),
    ],
)
def test_bad_worker_options_are_one_message(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    code = main(
        ["run", "ivispar/sgp", "--agent", "random", "--episodes", "1", "--out", str(tmp_path / "x"), *argv]
    )
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_the_results_pipe_has_room_for_several_episodes() -> None:
    import fcntl
    import multiprocessing

    from playbench.runner.process_executor import _widen

    results = multiprocessing.get_context("spawn").SimpleQueue()
    fd = results._writer.fileno()
    before = fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    _widen(results)
    assert fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) >= max(before, 256 * 1024)
    payload = b"x" * 200_000  # bigger than a default pipe: a put no longer waits for the reader
    results.put(payload)
    assert results.get() == payload
    results.close()
