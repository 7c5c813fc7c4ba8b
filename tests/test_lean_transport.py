"""The lean transport (playbench.models.lean_http) against the real SDK: same faults, same words, same
retries, same requests on the wire, same records; and the HTTP it must speak on its own (chunked and
compressed bodies, interim responses, connections closed or gone stale, proxies)."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import time
import zlib

import pytest
from PIL import Image

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, TextPart
from playbench.models import GenerationParams, Message, ModelError, make_model
from playbench.models.remote import TRANSPORT_ENV
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import ScriptedFailure, ScriptedReply, ScriptedServer, unused_port

HELLO = [Message.text("user", "hello")]
PARAMS = GenerationParams()
CLIENT_TIMEOUT = 0.3
HOLD = 1.0
RELAXED_TIMEOUT = 10.0
TRANSPORTS = ("sdk", "lean")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "OPENAI_CUSTOM_HEADERS",
        TRANSPORT_ENV,
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
    ):
        monkeypatch.delenv(name, raising=False)


MADE: list = []


@pytest.fixture(autouse=True)
async def close_models():
    yield
    while MADE:
        await MADE.pop().aclose()


def model(base_url: str, transport: str, **kwargs):
    kwargs.setdefault("retry_base_delay", 0.001)
    kwargs.setdefault("timeout", RELAXED_TIMEOUT)
    m = make_model("openai:scripted", base_url=base_url, transport=transport, **kwargs)
    MADE.append(m)
    assert m.describe()["transport"] == transport
    return m


# --- faults: the same classification, wording, retries and backoff as through the SDK -------------

FAULTS = [
    pytest.param(ScriptedFailure(429, "slow down", retry_after=0.01), id="429-retry-after"),
    pytest.param(ScriptedFailure(429, "slow down"), id="429"),
    pytest.param(500, id="500"),
    pytest.param(503, id="503"),
    pytest.param(400, id="400"),
    pytest.param("timeout", id="timeout"),
    pytest.param("drop", id="drop"),
    pytest.param("truncated", id="truncated"),
    pytest.param("empty_choices", id="empty_choices"),
]


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_persistent_fault_fails_exactly_as_through_the_sdk(fault):
    outcome = {}
    for transport in TRANSPORTS:
        with ScriptedServer("never", faults=[fault] * 3, fault_hold=HOLD) as srv:
            timeout = CLIENT_TIMEOUT if fault == "timeout" else RELAXED_TIMEOUT
            m = model(srv.base_url, transport, max_retries=2, timeout=timeout)
            with pytest.raises(ModelError) as err:
                await m.generate(HELLO, PARAMS)
            seen = len(srv.requests)
            e = err.value
            text = str(e).replace(srv.base_url, "URL")
        assert e.__context__ is None and e.__cause__ is None
        outcome[transport] = (text, e.attempts, e.retryable, e.status_code, seen)
    assert outcome["lean"] == outcome["sdk"]
    if fault != 400:
        assert outcome["lean"][1:] == (3, True, outcome["lean"][3], 3)


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.id != "400"])
async def test_a_fault_is_retried_and_counted(fault):
    with ScriptedServer(["the answer"], faults=[fault], fault_hold=HOLD) as srv:
        timeout = CLIENT_TIMEOUT if fault == "timeout" else RELAXED_TIMEOUT
        m = model(srv.base_url, "lean", max_retries=2, timeout=timeout)
        response = await m.generate(HELLO, PARAMS)
        bodies = srv.requests
    assert response.text == "the answer"
    assert (response.usage.calls, response.usage.retries) == (1, 1)
    assert len(bodies) == 2 and bodies[0] == bodies[1]


def spy_backoff(m) -> list[tuple[int, float | None]]:
    seen: list[tuple[int, float | None]] = []
    original = m._backoff

    def backoff(retry: int, retry_after: float | None) -> float:
        seen.append((retry, retry_after))
        return original(retry, retry_after)

    m._backoff = backoff
    return seen


async def test_retry_after_is_honoured_and_its_absence_backs_off():
    faults = [
        ScriptedFailure(429, retry_after=0.3),
        ScriptedFailure(429),
        ScriptedFailure(503, retry_after=0.1),
    ]
    with ScriptedServer("ok", faults=faults) as srv:
        m = model(srv.base_url, "lean", max_retries=3)
        seen = spy_backoff(m)
        start = time.perf_counter()
        response = await m.generate(HELLO, PARAMS)
        elapsed = time.perf_counter() - start
    assert seen == [(1, 0.3), (2, None), (3, 0.1)]
    assert response.usage.retries == 3 and elapsed >= 0.4


async def test_connection_refused_and_unknown_host_are_clear():
    port = unused_port()
    outcome = {}
    for transport in TRANSPORTS:
        m = model(f"http://127.0.0.1:{port}/v1", transport, max_retries=1)
        with pytest.raises(ModelError) as err:
            await m.generate(HELLO, PARAMS)
        e = err.value
        head = str(e).split(" (ConnectError")[0]  # the SDK's detail is anyio's, ours names the errno
        outcome[transport] = (head, e.attempts, e.retryable, e.status_code)
        if transport == "lean":
            assert "Connect call failed" in str(e) or "Connection refused" in str(e)
    assert outcome["lean"] == outcome["sdk"]
    assert f"cannot connect to http://127.0.0.1:{port}/v1/" in outcome["lean"][0]
    assert outcome["lean"][1:] == (2, True, None)

    m = model("http://no-such-host.invalid/v1", "lean", max_retries=0)
    with pytest.raises(ModelError, match=r"cannot connect to http://no-such-host.invalid/v1/ \(ConnectError"):
        await m.generate(HELLO, PARAMS)
    with pytest.raises(ConfigError, match="bad base URL"):
        make_model("openai:m", base_url="ftp://127.0.0.1/v1", transport="lean")


# --- equivalence: the same requests on the wire, the same replies and records --------------------

PNG = io.BytesIO()
Image.new("RGB", (4, 4), (200, 10, 10)).save(PNG, format="PNG")

CASES = [
    pytest.param(HELLO, GenerationParams(temperature=0.2, top_p=0.9, seed=3), "plain", id="plain"),
    pytest.param(
        [Message.text("system", "rules é ✓"), Message("user", [TextPart("look"), ImagePart(PNG.getvalue())])],
        GenerationParams(max_tokens=None, extra_body={"top_k": 5, "temperature": 0.5}),
        "image",
        id="image-extra-body",
    ),
    pytest.param(
        HELLO,
        GenerationParams(reasoning_effort="high", reasoning_tokens=100),
        ScriptedReply("42", reasoning="think think", reasoning_tokens=7),
        id="reasoning",
    ),
    pytest.param(HELLO, PARAMS, ScriptedReply("I cannot help", finish="refusal"), id="refusal"),
    pytest.param(HELLO, PARAMS, ScriptedReply("", finish="length"), id="length"),
    pytest.param(HELLO, PARAMS, ScriptedReply("", finish="filter"), id="filter"),
]


@pytest.mark.parametrize(("messages", "params", "reply"), CASES)
async def test_same_request_and_reply_through_both(messages, params, reply):
    seen = {}
    for transport in TRANSPORTS:
        with ScriptedServer([reply]) as srv:
            r = await model(srv.base_url, transport).generate(messages, params)
            seen[transport] = (
                srv.requests[0],
                r.text,
                r.usage,
                r.reasoning_tokens,
                r.reasoning,
                r.finish_reason,
            )
            headers = srv.log[0].headers
        assert headers["authorization"] == "Bearer playbench-no-key"
        assert headers["content-type"] == "application/json"
    assert seen["lean"] == seen["sdk"]


async def test_key_and_openai_header_variables_reach_the_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Gateway: blue\nX-Team: red")
    names = ("authorization", "openai-organization", "openai-project", "x-gateway", "x-team")
    seen = {}
    for transport in TRANSPORTS:
        with ScriptedServer("ok") as srv:
            await model(srv.base_url, transport).generate(HELLO, PARAMS)
            seen[transport] = [srv.log[0].headers.get(n) for n in names]
    assert seen["lean"] == seen["sdk"] == ["Bearer sk-secret", "org-1", "proj-1", "blue", "red"]


def walker(request: dict) -> str:
    import re

    pos, target = map(int, re.search(r"position (\d+), target (\d+)", json.dumps(request)).groups())
    return f"I am at {pos} and want {target}.\naction: {'right' if target > pos else 'left'}"


VOLATILE = {
    "latency_s",
    "started_at",
    "finished_at",
    "duration_s",
    "wall_s",
    "elapsed_s",
    "time",
    "timestamp",
}


def stable(value):
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def run_files(out) -> dict[str, list]:
    files = {}
    for path in sorted([out / "episodes.jsonl", *(out / "trajectories").rglob("*.jsonl")]):
        files[str(path.relative_to(out))] = [stable(json.loads(x)) for x in path.read_text().splitlines()]
    return files


def test_same_episodes_through_both_give_the_same_wire_and_records(tmp_path, monkeypatch):
    faults = [ScriptedFailure(429, retry_after=0.01), None, "drop", None, "no_action"]
    seen = {}
    for transport in TRANSPORTS:
        monkeypatch.setenv(TRANSPORT_ENV, transport)
        out = tmp_path / transport
        with ScriptedServer(walker, faults=faults) as srv:
            settings = ModelSettings(base_url=srv.base_url, concurrency=1, retry_base_delay=0.01)
            cfg = RunConfig(
                ["toy/walk"], {"*": AgentSpec("llm", "openai:s")}, str(out), episodes=3, models=settings
            )
            asyncio.run(execute(cfg))
            seen[transport] = (srv.requests, run_files(out))
        # the run's models say which transport carried them (config.json does not hold describe() yet)
        assert ModelPool(settings).get("openai:s").describe()["transport"] == transport
    (sdk_wire, sdk_files), (lean_wire, lean_files) = seen["sdk"], seen["lean"]
    assert lean_wire == sdk_wire and len(lean_wire) >= 6
    assert lean_files == sdk_files and any(k.endswith(".calls.jsonl") for k in lean_files)
    retries = [r["usage"]["retries"] for r in lean_files["episodes.jsonl"]]
    assert sum(retries) == 2


# --- the transport setting -----------------------------------------------------------------------


def test_the_setting_and_its_variable(monkeypatch):
    url = "http://127.0.0.1:9/v1"
    assert make_model("openai:m", base_url=url).describe()["transport"] == "lean"
    assert make_model("openrouter:a/b", base_url=url).describe()["transport"] == "lean"
    # Anthropic keeps its SDK: asking for lean everywhere is not an error there
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert make_model("anthropic:c", transport="lean").describe()["transport"] == "sdk"
    with pytest.raises(ConfigError, match=r"unknown transport setting 'fast' \(accepted: lean, sdk\)"):
        make_model("openai:m", base_url=url, transport="fast")
    monkeypatch.setenv(TRANSPORT_ENV, "sdk")
    assert make_model("openai:m", base_url=url).describe()["transport"] == "sdk"
    assert make_model("openai:m", base_url=url, transport="lean").describe()["transport"] == "lean"
    monkeypatch.setenv(TRANSPORT_ENV, "quick")
    with pytest.raises(ConfigError, match=f"unknown {TRANSPORT_ENV} 'quick'"):
        make_model("openai:m", base_url=url)


def test_the_default_is_lean_for_a_named_server_and_the_sdk_for_the_providers_api(monkeypatch):
    monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENROUTER_API_KEY", "k")
    assert make_model("openai:gpt-4o").describe()["transport"] == "sdk"
    assert make_model("openai:gpt-4o", base_url="https://api.openai.com/v1").describe()["transport"] == "sdk"
    assert make_model("openrouter:a/b").describe()["transport"] == "sdk"
    assert make_model("openai:gpt-4o", transport="lean").describe()["transport"] == "lean"
    assert make_model("openai:q@http://localhost:8000/v1").describe()["transport"] == "lean"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1")
    assert make_model("openai:q").describe()["transport"] == "lean"


def test_a_proxy_it_cannot_speak_leaves_the_default_on_the_sdk(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert make_model("openai:gpt-4o", base_url="https://example.org/v1").describe()["transport"] == "sdk"
    with pytest.raises(ConfigError, match="only http:// proxies are supported"):
        make_model("openai:gpt-4o", transport="lean")
    monkeypatch.setenv("NO_PROXY", "api.openai.com")
    assert make_model("openai:gpt-4o", transport="lean").describe()["transport"] == "lean"


# --- HTTP the scripted server does not speak: a tiny server of our own ---------------------------

REPLY = {
    "id": "x",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}


class RawServer:
    """Answers each request with the next mode's bytes; counts connections and requests."""

    def __init__(self, modes: list[str]) -> None:
        self.modes, self.connections, self.requests = list(modes), 0, []

    def response(self, mode: str) -> tuple[bytes, bool]:
        body = json.dumps(REPLY).encode()
        if mode == "chunked":
            chunks = b"".join(
                b"%x;ext=1\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7])
                for i in range(0, len(body), 7)
            )
            return (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunks
                + b"0\r\nX-Trailer: t\r\n\r\n",
                True,
            )
        if mode == "gzip":
            data = gzip.compress(body)
            return b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (
                len(data),
                data,
            ), True
        if mode == "deflate":
            data = zlib.compress(body)
            return b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n%s" % (
                len(data),
                data,
            ), True
        if mode == "continue":
            head = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
            return head + body, True
        if mode == "eof":  # no length: the body ends with the connection
            return b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body, False
        if mode == "stale":  # a normal keep-alive reply, then the server drops the idle connection
            return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body), False
        if mode == "chunked-error":
            err = json.dumps({"error": {"message": "overloaded"}}).encode()
            return (
                b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"
                % (len(err), err),
                True,
            )
        raise AssertionError(mode)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                self.requests.append(json.loads(await reader.readexactly(length)))
                data, keep = self.response(self.modes.pop(0))
                writer.write(data)
                await writer.drain()
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def test_chunked_compressed_interim_and_unframed_bodies():
    modes = ["chunked", "gzip", "deflate", "continue", "chunked-error", "chunked", "eof", "stale", "chunked"]
    raw = RawServer(modes)
    server = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        m = model(f"http://127.0.0.1:{port}/v1", "lean", max_retries=1)
        texts, retries = [], []
        for _ in range(8):
            r = await m.generate(HELLO, PARAMS)
            texts.append(r.text)
            retries.append(r.usage.retries)
            await asyncio.sleep(0.05)  # lets the "stale" close arrive before the next call
    assert texts == ["fine"] * 8 and (r.usage.input_tokens, r.usage.output_tokens) == (3, 1)
    assert retries == [0, 0, 0, 0, 1, 0, 0, 0]  # the chunked 503 was read, classified, retried
    assert raw.modes == [] and len(raw.requests) == 9
    # one keep-alive connection until the unframed reply, one for the stale one, one after it
    assert raw.connections == 3


async def test_an_http_proxy_from_the_environment(monkeypatch):
    forwarded: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        body = await reader.readexactly(length)
        forwarded.append(head)
        line, rest = head.split(b"\r\n", 1)
        method, target, version = line.split(b" ")
        origin = target.split(b"//", 1)[1]
        host, _, path = origin.partition(b"/")
        h, p = host.split(b":")
        up_r, up_w = await asyncio.open_connection(h.decode(), int(p))
        up_w.write(b"%s /%s %s\r\nConnection: close\r\n%s%s" % (method, path, version, rest, body))
        writer.write(await up_r.read())
        await writer.drain()
        up_w.close()
        writer.close()

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://user:p%40ss@127.0.0.1:{port}")
    with ScriptedServer("through the proxy") as srv:
        async with server:
            r = await model(srv.base_url, "lean").generate(HELLO, PARAMS)
    assert r.text == "through the proxy"
    assert forwarded[0].startswith(f"POST {srv.base_url}/chat/completions HTTP/1.1".encode())
    assert b"Proxy-Authorization: Basic dXNlcjpwQHNz" in forwarded[0]  # user:p@ss
