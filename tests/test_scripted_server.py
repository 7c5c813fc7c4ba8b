"""The scripted server on its own: wire shapes, scripting, validation, concurrency, command line."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai
import pytest

from playbench.testing import (
    IMAGE_TOKENS,
    ScriptedFailure,
    ScriptedReply,
    ScriptedServer,
    estimate_tokens,
    last_user_text,
    request_images,
    request_media,
    system_text,
)
from playbench.testing.scripted_server import server_process, unused_port

ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k"}


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any], Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def chat(srv: ScriptedServer, text: str = "hi there", **extra: Any) -> tuple[int, dict[str, Any], Any]:
    body = {"model": "m", "messages": [{"role": "user", "content": text}], **extra}
    return post(f"{srv.base_url}/chat/completions", body)


def messages(srv: ScriptedServer, body: dict[str, Any], headers: dict[str, str] | None = None):
    return post(
        f"{srv.anthropic_base_url}/v1/messages", body, ANTHROPIC_HEADERS if headers is None else headers
    )


def test_openai_reply_shape_and_usage_estimate():
    with ScriptedServer(["the reply text"]) as srv:
        status, headers, body = chat(srv, "one two three")
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "the reply text",
        "refusal": None,
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}
    assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
    assert srv.anthropic_base_url == f"http://127.0.0.1:{srv.port}"


def test_anthropic_reply_shape_and_usage_estimate():
    png = b"\x89PNG\r\n\x1a\nfake"
    req = {
        "model": "claude-x",
        "max_tokens": 10,
        "system": "sys words here",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look at this"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": base64.b64encode(png).decode(),
                        },
                    },
                ],
            }
        ],
    }
    with ScriptedServer("a b") as srv:
        status, _, body = messages(srv, req)
    assert status == 200
    assert body["type"] == "message" and body["role"] == "assistant"
    assert body["content"] == [{"type": "text", "text": "a b"}]
    assert body["usage"] == {"input_tokens": 3 + 3 + IMAGE_TOKENS, "output_tokens": 2}
    assert request_images(srv.requests[0]) == [png]
    assert system_text(srv.requests[0]) == "sys words here"
    assert last_user_text(srv.requests[0]) == "look at this"


def test_list_replies_in_order_then_exhausted_is_a_loud_400():
    with ScriptedServer(["first", "second"]) as srv:
        replies = [chat(srv)[2]["choices"][0]["message"]["content"] for _ in range(2)]
        status, _, body = chat(srv)
    assert replies == ["first", "second"]
    assert status == 400
    assert "exhausted" in body["error"]["message"]
    assert body["error"]["type"] == "invalid_request_error"


def test_cycle_loops_over_replies():
    with ScriptedServer(["a", "b"], cycle=True) as srv:
        got = [chat(srv)[2]["choices"][0]["message"]["content"] for _ in range(5)]
    assert got == ["a", "b", "a", "b", "a"]


def test_callable_responder_sees_the_request():
    with ScriptedServer(lambda req: last_user_text(req).upper()) as srv:
        assert chat(srv, "shout this")[2]["choices"][0]["message"]["content"] == "SHOUT THIS"


def test_callable_can_fail_on_purpose_and_a_crash_is_a_400():
    def responder(req: dict[str, Any]) -> str:
        text = last_user_text(req)
        if text == "limit":
            raise ScriptedFailure(429, "slow down")
        if text == "crash":
            raise ValueError("bug in test")
        return "ok"

    with ScriptedServer(responder) as srv:
        status, _, body = chat(srv, "limit")
        assert (status, body["error"]["message"], body["error"]["type"]) == (429, "slow down", "requests")
        status, _, body = chat(srv, "crash")
        assert status == 400 and "ValueError: bug in test" in body["error"]["message"]
        assert chat(srv, "fine")[0] == 200


def test_failures_come_first_in_provider_error_formats_and_are_recorded():
    with ScriptedServer("ok", failures=[429, 500, 529], retry_after=2) as srv:
        s1, h1, b1 = chat(srv)
        s2, _, b2 = chat(srv)
        s3, _, b3 = messages(
            srv, {"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
        )
        s4, _, _ = chat(srv)
        assert len(srv.requests) == 4  # failed requests are recorded too
    assert (s1, b1["error"]["type"], b1["error"]["code"]) == (429, "requests", "rate_limit_exceeded")
    assert h1["Retry-After"] == "2"
    assert "scripted failure 1 of 3" in b1["error"]["message"]
    assert (s2, b2["error"]["type"]) == (500, "server_error")
    assert (s3, b3["type"], b3["error"]["type"]) == (529, "error", "overloaded_error")
    assert s4 == 200


def test_require_key_rejects_other_keys_and_quotes_them():
    with ScriptedServer("ok", require_key="right") as srv:
        req = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
        status, _, body = post(f"{srv.base_url}/chat/completions", req, {"Authorization": "Bearer wrong"})
        assert status == 401 and body["error"]["code"] == "invalid_api_key"
        assert "wrong" in body["error"]["message"]
        assert post(f"{srv.base_url}/chat/completions", req, {"Authorization": "Bearer right"})[0] == 200
        anth = {"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
        status, _, body = messages(srv, anth, {"anthropic-version": "2023-06-01", "x-api-key": "nope"})
        assert status == 401 and body["error"]["type"] == "authentication_error"
        assert messages(srv, anth, {"anthropic-version": "2023-06-01", "x-api-key": "right"})[0] == 200


GOOD_PNG = base64.b64encode(b"png").decode()


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
        ({"model": "m", "messages": []}, "non-empty"),
        ({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, "role"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}, "stream"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": 0}, "max_tokens"),
        (
            {
                "model": "m",
                "messages": [
                    {
                        "role": "system",
                        "content": [
                            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
                        ],
                    }
                ],
            },
            "only allowed",
        ),
        (
            {
                "model": "m",
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}],
                    }
                ],
            },
            "base64",
        ),
        ({"model": "m", "messages": [{"role": "user", "content": [{"type": "image", "data": "x"}]}]}, "type"),
    ],
)
def test_openai_validation(body, fragment):
    with ScriptedServer("ok") as srv:
        status, _, reply = post(f"{srv.base_url}/chat/completions", body)
    assert status == 400
    assert fragment in reply["error"]["message"]


@pytest.mark.parametrize(
    ("body", "headers", "fragment"),
    [
        (
            {"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
            {},
            "anthropic-version",
        ),
        ({"model": "c", "messages": [{"role": "user", "content": "x"}]}, None, "max_tokens"),
        (
            {"model": "c", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
            None,
            "top-level `system`",
        ),
        (
            {
                "model": "c",
                "max_tokens": 5,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/bmp", "data": GOOD_PNG},
                            }
                        ],
                    }
                ],
            },
            None,
            "media_type",
        ),
        (
            {
                "model": "c",
                "max_tokens": 5,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": "!!"},
                            }
                        ],
                    }
                ],
            },
            None,
            "base64",
        ),
        (
            {
                "model": "c",
                "max_tokens": 5,
                "system": [{"type": "image"}],
                "messages": [{"role": "user", "content": "x"}],
            },
            None,
            "system",
        ),
    ],
)
def test_anthropic_validation(body, headers, fragment):
    with ScriptedServer("ok") as srv:
        status, _, reply = messages(srv, body, headers)
    assert status == 400
    assert reply["type"] == "error" and reply["error"]["type"] == "invalid_request_error"
    assert fragment in reply["error"]["message"]


def test_bad_json_and_unknown_paths():
    with ScriptedServer("ok") as srv:
        status, _, body = post(f"{srv.base_url}/chat/completions", b"{not json")
        assert status == 400 and "not valid JSON" in body["error"]["message"]
        status, _, body = post(f"{srv.base_url}/completions", {"prompt": "x"})
        assert status == 404
        assert srv.requests == [None]  # only model endpoints count as model requests


def test_models_endpoint_in_both_formats_and_through_the_sdk():
    with ScriptedServer("ok", models=["a", "b"]) as srv:
        with urllib.request.urlopen(f"{srv.base_url}/models", timeout=5) as resp:
            assert [m["id"] for m in json.loads(resp.read())["data"]] == ["a", "b"]
        req = urllib.request.Request(f"{srv.base_url}/models", headers={"anthropic-version": "2023-06-01"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            listing = json.loads(resp.read())
        assert listing["has_more"] is False and listing["data"][0]["type"] == "model"
        client = openai.OpenAI(api_key="k", base_url=srv.base_url, max_retries=0)
        assert [m.id for m in client.models.list()] == ["a", "b"]
        client.close()
        assert srv.requests == []  # listing models is not a model request


def test_32_concurrent_requests_are_not_serialised():
    latency, n = 0.05, 32
    with ScriptedServer("ok", latency=latency, cycle=True) as srv:
        barrier = threading.Barrier(n)

        def one(_: int) -> int:
            barrier.wait()
            return chat(srv)[0]

        with ThreadPoolExecutor(n) as pool:
            statuses = list(pool.map(one, range(n)))
    assert statuses == [200] * n
    # observed at the server rather than timed: serialised handling would never exceed 1
    assert srv.max_in_flight >= n // 2


def test_requests_is_a_thread_safe_copy():
    with ScriptedServer("ok", cycle=True) as srv:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: chat(srv, f"msg {i}"), range(40)))
        got = srv.requests
        got.clear()
        assert len(srv.requests) == 40
        assert sorted(last_user_text(r) for r in srv.requests) == sorted(f"msg {i}" for i in range(40))
        assert srv.replies_served == 40


def test_lifecycle():
    srv = ScriptedServer("ok")
    with pytest.raises(RuntimeError, match="never started"):
        _ = srv.base_url
    with srv:
        port = srv.port
        assert chat(srv)[0] == 200
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)


def test_empty_reply_list_is_rejected():
    with pytest.raises(ValueError):
        ScriptedServer([])


def test_estimate_tokens_is_word_count():
    assert estimate_tokens("  a  b\nc ") == 3
    assert estimate_tokens("") == 0


def test_command_line_demo():
    port = unused_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-W",
            "error::RuntimeWarning",
            "-m",
            "playbench.testing.scripted_server",
            "--port",
            str(port),
            "--reply",
            "action: up",
            "--reply",
            "action: down",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()
        assert f"127.0.0.1:{port}" in line, line + proc.stderr.read()
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "go"}]}
        got = [post(url, body)[2]["choices"][0]["message"]["content"] for _ in range(3)]
        assert got == ["action: up", "action: down", "action: up"]
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # also closes the pipes


def test_server_process_serves_from_its_own_process_and_stops():
    with server_process(["from afar"], latency=0.0) as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "from afar"
    with pytest.raises(openai.APIConnectionError):  # the process is gone with the block
        openai.OpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=2).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )


# --- scripted replies beyond text, on every wire -------------------------------------------------

GOOGLE_HEADERS = {"x-goog-api-key": "k"}


def generate(srv: ScriptedServer, body: dict[str, Any], model: str = "gemini-2.5-flash", **kw: Any):
    headers = kw.pop("headers", GOOGLE_HEADERS)
    version = kw.pop("version", "v1beta")
    return post(f"{srv.google_base_url}/{version}/models/{model}:generateContent", body, headers)


def gemini_body(text: str = "hi there", **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}], **extra}


def test_google_reply_shape_usage_and_helpers():
    png = b"\x89PNG\r\n\x1a\nfake"
    body = {
        "systemInstruction": {"role": "user", "parts": [{"text": "sys words here"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "earlier"}]},
            {"role": "model", "parts": [{"text": "ok"}]},
            {
                "role": "user",
                "parts": [
                    {"text": "look at this"},
                    # snake_case inside camelCase, as google-genai sends it
                    {"inlineData": {"mime_type": "image/png", "data": base64.b64encode(png).decode()}},
                ],
            },
        ],
        "generation_config": {"maxOutputTokens": 10, "thinkingConfig": {"include_thoughts": True}},
    }
    with ScriptedServer("a b") as srv:
        status, headers, reply = generate(srv, body, model="llama3.2:3b", version="v1")
    assert status == 200 and headers["x-goog-request-id"] == "req_scripted_1"
    assert reply["candidates"] == [
        {"index": 0, "content": {"role": "model", "parts": [{"text": "a b"}]}, "finishReason": "STOP"}
    ]
    p = 3 + 1 + 1 + 3 + IMAGE_TOKENS
    assert reply["usageMetadata"] == {
        "promptTokenCount": p,
        "candidatesTokenCount": 2,
        "totalTokenCount": p + 2,
    }
    assert reply["modelVersion"] == "llama3.2:3b"
    sent = srv.requests[0]
    assert "model" not in sent  # recorded as received
    assert request_images(sent) == [png] and request_media(sent) == [("image/png", png)]
    assert system_text(sent) == "sys words here" and last_user_text(sent) == "look at this"


def test_google_scripted_replies_thoughts_length_safety_and_blocks():
    replies = [
        ScriptedReply("the answer", reasoning="thinking it over", reasoning_tokens=30),
        ScriptedReply("", reasoning_tokens=50, finish="length"),
        ScriptedReply("", finish="filter"),
        ScriptedReply(blocked="PROHIBITED_CONTENT"),
        {"text": "partial", "finish_reason": "RECITATION"},
    ]
    with ScriptedServer(replies) as srv:
        thought, cut, unsafe, blocked, recited = (generate(srv, gemini_body("one two"))[2] for _ in replies)
    assert thought["candidates"][0]["content"]["parts"] == [
        {"text": "thinking it over", "thought": True},
        {"text": "the answer"},
    ]
    assert thought["usageMetadata"] == {
        "promptTokenCount": 2,
        "candidatesTokenCount": 2,
        "thoughtsTokenCount": 30,
        "totalTokenCount": 34,
    }
    # cut while thinking: no parts, no answer tokens (a zero count is left out)
    assert cut["candidates"][0] == {"index": 0, "content": {"role": "model"}, "finishReason": "MAX_TOKENS"}
    assert cut["usageMetadata"] == {"promptTokenCount": 2, "thoughtsTokenCount": 50, "totalTokenCount": 52}
    assert "content" not in unsafe["candidates"][0] and unsafe["candidates"][0]["finishReason"] == "SAFETY"
    assert unsafe["candidates"][0]["safetyRatings"][0]["blocked"] is True
    assert "candidates" not in blocked and blocked["promptFeedback"]["blockReason"] == "PROHIBITED_CONTENT"
    assert blocked["usageMetadata"] == {"promptTokenCount": 2, "totalTokenCount": 2}
    assert recited["candidates"][0]["finishReason"] == "RECITATION"


def test_google_errors_keys_and_faults():
    with ScriptedServer("ok", failures=[429, 503], retry_after=2, faults=["empty_choices"]) as srv:
        s1, h1, b1 = generate(srv, gemini_body())
        s2, _, b2 = generate(srv, gemini_body())
        s3, _, b3 = generate(srv, gemini_body())
        s4, _, b4 = generate(srv, gemini_body(), headers={})  # no key at all
        s5, _, b5 = post(f"{srv.google_base_url}/v1/models/m:generateContent?key=k", gemini_body())
        s6, _, b6 = post(
            f"{srv.google_base_url}/v1/models/m:streamGenerateContent?alt=sse", gemini_body(), GOOGLE_HEADERS
        )
    assert (s1, b1["error"]["status"], b1["error"]["code"], h1["Retry-After"]) == (
        429,
        "RESOURCE_EXHAUSTED",
        429,
        "2",
    )
    assert b1["error"]["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
    ]
    assert (s2, b2["error"]["status"]) == (503, "UNAVAILABLE")
    # empty: neither candidates nor the prompt feedback that would explain their absence
    assert s3 == 200 and "candidates" not in b3 and "promptFeedback" not in b3
    assert (s4, b4["error"]["status"]) == (403, "PERMISSION_DENIED")
    assert s5 == 200 and b5["candidates"][0]["content"]["parts"] == [{"text": "ok"}]
    assert s6 == 400 and "does not stream" in b6["error"]["message"]
    with ScriptedServer("ok", require_key="right") as srv:
        status, _, body = generate(srv, gemini_body(), headers={"x-goog-api-key": "wrong"})
        assert (status, body["error"]["status"]) == (400, "INVALID_ARGUMENT")
        assert "API key not valid" in body["error"]["message"] and "wrong" in body["error"]["message"]
        assert generate(srv, gemini_body(), headers={"x-goog-api-key": "right"})[0] == 200


GOOD_B64 = base64.b64encode(b"png").decode()


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({}, "contents is not specified"),
        ({"contents": []}, "contents is not specified"),
        ({"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]}, "valid role: user, model"),
        ({"contents": [{"role": "system", "parts": [{"text": "x"}]}]}, "valid role: user, model"),
        ({"contents": [{"role": "user", "parts": []}]}, "parts must not be empty"),
        ({"contents": [{"role": "user", "content": "x"}]}, 'Unknown name "content"'),
        ({"contents": [{"parts": [{"text": "x", "inlineData": {}}]}]}, "oneof field 'data'"),
        ({"contents": [{"parts": [{"type": "text", "text": "x"}]}]}, 'Unknown name "type"'),
        ({"contents": [{"parts": [{"text": 3}]}]}, "TYPE_STRING"),
        (
            {"contents": [{"parts": [{"inlineData": {"mimeType": "image/bmp", "data": GOOD_B64}}]}]},
            "Unsupported MIME type: image/bmp",
        ),
        (
            {"contents": [{"parts": [{"inline_data": {"mime_type": "image/png", "data": "@@@"}}]}]},
            "Base64 decoding failed",
        ),
        (
            {"contents": [{"parts": [{"inlineData": {"data": GOOD_B64}}]}]},
            "mime_type: a MIME type is required",
        ),
        (
            gemini_body(
                systemInstruction={"parts": [{"inlineData": {"mimeType": "image/png", "data": GOOD_B64}}]}
            ),
            "text parts only",
        ),
        (gemini_body(system="be brief"), 'Unknown name "system"'),
        (gemini_body(messages=[]), 'Unknown name "messages"'),
        (gemini_body(generationConfig={"max_tokens": 5}), 'Unknown name "max_tokens"'),
        (gemini_body(generationConfig={"maxOutputTokens": 0}), "max_output_tokens: must be an integer >= 1"),
        (gemini_body(generationConfig={"temperature": 3}), "temperature: must be in [0, 2]"),
        (gemini_body(generationConfig={"top_p": 1.5}), "top_p: must be in [0, 1]"),
        (gemini_body(thinkingConfig={"thinkingBudget": 5}), 'Unknown name "thinkingConfig"'),
        (
            gemini_body(generationConfig={"thinkingConfig": {"thinking_budget": 5, "thinkingLevel": "low"}}),
            "cannot be set at the same time",
        ),
        (gemini_body(generationConfig={"thinkingConfig": {"thinkingLevel": "extreme"}}), "thinking_level"),
        (gemini_body(generationConfig={"thinkingConfig": {"thinkingBudget": -2}}), "thinking_budget"),
        (gemini_body(generationConfig={"thinkingConfig": {"includeThoughts": "yes"}}), "include_thoughts"),
    ],
)
def test_google_validation(body, fragment):
    with ScriptedServer("ok") as srv:
        status, _, reply = generate(srv, body)
    assert status == 400 and reply["error"]["status"] == "INVALID_ARGUMENT"
    assert fragment in reply["error"]["message"]


def test_google_accepts_valid_thinking_configs_in_either_casing():
    configs = [
        {"thinkingConfig": {"thinkingBudget": 0}},
        {"thinking_config": {"thinking_budget": -1, "include_thoughts": True}},
        {"thinkingConfig": {"thinkingLevel": "low"}},
        {"thinkingConfig": {"thinking_level": "HIGH", "includeThoughts": False}},
    ]
    with ScriptedServer("ok", cycle=True) as srv:
        for config in configs:
            assert generate(srv, gemini_body(generationConfig=config))[0] == 200


def test_openai_scripted_replies_length_reasoning_filter_refusal():
    replies = [
        ScriptedReply("", reasoning_tokens=64, finish="length"),
        ScriptedReply("answer", reasoning="hidden steps here"),
        ScriptedReply("partial", finish="filter"),
        ScriptedReply("I can't help with that.", finish="refusal"),
        ScriptedReply(blocked="SAFETY"),
    ]
    with ScriptedServer(replies) as srv:
        cut, reasoned, filtered, refused, blocked = (chat(srv, "one two")[2] for _ in replies)
    assert cut["choices"][0]["finish_reason"] == "length" and cut["choices"][0]["message"]["content"] == ""
    assert cut["usage"] == {
        "prompt_tokens": 2,
        "completion_tokens": 64,
        "total_tokens": 66,
        "completion_tokens_details": {"reasoning_tokens": 64},
    }
    assert reasoned["choices"][0]["message"]["reasoning_content"] == "hidden steps here"
    assert reasoned["usage"]["completion_tokens"] == 1 + 3
    assert reasoned["usage"]["completion_tokens_details"] == {"reasoning_tokens": 3}
    assert filtered["choices"][0]["finish_reason"] == "content_filter"
    message = refused["choices"][0]["message"]
    assert (message["content"], message["refusal"]) == (None, "I can't help with that.")
    assert refused["choices"][0]["finish_reason"] == "stop"
    assert blocked["choices"][0]["finish_reason"] == "content_filter"


def test_anthropic_scripted_replies_max_tokens_thinking_and_refusal():
    replies = [
        ScriptedReply("", reasoning="thinking", reasoning_tokens=40, finish="length"),
        ScriptedReply("", finish="length"),
        ScriptedReply("", finish="refusal"),
        ScriptedReply("answer", reasoning="a b c"),
        "",
    ]
    body = {"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    with ScriptedServer(replies) as srv:
        thought_cut, cut, refused, reasoned, empty = (messages(srv, body)[2] for _ in replies)
    assert thought_cut["stop_reason"] == "max_tokens"
    assert [b["type"] for b in thought_cut["content"]] == ["thinking"]
    assert thought_cut["usage"]["output_tokens"] == 40
    assert (cut["content"], cut["stop_reason"]) == ([], "max_tokens")
    assert (refused["content"], refused["stop_reason"]) == ([], "refusal")
    assert [b["type"] for b in reasoned["content"]] == ["thinking", "text"]
    assert reasoned["usage"]["output_tokens"] == 1 + 3
    # a plain empty string still reads as before: an empty text block that ended normally
    assert (empty["content"], empty["stop_reason"]) == ([{"type": "text", "text": ""}], "end_turn")


async def test_scripted_finishes_reach_the_providers_through_their_sdks(monkeypatch):
    from playbench.models import GenerationParams, Message, make_model
    from playbench.models.base import OutputBudgetExhausted, Refused, reply_error

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    replies = [
        ScriptedReply("", reasoning_tokens=99, finish="length"),
        ScriptedReply("", finish="filter"),
        ScriptedReply("no", finish="refusal"),
    ]
    hello = [Message.text("user", "hello")]
    for spec, url in (("openai:o4-mini", "base_url"), ("anthropic:claude-x", "anthropic_base_url")):
        with ScriptedServer(replies) as srv:
            model = make_model(spec, base_url=getattr(srv, url), max_retries=0)
            cut, filtered, refused = [await model.generate(hello, GenerationParams()) for _ in replies]
            await model.aclose()
        assert isinstance(reply_error(cut, spec), OutputBudgetExhausted), spec
        assert isinstance(reply_error(filtered, spec), Refused) and isinstance(
            reply_error(refused, spec), Refused
        )
        if spec.startswith("openai"):
            assert (cut.reasoning_tokens, cut.usage.output_tokens) == (99, 99)
            assert refused.text == "no"  # OpenAI's refusal field stands in for the content


def test_scripted_reply_fields_are_checked():
    with pytest.raises(ValueError, match="finish"):
        ScriptedReply("x", finish="done")
    with pytest.raises(ValueError, match="reasoning_tokens"):
        ScriptedReply("x", reasoning_tokens=-1)
    with pytest.raises(ValueError, match="blocked"):
        ScriptedReply(blocked="")
    with pytest.raises(ValueError, match="unknown ScriptedReply field"):
        ScriptedServer([{"reply": "x"}])
    assert ScriptedReply("x").thinking_tokens == 0 and ScriptedReply(reasoning="a b").thinking_tokens == 2
