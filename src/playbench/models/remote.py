"""What every HTTP model backend shares: key handling, retries, the concurrency cap, pricing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, Usage
from playbench.models import adaptive
from playbench.models.adaptive import AdaptiveLimit
from playbench.models.base import ChatModel, GenerationParams, Message, ModelError, ModelResponse
from playbench.models.lean_http import (
    ConnectFailed,
    HTTPStatusFailure,
    LeanClient,
    RequestTimedOut,
    unsupported_proxy,
)
from playbench.models.pricing import cost_of, merge_prices, price_for

# Local OpenAI/Anthropic-compatible servers (vLLM, SGLang, Ollama, llama.cpp) usually ignore the key,
# but the SDKs refuse to build a client without one.
PLACEHOLDER_KEY = "playbench-no-key"

# 408 is a timeout reported by the server; 429 a rate limit; 5xx (incl. Anthropic's 529
# "overloaded") are transient by nature. Everything else is the request's fault and retrying
# would only repeat it.
RETRYABLE_STATUS = frozenset({408, 429})

DEFAULT_RETRY_MAX_DELAY = 60.0

# How a provider's requests travel: "lean" (playbench.models.lean_http, where the provider has it)
# or "sdk" (the provider's official SDK). Chosen by the `transport` setting, else $PLAYBENCH_TRANSPORT,
# else lean for a server the user names (--base-url) and the SDK for the provider's own API.
TRANSPORTS = ("lean", "sdk")
TRANSPORT_ENV = "PLAYBENCH_TRANSPORT"

# What a server says when it cannot take a request with images (a text-only model behind an
# OpenAI-compatible server: llama.cpp's Python server fails with HTTP 500 "can only concatenate str
# (not "list") to str"; vLLM and others answer 400 naming images or multimodal input). Retrying such
# a request repeats it, so it fails at once, and every later request with images fails without
# being sent.
IMAGE_REJECTION = re.compile(
    r"can only concatenate str|image|vision|multimodal|multi-modal|not a multimodal|content.*list",
    re.IGNORECASE,
)
IMAGE_REJECTION_STATUS = frozenset({400, 415, 422, 500})


def redact_url(url: str) -> str:
    """A base URL as it may appear in logs: without any user:password@ part."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _check_base_url(url: str, provider: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"bad base URL {redact_url(url)!r} for provider {provider}: expected http://HOST[:PORT][/PATH] "
            "or https://..."
        )
    return url


class MalformedReply(Exception):
    """A 2xx response the backend cannot use (no choices, no content blocks...).

    Retried like a 5xx: a well-formed request that comes back empty is a glitch on the server's
    side (an overloaded replica, a filter that ate the output, a proxy), and the same request
    usually succeeds; max_retries bounds what that costs when it does not.
    """


def _is_connect_failure(exc: BaseException | None) -> bool:
    # By class name, because the SDKs' HTTP library has been renamed (httpx -> httpx2) and may be again.
    return exc is not None and (
        isinstance(exc, ConnectionRefusedError)
        or any(c.__name__ in ("ConnectError", "ConnectTimeout") for c in type(exc).__mro__)
    )


@dataclass
class _Reply:
    text: str
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None = None
    reasoning: str | None = None
    finish_reason: str | None = None


@dataclass
class _Failure:
    description: str
    retryable: bool
    status_code: int | None = None
    retry_after: float | None = None


def _server_message(body: object) -> str:
    """The human-readable part of an error body, whatever shape the server used.

    OpenAI: {"error": {"message": ...}} (the SDK hands over the inner object); Anthropic:
    {"type": "error", "error": {"message": ...}}; FastAPI-based servers: {"detail": ...}.
    """
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str) and inner:
            return inner
        for field in ("message", "detail"):
            if body.get(field):
                return str(body[field])
        return str(dict(body))[:500]
    if body is None:
        return ""
    return str(body)[:500]


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date: rare enough that our own backoff will do
        if seconds >= 0:
            return seconds
    return None


def _abandon(client: Any) -> None:
    """Forget an SDK client whose event loop has ended without aclose().

    Its connections belong to the dead loop and cannot be closed from another one; left alone, the
    SDK's finaliser would schedule that impossible close on whatever loop is running and log
    "Event loop is closed". Marking the HTTP client closed skips that; the sockets themselves are
    released when the garbage collector finalises their transports.
    """
    if isinstance(client, LeanClient):
        client.abandon()
        return
    http = getattr(client, "_client", None)
    state = getattr(http, "_state", None)
    closed = getattr(type(state), "CLOSED", None)
    if closed is not None:
        with contextlib.suppress(Exception):
            http._state = closed


def _lean_status_message(exc: HTTPStatusFailure) -> str:
    """The error message of a non-2xx reply, read as the SDKs read it: the JSON body's `error`
    object (else the whole body, else its text), falling back to "Error code: N"."""
    text = exc.body.decode("utf-8", "replace").strip()
    body: object = text
    err_msg = f"Error code: {exc.status}"
    try:
        body = json.loads(text)
    except ValueError:
        pass
    else:
        error = body.get("error", body) if isinstance(body, Mapping) else None
        message = error.get("message") if isinstance(error, Mapping) else None
        if isinstance(message, str) and message:
            err_msg += f" - {message}"
    data = body.get("error", body) if isinstance(body, Mapping) else body
    return _server_message(data) or err_msg


def _rejects_images(failure: _Failure) -> bool:
    return failure.status_code in IMAGE_REJECTION_STATUS and bool(IMAGE_REJECTION.search(failure.description))


class RemoteChatModel(ChatModel):
    """A ChatModel behind an HTTP API reached through the provider's official SDK.

    Subclasses say how to build the SDK client, how to translate messages to the wire format and
    how to read the reply; this class owns everything that must behave the same for every provider.
    """

    key_env: str = ""
    base_url_env: str = ""
    default_base_url: str = ""  # the SDK's own default, named for when its env variable is set but empty
    sdk: ModuleType  # the SDK module: its exception classes share one shape across providers

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        concurrency: int = 8,
        max_retries: int = 5,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = DEFAULT_RETRY_MAX_DELAY,
        timeout: float = 120.0,
        prices: Mapping[str, Any] | None = None,
        transport: str | None = None,
    ) -> None:
        super().__init__(model)
        if not model or not model.strip():
            raise ConfigError(
                f"empty model name for provider {self.provider} (expected {self.provider}:MODEL)"
            )
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(f"model concurrency must be an integer >= 1 (got {concurrency!r})")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"max_retries must be an integer >= 0 (got {max_retries!r})")
        if retry_base_delay < 0 or retry_max_delay < 0:
            raise ConfigError(f"retry delays must be >= 0 (got {retry_base_delay!r}, {retry_max_delay!r})")
        if not timeout > 0:
            raise ConfigError(f"model timeout must be > 0 seconds (got {timeout!r})")

        if base_url is None:
            base_url = os.environ.get(self.base_url_env) or None
        self.base_url = _check_base_url(base_url, self.provider) if base_url else None

        key = os.environ.get(self.key_env) or None
        if key is None and self.base_url is None:
            raise ConfigError(
                f"{self.key_env} is not set; export it, or point --base-url at a local "
                f"{self._compatible_name()} server"
            )
        # Kept private and out of describe()/repr; it only ever goes into the SDK client.
        self._api_key = key or PLACEHOLDER_KEY
        self._key_from_env = key is not None

        self.concurrency = concurrency
        self.max_retries = max_retries
        self.retry_base_delay = float(retry_base_delay)
        self.retry_max_delay = float(retry_max_delay)
        self.timeout = float(timeout)
        self.prices = merge_prices(prices)
        self.price = price_for(self.spec, self.model, self.prices)

        # The SDKs read their base-URL variable themselves and take an empty one literally (every
        # request then fails with an unhelpful URL error), so in that case name the default.
        self._sdk_base_url = self.base_url
        if self._sdk_base_url is None and os.environ.get(self.base_url_env) == "":
            self._sdk_base_url = self.default_base_url

        # The server's words when it refused a request with images (see IMAGE_REJECTION).
        self._image_rejection: ModelError | None = None
        # The SDK client and the semaphore belong to one event loop; they are (re)made lazily on the
        # loop that uses them, so a model survives being used under successive asyncio.run() calls.
        self._client: Any = None
        self._limit: AdaptiveLimit | None = None  # requests in flight, adapted to the server (AIMD)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.transport = self._pick_transport(transport)

    def _pick_transport(self, asked: str | None) -> str:
        """The transport to use: lean where this provider has it, unless the setting (else
        $PLAYBENCH_TRANSPORT) says sdk; an explicit lean that cannot reach the server is a ConfigError."""
        source = "transport setting"
        if asked is None:
            asked, source = os.environ.get(TRANSPORT_ENV) or None, TRANSPORT_ENV
        if asked is not None and asked not in TRANSPORTS:
            raise ConfigError(f"unknown {source} {asked!r} (accepted: {', '.join(TRANSPORTS)})")
        if asked == "sdk" or not self.lean:
            return "sdk"
        if asked is None and not self._self_hosted():
            # the provider's own API: its SDK, exactly as the provider ships it (its rate limits, not a
            # client's CPU, bound a run there); the lean client serves the servers a user runs
            return "sdk"
        problem = unsupported_proxy(self._sdk_base_url or self.default_base_url)
        if problem is None:
            return "lean"
        if asked == "lean":
            raise ConfigError(
                f"the lean transport cannot reach {self.endpoint} through {problem}; "
                "use the SDK transport (transport=sdk)"
            )
        return "sdk"  # the default yields to the SDK, which speaks every proxy httpx does

    def _self_hosted(self) -> bool:
        """Whether requests go to a server the user named (vLLM, SGLang, llama.cpp, a scripted server)
        rather than to the provider's own API."""
        if not self.base_url:
            return False
        return urlsplit(self.base_url).hostname != urlsplit(self.default_base_url or "").hostname

    # --- provider hooks ---------------------------------------------------------------------

    # The provider implements the lean transport (its _make_client and _send take both kinds of client).
    lean: bool = False

    @abstractmethod
    def _make_client(self) -> Any: ...

    @abstractmethod
    def _build_request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        """The keyword arguments of the SDK call; raises ModelError for content the API cannot take."""

    @abstractmethod
    async def _send(self, client: Any, request: dict[str, Any]) -> _Reply: ...

    def _compatible_name(self) -> str:
        return f"{self.provider}-compatible"

    # --- shared behaviour -------------------------------------------------------------------

    def _state(self) -> tuple[Any, AdaptiveLimit]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._client is None or self._limit is None:
            if self._client is not None:
                _abandon(self._client)
            self._client = self._make_client()
            # a server the user runs starts at its full budget; a provider's API is probed (adaptive.py)
            self._limit = AdaptiveLimit(self.concurrency, self.spec, start_at_maximum=self._self_hosted())
            adaptive.LIVE[self.spec] = self._limit
            self._loop = loop
        return self._client, self._limit

    @property
    def endpoint(self) -> str:
        """The base URL requests go to, safe to print."""
        if self._client is not None:
            return redact_url(str(self._client.base_url))
        if self.base_url:
            return redact_url(self.base_url)
        return self.default_base_url or "the provider's default endpoint"

    def _redact(self, text: str) -> str:
        if self._key_from_env and self._api_key:
            text = text.replace(self._api_key, "[REDACTED]")
        return text

    def _status_failure(self, status: int, message: str, headers: Mapping[str, str] | None) -> _Failure:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
        head = f"HTTP {status}{' ' + reason if reason else ''} from {self.endpoint}"
        hint = ""
        if status in (401, 403) and not self._key_from_env:
            hint = f" ({self.key_env} is not set; this server seems to require a key)"
        return _Failure(
            description=f"{head}: {message}{hint}",
            retryable=status in RETRYABLE_STATUS or status >= 500,
            status_code=status,
            retry_after=_retry_after(headers),
        )

    def _classify(self, exc: Exception) -> _Failure:
        # the lean transport's failures, worded exactly as the SDKs' below
        if isinstance(exc, HTTPStatusFailure):
            return self._status_failure(exc.status, _lean_status_message(exc), exc.headers)
        if isinstance(exc, RequestTimedOut):
            return self._timed_out()
        if isinstance(exc, ConnectFailed):
            return self._connection_failure(exc.detail, exc.never_connected)
        sdk = self.sdk
        if isinstance(exc, sdk.APIStatusError):
            message = _server_message(exc.body) or exc.message
            return self._status_failure(exc.status_code, message, exc.response.headers)
        if isinstance(exc, sdk.APITimeoutError):
            return self._timed_out()
        if isinstance(exc, sdk.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
            return self._connection_failure(detail, cause is None or _is_connect_failure(cause))
        common = self._malformed(exc)
        if common is not None:
            return common
        if isinstance(exc, sdk.APIResponseValidationError):
            return _Failure(
                f"malformed response from {self.endpoint} (HTTP {exc.status_code}): {exc.message}",
                retryable=False,
                status_code=exc.status_code,
            )
        return _Failure(f"{type(exc).__name__}: {exc}", retryable=False)

    # --- failures every provider words the same way ---------------------------------------
    def _timed_out(self) -> _Failure:
        return _Failure(f"request to {self.endpoint} timed out after {self.timeout:g}s", retryable=True)

    def _connection_failure(self, detail: str, never_connected: bool) -> _Failure:
        if never_connected:
            return _Failure(f"cannot connect to {self.endpoint} ({detail})", retryable=True)
        # Connected, then lost: a server that crashed or closed mid-request, not a wrong address.
        return _Failure(
            f"connection to {self.endpoint} closed without a complete response ({detail})", retryable=True
        )

    def _malformed(self, exc: Exception) -> _Failure | None:
        """A 2xx reply the backend cannot use, or None for another kind of failure."""
        if isinstance(exc, MalformedReply):
            return _Failure(f"unusable response from {self.endpoint}: {exc}", retryable=True)
        if isinstance(exc, json.JSONDecodeError):
            # The SDKs parse a 2xx body with a bare json.loads, so a body cut short arrives here raw.
            return _Failure(
                f"malformed response from {self.endpoint}: the body is not valid JSON (truncated?): {exc}",
                retryable=True,
            )
        return None

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        """Delay before retry number `retry` (1-based): base * 2^(retry-1), capped, with jitter.

        The jitter (a random 50-100% of the step) keeps many episodes that hit the same rate limit
        together from retrying in lockstep. A server's Retry-After is honoured, up to the cap.
        """
        step = min(self.retry_max_delay, self.retry_base_delay * 2 ** (retry - 1))
        delay = step * (0.5 + 0.5 * random.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_max_delay))
        return delay

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        if not messages:
            raise ModelError(f"{self.spec}: no messages to send", spec=self.spec)
        has_images = any(isinstance(p, ImagePart) for m in messages for p in m.parts)
        if has_images and self._image_rejection is not None:
            raise self._image_rejection  # the server already refused images: do not send it again
        request = self._build_request(messages, params)
        client, limit = self._state()
        # Each attempt takes a slot of the model's adaptive limit (models/adaptive.py): a 429 halves it
        # and a Retry-After holds every new request of this model, so a rate-limited server sees fewer
        # requests from us while this call waits out its backoff.
        attempt = 0
        while True:
            attempt += 1
            failure: _Failure | None = None
            async with limit.slot() as slot:
                try:
                    reply = await self._send(client, request)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    failure = self._classify(exc)
                    if failure.status_code == 429:  # a pause as long as this call's own backoff, at most
                        after = failure.retry_after
                        slot.throttled(None if after is None else min(after, self.retry_max_delay))
                else:
                    slot.ok()
            if failure is None:
                break
            if has_images and _rejects_images(failure):
                failure = _Failure(
                    f"{failure.description} (the server seems not to take images: use a vision "
                    "model, or --captioner-model M to have a vision model describe them)",
                    retryable=False,
                    status_code=failure.status_code,
                )
                self._image_rejection = self._error(failure, attempt)
            if failure.retryable and attempt <= self.max_retries:
                await asyncio.sleep(self._backoff(attempt, failure.retry_after))
                continue
            # Raised outside the except block so the SDK exception, whose request carries the key in
            # its headers and whose text may quote it, is not chained into tracebacks.
            raise self._error(failure, attempt)
        cost = cost_of(self.price, reply.input_tokens, reply.output_tokens)
        usage = Usage(
            input_tokens=reply.input_tokens or 0,
            output_tokens=reply.output_tokens or 0,
            calls=1,
            cost=cost,
            retries=attempt - 1,
        )
        return ModelResponse(
            text=reply.text,
            usage=usage,
            reasoning_tokens=reply.reasoning_tokens,
            reasoning=reply.reasoning,
            finish_reason=reply.finish_reason,
        )

    def _error(self, failure: _Failure, attempts: int) -> ModelError:
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if failure.retryable:
            tries += f", retries exhausted (max_retries={self.max_retries})"
        message = self._redact(f"{self.spec} failed after {tries}: {failure.description}")
        return ModelError(
            message,
            spec=self.spec,
            status_code=failure.status_code,
            attempts=attempts,
            retryable=failure.retryable,
        )

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"spec": self.spec, "provider": self.provider, "model": self.model}
        if self.base_url:
            info["base_url"] = redact_url(self.base_url)
        info.update(
            concurrency=self.concurrency,
            max_retries=self.max_retries,
            retry_base_delay=self.retry_base_delay,
            retry_max_delay=self.retry_max_delay,
            timeout=self.timeout,
            price=self.price,
            transport=self.transport,
        )
        if self._limit is not None:
            info["adaptive"] = self._limit.stats()
        return info

    async def aclose(self) -> None:
        client, self._client = self._client, None
        loop, self._loop = self._loop, None
        if self._limit is not None and adaptive.LIVE.get(self.spec) is self._limit:
            del adaptive.LIVE[self.spec]
        self._limit = None
        if client is None:
            return
        if loop is asyncio.get_running_loop():
            await client.close()
        else:  # a client from a finished loop cannot be closed from this one
            _abandon(client)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r}, base_url={self.endpoint!r})"
