"""Behaviour both providers share: retries, errors, timeouts, the concurrency cap, keys never leaking."""

from __future__ import annotations

import asyncio
import gc
import pickle
import time
import traceback

import pytest

from playbench.models import GenerationParams, Message, ModelError, make_model
from playbench.testing import ScriptedServer, unused_port

SECRET = "sk-test-SECRET-0123456789abcdef"
HELLO = [Message.text("user", "hello")]
PARAMS = GenerationParams()


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


def url_for(srv: ScriptedServer, provider: str) -> str:
    return srv.base_url if provider == "openai" else srv.anthropic_base_url


MADE: list = []


@pytest.fixture(autouse=True)
async def close_models():
    # Close every client on the loop that used it, so none is finalised later on another loop.
    yield
    while MADE:
        await MADE.pop().aclose()


def mk(spec: str, **kwargs):
    model = make_model(spec, **kwargs)
    MADE.append(model)
    return model


def model_for(srv: ScriptedServer, provider: str, **kwargs):
    kwargs.setdefault("retry_base_delay", 0.01)
    return mk(f"{provider}:scripted", base_url=url_for(srv, provider), **kwargs)


@pytest.mark.parametrize("failures", [[429, 500], [502, 503], [529, 408]])
async def test_retries_transient_failures_then_succeeds(provider, failures):
    with ScriptedServer(["finally"], failures=failures) as srv:
        model = model_for(srv, provider)
        response = await model.generate(HELLO, PARAMS)
    assert response.text == "finally"
    assert response.usage.calls == 1
    assert len(srv.requests) == len(failures) + 1
    # retries resend the very same request
    assert all(body == srv.requests[0] for body in srv.requests)


async def test_gives_up_after_max_retries(provider):
    with ScriptedServer("never", failures=[500] * 10) as srv:
        model = model_for(srv, provider, max_retries=2)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    e = err.value
    assert len(srv.requests) == 3
    assert (e.status_code, e.attempts, e.retryable, e.spec) == (500, 3, True, f"{provider}:scripted")
    message = str(e)
    assert f"{provider}:scripted failed after 3 attempts" in message
    assert "retries exhausted (max_retries=2)" in message
    assert "HTTP 500 Internal Server Error" in message
    assert "scripted failure 3 of 10" in message  # the server's own message


@pytest.mark.parametrize(
    ("status", "reason"),
    [(400, "Bad Request"), (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found")],
)
async def test_client_errors_fail_at_once(provider, status, reason):
    with ScriptedServer("unused", failures=[status]) as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    assert len(srv.requests) == 1
    e = err.value
    assert (e.status_code, e.attempts, e.retryable) == (status, 1, False)
    assert f"failed after 1 attempt: HTTP {status} {reason} from http://127.0.0.1:" in str(e)
    assert f"scripted failure 1 of 1 (HTTP {status})" in str(e)


async def test_server_validation_message_reaches_the_error(provider):
    def reject(_body):
        raise ValueError("prompt too odd")

    with ScriptedServer(reject) as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError, match="ValueError: prompt too odd"):
            await model.generate(HELLO, PARAMS)


async def test_connection_refused_is_retried_then_reported(provider):
    port = unused_port()
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else "")
    model = mk(f"{provider}:m", base_url=base, max_retries=2, retry_base_delay=0.01)
    with pytest.raises(ModelError) as err:
        await model.generate(HELLO, PARAMS)
    e = err.value
    assert (e.attempts, e.retryable, e.status_code) == (3, True, None)
    assert f"cannot connect to http://127.0.0.1:{port}" in str(e)
    assert "retries exhausted" in str(e)


async def test_timeouts_are_retried_then_reported(provider):
    with ScriptedServer("slow", latency=1.0, cycle=True) as srv:
        model = model_for(srv, provider, timeout=0.2, max_retries=1)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    assert "timed out after 0.2s" in str(err.value)
    assert err.value.attempts == 2
    assert len(srv.requests) == 2


async def test_retry_after_header_is_honoured(provider):
    with ScriptedServer("ok", failures=[429], retry_after=0.3) as srv:
        model = model_for(srv, provider, retry_base_delay=0.001)
        start = time.perf_counter()
        await model.generate(HELLO, PARAMS)
    assert time.perf_counter() - start >= 0.3


def test_backoff_doubles_with_jitter_and_is_capped():
    model = make_model("openai:m", base_url="http://127.0.0.1:9/v1", retry_base_delay=1.0)
    model.retry_max_delay = 10.0
    for retry, step in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0)]:
        delays = [model._backoff(retry, None) for _ in range(200)]
        assert all(step / 2 <= d <= step for d in delays)
        assert len(set(delays)) > 1  # jittered
    assert model._backoff(1, 5.0) == 5.0  # Retry-After wins when longer
    assert model._backoff(1, 999.0) == 10.0  # ... but not past the cap


async def test_concurrency_cap_limits_requests_in_flight(provider):
    with ScriptedServer("ok", latency=0.05, cycle=True) as srv:
        model = model_for(srv, provider, concurrency=3)
        await asyncio.gather(*(model.generate(HELLO, PARAMS) for _ in range(12)))
    assert len(srv.requests) == 12
    assert srv.max_in_flight == 3


async def test_many_concurrent_calls_overlap(provider):
    with ScriptedServer("ok", latency=0.05, cycle=True) as srv:
        model = model_for(srv, provider, concurrency=32)
        await asyncio.gather(*(model.generate(HELLO, PARAMS) for _ in range(32)))
    # overlap is observed at the server, not timed, so a loaded machine cannot fail it
    assert srv.max_in_flight >= 16


async def test_the_cap_is_per_model_instance(provider):
    with ScriptedServer("ok", latency=0.05, cycle=True) as srv:
        a, b = model_for(srv, provider, concurrency=2), model_for(srv, provider, concurrency=2)
        await asyncio.gather(*(m.generate(HELLO, PARAMS) for m in (a, b) for _ in range(6)))
    assert srv.max_in_flight == 4


async def test_key_never_appears_in_errors_or_tracebacks(provider, monkeypatch):
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", SECRET)
    # The scripted 401 quotes the presented key verbatim, like a careless server would.
    with ScriptedServer("ok", require_key="another-key") as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    assert (
        srv.log[0].headers.get("authorization", "").endswith(SECRET)
        or srv.log[0].headers.get("x-api-key") == SECRET
    )
    e = err.value
    assert e.status_code == 401
    assert "Incorrect API key provided: [REDACTED]" in str(e)
    rendered = "".join(traceback.format_exception(e))
    assert SECRET not in rendered
    assert e.__cause__ is None and e.__suppress_context__ is False and e.__context__ is None
    assert SECRET not in repr(pickle.loads(pickle.dumps(e)).__dict__)
    assert SECRET not in repr(model.describe()) + repr(model)


async def test_placeholder_key_rejected_gives_a_hint(provider):
    with ScriptedServer("ok", require_key="needed") as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    assert f"{provider.upper()}_API_KEY is not set" in str(err.value)


async def test_model_error_pickles_with_its_attributes(provider):
    with ScriptedServer("x", failures=[400]) as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError) as err:
            await model.generate(HELLO, PARAMS)
    copy = pickle.loads(pickle.dumps(err.value))
    assert str(copy) == str(err.value)
    assert (copy.status_code, copy.attempts, copy.spec) == (400, 1, f"{provider}:scripted")


async def test_no_messages_is_an_error(provider):
    with ScriptedServer("x") as srv:
        model = model_for(srv, provider)
        with pytest.raises(ModelError, match="no messages"):
            await model.generate([], PARAMS)


# The abandoned client's sockets are reclaimed by the garbage collector, which reports them as
# ResourceWarnings; that is the documented price of skipping aclose().
@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
def test_one_model_survives_successive_event_loops(provider):
    with ScriptedServer("ok", cycle=True) as srv:
        model = model_for(srv, provider, concurrency=2)

        async def twice(close: bool = False):
            texts = [
                r.text
                for r in await asyncio.gather(model.generate(HELLO, PARAMS), model.generate(HELLO, PARAMS))
            ]
            if close:
                await model.aclose()
            return texts

        # the first loop ends without aclose(): its client is abandoned quietly, a new one is made
        assert asyncio.run(twice()) == ["ok", "ok"]
        assert asyncio.run(twice(close=True)) == ["ok", "ok"]
    assert len(srv.requests) == 4
    gc.collect()  # reclaim the abandoned sockets here, where their warnings are expected


async def test_usage_counts_come_from_the_server(provider):
    with ScriptedServer("three word reply") as srv:
        model = model_for(srv, provider)
        r = await model.generate(
            [Message.text("system", "be brief"), Message.text("user", "a b c d")], PARAMS
        )
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.calls, r.usage.cached_calls) == (6, 3, 1, 0)
    assert r.cached is False
    assert r.usage.cost is None  # "scripted" has no price
