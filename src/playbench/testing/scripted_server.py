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

The parts live in `playbench.testing.scripted_wire` (request helpers, validation, scripting types,
wire bodies, the HTTP handler); this module holds the server, `server_process` and the command
line, and re-exports the parts' names that tests and `scripted_batch` import from here.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playbench.testing.scripted_wire.bodies import (
    _REPLY_BUILDERS,
    _anthropic_error,
    _error_body,
    _openai_error,
)
from playbench.testing.scripted_wire.handler import _Handler, _HTTPServer
from playbench.testing.scripted_wire.requests import (
    IMAGE_TOKENS,
    estimate_tokens,
    last_user_text,
    message_text,
    prompt_tokens,
    request_images,
    request_media,
    system_text,
)
from playbench.testing.scripted_wire.scripting import (
    FAULT_KINDS,
    FINISHES,
    NO_ACTION_REPLY,
    Fault,
    Reply,
    Responder,
    ScriptedFailure,
    ScriptedReply,
    _check_fault,
    as_reply,
)
from playbench.testing.scripted_wire.validation import _validate_anthropic, _validate_openai

# the names other modules import from here (their homes: scripted_wire/); scripted_batch.py uses
# the private ones
__all__ = [
    "FAULT_KINDS",
    "FINISHES",
    "IMAGE_TOKENS",
    "NO_ACTION_REPLY",
    "Fault",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ScriptedFailure",
    "ScriptedReply",
    "ScriptedServer",
    "_REPLY_BUILDERS",
    "_anthropic_error",
    "_error_body",
    "_openai_error",
    "_validate_anthropic",
    "_validate_openai",
    "as_reply",
    "estimate_tokens",
    "last_user_text",
    "main",
    "message_text",
    "prompt_tokens",
    "request_images",
    "request_media",
    "server_process",
    "system_text",
    "unused_port",
]


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
