"""Batch APIs behind the chat interface (`--batch`): OpenAI's Batch API and Anthropic's Message Batches.

A batch API answers many requests at half the price (pricing.BATCH_DISCOUNT), within hours rather
than seconds. `wrap_pool(pool, out)` puts a `Batcher` under every model of a ModelPool:

- `BatchedModel.generate` builds the request exactly as the provider builds it for a direct call
  (its `_build_request`), files it with the batcher and waits for the answer.
- The batcher **flushes** when every episode in flight is waiting on it (each asyncio task that has
  called a batched model and is not finished waits on an answer, and no request came for `linger`
  seconds), when its oldest request has waited `max_wait` seconds, or when a batch is full (the
  provider's request and byte limits, or `max_batch`). It then submits one batch per model through
  the provider's real SDK (`batch_openai.py`, `batch_anthropic.py`) and polls it, reporting each poll
  to `on_progress` (default: the `playbench.batch` logger and, every `PROGRESS_SECONDS`, a line on
  stderr).
- Each answer is read by the provider's own parser (so records are those of a direct call) and
  priced at the batch price. A request the batch answered with an error becomes the ModelError the
  direct path raises (the same status, wording and kind); a retryable one (429, 5xx, a malformed
  reply) goes into the next batch, up to the model's max_retries, as the direct path retries it. A
  batch that fails or expires gives each of its unanswered requests one clear error naming the batch.
- **Resume**: every submitted batch is written to `OUT/batches.jsonl` (one JSON line: batch id,
  provider, model, endpoint, custom_id -> request digest) before it is polled; its end is written when
  it ends. A later command on the same directory answers a request whose digest a recorded batch
  holds from that batch (polling it if it still runs) instead of submitting it again; each recorded
  answer serves one request, and only a clean answer is reused (an error or refusal is asked anew).

Every task works: an episode of several calls makes one batch round per call. Batching pays off
where an episode is one call or ends with one (board inference, ToS questions after passive
exploration, VisEscape's quiz, the COMMA and MM-Escape judges). Batches wait for everyone: run all
episodes in flight (`--batch` implies it), on the local executor.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, ModelError, ModelResponse, reply_error
from playbench.models.batch_api import BatchAPI, BatchProgress, BatchResults, Outcome
from playbench.models.pricing import batch_price, cost_of
from playbench.models.remote import RemoteChatModel, _Failure, _rejects_images, _Reply

log = logging.getLogger("playbench.batch")

JOURNAL = "batches.jsonl"
# provider -> "module:class" of its batch API (loaded only when used)
BATCH_APIS = {
    "openai": "playbench.models.batch_openai:OpenAIBatchAPI",
    "anthropic": "playbench.models.batch_anthropic:AnthropicBatchAPI",
}
POLL_ENV = "PLAYBENCH_BATCH_POLL_SECONDS"
PROGRESS_SECONDS = 30.0
# `--batch`'s episodes in flight when the user gives no --concurrency: all of them, since a batch waits
# for every episode in flight
BATCH_CONCURRENCY = 100_000


def load_api(model: RemoteChatModel) -> BatchAPI:
    target = BATCH_APIS.get(model.provider)
    if target is None:
        raise ConfigError(
            f"--batch: {model.spec} has no batch API (batching takes {', '.join(BATCH_APIS)} models)"
        )
    module, _, name = target.partition(":")
    cls = getattr(__import__(module, fromlist=[name]), name)
    return cls(model)


def check_spec(spec: str) -> None:
    """Refuse, before a run, a model spec whose provider has no batch API."""
    from playbench.models import parse_spec, split_server

    provider, _ = parse_spec(split_server(spec)[0])
    if provider not in BATCH_APIS:
        raise ConfigError(
            f"--batch: provider {provider!r} of {spec!r} has no batch API (accepted: {', '.join(BATCH_APIS)})"
        )


def request_digest(spec: str, endpoint: str, body: Mapping[str, Any]) -> str:
    """sha256 of what a request is: the model, the server and the exact body sent."""
    material = json.dumps(
        {"spec": spec, "endpoint": endpoint, "body": body}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


@dataclass
class _Pending:
    custom_id: str
    digest: str
    entry: dict[str, Any]
    size: int
    future: asyncio.Future[Outcome]


@dataclass
class _Claim:
    batch_id: str
    custom_id: str


class BatchedModel(ChatModel):
    """A provider model whose calls go through the batcher's batches (see the module docstring)."""

    def __init__(self, inner: RemoteChatModel, batcher: Batcher) -> None:
        super().__init__(inner.model)
        self.provider = inner.provider
        self.inner, self.batcher = inner, batcher
        self.api = load_api(inner)
        self.price = batch_price(inner.price)  # what runner.cost_cap.price_of finds first
        self.endpoint = inner.base_url or inner.default_base_url  # part of every request's digest
        self.pending: list[_Pending] = []

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        if not messages:
            raise ModelError(f"{self.spec}: no messages to send", spec=self.spec)
        has_images = any(isinstance(p, ImagePart) for m in messages for p in m.parts)
        if has_images and self.inner._image_rejection is not None:
            raise self.inner._image_rejection  # the server already refused images: do not send it again
        body = self.api.body(self.inner._build_request(messages, params))
        digest = request_digest(self.spec, self.endpoint, body)
        attempt = 0
        while True:
            attempt += 1
            outcome = await self.batcher.answer(self, body, digest, reuse=attempt == 1)
            if isinstance(outcome, _Reply):
                return self.response(outcome, attempt)
            if has_images and _rejects_images(outcome):  # worded and remembered as RemoteChatModel does
                outcome = _Failure(
                    f"{outcome.description} (the server seems not to take images: use a vision "
                    "model, or --captioner-model M to have a vision model describe them)",
                    retryable=False,
                    status_code=outcome.status_code,
                )
                self.inner._image_rejection = self.inner._error(outcome, attempt)
            if not (outcome.retryable and attempt <= self.inner.max_retries):
                raise self.inner._error(outcome, attempt)

    def response(self, reply: _Reply, attempt: int = 1) -> ModelResponse:
        """The reply as RemoteChatModel.generate returns one, priced at the batch price."""
        usage = Usage(
            input_tokens=reply.input_tokens or 0,
            output_tokens=reply.output_tokens or 0,
            calls=1,
            cost=cost_of(self.price, reply.input_tokens, reply.output_tokens),
            retries=attempt - 1,
        )
        return ModelResponse(
            text=reply.text,
            usage=usage,
            reasoning_tokens=reply.reasoning_tokens,
            reasoning=reply.reasoning,
            finish_reason=reply.finish_reason,
        )

    def describe(self) -> dict[str, Any]:
        return {
            **self.inner.describe(),
            "batch": {"price": self.price, "journal": str(self.batcher.journal)},
        }

    async def aclose(self) -> None:
        await self.api.aclose()
        await self.inner.aclose()


def _default_progress() -> Callable[[BatchProgress], None]:
    said: dict[str, float] = {}

    def show(p: BatchProgress) -> None:
        log.info(p.line())
        now = time.monotonic()
        if p.done or p.polls == 1 or now - said.get(p.batch_id, 0.0) >= PROGRESS_SECONDS:
            said[p.batch_id] = now
            print(f"playbench: {p.line()}", file=sys.stderr, flush=True)

    return show


class Batcher:
    """Collects batched models' requests, submits them as batches, polls them, answers the callers.

    `out` is the run directory (the journal `batches.jsonl` lives there). `poll_interval`: seconds
    between polls (default $PLAYBENCH_BATCH_POLL_SECONDS, else 30; the first polls come sooner).
    `linger`: seconds without a new request before a flush once every episode waits. `max_wait`:
    seconds a request waits at most before its batch goes out anyway. `max_batch`: requests per batch
    at most (beside the provider's limits).
    """

    def __init__(
        self,
        out: str | os.PathLike[str],
        *,
        poll_interval: float | None = None,
        linger: float = 1.0,
        max_wait: float = 300.0,
        max_batch: int | None = None,
        on_progress: Callable[[BatchProgress], None] | None = None,
    ) -> None:
        if poll_interval is None:
            raw = os.environ.get(POLL_ENV)
            try:
                poll_interval = float(raw) if raw else 30.0
            except ValueError:
                raise ConfigError(f"${POLL_ENV} must be a number of seconds (got {raw!r})") from None
        for name, value in (("poll_interval", poll_interval), ("linger", linger), ("max_wait", max_wait)):
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"batch {name} must be a number of seconds >= 0 (got {value!r})")
        if max_batch is not None and (
            isinstance(max_batch, bool) or not isinstance(max_batch, int) or max_batch < 1
        ):
            raise ConfigError(f"batch max_batch must be an integer >= 1 (got {max_batch!r})")
        self.out = Path(out)
        self.journal = self.out / JOURNAL
        self.poll_interval = float(poll_interval)
        self.linger = float(linger)
        self.max_wait = float(max_wait)
        self.max_batch = max_batch
        self.on_progress = on_progress or _default_progress()
        self.submitted: list[str] = []  # batch ids this batcher created
        self.reused = 0  # requests answered from a batch an earlier command submitted
        self._models: dict[int, BatchedModel] = {}
        self._claims: dict[str, collections.deque[_Claim]] = collections.defaultdict(collections.deque)
        self._ended: set[str] = set()
        self._load_journal()
        self._seq = 0
        self._reset_loop_state(None)

    # --- wiring ---------------------------------------------------------------------------------
    def wrap(self, model: ChatModel) -> ChatModel:
        """`model` with its provider model (under any cache, cost meter or budget wrappers) batched."""
        if isinstance(model, BatchedModel):
            return model
        if isinstance(model, RemoteChatModel):
            if id(model) not in self._models:
                self._models[id(model)] = BatchedModel(model, self)
            return self._models[id(model)]
        inner = getattr(model, "inner", None)
        if isinstance(inner, ChatModel):
            model.inner = self.wrap(inner)  # type: ignore[attr-defined]
            return model
        raise ConfigError(
            f"--batch: {model.spec} has no batch API (batching takes {', '.join(BATCH_APIS)} models)"
        )

    # --- the journal ----------------------------------------------------------------------------
    def _load_journal(self) -> None:
        if not self.journal.exists():
            return
        for n, line in enumerate(self.journal.read_text(encoding="utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
            except ValueError:
                log.warning("%s line %d is not JSON (a write cut short?); skipped", self.journal, n)
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("event") == "submitted":
                for custom_id, digest in (entry.get("requests") or {}).items():
                    self._claims[digest].append(_Claim(str(entry["batch_id"]), custom_id))
            elif entry.get("event") == "ended":
                self._ended.add(str(entry.get("batch_id")))

    def _write(self, entry: dict[str, Any]) -> None:
        """One journal line, in one write, flushed to disk before the caller goes on."""
        self.out.mkdir(parents=True, exist_ok=True)
        line = json.dumps({**entry, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n"
        with open(self.journal, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    # --- per event loop state -------------------------------------------------------------------
    def _reset_loop_state(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self._loop = loop
        self._live: set[asyncio.Task[Any]] = set()
        self._waiting: collections.Counter[asyncio.Task[Any]] = collections.Counter()
        self._wake: asyncio.Event | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._collecting: dict[str, asyncio.Task[BatchResults]] = {}
        self._last_enqueue = 0.0
        self._oldest: float | None = None
        for model in self._models.values():
            model.pending = []

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._reset_loop_state(loop)
            self._wake = asyncio.Event()
            self._flusher = loop.create_task(self._flush_loop(), name="playbench-batch-flusher")
        return loop

    def _track(self, task: asyncio.Task[Any] | None) -> None:
        if task is None or task in self._live:
            return
        self._live.add(task)

        def gone(t: asyncio.Task[Any]) -> None:
            self._live.discard(t)
            self._poke()

        task.add_done_callback(gone)

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # --- answering ------------------------------------------------------------------------------
    async def answer(self, model: BatchedModel, body: dict[str, Any], digest: str, reuse: bool) -> Outcome:
        """The outcome of one request: from a recorded batch when `reuse` finds one, else from a new one."""
        loop = self._ensure_loop()
        task = asyncio.current_task()
        self._track(task)
        if task is not None:
            self._waiting[task] += 1
        try:
            if reuse:
                found = await self._recorded(model, digest)
                if found is not None:
                    self.reused += 1
                    return found
            self._seq += 1
            custom_id = f"r{self._seq:06d}-{digest[:24]}"
            entry = model.api.entry(custom_id, body)
            size = len(json.dumps(entry, ensure_ascii=False).encode("utf-8")) + 1
            future: asyncio.Future[Outcome] = loop.create_future()
            model.pending.append(_Pending(custom_id, digest, entry, size, future))
            self._last_enqueue = loop.time()
            if self._oldest is None:
                self._oldest = self._last_enqueue
            self._poke()
            return await future
        finally:
            if task is not None:
                self._waiting[task] -= 1
                if self._waiting[task] <= 0:
                    del self._waiting[task]
            self._poke()

    async def _recorded(self, model: BatchedModel, digest: str) -> _Reply | None:
        """A clean answer an earlier command's batch holds for this request, if any (each serves once)."""
        claims = self._claims.get(digest)
        while claims:
            claim = claims.popleft()
            try:
                results = await self._collect(model, claim.batch_id)
            except ModelError as exc:
                log.warning("recorded batch %s cannot be read (%s); asking again", claim.batch_id, exc)
                continue
            outcome = results.get(claim.custom_id)
            if isinstance(outcome, _Reply) and reply_error(model.response(outcome), model.spec) is None:
                return outcome
        return None

    # --- flushing -------------------------------------------------------------------------------
    def _ready(self, now: float) -> bool:
        pending = [m for m in self._models.values() if m.pending]
        if not pending:
            return False
        if any(len(m.pending) >= self._limit(m) for m in pending):
            return True
        if self._oldest is not None and now - self._oldest >= self.max_wait:
            return True
        everyone_waits = all(t in self._waiting for t in self._live)
        return everyone_waits and now - self._last_enqueue >= self.linger

    def _limit(self, model: BatchedModel) -> int:
        return min(model.api.max_requests, self.max_batch or model.api.max_requests)

    async def _flush_loop(self) -> None:
        assert self._wake is not None and self._loop is not None
        tick = max(0.001, min(0.05, self.linger / 2 if self.linger else 0.01))
        while True:
            if not any(m.pending for m in self._models.values()):
                self._wake.clear()
                await self._wake.wait()
                continue
            if self._ready(self._loop.time()):
                self._flush()
                continue
            await asyncio.sleep(tick)

    def _flush(self) -> None:
        self._oldest = None
        for model in self._models.values():
            pending, model.pending = model.pending, []
            chunk: list[_Pending] = []
            size = 0
            for item in pending:
                if chunk and (len(chunk) >= self._limit(model) or size + item.size > model.api.max_bytes):
                    self._spawn(self._run_batch(model, chunk))
                    chunk, size = [], 0
                chunk.append(item)
                size += item.size
            if chunk:
                self._spawn(self._run_batch(model, chunk))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        assert self._loop is not None
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run_batch(self, model: BatchedModel, chunk: list[_Pending]) -> None:
        """Submit one batch, record it, wait for it and answer each of its requests."""
        try:
            try:
                batch_id = await model.api.submit([p.entry for p in chunk])
            except Exception as exc:
                failure = model.inner._classify(exc)
                failure.description = f"submitting a batch of {len(chunk)} requests: {failure.description}"
                for p in chunk:
                    _settle(p.future, failure)
                return
            self.submitted.append(batch_id)
            self._write(
                {
                    "event": "submitted",
                    "batch_id": batch_id,
                    "provider": model.provider,
                    "model": model.model,
                    "endpoint": model.endpoint,
                    "requests": {p.custom_id: p.digest for p in chunk},
                }
            )
            log.info("batch %s (%s): submitted %d requests", batch_id, model.spec, len(chunk))
            try:
                results = await self._collect(model, batch_id, total=len(chunk))
            except ModelError as exc:
                lost = _Failure(str(exc).removeprefix(f"{model.spec}: "), retryable=False)
                for p in chunk:
                    _settle(p.future, lost)
                return
            for p in chunk:
                _settle(p.future, results.get(p.custom_id))
        except BaseException:
            for p in chunk:
                if not p.future.done():
                    p.future.cancel()
            raise

    def _collect(self, model: BatchedModel, batch_id: str, total: int = 0) -> asyncio.Task[BatchResults]:
        """The batch's outcomes, polled and read once however many requests wait on it."""
        task = self._collecting.get(batch_id)
        if task is None:
            task = self._spawn(self._poll(model, batch_id, total))
            self._collecting[batch_id] = task
        return task

    async def _poll(self, model: BatchedModel, batch_id: str, total: int) -> BatchResults:
        started = time.monotonic()
        polls = 0
        delay = min(self.poll_interval, 1.0)
        where = f"the batch is recorded in {self.journal}: run the same command again to collect it"
        while True:
            try:
                status = await model.api.status(batch_id)
            except Exception as exc:
                raise ModelError(
                    f"{model.spec}: polling batch {batch_id} failed: {model.inner._classify(exc).description}; "
                    f"{where}",
                    spec=model.spec,
                ) from None
            polls += 1
            self.on_progress(
                BatchProgress(
                    batch_id,
                    model.spec,
                    status.state,
                    status.total or total,
                    status.completed,
                    status.failed,
                    polls,
                    round(time.monotonic() - started, 3),
                    status.done,
                )
            )
            if status.done:
                break
            await asyncio.sleep(delay)
            delay = min(self.poll_interval, max(delay * 2, 0.001))
        try:
            results = await model.api.results(batch_id, status)
        except Exception as exc:
            raise ModelError(
                f"{model.spec}: reading the results of batch {batch_id} failed: "
                f"{model.inner._classify(exc).description}; {where}",
                spec=model.spec,
            ) from None
        why = f"{status.state}: {status.error}" if status.error else status.state
        results = BatchResults(
            results,
            _Failure(
                f"batch {batch_id} ended ({why}) without answering this request; "
                "run the same command again to submit it anew",
                retryable=False,
            ),
        )
        if batch_id not in self._ended:
            self._ended.add(batch_id)
            self._write(
                {"event": "ended", "batch_id": batch_id, "state": status.state, "status": asdict(status)}
            )
        return results

    async def aclose(self) -> None:
        """Stop polling (recorded batches stay resumable) and close the batch clients."""
        tasks = [t for t in (self._flusher, *self._tasks) if t is not None and not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for model in self._models.values():  # a pool may hold the provider model itself, not this wrapper
            await model.api.aclose()
        self._reset_loop_state(None)


def _settle(future: asyncio.Future[Outcome], outcome: Outcome) -> None:
    if not future.done():
        future.set_result(outcome)


def wrap_pool(
    pool: Any,
    out: str | os.PathLike[str],
    *,
    on_progress: Callable[[BatchProgress], None] | None = None,
    **options: Any,
) -> Batcher:
    """Batch every model `pool` (a runner.model_pool.ModelPool) hands out; the run directory `out`
    holds the journal. The pool's per-provider budget is switched off (a batch is one request, and a
    budget would cap how many requests one batch gathers); `pool.aclose()` also stops the batcher."""
    batcher = Batcher(out, on_progress=on_progress, **options)
    pool.share_provider_budget = False
    get, close = pool.get, pool.aclose

    def batched_get(spec: str) -> ChatModel:
        return batcher.wrap(get(spec))

    async def batched_aclose() -> None:
        await batcher.aclose()
        await close()

    pool.get, pool.aclose, pool.batcher = batched_get, batched_aclose, batcher
    return batcher
