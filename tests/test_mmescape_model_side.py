"""MM-Escape's model side, declared by the paper tasks from the authors' code (src/Agent.py,
src/Game.py at b7b9fea8) and applied on every run: temperature 0, no output cap, JPEG views with
detail high, a real chat whose assistant turns hold the cleaned JSON reply and which never keeps
an unusable exchange, the window per model family, Claude's detail and 1960 x 980 view, Phi's
settings; the user's values win; config.json says where each came from."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image
from test_mmescape_world import room_instance

from playbench.cli import main
from playbench.core.model_side import resolve_settings
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, TextPart
from playbench.tasks.mmescape.model_side import ORIGINAL
from playbench.tasks.mmescape.task import EscapeTask
from playbench.testing.scripted_server import ScriptedServer

TASK = "mmescape/paper-level-1"


def run(out: Path, srv: ScriptedServer, model: str, *args: str) -> int:
    return main(
        [
            "run",
            TASK,
            "--agent",
            "llm",
            "--model",
            model,
            "--base-url",
            srv.base_url,
            "--episodes",
            "1",
            "--out",
            str(out),
            *args,
        ]
    )


def config(out: Path) -> dict:
    return json.loads((out / "config.json").read_text())


def settings(out: Path) -> dict:
    return config(out)["model_side"][TASK]["seats"]["player"]["settings"]


def images(message: dict) -> list[dict]:
    content = message["content"]
    return [p["image_url"] for p in content if p["type"] == "image_url"] if isinstance(content, list) else []


def jpeg_size(url: str) -> tuple[int, int]:
    head, data = url.split(",", 1)
    assert head == "data:image/jpeg;base64"
    with Image.open(io.BytesIO(base64.b64decode(data))) as img:
        assert img.format == "JPEG"
        return img.size


def side(model: str, role: str = "player", **options) -> tuple[dict, dict]:
    effective, task_options = resolve_settings(
        make_task(TASK, **options).model_side(), role, f"openai:{model}", {}
    )
    return {k: (v.value, v.source) for k, v in effective.items()}, task_options


# --- over the wire ---------------------------------------------------------------------------

FIRST = '```json\n{"rotate_right": 30, "rationale": "look at the shelf"}\n```'
UNUSABLE = "I am not sure what to do yet."
SECOND = 'Here is my action:\n\n{"rationale": "regarder l\'\u00e9tag\u00e8re", "rotate_down": 10}'
THIRD = '{"rotate_right": -20, "rationale": "back"}'


def test_the_original_chat_goes_on_the_wire_and_config_json_says_it_is_the_papers(tmp_path):
    out = tmp_path / "gpt"
    with ScriptedServer([FIRST, UNUSABLE, SECOND, THIRD]) as srv:
        assert run(out, srv, "openai:gpt-4o", "--set", "max_steps=3") == 0
        bodies = srv.requests
    assert len(bodies) == 4  # three steps and one re-ask
    for body in bodies:
        assert body["temperature"] == 0 and "max_tokens" not in body and "max_completion_tokens" not in body
        assert body["messages"][0]["role"] == "system"
        (image,) = images(body["messages"][-1])  # only the current view: the past is in the chat
        assert image["detail"] == "high" and jpeg_size(image["url"]) == (2048, 1024)
    first, second, reask, third = (b["messages"] for b in bodies)
    assert [m["role"] for m in first] == ["system", "user"]
    # a real chat: the first reply stands as the original kept it, json.dumps of the parsed reply
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[1] == first[1]
    assert second[2]["content"] == '{"rotate_right": 30, "rationale": "look at the shelf"}'
    # the unusable reply is not kept: the re-ask sends the very same messages again
    assert reask == second and UNUSABLE not in json.dumps(bodies[2])
    assert [m["role"] for m in third] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert third[:4] == second
    # json.dumps' defaults: ASCII escapes, the reply's key order
    assert third[4]["content"] == '{"rationale": "regarder l\'\\u00e9tag\\u00e8re", "rotate_down": 10}'
    assert UNUSABLE not in json.dumps(third)
    record = config(out)["model_side"][TASK]
    assert ORIGINAL in record["declared_by"] and "src/Agent.py" in record["declared_by"]
    s = record["seats"]["player"]["settings"]
    assert s["temperature"] == {"value": 0.0, "source": "paper"}
    assert s["max_tokens"] == {"value": None, "source": "paper"}
    assert s["history"] == {"value": 49, "source": "paper"}
    assert s["image_format"] == {"value": "jpeg", "source": "paper"}
    assert s["image_detail"] == {"value": "high", "source": "paper"}
    assert "task_options" not in record
    resolved = config(out)["task_options_resolved"][TASK]
    assert resolved.get("history", "chat") == "chat" and "image_width" not in resolved
    (rec,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert rec["steps"] == 3 and rec["metrics"]["unparseable_actions"] == 1


def test_a_command_line_value_wins_and_config_json_says_so(tmp_path):
    out = tmp_path / "hot"
    with ScriptedServer(THIRD, cycle=True) as srv:
        args = ["--set", "max_steps=1", "--temperature", "0.7", "--history", "3", "--max-tokens", "300"]
        assert run(out, srv, "openai:gpt-4o", *args) == 0
        (body,) = srv.requests
    assert body["temperature"] == 0.7 and body["max_tokens"] == 300
    s = settings(out)
    assert s["temperature"] == {"value": 0.7, "source": "user"}
    assert s["max_tokens"] == {"value": 300, "source": "user"}
    assert s["history"]["source"] == "user" and s["image_format"]["source"] == "paper"


def test_a_claude_model_gets_detail_auto_and_the_1960_x_980_view(tmp_path):
    out = tmp_path / "claude"
    with ScriptedServer(THIRD, cycle=True) as srv:
        assert run(out, srv, "openai:claude-x", "--set", "max_steps=2") == 0
        bodies = srv.requests
    assert len(bodies) == 2
    for body in bodies:
        (image,) = images(body["messages"][-1])
        assert image["detail"] == "auto" and jpeg_size(image["url"]) == (1960, 980)
        assert body["temperature"] == 0 and "max_tokens" not in body
    record = config(out)["model_side"][TASK]
    assert record["task_options"] == {"image_width": 1960, "image_height": 980}
    s = record["seats"]["player"]["settings"]
    assert s["image_detail"] == {"value": "auto", "source": "paper"}
    assert s["history"] == {"value": 49, "source": "paper"}
    resolved = config(out)["task_options_resolved"][TASK]
    assert (resolved["image_width"], resolved["image_height"]) == (1960, 980)


def test_the_users_view_wins_over_claudes(tmp_path):
    out = tmp_path / "claude-small"
    with ScriptedServer(THIRD, cycle=True) as srv:
        assert run(out, srv, "openai:claude-x", "--set", "max_steps=1", "--set", "image_size=128") == 0
        (body,) = srv.requests
    (image,) = images(body["messages"][-1])
    assert jpeg_size(image["url"]) == (128, 128) and image["detail"] == "auto"


def test_the_packed_turns_leave_the_agent_no_chat(tmp_path):
    out = tmp_path / "turns"
    with ScriptedServer(THIRD, cycle=True) as srv:
        assert run(out, srv, "openai:gpt-4o", "--set", "max_steps=2", "--set", "history=turns") == 0
        bodies = srv.requests
    assert [len(b["messages"]) for b in bodies] == [2, 2]  # system + one message holding the past
    assert len(images(bodies[1]["messages"][-1])) == 2  # the earlier view and the current one
    text = "\n".join(p["text"] for p in bodies[1]["messages"][-1]["content"] if p["type"] == "text")
    assert '[Your reply in turn 1]\n{"rotate_right": -20, "rationale": "back"}' in text
    assert settings(out)["history"] == {"value": 0, "source": "paper"}


# --- the declaration ------------------------------------------------------------------------


def test_the_window_and_settings_per_model_family():
    gpt, _ = side("gpt-4o-2024-08-06")
    assert gpt["temperature"] == (0.0, "paper") and gpt["max_tokens"] == (None, "paper")
    assert gpt["history"] == (49, "paper") and gpt["image_detail"] == ("high", "paper")
    assert gpt["image_format"] == ("jpeg", "paper")
    claude, frame = side("claude-3-5-sonnet-20241022")
    assert claude["history"] == (49, "paper") and claude["image_detail"] == ("auto", "paper")
    assert frame == {"image_width": 1960, "image_height": 980}
    assert side("llama-3.2-11b-vision-instruct")[0]["history"] == (21, "paper")
    for other in ("gemini-1.5-pro", "qwen-vl-max", "doubao-1.5-vision-pro", "glm-4v-flash"):
        effective, task_options = side(other)
        assert effective["history"] == ("all", "paper") and task_options == {}
        assert effective["temperature"] == (0.0, "paper") and effective["image_detail"] == ("high", "paper")
    phi, _ = side("phi-3-vision-128k-instruct")
    assert phi["temperature"] == (None, "paper") and phi["max_tokens"] == (1024, "paper")
    assert phi["image_detail"] == (None, "paper") and phi["history"] == ("all", "paper")
    # the original matches the start of the name (str.startswith)
    assert side("openai/gpt-4o")[0]["history"] == ("all", "paper")


def test_packed_history_modes_declare_no_chat_and_playbench_declares_nothing():
    for mode in ("turns", "key", "full", "last", "none"):
        for model in ("gpt-4o", "llama-3.2", "gemini-1.5-pro"):
            assert side(model, history=mode)[0]["history"] == (0, "paper")
    assert side("claude-x", history="turns")[1] == {"image_width": 1960, "image_height": 980}
    assert make_task(TASK, protocol="playbench").model_side() is None
    assert make_task("mmescape/level-2", protocol="playbench").model_side() is None


def test_nothing_is_declared_for_the_judge():
    effective, task_options = side("claude-x", role="judge", judge=True)
    assert task_options == {}
    assert all(source != "paper" for _, source in effective.values())


def test_the_paper_protocols_default_history_is_the_chat():
    assert make_task(TASK).config.history == "chat"
    assert make_task(TASK, protocol="playbench").config.history == "key"


# --- what the task tells the agent ------------------------------------------------------------


def started(**options) -> EscapeTask:
    task = EscapeTask(level="level-2", **options)
    task.reset(room_instance("level-2", start=(3.0, 7.5, 0.0, 0.0)))
    return task


def test_each_turn_says_how_the_previous_reply_stands_in_the_chat():
    task = started()
    obs = task.observe("player")
    assert obs.reply_in_history is None and not obs.reask
    # history=chat: only this turn's message and view, no packed past
    assert [type(p) for p in obs.parts] == [TextPart, ImagePart]
    task.step(FIRST)
    obs = task.observe("player")
    assert obs.reply_in_history == '{"rotate_right": 30, "rationale": "look at the shelf"}' and not obs.reask
    assert [type(p) for p in obs.parts] == [TextPart, ImagePart] and "[Turn" not in obs.text
    before = obs.text
    task.step(UNUSABLE)  # re-asked: no step
    obs = task.observe("player")
    assert obs.reask and obs.reply_in_history is None and obs.text == before and task.steps == 1
    task.step(UNUSABLE)
    assert task.observe("player").reask
    task.step(SECOND)
    obs = task.observe("player")
    assert not obs.reask
    assert obs.reply_in_history == '{"rationale": "regarder l\'\\u00e9tag\\u00e8re", "rotate_down": 10}'


def test_the_cleaned_reply_is_the_originals():
    task = started()
    # interactions filled with "", null keys dropped, a rotate_right above 180 moved to rotate_left
    task.step(
        '{"grab": true, "interactions": {"input": "1234"}, "read": null, "rotate_right": 200, '
        '"rationale": "try"}'
    )
    assert task.observe("player").reply_in_history == (
        '{"grab": true, "interactions": {"input": "1234", "use_item_id": ""}, "rationale": "try", '
        '"rotate_left": 20}'
    )


def test_an_unusable_reply_that_is_a_step_stays_as_sent():
    task = started(replies="step")
    task.step(UNUSABLE)
    obs = task.observe("player")
    assert task.steps == 1 and obs.reply_in_history is None and not obs.reask


@pytest.mark.parametrize("agent", ["random", "oracle"])
def test_agents_without_a_model_are_unaffected(tmp_path, agent):
    out = tmp_path / agent
    argv = ["run", TASK, "--agent", agent, "--episodes", "1", "--set", "max_steps=3", "--out", str(out)]
    assert main(argv) == 0
    assert config(out)["model_side"] == {}
    if agent == "oracle":
        (rec,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
        assert rec["success"] and rec["steps"] == rec["optimal_steps"]
