"""The JSON bodies the scripted server sends, in each wire's own shape: error bodies (OpenAI,
Anthropic, google.rpc.Status) and the reply a `ScriptedReply` becomes on each protocol, with its
usage."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from playbench.testing.scripted_wire.requests import estimate_tokens, prompt_tokens
from playbench.testing.scripted_wire.scripting import ScriptedReply

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
