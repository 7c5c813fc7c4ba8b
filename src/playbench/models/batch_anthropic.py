"""Anthropic's Message Batches for `--batch` (playbench.models.batch), through the `anthropic` SDK.

A batch is `messages.batches.create(requests=[{"custom_id", "params"}])`, polled with
`messages.batches.retrieve` until its `processing_status` is `ended`; `messages.batches.results`
then streams one line per request: `succeeded` (the Message a direct call returns), `errored` (the
API's error object), `canceled` or `expired`. A succeeded Message is read by the provider's own
reader (`AnthropicModel._send`, handed the delivered Message), an error worded by
`RemoteChatModel._status_failure` as a direct call's error. Limits: 100,000 requests and 256 MB.
"""

from __future__ import annotations

from typing import Any

import anthropic

from playbench.models.batch_api import BatchAPI, BatchStatus, Outcome
from playbench.models.remote import _Failure

# The API's error types and the HTTP statuses a direct call would have got with them.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


class _Delivered:
    """Hands `AnthropicModel._send` the Message a batch delivered, where its client would return the
    Message a direct call gets, so both are read by the same code."""

    def __init__(self, message: Any) -> None:
        self.messages = self
        self._message = message

    async def create(self, **_request: Any) -> Any:
        return self._message


class AnthropicBatchAPI(BatchAPI):
    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024  # under the 256 MB limit

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self._client: anthropic.AsyncAnthropic | None = None

    def client(self) -> anthropic.AsyncAnthropic:
        """An SDK client with the model's key, server and timeout; the SDK retries these few calls."""
        if self._client is None:
            m = self.model
            kwargs: dict[str, Any] = {
                "api_key": m._api_key,
                "max_retries": m.max_retries,
                "timeout": m.timeout,
            }
            if m._sdk_base_url:
                kwargs["base_url"] = m._sdk_base_url
            self._client = anthropic.AsyncAnthropic(**kwargs)
        return self._client

    def body(self, request: dict[str, Any]) -> dict[str, Any]:
        # extra_body (temperature, top_p, a provider's own fields) merged as the SDK merges it
        body = {k: v for k, v in request.items() if k != "extra_body"}
        body.update(request.get("extra_body") or {})
        return body

    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"custom_id": custom_id, "params": body}

    async def submit(self, entries: list[dict[str, Any]]) -> str:
        batch = await self.client().messages.batches.create(requests=entries)  # type: ignore[arg-type]
        return batch.id

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self.client().messages.batches.retrieve(batch_id)
        c = batch.request_counts
        answered = c.succeeded + c.errored + c.canceled + c.expired
        return BatchStatus(
            state=batch.processing_status,
            done=batch.processing_status == "ended",
            total=answered + c.processing,
            completed=answered,
            failed=c.errored + c.canceled + c.expired,
        )

    async def results(self, batch_id: str, status: BatchStatus) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        async for item in await self.client().messages.batches.results(batch_id):
            out[item.custom_id] = await self._outcome(batch_id, item.result)
        return out

    async def _outcome(self, batch_id: str, result: Any) -> Outcome:
        kind = getattr(result, "type", None)
        if kind == "succeeded":
            try:
                return await self.model._send(_Delivered(result.message), {})
            except Exception as exc:  # a malformed reply: worded and retried as in a direct call
                return self.model._classify(exc)
        if kind == "errored":
            error = getattr(getattr(result, "error", None), "error", None)
            kind_name = getattr(error, "type", None) or "api_error"
            message = getattr(error, "message", None) or kind_name
            status = ERROR_STATUS.get(kind_name, 500 if "server" in kind_name else 400)
            failure = self.model._status_failure(status, message, None)
            failure.description += f" (batch {batch_id})"
            return failure
        why = {
            "expired": "expired before this request was answered (the batch's 24 hours ran out)",
            "canceled": "was cancelled before this request was answered",
        }.get(str(kind), f"gave this request a result of unknown type {kind!r}")
        return _Failure(
            f"batch {batch_id} {why}; run the same command again to submit it anew", retryable=False
        )

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()
