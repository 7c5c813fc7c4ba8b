"""The VisEscape agents as the authors' code runs them, over the real openai SDK and a local scripted
server, playing our room-01 and the demo room in the authors' format (`visescape/original-demo`)."""

from __future__ import annotations

import ast
import asyncio
import io
import json
import re
import threading

import pytest
from PIL import Image

from playbench.agents import AgentSpec, build_agent, parse_agent
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.task import EpisodeContext
from playbench.core.types import ImagePart, Observation, TextPart
from playbench.models import make_model
from playbench.tasks.visescape import agent_prompts as prompts
from playbench.tasks.visescape.agents import BaseAgent, MemoryAgent, read_action, read_view
from playbench.testing.scripted_server import ScriptedServer, last_user_text, request_images, system_text


def kind_of(body: dict) -> str:
    text = last_user_text(body)
    if text.startswith(("A picture of one wall", "A close-up picture of")):
        return "caption"
    if "<Last 10 logs" in text:
        return "memory"
    if prompts.ANALYSIS in text:
        return "feedback"
    if "<Your Previous Action>" in text:
        return "retry"
    return "action"


class Oracle:
    """Replies to action calls with the next action of a plan (detours first), to the others simply."""

    def __init__(
        self,
        plan: list[str],
        detour: dict[int, str] | None = None,
        think: bool = True,
        garbled: dict[int, str] | None = None,
    ) -> None:
        self.plan = list(plan)
        self.detour = dict(detour or {})
        self.garbled = dict(garbled or {})  # call number -> a reply sent as it is
        self.calls = 0
        self.think = think
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> str:
        kind = kind_of(body)
        if kind == "caption":
            return 'A plain wall with a "door".'
        if kind == "memory":
            return '[SPATIAL MEMORY] {"north": {"objects": ["door"]}}\n[INSPECTED OBJECTS] []\n[UNINSPECTED OBJECTS] []\n[ADDITIONAL MEMORY] []'
        if kind == "feedback":
            return "[ANALYSIS] It opened."
        with self.lock:
            self.calls += 1
            if self.calls in self.detour:
                return f"[ACTION] {self.detour[self.calls]}"
            if self.calls in self.garbled:
                return self.garbled[self.calls]
            action = self.plan.pop(0)
        return f"[THINK] the plan says so\n[ACTION] {action}" if self.think else f"[ACTION] {action}"


def oracle_path(task_id: str = "visescape/room-01", **options) -> list[str]:
    task = make_task(task_id, **options)
    task.reset(task.instances(None, 0)[0])
    path = []
    while not task.done:
        path.append(task.oracle_action("player"))
        task.step(path[-1])
    return path


def play(agent_cls, srv, task_id="visescape/room-01", options=None, task_options=None, captioner=None):
    """Drive the agent over one episode of the task; returns (task, actions sent)."""

    async def go():
        models = {}

        def get_model(spec):
            if spec not in models:
                models[spec] = make_model(spec, base_url=srv.base_url, max_retries=0)
            return models[spec]

        opts = dict(options or {})
        if captioner:
            opts["captioner"] = captioner
        agent = agent_cls(AgentSpec(agent_cls.name, "openai:scripted", opts), get_model)
        task = make_task(task_id, **(task_options or {}))
        task.reset(task.instances(None, 0)[0])
        await agent.reset(EpisodeContext(task_id, "x", "player", 0, 7))
        sent = []
        try:
            while not task.done:
                action = await agent.act(task.observe("player"))
                sent.append(action)
                task.step(action.text)
        finally:
            for model in models.values():
                await model.aclose()
        return task, sent

    return asyncio.run(go())


def action_bodies(bodies):
    return [b for b in bodies if kind_of(b) in ("action", "retry")]


def test_read_action_as_the_original_agents():
    available = ["turn_to_east", "inspect desk", "push_bookshelf_to_right"]
    assert read_action("[THINK] hmm: yes\n[ACTION]: inspect desk\nmore", available, False) == (
        "action",
        "inspect desk",
    )
    assert read_action("[ACTION] fly", available, False) == ("unavailable", "fly")
    assert read_action("inspect desk, I think", available, False) == ("action", "inspect desk")
    assert read_action("I want to push_bookshelf_to_right", available, False) == (
        "none",
        None,
    )  # past 20 chars
    assert read_action("[ACTION] <ANSWER> 81 72 </ANSWER>", available, True) == ("answer", "81 72")
    assert read_action("[ACTION] <ANSWER>8172 is it", available, True) == ("answer", "8172")
    assert read_action("[ACTION] <ANSWER>8172</ANSWER>", available, False) == (
        "unavailable",
        "<ANSWER>8172</ANSWER>",
    )


def test_base_agent_escapes_room_01_as_the_authors_base_agent():
    path = oracle_path()
    with ScriptedServer(Oracle(path, think=False)) as srv:
        task, sent = play(BaseAgent, srv)
        bodies = list(srv.requests)
    assert task.outcome().success and task.steps == len(path) == len(bodies)  # one call per step
    first, later = last_user_text(bodies[0]), last_user_text(bodies[12])
    assert "<Current Observation>NORTH side of room - [IMAGE]</Current Observation>" in first
    assert bodies[0]["messages"][-1]["content"][-1]["type"] == "image_url"  # the image after the text
    assert "system" not in [m["role"] for m in bodies[0]["messages"]]  # vision calls carry no system prompt
    assert "<Action Memory>\nAt desk, open\nAt desk, pick key_A" in later
    recent = re.search(
        r"<Recent actions\(from oldest to latest\)>\n(.*)</Recent actions>", later, re.S
    ).group(1)
    assert "turn" not in recent and len(recent.splitlines()) <= 10
    assert f"<Your action before this turn>{sent[11].text}</Your action before this turn>" in later
    assert "<Inventory>" in later and "[ACTION]" in later and "[THINK]" not in later
    answer_prompt = next(last_user_text(b) for b in bodies if "'<ANSWER> [the answer]'" in last_user_text(b))
    assert (
        prompts.PUZZLE_NOTE in answer_prompt and "the answer as <ANSWER>your answer</ANSWER>" in answer_prompt
    )
    assert any(a.text.startswith("<ANSWER>") for a in sent)


def test_base_agent_retries_an_unavailable_action_then_takes_the_first_listed():
    path = oracle_path()
    with ScriptedServer(
        Oracle(path, detour={2: "fly away", 3: "fly away", 4: "fly away", 5: "fly away"})
    ) as srv:
        task, sent = play(BaseAgent, srv, task_options={"max_steps": 3})
        bodies = list(srv.requests)
    kinds = [kind_of(b) for b in bodies]
    assert kinds[:5] == ["action", "action", "retry", "retry", "retry"]
    retry = last_user_text(bodies[2])
    assert "<Your Previous Action> fly away" in retry and "<Available Actions> [" in retry
    assert system_text(bodies[2]) == prompts.SYSTEM_ACTION or not system_text(bodies[2])
    # after the third retry call the first action of the shuffled list is taken (the original's fallback)
    assert sent[1].raw.count("--- ") == 4


UNREADABLE = "Let me look at the picture first.\nThere is a desk."  # no [ACTION], no action up front


def listed_actions(body: dict) -> list[str]:
    """The actions a base-agent prompt lists, in the order shown (shuffled)."""
    text = last_user_text(body)
    return ast.literal_eval(re.search(r"one of these actions:\n(\[.*?\])\n", text).group(1))


def test_an_unreadable_reply_ends_the_turn_with_the_first_listed_action():
    """The authors' agents: after one call, the first action of their shuffled list (their error path)."""
    with ScriptedServer(Oracle(oracle_path(), think=False, garbled={2: UNREADABLE})) as srv:
        task, sent = play(BaseAgent, srv, task_options={"max_steps": 2})
        bodies = list(srv.requests)
    assert len(bodies) == 2 and task.steps == 2  # no call after the unreadable reply
    assert sent[1].text == listed_actions(bodies[1])[0] and sent[1].raw == UNREADABLE
    # ours: ask again, three more calls, then the first listed action
    garbled = {k: UNREADABLE for k in (2, 3, 4, 5)}
    with ScriptedServer(Oracle(oracle_path(), think=False, garbled=garbled)) as srv:
        _, sent = play(BaseAgent, srv, options={"unreadable": "ask_again"}, task_options={"max_steps": 2})
        bodies = list(srv.requests)
    assert len(bodies) == 5 and sent[1].raw.count("--- action again ---") == 3
    assert sent[1].text == listed_actions(bodies[1])[0]


def test_at_a_lock_an_unreadable_reply_is_asked_again():
    path = oracle_path()
    k = next(i for i, action in enumerate(path) if action.startswith("<ANSWER>"))
    with ScriptedServer(Oracle(path, think=False, garbled={k + 1: UNREADABLE})) as srv:
        task, sent = play(BaseAgent, srv)
        bodies = list(srv.requests)
    assert task.outcome().success and len(bodies) == len(path) + 1
    assert sent[k].text == path[k] and "--- action again ---" in sent[k].raw


def no_image_view(step: int) -> Observation:
    """A wall with no image in the authors' mapping (room 20's kiosk wall), as visescape/original shows it."""
    data = {
        "step": step,
        "direction": "EAST",
        "view": {"kind": "wall", "name": "EAST", "location": "At EAST side of room, "},
        "scene": "",
        "objects": ["Kiosk"],
        "inventory": [],
        "available_actions": ["turn_to_north", "turn_to_south", "turn_to_west", "inspect Kiosk"],
        "takes_answer": False,
    }
    return Observation("player", [TextPart("(the original has no image for this view)")], data=data)


@pytest.mark.parametrize("agent_cls", [BaseAgent, MemoryAgent])
def test_a_view_without_an_image_is_the_authors_failed_vision_call(agent_cls):
    """Their vision call finds no file and fails; its empty reply ends the turn with the first listed
    action (the base agent's first turn: a random one). Ours (`no_image=say_so`) asks with "(no image)"."""

    async def go(options):
        with ScriptedServer(Oracle(["turn_to_west", "turn_to_north"])) as srv:
            model = make_model("openai:scripted", base_url=srv.base_url, max_retries=0)
            agent = agent_cls(AgentSpec(agent_cls.name, "openai:scripted", options), lambda _: model)
            await agent.reset(EpisodeContext("visescape/original", "room20", "player", 0, 7))
            try:
                actions = [await agent.act(no_image_view(k)) for k in range(2)]
            finally:
                await model.aclose()
            return actions, list(srv.requests)

    actions, bodies = asyncio.run(go({}))
    available = no_image_view(0).data["available_actions"]
    assert bodies == [] and all(a.text in available for a in actions)
    assert "--- action: no image, the vision call fails ---" in actions[1].raw
    actions, bodies = asyncio.run(go({"no_image": "say_so"}))
    actions_called = [b for b in bodies if kind_of(b) == "action"]
    assert [a.text for a in actions] == ["turn_to_west", "turn_to_north"] and len(actions_called) == 2
    assert all("(no image)" in last_user_text(b) and not request_images(b) for b in actions_called)


def test_memory_agent_memory_feedback_and_react_on_room_01():
    path = oracle_path()
    with ScriptedServer(Oracle(path)) as srv:
        task, sent = play(MemoryAgent, srv)
        bodies = list(srv.requests)
    assert task.outcome().success and task.steps == len(path)
    steps, current = [], []
    for body in bodies:
        current.append(kind_of(body))
        if current[-1] in ("action", "retry"):
            steps.append(current)
            current = []
    memory_steps = [k for k, ks in enumerate(steps) if "memory" in ks]
    assert memory_steps == [10, 20][: len([k for k in (10, 20) if k < len(steps)])]
    memory_prompt = next(last_user_text(b) for b in bodies if kind_of(b) == "memory")
    assert memory_prompt.count("Observation: [") == 10  # the last 10 logs
    # before step 10 the memory is the logged scenes themselves
    assert "<Memory>\nNORTH side of room - A plain wall" in last_user_text(action_bodies(bodies)[1])
    # feedback only after object actions that changed the view; captions once per distinct view
    played = [a.text for a in sent]
    for k, ks in enumerate(steps):
        if "feedback" in ks:
            assert not any(w in played[k - 1] for w in ("turn", "inspect", "step_back"))
    caption_calls = [b for b in bodies if kind_of(b) == "caption"]
    images = [request_images(b)[0] for b in caption_calls]
    assert len(images) == len(set(images)) > 3  # one caption per distinct view
    assert all(b.get("temperature") == 0.0 for b in caption_calls)
    later = last_user_text(action_bodies(bodies)[15])
    assert "<Your Thought and Action before this turn>[THINK] the plan says so [ACTION]" in later
    assert "[THINK]\n[ACTION]" in later and "- It opened." in later


def test_memory_off_lists_every_distinct_observation():
    path = oracle_path()
    with ScriptedServer(Oracle(path)) as srv:
        task, _ = play(MemoryAgent, srv, options={"memory": "false"})
        bodies = list(srv.requests)
    assert task.outcome().success and not any(kind_of(b) == "memory" for b in bodies)
    late = last_user_text(action_bodies(bodies)[-1])
    memory = re.search(r"<Memory>\n(.*?)</Memory>", late, re.S).group(1).splitlines()
    assert len(memory) == len(set(memory)) > 1


def test_the_socratic_setting_captions_with_the_captioner_only():
    path = oracle_path()
    with ScriptedServer(Oracle(path)) as srv:
        task, _ = play(MemoryAgent, srv, captioner="openai:captioner")
        bodies = list(srv.requests)
    assert task.outcome().success
    for body in bodies:
        if body["model"] == "scripted":
            assert not request_images(body) and "[IMAGE]" not in last_user_text(body)
        else:
            assert kind_of(body) == "caption" and request_images(body)


def test_images_go_on_the_wire_as_the_model_options_say():
    """No local resizing: the image keeps its pixels and is marked for the wire (format, detail)."""
    agent = BaseAgent.__new__(BaseAgent)
    agent.read_options(
        AgentSpec("visescape-base", "openai:gpt-4o", {"image_format": "jpeg", "image_detail": "low"})
    )
    big = io.BytesIO()
    Image.new("RGB", (1024, 768), (10, 20, 30)).save(big, format="PNG")
    view = read_view(Observation("player", [ImagePart(big.getvalue())]))
    (image,) = agent.images_for(view)
    assert image.png == big.getvalue() and (image.send_as, image.detail) == ("jpeg", "low")
    agent.read_options(AgentSpec("visescape-base", "openai:gpt-4o", {}))
    (image,) = agent.images_for(view)
    assert (image.send_as, image.detail) == ("png", None)  # outside a run: the kernel's defaults


def test_options_are_checked():
    for options, match in [
        ({"memory": "maybe"}, "memory must be true or false"),
        ({"memory_every": "0"}, "memory_every must be an integer >= 1"),
        ({"image_detail": "original"}, "image_detail must be one of low, high, auto"),
        ({"recent_actions": "-1"}, "recent_actions must be an integer >= 0"),
        ({"history": "10"}, "recent_actions=N"),
        ({"max_tokens": "0"}, "max_tokens must be an integer >= 1 or none"),
        ({"colour": "red"}, "does not take option"),
        ({"unreadable": "retry"}, "unreadable must be one of first_action, ask_again"),
        ({"no_image": "skip"}, "no_image must be one of failed_call, say_so"),
    ]:
        with pytest.raises(ConfigError, match=match):
            MemoryAgent.check_options(AgentSpec("visescape-memory", "openai:x", options))
    with pytest.raises(ConfigError, match="needs --model"):
        BaseAgent.check_options(AgentSpec("visescape-base", None, {}))


def test_registered_agents_build_from_specs():
    spec = parse_agent("visescape-memory", "openai:gpt-4o")
    agent = build_agent(AgentSpec(spec.name, spec.model, {"memory": "false"}), lambda s: object())
    assert isinstance(agent, MemoryAgent) and not agent.memory_on


def test_both_agents_escape_the_demo_room_in_the_authors_format(tmp_path):
    """On `visescape/original-demo` (our demo room in the authors' format) through the CLI."""
    from playbench.cli import main

    path = oracle_path("visescape/original-demo")
    for agent in ("visescape-base", "visescape-memory"):
        out = tmp_path / agent
        with ScriptedServer(Oracle(path)) as srv:
            code = main(
                [
                    "run",
                    "visescape/original-demo",
                    "--agent",
                    agent,
                    "--model",
                    "openai:scripted",
                    "--base-url",
                    srv.base_url,
                    "--out",
                    str(out),
                ]
            )
        assert code == 0
        record = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
        assert record["success"] and record["steps"] == 18, agent


def test_hints_reach_the_agents():
    path = oracle_path()
    with ScriptedServer(Oracle(["turn_to_east", "turn_to_north"] * 30 + path)) as srv:
        play(BaseAgent, srv, task_options={"hints": True, "hint_after": 2, "max_steps": 6})
        bodies = list(srv.requests)
    assert "<Hint Message>" in last_user_text(bodies[-1]) and prompts.HINT_GUIDE in last_user_text(bodies[-1])


def test_caption_accuracy_of_table_9(tmp_path):
    from playbench.runner.model_pool import ModelSettings
    from playbench.runner.run import RunConfig, execute
    from playbench.tasks.visescape.captions import caption_table, main

    path = oracle_path()
    out = tmp_path / "run"
    with ScriptedServer(Oracle(path)) as srv:
        config = RunConfig(
            ["visescape/room-01"],
            {"*": AgentSpec("visescape-memory", "openai:scripted", {})},
            str(out),
            episodes=1,
            models=ModelSettings(base_url=srv.base_url, max_retries=0),
        )
        asyncio.run(execute(config))
    table = caption_table([out])
    (row,) = table.values()
    # the scripted captions always name "door" and nothing else: right on walls showing only the door
    assert 0 < row["accuracy"] < 100 and row["length"] == 6 and row["scenes"] > 3
    assert main([str(out)]) == 0 and main([str(tmp_path / "none")]) == 2
