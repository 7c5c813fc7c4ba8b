"""Fault injection: each way a model server can misbehave, and what the model layer and runner make of it.

Everything runs on loopback against ScriptedServer through the real SDKs, with tiny retry delays.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import pickle
import time

import pytest

from playbench.agents import AgentSpec
from playbench.core.types import Usage
from playbench.models import GenerationParams, Message, ModelError, make_model
from playbench.runner.model_pool import ModelSettings
from playbench.runner.run import RunConfig, execute
from playbench.testing.scripted_server import NO_ACTION_REPLY, ScriptedFailure, ScriptedServer

HELLO = [Message.text("user", "hello")]
PARAMS = GenerationParams()
CLIENT_TIMEOUT = 0.3
HOLD = 1.0  # a "timeout" fault holds its request this long: well past CLIENT_TIMEOUT
# Without a scripted timeout the client may wait this long: a loaded CI machine can take more than
# CLIENT_TIMEOUT to answer, and a client-side timeout there would be an extra, unscripted fault.
RELAXED_TIMEOUT = 10.0


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_AUTH_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(params=["openai", "anthropic"])
def provider(request) -> str:
    return request.param


MADE: list = []


@pytest.fixture(autouse=True)
async def close_models():
    # Close every client on the loop that used it, so none is finalised later on another loop.
    yield
    while MADE:
        await MADE.pop().aclose()


def model_for(srv: ScriptedServer, provider: str, **kwargs):
    kwargs.setdefault("retry_base_delay", 0.001)
    kwargs.setdefault("timeout", CLIENT_TIMEOUT if "timeout" in srv.faults else RELAXED_TIMEOUT)
    url = srv.base_url if provider == "openai" else srv.anthropic_base_url
    model = make_model(f"{provider}:scripted", base_url=url, **kwargs)
    MADE.append(model)
    return model


# --- the server on its own -----------------------------------------------------------------------


def raw_post(srv: ScriptedServer, protocol: str) -> tuple[int, dict[str, str], bytes]:
    """One request over a fresh connection, so a dropped connection shows as an exception here."""
    if protocol == "openai":
        path, headers = "/v1/chat/completions", {}
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    else:
        path, headers = "/v1/messages", {"anthropic-version": "2023-06-01", "x-api-key": "k"}
        body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_each_fault_on_the_wire(protocol):
    faults = [
        ScriptedFailure(429, "slow down", retry_after=2),
        ScriptedFailure(429, "slow down"),
        "truncated",
        "empty_choices",
        "no_action",
        "drop",
        None,
        503,
    ]
    with ScriptedServer(["the reply"], faults=faults, retry_after=7) as srv:
        s1, h1, b1 = raw_post(srv, protocol)
        s2, h2, _ = raw_post(srv, protocol)
        s3, h3, b3 = raw_post(srv, protocol)
        s4, _, b4 = raw_post(srv, protocol)
        s5, _, b5 = raw_post(srv, protocol)
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            raw_post(srv, protocol)
        s7, _, b7 = raw_post(srv, protocol)
        s8, h8, _ = raw_post(srv, protocol)
        s9, _, _ = raw_post(srv, protocol)
        log = [(r.fault, r.status) for r in srv.log]
        served = srv.replies_served
    assert (s1, h1["retry-after"], json.loads(b1)) == (
        429,
        "2",
        {"error": {"message": "slow down", "type": "requests", "param": None, "code": "rate_limit_exceeded"}}
        if protocol == "openai"
        else {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
    )
    assert s2 == 429 and "retry-after" not in h2  # a ScriptedFailure brings its own header, or none
    # truncated: complete HTTP framing, broken JSON
    assert s3 == 200 and int(h3["content-length"]) == len(b3) > 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(b3)
    empty = json.loads(b4)
    assert s4 == 200 and (empty["choices"] if protocol == "openai" else empty["content"]) == []
    no_action = json.loads(b5)
    text = (
        no_action["choices"][0]["message"]["content"]
        if protocol == "openai"
        else no_action["content"][0]["text"]
    )
    assert s5 == 200 and text == NO_ACTION_REPLY
    # None answers normally, with the scripted reply the faults did not consume
    reply = json.loads(b7)
    assert s7 == 200 and "the reply" in json.dumps(reply)
    assert s8 == 503 and h8["retry-after"] == "7"  # an int fault behaves like `failures`
    assert s9 == 400  # the single scripted reply is used up: faults never consumed it
    assert served == 1
    assert log == [
        ("429", 429),
        ("429", 429),
        ("truncated", 200),
        ("empty_choices", 200),
        ("no_action", 200),
        ("drop", 0),
        (None, 200),
        ("503", 503),
        (None, 400),
    ]


def test_timeout_fault_holds_then_closes_and_stop_releases_it():
    with ScriptedServer("x", faults=["timeout"], fault_hold=0.3) as srv:
        start = time.perf_counter()
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            raw_post(srv, "openai")
        assert time.perf_counter() - start >= 0.3
    # a long hold does not keep stop() waiting
    srv = ScriptedServer("x", faults=["timeout"], fault_hold=60).start()
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    conn.request(
        "POST",
        "/v1/chat/completions",
        json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
    )
    while not srv.log:
        time.sleep(0.01)
    start = time.perf_counter()
    srv.stop()
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        conn.getresponse()
    conn.close()
    assert time.perf_counter() - start < 5


def test_failures_come_before_faults():
    with ScriptedServer("ok", failures=[500], faults=["no_action"]) as srv:
        assert raw_post(srv, "openai")[0] == 500
        assert NO_ACTION_REPLY in raw_post(srv, "openai")[2].decode()
        assert "ok" in raw_post(srv, "openai")[2].decode()


@pytest.mark.parametrize("bad", ["bogus", True, 42, 1.5, object()])
def test_unknown_faults_are_rejected_up_front(bad):
    with pytest.raises(ValueError, match="fault"):
        ScriptedServer("x", faults=[bad])


def test_scripted_failure_pickles_with_its_header():
    copy = pickle.loads(pickle.dumps(ScriptedFailure(429, "later", retry_after=1.5)))
    assert (copy.status, copy.message, copy.retry_after) == (429, "later", 1.5)


# --- the model layer, through the real SDKs ------------------------------------------------------

RETRYABLE = [
    pytest.param(ScriptedFailure(429, "slow down", retry_after=0.01), id="429-retry-after"),
    pytest.param(ScriptedFailure(429, "slow down"), id="429"),
    pytest.param(500, id="500"),
    pytest.param(503, id="503"),
    pytest.param("timeout", id="timeout"),
    pytest.param("drop", id="drop"),
    pytest.param("truncated", id="truncated"),
    pytest.param("empty_choices", id="empty_choices"),
]


@pytest.mark.parametrize("fault", RETRYABLE)
async def test_a_retryable_fault_is_retried_and_counted(provider, fault):
    with ScriptedServer(["the answer"], faults=[fault], fault_hold=HOLD) as srv:
        model = model_for(srv, provider, max_retries=2)
        response = await model.generate(HELLO, PARAMS)
        bodies = srv.requests
    assert response.text == "the answer"
    assert (response.usage.calls, response.usage.retries) == (1, 1)
    assert response.usage.to_dict()["retries"] == 1
    assert len(bodies) == 2 and bodies[0] == bodies[1]  # the retry resends the same request


def expected_problem(fault: object, provider: str) -> str:
    if isinstance(fault, ScriptedFailure):
        return "HTTP 429 Too Many Requests"
    return {
        500: "HTTP 500 Internal Server Error",
        503: "HTTP 503 Service Unavailable",
        "timeout": f"timed out after {CLIENT_TIMEOUT:g}s",
        "drop": "closed without a complete response",
        "truncated": "the body is not valid JSON",
        "empty_choices": "the server returned no choices" if provider == "openai" else "no content blocks",
    }[fault]


@pytest.mark.parametrize("fault", RETRYABLE)
async def test_a_persistent_fault_exhausts_the_retries_with_a_clear_error(provider, fault):
    with ScriptedServer("never", faults=[fault] * 5, fault_hold=HOLD) as srv:
        model = model_for(srv, provider, max_retries=2)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
        seen = len(srv.requests)
    e = err.value
    assert seen == 3
    assert (e.attempts, e.retryable) == (3, True)
    message = str(e)
    assert f"{provider}:scripted failed after 3 attempts, retries exhausted (max_retries=2)" in message
    assert expected_problem(fault, provider) in message
    assert e.__context__ is None  # the SDK exception (and its request headers) stays out


async def test_no_action_is_a_normal_reply_not_an_error(provider):
    with ScriptedServer("unused", faults=["no_action"]) as srv:
        model = model_for(srv, provider, max_retries=2)
        response = await model.generate(HELLO, PARAMS)
        seen = len(srv.requests)
    assert response.text == NO_ACTION_REPLY
    assert (response.usage.calls, response.usage.retries, seen) == (1, 0, 1)
    assert response.usage.output_tokens == len(NO_ACTION_REPLY.split())


async def test_a_mix_of_faults_is_retried_until_the_reply(provider):
    faults = [f.values[0] for f in RETRYABLE]
    with ScriptedServer(["finally"], faults=faults, fault_hold=HOLD) as srv:
        model = model_for(srv, provider, max_retries=len(faults))
        response = await model.generate(HELLO, PARAMS)
        seen = len(srv.requests)
    assert response.text == "finally"
    assert response.usage.retries == len(faults) and seen == len(faults) + 1


@pytest.mark.parametrize("max_retries", [0, 1, 3])
@pytest.mark.parametrize("fault", [503, "drop", "empty_choices"])
async def test_attempts_are_bounded_by_max_retries(provider, fault, max_retries):
    with ScriptedServer("never", faults=[fault] * 10) as srv:
        model = model_for(srv, provider, max_retries=max_retries)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
        seen = len(srv.requests)
    assert seen == err.value.attempts == max_retries + 1
    word = "attempt" if max_retries == 0 else "attempts"
    assert f"failed after {max_retries + 1} {word}" in str(err.value)


def spy_backoff(model) -> list[tuple[int, float | None, float]]:
    seen: list[tuple[int, float | None, float]] = []
    original = model._backoff

    def backoff(retry: int, retry_after: float | None) -> float:
        delay = original(retry, retry_after)
        seen.append((retry, retry_after, delay))
        return delay

    model._backoff = backoff
    return seen


async def test_429_without_retry_after_backs_off_exponentially(provider, monkeypatch):
    monkeypatch.setattr("playbench.models.remote.random.random", lambda: 1.0)  # no jitter
    with ScriptedServer("ok", faults=[ScriptedFailure(429)] * 3) as srv:
        model = model_for(srv, provider, max_retries=3, retry_base_delay=0.02)
        seen = spy_backoff(model)
        response = await model.generate(HELLO, PARAMS)
    assert response.usage.retries == 3
    assert seen == [(1, None, 0.02), (2, None, 0.04), (3, None, 0.08)]


async def test_429_retry_after_is_honoured_and_capped(provider):
    with ScriptedServer(
        "ok", faults=[ScriptedFailure(429, retry_after=0.3), ScriptedFailure(429, retry_after=30)]
    ) as srv:
        model = model_for(srv, provider, max_retries=2)
        model.retry_max_delay = 0.2
        seen = spy_backoff(model)
        start = time.perf_counter()
        await model.generate(HELLO, PARAMS)
        elapsed = time.perf_counter() - start
    # the server's header reaches the backoff; the delay is the header, up to retry_max_delay
    assert [(r, ra) for r, ra, _ in seen] == [(1, 0.3), (2, 30.0)]
    assert [d for _, _, d in seen] == [0.2, 0.2]
    assert 0.4 <= elapsed < 5


def test_usage_retries_add_up_and_serialise():
    total = Usage()
    total.add(Usage(1, 2, calls=1, retries=2))
    total.add(Usage(3, 4, calls=1, retries=1))
    total.add(Usage(0, 0, calls=0, cached_calls=1))
    assert (total.retries, total.calls) == (3, 2)
    assert total.to_dict()["retries"] == 3


# --- end to end through the runner ---------------------------------------------------------------


def walker(request: dict) -> str:
    """Answers toy/walk prompts correctly (as tests/test_llm_path.py's walker)."""
    import re

    pos, target = map(int, re.search(r"position (\d+), target (\d+)", json.dumps(request)).groups())
    return f"I am at {pos} and want {target}.\naction: {'right' if target > pos else 'left'}"


def test_faults_in_a_run_become_retries_errors_and_unparseable_steps(tmp_path):
    # With concurrency 1 the episodes run in order: walk-0-0 (1 move), walk-0-1 (3), walk-0-2 (1),
    # walk-0-3 (2), so each fault below lands in a known episode. max_retries=1: one retry a call.
    faults = [
        ScriptedFailure(429, retry_after=0.01),
        None,  # walk-0-0: 1 retry
        "drop",
        None,
        "no_action",
        None,
        "truncated",
        None,  # walk-0-1: 2 retries, 1 unparseable step
        500,
        503,  # walk-0-2: both attempts fail -> episode error
        "empty_choices",
        None,
        "timeout",
        None,  # walk-0-3: 2 retries
    ]
    out = tmp_path / "faults"
    with ScriptedServer(walker, faults=faults, fault_hold=HOLD) as srv:
        asyncio.run(
            execute(
                RunConfig(
                    ["toy/walk"],
                    {"*": AgentSpec("llm", "openai:s")},
                    str(out),
                    episodes=4,
                    models=ModelSettings(
                        base_url=srv.base_url, max_retries=1, retry_base_delay=0.01, timeout=CLIENT_TIMEOUT
                    ),
                )
            )
        )
        seen = len(srv.requests)
    assert seen == len(faults)  # every fault was served, and no request more
    recs = {r["instance_id"]: r for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}
    assert sorted(recs) == ["walk-0-0", "walk-0-1", "walk-0-2", "walk-0-3"]

    failed = recs.pop("walk-0-2")
    assert not failed["success"] and failed["termination"] == "error"
    assert "openai:s failed after 2 attempts, retries exhausted (max_retries=1)" in failed["error"]
    assert "HTTP 503" in failed["error"]

    for instance_id, retries, steps in [("walk-0-0", 1, 1), ("walk-0-1", 2, 4), ("walk-0-3", 2, 2)]:
        r = recs[instance_id]
        assert r["success"] and r["error"] is None, instance_id
        assert r["steps"] == steps
        assert r["usage"]["retries"] == retries, instance_id
        assert r["usage"]["calls"] == steps  # a retried call is still one call

    steps = [json.loads(x) for x in (out / recs["walk-0-1"]["trajectory"]).read_text().splitlines()]
    assert [s["validity"] for s in steps] == ["effective", "unparseable", "effective", "effective"]
    assert steps[1]["raw_output"] == NO_ACTION_REPLY and "error" not in steps[1]
    assert [s["usage"]["retries"] for s in steps] == [1, 0, 0, 1]
