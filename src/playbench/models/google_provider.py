"""Google's Gemini API (`generateContent`) through the official google-genai SDK (`google.genai`)."""

from __future__ import annotations

import importlib
import os
import re
import typing
from collections.abc import Mapping
from http import HTTPStatus
from types import ModuleType
from typing import Any

import pydantic
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, TextPart
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.images import wire_bytes
from playbench.models.remote import (
    RETRYABLE_STATUS,
    MalformedReply,
    RemoteChatModel,
    _Failure,
    _is_connect_failure,
    _Reply,
    _retry_after,
    _server_message,
)

# The key's variable, and the one read when it is unset (google-genai's own name for it, which the
# SDK prefers when both are set; here GEMINI_API_KEY wins, the name Google's Gemini docs use).
KEY_ENV = "GEMINI_API_KEY"
FALLBACK_KEY_ENV = "GOOGLE_API_KEY"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"

# Models that think by default (Gemini 2.5 and later, and the -latest aliases that point at them);
# 2.5 Flash-Lite thinks only when asked. Thinking counts against maxOutputTokens (see
# `GoogleModel._build_request`), so their output budget gets a thinking allowance.
THINKING_MODELS = re.compile(
    r"^gemini-(?:2\.5(?!-flash-lite)|[3-9]|[1-9]\d)|^gemini-(?:flash|pro)-latest$", re.I
)
# Models that take a thinking budget but no thinking level (Gemini 2.x and earlier: a level is a 400).
BUDGET_ONLY_MODELS = re.compile(r"^gemini-[12](?:[.-]|$)", re.I)

# --reasoning-effort as a thinkingLevel, for models that take one (Gemini 3 and later).
THINKING_LEVELS = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH"}
# --reasoning-effort as a thinkingBudget, for Gemini 2.x (and any SDK without thinking levels): the
# mapping LiteLLM uses for Gemini and anthropic_provider uses for Claude (low 1024, medium 2048, high
# 4096), with "minimal" at 512, the smallest budget every 2.5 model accepts (Pro 128-32768, Flash
# 0-24576, Flash-Lite 512-24576).
EFFORT_BUDGETS = {"minimal": 512, "low": 1024, "medium": 2048, "high": 4096}
# The thinking allowance added to an answer cap when the run names no budget (the model's default
# dynamic thinking, or a thinking level): 32,768, the largest budget a Gemini 2.5 model takes (Pro).
DEFAULT_THINKING_ALLOWANCE = 32_768
# maxOutputTokens' ceiling on Gemini 2.5 and 3 models; an allowance never pushes a request past it.
OUTPUT_TOKEN_LIMIT = 65_536

_ROLES = {"user": "user", "assistant": "model"}


def _name(model: str) -> str:
    return model.rsplit("/", 1)[-1]  # "models/gemini-2.5-pro" names the same model


def is_thinking_model(model: str) -> bool:
    return bool(THINKING_MODELS.match(_name(model)))


def _sdk_has_thinking_levels() -> bool:
    return hasattr(types, "ThinkingLevel") and "thinking_level" in types.ThinkingConfig.model_fields


def thinking_config(model: str, params: GenerationParams) -> tuple[types.ThinkingConfig | None, int]:
    """(the thinking config to send, or None for the model's default; the thinking allowance the
    output budget adds when the run names no `reasoning_tokens`).

    `reasoning_effort="none"` is a thinking budget of 0 (Gemini 2.5 Pro and 3 Pro cannot stop
    thinking and answer 400, which fails at once with the API's reason); `reasoning_tokens` is the
    thinking budget; another effort is a thinking level on models that take one, else a budget
    (EFFORT_BUDGETS). Thoughts are asked back (`include_thoughts`) whenever reasoning is asked for,
    so the calls file records their text.
    """
    if params.reasoning_effort == "none":
        return types.ThinkingConfig(thinking_budget=0), 0
    if params.reasoning_tokens:
        budget = params.reasoning_tokens
        return types.ThinkingConfig(thinking_budget=budget, include_thoughts=True), budget
    effort = params.reasoning_effort
    if effort is None:
        return None, DEFAULT_THINKING_ALLOWANCE
    if _sdk_has_thinking_levels() and not BUDGET_ONLY_MODELS.match(_name(model)):
        level = THINKING_LEVELS[effort]
        return types.ThinkingConfig(thinking_level=level, include_thoughts=True), DEFAULT_THINKING_ALLOWANCE
    budget = EFFORT_BUDGETS[effort]
    return types.ThinkingConfig(thinking_budget=budget, include_thoughts=True), budget


def image_part(image: ImagePart) -> types.Part:
    """Inline image data, in the format the image is sent (PNG, or JPEG when `send_as` says so). The
    Gemini API has no per-image detail setting on its stable versions, so `detail` is not sent."""
    media_type, data = wire_bytes(image)
    return types.Part(inline_data=types.Blob(mime_type=media_type, data=data))


def to_gemini_request(
    messages: list[Message], spec: str = "google"
) -> tuple[str | None, list[types.Content]]:
    """(system instruction, contents) in the generateContent format.

    System messages become the `system_instruction` (joined by blank lines; the API takes text only
    there); user and assistant messages become contents with roles "user" and "model". A text-only
    message is one text part (its parts joined by newlines, the text every provider here sends); one
    with images is its text and inline-data parts in order.
    """
    system: list[str] = []
    contents: list[types.Content] = []
    for m in messages:
        if m.role == "system":
            if any(isinstance(p, ImagePart) for p in m.parts):
                raise ModelError(
                    f"{spec}: the Gemini API takes only text in the system instruction; put images in a "
                    "user message",
                    spec=spec,
                )
            system.append("\n".join(p.text for p in m.parts if isinstance(p, TextPart)))
            continue
        role = _ROLES.get(m.role)
        if role is None:
            raise ModelError(
                f"{spec}: unsupported message role {m.role!r} (accepted: system, user, assistant)", spec=spec
            )
        if all(isinstance(p, TextPart) for p in m.parts):
            parts = [types.Part(text="\n".join(p.text for p in m.parts))]  # type: ignore[union-attr]
        else:
            parts = [types.Part(text=p.text) if isinstance(p, TextPart) else image_part(p) for p in m.parts]
        contents.append(types.Content(role=role, parts=parts))
    return ("\n\n".join(system) if system else None), contents


def _http_module() -> ModuleType:
    """The httpx flavour this google-genai takes as an injected client: httpx2 (google-genai >= 2.18,
    its default backend) or httpx (older releases)."""
    accepted = getattr(types, "HttpxAsyncClient", None)
    classes = typing.get_args(accepted) or (accepted,)
    modules = {c.__module__.split(".")[0] for c in classes if isinstance(c, type)}
    for name in ("httpx2", "httpx"):
        if name in modules:
            return importlib.import_module(name)
    raise ConfigError("google-genai offers no httpx client to send through; reinstall google-genai")


def _text(value: Any) -> str | None:
    """An SDK enum (FinishReason.MAX_TOKENS, BlockedReason.SAFETY) as the API spells it."""
    if value is None:
        return None
    return str(getattr(value, "value", value))


_DELAY = re.compile(r"^\s*(\d+(?:\.\d*)?)s\s*$")


def _retry_delay(details: Any) -> float | None:
    """The `retryDelay` of a google.rpc.RetryInfo in an error body (the Gemini API's rate-limit hint,
    sent in the body rather than as a Retry-After header)."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    entries = error.get("details") if isinstance(error, Mapping) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping) and str(entry.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DELAY.match(str(entry.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def _reply(response: types.GenerateContentResponse) -> _Reply:
    usage = response.usage_metadata
    prompt = usage.prompt_token_count if usage is not None else None
    answer = usage.candidates_token_count if usage is not None else None
    thoughts = usage.thoughts_token_count if usage is not None else None
    # Google bills thinking as output ("Output price (including thinking tokens)",
    # https://ai.google.dev/gemini-api/docs/pricing), but candidatesTokenCount counts the answer only:
    # the output tokens are both. The API leaves zero counts out of usageMetadata.
    output = (answer or 0) + (thoughts or 0) if usage is not None else None
    candidates = response.candidates or []
    if not candidates:
        feedback = response.prompt_feedback
        block = _text(feedback.block_reason) if feedback is not None else None
        if block:
            # The prompt itself was blocked: an answer the runner classifies (a refusal), not an error.
            return _Reply("", prompt, output, reasoning_tokens=thoughts, finish_reason=block)
        raise MalformedReply("the response has no candidates")
    candidate = candidates[0]
    finish = _text(candidate.finish_reason)
    parts = (candidate.content.parts if candidate.content is not None else None) or []
    if candidate.content is None and finish is None:
        raise MalformedReply("the candidate has neither content nor a finish reason")
    # Thought parts (asked for by include_thoughts) are the reasoning; the other text parts the answer.
    text = "".join(p.text for p in parts if p.text and not p.thought)
    reasoning = "".join(p.text for p in parts if p.text and p.thought)
    return _Reply(
        text=text,
        input_tokens=prompt,
        output_tokens=output,
        reasoning_tokens=thoughts,
        reasoning=reasoning or None,
        finish_reason=finish,
    )


class _Client:
    """google-genai's client and the HTTP client it sends through, shaped as RemoteChatModel expects
    a client: `base_url` (for messages), `close()`, and `_client`, the HTTP client that `_abandon`
    marks closed when the event loop it belongs to has ended."""

    def __init__(self, sdk: genai.Client, http: Any, base_url: str) -> None:
        self.sdk = sdk
        self.models = sdk.aio.models
        self._client = http
        self.base_url = base_url

    async def close(self) -> None:
        try:
            await self.sdk.aio.aclose()
        finally:
            self.sdk.close()  # the synchronous HTTP client the SDK always makes (unused here)
            await self._client.aclose()  # the SDK leaves an injected client to its owner


class GoogleModel(RemoteChatModel):
    """`google:MODEL` (e.g. `google:gemini-2.5-flash`) through google-genai's
    `Client().aio.models.generate_content`, on the Gemini Developer API (never Vertex AI, whatever
    GOOGLE_GENAI_USE_VERTEXAI says).

    Key: $GEMINI_API_KEY, else $GOOGLE_API_KEY (read only when GEMINI_API_KEY is unset); without
    either a custom base URL is required and a placeholder key is sent. Base URL: the `base_url`
    argument, else $GOOGLE_GEMINI_BASE_URL (the variable google-genai itself reads), else the SDK
    default. The SDK's own retries are off (this class retries), and it sends through an httpx
    client made here, whatever else is installed (the SDK would otherwise switch to aiohttp when
    present), so transport errors and closing behave the same everywhere.
    """

    provider = "google"
    key_env = KEY_ENV
    base_url_env = "GOOGLE_GEMINI_BASE_URL"
    default_base_url = DEFAULT_BASE_URL
    sdk = genai

    def __init__(self, model: str, *, base_url: str | None = None, **settings: Any) -> None:
        if not os.environ.get(KEY_ENV):
            if os.environ.get(FALLBACK_KEY_ENV):
                self.key_env = FALLBACK_KEY_ENV  # errors and hints name the variable in use
            elif not (base_url or os.environ.get(self.base_url_env)):
                raise ConfigError(
                    f"{KEY_ENV} is not set (nor {FALLBACK_KEY_ENV}); export it, or point --base-url at "
                    "a local Gemini-compatible server"
                )
        super().__init__(model, base_url=base_url, **settings)

    def _compatible_name(self) -> str:
        return "Gemini-compatible"

    def _make_client(self) -> _Client:
        base_url = self._sdk_base_url or DEFAULT_BASE_URL
        http = _http_module().AsyncClient(timeout=self.timeout)
        options = types.HttpOptions(
            base_url=base_url,
            timeout=max(1, round(self.timeout * 1000)),  # milliseconds
            retry_options=types.HttpRetryOptions(attempts=1),  # one attempt: the SDK never retries
            httpx_async_client=http,
        )
        sdk = genai.Client(vertexai=False, api_key=self._api_key, http_options=options)
        return _Client(sdk, http, base_url)

    def _build_request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        system, contents = to_gemini_request(messages, self.spec)
        if not contents:
            raise ModelError(f"{self.spec}: the Gemini API needs at least one user message", spec=self.spec)
        thinking, allowance = thinking_config(self.model, params)
        # Thoughts count against maxOutputTokens: Google's docs describe the two apart, but the
        # API stops at maxOutputTokens for thoughts + answer together (finish MAX_TOKENS with empty
        # text once thinking has used it up; thoughtsTokenCount + candidatesTokenCount lands on the
        # cap), reported on Gemini 2.5 (googleapis/python-genai#782, #811) and 3
        # (googleapis/python-genai#2062, open as a bug). So the cap sent is the answer cap plus the
        # thinking budget (or allowance), as for OpenAI's and Anthropic's reasoning, and a run's
        # --max-tokens limits the answer rather than the thinking.
        budget = params.output_budget(is_thinking_model(self.model), allowance)
        if budget is not None and params.max_tokens is not None and budget > OUTPUT_TOKEN_LIMIT:
            budget = max(params.max_tokens, OUTPUT_TOKEN_LIMIT)
        config: dict[str, Any] = {"system_instruction": system, "max_output_tokens": budget}
        for name in ("temperature", "top_p", "seed"):
            config[name] = getattr(params, name)
        config["thinking_config"] = thinking
        if params.extra_body:
            # Merged (recursively) into the JSON body the SDK sends, in the REST API's field names.
            config["http_options"] = types.HttpOptions(extra_body=dict(params.extra_body))
        config = {k: v for k, v in config.items() if v is not None}
        return {
            "model": self.model,
            "contents": contents,
            "config": types.GenerateContentConfig(**config),
        }

    async def _send(self, client: _Client, request: dict[str, Any]) -> _Reply:
        return _reply(await client.models.generate_content(**request))

    def _classify(self, exc: Exception) -> _Failure:
        if isinstance(exc, genai_errors.APIError):
            return self._classify_status(exc)
        names = {c.__name__ for c in type(exc).__mro__}  # httpx or httpx2: the same class names
        if "TimeoutException" in names:
            return self._timed_out()
        if "TransportError" in names:
            return self._connection_failure(f"{type(exc).__name__}: {exc}", _is_connect_failure(exc))
        common = self._malformed(exc)
        if common is not None:
            return common
        if isinstance(exc, pydantic.ValidationError):
            return _Failure(f"malformed response from {self.endpoint}: {exc}", retryable=False)
        return _Failure(f"{type(exc).__name__}: {exc}", retryable=False)

    def _classify_status(self, exc: genai_errors.APIError) -> _Failure:
        status = exc.code if isinstance(exc.code, int) else 0
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
        message = exc.message or _server_message(exc.details) or str(exc)
        if exc.status:
            message = f"{message} ({exc.status})"  # e.g. RESOURCE_EXHAUSTED
        head = f"HTTP {status}{' ' + reason if reason else ''} from {self.endpoint}"
        hint = ""
        # The Gemini API answers a bad key with 400 INVALID_ARGUMENT "API key not valid".
        if not self._key_from_env and (status in (401, 403) or "API key" in message):
            hint = f" ({KEY_ENV} is not set; this server seems to require a key)"
        headers = getattr(getattr(exc, "response", None), "headers", None)
        retry_after = _retry_after(headers) if headers is not None else None
        if retry_after is None:
            retry_after = _retry_delay(exc.details)
        return _Failure(
            description=f"{head}: {message}{hint}",
            retryable=status in RETRYABLE_STATUS or status >= 500,
            status_code=status or None,
            retry_after=retry_after,
        )
