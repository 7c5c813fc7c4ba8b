"""The VisEscape agents over the real openai SDK and a local scripted server.

A tiny stand-in room (`MiniRoom`, four walls and a desk that opens) drives the agents step by step so
the calls of every step can be counted; the last tests play the real `visescape/room-01` through the
runner.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading

import pytest
from PIL import Image

from playbench.agents import AgentSpec, build_agent, parse_agent
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext
from playbench.core.types import ImagePart, Observation, TextPart
from playbench.models import make_model
from playbench.tasks.visescape import agent_prompts as prompts
from playbench.tasks.visescape.agents import (
    BaseAgent,
    MemoryAgent,
    is_available,
    is_movement,
    parse_reply,
    read_observation,
    shuffled_actions,
)
from playbench.testing.scripted_server import (
    ScriptedServer,
    last_user_text,
    prompt_tokens,
    request_images,
)

DIRS = ("north", "east", "south", "west")
COLORS = {"north": (200, 60, 60), "east": (60, 200, 60), "south": (60, 60, 200), "west": (200, 200, 60)}


def png(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buf, format="PNG")
    return buf.getvalue()


class MiniRoom:
    """Four walls; the north wall has a desk that opens and closes and a button that does nothing."""

    def __init__(self) -> None:
        self.view = "north"
        self.desk = "closed"
        self.feedback = ""
        self.step = 0

    def actions(self) -> list[str]:
        if self.view == "desk":
            return ["step_back", "close" if self.desk == "open" else "open", "press button"]
        out = [f"turn_to_{d}" for d in DIRS if d != self.view]
        return out + (["inspect desk"] if self.view == "north" else [])

    def observe(self) -> Observation:
        if self.view == "desk":
            image = ImagePart(png((120, 80, 40) if self.desk == "closed" else (240, 200, 160)), label="desk")
            where = f"You look at the desk on the north wall. It is {self.desk}."
        else:
            image = ImagePart(png(COLORS[self.view]), label=f"{self.view} wall")
            where = f"You face the {self.view} wall."
        listing = "\n".join(f"- {a}" for a in self.actions())
        text = f"{self.feedback}\n{where}\nHeld items: nothing\nAvailable actions:\n{listing}".strip()
        # the public facts as the VisEscape task gives them, which the agents read
        data = {
            "view": {
                "kind": "receptacle" if self.view == "desk" else "wall",
                "name": self.view,
                "wall": "north" if self.view == "desk" else self.view,
                "header": image.label,
            },
            "held": [],
            "available_actions": self.actions(),
            "last_result": self.feedback,
            "hint": None,
            "lock": None,
        }
        return Observation(
            role="player",
            parts=[TextPart(where), image, TextPart(text)],
            instructions="(task rules)",
            legal_actions=self.actions(),
            feedback=self.feedback,
            step=self.step,
            data=data,
        )

    def apply(self, action: str) -> None:
        self.step += 1
        if action not in self.actions():
            self.feedback = (
                f"The action '{action}' is not available now; choose one of the available actions."
            )
            return
        self.feedback = f"You did {action}."
        if action.startswith("turn_to_"):
            self.view = action.removeprefix("turn_to_")
        elif action == "inspect desk":
            self.view = "desk"
        elif action == "step_back":
            self.view = "north"
        elif action in ("open", "close"):
            self.desk = "open" if action == "open" else "closed"


def kind_of(body: dict) -> str:
    text = last_user_text(body)
    if "Describe the picture." in text:
        return "caption"
    if "<Current Memory>" in text:
        return "memory-update"
    if prompts.SPATIAL in text and "logs" in text:
        return "memory"
    if prompts.ANALYSIS in text:
        return "feedback"
    if "<Your Previous Action>" in text:
        return "retry"
    return "action"


class Responder:
    """Answers each kind of call; action calls take the next planned action (thread-safe)."""

    def __init__(self, plan: list[str], action_reply: str | None = None) -> None:
        self.plan = list(plan)
        self.lock = threading.Lock()
        self.action_reply = action_reply

    def __call__(self, body: dict) -> str:
        kind = kind_of(body)
        if kind == "caption":
            return "A view with a " + ("desk" if "close-up" in last_user_text(body) else "wall") + "."
        if kind.startswith("memory"):
            return (
                f'{prompts.SPATIAL} {{"north": {{"objects": ["desk"]}}}}\n{prompts.INSPECTED} []\n'
                f"{prompts.UNINSPECTED} []\n{prompts.ADDITIONAL} [1. memory made at call]"
            )
        if kind == "feedback":
            return f"{prompts.ANALYSIS} The desk changed."
        with self.lock:
            action = self.plan.pop(0) if self.plan else "turn_to_east"
        if self.action_reply is not None:
            return self.action_reply
        if kind == "retry":
            return f"[ACTION] {action}"
        return f"[THINK] plan number {len(self.plan)} says {action}.\n[ACTION] {action}"


async def play(agent, room: MiniRoom, steps: int, seed: int = 7, trial: int = 0):
    await agent.reset(EpisodeContext("visescape/mini", "mini", "player", trial, seed))
    out = []
    for _ in range(steps):
        obs = room.observe()
        action = await agent.act(obs)
        out.append((obs, action))
        room.apply(action.text)
    return out


def make_agent(cls, srv, options=None, name="visescape-memory"):
    models = {}

    def get_model(spec: str):
        if spec not in models:
            models[spec] = make_model(spec, base_url=srv.base_url, max_retries=0)
        return models[spec]

    return cls(AgentSpec(name, "openai:scripted", dict(options or {})), get_model), models


def run_agent(cls, srv, room, steps, options=None, seed=7, trial=0):
    async def go():
        agent, models = make_agent(cls, srv, options)
        try:
            return await play(agent, room, steps, seed, trial)
        finally:
            for model in models.values():
                await model.aclose()

    return asyncio.run(go())


def per_step_kinds(bodies: list[dict]) -> list[list[str]]:
    steps, current = [], []
    for body in bodies:
        current.append(kind_of(body))
        if current[-1] in ("action", "retry"):
            steps.append(current)
            current = []
    assert not current
    return steps


def per_step_bodies(bodies: list[dict]) -> list[list[dict]]:
    steps, current = [], []
    for body in bodies:
        current.append(body)
        if kind_of(body) in ("action", "retry"):
            steps.append(current)
            current = []
    return steps


MEMORY_PLAN = [
    "turn_to_east",  # 1 north -> east (movement)
    "turn_to_north",  # 2
    "inspect desk",  # 3
    "open",  # 4 object action, the view changes -> feedback call at 5
    "close",  # 5 -> feedback call at 6
    "press button",  # 6 view unchanged -> "No change occurred" at 7, no call
    "step_back",  # 7
    "inspect desk",  # 8
    "fly away",  # 9 not available -> retry prompt at 10
    "step_back",  # 10 (retry answer)
    *["turn_to_east", "turn_to_north"] * 6,  # 11-22
]


def test_memory_agent_calls_per_step():
    room = MiniRoom()
    with ScriptedServer(Responder(MEMORY_PLAN)) as srv:
        played = run_agent(MemoryAgent, srv, room, 21)
        bodies = list(srv.requests)
    kinds = per_step_kinds(bodies)
    assert len(kinds) == 21
    assert kinds[0] == ["caption", "action"]  # north wall described once
    assert kinds[1] == ["caption", "action"]  # east wall is new
    assert kinds[2] == ["action"]  # north again: description cached
    assert kinds[3] == ["caption", "action"]  # desk close-up (closed)
    assert kinds[4] == ["caption", "feedback", "action"]  # after open: new view, feedback
    assert kinds[5] == ["feedback", "action"]  # after close: the closed desk is known, feedback still runs
    assert kinds[6] == ["action"]  # after press: view unchanged -> no call
    assert kinds[7] == ["action"] and kinds[8] == ["action"]  # movements
    assert kinds[9] == ["memory", "retry"]  # step 10: first memory construction; previous action unavailable
    assert all(k == ["action"] for k in kinds[10:19])
    assert kinds[19] == ["memory-update", "action"]  # step 20: update of the existing memory
    assert kinds[20] == ["action"]
    assert sum(k.count("feedback") for k in kinds) == 2

    steps = per_step_bodies(bodies)
    # step 1 is the initial prompt (no memory yet); steps 2-9 carry the raw log as memory
    first = last_user_text(steps[0][-1])
    assert "<Memory>" not in first and "[THINK]" in first
    step8 = last_user_text(steps[7][-1])
    assert "Action: [open] - The desk changed." in step8
    assert "Action: [press button] - " + prompts.NO_CHANGE in step8
    # salient-action memory: object actions only, with their effect
    salient = re.search(r"<Action Memory>(.*?)</Action Memory>", step8, re.S).group(1)
    assert "open - The desk changed." in salient and "press button - No change occurred" in salient
    assert "turn_to" not in salient and "inspect" not in salient
    # the previous thought is carried forward
    assert "plan number" in re.search(
        r"<Your thought and action in the previous turn>(.*?)</", step8, re.S
    ).group(1)
    # memory: built from the 9 logs of steps 1-9, then updated from steps 10-19
    memory_prompt = last_user_text(steps[9][0])
    assert "<Last 9 logs" in memory_prompt and memory_prompt.count("Action: [") == 9
    update_prompt = last_user_text(steps[19][0])
    assert "memory made at call" in update_prompt and "<Last 10 logs" in update_prompt
    assert "memory made at call" in last_user_text(steps[10][-1])
    # the retry prompt names the unavailable action
    assert "<Your Previous Action> fly away" in last_user_text(steps[9][-1])
    # the feedback call compares the two descriptions of the views
    feedback = last_user_text(steps[4][1])
    assert "<Previous Action> : open" in feedback and feedback.count("A view with a desk.") == 2

    # every step reports its own calls: usage summed, all outputs in raw, the thought as rationale
    for (_obs, action), calls in zip(played, steps, strict=True):
        assert action.usage.calls == len(calls)
        assert action.usage.input_tokens == sum(prompt_tokens(b) for b in calls)
        if len(calls) > 1:
            assert action.raw.count("--- ") == len(calls)
    assert played[4][1].raw.startswith("--- caption desk ---")
    assert played[0][1].rationale.startswith("plan number")
    assert played[9][1].text == "step_back" and played[9][1].rationale is None
    # VLM mode: the acting model sees the image, the feedback and memory calls are text only
    assert len(request_images(steps[3][-1])) == 1
    assert request_images(steps[4][1]) == [] and request_images(steps[9][0]) == []


def test_base_agent_keeps_a_window_of_twenty():
    room = MiniRoom()
    plan = ["turn_to_east", "turn_to_north"] * 20
    with ScriptedServer(Responder(plan)) as srv:
        played = run_agent(BaseAgent, srv, room, 25)
        bodies = list(srv.requests)
    assert len(bodies) == 25 and all(kind_of(b) == "action" for b in bodies)
    assert all(a.usage.calls == 1 and a.raw == a.raw.strip() for _, a in played)
    last = last_user_text(bodies[-1])
    history = re.search(
        r"<Recent history \(from oldest to latest\)>(.*?)</Recent history>", last, re.S
    ).group(1)
    numbers = [int(n) for n in re.findall(r"^Step (\d+)\.", history, re.M)]
    assert numbers == list(range(5, 25))
    assert "-> You did turn_to_" in history  # the task's feedback on each past action
    assert "<Held items>nothing</Held items>" in last
    assert len(request_images(bodies[-1])) == 1  # only the current view travels as an image
    # base agent answers with the action only unless cot is asked for
    assert "[THINK]" not in last and "[ACTION]" in last
    with ScriptedServer(Responder(plan)) as srv:
        run_agent(BaseAgent, srv, MiniRoom(), 2, options={"cot": True, "history": 1})
        bodies = list(srv.requests)
    assert "[THINK]" in last_user_text(bodies[1])
    assert len(re.findall(r"^Step \d+\.", last_user_text(bodies[1]), re.M)) == 1


def offered(body: dict) -> list[str]:
    return (
        re.search(r"You can choose one of these actions: (.*)$", last_user_text(body), re.M)
        .group(1)
        .split(", ")
    )


def test_available_actions_shuffled_deterministically_per_seed():
    plan = ["turn_to_east", "turn_to_north"] * 10

    def orders(seed, options=None):
        with ScriptedServer(Responder(plan)) as srv:
            run_agent(MemoryAgent, srv, MiniRoom(), 8, options=options, seed=seed)
            return [offered(b) for b in srv.requests if kind_of(b) == "action"]

    a, b, c = orders(1), orders(1), orders(2)
    assert a == b and a != c
    room = MiniRoom()
    assert sorted(a[0]) == sorted(room.actions())
    assert orders(1, {"shuffle_actions": False})[0] == room.actions()
    assert shuffled_actions(room.actions(), 3, 1) == shuffled_actions(room.actions(), 3, 1)
    assert any(shuffled_actions(room.actions(), 3, t) != room.actions() for t in range(1, 6))


def test_caption_then_reason_uses_the_captioner_for_every_view():
    plan = ["turn_to_east", "turn_to_north", "inspect desk", "open", "step_back"]
    for cls in (BaseAgent, MemoryAgent):
        with ScriptedServer(Responder(plan)) as srv:
            played = run_agent(cls, srv, MiniRoom(), 5, options={"captioner": "openai:captioner"})
            bodies = list(srv.requests)
        captions = [b for b in bodies if b["model"] == "captioner"]
        reasoning = [b for b in bodies if b["model"] == "scripted"]
        # four distinct views: north, east, desk closed, desk open (north again is cached)
        assert len(captions) == 4 and all(kind_of(b) == "caption" for b in captions)
        assert all(len(request_images(b)) == 1 for b in captions)
        assert all(request_images(b) == [] for b in reasoning)  # the reasoner never sees an image
        assert "A view with a wall." in last_user_text(reasoning[0])
        assert sum(a.usage.calls for _, a in played) == len(bodies)
    # the memory agent's feedback compares captioner descriptions
    assert any(kind_of(b) == "feedback" for b in reasoning)


def test_malformed_replies_are_forwarded_not_fatal():
    room = MiniRoom()
    with ScriptedServer(Responder([], action_reply="I am not sure.")) as srv:
        played = run_agent(MemoryAgent, srv, room, 3)
    assert [a.text for _, a in played] == ["I am not sure."] * 3
    assert room.feedback.startswith("The action 'I am not sure.' is not available")
    # the memory agent notices and uses the retry prompt
    assert played[1][1].raw.endswith("I am not sure.")

    with ScriptedServer(Responder(["x"] * 3, action_reply="")) as srv:
        played = run_agent(BaseAgent, srv, MiniRoom(), 2)
    assert [a.text for _, a in played] == ["", ""]


def test_malformed_memory_and_feedback_replies_keep_the_log():
    def responder(body):
        kind = kind_of(body)
        if kind == "caption":
            return "a view"
        if kind.startswith("memory"):
            return "I do not want to build a memory."
        if kind == "feedback":
            return ""
        return "[ACTION] " + (
            "open"
            if "- open" in last_user_text(body) or "open," in last_user_text(body)
            else "inspect desk"
            if "inspect desk" in last_user_text(body)
            else "close"
        )

    with ScriptedServer(responder) as srv:
        run_agent(MemoryAgent, srv, MiniRoom(), 6, options={"memory_every": 3})
        bodies = list(srv.requests)
    actions = [last_user_text(b) for b in bodies if kind_of(b) == "action"]
    memory = re.search(r"<Memory>(.*?)</Memory>", actions[-1], re.S).group(1)
    assert "Action: [inspect desk]" in memory  # the failed rebuild kept the raw log
    assert prompts.NO_CHANGE in memory or "Action: [open] - " in memory


@pytest.mark.parametrize(
    ("reply", "action", "thought"),
    [
        ("[THINK] go east\n[ACTION] turn_to_east", "turn_to_east", "go east"),
        (
            "[THINK]\nThe code is 8056.\n[ACTION]\n<ANSWER>8056</ANSWER>",
            "<ANSWER>8056</ANSWER>",
            "The code is 8056.",
        ),
        ("[ACTION] `inspect desk`.", "inspect desk", None),
        ("thinking...\nAction: pick key_A", "pick key_A", None),
        ("[THINK] a\n[ACTION] open\n\n[THINK]\n[ACTION]", "open", "a"),
        ("I am not sure.", "I am not sure.", None),
        ("<answer>red blue</answer> is my guess", "<answer>red blue</answer>", None),
        ("", "", None),
    ],
)
def test_parse_reply(reply, action, thought):
    assert parse_reply(reply) == (action, thought)


def test_action_classes_and_availability():
    legal = ["step_back", "open", "pick key_A", prompts.ANSWER_NOTE and "<ANSWER>your answer</ANSWER>"]
    assert is_available("Step back", legal) and is_available("pick the key_A", legal)
    assert is_available("<ANSWER>12</ANSWER>", legal) and not is_available("<ANSWER>1</ANSWER>", ["open"])
    assert not is_available("use key_A", legal)
    assert is_movement("turn to the north wall") and is_movement("inspect desk") and is_movement("step_back")
    assert not is_movement("open") and not is_movement("pick key_A") and not is_movement("<ANSWER>1</ANSWER>")


def test_read_observation_takes_what_the_prompts_need():
    room = MiniRoom()
    view = read_observation(room.observe())
    assert view.direction == "north" and view.view_kind == "wall" and view.held == ""
    assert "Available actions" not in view.task_text and "- turn_to_east" not in view.task_text
    assert view.names == ["desk"] and view.where == "north wall" and view.subject == ""
    room.apply("inspect desk")
    view = read_observation(room.observe())
    assert view.view_kind == "object" and view.direction == "north" and view.subject == "desk"
    assert view.task_text == "<Last action result>You did inspect desk.</Last action result>"
    data = {
        "view": {"kind": "item", "name": "safe_lock", "wall": "west", "header": "west side of room - lock"},
        "held": [{"id": "key_A", "name": "small key"}, {"id": "note_B", "name": "note"}],
        "available_actions": ["step_back", "<ANSWER>your answer</ANSWER>"],
        "last_result": "A lock.",
        "hint": "open  the\nsafe",
        "lock": {"id": "safe_lock", "answer_format": "4 digits"},
    }
    obs = Observation(
        "player", [TextPart("text the agents do not read")], legal_actions=["step_back"], data=data
    )
    view = read_observation(obs)
    assert view.held == "key_A (small key), note_B (note)" and view.hints == ["open the safe"]
    assert (
        view.view_kind == "item" and view.subject == "safe_lock" and view.where == "west side of room - lock"
    )
    assert view.answer_offered and view.actions == ["step_back", "<ANSWER>your answer</ANSWER>"]
    assert view.task_text == (
        "<Last action result>A lock.</Last action result>\nYou are facing the lock safe_lock. To enter an "
        "answer reply <ANSWER>your answer</ANSWER> (4 digits)."
    )
    assert "do not read" not in view.text_scene + view.task_text


def test_read_observation_without_data_uses_only_generic_fields():
    obs = Observation(
        "player",
        [TextPart("A lock.")],
        legal_actions=["step_back", "<ANSWER>12</ANSWER>", "<ANSWER>34</ANSWER>"],
    )
    view = read_observation(obs)
    assert view.view_kind == "item" and view.held == "" and view.hints == [] and view.where == "current view"
    assert view.actions == ["step_back", "<ANSWER>your answer</ANSWER>"] and view.task_text == "A lock."


def test_read_observation_of_the_real_task_reads_its_data():
    from playbench.core.registry import make_task

    task = make_task("visescape/room-01", hints=True, hint_after=1)
    task.reset(task.instances(1, 0)[0])
    for action in ("turn_to_east", "inspect desk", "open", "pick key_A", "step_back", "turn_to_west"):
        task.step(action)
    task.step("inspect safe")
    task.step("inspect safe_lock")
    view = read_observation(task.observe("player"))
    assert view.where == "west side of room - close-up of item safe_lock" and view.direction == "west"
    assert view.view_kind == "item" and view.subject == "safe_lock" and view.held == "key_A (small brass key)"
    assert (
        view.hints and view.answer_offered and view.actions == ["step_back", "<ANSWER>your answer</ANSWER>"]
    )
    assert view.task_text.startswith("<Last action result>You take a close look at safe_lock.")
    assert view.task_text.endswith("(4 digits, e.g. <ANSWER>1234</ANSWER>).")
    assert view.images and view.text_scene == ""
    task.step("step_back")
    view = read_observation(task.observe("player"))
    assert view.view_kind == "object" and view.names == ["safe_lock"]  # the held key is not the view's


def test_options_are_checked():
    def get_model(spec):
        raise AssertionError("no model is needed to reject options")

    with pytest.raises(ConfigError, match="memory_every"):
        MemoryAgent(AgentSpec("visescape-memory", "openai:x", {"memory_every": 0}), get_model)
    with pytest.raises(ConfigError, match="does not take"):
        BaseAgent(AgentSpec("visescape-base", "openai:x", {"memory_every": 3}), get_model)
    with pytest.raises(ConfigError, match="needs --model"):
        MemoryAgent(AgentSpec("visescape-memory", None, {}), get_model)
    with pytest.raises(ConfigError, match="true or false"):
        MemoryAgent(AgentSpec("visescape-memory", "openai:x", {"feedback": "maybe"}), get_model)
    with pytest.raises(ConfigError, match="memory_every must be an integer"):
        MemoryAgent.check_options(AgentSpec("visescape-memory", "openai:x", {"memory_every": "zero"}))
    MemoryAgent.check_options(
        AgentSpec("visescape-memory", "openai:x", {"memory_every": "5", "cot": "false"})
    )


def test_registered_agents_build_from_specs():
    spec = parse_agent("visescape-memory", "openai:scripted", {"memory_every": 5, "captioner": "openai:cap"})
    built = build_agent(spec, lambda s: make_model(s, base_url="http://127.0.0.1:9/v1"))
    assert isinstance(built, MemoryAgent) and built.memory_every == 5 and built.captioning
    assert isinstance(
        build_agent(
            parse_agent("visescape-base", "openai:s"),
            lambda s: make_model(s, base_url="http://127.0.0.1:9/v1"),
        ),
        BaseAgent,
    )
    with pytest.raises(ConfigError, match="does not take"):
        parse_agent("visescape-base", "openai:s", {"memory_every": 5})
    with pytest.raises(ConfigError, match="needs --model"):
        parse_agent("visescape-memory")


def records(out):
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


# --- the real room through the runner ------------------------------------------------------------------


def oracle_path(task_id: str = "visescape/room-01") -> tuple[dict, list[str]]:
    from playbench.core.registry import make_task

    task = make_task(task_id)
    instance = task.instances(None, 0)[0]
    task.reset(instance)
    path = []
    while not task.done:
        path.append(task.oracle_action("player"))
        task.step(path[-1])
    return instance.model_dump(), path


class OracleResponder(Responder):
    """Plays the oracle path; `detour` maps an action-call number to a reply given before the path goes on."""

    def __init__(self, path: list[str], detour: dict[int, str] | None = None) -> None:
        super().__init__(path)
        self.detour = dict(detour or {})
        self.action_calls = 0

    def __call__(self, body: dict) -> str:
        if kind_of(body) not in ("action", "retry"):
            return super().__call__(body)
        with self.lock:
            self.action_calls += 1
            if self.action_calls in self.detour:
                return f"[THINK] let me try something.\n[ACTION] {self.detour[self.action_calls]}"
        return super().__call__(body)


def run_room(tmp_path, srv, agent: str, options=None, name="run", task_options=None):
    from playbench.runner.model_pool import ModelSettings
    from playbench.runner.run import RunConfig, execute

    out = tmp_path / name
    cfg = RunConfig(
        ["visescape/room-01"],
        {"*": AgentSpec(agent, "openai:scripted", dict(options or {}))},
        str(out),
        episodes=1,
        models=ModelSettings(base_url=srv.base_url, max_retries=0),
        task_options=dict(task_options or {}),
    )
    asyncio.run(execute(cfg))
    (record,) = records(out)
    steps = [json.loads(x) for x in (out / record["trajectory"]).read_text().splitlines()]
    return record, steps


def test_memory_agent_escapes_room_01_with_memory_and_feedback_calls(tmp_path):
    _, path = oracle_path()
    # action call 3 is an unavailable action: the task lets it be retried without spending a step
    with ScriptedServer(OracleResponder(path, detour={3: "open the window"})) as srv:
        record, steps = run_room(tmp_path, srv, "visescape-memory")
        bodies = list(srv.requests)
    assert record["error"] is None and record["success"] and record["steps"] == len(path)
    assert len(steps) == len(path) + 1  # one free retry
    kinds = per_step_kinds(bodies)
    assert len(kinds) == len(steps)
    assert kinds[3][-1] == "retry" and steps[2]["validity"] in ("invalid", "unparseable")
    # memory at game steps 10 and 20: act 11 and 21 because of the free retry
    memory_acts = [k for k, ks in enumerate(kinds, 1) if any(x.startswith("memory") for x in ks)]
    assert memory_acts == [11, 21]
    played = [s["action"] for s in steps]
    for k, ks in enumerate(kinds):
        if "feedback" in ks:  # only after an object action that changed the view
            assert not is_movement(played[k - 1])
    object_steps = [k for k in range(1, len(played)) if not is_movement(played[k - 1]) and k != 3]
    assert sum("feedback" in kinds[k] for k in object_steps) >= len(object_steps) - 1
    assert all(s["usage"]["calls"] == len(ks) for s, ks in zip(steps, kinds, strict=True))
    assert record["usage"]["calls"] == len(bodies)
    assert steps[0]["rationale"] and steps[0]["raw_output"].count("--- ") == 2
    # the answer at the lock went through as the bare tag
    assert any(s["action"].startswith("<ANSWER>") and s["validity"] == "effective" for s in steps)
    answer_prompt = next(last_user_text(b) for b in bodies if "<ANSWER> is the action" in last_user_text(b))
    assert "<ANSWER>your answer</ANSWER>" in answer_prompt


def test_base_agent_escapes_room_01_through_the_cli(tmp_path):
    from playbench.cli import main

    _, path = oracle_path()
    out = tmp_path / "base"
    with ScriptedServer(OracleResponder(path)) as srv:
        code = main(
            [
                "run",
                "visescape/room-01",
                "--agent",
                "visescape-base",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    (record,) = records(out)
    assert record["success"] and record["steps"] == len(path) == len(bodies)
    assert record["usage"]["calls"] == len(bodies) and record["agent"] == "visescape-base(openai:scripted)"
    last = last_user_text(bodies[-1])
    # the agent's own history replaces the task's list; the task's reply-format line is not repeated
    assert "<Recent actions" not in last and last.count("[ACTION]") == 2
    assert len(re.findall(r"^Step \d+\.", last, re.M)) == 20


def test_caption_then_reason_on_room_01_through_the_cli(tmp_path):
    from playbench.cli import main

    _, path = oracle_path()
    out = tmp_path / "socratic"
    with ScriptedServer(OracleResponder(path)) as srv:
        code = main(
            [
                "run",
                "visescape/room-01",
                "--agent",
                "visescape-memory",
                "--model",
                "openai:scripted",
                "--captioner-model",
                "openai:captioner",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0
    (record,) = records(out)
    assert record["success"] and record["usage"]["calls"] == len(bodies)
    captions = [b for b in bodies if b["model"] == "captioner"]
    assert captions and all(kind_of(b) == "caption" and len(request_images(b)) == 1 for b in captions)
    assert all(request_images(b) == [] for b in bodies if b["model"] == "scripted")
    # one caption per distinct view
    assert len({request_images(b)[0] for b in captions}) == len(captions)


def test_task_caption_observations_need_no_caption_calls(tmp_path):
    _, path = oracle_path()
    with ScriptedServer(OracleResponder(path)) as srv:
        record, _ = run_room(tmp_path, srv, "visescape-memory", task_options={"observation": "caption"})
        bodies = list(srv.requests)
    assert record["success"]
    assert not any(kind_of(b) == "caption" for b in bodies) and not any(request_images(b) for b in bodies)
    assert "side of room - " in last_user_text(bodies[-1])


def test_model_errors_are_recorded_not_raised(tmp_path):
    from playbench.testing.scripted_server import ScriptedFailure

    _, path = oracle_path()
    inner = OracleResponder(path)

    def failing(body):
        if kind_of(body).startswith("memory"):
            raise ScriptedFailure(400, "context length exceeded")
        return inner(body)

    with ScriptedServer(failing) as srv:
        record, steps = run_room(tmp_path, srv, "visescape-memory")
    assert not record["success"] and "context length exceeded" in record["error"]
    assert len(steps) == 9  # the memory call of step 10 failed


def test_unparseable_replies_reach_the_task(tmp_path):
    with ScriptedServer(["Hmm, hard to say."], cycle=True) as srv:
        record, steps = run_room(tmp_path, srv, "visescape-base", task_options={"max_steps": 3})
    assert record["error"] is None and not record["success"]
    assert all(s["action"] == "Hmm, hard to say." for s in steps)
    assert all(s["validity"] in ("invalid", "unparseable") for s in steps)


def test_hints_reach_both_agents(tmp_path):
    for agent in ("visescape-base", "visescape-memory"):
        with ScriptedServer(Responder(["turn_to_east", "turn_to_north"] * 5)) as srv:
            record, _ = run_room(
                tmp_path,
                srv,
                agent,
                name=agent,
                task_options={"hints": True, "hint_after": 2, "max_steps": 4},
            )
            prompts_sent = [last_user_text(b) for b in srv.requests if kind_of(b) == "action"]
        assert record["error"] is None and record["metrics"]["hints_shown"] >= 1
        assert "Hint message:" not in prompts_sent[1] and "<Hint>" not in prompts_sent[-1]
        assert "Hint message: " in prompts_sent[-1]
