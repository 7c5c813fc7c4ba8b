"""The batch wire formats of OpenAI and Anthropic, for the scripted server (`scripted_server.py`).

Endpoints (beside the server's model endpoints, under the same key check):
- OpenAI Files and Batch API: POST /v1/files (multipart: `file`, `purpose=batch`), GET /v1/files/{id}
  and /v1/files/{id}/content, POST /v1/batches (`input_file_id`, `endpoint=/v1/chat/completions`,
  `completion_window=24h`), GET /v1/batches/{id}, POST /v1/batches/{id}/cancel. A batch reads
  `validating`, then `in_progress` for `polls` retrievals, then its end (`completed`, or the script's
  `outcome`); its `output_file_id` holds the 200 answers, its `error_file_id` the other statuses
  and the requests it never ran (`error.code` `batch_expired` / `batch_cancelled`).
- Anthropic Message Batches: POST /v1/messages/batches, GET /v1/messages/batches/{id} (and its
  `results_url`), GET /v1/messages/batches/{id}/results (JSONL), POST .../{id}/cancel. A batch is
  `in_progress` for `polls` retrievals, then `ended`; results are `succeeded` (the Message a direct
  request gets), `errored` (the API's error object), `expired` or `canceled`.

Each batched request is validated and answered when its batch is created, in line order, by the
server's own responder and reply builder, exactly as a direct request (it uses up scripted replies
the same way and is counted in `srv.requests` and `srv.log` as a model call, method "BATCH", path the
batch id). The server's `failures` and `faults` (transport problems) do not apply to batched requests.

Scripting (`configure(srv, ...)`, else the defaults):
- `polls`: retrievals that answer "in progress" before a batch ends (default 1).
- `fail`: per batched request in arrival order over all batches: None (answer it), an HTTP status,
  or a `ScriptedFailure(status, message)`; or a callable `(body) -> that`.
- `outcome`: how batches end: `completed` (default), `expired` (the first `answered` requests of each
  batch answered, the rest expired), `failed` (OpenAI: nothing ran, `errors` says why; Anthropic has no
  such state: creation fails with 400 instead), `cancelled` (nothing answered).
Observation: `script_of(srv).batches` (id -> `ScriptedBatch`), `.created` (ids in order).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from playbench.testing import scripted_server as ss

OUTCOMES = ("completed", "expired", "failed", "cancelled")
BatchFault = int | ss.ScriptedFailure | None

_OPENAI_FILE = re.compile(r"^/v1/files/([^/]+)(/content)?$")
_OPENAI_BATCH = re.compile(r"^/v1/batches/([^/]+)(/cancel)?$")
_ANTHROPIC_BATCH = re.compile(r"^/v1/messages/batches/([^/]+)(/results|/cancel)?$")


@dataclass
class ScriptedBatch:
    id: str
    protocol: str  # "openai" or "anthropic"
    created_at: int
    # custom_id -> ("ok", reply payload) or ("error", (status, message)); in line order
    answers: dict[str, tuple[str, Any]] = field(default_factory=dict)
    retrievals: int = 0
    cancelled: bool = False
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    final: str | None = None  # the end state, once reached


@dataclass
class BatchScript:
    polls: int = 1
    fail: Sequence[BatchFault] | Callable[[dict[str, Any]], BatchFault] = ()
    outcome: str = "completed"
    answered: int | None = None  # with outcome="expired": requests answered per batch (default half)
    batches: dict[str, ScriptedBatch] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # id -> (name, content)
    seen: int = 0  # batched requests so far (the index into `fail`)
    lock: threading.Lock = field(default_factory=threading.Lock)


_SCRIPTS: dict[int, BatchScript] = {}
_SCRIPTS_LOCK = threading.Lock()


def configure(
    srv: ss.ScriptedServer,
    *,
    polls: int = 1,
    fail: Sequence[BatchFault] | Callable[[dict[str, Any]], BatchFault] = (),
    outcome: str = "completed",
    answered: int | None = None,
) -> BatchScript:
    """Set how `srv` runs batches (see the module docstring); returns the script to observe."""
    if isinstance(polls, bool) or not isinstance(polls, int) or polls < 0:
        raise ValueError(f"polls must be an integer >= 0 (got {polls!r})")
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown batch outcome {outcome!r}: expected one of {', '.join(OUTCOMES)}")
    if not callable(fail):
        for f in fail:
            if isinstance(f, bool) or not (f is None or isinstance(f, int | ss.ScriptedFailure)):
                raise ValueError(
                    f"unknown batch fault {f!r}: expected None, an HTTP status or a ScriptedFailure"
                )
    script = BatchScript(polls=polls, fail=fail, outcome=outcome, answered=answered)
    with _SCRIPTS_LOCK:
        _SCRIPTS[id(srv)] = script
    return script


def script_of(srv: ss.ScriptedServer) -> BatchScript:
    with _SCRIPTS_LOCK:
        return _SCRIPTS.setdefault(id(srv), BatchScript())


def handle(handler: Any, method: str) -> bool:
    """Answer the request if it is a batch endpoint's (True); leave it to the server otherwise."""
    path = handler.path.partition("?")[0].rstrip("/")
    is_openai = path in ("/v1/files", "/v1/batches") or bool(
        _OPENAI_FILE.match(path) or _OPENAI_BATCH.match(path)
    )
    is_anthropic = path == "/v1/messages/batches" or bool(_ANTHROPIC_BATCH.match(path))
    if not (is_openai or is_anthropic):
        return False
    srv: ss.ScriptedServer = handler.server.scripted
    headers = {k.lower(): v for k, v in handler.headers.items()}
    raw = handler._read_body() if method == "POST" else b""
    record = srv._record(method, handler.path, headers, None)
    protocol = "anthropic" if is_anthropic else "openai"

    def send(status: int, payload: Any) -> None:
        record.status = status
        if isinstance(payload, bytes):
            handler.send_response(status)
            handler.send_header("Content-Type", "application/octet-stream")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        else:
            handler._send_json(status, payload)

    def error(status: int, message: str) -> None:
        send(status, ss._error_body(protocol, status, message, None))

    if srv.require_key is not None:
        presented = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if presented != srv.require_key:
            error(401, f"Incorrect API key provided: {presented}")
            return True
    script = script_of(srv)
    try:
        if is_openai:
            _openai(srv, script, method, path, headers, raw, record, send, error)
        else:
            _anthropic(srv, script, method, path, headers, raw, record, send, error)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return True


# --- OpenAI --------------------------------------------------------------------------------------


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts() if message.is_multipart() else []:
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = (part.get_filename(), cast(bytes, part.get_payload(decode=True)) or b"")
    return fields


def _file_object(file_id: str, name: str, content: bytes, purpose: str = "batch") -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": len(content),
        "created_at": int(time.time()),
        "filename": name,
        "purpose": purpose,
        "status": "processed",
    }


def _openai(
    srv: Any,
    script: BatchScript,
    method: str,
    path: str,
    headers: dict[str, str],
    raw: bytes,
    record: Any,
    send: Callable[[int, Any], None],
    error: Callable[[int, str], None],
) -> None:
    if method == "POST" and path == "/v1/files":
        fields = _multipart(headers.get("content-type", ""), raw)
        if "file" not in fields:
            return error(400, "Missing required parameter: 'file' (a multipart upload)")
        purpose = fields.get("purpose", (None, b""))[1].decode()
        if purpose != "batch":
            return error(400, f"Invalid value for 'purpose': {purpose!r} (this server takes 'batch')")
        name, content = fields["file"]
        with script.lock:
            file_id = f"file-scripted-{len(script.files) + 1}"
            script.files[file_id] = (name or "upload.jsonl", content)
        return send(200, _file_object(file_id, name or "upload.jsonl", content))
    found = _OPENAI_FILE.match(path)
    if method == "GET" and found:
        with script.lock:
            file = script.files.get(found.group(1))
        if file is None:
            return error(404, f"No such File object: {found.group(1)}")
        return send(200, file[1] if found.group(2) else _file_object(found.group(1), *file))
    if method == "POST" and path == "/v1/batches":
        body = _json(raw)
        if body is None:
            return error(400, "request body must be a JSON object")
        record.body = body
        if body.get("endpoint") != "/v1/chat/completions":
            return error(
                400,
                f"Invalid value for 'endpoint': {body.get('endpoint')!r} (this server: /v1/chat/completions)",
            )
        if body.get("completion_window") != "24h":
            return error(400, f"Invalid value for 'completion_window': {body.get('completion_window')!r}")
        with script.lock:
            file = script.files.get(str(body.get("input_file_id")))
        if file is None:
            return error(400, f"No such File object: {body.get('input_file_id')}")
        lines = [_json(line) for line in file[1].decode("utf-8").splitlines() if line.strip()]
        if not lines or any(line is None for line in lines):
            return error(400, "the input file must hold one JSON object a line")
        batch = _new_batch(script, "openai", "batch_scripted")
        batch.input_file_id = str(body["input_file_id"])
        for n, line in enumerate(cast(list[dict[str, Any]], lines), 1):
            custom_id = line.get("custom_id")
            if not isinstance(custom_id, str) or custom_id in batch.answers:
                return error(400, f"line {n}: a custom_id must be a string unique in the file")
            if line.get("method") != "POST" or line.get("url") != "/v1/chat/completions":
                return error(400, f"line {n}: expected method POST and url /v1/chat/completions")
            batch.answers[custom_id] = _answer(srv, script, "openai", line.get("body"), headers, batch.id)
        return send(200, _openai_batch(srv, script, batch, advance=False))
    found = _OPENAI_BATCH.match(path)
    if found and (batch := script.batches.get(found.group(1))) is not None:
        if method == "POST" and found.group(2):
            batch.cancelled = True
            return send(200, _openai_batch(srv, script, batch, advance=False))
        if method == "GET" and not found.group(2):
            return send(200, _openai_batch(srv, script, batch))
    error(404, f"Unknown path {path}")


def _openai_batch(
    srv: Any, script: BatchScript, batch: ScriptedBatch, advance: bool = True
) -> dict[str, Any]:
    """The batch object; each retrieval moves it on."""
    total = len(batch.answers)
    state, completed, failed = _advance(script, batch, advance)
    out: dict[str, Any] = {
        "id": batch.id,
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "errors": None,
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": state,
        "output_file_id": batch.output_file_id,
        "error_file_id": batch.error_file_id,
        "created_at": batch.created_at,
        "expires_at": batch.created_at + 86_400,
        "request_counts": {"total": total, "completed": completed, "failed": failed},
        "metadata": None,
    }
    if state == "failed":
        out["errors"] = {
            "object": "list",
            "data": [
                {
                    "code": "invalid_request",
                    "message": "ScriptedServer: the batch failed (outcome='failed')",
                    "param": None,
                    "line": None,
                }
            ],
        }
    if batch.final is not None and state != "failed" and batch.output_file_id is None:
        output, errors = [], []
        for n, (custom_id, (kind, value)) in enumerate(batch.answers.items()):
            if kind == "ok" and _answered(script, batch, n):
                response = {"status_code": 200, "request_id": f"req_{n}", "body": value}
                output.append(
                    {"id": f"batch_req_{n}", "custom_id": custom_id, "response": response, "error": None}
                )
            elif kind == "error" and _answered(script, batch, n):
                status, message = value
                response = {
                    "status_code": status,
                    "request_id": f"req_{n}",
                    "body": ss._openai_error(status, message),
                }
                errors.append(
                    {"id": f"batch_req_{n}", "custom_id": custom_id, "response": response, "error": None}
                )
            else:
                code = "batch_cancelled" if batch.final == "cancelled" else "batch_expired"
                errors.append(
                    {
                        "id": f"batch_req_{n}",
                        "custom_id": custom_id,
                        "response": None,
                        "error": {"code": code, "message": f"This request was not run ({code})."},
                    }
                )
        with script.lock:
            for kind, lines in (("output", output), ("error", errors)):
                if lines:
                    file_id = f"file-scripted-{len(script.files) + 1}"
                    content = "".join(json.dumps(x) + "\n" for x in lines).encode()
                    script.files[file_id] = (f"{batch.id}_{kind}.jsonl", content)
                    setattr(batch, f"{kind}_file_id", file_id)
        out.update(output_file_id=batch.output_file_id, error_file_id=batch.error_file_id)
    return out


# --- Anthropic -----------------------------------------------------------------------------------


def _anthropic(
    srv: Any,
    script: BatchScript,
    method: str,
    path: str,
    headers: dict[str, str],
    raw: bytes,
    record: Any,
    send: Callable[[int, Any], None],
    error: Callable[[int, str], None],
) -> None:
    if method == "POST" and path == "/v1/messages/batches":
        body = _json(raw)
        requests = body.get("requests") if body is not None else None
        if not isinstance(requests, list) or not requests:
            return error(400, "requests: a non-empty list of {custom_id, params} is required")
        if script.outcome == "failed":
            return error(400, "ScriptedServer: the batch was refused (outcome='failed')")
        batch = _new_batch(script, "anthropic", "msgbatch_scripted")
        for n, item in enumerate(requests):
            custom_id = item.get("custom_id") if isinstance(item, dict) else None
            if not isinstance(custom_id, str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", custom_id):
                return error(400, f"requests.{n}.custom_id: must match ^[a-zA-Z0-9_-]{{1,64}}$")
            if custom_id in batch.answers:
                return error(400, f"requests.{n}.custom_id: {custom_id!r} is not unique")
            batch.answers[custom_id] = _answer(
                srv, script, "anthropic", item.get("params"), headers, batch.id
            )
        return send(200, _anthropic_batch(srv, script, batch, advance=False))
    found = _ANTHROPIC_BATCH.match(path)
    batch = script.batches.get(found.group(1)) if found else None
    if found and batch is not None:
        if method == "POST" and found.group(2) == "/cancel":
            batch.cancelled = True
            return send(200, _anthropic_batch(srv, script, batch, advance=False))
        if method == "GET" and found.group(2) is None:
            return send(200, _anthropic_batch(srv, script, batch))
        if method == "GET" and found.group(2) == "/results":
            if batch.final is None:
                return error(400, f"batch {batch.id} has not ended")
            lines = []
            for n, (custom_id, (kind, value)) in enumerate(batch.answers.items()):
                if not _answered(script, batch, n):
                    result: dict[str, Any] = {"type": "canceled" if batch.final == "cancelled" else "expired"}
                elif kind == "ok":
                    result = {"type": "succeeded", "message": value}
                else:
                    status, message = value
                    result = {
                        "type": "errored",
                        "error": {**ss._anthropic_error(status, message), "request_id": None},
                    }
                lines.append(json.dumps({"custom_id": custom_id, "result": result}) + "\n")
            return send(200, "".join(lines).encode())
    error(404, f"Unknown path {path}")


def _anthropic_batch(
    srv: Any, script: BatchScript, batch: ScriptedBatch, advance: bool = True
) -> dict[str, Any]:
    total = len(batch.answers)
    state, completed, failed = _advance(script, batch, advance)
    ended = batch.final is not None
    if ended:
        ok = sum(
            1 for n, (k, _) in enumerate(batch.answers.values()) if k == "ok" and _answered(script, batch, n)
        )
        errored = sum(
            1
            for n, (k, _) in enumerate(batch.answers.values())
            if k == "error" and _answered(script, batch, n)
        )
        lost = total - ok - errored
        counts = {
            "processing": 0,
            "succeeded": ok,
            "errored": errored,
            "canceled": lost if batch.final == "cancelled" else 0,
            "expired": lost if batch.final != "cancelled" else 0,
        }
    else:
        counts = {
            "processing": total - completed,
            "succeeded": completed,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        }
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created_at))
    return {
        "id": batch.id,
        "type": "message_batch",
        "processing_status": "ended" if ended else ("canceling" if batch.cancelled else "in_progress"),
        "request_counts": counts,
        "ended_at": stamp if ended else None,
        "created_at": stamp,
        "expires_at": stamp,
        "archived_at": None,
        "cancel_initiated_at": stamp if batch.cancelled else None,
        "results_url": f"{srv.anthropic_base_url}/v1/messages/batches/{batch.id}/results" if ended else None,
    }


# --- shared --------------------------------------------------------------------------------------


def _json(raw: bytes | str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _new_batch(script: BatchScript, protocol: str, prefix: str) -> ScriptedBatch:
    with script.lock:
        batch = ScriptedBatch(f"{prefix}_{len(script.created) + 1}", protocol, int(time.time()))
        script.batches[batch.id] = batch
        script.created.append(batch.id)
    return batch


def _answer(
    srv: Any, script: BatchScript, protocol: str, body: Any, headers: dict[str, str], batch_id: str
) -> tuple[str, Any]:
    """One batched request answered as the server answers a direct one (or failed as scripted)."""
    record = srv._record("BATCH", batch_id, headers, body, model_call=True)
    with script.lock:
        index = script.seen
        script.seen += 1
    fault: BatchFault = None
    if callable(script.fail):
        fault = script.fail(body if isinstance(body, dict) else {})
    elif index < len(script.fail):
        fault = script.fail[index]
    if isinstance(fault, int):
        fault = ss.ScriptedFailure(fault, f"ScriptedServer: scripted batch failure (HTTP {fault})")
    if fault is not None:
        record.status = fault.status
        return "error", (fault.status, fault.message)
    if not isinstance(body, dict):
        record.status = 400
        return "error", (400, "request body must be a JSON object")
    problem = ss._validate_openai(body) if protocol == "openai" else ss._validate_anthropic(body, headers)
    if problem is not None:
        record.status = 400
        return "error", (400, problem)
    try:
        reply = srv._reply_for(body)
    except ss.ScriptedFailure as exc:
        record.status = exc.status
        return "error", (exc.status, exc.message)
    except Exception as exc:
        record.status = 400
        return "error", (400, f"ScriptedServer responder raised {type(exc).__name__}: {exc}")
    record.status = 200
    return "ok", ss._REPLY_BUILDERS[protocol](body, reply, srv._count_reply())


def _advance(script: BatchScript, batch: ScriptedBatch, advance: bool) -> tuple[str, int, int]:
    """(state in the OpenAI words, requests done, requests failed) after this retrieval."""
    total = len(batch.answers)
    if advance:
        batch.retrievals += 1
    if batch.final is None and (batch.cancelled and advance or batch.retrievals > script.polls):
        batch.final = "cancelled" if batch.cancelled else script.outcome
    if batch.final is None:
        if batch.cancelled:
            return "cancelling", 0, 0
        state = "validating" if batch.retrievals == 0 else "in_progress"
        return state, total * batch.retrievals // (script.polls + 1), 0
    done = sum(1 for n in range(total) if _answered(script, batch, n))
    failed = sum(
        1
        for n, (k, _) in enumerate(batch.answers.values())
        if k == "error" or not _answered(script, batch, n)
    )
    return batch.final, done, failed


def _answered(script: BatchScript, batch: ScriptedBatch, n: int) -> bool:
    """Whether the batch's request number n (0-based) was run before the batch ended."""
    if batch.final in ("cancelled", "failed"):
        return False
    if batch.final == "expired":
        return n < (script.answered if script.answered is not None else len(batch.answers) // 2)
    return True
