"""iVISPAR's model side: what the authors' agents sent (500 tokens; sampling per agent family and
modality; history 0; PNG) reaches the wire on an ordinary run, and config.json says where each
setting came from."""

from __future__ import annotations

import json

import pytest

from playbench.cli import main
from playbench.core.model_side import resolve_settings
from playbench.core.registry import all_specs, get_spec
from playbench.tasks.ivispar.model_side import ivispar_model_side
from playbench.testing.scripted_server import ScriptedServer

REPLY = "The red cube goes up.\naction: move red cube up"


def _run(out, task: str, model: str, base_url: str, *extra: str) -> int:
    argv = [
        "run", task, "--agent", "llm", "--model", model, "--base-url", base_url,
        "--episodes", "1", "--out", str(out), *extra,
    ]  # fmt: skip
    return main(argv)


def _seat(out, task: str) -> dict:
    record = json.loads((out / "config.json").read_text())["model_side"][task]
    assert "agent_systems.py" in record["declared_by"]
    return record["seats"]["player"]["settings"]


def test_every_ivispar_task_declares_its_model_side():
    for spec in all_specs():
        if spec.id.startswith("ivispar/"):
            side = spec.make().model_side()
            assert side is not None and side.settings["max_tokens"] == 500, spec.id
            assert side.settings["history"] == 0 and side.settings["image_format"] == "png"


def test_gpt4o_text_run_sends_500_tokens_and_temperature_half(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(tmp_path / "a", "ivispar/sgp", "openai:gpt-4o", srv.base_url, "--set", "max_steps=2")
        bodies = list(srv.requests)
    assert code == 0 and len(bodies) == 2
    for body in bodies:
        assert body["max_tokens"] == 500 and body["temperature"] == 0.5
        assert "top_p" not in body and "max_completion_tokens" not in body
    # the task's own chat (history 0: the agent keeps none): system + step text, then the past state
    # and the action taken in it before the step text
    assert [[m["role"] for m in b["messages"]] for b in bodies] == [
        ["system", "user"],
        ["system", "user", "assistant", "user"],
    ]
    settings = _seat(tmp_path / "a", "ivispar/sgp")
    assert settings["temperature"] == {"value": 0.5, "source": "paper"}
    assert settings["max_tokens"] == {"value": 500, "source": "paper"}
    assert settings["history"] == {"value": 0, "source": "paper"}
    assert settings["image_format"] == {"value": "png", "source": "paper"}


def test_gpt4o_image_run_sends_no_temperature(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(tmp_path / "b", "ivispar/sgp-2d", "openai:gpt-4o", srv.base_url, "--set", "max_steps=1")
        (body,) = srv.requests
    assert code == 0
    assert body["max_tokens"] == 500 and "temperature" not in body
    images = [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]]
    urls = [p["image_url"] for p in images if p["type"] == "image_url"]
    assert urls and all(u["url"].startswith("data:image/png;base64,") and "detail" not in u for u in urls)
    settings = _seat(tmp_path / "b", "ivispar/sgp-2d")
    assert settings["temperature"] == {"value": None, "source": "provider default"}


def test_the_users_temperature_wins_and_says_so(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(
            tmp_path / "c", "ivispar/sgp", "openai:gpt-4o", srv.base_url, "--set", "max_steps=1",
            "--temperature", "0.2",
        )  # fmt: skip
        (body,) = srv.requests
    assert code == 0 and body["temperature"] == 0.2 and body["max_tokens"] == 500
    settings = _seat(tmp_path / "c", "ivispar/sgp")
    assert settings["temperature"] == {"value": 0.2, "source": "user"}
    assert settings["max_tokens"]["source"] == "paper"


def test_gemini_text_calls_sent_no_cap(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(
            tmp_path / "d", "ivispar/sgp", "openai:gemini-2.0-flash-exp", srv.base_url, "--set", "max_steps=1"
        )
        (body,) = srv.requests
    assert code == 0 and "max_tokens" not in body and "temperature" not in body
    assert _seat(tmp_path / "d", "ivispar/sgp")["max_tokens"] == {"value": None, "source": "paper"}


def test_claude_board_inference_takes_half_and_500(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    with ScriptedServer("Solution: a1 red cube", cycle=True) as srv:
        code = main(
            [
                "run", "ivispar/board-inference", "--agent", "llm", "--model",
                "anthropic:claude-3-5-sonnet-20241022", "--base-url", srv.anthropic_base_url,
                "--episodes", "1", "--out", str(tmp_path / "e"),
            ]
        )  # fmt: skip
        (body,) = srv.requests
    assert code == 0 and body["max_tokens"] == 500 and body["temperature"] == 0.5
    blocks = [b for b in body["messages"][-1]["content"] if b["type"] == "image"]
    assert blocks and all(b["source"]["media_type"] == "image/png" for b in blocks)


def test_open_models_sample_at_one_and_top_p(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(
            tmp_path / "f", "ivispar/sgp-3d", "openai:Qwen/Qwen2-VL-72B-Instruct", srv.base_url,
            "--set", "max_steps=1",
        )  # fmt: skip
        (body,) = srv.requests
    assert code == 0
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["top_k"]) == (1.0, 0.95, 500, 50)


@pytest.mark.parametrize(
    ("model", "vision", "expected"),
    [
        ("openai:gpt-4o", False, {"temperature": 0.5, "max_tokens": 500}),
        ("openai:gpt-4o", True, {"temperature": None, "max_tokens": 500}),
        ("anthropic:claude-3-5-sonnet-20241022", True, {"temperature": 0.5, "max_tokens": 500}),
        ("openai:gemini-2.0-flash-exp", True, {"temperature": None, "max_tokens": 500}),
        ("openai:gemini-2.0-flash-exp", False, {"temperature": None, "max_tokens": None}),
        ("openai:OpenGVLab/InternVL2_5-78B", True, {"temperature": 1.0, "top_p": 0.95}),
        ("openai:llava-hf/llava-onevision-qwen2-72b-ov-hf", False, {"temperature": 1.0, "top_p": 0.95}),
        ("openai:some-other-model", False, {"temperature": None, "top_p": None, "max_tokens": 500}),
    ],
)
def test_family_rules(model, vision, expected):
    settings, task_options = resolve_settings(ivispar_model_side(vision), "player", model, {})
    assert {k: settings[k].value for k in expected} == expected and task_options == {}


def test_board_inference_and_the_tile_puzzle_follow_their_modality():
    assert get_spec("ivispar/board-inference").make().model_side() == ivispar_model_side(True)
    assert get_spec("ivispar/stp").make().model_side() == ivispar_model_side(False)
    assert get_spec("ivispar/stp").make(modality="2d").model_side() == ivispar_model_side(True)
