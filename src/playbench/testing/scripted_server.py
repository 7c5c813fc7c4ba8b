"""A scripted model server on 127.0.0.1 that speaks the real OpenAI, Anthropic and Gemini wire protocols.

Tests (and offline demos) point the real SDKs at it, so the whole path from an agent's messages to
HTTP and back is exercised without a network or a model:

    with ScriptedServer(["action: up", "action: left"]) as srv:
        model = make_model("openai:scripted", base_url=srv.base_url)
        ...
        assert srv.requests[0]["messages"][0]["role"] == "system"

Endpoints:
- OpenAI: POST /v1/chat/completions and GET /v1/models; the SDK's base URL is `srv.base_url` (ends
  in /v1).
- Anthropic: POST /v1/messages; the SDK's base URL is `srv.anthropic_base_url` (without /v1).
- OpenAI's Files and Batch API and Anthropic's Message Batches, each batched request answered as a
  direct one: see `playbench.testing.scripted_batch` (and its `configure` for polls and failures).
- Gemini: POST /{v1,v1beta,v1alpha}/models/{MODEL}:generateContent (google-genai 3.x sends /v1/,
  older releases /v1beta/); the SDK's base URL is `srv.google_base_url` (the server's root). The
  key travels in `x-goog-api-key` (or `?key=`); a request with neither gets 403, as from the real
  API. `:streamGenerateContent` is refused (400: the server does not stream).

Scripting:
- `responder`: a reply (always that reply), a list of replies served in order, or a callable
  `(request_json) -> reply`. A reply is a string (the answer's text) or a `ScriptedReply` (or a
  dict of its fields), see below. A list that runs out is an error, not a loop: the server answers
  HTTP 400 "scripted replies exhausted" so a test that makes more calls than it scripted fails
  loudly (pass `cycle=True` to loop over the list instead). The callable runs in the server's
  handler threads, possibly concurrently; it may raise `ScriptedFailure(status, message,
  retry_after)` to answer with that error. Any other exception becomes HTTP 400 (not 500) so a
  broken test responder fails at once instead of being retried. For a Gemini request the callable
  sees the JSON body with the model added as `body["model"]` (the real API takes it in the path).
- `ScriptedReply(text="", reasoning=None, reasoning_tokens=None, finish="stop", finish_reason=None,
  blocked=None)`, written in each protocol's own terms:
  - `reasoning`: thinking text returned beside the answer: a Gemini part with `"thought": true`
    before the text part, an Anthropic `thinking` block before the text block, OpenAI's
    `message.reasoning_content` (the field vLLM and SGLang use; OpenAI itself returns none).
  - `reasoning_tokens`: the thinking's token count (default: the words of `reasoning`, else 0). It
    is part of the output tokens everywhere (OpenAI `completion_tokens`, Anthropic
    `output_tokens`) and reported on its own where the API does: OpenAI
    `usage.completion_tokens_details.reasoning_tokens`, Gemini `usageMetadata.thoughtsTokenCount`
    (Gemini's `candidatesTokenCount` counts the answer only).
  - `finish`: why the reply ended, in neutral words, mapped per protocol:

    | finish    | OpenAI `finish_reason`              | Anthropic `stop_reason` | Gemini `finishReason` |
    |-----------|-------------------------------------|-------------------------|-----------------------|
    | `stop`    | `stop`                              | `end_turn`              | `STOP`                |
    | `length`  | `length`                            | `max_tokens`            | `MAX_TOKENS`          |
    | `filter`  | `content_filter`                    | `refusal`               | `SAFETY`              |
    | `refusal` | `stop`, the text in `message.refusal` and `content` null | `refusal` | `SAFETY` |

    `finish_reason` puts any other value on the wire as it is (e.g. Gemini `"RECITATION"`).
    An empty `text` sends no text part: Gemini's candidate then has no parts (`"content":
    {"role": "model"}`; none at all under a `SAFETY` finish, which carries blocked
    `safetyRatings`), Anthropic's `content` holds no text block (only a `stop` reply keeps an
    empty one, as before), OpenAI's `content` is "".
  - `blocked`: a Gemini prompt block reason (`"SAFETY"`, `"PROHIBITED_CONTENT"`, ...): the reply
    has no candidates, only `promptFeedback.blockReason` and the prompt's usage. OpenAI and
    Anthropic have no such reply; there it reads as `finish="filter"` with no text.
  Gemini's usage omits zero counts (`candidatesTokenCount`, `thoughtsTokenCount`), as the real API
  does.
- `latency`: seconds each model request waits before it is answered (each request has its own
  thread, so concurrent requests overlap rather than queue).
- `failures`: HTTP statuses returned, in order, to the first model requests (with an error body in
  the provider's format), e.g. `[429, 500]`; `retry_after` adds a Retry-After header to them (and,
  on the Gemini wire, a `google.rpc.RetryInfo` detail with that `retryDelay` to the error body).
- `faults`: what goes wrong with the model requests that follow the `failures`, one entry per
  request in arrival order; once both lists are used up, requests are answered normally. A fault
  never consumes a scripted reply, so the request that retries it gets the reply it was meant to.
  Entries:
  - an int: that HTTP status, exactly like an entry of `failures` (Retry-After from `retry_after`);
  - `ScriptedFailure(status, message, retry_after=None)`: that status and message, with a
    Retry-After header only if this entry gives one (e.g. a 429 with and one without);
  - `"timeout"`: the request is held `fault_hold` seconds (set it above the client's timeout),
    then the connection is closed without a response;
  - `"drop"`: the connection is closed at once without a response;
  - `"truncated"`: HTTP 200 whose JSON body stops halfway (the HTTP framing itself is correct,
    as when a proxy or a crashing server cuts the payload: only the JSON is broken);
  - `"empty_choices"`: HTTP 200 with a well-formed reply holding nothing: `choices: []`
    (OpenAI), `content: []` (Anthropic), no `candidates` and no `promptFeedback` (Gemini);
  - `"no_action"`: HTTP 200 with a normal reply whose text (`NO_ACTION_REPLY`) holds no action;
  - `None` (or `"ok"`): no fault, answer this request normally; a placeholder to put later
    faults at chosen positions.
  Faults are validated when the server is made. `srv.log[i].fault` names the fault a request got.
- `require_key`: if set, requests must carry this key (Bearer, x-api-key, x-goog-api-key or
  `?key=`) or get 401 (Gemini: 400 INVALID_ARGUMENT "API key not valid", as the real API answers).
  The message quotes the presented key verbatim, on purpose: tests use it to prove that backends
  redact keys from their errors.
- Requests are validated like the real APIs would (roles, content parts, data-URI / base64 images,
  Anthropic's top-level `system` and mandatory `max_tokens`; Gemini's field names in either
  camelCase or snake_case as protobuf JSON allows, unknown fields, roles `user`/`model`, one datum
  per part, inline data's MIME type and base64, text-only `systemInstruction`, `generationConfig`
  ranges and a `thinkingConfig` with at most one of `thinkingBudget` and `thinkingLevel`), so
  wire-format mistakes fail here.
- Usage is a deterministic estimate: whitespace-separated words of all prompt text, plus
  IMAGE_TOKENS per image; output tokens are the words of the reply plus its reasoning tokens.

Observation: `srv.requests` (the JSON body of every model request received, including the ones
answered with a scripted failure, in arrival order), `srv.log` (method, path, headers, body,
status of every request), `srv.max_in_flight` (the most model requests handled at once). The
helpers `message_text`, `last_user_text`, `system_text`, `request_images` and `prompt_tokens`
read request bodies of all three protocols.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import contextlib
import itertools
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from urllib.parse import parse_qsl, unquote

IMAGE_TOKENS = 85

# What the "no_action" fault answers: plausible model prose in which no task finds an action.
NO_ACTION_REPLY = "I am not sure."

FAULT_KINDS = frozenset({"timeout", "drop", "truncated", "empty_choices", "no_action", "ok"})

_DATA_URI = re.compile(r"^data:(image/(?:png|jpeg|gif|webp));base64,(.*)$", re.DOTALL)
_ANTHROPIC_MEDIA = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_OPENAI_ROLES = {"system", "developer", "user", "assistant", "tool"}

# POST /{version}/models/{model}:{method}; a model name may itself hold colons (`llama3.2:3b`).
_GOOGLE_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/]+):(generateContent|streamGenerateContent)$")

FINISHES = ("stop", "length", "filter", "refusal")
# ScriptedReply.finish in each protocol's words (see the module docstring's table).
_FINISH_WIRE = {
    "openai": {"stop": "stop", "length": "length", "filter": "content_filter", "refusal": "stop"},
    "anthropic": {"stop": "end_turn", "length": "max_tokens", "filter": "refusal", "refusal": "refusal"},
    "google": {"stop": "STOP", "length": "MAX_TOKENS", "filter": "SAFETY", "refusal": "SAFETY"},
}


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer with more than text: reasoning, its token count, how it ended, a blocked
    prompt. See the module docstring for how each field looks on each protocol's wire."""

    text: str = ""
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    finish: str = "stop"
    finish_reason: str | None = None  # put on the wire as it is, instead of `finish`'s mapping
    blocked: str | None = None  # a Gemini prompt block reason: no candidates at all

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise ValueError(f"ScriptedReply.text must be a string (got {self.text!r})")
        for name in ("reasoning", "finish_reason", "blocked"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or (name != "reasoning" and not value)):
                raise ValueError(f"ScriptedReply.{name} must be a non-empty string or None (got {value!r})")
        r = self.reasoning_tokens
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 0):
            raise ValueError(f"ScriptedReply.reasoning_tokens must be an integer >= 0 (got {r!r})")
        if self.finish not in FINISHES:
            raise ValueError(
                f"unknown ScriptedReply.finish {self.finish!r}: expected one of {', '.join(FINISHES)}"
            )

    @property
    def thinking_tokens(self) -> int:
        """The reasoning's token count as usage reports it."""
        if self.reasoning_tokens is not None:
            return self.reasoning_tokens
        return estimate_tokens(self.reasoning or "")

    @property
    def has_reasoning(self) -> bool:
        return self.reasoning is not None or self.reasoning_tokens is not None

    def wire_finish(self, protocol: str) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        finish = "filter" if self.blocked is not None else self.finish
        return _FINISH_WIRE[protocol][finish]


Reply = str | ScriptedReply | Mapping[str, Any]
Responder = Reply | Sequence[Reply] | Callable[[dict[str, Any]], Reply]


def as_reply(value: object) -> ScriptedReply:
    """A responder's reply as a ScriptedReply: a string is its text; a mapping gives the fields."""
    if isinstance(value, ScriptedReply):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - set(ScriptedReply.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown ScriptedReply field(s) {', '.join(sorted(map(str, unknown)))}")
        return ScriptedReply(**value)
    return ScriptedReply(text=str(value))


class ScriptedFailure(Exception):  # noqa: N818 - reads as what the responder wants: a failure
    """An HTTP error to answer with: raised by a responder callable, or an entry of `faults`.

    `retry_after` (seconds) adds a Retry-After header; None sends none.
    """

    def __init__(self, status: int, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(message or f"scripted failure (HTTP {status})")
        self.status = status
        self.message = message or f"scripted failure (HTTP {status})"
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickling replays only args; keep the status and header too.
        return (type(self), (self.status, self.message, self.retry_after))

    def __repr__(self) -> str:
        return f"ScriptedFailure({self.status!r}, {self.message!r}, retry_after={self.retry_after!r})"


Fault = int | ScriptedFailure | str | None


def _check_fault(fault: object) -> Fault:
    # bool is an int: True would silently become HTTP 1
    if isinstance(fault, bool) or not (
        fault is None
        or isinstance(fault, int | ScriptedFailure)
        or (isinstance(fault, str) and fault in FAULT_KINDS)
    ):
        raise ValueError(
            f"unknown fault {fault!r}: expected an HTTP status, a ScriptedFailure, None or one of "
            f"{', '.join(sorted(FAULT_KINDS))}"
        )
    if isinstance(fault, int) and not 100 <= fault <= 599:
        raise ValueError(f"fault status {fault} is not an HTTP status")
    return cast(Fault, fault)


def _fault_name(fault: Fault) -> str | None:
    if fault is None or fault == "ok":
        return None
    if isinstance(fault, ScriptedFailure):
        return str(fault.status)
    return str(fault)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int = 0  # stays 0 when no response was sent ("drop", "timeout")
    model_call: bool = False
    received_at: float = field(default_factory=time.monotonic)
    fault: str | None = None  # the scripted failure or fault this request got, e.g. "429", "drop"


def unused_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on right now (for "connection refused" tests and the demo server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


# --- helpers tests use to look at requests ------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """The server's token count for a piece of text: its whitespace-separated words."""
    return len(text.split())


def _content_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [p for p in content if isinstance(p, dict)]
    return []


def _snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _camel(name: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


def _get(obj: Any, name: str) -> Any:
    """A Gemini field by its camelCase name, sent under that name or its snake_case one (protobuf
    JSON accepts both, and google-genai sends a mix: `inlineData` holding `mime_type`)."""
    if not isinstance(obj, dict):
        return None
    return obj[name] if name in obj else obj.get(_snake(name))


def _b64_bytes(data: object) -> bytes | None:
    """Base64 as protobuf JSON takes it for bytes (standard or URL-safe alphabet); None if invalid."""
    if not isinstance(data, str) or not data:
        return None
    for alphabet in (None, b"-_"):
        try:
            return base64.b64decode(data + "=" * (-len(data) % 4), altchars=alphabet, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


def _gemini_parts(content: Any) -> list[dict[str, Any]]:
    """A Gemini content's parts in the neutral form the helpers below read: answer text (thought
    parts left out) and inline data."""
    out: list[dict[str, Any]] = []
    parts = _get(content, "parts")
    for p in parts if isinstance(parts, list) else []:
        if not isinstance(p, dict):
            continue
        if isinstance(p.get("text"), str) and not p.get("thought"):
            out.append({"type": "text", "text": p["text"]})
        inline = _get(p, "inlineData")
        if isinstance(inline, dict):
            out.append(
                {"type": "inline_data", "mime_type": _get(inline, "mimeType"), "data": inline.get("data")}
            )
    return out


def _message_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    if "parts" in message:  # a Gemini content
        return _gemini_parts(message)
    return _content_parts(message.get("content"))


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation of a request body: OpenAI/Anthropic `messages`, Gemini `contents`."""
    turns = body.get("messages") if "messages" in body else body.get("contents")
    return [m for m in turns or [] if isinstance(m, dict)]


def message_text(message: dict[str, Any]) -> str:
    """The text of one wire message (any protocol), parts joined by newlines."""
    return "\n".join(str(p.get("text", "")) for p in _message_parts(message) if p.get("type") == "text")


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions, messages or generateContent body."""
    for m in reversed(_messages(body)):
        # a Gemini content without a role is the user's
        if m.get("role", "user" if "parts" in m else None) == "user":
            return message_text(m)
    return ""


def _gemini_system(body: dict[str, Any]) -> Any:
    return _get(body, "systemInstruction")


def system_text(body: dict[str, Any]) -> str:
    """The system prompt: an OpenAI system message, Anthropic's `system` param or Gemini's
    `systemInstruction`."""
    if "system" in body:
        s = body["system"]
        return s if isinstance(s, str) else "\n".join(str(b.get("text", "")) for b in _content_parts(s))
    instruction = _gemini_system(body)
    if instruction is not None:
        return message_text({"parts": _get(instruction, "parts")})
    return "\n".join(message_text(m) for m in _messages(body) if m.get("role") == "system")


def request_images(body: dict[str, Any]) -> list[bytes]:
    """The decoded bytes of every image in a request, in order (data URIs, base64 blocks, inline data)."""
    return [data for _, data in request_media(body)]


def request_media(body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(media type, decoded bytes) of every image in a request, in order."""
    out: list[tuple[str, bytes]] = []
    for m in _messages(body):
        for p in _message_parts(m):
            if p.get("type") == "image_url":
                match = _DATA_URI.match(str((p.get("image_url") or {}).get("url", "")))
                if match:
                    out.append((match.group(1), base64.b64decode(match.group(2))))
            elif p.get("type") == "image":
                source = p.get("source") or {}
                out.append((str(source.get("media_type")), base64.b64decode(source.get("data", ""))))
            elif p.get("type") == "inline_data":
                out.append((str(p.get("mime_type")), _b64_bytes(p.get("data")) or b""))
    return out


def prompt_tokens(body: dict[str, Any]) -> int:
    """The input-token count the server reports for a request body."""
    has_own_system = "system" in body or _gemini_system(body) is not None
    n = estimate_tokens(system_text(body)) if has_own_system else 0
    for m in _messages(body):
        for p in _message_parts(m):
            if p.get("type") == "text":
                n += estimate_tokens(str(p.get("text", "")))
            elif p.get("type") in ("image_url", "image", "inline_data"):
                n += IMAGE_TOKENS
    return n


# --- validation, as strict as the real APIs on the points our backends could get wrong ----------


def _b64_ok(data: object) -> bool:
    if not isinstance(data, str) or not data:
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _validate_openai(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    if body.get("stream"):
        return "ScriptedServer does not stream; send stream=false"
    for key in ("max_tokens", "max_completion_tokens"):
        v = body.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            return f"Invalid '{key}': expected an integer >= 1, got {v!r}"
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _OPENAI_ROLES:
            role = m.get("role") if isinstance(m, dict) else m
            return f"Invalid value for 'messages[{i}].role': {role!r}"
        content = m.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return f"Invalid 'messages[{i}].content': expected a string or an array of content parts"
        for j, part in enumerate(content):
            where = f"messages[{i}].content[{j}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    return f"Missing required parameter: '{where}.text'"
            elif kind == "image_url":
                if m["role"] != "user":
                    return f"Invalid '{where}': image content is only allowed in messages with role 'user'"
                url = (part.get("image_url") or {}).get("url")
                if not isinstance(url, str):
                    return f"Missing required parameter: '{where}.image_url.url'"
                match = _DATA_URI.match(url)
                if match:
                    if not _b64_ok(match.group(2)):
                        return f"Invalid '{where}.image_url.url': the data URI is not valid base64"
                elif not url.startswith(("http://", "https://")):
                    return f"Invalid '{where}.image_url.url': expected a URL or a base64 data URI"
            else:
                return f"Invalid value for '{where}.type': {kind!r}"
    return None


def _validate_anthropic(body: dict[str, Any], headers: dict[str, str]) -> str | None:
    if "anthropic-version" not in headers:
        return "anthropic-version: header is required"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    mt = body.get("max_tokens")
    if isinstance(mt, bool) or not isinstance(mt, int) or mt < 1:
        return "max_tokens: Field required (an integer >= 1)"
    if body.get("stream"):
        return "ScriptedServer does not stream; send stream=false"
    system = body.get("system")
    if (
        system is not None
        and not isinstance(system, str)
        and (
            not isinstance(system, list)
            or any(
                not isinstance(b, dict) or b.get("type") != "text" or not isinstance(b.get("text"), str)
                for b in system
            )
        )
    ):
        return "system: Input should be a string or a list of text blocks"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("user", "assistant"):
            if role == "system":
                return (
                    f'messages.{i}.role: Unexpected role "system". The Messages API accepts a top-level '
                    '`system` parameter, not "system" as an input message role.'
                )
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = m.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list) or not content:
            return f"messages.{i}.content: Input should be a string or a non-empty list of content blocks"
        for j, block in enumerate(content):
            where = f"messages.{i}.content.{j}"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                if not isinstance(block.get("text"), str):
                    return f"{where}.text: Field required"
            elif kind == "image":
                if role != "user":
                    return f"{where}: image blocks are only allowed in user messages"
                source = block.get("source")
                if not isinstance(source, dict) or source.get("type") != "base64":
                    return f"{where}.source: expected a base64 image source"
                if source.get("media_type") not in _ANTHROPIC_MEDIA:
                    return f"{where}.source.media_type: Input should be one of {sorted(_ANTHROPIC_MEDIA)}"
                if not _b64_ok(source.get("data")):
                    return f"{where}.source.data: invalid base64 data"
            else:
                return f"{where}.type: unknown content block type {kind!r}"
    return None


# Gemini's messages by their fields' camelCase names (the API takes snake_case too).
_GOOGLE_REQUEST_FIELDS = {
    "model", "contents", "systemInstruction", "generationConfig", "safetySettings", "tools",
    "toolConfig", "cachedContent", "labels", "serviceTier", "store",
}  # fmt: skip
_GOOGLE_CONTENT_FIELDS = {"role", "parts"}
_GOOGLE_PART_DATA = {
    "text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode",
    "codeExecutionResult",
}  # fmt: skip
_GOOGLE_PART_FIELDS = _GOOGLE_PART_DATA | {
    "thought", "thoughtSignature", "videoMetadata", "mediaResolution", "partMetadata",
}  # fmt: skip
_GOOGLE_BLOB_FIELDS = {"mimeType", "data", "displayName"}
_GOOGLE_IMAGE_MEDIA = {"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}
_GOOGLE_GENERATION_FIELDS = {
    "stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema", "responseModalities",
    "candidateCount", "maxOutputTokens", "temperature", "topP", "topK", "seed", "presencePenalty",
    "frequencyPenalty", "responseLogprobs", "logprobs", "enableEnhancedCivicAnswers", "speechConfig",
    "thinkingConfig", "imageConfig", "mediaResolution",
}  # fmt: skip
_GOOGLE_THINKING_FIELDS = {"includeThoughts", "thinkingBudget", "thinkingLevel"}
_GOOGLE_THINKING_LEVELS = {"THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"}


def _unknown_field(obj: dict[str, Any], known: set[str], where: str) -> str | None:
    for key in obj:
        if _camel(str(key)) not in known:
            return f"Invalid JSON payload received. Unknown name \"{key}\" at '{where}': Cannot find field."
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _validate_google_content(content: object, where: str, *, system: bool = False) -> str | None:
    if not isinstance(content, dict):
        return f"* GenerateContentRequest.{where}: must be an object with parts"
    problem = _unknown_field(content, _GOOGLE_CONTENT_FIELDS, where)
    if problem:
        return problem
    role = content.get("role")
    if not system and role is not None and role not in ("user", "model"):
        return "Please use a valid role: user, model."
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        return f"* GenerateContentRequest.{where}.parts: contents.parts must not be empty."
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        if not isinstance(part, dict):
            return f"Invalid value at '{at}': expected a Part object"
        problem = _unknown_field(part, _GOOGLE_PART_FIELDS, at)
        if problem:
            return problem
        data = [_camel(k) for k in part if _camel(k) in _GOOGLE_PART_DATA]
        if len(data) != 1:
            return f"* GenerateContentRequest.{at}.data: required oneof field 'data' must have one initialized field"
        if system and data[0] != "text":
            return f"* GenerateContentRequest.{at}: system_instruction takes text parts only"
        if data[0] == "text" and not isinstance(part[next(k for k in part if _camel(k) == "text")], str):
            return f"Invalid value at '{at}.text' (TYPE_STRING)"
        if data[0] == "inlineData":
            blob = _get(part, "inlineData")
            if not isinstance(blob, dict):
                return f"Invalid value at '{at}.inline_data': expected a Blob object"
            problem = _unknown_field(blob, _GOOGLE_BLOB_FIELDS, f"{at}.inline_data")
            if problem:
                return problem
            mime = _get(blob, "mimeType")
            if not isinstance(mime, str) or "/" not in mime:
                return f"* GenerateContentRequest.{at}.inline_data.mime_type: a MIME type is required"
            if mime.startswith("image/") and mime not in _GOOGLE_IMAGE_MEDIA:
                return f"Unsupported MIME type: {mime}"
            if _b64_bytes(blob.get("data")) is None:
                return f"Invalid value at '{at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed"
    return None


def _validate_google_generation(config: object) -> str | None:
    where = "generation_config"
    if not isinstance(config, dict):
        return f"Invalid value at '{where}': expected a GenerationConfig object"
    problem = _unknown_field(config, _GOOGLE_GENERATION_FIELDS, where)
    if problem:
        return problem
    ranges = {"temperature": (0.0, 2.0), "topP": (0.0, 1.0)}
    for name, (low, high) in ranges.items():
        value = _get(config, name)
        if value is not None and (not _is_number(value) or not low <= value <= high):
            return f"* GenerateContentRequest.generation_config.{_snake(name)}: must be in [{low:g}, {high:g}] (got {value!r})"
    for name in ("maxOutputTokens", "topK", "candidateCount"):
        value = _get(config, name)
        if value is not None and (not _is_int(value) or value < 1):
            return f"* GenerateContentRequest.generation_config.{_snake(name)}: must be an integer >= 1 (got {value!r})"
    if _get(config, "candidateCount") not in (None, 1):
        return "ScriptedServer answers one candidate; send candidate_count 1 or none"
    seed = _get(config, "seed")
    if seed is not None and not _is_int(seed):
        return f"Invalid value at 'generation_config.seed' (TYPE_INT32), {seed!r}"
    thinking = _get(config, "thinkingConfig")
    if thinking is None:
        return None
    at = f"{where}.thinking_config"
    if not isinstance(thinking, dict):
        return f"Invalid value at '{at}': expected a ThinkingConfig object"
    problem = _unknown_field(thinking, _GOOGLE_THINKING_FIELDS, at)
    if problem:
        return problem
    budget, level = _get(thinking, "thinkingBudget"), _get(thinking, "thinkingLevel")
    include = _get(thinking, "includeThoughts")
    if include is not None and not isinstance(include, bool):
        return f"Invalid value at '{at}.include_thoughts' (TYPE_BOOL), {include!r}"
    if budget is not None and (not _is_int(budget) or budget < -1):
        return f"* GenerateContentRequest.{at}.thinking_budget: must be -1 (dynamic) or >= 0 (got {budget!r})"
    if level is not None and (not isinstance(level, str) or level.upper() not in _GOOGLE_THINKING_LEVELS):
        return f"Invalid value at '{at}.thinking_level' (type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel), {level!r}"
    if budget is not None and level is not None:
        return "Thinking budget and thinking level cannot be set at the same time; set only one of them."
    return None


def _validate_google(body: dict[str, Any], method: str) -> str | None:
    if method == "streamGenerateContent":
        return "ScriptedServer does not stream; call generateContent"
    problem = _unknown_field(body, _GOOGLE_REQUEST_FIELDS, "")
    if problem:
        return problem.replace(" at ''", "")
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for i, content in enumerate(contents):
        problem = _validate_google_content(content, f"contents[{i}]")
        if problem:
            return problem
    system = _gemini_system(body)
    if system is not None:
        problem = _validate_google_content(system, "system_instruction", system=True)
        if problem:
            return problem
    config = _get(body, "generationConfig")
    return None if config is None else _validate_google_generation(config)


# --- wire bodies -----------------------------------------------------------------------------

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _openai_error(status: int, message: str) -> dict[str, Any]:
    if status == 429:
        kind, code = "requests", "rate_limit_exceeded"
    elif status >= 500:
        kind, code = "server_error", None
    else:
        kind, code = "invalid_request_error", {401: "invalid_api_key", 404: "model_not_found"}.get(status)
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _google_error(status: int, message: str, retry_after: float | None = None) -> dict[str, Any]:
    """google.rpc.Status as the Gemini API sends it; a rate limit carries its RetryInfo."""
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": _GOOGLE_STATUS.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT"),
    }
    if retry_after is not None:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_after:g}s"}
        ]
    return {"error": error}


def _error_body(protocol: str | None, status: int, message: str, retry_after: float | None) -> dict[str, Any]:
    if protocol == "google":
        return _google_error(status, message, retry_after)
    if protocol == "anthropic":
        return _anthropic_error(status, message)
    return _openai_error(status, message)


def _batch_endpoints() -> Any:
    from playbench.testing import scripted_batch  # imports this module: loaded on first use

    return scripted_batch


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keep-alive, as real APIs do: the SDKs pool connections.
    protocol_version = "HTTP/1.1"
    # An idle keep-alive connection releases its thread after this long.
    timeout = 10
    # Headers and body leave in separate writes; with Nagle on, the body waits for the client's
    # delayed ACK (40 ms on Linux), which would swamp the latency a test or benchmark asks for.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.scripted._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.scripted._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if self.server.scripted.verbose:
            super().log_message(format, *args)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        # one write for headers and body, so a response is one segment on loopback
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(data)
        self.flush_headers()

    def _drop(self) -> None:
        """Close the connection without a response, as a crashed server or a proxy would."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _send_truncated(self, payload: Any) -> None:
        data = json.dumps(payload).encode("utf-8")
        data = data[: len(data) // 2]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        # Content-Length matches the cut body: the HTTP exchange is complete, only the JSON is not.
        self.send_header("Content-Length", str(len(data)))
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(data)
        self.flush_headers()

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if _batch_endpoints().handle(self, "GET"):  # the batch APIs: scripted_batch.py
            return
        srv = self.server.scripted
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = srv._record("GET", self.path, headers, None)
        if self.path.split("?")[0].rstrip("/") != "/v1/models":
            record.status = 404
            self._send_json(404, _openai_error(404, f"Unknown path {self.path}"))
            return
        record.status = 200
        if "anthropic-version" in headers:
            data = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2024-01-01T00:00:00Z"}
                for m in srv.models
            ]
            self._send_json(
                200, {"data": data, "has_more": False, "first_id": srv.models[0], "last_id": srv.models[-1]}
            )
        else:
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in srv.models]
            self._send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        if _batch_endpoints().handle(self, "POST"):
            return
        srv = self.server.scripted
        path, _, query = self.path.partition("?")
        path = path.rstrip("/")
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self._read_body()
        protocol = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}.get(path)
        google = _GOOGLE_PATH.match(path)
        if google is not None:
            protocol = "google"
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError as exc:
            body = None
            parse_error: str | None = f"request body is not valid JSON: {exc}"
        else:
            parse_error = None if isinstance(body, dict) else "request body must be a JSON object"
        record = srv._record("POST", self.path, headers, body, model_call=protocol is not None)
        if protocol is None:
            record.status = 404
            self._send_json(404, _openai_error(404, f"Unknown path {self.path}"))
            return

        def reply_error(status: int, message: str, retry_after: float | None = None) -> None:
            record.status = status
            extra = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else None
            self._send_json(status, _error_body(protocol, status, message, retry_after), extra)

        srv._enter()
        try:
            if srv.latency > 0:
                time.sleep(srv.latency)
            if protocol == "google":
                query_key = next((v for k, v in parse_qsl(query) if k == "key"), None)
                presented = headers.get("x-goog-api-key") or query_key
                if presented is None:
                    reply_error(
                        403,
                        "Method doesn't allow unregistered callers (callers without established identity). "
                        "Please use API Key or other form of API consumer identity to call this API.",
                    )
                    return
                if srv.require_key is not None and presented != srv.require_key:
                    reply_error(400, f"API key not valid. Please pass a valid API key. (got: {presented})")
                    return
            elif srv.require_key is not None:
                presented = headers.get("x-api-key") or headers.get("authorization", "").removeprefix(
                    "Bearer "
                )
                if presented != srv.require_key:
                    reply_error(401, f"Incorrect API key provided: {presented}")
                    return
            fault, n, total = srv._next_fault()
            record.fault = _fault_name(fault)
            if isinstance(fault, int):
                reply_error(
                    fault, f"ScriptedServer: scripted failure {n} of {total} (HTTP {fault})", srv.retry_after
                )
                return
            if isinstance(fault, ScriptedFailure):
                reply_error(fault.status, fault.message, fault.retry_after)
                return
            if fault == "drop":
                self._drop()
                return
            if fault == "timeout":
                # An Event rather than sleep, so stop() releases held requests at once.
                srv._stopping.wait(srv.fault_hold)
                self._drop()
                return
            if parse_error is not None:
                reply_error(400, parse_error)
                return
            if protocol == "openai":
                problem = _validate_openai(body)
            elif protocol == "anthropic":
                problem = _validate_anthropic(body, headers)
            else:
                assert google is not None
                problem = _validate_google(body, google.group(3))
                # the model travels in the path; replies and responders see it in the body
                body = {**body, "model": unquote(google.group(2))}
            if problem is not None:
                reply_error(400, problem)
                return
            if fault in ("truncated", "empty_choices", "no_action"):
                self._send_fault_reply(protocol, body, str(fault), n)
                record.status = 200
                return
            try:
                reply = srv._reply_for(body)
            except ScriptedFailure as exc:
                reply_error(exc.status, exc.message, exc.retry_after)
                return
            except Exception as exc:  # a broken test responder: fail fast, do not invite retries
                reply_error(400, f"ScriptedServer responder raised {type(exc).__name__}: {exc}")
                return
            n = srv._count_reply()
            record.status = 200
            payload = _REPLY_BUILDERS[protocol](body, reply, n)
            request_id = {"openai": "x-request-id", "anthropic": "request-id", "google": "x-goog-request-id"}
            self._send_json(200, payload, {request_id[protocol]: f"req_scripted_{n}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired); nothing left to answer
        finally:
            srv._leave()

    def _send_fault_reply(self, protocol: str, body: dict[str, Any], fault: str, n: int) -> None:
        payload = _REPLY_BUILDERS[protocol](body, ScriptedReply(NO_ACTION_REPLY), n)
        # distinct ids, so a fault reply is never mistaken for scripted reply number n
        id_field = "responseId" if protocol == "google" else "id"
        payload[id_field] = f"{payload[id_field]}-fault"
        if fault == "truncated":
            self._send_truncated(payload)
            return
        if fault == "empty_choices":
            # Billed like a real empty answer: the prompt was read, nothing was generated.
            p = prompt_tokens(body)
            if protocol == "openai":
                payload["choices"] = []
                payload["usage"] = {"prompt_tokens": p, "completion_tokens": 0, "total_tokens": p}
            elif protocol == "anthropic":
                payload["content"] = []
                payload["usage"] = {"input_tokens": p, "output_tokens": 0}
            else:  # neither candidates nor the promptFeedback that would explain their absence
                del payload["candidates"]
                payload["usageMetadata"] = {"promptTokenCount": p, "totalTokenCount": p}
        self._send_json(200, payload)


def _openai_reply(body: dict[str, Any], reply: ScriptedReply, n: int) -> dict[str, Any]:
    text = "" if reply.blocked is not None else reply.text
    p, r = prompt_tokens(body), reply.thinking_tokens
    c = estimate_tokens(text) + r
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if reply.finish == "refusal" and reply.blocked is None:
        message.update(content=None, refusal=reply.text)
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    usage: dict[str, Any] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    if reply.has_reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": r}
    return {
        "id": f"chatcmpl-scripted-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "system_fingerprint": "scripted",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.wire_finish("openai"),
            }
        ],
        "usage": usage,
    }


def _anthropic_reply(body: dict[str, Any], reply: ScriptedReply, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append(
            {"type": "thinking", "thinking": reply.reasoning, "signature": f"scripted-signature-{n}"}
        )
    text = "" if reply.blocked is not None else reply.text
    # an empty answer that ended normally keeps its (empty) text block, as this server always sent
    if text or (
        reply.finish == "stop" and reply.blocked is None and reply.finish_reason is None and not content
    ):
        content.append({"type": "text", "text": text})
    return {
        "id": f"msg_scripted_{n}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": reply.wire_finish("anthropic"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt_tokens(body),
            "output_tokens": estimate_tokens(text) + reply.thinking_tokens,
        },
    }


_BLOCKED_RATINGS = [
    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True},
    {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
]


def _google_reply(body: dict[str, Any], reply: ScriptedReply, n: int) -> dict[str, Any]:
    p = prompt_tokens(body)
    payload: dict[str, Any] = {"modelVersion": body["model"], "responseId": f"scripted-{n}"}
    if reply.blocked is not None:
        payload["promptFeedback"] = {"blockReason": reply.blocked, "safetyRatings": _BLOCKED_RATINGS}
        payload["usageMetadata"] = {"promptTokenCount": p, "totalTokenCount": p}
        return payload
    parts: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        parts.append({"text": reply.reasoning, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    finish = reply.wire_finish("google")
    candidate: dict[str, Any] = {"index": 0}
    if parts:
        candidate["content"] = {"role": "model", "parts": parts}
    elif finish != "SAFETY":  # cut before any answer; a safety stop sends no content at all
        candidate["content"] = {"role": "model"}
    candidate["finishReason"] = finish
    if finish == "SAFETY":
        candidate["safetyRatings"] = _BLOCKED_RATINGS
    c, r = estimate_tokens(reply.text), reply.thinking_tokens
    # protobuf JSON leaves out zero counts, as the real API's usage does
    usage: dict[str, Any] = {"promptTokenCount": p}
    if c:
        usage["candidatesTokenCount"] = c
    if r:
        usage["thoughtsTokenCount"] = r
    usage["totalTokenCount"] = p + c + r
    payload.update(candidates=[candidate], usageMetadata=usage)
    return payload


_REPLY_BUILDERS: dict[str, Callable[[dict[str, Any], ScriptedReply, int], dict[str, Any]]] = {
    "openai": _openai_reply,
    "anthropic": _anthropic_reply,
    "google": _google_reply,
}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The stdlib default backlog of 5 makes bursts of concurrent connections wait on SYN retries.
    request_queue_size = 256
    scripted: ScriptedServer


class ScriptedServer:
    """See the module docstring. Use as a context manager, or call start() / stop()."""

    def __init__(
        self,
        responder: Responder,
        *,
        latency: float = 0.0,
        failures: Sequence[int] | None = None,
        faults: Sequence[Fault] | None = None,
        fault_hold: float = 2.0,
        cycle: bool = False,
        retry_after: float | None = None,
        require_key: str | None = None,
        models: Sequence[str] = ("scripted",),
        host: str = "127.0.0.1",
        port: int = 0,
        verbose: bool = False,
    ) -> None:
        if isinstance(responder, str | ScriptedReply | Mapping):
            single = as_reply(responder)
            self._replies: list[ScriptedReply] | None = None
            self._fn: Callable[[dict[str, Any]], Reply] | None = lambda _body: single
        elif callable(responder):
            self._replies, self._fn = None, responder
        else:
            self._replies, self._fn = [as_reply(r) for r in responder], None
            if not self._replies:
                raise ValueError("ScriptedServer needs at least one scripted reply")
        self._cycle = itertools.cycle(self._replies) if cycle and self._replies else None
        self.latency = float(latency)
        self.failures = [int(s) for s in failures or []]
        self.faults: list[Fault] = [_check_fault(f) for f in faults or []]
        self.fault_hold = float(fault_hold)
        self.retry_after = retry_after
        self.require_key = require_key
        self.models = list(models) or ["scripted"]
        self.host, self._port = host, port
        self.verbose = verbose

        self._lock = threading.Lock()
        self.log: list[RecordedRequest] = []
        self._failure_index = 0
        self._reply_index = 0
        self._replies_served = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._conns: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._bound_port: int | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((self.host, self._port), _Handler)
        httpd.scripted = self
        self._httpd = httpd
        self._bound_port = int(httpd.server_address[1])
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        # Idle keep-alive connections would otherwise hold their handler threads until timeout.
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Run in the foreground until interrupted (for the command line)."""
        self.start()
        try:
            while self._thread is not None and self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    # --- addresses -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        # Still answers after stop(), so a test can assert on addresses once the `with` block ends.
        if self._bound_port is None:
            raise RuntimeError(
                "ScriptedServer was never started; use it as a context manager or call start()"
            )
        return self._bound_port

    @property
    def anthropic_base_url(self) -> str:
        """For anthropic.AsyncAnthropic(base_url=...): the SDK appends /v1/messages itself."""
        return f"http://{self.host}:{self.port}"

    @property
    def google_base_url(self) -> str:
        """For google.genai.Client(http_options=HttpOptions(base_url=...)) and `google:` models'
        `--base-url`: the server's root; the SDK appends /{version}/models/{model}:generateContent."""
        return self.anthropic_base_url

    @property
    def base_url(self) -> str:
        """For openai.AsyncOpenAI(base_url=...) and `--base-url`: ends in /v1."""
        return f"{self.anthropic_base_url}/v1"

    # --- observations --------------------------------------------------------------------------

    @property
    def requests(self) -> list[Any]:
        """JSON bodies of all model requests received so far, in arrival order (a copy)."""
        with self._lock:
            return [r.body for r in self.log if r.model_call]

    @property
    def replies_served(self) -> int:
        with self._lock:
            return self._replies_served

    # --- used by the handler threads -----------------------------------------------------------

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: Any, model_call: bool = False
    ) -> RecordedRequest:
        record = RecordedRequest(method, path, headers, body, model_call=model_call)
        with self._lock:
            self.log.append(record)
        return record

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_fault(self) -> tuple[Fault, int, int]:
        """(the next entry of failures + faults or None, its 1-based position, the script's length)."""
        with self._lock:
            script = [*self.failures, *self.faults]
            if self._failure_index >= len(script):
                return None, 0, len(script)
            self._failure_index += 1
            return script[self._failure_index - 1], self._failure_index, len(script)

    def _reply_for(self, body: dict[str, Any]) -> ScriptedReply:
        if self._fn is not None:
            # Outside the lock: a slow responder must not serialise concurrent requests.
            return as_reply(self._fn(body))
        assert self._replies is not None
        with self._lock:
            if self._cycle is not None:
                return next(self._cycle)
            if self._reply_index >= len(self._replies):
                raise ScriptedFailure(
                    400,
                    f"ScriptedServer: scripted replies exhausted (all {len(self._replies)} used; "
                    "script more replies or pass cycle=True)",
                )
            self._reply_index += 1
            return self._replies[self._reply_index - 1]

    def _count_reply(self) -> int:
        with self._lock:
            self._replies_served += 1
            return self._replies_served


@contextlib.contextmanager
def server_process(
    replies: Sequence[str], latency: float = 0.0, start_timeout: float = 10.0
) -> Iterator[str]:
    """A ScriptedServer in a process of its own, as a remote server would be (in this process it would
    compete for the GIL with the client being measured); yields its OpenAI base URL once it listens."""
    port = unused_port()
    argv = [sys.executable, "-m", "playbench.testing.scripted_server", "--port", str(port)]
    argv += [arg for reply in replies for arg in ("--reply", reply)] + ["--latency", str(latency)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the scripted server on port {port} did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m playbench.testing.scripted_server",
        description="Serve scripted replies over the OpenAI, Anthropic and Gemini wire protocols on localhost.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--reply", action="append", default=[], help="a reply; repeat for several, served in a loop"
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument(
        "--fail", type=int, action="append", default=[], help="HTTP status for the next request"
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        help=f"after the --fail list, an HTTP status or one of {', '.join(sorted(FAULT_KINDS))}; repeatable",
    )
    parser.add_argument(
        "--fault-hold", type=float, default=2.0, help="seconds a 'timeout' fault holds its request"
    )
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    replies = args.reply or ["ok"]
    srv = ScriptedServer(
        replies,
        cycle=True,
        latency=args.latency,
        failures=args.fail,
        faults=[int(f) if f.isdigit() else f for f in args.fault],
        fault_hold=args.fault_hold,
        host=args.host,
        port=args.port,
        verbose=args.verbose,
    )
    srv.start()
    print(f"ScriptedServer on {srv.anthropic_base_url}", flush=True)
    print(f"  OpenAI:    --base-url {srv.base_url}   (or OPENAI_BASE_URL={srv.base_url})", flush=True)
    print(f"  Anthropic: ANTHROPIC_BASE_URL={srv.anthropic_base_url}", flush=True)
    print(f"  Gemini:    GOOGLE_GEMINI_BASE_URL={srv.google_base_url}", flush=True)
    print("Ctrl-C to stop.", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
