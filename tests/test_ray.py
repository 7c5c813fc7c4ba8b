"""The Ray executor on a local two-CPU cluster: same outputs as the local executor, the LLM path and
3D rendering from worker processes, tasks registered only in the driver, and a dying worker."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from ray._private import state as ray_state  # noqa: E402
from toy import WalkTask  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.core import registry  # noqa: E402
from playbench.core.errors import PlaybenchError  # noqa: E402
from playbench.runner.model_pool import ModelSettings  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.testing.scripted_server import ScriptedServer  # noqa: E402

pytestmark = pytest.mark.ray

# Whichever test runs first starts the cluster through the executor (address None); two CPUs
# keep it small on any machine.
RAY = {"num_cpus": 2}


class ExitTask(WalkTask):
    """Kills its whole worker process on the second instance, as an out-of-memory kill would."""

    def step(self, action_text):
        if self.instance.id.endswith("-1"):
            os._exit(3)
        return super().step(action_text)


@pytest.fixture(scope="module", autouse=True)
def ray_cluster():
    yield
    ray.shutdown()


def episode_workers() -> list[dict]:
    return [a for a in ray_state.actors().values() if a["ActorClassName"] == "EpisodeWorker"]


def run(config: RunConfig) -> dict:
    return asyncio.run(execute(config))


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def outputs(out: Path) -> tuple[dict, dict]:
    """Episode records by key without the timing, and every trajectory file's bytes."""
    records = {}
    for rec in lines(out / "episodes.jsonl"):
        rec.pop("duration_s")
        records[(rec["task"], rec["instance_id"], rec["trial"])] = rec
    files = {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted((out / "trajectories").rglob("*"))
        if p.is_file()
    }
    return records, files


@pytest.mark.parametrize("agent", ["random", "oracle"])
def test_same_outputs_as_the_local_executor(tmp_path, agent):
    def config(executor: str, out: str, **options) -> RunConfig:
        return RunConfig(
            ["toy/walk", "ivispar/sgp"],
            {"*": AgentSpec(agent)},
            str(tmp_path / out),
            episodes=3,
            trials=2,
            seed=5,
            concurrency=3,
            executor=executor,
            executor_options=options,
        )

    local = run(config("local", "local"))
    remote = run(config("ray", "ray", **RAY))
    assert remote["run_this_time"] == 12
    assert outputs(tmp_path / "ray") == outputs(tmp_path / "local")
    # toy/walk is registered only in this process (tests/conftest.py), so equal outputs also show
    # that the workers got its registry entry and could import tests/toy.py.
    assert remote["tasks"] == local["tasks"]
    if agent == "oracle":
        assert all(r["success"] and r["error"] is None for r in lines(tmp_path / "ray" / "episodes.jsonl"))


def walker(request: dict) -> str:
    import re

    pos, target = map(int, re.search(r"position (\d+), target (\d+)", json.dumps(request)).groups())
    return f"action: {'right' if target > pos else 'left'}"


def test_llm_agent_from_ray_workers(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "llm"
    with ScriptedServer(walker, latency=0.05) as srv:
        run(
            RunConfig(
                ["toy/walk"],
                {"*": AgentSpec("llm", "openai:scripted")},
                str(out),
                episodes=4,
                concurrency=4,
                executor="ray",
                executor_options=RAY,
                models=ModelSettings(base_url=srv.base_url, max_retries=0),
            )
        )
        calls = len(srv.requests)
        overlapping = srv.max_in_flight
    records = lines(out / "episodes.jsonl")
    assert len(records) == 4 and all(r["success"] and r["error"] is None for r in records)
    assert sum(r["usage"]["calls"] for r in records) == calls == sum(r["steps"] for r in records)
    assert overlapping >= 2  # episodes ran side by side across (and within) the workers


def test_3d_episode_renders_in_a_worker_process(tmp_path):
    from playbench.render import gl3d

    try:
        gl3d.gl_info()  # a context in the driver first: a forked worker would now fail to render
    except gl3d.GLUnavailable as exc:
        pytest.skip(f"no headless OpenGL here: {exc}")
    out = tmp_path / "3d"
    run(
        RunConfig(
            ["ivispar/sgp-3d"],
            {"*": AgentSpec("oracle")},
            str(out),
            episodes=1,
            executor="ray",
            executor_options=RAY,
            task_options={"image_size": 128},
        )
    )
    (rec,) = lines(out / "episodes.jsonl")
    assert rec["error"] is None and rec["success"]
    steps = lines(out / rec["trajectory"])
    names = {image["file"] for step in steps for image in step["images"]}
    names |= {
        image["file"] for step in steps for turn in step["turns_before"] or [] for image in turn["images"]
    }
    assert names
    for name in names:
        assert (out / "trajectories" / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert all(w["Pid"] != os.getpid() for w in episode_workers())


def test_cancelling_a_run_keeps_finished_episodes_and_kills_the_workers(tmp_path):
    out = tmp_path / "cancel"
    cfg = RunConfig(
        ["toy/walk"],
        {"*": AgentSpec("oracle")},
        str(out),
        episodes=6,
        concurrency=2,
        executor="ray",
        executor_options=RAY,
        task_options={"step_delay": 0.3},
    )

    async def cancel_after_first_episode() -> None:
        first = asyncio.Event()
        run_task = asyncio.create_task(execute(cfg, on_progress=lambda *_: first.set()))
        await asyncio.wait_for(first.wait(), 60)
        run_task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run_task

    asyncio.run(cancel_after_first_episode())
    assert 1 <= len(lines(out / "episodes.jsonl")) < 6
    workers = episode_workers()
    assert workers and all(w["State"] == "DEAD" for w in workers)


@pytest.fixture
def exit_task():
    registry.register("toy/exit", f"{__name__}:ExitTask", description="kills its worker", default=False)
    yield "toy/exit"
    registry._REGISTRY.pop("toy/exit", None)


def test_a_dead_worker_fails_the_run_after_saving_finished_episodes(tmp_path, exit_task):
    out = tmp_path / "dead"
    cfg = RunConfig(
        [exit_task],
        {"*": AgentSpec("oracle")},
        str(out),
        episodes=4,
        concurrency=1,
        executor="ray",
        executor_options={**RAY, "workers": 1},
    )
    with pytest.raises(
        PlaybenchError, match=r"1 episode\(s\) failed in Ray workers.*2 episode\(s\) not started"
    ):
        run(cfg)
    assert [r["instance_id"] for r in lines(out / "episodes.jsonl")] == ["walk-0-0"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run_this_time"] == 1


def test_missing_ray_is_a_config_error_naming_the_extra(tmp_path, monkeypatch):
    from playbench.core.errors import ConfigError
    from playbench.runner.executors import make_executor

    executor = make_executor("ray", 2, address=None)
    assert executor.name == "ray"
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` sees when it is not installed
    cfg = RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(tmp_path / "x"), episodes=1, executor="ray")
    with pytest.raises(ConfigError, match=r"pip install 'playbench\[ray\]'"):
        run(cfg)
