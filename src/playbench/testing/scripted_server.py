"""A scripted model server on 127.0.0.1 that speaks the real OpenAI and Anthropic wire protocols.

Tests (and offline demos) point the real SDKs at it, so the whole path from an agent's messages to
HTTP and back is exercised without a network or a model:

    with ScriptedServer(["action: up", "action: left"]) as srv:
        model = make_model("openai:scripted", base_url=srv.base_url)
        ...
        assert srv.requests[0]["messages"][0]["role"] == "system"

Endpoints: POST /v1/chat/completions and GET /v1/models (OpenAI), POST /v1/messages (Anthropic;
its SDK's base URL is `srv.anthropic_base_url`, without /v1).

Scripting:
- `responder`: a string (always that reply), a list of replies served in order, or a callable
  `(request_json) -> str`. A list that runs out is an error, not a loop: the server answers
  HTTP 400 "scripted replies exhausted" so a test that makes more calls than it scripted fails
  loudly (pass `cycle=True` to loop over the list instead). The callable runs in the server's
  handler threads, possibly concurrently; it may raise `ScriptedFailure(status, message,
  retry_after)` to answer with that error. Any other exception becomes HTTP 400 (not 500) so a broken test responder fails
  at once instead of being retried.
- `latency`: seconds each model request waits before it is answered (each request has its own
  thread, so concurrent requests overlap rather than queue).
- `failures`: HTTP statuses returned, in order, to the first model requests (with an error body in
  the provider's format), e.g. `[429, 500]`; `retry_after` adds a Retry-After header to them.
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
    (OpenAI) or `content: []` (Anthropic);
  - `"no_action"`: HTTP 200 with a normal reply whose text (`NO_ACTION_REPLY`) holds no action;
  - `None` (or `"ok"`): no fault, answer this request normally; a placeholder to put later
    faults at chosen positions.
  Faults are validated when the server is made. `srv.log[i].fault` names the fault a request got.
- `require_key`: if set, requests must carry this key (Bearer or x-api-key) or get 401. The 401
  message quotes the presented key verbatim, on purpose: tests use it to prove that backends
  redact keys from their errors.
- Requests are validated like the real APIs would (roles, content parts, data-URI / base64 images,
  Anthropic's top-level `system` and mandatory `max_tokens`), so wire-format mistakes fail here.
- Usage is a deterministic estimate: whitespace-separated words of all prompt text, plus
  IMAGE_TOKENS per image; output tokens are the words of the reply.

Observation: `srv.requests` (the JSON body of every model request received, including the ones
answered with a scripted failure, in arrival order), `srv.log` (method, path, headers, body,
status of every request), `srv.max_in_flight` (the most model requests handled at once).
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

IMAGE_TOKENS = 85

# What the "no_action" fault answers: plausible model prose in which no task finds an action.
NO_ACTION_REPLY = "I am not sure."

Responder = str | Sequence[str] | Callable[[dict[str, Any]], str]

FAULT_KINDS = frozenset({"timeout", "drop", "truncated", "empty_choices", "no_action", "ok"})

_DATA_URI = re.compile(r"^data:(image/(?:png|jpeg|gif|webp));base64,(.*)$", re.DOTALL)
_ANTHROPIC_MEDIA = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_OPENAI_ROLES = {"system", "developer", "user", "assistant", "tool"}


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


def message_text(message: dict[str, Any]) -> str:
    """The text of one wire message (either protocol), parts joined by newlines."""
    return "\n".join(
        str(p.get("text", "")) for p in _content_parts(message.get("content")) if p.get("type") == "text"
    )


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions or messages request body."""
    for m in reversed(body.get("messages") or []):
        if isinstance(m, dict) and m.get("role") == "user":
            return message_text(m)
    return ""


def system_text(body: dict[str, Any]) -> str:
    """The system prompt, whether sent as an OpenAI system message or Anthropic's `system` param."""
    if "system" in body:
        s = body["system"]
        return s if isinstance(s, str) else "\n".join(str(b.get("text", "")) for b in _content_parts(s))
    return "\n".join(
        message_text(m)
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "system"
    )


def request_images(body: dict[str, Any]) -> list[bytes]:
    """The decoded bytes of every image in a request, in order (data URIs or base64 blocks)."""
    out: list[bytes] = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        for p in _content_parts(m.get("content")):
            if p.get("type") == "image_url":
                match = _DATA_URI.match(str((p.get("image_url") or {}).get("url", "")))
                if match:
                    out.append(base64.b64decode(match.group(2)))
            elif p.get("type") == "image":
                out.append(base64.b64decode((p.get("source") or {}).get("data", "")))
    return out


def prompt_tokens(body: dict[str, Any]) -> int:
    """The input-token count the server reports for a request body."""
    n = estimate_tokens(system_text(body)) if "system" in body else 0
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        for p in _content_parts(m.get("content")):
            if p.get("type") == "text":
                n += estimate_tokens(str(p.get("text", "")))
            elif p.get("type") in ("image_url", "image"):
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
        srv = self.server.scripted
        path = self.path.split("?")[0].rstrip("/")
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self._read_body()
        protocol = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}.get(path)
        error_body = _anthropic_error if protocol == "anthropic" else _openai_error
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

        def reply_error(status: int, message: str, extra: dict[str, str] | None = None) -> None:
            record.status = status
            self._send_json(status, error_body(status, message), extra)

        srv._enter()
        try:
            if srv.latency > 0:
                time.sleep(srv.latency)
            if srv.require_key is not None:
                presented = headers.get("x-api-key") or headers.get("authorization", "").removeprefix(
                    "Bearer "
                )
                if presented != srv.require_key:
                    reply_error(401, f"Incorrect API key provided: {presented}")
                    return
            fault, n, total = srv._next_fault()
            record.fault = _fault_name(fault)
            if isinstance(fault, int):
                extra = {"Retry-After": f"{srv.retry_after:g}"} if srv.retry_after is not None else None
                reply_error(fault, f"ScriptedServer: scripted failure {n} of {total} (HTTP {fault})", extra)
                return
            if isinstance(fault, ScriptedFailure):
                extra = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else None
                reply_error(fault.status, fault.message, extra)
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
            problem = _validate_openai(body) if protocol == "openai" else _validate_anthropic(body, headers)
            if problem is not None:
                reply_error(400, problem)
                return
            if fault in ("truncated", "empty_choices", "no_action"):
                self._send_fault_reply(protocol, body, str(fault), n)
                record.status = 200
                return
            try:
                text = srv._reply_for(body)
            except ScriptedFailure as exc:
                extra = {"Retry-After": f"{exc.retry_after:g}"} if exc.retry_after is not None else None
                reply_error(exc.status, exc.message, extra)
                return
            except Exception as exc:  # a broken test responder: fail fast, do not invite retries
                reply_error(400, f"ScriptedServer responder raised {type(exc).__name__}: {exc}")
                return
            n = srv._count_reply()
            record.status = 200
            if protocol == "openai":
                self._send_json(200, _openai_reply(body, text, n), {"x-request-id": f"req_scripted_{n}"})
            else:
                self._send_json(200, _anthropic_reply(body, text, n), {"request-id": f"req_scripted_{n}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired); nothing left to answer
        finally:
            srv._leave()

    def _send_fault_reply(self, protocol: str, body: dict[str, Any], fault: str, n: int) -> None:
        text = NO_ACTION_REPLY
        payload = _openai_reply(body, text, n) if protocol == "openai" else _anthropic_reply(body, text, n)
        # distinct ids, so a fault reply is never mistaken for scripted reply number n
        payload["id"] = f"{payload['id']}-fault"
        if fault == "truncated":
            self._send_truncated(payload)
            return
        if fault == "empty_choices":
            # Billed like a real empty answer: the prompt was read, nothing was generated.
            p = prompt_tokens(body)
            if protocol == "openai":
                payload["choices"] = []
                payload["usage"] = {"prompt_tokens": p, "completion_tokens": 0, "total_tokens": p}
            else:
                payload["content"] = []
                payload["usage"] = {"input_tokens": p, "output_tokens": 0}
        self._send_json(200, payload)


def _openai_reply(body: dict[str, Any], text: str, n: int) -> dict[str, Any]:
    p, c = prompt_tokens(body), estimate_tokens(text)
    return {
        "id": f"chatcmpl-scripted-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "system_fingerprint": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    }


def _anthropic_reply(body: dict[str, Any], text: str, n: int) -> dict[str, Any]:
    return {
        "id": f"msg_scripted_{n}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens(body), "output_tokens": estimate_tokens(text)},
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
        if isinstance(responder, str):
            self._replies: list[str] | None = None
            self._fn: Callable[[dict[str, Any]], str] | None = lambda _body, _r=responder: _r
        elif callable(responder):
            self._replies, self._fn = None, responder
        else:
            self._replies, self._fn = [str(r) for r in responder], None
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

    def _reply_for(self, body: dict[str, Any]) -> str:
        if self._fn is not None:
            # Outside the lock: a slow responder must not serialise concurrent requests.
            return str(self._fn(body))
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
        description="Serve scripted replies over the OpenAI and Anthropic wire protocols on localhost.",
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
    print("Ctrl-C to stop.", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
