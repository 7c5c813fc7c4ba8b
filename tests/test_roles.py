"""Two-role tasks (AEC): turn-taking, private observations, one agent per role."""

import asyncio
import json

from playbench.agents import AgentSpec
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_each_role_gets_its_own_agent_and_private_view(tmp_path):
    out = tmp_path / "relay"

    def listener(request: dict) -> str:
        text = last_user_text(request)
        assert "secret digit" not in text  # the listener never sees the speaker's view
        return "The answer is " + "".join(c for c in text.split("said:")[1] if c.isdigit())[-1:]

    with ScriptedServer(listener) as srv:
        cfg = RunConfig(
            ["toy/relay"],
            {"speaker": AgentSpec("oracle"), "listener": AgentSpec("llm", "openai:scripted")},
            str(out),
            episodes=4,
            models=ModelSettings(base_url=srv.base_url),
        )
        summary = asyncio.run(execute(cfg))
        assert len(srv.requests) == 4  # one listener turn per episode, none for the speaker
    recs = lines(out / "episodes.jsonl")
    assert all(r["success"] and r["error"] is None for r in recs)
    assert recs[0]["roles"] == {"speaker": "oracle", "listener": "llm(openai:scripted)"}
    assert recs[0]["model"] == "openai:scripted" and recs[0]["usage"]["calls"] == 1
    steps = lines(out / recs[0]["trajectory"])
    assert [s["role"] for s in steps] == ["speaker", "listener"]
    assert "secret digit" in steps[0]["observation"] and "secret digit" not in steps[1]["observation"]
    assert summary["tasks"]["toy/relay"]["success"]["value"] == 1.0


def test_star_agent_plays_every_role(tmp_path):
    out = tmp_path / "star"
    asyncio.run(execute(RunConfig(["toy/relay"], {"*": AgentSpec("random")}, str(out), episodes=3)))
    recs = lines(out / "episodes.jsonl")
    assert all(r["roles"] == {"speaker": "random", "listener": "random"} for r in recs)
    assert all(r["steps"] == 2 for r in recs)
