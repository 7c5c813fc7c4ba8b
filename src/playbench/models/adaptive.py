"""Adaptive concurrency per model: additive increase, multiplicative decrease (AIMD), as TCP does.

Every request of a remote model takes a slot of its `AdaptiveLimit`. The limit starts at
`min(maximum, START_CAP)` for a provider's own API (`--model-concurrency` is the maximum), whose rate
limit is unknown and found by growing; at the maximum for a server the user named with `--base-url`
(vLLM, SGLang, llama.cpp: no provider rate limit to find, and the user sized `--model-concurrency` for
it; ramping up there only lost throughput, ~3% of `benchmarks/bench_harness.py`'s run). Then:
- grows by one slot per answered request until the first cut (slow start: it doubles every round), then by
  one slot for every `limit` requests answered in a row (additive increase), up to the maximum;
- halves on a rate-limit answer (HTTP 429), once per round: the 429s of requests sent before the cut do
  not cut again (multiplicative decrease);
- shrinks by a fifth when the answers slow down: the smoothed latency rising above `LATENCY_RISE` times
  the lowest smoothed latency seen (a server queueing our requests), at most once per round;
- holds every new request while the server's `Retry-After` runs (those seconds are counted as throttled).

`stats()` is what a run records (`summary.json` → `models` → spec → `adaptive`): the limit's peak, its mean
over requests, its final value, the cuts, the 429s and the throttled seconds. `LIVE` holds each model's
limit while a run is going, so a progress line can show it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

START_CAP = 8  # on a provider's API a bigger --model-concurrency is reached by growing, not assumed
LATENCY_RISE = 3.0
LATENCY_SAMPLES = 20  # answers before the latency signal counts (the lowest latency needs a few)
EWMA = 0.1

LIVE: dict[str, AdaptiveLimit] = {}  # model spec -> its limit, while a run is going


class AdaptiveLimit:
    """The slots of one model's requests in flight, on one event loop."""

    def __init__(self, maximum: int, spec: str = "", start_at_maximum: bool = False) -> None:
        self.maximum = max(1, int(maximum))
        self.start = self.maximum if start_at_maximum else min(self.maximum, START_CAP)
        self.limit = float(self.start)
        self.spec = spec
        self.in_flight = 0
        self.round = 0  # bumped by every cut: a request remembers the round it was sent in
        self.successes_in_round = 0
        self.paused_until = 0.0
        self.throttled_s = 0.0
        self.cuts = 0
        self.rate_limited = 0
        self.peak = self.limit
        self.requests = 0
        self.limit_sum = 0.0
        self.smoothed: float | None = None
        self.lowest: float | None = None
        self.samples = 0
        self._changed = asyncio.Condition()

    @property
    def slots(self) -> int:
        return max(1, int(self.limit))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[_Attempt]:
        """One request attempt: waits for a free slot (and any Retry-After pause), yields a handle the
        caller reports the answer on (`ok`, `throttled`), and frees the slot."""
        async with self._changed:
            while True:
                now = time.monotonic()
                if now < self.paused_until:
                    await self._wait(self.paused_until - now)
                    continue
                if self.in_flight < self.slots:
                    break
                await self._changed.wait()
            self.in_flight += 1
            self.requests += 1
            self.limit_sum += self.limit
        attempt = _Attempt(self, self.round)
        try:
            yield attempt
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    async def _wait(self, seconds: float) -> None:
        with suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout=seconds)

    # --- the answers ------------------------------------------------------------------------------
    def _ok(self, sent_round: int, latency: float) -> None:
        self.samples += 1
        self.smoothed = latency if self.smoothed is None else (1 - EWMA) * self.smoothed + EWMA * latency
        if self.samples >= LATENCY_SAMPLES:
            self.lowest = self.smoothed if self.lowest is None else min(self.lowest, self.smoothed)
        slowed = (
            self.lowest is not None
            and self.smoothed is not None
            and self.smoothed > LATENCY_RISE * self.lowest
        )
        if slowed and sent_round == self.round and self.limit > 1:
            self._cut(0.8)
            return
        if sent_round != self.round:
            return  # sent before the last cut: says nothing about the new limit
        self.successes_in_round += 1
        needed = 1 if self.cuts == 0 else self.slots  # slow start until the first cut
        if self.successes_in_round >= needed and self.limit < self.maximum:
            self.limit = min(float(self.maximum), self.limit + 1)
            self.peak = max(self.peak, self.limit)
            self.successes_in_round = 0

    def _throttled(self, sent_round: int, retry_after: float | None) -> None:
        self.rate_limited += 1
        if retry_after:
            now = time.monotonic()
            until = now + retry_after
            if until > self.paused_until:
                self.throttled_s += until - max(now, self.paused_until)
                self.paused_until = until
        if sent_round == self.round:
            self._cut(0.5)

    def _cut(self, factor: float) -> None:
        self.limit = max(1.0, self.limit * factor)
        self.round += 1
        self.cuts += 1
        self.successes_in_round = 0

    def stats(self) -> dict[str, Any]:
        return {
            "maximum": self.maximum,
            "start": self.start,
            "peak": int(self.peak),
            "mean": round(self.limit_sum / self.requests, 2) if self.requests else None,
            "final": self.slots,
            "cuts": self.cuts,
            "rate_limited": self.rate_limited,
            "throttled_s": round(self.throttled_s, 3),
        }


class _Attempt:
    """One request's handle on its limit: report how the server answered."""

    def __init__(self, limit: AdaptiveLimit, sent_round: int) -> None:
        self.limit, self.sent_round, self.started = limit, sent_round, time.monotonic()

    def ok(self) -> None:
        self.limit._ok(self.sent_round, time.monotonic() - self.started)

    def throttled(self, retry_after: float | None) -> None:
        self.limit._throttled(self.sent_round, retry_after)
