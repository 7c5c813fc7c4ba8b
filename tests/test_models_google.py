"""The Google (Gemini) provider, through the real google-genai SDK over HTTP against the scripted
server speaking Gemini's generateContent wire format."""

from __future__ import annotations

import asyncio
import gc
import io
import pickle
import re
import time
import traceback

import pytest
from google.genai import errors as genai_errors
from PIL import Image

from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, TextPart
from playbench.models import GenerationParams, Message, ModelError, get_provider, make_model
from playbench.models.base import OutputBudgetExhausted, Refused, reply_error
from playbench.models.google_provider import (
    DEFAULT_THINKING_ALLOWANCE,
    EFFORT_BUDGETS,
    OUTPUT_TOKEN_LIMIT,
    GoogleModel,
    _retry_delay,
    is_thinking_model,
)
from playbench.testing import (
    IMAGE_TOKENS,
    ScriptedFailure,
    ScriptedReply,
    ScriptedServer,
    request_media,
    unused_port,
)

SECRET = "AIza-test-SECRET-0123456789abcdef"
HELLO = [Message.text("user", "hello")]
PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^/]+):generateContent$")


def png(color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GENAI_USE_ENTERPRISE",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_GENAI_API_VERSION",
    ):
        monkeypatch.delenv(name, raising=False)


MADE: list = []


@pytest.fixture(autouse=True)
async def close_models():
    # Close every client on the loop that used it, so none is finalised later on another loop.
    yield
    while MADE:
        await MADE.pop().aclose()


def mk(srv: ScriptedServer, model: str = "gemini-2.5-flash", **kwargs) -> GoogleModel:
    kwargs.setdefault("retry_base_delay", 0.01)
    chat = make_model(f"google:{model}", base_url=srv.google_base_url, **kwargs)
    assert isinstance(chat, GoogleModel)
    MADE.append(chat)
    return chat


async def send(messages, params=None, model="gemini-2.5-flash", reply="ok"):
    with ScriptedServer(reply) as srv:
        response = await mk(srv, model).generate(messages, params or GenerationParams())
    assert len(srv.requests) == 1
    return response, srv.requests[0], srv.log[0]


def generation(body) -> dict:
    return body.get("generationConfig", {})


def thinking(body) -> dict:
    """The thinking config as sent (the SDK writes its fields in snake_case)."""
    return {
        re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): v
        for k, v in generation(body).get("thinkingConfig", {}).items()
    }


# --- the request on the wire --------------------------------------------------------------------


async def test_text_messages_roles_and_system_instruction():
    messages = [
        Message.text("system", "Rules part one."),
        Message.text("system", "Rules part two."),
        Message.text("user", "state"),
        Message.text("assistant", "move: up"),
        Message("user", [TextPart("line one"), TextPart("line two")]),
    ]
    response, body, record = await send(messages, reply="move: left")
    assert response.text == "move: left"
    match = PATH.match(record.path)
    assert match and match["model"] == "gemini-2.5-flash"
    assert "model" not in body  # the model travels in the path
    assert body["systemInstruction"]["parts"] == [{"text": "Rules part one.\n\nRules part two."}]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "state"}]},
        {"role": "model", "parts": [{"text": "move: up"}]},
        {"role": "user", "parts": [{"text": "line one\nline two"}]},
    ]
    # a custom base URL and no key: the placeholder goes in Google's key header
    assert record.headers["x-goog-api-key"] == "playbench-no-key"
    assert "authorization" not in record.headers


async def test_no_system_instruction_without_system_messages():
    _, body, _ = await send([Message.text("user", "x")])
    assert "systemInstruction" not in body and "system_instruction" not in body


async def test_images_are_inline_data_png_or_jpeg_in_order():
    a, b = png((250, 0, 0)), png((0, 0, 250))
    messages = [
        Message(
            "user",
            [TextPart("before"), ImagePart(a, label="a"), TextPart("after"), ImagePart(b, send_as="jpeg")],
        )
    ]
    _, body, _ = await send(messages)
    parts = body["contents"][0]["parts"]
    assert parts[0] == {"text": "before"} and parts[2] == {"text": "after"}
    assert "inlineData" in parts[1] and "inlineData" in parts[3]
    media = request_media(body)
    assert [m for m, _ in media] == ["image/png", "image/jpeg"]
    assert media[0][1] == a
    assert media[1][1].startswith(b"\xff\xd8") and Image.open(io.BytesIO(media[1][1])).format == "JPEG"


async def test_generation_params_are_sent_only_when_set():
    # a model that does not think by default: the cap is the answer's
    _, body, _ = await send([Message.text("user", "x")], model="gemini-2.0-flash")
    assert generation(body) == {"maxOutputTokens": 1024}
    params = GenerationParams(temperature=0.2, top_p=0.9, max_tokens=77, seed=11)
    _, body, _ = await send([Message.text("user", "x")], params, model="gemini-2.0-flash")
    assert generation(body) == {"temperature": 0.2, "topP": 0.9, "maxOutputTokens": 77, "seed": 11}
    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(max_tokens=None), "gemini-2.0-flash"
    )
    assert generation(body) == {}  # no cap: the model's own limit


async def test_a_thinking_model_gets_room_to_think_beyond_the_answer_cap():
    # Gemini 2.5+ thinks by default and its thoughts count against maxOutputTokens
    _, body, _ = await send([Message.text("user", "x")], GenerationParams(max_tokens=100))
    assert generation(body) == {"maxOutputTokens": 100 + DEFAULT_THINKING_ALLOWANCE}
    assert "thinkingConfig" not in generation(body)  # the model's own default thinking
    # ... but never past the models' output ceiling
    _, body, _ = await send([Message.text("user", "x")], GenerationParams(max_tokens=40_000))
    assert generation(body)["maxOutputTokens"] == OUTPUT_TOKEN_LIMIT
    assert is_thinking_model("models/gemini-2.5-pro") and is_thinking_model("gemini-3-pro-preview")
    assert not is_thinking_model("gemini-2.0-flash") and not is_thinking_model("gemini-2.5-flash-lite")


async def test_reasoning_tokens_are_the_thinking_budget_and_add_to_the_cap():
    params = GenerationParams(max_tokens=200, reasoning_tokens=3000)
    for model in ("gemini-2.5-flash", "gemini-3-pro-preview"):
        _, body, _ = await send([Message.text("user", "x")], params, model=model)
        assert thinking(body) == {"thinkingBudget": 3000, "includeThoughts": True}
        assert generation(body)["maxOutputTokens"] == 3200


@pytest.mark.parametrize("effort", ["none", "minimal", "low", "medium", "high"])
async def test_reasoning_effort_on_gemini_2_5_is_a_thinking_budget(effort):
    _, body, _ = await send(
        [Message.text("user", "x")], GenerationParams(max_tokens=100, reasoning_effort=effort)
    )
    if effort == "none":
        # thinking off, no thoughts asked back, and the cap is the answer's alone
        assert thinking(body) == {"thinkingBudget": 0}
        assert generation(body)["maxOutputTokens"] == 100
    else:
        assert thinking(body) == {"thinkingBudget": EFFORT_BUDGETS[effort], "includeThoughts": True}
        assert generation(body)["maxOutputTokens"] == 100 + EFFORT_BUDGETS[effort]


@pytest.mark.parametrize("effort", ["minimal", "low", "medium", "high"])
async def test_reasoning_effort_on_gemini_3_is_a_thinking_level(effort):
    _, body, _ = await send(
        [Message.text("user", "x")],
        GenerationParams(max_tokens=100, reasoning_effort=effort),
        model="gemini-3-pro-preview",
    )
    assert thinking(body) == {"thinkingLevel": effort.upper(), "includeThoughts": True}
    assert generation(body)["maxOutputTokens"] == 100 + DEFAULT_THINKING_ALLOWANCE


async def test_extra_body_is_merged_into_the_request_body():
    params = GenerationParams(
        temperature=0.5,
        extra_body={
            "generationConfig": {"topK": 7},
            "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        },
    )
    _, body, _ = await send([Message.text("user", "x")], params, model="gemini-2.0-flash")
    assert generation(body) == {"temperature": 0.5, "maxOutputTokens": 1024, "topK": 7}
    assert body["safetySettings"][0]["threshold"] == "BLOCK_NONE"


async def test_bad_messages_fail_before_any_request():
    with ScriptedServer("ok") as srv:
        model = mk(srv)
        with pytest.raises(ModelError, match="only text in the system instruction"):
            await model.generate([Message("system", [ImagePart(png())]), *HELLO], GenerationParams())
        with pytest.raises(ModelError, match="at least one user message"):
            await model.generate([Message.text("system", "only rules")], GenerationParams())
        with pytest.raises(ModelError, match="role 'tool'"):
            await model.generate([Message.text("tool", "x")], GenerationParams())
    assert srv.requests == []


# --- the reply ----------------------------------------------------------------------------------


async def test_usage_counts_thoughts_as_output_and_reasoning_text_is_kept():
    reply = ScriptedReply("action: up now", reasoning="first I look at the board", reasoning_tokens=120)
    messages = [Message.text("system", "be brief"), Message("user", [TextPart("a b c d"), ImagePart(png())])]
    with ScriptedServer([reply]) as srv:
        r = await mk(srv).generate(messages, GenerationParams(reasoning_effort="low"))
    assert r.text == "action: up now"  # the thought part is not the answer
    assert r.reasoning == "first I look at the board"
    assert r.finish_reason == "STOP"
    assert r.reasoning_tokens == 120
    assert (r.usage.input_tokens, r.usage.output_tokens) == (2 + 4 + IMAGE_TOKENS, 3 + 120)
    # priced at Google's list price, thinking billed as output
    assert r.usage.cost == pytest.approx(((2 + 4 + IMAGE_TOKENS) * 0.30 + 123 * 2.50) / 1e6)
    assert (r.usage.calls, r.usage.retries) == (1, 0)


async def test_no_thoughts_reported_means_no_reasoning_tokens():
    r, _, _ = await send(HELLO, reply="three word reply")
    assert (r.reasoning_tokens, r.reasoning, r.usage.output_tokens) == (None, None, 3)


async def test_max_tokens_with_empty_text_is_an_exhausted_budget():
    reply = ScriptedReply("", reasoning_tokens=1100, finish="length")
    r, _, _ = await send(HELLO, GenerationParams(max_tokens=50, reasoning_tokens=1000), reply=reply)
    assert (r.text, r.finish_reason, r.reasoning_tokens, r.usage.output_tokens) == (
        "",
        "MAX_TOKENS",
        1100,
        1100,
    )
    assert isinstance(reply_error(r, "google:gemini-2.5-flash"), OutputBudgetExhausted)


async def test_a_safety_stop_and_a_blocked_prompt_are_refusals_not_errors():
    with ScriptedServer([ScriptedReply("", finish="filter"), ScriptedReply(blocked="SAFETY")]) as srv:
        model = mk(srv)
        stopped = await model.generate(HELLO, GenerationParams())
        blocked = await model.generate(HELLO, GenerationParams())
    assert (stopped.text, stopped.finish_reason) == ("", "SAFETY")
    assert (blocked.text, blocked.finish_reason, blocked.usage.output_tokens) == ("", "SAFETY", 0)
    assert blocked.usage.input_tokens == 1
    for r in (stopped, blocked):
        assert isinstance(reply_error(r, "google:gemini-2.5-flash"), Refused)
    assert len(srv.requests) == 2  # answered, not retried


async def test_other_finish_reasons_pass_through_as_the_api_gives_them():
    r, _, _ = await send(HELLO, reply=ScriptedReply("partial", finish_reason="RECITATION"))
    assert (r.text, r.finish_reason) == ("partial", "RECITATION")


@pytest.mark.parametrize("fault", ["empty_choices", "truncated", "drop"])
async def test_unusable_replies_are_retried(fault):
    with ScriptedServer(["fine"], faults=[fault]) as srv:
        r = await mk(srv).generate(HELLO, GenerationParams())
    assert (r.text, r.usage.retries) == ("fine", 1)
    assert len(srv.requests) == 2


# --- errors and retries -------------------------------------------------------------------------


@pytest.mark.parametrize("failures", [[429, 500], [503, 504], [408, 502]])
async def test_retries_transient_failures_with_the_same_request(failures):
    with ScriptedServer(["finally"], failures=failures) as srv:
        r = await mk(srv).generate(HELLO, GenerationParams(temperature=0.1))
    assert (r.text, r.usage.retries, r.usage.calls) == ("finally", len(failures), 1)
    assert all(body == srv.requests[0] for body in srv.requests)


async def test_retry_after_is_honoured_from_the_header_or_the_retry_info():
    with ScriptedServer("ok", failures=[429], retry_after=0.3) as srv:
        start = time.perf_counter()
        await mk(srv, retry_base_delay=0.001).generate(HELLO, GenerationParams())
    assert time.perf_counter() - start >= 0.3
    # the Gemini API's own hint is a google.rpc.RetryInfo in the error body
    body = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}],
        }
    }
    assert _retry_delay(body) == 17.0
    model = GoogleModel("gemini-2.5-flash", base_url="http://127.0.0.1:9")
    failure = model._classify(genai_errors.ClientError(429, body, None))
    assert (failure.retryable, failure.retry_after, failure.status_code) == (True, 17.0, 429)
    assert "Resource has been exhausted (RESOURCE_EXHAUSTED)" in failure.description


async def test_gives_up_after_max_retries_with_the_server_message():
    with ScriptedServer("never", failures=[503] * 10) as srv, pytest.raises(ModelError) as err:
        await mk(srv, model="gemini-x", max_retries=2).generate(HELLO, GenerationParams())
    e = err.value
    assert (e.status_code, e.attempts, e.retryable, e.spec) == (503, 3, True, "google:gemini-x")
    assert len(srv.requests) == 3
    assert "google:gemini-x failed after 3 attempts, retries exhausted (max_retries=2)" in str(e)
    assert "HTTP 503 Service Unavailable from http://127.0.0.1:" in str(e)
    assert "scripted failure 3 of 10 (HTTP 503) (UNAVAILABLE)" in str(e)


async def test_a_400_fails_at_once_with_the_server_message():
    failure = ScriptedFailure(400, "Invalid value at 'contents[0].parts[1].inline_data'")
    with ScriptedServer("unused", faults=[failure]) as srv, pytest.raises(ModelError) as err:
        await mk(srv).generate(HELLO, GenerationParams())
    e = err.value
    assert (e.status_code, e.attempts, e.retryable) == (400, 1, False)
    assert len(srv.requests) == 1
    assert "failed after 1 attempt: HTTP 400 Bad Request from http://127.0.0.1:" in str(e)
    assert "Invalid value at 'contents[0].parts[1].inline_data' (INVALID_ARGUMENT)" in str(e)
    assert pickle.loads(pickle.dumps(e)).status_code == 400


async def test_a_request_the_server_rejects_names_its_reason():
    # The API takes a thinking level or a budget, not both; a request with both (a level from the
    # effort, a budget slipped in by extra_body) fails at once with the server's reason.
    params = GenerationParams(
        reasoning_effort="low", extra_body={"generationConfig": {"thinkingConfig": {"thinkingBudget": 5}}}
    )
    with ScriptedServer("unused") as srv, pytest.raises(ModelError, match="cannot be set at the same time"):
        await mk(srv, model="gemini-3-flash-preview").generate(HELLO, params)
    assert len(srv.requests) == 1


async def test_timeouts_and_refused_connections_are_retried_then_reported():
    with ScriptedServer("slow", latency=1.0, cycle=True) as srv, pytest.raises(ModelError) as err:
        await mk(srv, timeout=0.2, max_retries=1).generate(HELLO, GenerationParams())
    assert "timed out after 0.2s" in str(err.value) and err.value.attempts == 2
    assert len(srv.requests) == 2
    port = unused_port()
    model = make_model("google:gemini-2.5-flash", base_url=f"http://127.0.0.1:{port}", max_retries=1)
    MADE.append(model)
    with pytest.raises(ModelError) as err:
        await model.generate(HELLO, GenerationParams())
    assert (err.value.attempts, err.value.retryable, err.value.status_code) == (2, True, None)
    assert f"cannot connect to http://127.0.0.1:{port}" in str(err.value)


async def test_a_held_request_times_out_and_the_retry_gets_the_reply():
    with ScriptedServer(["after the wait"], faults=["timeout"], fault_hold=3.0) as srv:
        r = await mk(srv, timeout=0.3).generate(HELLO, GenerationParams())
    assert (r.text, r.usage.retries) == ("after the wait", 1)


# --- keys, base URLs, registry ------------------------------------------------------------------


def test_missing_key_is_a_config_error_naming_gemini_api_key():
    with pytest.raises(ConfigError) as err:
        make_model("google:gemini-2.5-flash")
    message = str(err.value)
    assert "GEMINI_API_KEY is not set" in message and "GOOGLE_API_KEY" in message
    assert len(message.splitlines()) == 1


async def test_key_from_gemini_api_key_else_google_api_key(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")
    with ScriptedServer("ok", require_key="from-google") as srv:
        assert (await mk(srv).generate(HELLO, GenerationParams())).text == "ok"
    monkeypatch.setenv("GEMINI_API_KEY", "from-gemini")  # wins when both are set
    with ScriptedServer("ok", require_key="from-gemini") as srv:
        assert (await mk(srv).generate(HELLO, GenerationParams())).text == "ok"
    assert srv.log[0].headers["x-goog-api-key"] == "from-gemini"


async def test_key_never_appears_in_errors_or_tracebacks(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    # the scripted "API key not valid" quotes the presented key, like a careless server would
    with ScriptedServer("ok", require_key="another-key") as srv:
        model = mk(srv)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, GenerationParams())
    assert srv.log[0].headers["x-goog-api-key"] == SECRET
    e = err.value
    assert e.status_code == 400 and "API key not valid" in str(e) and "[REDACTED]" in str(e)
    assert SECRET not in "".join(traceback.format_exception(e))
    assert e.__cause__ is None and e.__context__ is None
    assert SECRET not in repr(pickle.loads(pickle.dumps(e)).__dict__)
    assert SECRET not in repr(model.describe()) + repr(model)


async def test_placeholder_key_rejected_gives_a_hint():
    with (
        ScriptedServer("ok", require_key="needed") as srv,
        pytest.raises(ModelError, match=r"GEMINI_API_KEY is not set; this server seems to require a key"),
    ):
        await mk(srv).generate(HELLO, GenerationParams())


async def test_base_url_from_env_and_vertex_settings_ignored(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")  # this provider is the Gemini API only
    with ScriptedServer("from env") as srv:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", srv.google_base_url)
        model = make_model("google:gemini-2.5-flash")
        MADE.append(model)
        assert (await model.generate(HELLO, GenerationParams())).text == "from env"
        assert model.endpoint == srv.google_base_url


async def test_make_model_spec_describe_and_registry():
    with ScriptedServer("ok") as srv:
        model = make_model("google:gemini-2.5-flash", base_url=srv.google_base_url)
        MADE.append(model)
        assert isinstance(model, GoogleModel) and model.spec == "google:gemini-2.5-flash"
        assert (await model.generate(HELLO, GenerationParams())).text == "ok"
    info = model.describe()
    assert info["provider"] == "google" and info["model"] == "gemini-2.5-flash"
    assert info["price"] == {"input": 0.30, "output": 2.50}
    entry = get_provider("google")
    assert entry.load() is GoogleModel and entry.key_env == "GEMINI_API_KEY"
    assert get_provider("openai").key_env == "OPENAI_API_KEY"
    assert get_provider("anthropic").key_env == "ANTHROPIC_API_KEY"
    assert get_provider("openrouter").key_env == "OPENROUTER_API_KEY"
    assert get_provider("mock").key_env == ""


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
def test_one_model_survives_successive_event_loops():
    with ScriptedServer("ok", cycle=True) as srv:
        model = make_model("google:gemini-2.5-flash", base_url=srv.google_base_url, concurrency=2)

        async def twice(close: bool = False):
            replies = await asyncio.gather(*(model.generate(HELLO, GenerationParams()) for _ in range(2)))
            if close:
                await model.aclose()
            return [r.text for r in replies]

        # the first loop ends without aclose(): its client is abandoned quietly, a new one is made
        assert asyncio.run(twice()) == ["ok", "ok"]
        assert asyncio.run(twice(close=True)) == ["ok", "ok"]
    assert len(srv.requests) == 4
    gc.collect()


async def test_concurrency_cap_limits_requests_in_flight():
    with ScriptedServer("ok", latency=0.05, cycle=True) as srv:
        model = mk(srv, concurrency=3)
        await asyncio.gather(*(model.generate(HELLO, GenerationParams()) for _ in range(9)))
    assert srv.max_in_flight == 3
