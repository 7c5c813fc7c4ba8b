"""The scripted server's HTTP side: the request handler that checks a request's key, applies the
scripted failures and faults, validates the body and answers with the next scripted reply (the
batch endpoints are handed to `playbench.testing.scripted_batch`), and the threading HTTP server
it runs in."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote

from playbench.testing.scripted_wire.bodies import _REPLY_BUILDERS, _error_body, _openai_error
from playbench.testing.scripted_wire.requests import prompt_tokens
from playbench.testing.scripted_wire.scripting import (
    NO_ACTION_REPLY,
    ScriptedFailure,
    ScriptedReply,
    _fault_name,
)
from playbench.testing.scripted_wire.validation import _validate_anthropic, _validate_google, _validate_openai

if TYPE_CHECKING:  # only for the annotation: scripted_server imports this module
    from playbench.testing.scripted_server import ScriptedServer

# POST /{version}/models/{model}:{method}; a model name may itself hold colons (`llama3.2:3b`).
_GOOGLE_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/]+):(generateContent|streamGenerateContent)$")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The stdlib default backlog of 5 makes bursts of concurrent connections wait on SYN retries.
    request_queue_size = 256
    scripted: ScriptedServer


def _batch_endpoints() -> Any:
    # it imports scripted_server, which imports this module: loaded on first use
    from playbench.testing import scripted_batch

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
