"""playbench.results.load: a run directory, or a folder of them, as pandas data frames."""

import asyncio
import json
import sys

import pytest

from playbench import results
from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.runner.run import RunConfig, execute

pd = pytest.importorskip("pandas")


def _run(tmp_path, name, replies, **kw):
    path = tmp_path / f"{name}.txt"
    path.write_text("\n".join(replies) + "\n")
    out = tmp_path / "runs" / name
    config = RunConfig(["toy/walk"], {"*": AgentSpec("llm", f"mock:{path}")}, str(out), episodes=3, **kw)
    asyncio.run(execute(config))
    return out


def test_one_run_as_three_frames(tmp_path):
    out = _run(tmp_path, "a", ["action: right", "action: left"])
    episodes, steps, calls = results.load(out)
    assert len(episodes) == 3 and set(episodes["run"]) == {"a"}
    for column in ("task", "instance_id", "trial", "success", "steps", "turns", "termination", "scored"):
        assert column in episodes
    assert {"input_tokens", "output_tokens", "calls", "cost", "metrics.final_distance"} <= set(episodes)
    assert episodes["calls"].sum() == len(calls) == episodes["turns"].sum() == len(steps)
    assert list(steps["turn"][steps["instance_id"] == episodes["instance_id"][0]]) == list(
        range(1, int(episodes["turns"][0]) + 1)
    )
    assert {"validity", "action", "info"} <= set(steps)
    assert set(calls["purpose"]) == {"act"} and calls["text"].str.startswith("action:").all()
    merged = calls.merge(episodes, on=["run", "task", "instance_id", "trial"], suffixes=("", "_episode"))
    assert len(merged) == len(calls)  # the key joins calls to their episode


def test_a_folder_of_runs_and_the_skips(tmp_path):
    _run(tmp_path, "a", ["action: right"])
    _run(tmp_path, "b", ["action: left"], save_calls=False)
    res = results.load(tmp_path / "runs", calls=True, steps=False)
    assert sorted(set(res.episodes["run"])) == ["a", "b"]
    assert res.steps.empty and "turn" in res.steps
    assert set(res.calls["run"]) == {"a"}  # b has no calls file
    assert res.episodes.groupby("run")["success"].mean().index.tolist() == ["a", "b"]


def test_errors_and_missing_pandas_are_one_clear_message(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="no run directory"):
        results.load(tmp_path)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ConfigError, match=r"playbench\[analysis\]"):
        results.load(tmp_path)


def test_replay_needs_a_calls_file(tmp_path):
    out = _run(tmp_path, "b", ["action: left"], save_calls=False)
    record = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    with pytest.raises(ConfigError, match="--no-calls"):
        results.replay(out, record)
