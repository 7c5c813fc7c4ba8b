"""Extra seats and agents from the command line: expert, judge, captioner, suite agents, play --seat."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from playbench.agents import AgentSpec, parse_agent, registered_agents
from playbench.agents.base import Agent
from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.types import Action
from playbench.runner.episode import EpisodeJob, run_episode
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.testing.scripted_server import ScriptedServer, last_user_text

TESTS = Path(__file__).parent


def records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]


def test_expert_agent_fills_the_expert_seat(tmp_path):
    out = tmp_path / "r"
    assert (
        main(["run", "toy/consult", "--agent", "random", "--expert-agent", "oracle", "--out", str(out)]) == 0
    )
    recs = records(out)
    assert len(recs) == 4 and all(r["roles"] == {"expert": "oracle", "solver": "random"} for r in recs)
    config = json.loads((out / "config.json").read_text())
    assert config["run"]["agents"]["expert"]["name"] == "oracle"


def test_default_run_dir_names_the_expert(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (
        main(["run", "toy/consult", "--agent", "oracle", "--expert-agent", "random", "--episodes", "1"]) == 0
    )
    assert (tmp_path / "runs" / "toy_consult-oracle_expert-random-s0" / "episodes.jsonl").exists()


def test_judge_model_adds_the_judge_seat_and_turns_the_option_on(tmp_path):
    out = tmp_path / "j"

    def judge(request: dict) -> str:
        assert "Transcript:" in last_user_text(request)
        return "I would say score: 4"

    with ScriptedServer(judge) as srv:
        argv = [
            "run",
            "toy/consult",
            "--agent",
            "oracle",
            "--expert-agent",
            "oracle",
            "--judge-model",
            "openai:judge",
            "--base-url",
            srv.base_url,
            "--out",
            str(out),
        ]
        assert main(argv) == 0
        assert len(srv.requests) == 4 and srv.requests[0]["temperature"] == 0.0
    recs = records(out)
    assert all(r["success"] and r["metrics"]["judge_score"] == 4 for r in recs)
    assert recs[0]["roles"]["judge"] == "llm(openai:judge)"
    assert json.loads((out / "config.json").read_text())["run"]["task_options"] == {"toy/consult:judge": True}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "toy/walk", "--agent", "random", "--judge-model", "openai:j"], "has a judge step"),
        (["run", "toy/consult", "--agent", "random", "--expert-model", "openai:e"], "needs --expert-agent"),
        (
            ["run", "toy/walk", "--agent", "test-echo", "--agent-opt", "colour=red"],
            "does not take option(s) colour",
        ),
        (["run", "toy/walk", "--agent", "no-such-agent"], "test-echo"),
        (["run", "toy/walk", "--agent", "test-echo", "--agent-opt", "word="], "word must not be empty"),
        (["run", "toy/walk", "--agent", "random", "--captioner-model", "openai:c"], "model-driven"),
        (["play", "toy/consult", "--seat", "nobody"], "has the roles expert, solver"),
        (["play", "toy/walk", "--partner", "oracle"], "needs --seat"),
    ],
)
def test_seat_usage_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_registered_suite_agent_runs_with_its_option(tmp_path, capsys):
    assert "test-echo" in registered_agents()
    out = tmp_path / "e"
    argv = [
        "run",
        "toy/walk",
        "--agent",
        "test-echo",
        "--agent-opt",
        "word=right",
        "--episodes",
        "2",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    steps = [json.loads(x) for x in (out / records(out)[0]["trajectory"]).read_text().splitlines()]
    assert {s["action"] for s in steps} == {"right"}
    assert main(["list"]) == 0
    assert "test-echo" in capsys.readouterr().out


def test_parse_agent_rejects_options_the_agent_does_not_declare():
    assert parse_agent("test-echo", None, {"word": "x"}).options == {"word": "x"}
    with pytest.raises(ConfigError, match="only used by model-driven"):
        parse_agent("test-echo", "openai:x")


def test_captioner_describes_images_for_a_text_only_model(tmp_path):
    out = tmp_path / "c"
    seen = {"captions": 0, "actions": 0}

    def responder(request: dict) -> str:
        content = request["messages"][-1]["content"]
        has_image = isinstance(content, list) and any(p.get("type") == "image_url" for p in content)
        if request["model"] == "captioner":
            assert has_image
            seen["captions"] += 1
            return "A board with a red cube at a1."
        # every message the reasoner gets (the chat's earlier turns hold the board images): text only
        sent = [m["content"] for m in request["messages"]]
        parts = [p for c in sent if isinstance(c, list) for p in c]
        texts = [c for c in sent if isinstance(c, str)] + [p.get("text", "") for p in parts]
        assert not any(p.get("type") == "image_url" for p in parts)
        assert any("A board with a red cube at a1." in t for t in texts)
        seen["actions"] += 1
        return "action: move red cube up"

    with ScriptedServer(responder) as srv:
        argv = [
            "run",
            "ivispar/sgp-2d",
            "--agent",
            "llm",
            "--model",
            "openai:reasoner",
            "--captioner-model",
            "openai:captioner",
            "--base-url",
            srv.base_url,
            "--episodes",
            "1",
            "--out",
            str(out),
            "--set",
            "max_steps=2",
        ]
        assert main(argv) == 0
    rec = records(out)[0]
    assert rec["error"] is None and seen["actions"] == 2 and seen["captions"] >= 2
    assert rec["usage"]["calls"] == seen["actions"] + seen["captions"]


def test_make_agent_supplies_an_agent_for_one_seat():
    class Fixed(Agent):
        async def act(self, observation):
            return Action(text="7")

    job = EpisodeJob(
        "toy/consult",
        {},
        {"id": "c", "secret": 7, "optimal_steps": 2},
        0,
        0,
        {"*": AgentSpec("oracle").to_dict(), "solver": AgentSpec("human").to_dict()},
    )
    made = []

    def factory(spec, role):
        made.append((spec.name, role))
        return Fixed() if role == "solver" else None

    output = asyncio.run(run_episode(job, ModelPool(ModelSettings()), make_agent=factory))
    assert output.record["success"] and output.record["roles"]["solver"] == "human"
    assert made == [("oracle", "expert"), ("human", "solver")]


def test_play_a_seat_with_a_partner(tmp_path):
    out = tmp_path / "play"
    code = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r}); import conftest; from playbench.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "play",
            "toy/consult",
            "--seat",
            "solver",
            "--partner",
            "oracle",
            "--out",
            str(out),
        ],
        input="my answer is 2\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rec = records(out)[0]
    assert rec["roles"] == {"expert": "oracle", "solver": "human"}
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert [s["role"] for s in steps] == ["expert", "solver"] and steps[1]["action"] == "my answer is 2"


def test_each_model_can_name_its_own_server(tmp_path):
    out = tmp_path / "two-servers"
    with (
        ScriptedServer(lambda body: "A red cube at a1.") as captions,
        ScriptedServer(lambda body: "action: move red cube up") as actions,
    ):
        argv = [
            "run",
            "ivispar/sgp-2d",
            "--agent",
            "llm",
            "--model",
            f"openai:reasoner@{actions.base_url}",
            "--captioner-model",
            f"openai:captioner@{captions.base_url}",
            "--episodes",
            "1",
            "--out",
            str(out),
            "--set",
            "max_steps=2",
        ]
        assert main(argv) == 0
        assert {r["model"] for r in captions.requests} == {"captioner"}
        assert {r["model"] for r in actions.requests} == {"reasoner"} and len(actions.requests) == 2
    assert records(out)[0]["error"] is None
