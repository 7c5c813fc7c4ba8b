"""A task's own conversation (`Observation.turns`): recorded in the trajectory, shown to a person, described
by a captioner, counted by the dry-run estimate."""

from __future__ import annotations

import asyncio
import io
import json

from rich.console import Console

from playbench.agents import AgentSpec
from playbench.agents.human import HumanAgent
from playbench.agents.llm import LLMAgent
from playbench.core.registry import make_task
from playbench.core.task import EpisodeContext
from playbench.core.types import ImagePart, Observation, TextPart, Turn, Usage
from playbench.models.base import ModelResponse
from playbench.runner.reader import RunReader
from playbench.runner.run import RunConfig, execute


def _run(tmp_path, task: str) -> RunReader:
    replies = tmp_path / "replies.txt"
    replies.write_text("left\n")  # walk-0-1 starts at 1 with its target at 4: left, left, ... never arrives
    config = RunConfig(
        instance_ids=["walk-0-1"],
        tasks=[task],
        agents={"*": AgentSpec("llm", model=f"mock:{replies}")},
        out=str(tmp_path / task.replace("/", "_")),
    )
    asyncio.run(execute(config))
    return RunReader(config.out)


def test_the_trajectory_records_the_turns_sent_before_each_message(tmp_path):
    reader = _run(tmp_path, "toy/turns")
    record = reader.records()[0]
    lines = [json.loads(line) for line in (reader.path / record["trajectory"]).read_text().splitlines()]
    assert len(lines) >= 2
    assert lines[0]["turns_before"] == []
    second = lines[1]["turns_before"]
    assert [t["role"] for t in second] == ["user", "assistant"]
    assert second[0]["text"].startswith("you were at ") and second[1]["text"] == lines[0]["action"]
    image = second[0]["images"][0]
    assert (reader.path / "trajectories" / image["file"]).is_file()
    calls, _ = reader.calls(record)
    sent = calls[1]["request"]["messages"]
    assert [m["role"] for m in sent][-3:] == ["user", "assistant", "user"]
    plain = _run(tmp_path, "toy/walk")
    first = json.loads((plain.path / plain.records()[0]["trajectory"]).read_text().splitlines()[0])
    assert first["turns_before"] is None  # a task without its own conversation


def test_a_person_sees_the_earlier_turns_before_this_one(tmp_path):
    out = io.StringIO()
    agent = HumanAgent(
        input_fn=lambda prompt: "left", console=Console(file=out, width=120), image_dir=str(tmp_path)
    )
    asyncio.run(agent.reset(EpisodeContext("toy/turns", "i", "player", 0, 0)))
    obs = Observation(
        role="player",
        parts=[TextPart("now at 3")],
        turns=[
            Turn("user", [TextPart("you were at 2"), ImagePart(b"\x89PNG fake", label="x")]),
            Turn("assistant", [TextPart("right")]),
        ],
    )
    asyncio.run(agent.act(obs))
    shown = out.getvalue()
    assert shown.index("you were at 2") < shown.index("right") < shown.index("now at 3")
    assert "[earlier message 2, your reply]" in shown and len(list(tmp_path.glob("*.png"))) == 1


def test_a_captioner_describes_the_images_of_the_earlier_turns_too():
    sent = []

    class Model:
        async def generate(self, messages, params):
            sent.append(messages)
            return ModelResponse(text="a red square", usage=Usage(calls=1))

    agent = LLMAgent(Model(), {}, captioner=Model())
    asyncio.run(agent.reset(EpisodeContext("toy/turns", "i", "player", 0, 0)))
    obs = Observation(
        role="player",
        parts=[TextPart("now")],
        turns=[Turn("user", [ImagePart(b"png-bytes", label="before")])],
    )
    action = asyncio.run(agent.act(obs))
    final = sent[-1]
    assert not any(isinstance(p, ImagePart) for m in final for p in m.parts)
    assert "[before, described by the captioner] a red square" in [p.text for m in final for p in m.parts]
    assert action.usage.calls == 2  # the caption and the answer


def test_the_estimate_counts_the_turns_text_and_images():
    from playbench.runner.sweep import estimate

    task = make_task("toy/turns")
    task.reset(task.instances(1, 0)[0])
    config = RunConfig(
        tasks=["toy/turns"], agents={"*": AgentSpec("llm", model="openai:gpt-4o")}, out="x", episodes=1
    )
    base = RunConfig(
        tasks=["toy/walk"], agents={"*": AgentSpec("llm", model="openai:gpt-4o")}, out="x", episodes=1
    )
    # the first observation has no earlier turns: equal; an observation with turns costs more
    assert estimate(config)[0].input_tokens == estimate(base)[0].input_tokens
    task.step("right" if task.instance.target > task.pos else "left")
    obs = task.observe("player")
    assert obs.turns and obs.all_images and len(obs.shown_parts()) > len(obs.parts)
