"""Every model call on record (issue #21): the calls file beside each trajectory holds every request
and response, replaying the requests reproduces the trajectory, keys are never written, --no-calls."""

import asyncio
import json
import os
from pathlib import Path

import pytest

from playbench import results
from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.runner.model_pool import ModelSettings
from playbench.runner.reader import RunReader
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedServer


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def replies(tmp_path: Path, name: str, texts: list[str]) -> str:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in texts))
    return f"mock:{path}"


def check_calls_and_replay(out: Path) -> list[dict]:
    """Every record's calls file holds one line per call its usage counts, each with a request and a
    response, every image it names is on disk, and replaying the requests gives the same trajectory."""
    reader = RunReader(out)
    records = reader.records()
    assert records
    all_calls = []
    for record in records:
        assert record["error"] is None, record["error"]
        calls, warnings = reader.calls(record)
        assert not warnings
        assert len(calls) == record["usage"]["calls"] > 0
        assert [c["call"] for c in calls] == list(range(1, len(calls) + 1))
        steps, _ = reader.trajectory(record)
        assert len(steps) == record["turns"]
        assert sum(s["calls"] for s in steps) == len(calls)  # every call belongs to a finished turn here
        for call in calls:
            assert call["request"]["messages"] and call["response"]["text"] is not None
            assert call["model"].startswith("mock:") and call["role"] in record["roles"]
            for message in call["request"]["messages"]:
                for part in message["content"]:
                    if part["type"] == "image":
                        assert (out / "trajectories" / part["file"]).is_file()
        replayed = results.replay(out, record)
        assert replayed.matches, replayed.differences
        all_calls += calls
    return all_calls


def test_ivispar_vision_episode_with_a_captioner(tmp_path):
    model = replies(tmp_path, "iv", ["action: move green cube up", "I think\naction: move red sphere left"])
    out = tmp_path / "iv"
    config = RunConfig(
        ["ivispar/sgp-2d"],
        {"*": AgentSpec("llm", model, {"history": 1, "captioner": model})},
        str(out),
        episodes=2,
        # packed: the agent's own window (--history 1) is what this test records; the default chat is
        # the task's own conversation (Observation.turns), which replaces that window
        task_options={"max_steps": 3, "conversation": "packed"},
    )
    asyncio.run(execute(config))
    calls = check_calls_and_replay(out)
    assert {c["purpose"] for c in calls} == {"act", "caption"}
    act = [c for c in calls if c["purpose"] == "act"]
    assert act[0]["request"]["messages"][0]["role"] == "system"  # the system prompt is on record
    assert len(act[1]["request"]["messages"]) == 4  # --history 1: the previous exchange is on record
    record = RunReader(out).records()[0]
    purposes = {(u["role"], u["purpose"]) for u in record["usage_breakdown"]}
    assert purposes == {("player", "act"), ("player", "caption")}
    # the system prompt is written once; later calls refer to it and the reader puts it back
    raw = lines(out / record["calls"])
    acts = [c for c in raw if c["purpose"] == "act"]
    assert "text" in acts[0]["request"]["messages"][0]["content"][0]
    assert acts[1]["request"]["messages"][0]["content"][0]["repeat_of"]["call"] == acts[0]["call"]
    expanded = [c for c in RunReader(out).calls(record)[0] if c["purpose"] == "act"]
    assert expanded[1]["request"]["messages"][0] == expanded[0]["request"]["messages"][0]


def test_comma_pair_with_a_judge(tmp_path):
    solver = replies(tmp_path, "solver", ["tap_button"])
    expert = replies(tmp_path, "expert", ["Hold the button and release it when the timer shows a 4."])
    judge = replies(tmp_path, "judge", ["The solver ignored the expert. Label: misinterpretation"])
    out = tmp_path / "comma"
    config = RunConfig(
        ["comma/button"],
        {
            "*": AgentSpec("llm", solver),
            "expert": AgentSpec("llm", expert),
            "judge": AgentSpec("llm", judge, {"temperature": 0.0}),
        },
        str(out),
        episodes=1,
        task_options={"judge": True, "max_steps": 3},
    )
    asyncio.run(execute(config))
    calls = check_calls_and_replay(out)
    assert {c["role"] for c in calls} == {"solver", "expert", "judge"}
    expert_call = next(c for c in calls if c["role"] == "expert")
    system = expert_call["request"]["messages"][0]
    assert system["role"] == "system" and "manual" in json.dumps(system).lower()  # the expert's manual
    record = RunReader(out).records()[0]
    assert set(record["usage_by_role"]) == {"solver", "expert", "judge"}
    assert set(record["usage_by_model"]) == {solver, expert, judge}


def test_visescape_memory_agent_internal_calls(tmp_path):
    model = replies(tmp_path, "vis", ["Thought: look around.\nAction: turn_to_east", "nothing changed"])
    out = tmp_path / "vis"
    config = RunConfig(
        ["visescape/room-01"],
        {"*": AgentSpec("visescape-memory", model, {"memory_every": 2})},
        str(out),
        task_options={"max_steps": 5},
    )
    asyncio.run(execute(config))
    calls = check_calls_and_replay(out)
    record = RunReader(out).records()[0]
    assert len(calls) > record["turns"]  # memory, feedback and ReAct calls beside the acting ones


def test_tos_and_mmescape_episodes(tmp_path):
    tos = replies(tmp_path, "tos", ["Actions: [Rotate(90), Observe()]", "Actions: [Term()]"])
    out = tmp_path / "tos"
    asyncio.run(execute(RunConfig(["tos/explore"], {"*": AgentSpec("llm", tos)}, str(out), episodes=1)))
    check_calls_and_replay(out)
    mm = replies(tmp_path, "mm", ['{"rotate_right": 30, "rationale": "look"}', '{"move_forward": 1}'])
    out = tmp_path / "mm"
    asyncio.run(
        execute(
            RunConfig(
                ["mmescape/level-1"],
                {"*": AgentSpec("llm", mm)},
                str(out),
                episodes=1,
                task_options={"max_steps": 3},
            )
        )
    )
    check_calls_and_replay(out)


def test_a_changed_request_is_caught_by_the_replay(tmp_path):
    model = replies(tmp_path, "walk", ["left", "right"])
    out = tmp_path / "walk"
    asyncio.run(execute(RunConfig(["toy/walk"], {"*": AgentSpec("llm", model)}, str(out), episodes=1)))
    record = RunReader(out).records()[0]
    path = out / record["calls"]
    calls = lines(path)
    calls[0]["request"]["messages"][-1]["content"][0]["text"] += " (edited)"
    path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    replayed = results.replay(out, record)
    assert not replayed.matches and any("differs" in d for d in replayed.differences)


def test_failed_call_is_on_record_and_keys_are_never_written(tmp_path, monkeypatch):
    secret = "sk-test-SECRET-9f3a1c"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    out = tmp_path / "keys"
    with ScriptedServer(["right"] * 50, failures=[500] * 2) as srv:
        config = RunConfig(
            ["toy/walk"],
            {"*": AgentSpec("llm", "openai:scripted")},
            str(out),
            episodes=2,
            models=ModelSettings(base_url=srv.base_url, max_retries=0, retry_base_delay=0.0),
        )
        asyncio.run(execute(config))
    for path in out.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    reader = RunReader(out)
    failed = [r for r in reader.records() if r["error"]]
    assert failed
    calls, _ = reader.calls(failed[0])
    assert calls[-1]["error"] and "500" in calls[-1]["error"] and calls[-1]["response"] is None
    assert calls[-1]["turn"] == failed[0]["turns"] + 1  # the turn that never finished
    row = failed[0]["usage_breakdown"][0]
    assert row["failed_calls"] >= 1


def test_reasoning_tokens_and_text_are_recorded(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"reply": "right", "reasoning_tokens": 7, "reasoning": "the target is right"}) + "\n"
    )
    out = tmp_path / "reason"
    asyncio.run(
        execute(RunConfig(["toy/walk"], {"*": AgentSpec("llm", f"mock:{path}")}, str(out), episodes=1))
    )
    record = RunReader(out).records()[0]
    calls, _ = RunReader(out).calls(record)
    assert (
        calls[0]["usage"]["reasoning_tokens"] == 7
        and calls[0]["response"]["reasoning"] == "the target is right"
    )
    assert record["usage_breakdown"][0]["reasoning_tokens"] == 7 * len(calls)


def test_no_calls_writes_no_calls_file_but_keeps_the_usage(tmp_path):
    model = replies(tmp_path, "walk", ["right"])
    out = tmp_path / "nocalls"
    argv = [
        "run",
        "toy/walk",
        "--agent",
        "llm",
        "--model",
        model,
        "--episodes",
        "2",
        "--out",
        str(out),
        "--no-calls",
    ]
    assert main(argv) == 0
    for record in RunReader(out).records():
        assert record["calls"] is None and record["usage_breakdown"][0]["calls"] == record["usage"]["calls"]
    assert not list((out / "trajectories").glob("*.calls.jsonl"))


@pytest.mark.skipif(os.environ.get("PLAYBENCH_SKIP_WEB") == "1", reason="web app not wanted")
def test_the_replay_page_shows_the_calls(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from playbench.web.server import create_app

    solver = replies(tmp_path, "solver", ["tap_button"])
    expert = replies(tmp_path, "expert", ["Hold it."])
    out = tmp_path / "runs" / "comma"
    config = RunConfig(
        ["comma/button"],
        {"*": AgentSpec("llm", solver), "expert": AgentSpec("llm", expert)},
        str(out),
        episodes=1,
        task_options={"max_steps": 2},
    )
    asyncio.run(execute(config))
    client = TestClient(create_app([str(tmp_path / "runs")]))
    home = client.get("/").text
    rid = home.split('href="/run/', 1)[1].split('"', 1)[0]
    run_page = client.get(f"/run/{rid}").text
    assert "Usage per seat and model" in run_page
    eid = run_page.split(f'href="/run/{rid}/episode/', 1)[1].split('"', 1)[0]
    page = client.get(f"/run/{rid}/episode/{eid}").text
    assert "model calls of this turn" in page and "instructions given to this seat" in page
    assert "Hold it." in page and "turns (every seat" in page
