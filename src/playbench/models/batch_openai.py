"""OpenAI's Batch API for `--batch` (playbench.models.batch), through the `openai` SDK.

A batch is a JSONL file of chat-completions requests uploaded with `files.create(purpose="batch")`,
run by `batches.create(endpoint="/v1/chat/completions", completion_window="24h")` and polled with
`batches.retrieve`. When it ends (`completed`, `expired`, `cancelled`, `failed`), the answers are in
its `output_file_id` (one line per request: `response.status_code` and `response.body`, the body a
chat completion or an error) and the requests it could not run in its `error_file_id` (`error.code`,
e.g. `batch_expired`). A 200 body is read by the provider's own reader (`reply_from_json`, the reader
of a direct call's reply); an error body is worded by `RemoteChatModel._status_failure`, as a direct
call's error. Limits: 50,000 requests and 200 MB per batch file.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from playbench.models.batch_api import BatchAPI, BatchStatus, Outcome
from playbench.models.openai_provider import reply_from_json
from playbench.models.remote import _Failure, _server_message

ENDPOINT = "/v1/chat/completions"
# A batch is done in these states; `cancelling` and `finalizing` are on the way to one.
FINAL = frozenset({"completed", "failed", "expired", "cancelled"})


class OpenAIBatchAPI(BatchAPI):
    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024  # under the 200 MB file limit

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self._client: openai.AsyncOpenAI | None = None

    def client(self) -> openai.AsyncOpenAI:
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
            self._client = openai.AsyncOpenAI(**kwargs)
        return self._client

    def body(self, request: dict[str, Any]) -> dict[str, Any]:
        # extra_body merged over the other fields, shallowly, as the SDK merges it
        body = {k: v for k, v in request.items() if k != "extra_body"}
        body.update(request.get("extra_body") or {})
        return body

    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}

    async def submit(self, entries: list[dict[str, Any]]) -> str:
        client = self.client()
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
        upload = await client.files.create(file=("playbench-batch.jsonl", data), purpose="batch")
        batch = await client.batches.create(
            input_file_id=upload.id,
            endpoint=ENDPOINT,
            completion_window="24h",
            metadata={"source": "playbench"},
        )
        return batch.id

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self.client().batches.retrieve(batch_id)
        counts = batch.request_counts
        error = None
        if batch.status == "failed":
            found = [e.message or e.code or "" for e in (batch.errors.data or [])] if batch.errors else []
            error = "; ".join(m for m in found if m) or "no reason given"
        return BatchStatus(
            state=batch.status,
            done=batch.status in FINAL,
            total=counts.total if counts else 0,
            completed=counts.completed if counts else 0,
            failed=counts.failed if counts else 0,
            error=error,
        )

    async def _lines(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        content = await self.client().files.content(file_id)
        return [json.loads(line) for line in content.text.splitlines() if line.strip()]

    async def results(self, batch_id: str, status: BatchStatus) -> dict[str, Outcome]:
        batch = await self.client().batches.retrieve(batch_id)
        out: dict[str, Outcome] = {}
        for line in await self._lines(batch.output_file_id) + await self._lines(batch.error_file_id):
            custom_id = str(line.get("custom_id"))
            out[custom_id] = self._outcome(batch_id, status, line)
        return out

    def _outcome(self, batch_id: str, status: BatchStatus, line: dict[str, Any]) -> Outcome:
        response = line.get("response")
        if isinstance(response, dict) and response.get("status_code") is not None:
            code, body = int(response["status_code"]), response.get("body")
            if code == 200:
                try:
                    return reply_from_json(body)
                except Exception as exc:  # a malformed reply: worded and retried as in a direct call
                    return self.model._classify(exc)
            failure = self.model._status_failure(code, _server_message(body) or f"Error code: {code}", None)
            failure.description += f" (batch {batch_id})"
            return failure
        error = line.get("error") if isinstance(line.get("error"), dict) else {}
        code, message = error.get("code"), error.get("message") or ""
        if code == "batch_expired" or status.state == "expired":
            why = "expired before this request was answered (completion window 24h)"
        elif code == "batch_cancelled" or status.state == "cancelled":
            why = "was cancelled before this request was answered"
        else:
            why = f"could not run this request ({code or 'error'}: {message or 'no message'})"
        return _Failure(
            f"batch {batch_id} {why}; run the same command again to submit it anew", retryable=False
        )

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()
