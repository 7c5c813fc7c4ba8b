"""The Anthropic provider's wire format, checked on the bodies the real SDK sent to the scripted server."""

from __future__ import annotations

import pytest

from playbench.core.types import ImagePart, TextPart
from playbench.models import GenerationParams, Message, ModelError, make_model
from playbench.testing import ScriptedServer, request_images

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


async def send(messages, params=None, reply="ok"):
    with ScriptedServer(reply) as srv:
        model = make_model("anthropic:claude-haiku-4-5", base_url=srv.anthropic_base_url)
        response = await model.generate(messages, params or GenerationParams())
        await model.aclose()
    assert len(srv.requests) == 1
    return response, srv.requests[0], srv.log[0]


async def test_system_goes_to_the_system_parameter():
    messages = [
        Message.text("system", "Rules part one."),
        Message.text("system", "Rules part two."),
        Message.text("user", "state"),
        Message.text("assistant", "move: up"),
        Message("user", [TextPart("a"), TextPart("b")]),
    ]
    response, body, record = await send(messages, reply="move: left")
    assert response.text == "move: left"
    assert record.path == "/v1/messages"
    assert body["system"] == "Rules part one.\n\nRules part two."
    assert body["messages"] == [
        {"role": "user", "content": "state"},
        {"role": "assistant", "content": "move: up"},
        {"role": "user", "content": "a\nb"},
    ]
    assert body["model"] == "claude-haiku-4-5"


async def test_no_system_parameter_without_system_messages():
    _, body, _ = await send([Message.text("user", "x")])
    assert "system" not in body


async def test_images_are_base64_blocks():
    _, body, _ = await send([Message("user", [TextPart("see"), ImagePart(PNG)])])
    content = body["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "see"}
    assert content[1]["type"] == "image"
    assert {k: v for k, v in content[1]["source"].items() if k != "data"} == {
        "type": "base64",
        "media_type": "image/png",
    }
    assert request_images(body) == [PNG]


async def test_params_max_tokens_always_sampling_when_set_and_no_seed():
    _, body, _ = await send([Message.text("user", "x")])
    assert body["max_tokens"] == 1024
    assert not {"temperature", "top_p", "seed"} & set(body)
    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(temperature=0.0, top_p=0.5, max_tokens=9, seed=4)
    )
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.0, 0.5, 9)
    assert "seed" not in body


async def test_image_in_system_or_no_user_message_fail_before_any_request():
    with ScriptedServer("ok") as srv:
        model = make_model("anthropic:claude-x", base_url=srv.anthropic_base_url)
        with pytest.raises(ModelError, match="system prompt"):
            await model.generate(
                [Message("system", [ImagePart(PNG)]), Message.text("user", "x")], GenerationParams()
            )
        with pytest.raises(ModelError, match="at least one user message"):
            await model.generate([Message.text("system", "only rules")], GenerationParams())
    assert srv.requests == []


async def test_key_from_env_is_sent_and_base_url_from_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real")
    with ScriptedServer("ok", require_key="sk-ant-real") as srv:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.anthropic_base_url)
        model = make_model("anthropic:claude-x")
        assert (await model.generate([Message.text("user", "x")], GenerationParams())).text == "ok"
        await model.aclose()
    assert "anthropic-version" in srv.log[0].headers
