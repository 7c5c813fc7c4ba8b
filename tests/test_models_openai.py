"""The OpenAI provider's wire format, checked on the bodies the real SDK sent to the scripted server."""

from __future__ import annotations

import pytest

from playbench.core.types import ImagePart, TextPart
from playbench.models import GenerationParams, Message, ModelError, make_model
from playbench.testing import ScriptedServer, request_images

PNG_A = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
PNG_B = b"\x89PNG\r\n\x1a\n" + b"other image"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def send(messages, params=None, spec="openai:gpt-4o", reply="ok"):
    with ScriptedServer(reply) as srv:
        model = make_model(spec, base_url=srv.base_url)
        response = await model.generate(messages, params or GenerationParams())
        await model.aclose()
    assert len(srv.requests) == 1
    return response, srv.requests[0], srv.log[0].headers


async def test_text_messages_are_plain_strings():
    messages = [
        Message.text("system", "You play a game."),
        Message("user", [TextPart("line one"), TextPart("line two")]),
        Message.text("assistant", "move: up"),
        Message.text("user", "again"),
    ]
    response, body, _ = await send(messages, reply="move: down")
    assert response.text == "move: down"
    assert body["model"] == "gpt-4o"
    assert body["messages"] == [
        {"role": "system", "content": "You play a game."},
        {"role": "user", "content": "line one\nline two"},
        {"role": "assistant", "content": "move: up"},
        {"role": "user", "content": "again"},
    ]


async def test_images_are_png_data_uri_parts_in_order():
    messages = [
        Message(
            "user", [TextPart("before"), ImagePart(PNG_A, label="a"), TextPart("after"), ImagePart(PNG_B)]
        )
    ]
    _, body, _ = await send(messages)
    content = body["messages"][0]["content"]
    assert [p["type"] for p in content] == ["text", "image_url", "text", "image_url"]
    assert content[0] == {"type": "text", "text": "before"}
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert request_images(body) == [PNG_A, PNG_B]


async def test_generation_params_are_passed_only_when_set():
    _, body, _ = await send([Message.text("user", "x")])
    assert body["max_tokens"] == 1024
    assert not {"temperature", "top_p", "seed"} & set(body)
    params = GenerationParams(temperature=0.2, top_p=0.9, max_tokens=77, seed=11)
    _, body, _ = await send([Message.text("user", "x")], params)
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["seed"]) == (0.2, 0.9, 77, 11)


async def test_reasoning_models_get_max_completion_tokens_with_room_to_reason():
    # the cap bounds the visible answer; a reasoning model's budget adds its reasoning allowance
    from playbench.models.openai_provider import DEFAULT_REASONING_ALLOWANCE

    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(max_tokens=50), spec="openai:o4-mini"
    )
    assert body["max_completion_tokens"] == 50 + DEFAULT_REASONING_ALLOWANCE and "max_tokens" not in body
    _, body, _ = await send(
        [Message.text("user", "x")],
        GenerationParams(max_tokens=50, reasoning_tokens=300),
        spec="openai:gpt-5",
    )
    assert body["max_completion_tokens"] == 350
    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(max_tokens=None), spec="openai:gpt-5"
    )
    assert "max_completion_tokens" not in body and "max_tokens" not in body


async def test_reasoning_effort_and_extra_body_reach_the_request_body():
    params = GenerationParams(max_tokens=500, reasoning_effort="high", extra_body={"verbosity": "low"})
    _, body, _ = await send([Message.text("user", "x")], params, spec="openai:gpt-5")
    assert body["reasoning_effort"] == "high" and body["verbosity"] == "low"
    # a model with no reasoning of its own that is asked for reasoning gets the new token field too
    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(max_tokens=40, reasoning_tokens=60), spec="openai:qwen3"
    )
    assert body["max_completion_tokens"] == 100 and "reasoning_effort" not in body
    # effort none on a reasoning model: no allowance is added
    _, body, _ = await send(
        [Message.text("user", "x")],
        GenerationParams(max_tokens=40, reasoning_effort="none"),
        spec="openai:gpt-5.1",
    )
    assert body["max_completion_tokens"] == 40 and body["reasoning_effort"] == "none"


async def test_images_go_as_jpeg_with_detail_when_asked():
    import base64
    import io

    from PIL import Image

    from playbench.core.types import ImagePart, TextPart

    buf = io.BytesIO()
    Image.new("RGB", (8, 6), (200, 10, 10)).save(buf, format="PNG")
    image = ImagePart(buf.getvalue(), send_as="jpeg", detail="high")
    _, body, _ = await send([Message("user", [TextPart("look"), image])])
    part = body["messages"][0]["content"][1]["image_url"]
    assert part["detail"] == "high" and part["url"].startswith("data:image/jpeg;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(part["url"].split(",", 1)[1])))
    assert decoded.format == "JPEG" and decoded.size == (8, 6)
    _, body, _ = await send([Message("user", [TextPart("look"), ImagePart(buf.getvalue())])])
    part = body["messages"][0]["content"][1]["image_url"]
    assert "detail" not in part and part["url"].startswith("data:image/png;base64,")


async def test_local_model_name_with_colon_and_placeholder_key():
    _, body, headers = await send([Message.text("user", "x")], spec="openai:llama3.2:3b")
    assert body["model"] == "llama3.2:3b"
    assert headers["authorization"] == "Bearer playbench-no-key"


async def test_key_from_env_is_sent(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    with ScriptedServer("ok", require_key="sk-real") as srv:
        model = make_model("openai:gpt-4o", base_url=srv.base_url)
        assert (await model.generate([Message.text("user", "x")], GenerationParams())).text == "ok"
        await model.aclose()


async def test_base_url_from_env_is_used(monkeypatch):
    with ScriptedServer("from env") as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        model = make_model("openai:gpt-4o")
        assert (await model.generate([Message.text("user", "x")], GenerationParams())).text == "from env"
        await model.aclose()


async def test_unsupported_role_fails_before_any_request():
    with ScriptedServer("ok") as srv:
        model = make_model("openai:gpt-4o", base_url=srv.base_url)
        with pytest.raises(ModelError, match="role 'tool'"):
            await model.generate([Message.text("tool", "x")], GenerationParams())
    assert srv.requests == []
