"""The typed run records (issue #14): `info` on every trajectory line, `termination` and per-role
usage on every episode, instances as the unit of trials, and reading a run never changes it."""

import asyncio
import json
import math
from pathlib import Path

import pytest

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.core.metrics import proportion
from playbench.core.termination import TERMINATIONS
from playbench.runner.run import RunConfig, execute


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_steps_carry_info_and_episodes_a_termination(out_dir):
    asyncio.run(execute(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=5)))
    records = lines(out_dir / "episodes.jsonl")
    assert {r["termination"] for r in records} <= set(TERMINATIONS)
    assert any(r["termination"] == "goal_reached" for r in records)
    for rec in records:
        assert "ended_by" not in rec and "ended_by" not in rec["metrics"]
        assert (rec["termination"] == "goal_reached") == rec["success"]
        steps = lines(out_dir / rec["trajectory"])
        for i, step in enumerate(steps):
            assert step["info"]["step"] == i + 1  # the template counts every walk step
            assert (step["instructions"] is not None) == (i == 0)
            if step["validity"] in ("effective", "ineffective"):
                assert step["info"]["position"] in range(6)
        assert rec["usage_by_role"].keys() <= {"player"}


def test_a_capped_episode_says_so(out_dir):
    # replaying only 'left' from the right end never reaches a target on the right
    replay = out_dir.parent / "left.jsonl"
    replay.write_text(json.dumps({"instance_id": "walk-0-0", "actions": ["left"] * 3}) + "\n")
    asyncio.run(
        execute(
            RunConfig(
                ["toy/walk"],
                {"*": AgentSpec(f"replay:{replay}")},
                str(out_dir),
                instance_ids=["walk-0-0"],
                task_options={"max_steps": 2, "length": 50},
            )
        )
    )
    (rec,) = lines(out_dir / "episodes.jsonl")
    assert rec["steps"] == 2
    assert rec["termination"] in ("step_cap", "goal_reached")
    if not rec["success"]:
        assert rec["termination"] == "step_cap"


def test_trials_use_the_instance_as_the_unit(out_dir):
    summary = asyncio.run(
        execute(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=3, trials=4))
    )
    entry = summary["tasks"]["toy/walk"]
    assert entry["episodes"] == 12 and entry["instances"] == 3
    assert entry["success"]["n"] == 3 and entry["success"]["episodes"] == 12
    assert entry["steps"]["n"] == 3
    on_disk = json.loads((out_dir / "summary.json").read_text())
    assert on_disk["instances"] == 3 and on_disk["tasks"]["toy/walk"]["instances"] == 3


def test_pooled_trials_would_claim_a_narrower_interval_than_the_instances_allow():
    # two instances: one always solved, one never, eight trials each
    flags = [True] * 8 + [False] * 8
    units = ["a"] * 8 + ["b"] * 8
    pooled, by_instance = proportion(flags), proportion(flags, units)
    assert pooled["value"] == by_instance["value"] == 0.5
    width = lambda s: s["ci95"][1] - s["ci95"][0]  # noqa: E731
    assert width(by_instance) > width(pooled)  # n=2 independent units, not 16
    assert by_instance["n"] == 2 and by_instance["ci95"][0] >= 0.0 and by_instance["ci95"][1] <= 1.0
    assert not math.isnan(by_instance["ci95"][0])


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_report_leaves_the_run_directory_byte_identical(out_dir, tmp_path):
    asyncio.run(execute(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out_dir), episodes=3)))
    with open(out_dir / "episodes.jsonl", "ab") as fh:  # a torn last line, as a crash leaves it
        fh.write(b'{"task": "toy/walk", "instance_id": "walk-0-9", "tri')
    before = _snapshot(out_dir)
    assert main(["report", str(out_dir), "--out", str(tmp_path / "rep")]) == 0
    assert _snapshot(out_dir) == before
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report  # the report was written elsewhere, from the three whole lines


def test_overriding_an_ids_defining_option_is_a_usage_error(out_dir, capsys):
    code = main(["run", "ivispar/sgp-2d", "--agent", "random", "--set", "modality=3d", "--out", str(out_dir)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "modality" in err[0] and "ivispar/sgp-3d" in err[0]
    assert not (out_dir / "episodes.jsonl").exists()


@pytest.mark.parametrize("task", ["ivispar/sgpp", "comma/wires"])
def test_unknown_task_suggests_close_ids(task, capsys):
    assert main(["run", task, "--agent", "random"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" in err and len(err) < 300


def test_mmescape_level_id_refuses_another_level(out_dir, capsys):
    code = main(
        ["run", "mmescape/level-1", "--agent", "random", "--set", "level=level-2", "--out", str(out_dir)]
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "level" in err[0] and "mmescape/level-2" in err[0]
