import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.runner.reader import RunReader
from playbench.runner.run import RunConfig, execute
from playbench.runner.store import RunStore

TESTS = Path(__file__).parent
REQUIRED_FIELDS = {
    "task",
    "instance_id",
    "seed",
    "trial",
    "agent",
    "model",
    "success",
    "steps",
    "optimal_steps",
    "metrics",
    "error",
    "usage",
    "trajectory",
}


def run(config: RunConfig) -> dict:
    return asyncio.run(execute(config))


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_output_contract(out_dir):
    summary = run(
        RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=4, trials=2, seed=3)
    )
    records = lines(out_dir / "episodes.jsonl")
    assert len(records) == 8
    for rec in records:
        assert set(rec) >= REQUIRED_FIELDS
        traj = lines(out_dir / rec["trajectory"])
        assert len(traj) == rec["steps"]
        for step in traj:
            assert {"role", "observation", "raw_output", "action", "validity", "feedback"} <= set(step)
    assert {(r["instance_id"], r["trial"]) for r in records} == {
        (f"walk-3-{i}", t) for i in range(4) for t in range(2)
    }
    entry = summary["tasks"]["toy/walk"]
    assert entry["episodes"] == 8
    assert entry["success"]["ci95"][0] <= entry["success"]["value"] <= entry["success"]["ci95"][1]
    assert json.loads((out_dir / "summary.json").read_text())["tasks"]["toy/walk"]["episodes"] == 8
    config = json.loads((out_dir / "config.json").read_text())
    assert config["run"]["agents"]["*"]["name"] == "random" and "playbench_version" in config


def test_random_agent_is_deterministic(tmp_path):
    def actions(out):
        run(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out), episodes=5, seed=1))
        recs = sorted(lines(out / "episodes.jsonl"), key=lambda r: r["instance_id"])
        return [[s["action"] for s in lines(out / r["trajectory"])] for r in recs]

    assert actions(tmp_path / "a") == actions(tmp_path / "b")


def test_oracle_solves_in_optimal_steps(out_dir):
    run(RunConfig(["toy/walk"], {"*": AgentSpec("oracle")}, str(out_dir), episodes=6))
    for rec in lines(out_dir / "episodes.jsonl"):
        assert rec["success"] and rec["steps"] == rec["optimal_steps"]


def test_resume_runs_only_missing_episodes(out_dir):
    cfg = RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=3)
    run(cfg)
    first = (out_dir / "episodes.jsonl").read_text()
    cfg.episodes = 5
    summary = run(cfg)
    assert summary["run_this_time"] == 2
    text = (out_dir / "episodes.jsonl").read_text()
    assert text.startswith(first) and len(lines(out_dir / "episodes.jsonl")) == 5
    assert run(cfg)["run_this_time"] == 0


def test_resume_refuses_a_different_agent(out_dir):
    run(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=2))
    with pytest.raises(ConfigError, match="different 'agents'"):
        run(RunConfig(["toy/walk"], {"*": AgentSpec("oracle")}, str(out_dir), episodes=2))


def test_torn_last_line_is_repaired(out_dir):
    run(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=3))
    path = out_dir / "episodes.jsonl"
    data = path.read_bytes()
    path.write_bytes(data + data.splitlines(keepends=True)[0][:30])  # half a line, as a machine crash leaves
    with RunStore(out_dir) as store:  # the writer's open cuts the torn line
        assert len(store.records()) == 3
    run(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=4))
    assert len(lines(path)) == 4


def test_task_crash_is_recorded_and_run_goes_on(out_dir):
    # the oracle's first action on these instances is "right" or "left"; crash on one of them only
    cfg = RunConfig(
        ["toy/walk"], {"*": AgentSpec("oracle")}, str(out_dir), episodes=5, task_options={"crash_on": "left"}
    )
    summary = run(cfg)
    records = lines(out_dir / "episodes.jsonl")
    crashed = [r for r in records if r["error"]]
    assert crashed and len(records) == 5
    assert all("crashed on purpose" in r["error"] and not r["success"] for r in crashed)
    assert summary["tasks"]["toy/walk"]["errors"] == len(crashed)
    # errored episodes run again on resume (and crash again here), unless kept
    assert run(cfg)["run_this_time"] == len(crashed)
    cfg.retry_errors = False
    assert run(cfg)["run_this_time"] == 0
    cfg.task_options = {"crash_on": "nothing-matches"}
    with pytest.raises(ConfigError):  # the options are part of the run's identity
        run(cfg)


def test_retry_errors_reruns_and_last_record_wins(tmp_path):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"instance_id": "walk-0-0", "actions": ["right"] * 10}) + "\n")
    out = tmp_path / "run"
    cfg = RunConfig(["toy/walk"], {"*": AgentSpec(f"replay:{replay}")}, str(out), episodes=2)
    run(cfg)
    recs = {r["instance_id"]: r for r in lines(out / "episodes.jsonl")}
    assert "no actions for instance 'walk-0-1'" in recs["walk-0-1"]["error"]
    with replay.open("a") as fh:
        fh.write(json.dumps({"instance_id": "walk-0-1", "actions": ["left"] * 10}) + "\n")
    assert run(cfg)["run_this_time"] == 1
    final = {r["instance_id"]: r for r in RunReader(out).records()}
    assert final["walk-0-1"]["error"] is None


def test_replay_agent_stops_when_actions_run_out(out_dir, tmp_path):
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"instance_id": "walk-0-1", "actions": ["bogus"]}) + "\n")
    run(
        RunConfig(
            ["toy/walk"],
            {"*": AgentSpec(f"replay:{replay}")},
            str(out_dir),
            episodes=2,
            instance_ids=["walk-0-1"],
        )
    )
    (rec,) = lines(out_dir / "episodes.jsonl")
    assert rec["steps"] == 1 and rec["termination"] == "agent_stopped" and rec["error"] is None
    (step,) = lines(out_dir / rec["trajectory"])
    assert step["validity"] == "unparseable" and "bogus" in step["feedback"]


def test_set_routing_errors(out_dir):
    with pytest.raises(ConfigError, match="no selected task has this option"):
        run(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), task_options={"bogus": 1}))
    with pytest.raises(ConfigError, match="not part of this run"):
        run(
            RunConfig(
                ["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), task_options={"other/x:length": 1}
            )
        )


def test_concurrency_runs_episodes_in_parallel(tmp_path):
    from playbench.runner.executors import LocalExecutor

    async def main(conc):
        t0 = time.perf_counter()
        await execute(
            RunConfig(["toy/walk"], {"*": AgentSpec("oracle")}, str(tmp_path / f"c{conc}"), episodes=8),
            executor=LocalExecutor(conc),
        )
        return time.perf_counter() - t0

    # the toy steps are instant; the point is that all episodes finish and each exactly once
    asyncio.run(main(4))
    assert len(lines(tmp_path / "c4" / "episodes.jsonl")) == 8


@pytest.mark.slow
def test_sigkill_then_resume_gives_every_episode_exactly_once(tmp_path):
    out = tmp_path / "killed"
    code = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r}); import conftest; from playbench.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    cmd = [
        sys.executable,
        "-c",
        code,
        "run",
        "toy/walk",
        "--agent",
        "random",
        "--episodes",
        "40",
        "--out",
        str(out),
        "--set",
        "step_delay=0.01",
        "--set",
        "max_steps=6",
        "--concurrency",
        "3",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        path = out / "episodes.jsonl"
        if path.exists() and len(path.read_text().splitlines()) >= 5:
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = len(lines(out / "episodes.jsonl"))
    assert 5 <= before < 40, "the kill should land mid-run"
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    keys = [(r["task"], r["instance_id"], r["trial"]) for r in lines(out / "episodes.jsonl")]
    assert len(keys) == 40 and len(set(keys)) == 40
    for rec in lines(out / "episodes.jsonl"):
        assert len(lines(out / rec["trajectory"])) == rec["steps"]


def test_random_baseline_is_modality_blind(tmp_path):
    run(
        RunConfig(
            ["ivispar/sgp", "ivispar/sgp-2d"], {"*": AgentSpec("random")}, str(tmp_path / "r"), episodes=3
        )
    )
    by_task: dict[str, dict[str, list[str]]] = {}
    for rec in lines(tmp_path / "r" / "episodes.jsonl"):
        actions = [s["action"] for s in lines(tmp_path / "r" / rec["trajectory"])]
        by_task.setdefault(rec["task"], {})[rec["instance_id"]] = actions
    assert by_task["ivispar/sgp"] == by_task["ivispar/sgp-2d"]
