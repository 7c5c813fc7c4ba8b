"""Theory of Space's model side: each model's entry of the authors' base_model_config.yaml
(temperature, the whole output budget, reasoning effort, Claude's thinking budget), history 0 and
JPEG images reach the wire on an ordinary run; config.json says where each setting came from."""

from __future__ import annotations

import base64
import json
import re

import pytest

from playbench.cli import main
from playbench.core.model_side import resolve_settings
from playbench.core.registry import all_specs
from playbench.tasks.tos.model_side import TOS_MODEL_SIDE
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def explorer(request: dict) -> str:
    """Observe once, end the exploration, answer the question."""
    text = last_user_text(request)
    if "Question:" in text:
        return "Thinking.\nAnswer: north, near"
    step = int(re.search(r"Step (\d+) of", text).group(1))
    return "Let me look.\nActions: [Rotate(90), Observe()]" if step == 1 else "Done.\nActions: [Term()]"


def _run(out, model: str, base_url: str, *extra: str, task: str = "tos/pairwise-direction") -> int:
    argv = [
        "run", task, "--agent", "llm", "--model", model, "--base-url", base_url,
        "--episodes", "1", "--out", str(out), *extra,
    ]  # fmt: skip
    return main(argv)


def _seat(out, task: str = "tos/pairwise-direction") -> dict:
    record = json.loads((out / "config.json").read_text())["model_side"][task]
    assert "base_model_config.yaml" in record["declared_by"]
    return record["seats"]["player"]["settings"]


def test_every_tos_task_declares_its_model_side():
    ids = [spec.id for spec in all_specs() if spec.id.startswith("tos/")]
    assert {"tos/explore", "tos/cogmap", "tos/false-belief", "tos/view2location"} <= set(ids)
    for task_id in ids:
        assert next(s for s in all_specs() if s.id == task_id).make().model_side() is TOS_MODEL_SIDE


def test_gpt_5_2_sends_the_whole_budget_medium_effort_and_no_temperature(tmp_path):
    with ScriptedServer(explorer) as srv:
        assert _run(tmp_path / "a", "openai:gpt-5.2", srv.base_url) == 0
        bodies = list(srv.requests)
    assert len(bodies) == 3  # two exploration turns and the answer
    for body in bodies:
        assert body["max_completion_tokens"] == 32768 and "max_tokens" not in body
        assert body["reasoning_effort"] == "medium"
        assert "temperature" not in body and "top_p" not in body
    # the exploration is the task's own chat (theirs); the answer turn packs the log (ours)
    roles = [[m["role"] for m in body["messages"]] for body in bodies]
    assert roles == [["system", "user"], ["system", "user", "assistant", "user"], ["system", "user"]]
    settings = _seat(tmp_path / "a")
    assert settings["max_tokens"] == {"value": 32768, "source": "paper"}
    assert settings["reasoning_tokens"] == {"value": 0, "source": "paper"}
    assert settings["reasoning_effort"] == {"value": "medium", "source": "paper"}
    assert settings["history"] == {"value": 0, "source": "paper"}
    temperature = settings["temperature"]
    assert temperature["value"] is None and temperature["source"] == "provider rule"
    assert "1.0" in temperature["note"] and "reasoning" in temperature["note"]


def test_gpt_4_1_samples_at_zero_with_8192_tokens_and_the_user_wins(tmp_path):
    with ScriptedServer(explorer) as srv:
        assert _run(tmp_path / "b", "openai:gpt-4.1", srv.base_url) == 0
        body = srv.requests[0]
    assert (body["temperature"], body["max_tokens"]) == (0, 8192) and "reasoning_effort" not in body
    assert _seat(tmp_path / "b")["temperature"] == {"value": 0.0, "source": "paper"}
    with ScriptedServer(explorer) as srv:
        assert _run(tmp_path / "c", "openai:gpt-4.1", srv.base_url, "--temperature", "0.5") == 0
        body = srv.requests[0]
    assert (body["temperature"], body["max_tokens"]) == (0.5, 8192)
    settings = _seat(tmp_path / "c")
    assert settings["temperature"] == {"value": 0.5, "source": "user"}
    assert settings["max_tokens"]["source"] == "paper"


@pytest.mark.filterwarnings("ignore:The model .claude-sonnet-4-5. is deprecated:DeprecationWarning")
def test_claude_sonnet_4_5_thinks_30000_inside_32768(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    with ScriptedServer(explorer) as srv:
        assert _run(tmp_path / "d", "anthropic:claude-sonnet-4-5", srv.anthropic_base_url) == 0
        body = srv.requests[0]
    assert body["max_tokens"] == 32768
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 30000}
    assert body["temperature"] == 1.0  # thinking takes temperature 1, theirs
    settings = _seat(tmp_path / "d")
    assert settings["temperature"] == {"value": 1.0, "source": "paper"}
    assert settings["reasoning_tokens"] == {"value": 30000, "source": "paper"}


def test_vision_images_go_as_jpeg_without_detail(tmp_path):
    with ScriptedServer(explorer) as srv:
        vision = ("--set", "modality=vision", "--set", "image_size=128")
        code = _run(tmp_path / "e", "openai:gpt-4.1", srv.base_url, *vision)
        bodies = list(srv.requests)
    assert code == 0
    urls = [p["image_url"] for b in bodies for p in b["messages"][-1]["content"] if p["type"] == "image_url"]
    assert urls
    for u in urls:
        assert u["url"].startswith("data:image/jpeg;base64,") and "detail" not in u
        assert base64.b64decode(u["url"].split(",", 1)[1])[:2] == b"\xff\xd8"
    assert _seat(tmp_path / "e")["image_format"] == {"value": "jpeg", "source": "paper"}


def test_a_model_their_file_does_not_list_gets_only_the_format(tmp_path):
    with ScriptedServer(explorer) as srv:
        assert _run(tmp_path / "f", "openai:scripted", srv.base_url) == 0
        body = srv.requests[0]
    assert "temperature" not in body and body["max_tokens"] == 1024
    settings = _seat(tmp_path / "f")
    assert settings["max_tokens"] == {"value": 1024, "source": "playbench default"}
    assert settings["temperature"] == {"value": None, "source": "provider default"}
    assert settings["history"]["source"] == "paper" and settings["image_format"]["source"] == "paper"


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-5", {"temperature": 1.0, "max_tokens": 32768, "reasoning_effort": "medium"}),
        ("openai:gpt-5.1", {"temperature": 1.0, "max_tokens": 32768, "reasoning_effort": "medium"}),
        ("openai:gpt-5-mini", {"temperature": 1.0, "max_tokens": 32768, "reasoning_effort": None}),
        ("openai:gpt-4.1-mini", {"temperature": 0.0, "max_tokens": 8192, "reasoning_tokens": None}),
        ("openai:o3", {"temperature": 1.0, "max_tokens": 32768, "reasoning_tokens": 0}),
        ("openai:o4-mini", {"temperature": 1.0, "max_tokens": 8192, "reasoning_tokens": 0}),
        ("openai:gemini-2.5-pro", {"temperature": 0.0, "max_tokens": 32768, "reasoning_effort": "medium"}),
        ("openai:gemini-2.5-flash", {"temperature": 0.0, "max_tokens": 8192}),
        ("openai:gemini-3-pro-preview", {"temperature": 1.0, "max_tokens": 32768, "reasoning_tokens": None}),
        ("anthropic:claude-sonnet-4-20250514", {"temperature": 0.0, "max_tokens": 16384}),
        ("openrouter:z-ai/glm-4.6v", {"temperature": 0.0, "max_tokens": 32768}),
        ("openai:GLM-4.5V", {"temperature": 0.0, "max_tokens": 16384}),
        ("openrouter:qwen/qwen3-vl-235b-a22b-thinking", {"temperature": 0.0, "max_tokens": 32768}),
        ("openai:internvl3.5-241b-a28b", {"temperature": 0.0, "max_tokens": 16384}),
        ("openai:gpt-5-chat-latest", {"temperature": None, "max_tokens": 1024, "reasoning_effort": None}),
    ],
)
def test_family_rules(model, expected):
    settings, _ = resolve_settings(TOS_MODEL_SIDE, "player", model, {})
    assert {k: settings[k].value for k in expected} == expected
