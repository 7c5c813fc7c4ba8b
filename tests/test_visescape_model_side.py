"""The model side of the VisEscape tasks: what the authors' code sent, on the wire of a real run.

`playbench run` over the real openai SDK and the scripted server; the request bodies are what the
original's `inference.py` sends: no temperature, top_p or output cap, one user message per call, the
view as a JPEG data URI with `detail: "low"` for a model named "gpt" and no detail field otherwise,
captions at temperature 0 without a detail field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_visescape_agents import Oracle, kind_of, oracle_path

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.tasks.visescape import protocol as pc
from playbench.testing.scripted_server import ScriptedServer, last_user_text, request_images

STEPS = 6


def run(tmp_path: Path, *extra: str, agent: str = "visescape-base", model: str = "openai:gpt-4o", name="run"):
    """One short episode of room-01 through the CLI: (exit code, request bodies, config.json)."""
    out = tmp_path / name
    with ScriptedServer(Oracle(oracle_path(), think=agent != "visescape-base")) as srv:
        code = main(
            [
                "run",
                "visescape/room-01",
                "--agent",
                agent,
                "--model",
                model,
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--set",
                f"max_steps={STEPS}",
                "--out",
                str(out),
                *extra,
            ]
        )
        bodies = list(srv.requests)
    config = json.loads((out / "config.json").read_text()) if (out / "config.json").exists() else {}
    return code, bodies, config


def image_urls(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        part["image_url"]
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def settings(config: dict[str, Any], task: str = "visescape/room-01") -> dict[str, Any]:
    return config["model_side"][task]["seats"]["player"]["settings"]


def test_the_base_agent_sends_what_the_original_sent_to_a_gpt_model(tmp_path):
    code, bodies, config = run(tmp_path)
    assert code == 0 and len(bodies) == STEPS  # one call per step, no captions in the VLM setting
    for body in bodies:
        assert kind_of(body) == "action"
        for key in ("temperature", "top_p", "seed", "max_tokens", "max_completion_tokens"):
            assert key not in body, key
        # one user message, the text then the image, no system message (`inference.py:114-128`)
        assert [m["role"] for m in body["messages"]] == ["user"]
        assert [p["type"] for p in body["messages"][0]["content"]] == ["text", "image_url"]
        (url,) = image_urls(body)
        assert url["url"].startswith("data:image/jpeg;base64,") and url["detail"] == "low"
        (jpeg,) = request_images(body)
        assert jpeg[:3] == b"\xff\xd8\xff"  # JPEG, not resized: the room's own size
    # the recent actions of the original's prompt are there (`history` 0 is the chat, not this window)
    assert "<Recent actions(from oldest to latest)>" in last_user_text(bodies[-1])
    side = settings(config)
    assert {k: (v["value"], v["source"]) for k, v in side.items() if v["source"] == "paper"} == {
        "max_tokens": (None, "paper"),
        "history": (0, "paper"),
        "image_format": ("jpeg", "paper"),
        "image_detail": ("low", "paper"),
    }
    assert side["temperature"] == {"value": None, "source": "provider default"}
    assert "9f65b99" in config["model_side"]["visescape/room-01"]["declared_by"]


def test_another_model_gets_no_detail_field(tmp_path):
    code, bodies, config = run(tmp_path, model="openai:qwen2.5-vl-32b")
    assert code == 0 and bodies
    for body in bodies:
        (url,) = image_urls(body)
        assert url["url"].startswith("data:image/jpeg;base64,") and "detail" not in url
    assert settings(config)["image_detail"] == {"value": None, "source": "provider default"}


def test_the_command_line_wins_and_is_recorded_as_the_users(tmp_path):
    code, bodies, config = run(
        tmp_path, "--image-detail", "high", "--image-format", "png", "--max-tokens", "300"
    )
    assert code == 0 and bodies
    for body in bodies:
        (url,) = image_urls(body)
        assert url["url"].startswith("data:image/png;base64,") and url["detail"] == "high"
        assert body["max_tokens"] == 300
    side = settings(config)
    assert side["image_detail"] == {"value": "high", "source": "user"}
    assert side["image_format"] == {"value": "png", "source": "user"}
    assert side["max_tokens"] == {"value": 300, "source": "user"}


def test_visescaper_captions_at_temperature_zero_without_detail(tmp_path):
    code, bodies, _ = run(tmp_path, agent="visescape-memory")
    assert code == 0
    captions = [b for b in bodies if kind_of(b) == "caption"]
    others = [b for b in bodies if kind_of(b) != "caption"]
    assert captions and others
    for body in captions:  # the original's caption call (`utils.py:67`): temperature 0, no detail
        assert body["temperature"] == 0.0 and "max_tokens" not in body
        (url,) = image_urls(body)
        assert url["url"].startswith("data:image/jpeg;base64,") and "detail" not in url
    for body in others:
        assert "temperature" not in body and "max_tokens" not in body
        assert all(url["detail"] == "low" for url in image_urls(body))


def test_the_llm_agent_gets_the_same_model_side(tmp_path):
    code, bodies, config = run(tmp_path, agent="llm", model="openai:gpt-4o-mini")
    assert code == 0 and bodies
    for body in bodies:
        assert "temperature" not in body and "max_tokens" not in body
        assert [m["role"] for m in body["messages"]] == ["system", "user"]  # history 0: no earlier turns
        assert all(url["detail"] == "low" and "image/jpeg" in url["url"] for url in image_urls(body))
    assert settings(config)["history"] == {"value": 0, "source": "paper"}


def test_the_paper_agents_keep_no_chat_and_their_window_is_recent_actions(tmp_path):
    code, _, _ = run(tmp_path, "--history", "3", name="history")
    assert code == 2  # a one-line configuration error, before any call
    with pytest.raises(ConfigError, match="recent_actions=N"):
        from playbench.agents import parse_agent

        parse_agent("visescape-memory", "openai:gpt-4o", {"history": "all"})
    code, bodies, _ = run(tmp_path, "--agent-opt", "recent_actions=1", name="window")
    assert code == 0
    windows = [
        re.search(
            r"<Recent actions\(from oldest to latest\)>\n(.*)</Recent actions>", last_user_text(b), re.S
        )
        for b in bodies
    ]
    assert any(windows) and all(len(w.group(1).splitlines()) == 1 for w in windows if w)


def test_every_room_task_declares_the_authors_calls_and_quiz_vqa_only_its_history(tmp_path):
    from playbench.tasks.visescape.original.demo import write_demo_clone

    for task_id in ("visescape/rooms", "visescape/room-01", "visescape/original-demo"):
        assert make_task(task_id).model_side() is pc.MODEL_SIDE
    clone = str(write_demo_clone(tmp_path / "clone"))
    for task_id in ("visescape/original", "visescape/original-hint"):
        assert make_task(task_id, source=clone).model_side() is pc.MODEL_SIDE
        assert make_task(task_id).model_side() is pc.MODEL_SIDE
        with pytest.raises(ConfigError, match="give --set source=PATH"):  # no playing them without one
            make_task(task_id).preflight()
    settings_, _ = pc.MODEL_SIDE.for_seat("player", "gpt-4o-2024-08-06")
    assert settings_ == {"max_tokens": None, "history": 0, "image_format": "jpeg", "image_detail": "low"}
    assert "image_detail" not in pc.MODEL_SIDE.for_seat("player", "claude-3-5-sonnet-20241022")[0]
    # the name is matched ignoring case, as the original's `.lower()`
    assert pc.MODEL_SIDE.for_seat("player", "GPT-4o")[0]["image_detail"] == "low"
    vqa = make_task("visescape/quiz-vqa").model_side()
    assert vqa is not None and dict(vqa.settings) == {"history": 0} and not vqa.families
    assert "no VQA script" in vqa.source


def test_quiz_vqa_sends_playbench_defaults_not_the_room_agents(tmp_path):
    out = tmp_path / "vqa"
    with ScriptedServer("[Answer] 1234", cycle=True) as srv:
        code = main(
            [
                "run",
                "visescape/quiz-vqa",
                "--agent",
                "llm",
                "--model",
                "openai:gpt-4o",
                "--base-url",
                srv.base_url,
                "--episodes",
                "1",
                "--set",
                "max_steps=1",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0 and bodies
    side = json.loads((out / "config.json").read_text())["model_side"]["visescape/quiz-vqa"]
    player = side["seats"]["player"]["settings"]
    assert player["history"] == {"value": 0, "source": "paper"}
    assert player["image_format"]["source"] == "provider default"
    assert player["max_tokens"] == {"value": 1024, "source": "playbench default"}
    assert all("image/png" in url["url"] and "detail" not in url for url in image_urls(bodies[0]))


def test_captions_take_no_temperature_where_the_model_takes_none():
    from playbench.models.base import GenerationParams
    from playbench.tasks.visescape.agents import caption_params

    params = GenerationParams(max_tokens=None)
    assert caption_params(params, "openai:gpt-4o").temperature == 0.0
    assert caption_params(params, "openai:o3-mini").temperature is None
    thinking = GenerationParams(max_tokens=None, reasoning_tokens=2048)
    assert caption_params(thinking, "anthropic:claude-sonnet-4-5").temperature is None
