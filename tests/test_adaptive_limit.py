"""Adaptive concurrency (AIMD): a server that rate-limits under load is met by backing off, and the run
records it; the limit's own rules, one by one."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.models.adaptive import LATENCY_SAMPLES, START_CAP, AdaptiveLimit
from playbench.testing.scripted_server import ScriptedFailure, ScriptedServer

CAPACITY = 3  # requests the scripted server takes at once; more get 429 with Retry-After


def test_a_rate_limiting_server_is_met_by_backing_off(tmp_path: Path, capsys) -> None:
    in_flight, peak, refused, lock = 0, 0, 0, threading.Lock()

    def reply(_body: dict) -> str:
        nonlocal in_flight, peak, refused
        with lock:
            if in_flight >= CAPACITY:
                refused += 1
                raise ScriptedFailure(429, "slow down", retry_after=0.05)
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.02)
        with lock:
            in_flight -= 1
        return "action: move purple cube up"

    out = tmp_path / "run"
    with ScriptedServer(reply) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp",
                "--agent",
                "llm",
                "--model",
                "openai:limited",
                "--base-url",
                srv.base_url,
                "--episodes",
                "12",
                "--concurrency",
                "12",
                "--model-concurrency",
                "12",
                "--retry-delay",
                "0.01",
                "--max-retries",
                "8",
                "--set",
                "max_steps=4",
                "--out",
                str(out),
            ]
        )
    assert code == 0
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 12 and all(r["error"] is None for r in records)
    assert refused > 0  # the server did push back
    stats = json.loads((out / "summary.json").read_text())["models"]["openai:limited"]["adaptive"]
    assert stats["rate_limited"] >= 1 and stats["cuts"] >= 1 and stats["throttled_s"] > 0
    assert stats["start"] == 12  # a server named with --base-url: its full budget from the start
    assert stats["final"] < stats["start"]  # backed off from where it started
    assert stats["mean"] < stats["start"]
    # shown live: the progress line (plain, as under a log) names the backed-off model
    assert "openai:limited" in capsys.readouterr().err.split("episodes (solved")[-1]


async def test_slow_start_then_additive_increase_up_to_the_maximum() -> None:
    limit = AdaptiveLimit(maximum=12)
    assert limit.slots == START_CAP
    for _ in range(4):
        async with limit.slot() as slot:
            slot.ok()
    assert limit.slots == 12  # slow start: one slot per answer until the first cut
    limit = AdaptiveLimit(maximum=40)
    async with limit.slot() as slot:
        slot.throttled(None)
    assert limit.slots == START_CAP // 2
    for _ in range(START_CAP // 2 - 1):
        async with limit.slot() as slot:
            slot.ok()
    assert limit.slots == START_CAP // 2  # after a cut: one slot per `limit` answers
    async with limit.slot() as slot:
        slot.ok()
    assert limit.slots == START_CAP // 2 + 1


async def test_a_burst_of_429s_cuts_once_and_retry_after_holds_new_requests() -> None:
    limit = AdaptiveLimit(maximum=8)
    slots = [limit.slot() for _ in range(4)]
    handles = [await s.__aenter__() for s in slots]
    for h in handles:  # four requests of the same round all refused: one cut, not four
        h.throttled(0.2)
    for s in slots:
        await s.__aexit__(None, None, None)
    assert limit.slots == 4 and limit.cuts == 1 and limit.rate_limited == 4
    started = time.monotonic()
    async with limit.slot() as slot:
        slot.ok()
    assert time.monotonic() - started >= 0.15  # held until the Retry-After ran out
    assert limit.stats()["throttled_s"] == pytest.approx(0.2, abs=0.05)


async def test_rising_latency_cuts_the_limit() -> None:
    limit = AdaptiveLimit(maximum=8)
    for _ in range(LATENCY_SAMPLES + 5):
        async with limit.slot() as slot:
            slot.started = time.monotonic() - 0.01  # answered in 10 ms
            slot.ok()
    before = limit.slots
    for _ in range(30):
        async with limit.slot() as slot:
            slot.started = time.monotonic() - 0.2  # the server now queues: 200 ms
            slot.ok()
    assert limit.cuts >= 1 and limit.slots < before


async def test_no_more_requests_in_flight_than_the_limit() -> None:
    limit = AdaptiveLimit(maximum=3)
    running, most = 0, 0

    async def one() -> None:
        nonlocal running, most
        async with limit.slot() as slot:
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.01)
            running -= 1
            slot.ok()

    await asyncio.gather(*(one() for _ in range(20)))
    assert most == 3


@pytest.mark.parametrize(
    ("spec", "base_url", "start"),
    [
        ("openai:gpt-4o-mini", None, START_CAP),  # the provider's API: its rate limit is found by growing
        ("anthropic:claude-3-5-haiku-latest", None, START_CAP),
        ("openai:local", "http://127.0.0.1:9/v1", 32),  # a server the user runs: the budget they set
        ("openai:gpt-4o-mini", "https://api.openai.com/v1", START_CAP),  # the provider's own URL, named
    ],
)
async def test_the_limit_starts_at_the_budget_only_on_a_server_the_user_runs(
    monkeypatch, spec: str, base_url: str | None, start: int
) -> None:
    from playbench.models import make_model

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    model = make_model(spec, base_url=base_url, concurrency=32)
    _client, limit = model._state()  # no request is sent
    try:
        assert limit.start == limit.slots == start and limit.stats()["start"] == start
    finally:
        await model.aclose()
