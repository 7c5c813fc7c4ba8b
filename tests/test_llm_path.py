"""The llm agent end to end: runner -> agent -> real SDK -> HTTP -> local scripted server."""

import asyncio
import json
import re

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedServer


def walker(request: dict) -> str:
    """Answers toy/walk prompts correctly, whichever wire format the request came in."""
    text = json.dumps(request)
    pos, target = map(int, re.search(r"position (\d+), target (\d+)", text).groups())
    return f"I am at {pos} and want {target}.\naction: {'right' if target > pos else 'left'}"


def records(out):
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def test_openai_llm_run_records_usage_and_trajectory(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "llm"
    with ScriptedServer(walker) as srv:
        code = main(
            [
                "run",
                "toy/walk",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "4",
                "--out",
                str(out),
                "--concurrency",
                "2",
            ]
        )
        assert code == 0
        bodies = list(srv.requests)
    recs = records(out)
    assert len(recs) == 4 and all(r["success"] and r["error"] is None for r in recs)
    for r in recs:
        assert r["model"] == "openai:scripted"
        assert (
            r["usage"]["calls"] == r["steps"]
            and r["usage"]["input_tokens"] > 0
            and r["usage"]["output_tokens"] > 0
        )
        steps = [json.loads(x) for x in (out / r["trajectory"]).read_text().splitlines()]
        assert all(s["raw_output"].startswith("I am at") for s in steps)
    assert sum(r["steps"] for r in recs) == len(bodies)
    first = bodies[0]["messages"]
    assert first[0]["role"] == "system" and "left or right" in json.dumps(first[0])
    assert first[-1]["role"] == "user"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tasks"]["toy/walk"]["usage"]["calls"] == len(bodies)


def test_anthropic_llm_run(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    out = tmp_path / "claude"
    with ScriptedServer(walker) as srv:
        code = main(
            [
                "run",
                "toy/walk",
                "--agent",
                "llm",
                "--model",
                "anthropic:scripted-claude",
                "--base-url",
                srv.anthropic_base_url,
                "--episodes",
                "2",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    assert all(r["success"] for r in records(out))
    assert "left or right" in json.dumps(bodies[0]["system"])
    assert "sk-test-not-real" not in (out / "config.json").read_text()


def test_history_window_keeps_last_k_exchanges(tmp_path):
    with ScriptedServer(["action: bogus"], cycle=True) as srv:
        cfg = RunConfig(
            ["toy/walk"],
            {"*": AgentSpec("llm", "openai:s", {"history": 2})},
            str(tmp_path / "h"),
            episodes=2,
            task_options={"max_steps": 5},
            models=ModelSettings(base_url=srv.base_url),
            instance_ids=["walk-0-1"],
        )
        asyncio.run(execute(cfg))
        sizes = [len(b["messages"]) for b in srv.requests]
    # system + up to 2 (user, assistant) pairs + the current user turn
    assert sizes == [2, 4, 6, 6, 6]


def test_no_cot_adds_the_bare_answer_instruction(tmp_path):
    with ScriptedServer(["action: right"], cycle=True) as srv:
        cfg = RunConfig(
            ["toy/walk"],
            {"*": AgentSpec("llm", "openai:s", {"cot": False})},
            str(tmp_path / "c"),
            episodes=1,
            models=ModelSettings(base_url=srv.base_url),
        )
        asyncio.run(execute(cfg))
        system = json.dumps(srv.requests[0]["messages"][0])
    assert "without any explanation" in system


def test_api_errors_are_recorded_and_the_run_goes_on(tmp_path):
    out = tmp_path / "fail"
    with ScriptedServer(walker, failures=[500] * 4) as srv:
        cfg = RunConfig(
            ["toy/walk"],
            {"*": AgentSpec("llm", "openai:s")},
            str(out),
            episodes=3,
            models=ModelSettings(base_url=srv.base_url, max_retries=1, retry_base_delay=0.01),
        )
        asyncio.run(execute(cfg))
    recs = records(out)
    failed = [r for r in recs if r["error"]]
    assert len(recs) == 3 and failed
    assert all("500" in r["error"] for r in failed)
    assert any(r["success"] for r in recs), "later episodes succeed once the server recovers"


def test_unreachable_server_is_an_episode_error(tmp_path):
    out = tmp_path / "down"
    cfg = RunConfig(
        ["toy/walk"],
        {"*": AgentSpec("llm", "openai:s")},
        str(out),
        episodes=1,
        models=ModelSettings(
            base_url="http://127.0.0.1:9/v1", max_retries=1, retry_base_delay=0.01, timeout=2
        ),
    )
    asyncio.run(execute(cfg))
    (rec,) = records(out)
    assert rec["error"] and not rec["success"]


def test_response_cache_avoids_repeat_requests(tmp_path):
    cache = tmp_path / "cache.sqlite"
    with ScriptedServer(walker) as srv:
        argv = [
            "run",
            "toy/walk",
            "--agent",
            "llm",
            "--model",
            "openai:s",
            "--base-url",
            srv.base_url,
            "--episodes",
            "3",
            "--cache",
            str(cache),
        ]
        assert main([*argv, "--out", str(tmp_path / "a")]) == 0
        n_first = len(srv.requests)
        assert main([*argv, "--out", str(tmp_path / "b")]) == 0
        assert len(srv.requests) == n_first
    recs = records(tmp_path / "b")
    assert all(r["success"] and r["usage"]["cached_calls"] == r["steps"] for r in recs)


def test_model_sweep_runs_each_model_into_its_own_directory_with_one_provider_budget(tmp_path):
    out = tmp_path / "sweep"
    with ScriptedServer(walker, latency=0.15) as srv:
        code = main(
            [
                "run",
                "toy/walk",
                "--agent",
                "llm",
                "--model",
                "openai:model-a",
                "--model",
                "openai:model-b",
                "--base-url",
                srv.base_url,
                "--episodes",
                "4",
                "--concurrency",
                "4",
                "--model-concurrency",
                "3",
                "--out",
                str(out),
            ]
        )
        peak = srv.max_in_flight
        by_model = {b["model"] for b in srv.requests}
    assert code == 0
    assert by_model == {"model-a", "model-b"}
    # two models x 4 concurrent episodes would allow 8 requests at once; the shared budget keeps 3
    assert 2 <= peak <= 3
    for name in ("openai_model-a", "openai_model-b"):
        recs = records(out / name)
        assert len(recs) == 4 and all(r["success"] for r in recs)
        assert {r["model"] for r in recs} == {name.replace("_", ":", 1)}


def test_sweep_needs_the_llm_agent(capsys, tmp_path):
    code = main(
        [
            "run",
            "toy/walk",
            "--agent",
            "random",
            "--model",
            "openai:a",
            "--model",
            "openai:b",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2 and "several --model values need a model-driven --agent" in capsys.readouterr().err


def test_failed_episode_is_retried_on_resume_and_nothing_else_changes(tmp_path):
    out = tmp_path / "resume"
    with ScriptedServer(walker, faults=["drop", "drop"]) as srv:
        cfg = RunConfig(
            ["toy/walk"],
            {"*": AgentSpec("llm", "openai:s")},
            str(out),
            episodes=3,
            models=ModelSettings(base_url=srv.base_url, max_retries=1, retry_base_delay=0.01),
        )
        asyncio.run(execute(cfg))
        first = (out / "episodes.jsonl").read_text().splitlines()
        failed = [json.loads(x) for x in first if json.loads(x)["error"]]
        assert len(failed) == 1 and failed[0]["usage"]["retries"] == 1
        summary = asyncio.run(execute(cfg))
    assert summary["run_this_time"] == 1
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert lines[:3] == first  # append-only: earlier lines untouched
    rerun = json.loads(lines[3])
    assert rerun["instance_id"] == failed[0]["instance_id"] and rerun["error"] is None and rerun["success"]
    assert summary["tasks"]["toy/walk"]["episodes"] == 3 and summary["tasks"]["toy/walk"]["errors"] == 0


def test_no_cot_leaves_the_expert_and_judge_seats_free_to_explain(tmp_path):
    with ScriptedServer(["my answer is 2"], cycle=True) as srv:
        cfg = RunConfig(
            ["toy/consult"],
            {"*": AgentSpec("llm", "openai:s", {"cot": False})},
            str(tmp_path / "c"),
            episodes=1,
            models=ModelSettings(base_url=srv.base_url),
            task_options={"judge": True},
        )
        asyncio.run(execute(cfg))
        systems = {
            m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for b in srv.requests
            for m in b["messages"]
            if m["role"] == "system"
        }
    by_seat = {
        seat: [s for s in systems if f"You are the {seat}." in s] for seat in ("solver", "expert", "judge")
    }
    assert all(by_seat.values()), systems
    assert all("without any explanation" in s for s in by_seat["solver"])
    assert not any("without any explanation" in s for s in by_seat["expert"] + by_seat["judge"])
