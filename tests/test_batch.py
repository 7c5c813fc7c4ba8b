"""`--batch`: OpenAI's Batch API and Anthropic's Message Batches through the real SDKs, against the
scripted server's batch endpoints (`playbench.testing.scripted_batch`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from playbench.cli import build_parser
from playbench.cli_run import make_run_configs
from playbench.core.errors import ConfigError
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.batch import JOURNAL, Batcher, BatchProgress, check_spec, wrap_pool
from playbench.models.pricing import BATCH_DISCOUNT, batch_price, parse_prices
from playbench.runner.executors import LocalExecutor
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import execute
from playbench.testing import scripted_batch
from playbench.testing.scripted_server import ScriptedFailure, ScriptedServer

PRICES = {"scripted": {"input": 2.0, "output": 8.0}}
# A board listing the parser reads (its score depends on the board; the records must not depend on batching)
REPLY = "I see two geoms.\nSolution: a1 red cube, b2 blue sphere"
EPISODES = 4
FAST = {"poll_interval": 0.01, "linger": 0.05}


def _base(srv: ScriptedServer, provider: str) -> str:
    return srv.base_url if provider == "openai" else srv.anthropic_base_url


def _config(srv: ScriptedServer, provider: str, out: Path, tmp_path: Path, episodes: int = EPISODES) -> Any:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    argv = ["run", "ivispar/board-inference", "--agent", "llm", "--model", f"{provider}:scripted"]
    argv += ["--base-url", _base(srv, provider), "--prices", str(prices), "--episodes", str(episodes)]
    argv += ["--out", str(out), "--concurrency", str(episodes), "--max-retries", "0"]
    (config,) = make_run_configs(build_parser().parse_args(argv))
    return config


def _run(config: Any, batch: bool, **options: Any) -> tuple[dict[str, Any], Batcher | None]:
    """A run as `playbench run` makes it, its pool batched as `--batch` would batch it."""

    async def go() -> tuple[dict[str, Any], Batcher | None]:
        pool = ModelPool(config.models, share_provider_budget=True)
        batcher = wrap_pool(pool, config.out, **{**FAST, **options}) if batch else None
        try:
            summary = await execute(config, executor=LocalExecutor(config.concurrency, pool=pool), argv=[])
        finally:
            await pool.aclose()
        return summary, batcher

    return asyncio.run(go())


def _records(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    return sorted(rows, key=lambda r: (r["instance_id"], r["trial"]))


# What differs between two runs of the same replies, batched or not: timing, and the price.
VOLATILE = {"duration_s", "latency_s", "cost"}


def _strip(value: Any, also: frozenset[str] | set[str] = frozenset()) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v, also) for k, v in value.items() if k not in VOLATILE and k not in also}
    if isinstance(value, list):
        return [_strip(v, also) for v in value]
    return value


def _same_bodies(a: list[Any], b: list[Any]) -> bool:
    return sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(
        json.dumps(x, sort_keys=True) for x in b
    )


def _calls(out: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / record["calls"]).read_text().splitlines()]


def _trajectory(out: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / record["trajectory"]).read_text().splitlines()]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")


# --- the done-when: same records as without --batch, at the batch price -------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_board_inference_batched_gives_the_same_records_at_half_price(tmp_path: Path, provider: str) -> None:
    with ScriptedServer(REPLY, cycle=True) as srv:
        script = scripted_batch.configure(srv, polls=2)
        direct, batched = tmp_path / "direct", tmp_path / "batched"
        _run(_config(srv, provider, direct, tmp_path), batch=False)
        direct_bodies = list(srv.requests)
        seen: list[BatchProgress] = []
        summary, batcher = _run(
            _config(srv, provider, batched, tmp_path), batch=True, on_progress=seen.append
        )
        batched_bodies = list(srv.requests)[len(direct_bodies) :]
    assert batcher is not None and len(batcher.submitted) == 1  # every episode's call in one batch
    assert script.created == batcher.submitted
    assert _same_bodies(batched_bodies, direct_bodies)  # the same requests

    one, two = _records(direct), _records(batched)
    assert len(one) == len(two) == EPISODES and summary["episodes"] == EPISODES
    assert all(r["error"] is None and r["usage"]["calls"] == 1 for r in two)
    assert _strip(one) == _strip(two)
    for a, b in zip(one, two, strict=True):
        assert _strip(_calls(direct, a)) == _strip(_calls(batched, b))
        assert _strip(_trajectory(direct, a)) == _strip(_trajectory(batched, b))
        assert a["usage"]["cost"] > 0
        assert b["usage"]["cost"] == pytest.approx(a["usage"]["cost"] * BATCH_DISCOUNT)
        assert b["usage_by_model"] and _calls(batched, b)[0]["usage"]["cost"] == pytest.approx(
            _calls(direct, a)[0]["usage"]["cost"] / 2
        )
    # progress: every poll reported, the last one done
    assert [p.done for p in seen] == [False, False, True]
    assert seen[-1].total == EPISODES and seen[-1].completed == EPISODES
    journal = [json.loads(line) for line in (batched / JOURNAL).read_text().splitlines()]
    assert [j["event"] for j in journal] == ["submitted", "ended"]
    assert journal[0]["provider"] == provider and len(journal[0]["requests"]) == EPISODES


# --- every task works: an episode of several calls makes one batch round per call ----------------


def test_a_multi_call_task_makes_one_round_per_turn_with_the_same_records(tmp_path: Path) -> None:
    def config(srv: ScriptedServer, out: Path) -> Any:
        argv = [
            "run",
            "ivispar/sgp",
            "--agent",
            "llm",
            "--model",
            "openai:scripted",
            "--base-url",
            srv.base_url,
        ]
        argv += ["--episodes", "3", "--concurrency", "3", "--set", "max_steps=3", "--out", str(out)]
        (c,) = make_run_configs(build_parser().parse_args(argv))
        return c

    with ScriptedServer("action: move purple cube up", cycle=True) as srv:
        _run(config(srv, tmp_path / "direct"), batch=False)
        _, batcher = _run(config(srv, tmp_path / "batched"), batch=True)
    assert batcher is not None and len(batcher.submitted) == 3  # one batch per turn, each of 3 requests
    one, two = _records(tmp_path / "direct"), _records(tmp_path / "batched")
    assert all(r["usage"]["calls"] == 3 and r["error"] is None for r in two)
    assert _strip(one) == _strip(two)


# --- resume after a crash ------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_killed_run_collects_its_submitted_batch_instead_of_submitting_again(
    tmp_path: Path, provider: str
) -> None:
    out = tmp_path / "run"
    with ScriptedServer(REPLY, cycle=True) as srv:
        _run(_config(srv, provider, tmp_path / "direct", tmp_path), batch=False)
        script = scripted_batch.configure(srv, polls=10_000)  # the batch runs on and on
        config = _config(srv, provider, out, tmp_path)

        async def killed_after_submit() -> None:
            pool = ModelPool(config.models, share_provider_budget=True)
            wrap_pool(pool, out, **FAST)
            run = asyncio.create_task(execute(config, executor=LocalExecutor(EPISODES, pool=pool), argv=[]))
            while not (out / JOURNAL).exists():
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)  # polled a few times, then the process dies
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            await pool.aclose()

        asyncio.run(killed_after_submit())
        assert len(script.created) == 1 and not (out / "episodes.jsonl").exists()
        answered = srv.replies_served
        script.polls = 0  # the batch has ended by the time the command runs again
        _, batcher = _run(config, batch=True)
        assert srv.replies_served == answered  # no request was answered twice
    assert batcher is not None and batcher.submitted == [] and batcher.reused == EPISODES
    assert len(script.created) == 1  # no second batch
    assert _strip(_records(out)) == _strip(_records(tmp_path / "direct"))
    journal = [json.loads(line)["event"] for line in (out / JOURNAL).read_text().splitlines()]
    assert journal == ["submitted", "ended"]


# --- failures --------------------------------------------------------------------------------------


def test_a_request_the_batch_rejects_is_that_episodes_error_as_in_a_direct_call(tmp_path: Path) -> None:
    rejection = ScriptedFailure(400, "Invalid image: the PNG could not be decoded")
    with ScriptedServer(REPLY, cycle=True, faults=[rejection]) as srv:
        _run(_config(srv, "openai", tmp_path / "direct", tmp_path, episodes=1), batch=False)
        scripted_batch.configure(srv, fail=[rejection])
        _run(_config(srv, "openai", tmp_path / "batched", tmp_path, episodes=1), batch=True)
    (direct,), (batched,) = _records(tmp_path / "direct"), _records(tmp_path / "batched")
    assert direct["error_kind"] == batched["error_kind"] == "model_call"
    assert direct["termination"] == batched["termination"] == "error"
    want = "openai:scripted failed after 1 attempt: HTTP 400 Bad Request from "
    assert direct["error"].startswith(want) and batched["error"].startswith(want)
    hint = "(the server seems not to take images: use a vision model, or --captioner-model M"
    assert ": Invalid image: the PNG could not be decoded " + hint in direct["error"]
    assert (
        ": Invalid image: the PNG could not be decoded (batch batch_scripted_1) " + hint in batched["error"]
    )


def test_a_retryable_failure_goes_into_the_next_batch_as_a_direct_call_retries(tmp_path: Path) -> None:
    def config(srv: ScriptedServer, out: Path) -> Any:
        c = _config(srv, "anthropic", out, tmp_path, episodes=2)
        c.models.max_retries, c.models.retry_base_delay = 2, 0.0
        return c

    with ScriptedServer(REPLY, cycle=True, faults=[529]) as srv:
        _run(config(srv, tmp_path / "direct"), batch=False)
        scripted_batch.configure(srv, fail=[529])
        _, batcher = _run(config(srv, tmp_path / "batched"), batch=True)
    assert batcher is not None and len(batcher.submitted) == 2  # the overloaded request went again
    one, two = _records(tmp_path / "direct"), _records(tmp_path / "batched")
    assert sum(r["usage"]["retries"] for r in two) == sum(r["usage"]["retries"] for r in one) == 1
    assert all(r["error"] is None for r in two)
    # Which episode's request was the overloaded one depends on which reached the server first (two
    # run at once): the retry is compared in total above, everything else episode by episode.
    assert _strip(one, also={"retries"}) == _strip(two, also={"retries"})


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_expired_batch_fails_only_its_unanswered_requests_and_a_rerun_asks_only_those(
    tmp_path: Path, provider: str
) -> None:
    out = tmp_path / "run"
    with ScriptedServer(REPLY, cycle=True) as srv:
        script = scripted_batch.configure(srv, outcome="expired", answered=1)
        config = _config(srv, provider, out, tmp_path)
        _run(config, batch=True)
        first = _records(out)
        failed = [r for r in first if r["error"] is not None]
        assert len(first) == EPISODES and len(failed) == EPISODES - 1  # one answered before the expiry
        for r in failed:
            assert (
                r["error_kind"] == "model_call" and "expired before this request was answered" in r["error"]
            )
            assert "run the same command again" in r["error"]
        script.outcome = "completed"
        _, batcher = _run(config, batch=True)  # the errored episodes run again
    assert batcher is not None and len(batcher.submitted) == 1
    assert len(script.batches[batcher.submitted[0]].answers) == EPISODES - 1  # only the unanswered ones
    latest = {r["instance_id"]: r for r in _records(out)}  # the last record of an episode wins
    assert len(latest) == EPISODES and all(r["error"] is None for r in latest.values())


def test_a_batch_that_fails_whole_gives_each_episode_one_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ScriptedServer(REPLY, cycle=True) as srv:
        scripted_batch.configure(srv, outcome="failed")
        summary, _ = _run(_config(srv, "openai", out, tmp_path), batch=True)
    records = _records(out)
    assert len(records) == EPISODES and summary["episodes"] == EPISODES
    for r in records:
        assert r["error"].startswith(
            "openai:scripted failed after 1 attempt: batch batch_scripted_1 ended (failed: "
        )
        assert "run the same command again" in r["error"]


def test_an_anthropic_batch_the_api_refuses_fails_every_episode_with_the_reason(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ScriptedServer(REPLY, cycle=True) as srv:
        scripted_batch.configure(srv, outcome="failed")
        _run(_config(srv, "anthropic", out, tmp_path), batch=True)
    for r in _records(out):
        assert "submitting a batch of 4 requests: HTTP 400 Bad Request" in r["error"]
        assert "the batch was refused" in r["error"]


# --- progress, settings, prices --------------------------------------------------------------------


def test_default_progress_is_a_line_per_state_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer(REPLY, cycle=True) as srv:
        scripted_batch.configure(srv, polls=1)
        model_pool = ModelPool()
        batcher = wrap_pool(model_pool, tmp_path, **FAST)

        async def go() -> str:
            try:
                model = model_pool.get(f"openai:scripted@{srv.base_url}")
                reply = await model.generate([Message.text("user", "hello")], GenerationParams())
                return reply.text
            finally:
                await model_pool.aclose()

        assert asyncio.run(go()) == REPLY
    err = capsys.readouterr().err
    assert "playbench: batch batch_scripted_1 (openai:scripted): in_progress, 0/1 answered" in err
    assert "playbench: batch batch_scripted_1 (openai:scripted): completed, 1/1 answered, 0 failed" in err
    assert batcher.submitted == ["batch_scripted_1"]


def test_bad_settings_and_providers_without_a_batch_api_are_refused(tmp_path: Path) -> None:
    check_spec("openai:gpt-4o")
    check_spec("anthropic:claude-sonnet-4-5")
    with pytest.raises(ConfigError, match=r"provider 'google' of 'google:gemini-2.5-pro' has no batch API"):
        check_spec("google:gemini-2.5-pro")
    with pytest.raises(ConfigError, match=r"batch poll_interval must be a number of seconds >= 0 \(got -1\)"):
        Batcher(tmp_path, poll_interval=-1)
    with pytest.raises(ConfigError, match=r"max_batch must be an integer >= 1 \(got 0\)"):
        Batcher(tmp_path, max_batch=0)
    replies = tmp_path / "replies.txt"
    replies.write_text("hello\n")
    pool = ModelPool()
    wrap_pool(pool, tmp_path)
    with pytest.raises(
        ConfigError, match=r"--batch: mock:.* has no batch API \(batching takes openai, anthropic"
    ):
        pool.get(f"mock:{replies}")


def test_the_batch_price_is_half_unless_the_table_names_one() -> None:
    assert batch_price({"input": 2.0, "output": 8.0}) == {"input": 1.0, "output": 4.0}
    table = parse_prices({"m": {"input": 2.0, "output": 8.0, "batch_input": 1.5, "batch_output": 3.0}})
    assert batch_price(table["m"]) == {"input": 1.5, "output": 3.0}
    assert batch_price(None) is None
    with pytest.raises(ConfigError, match="batch_input"):
        parse_prices({"m": {"input": 2.0, "output": 8.0, "batch_input": 1.0}})


def test_a_model_error_is_raised_for_an_empty_conversation(tmp_path: Path) -> None:
    pool = ModelPool()
    wrap_pool(pool, tmp_path)
    model = pool.get("openai:gpt-4o@http://127.0.0.1:9/v1")
    with pytest.raises(ModelError, match="no messages"):
        asyncio.run(model.generate([], GenerationParams()))


def test_the_command_line_batch_flag_end_to_end(tmp_path: Path, monkeypatch, capsys) -> None:
    from playbench.cli import main

    monkeypatch.setenv("PLAYBENCH_BATCH_POLL_SECONDS", "0.05")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    with ScriptedServer(REPLY, cycle=True) as srv:
        argv = ["run", "ivispar/board-inference", "--agent", "llm", "--model", "openai:scripted"]
        argv += ["--base-url", srv.base_url, "--prices", str(prices), "--episodes", "3"]
        assert main([*argv, "--out", str(tmp_path / "direct")]) == 0
        assert main([*argv, "--batch", "--out", str(tmp_path / "batched")]) == 0
        journal = (tmp_path / "batched" / JOURNAL).read_text().splitlines()
        assert sum('"submitted"' in line for line in journal) == 1  # three episodes, one batch
        assert main([*argv, "--batch", "--out", str(tmp_path / "batched")]) == 0  # nothing left to do
        assert (tmp_path / "batched" / JOURNAL).read_text().splitlines() == journal
    direct, batched = _records(tmp_path / "direct"), _records(tmp_path / "batched")
    assert [_strip(r) for r in batched] == [_strip(r) for r in direct]
    for a, b in zip(direct, batched, strict=True):
        assert b["usage"]["cost"] == pytest.approx(a["usage"]["cost"] * BATCH_DISCOUNT)
    config = json.loads((tmp_path / "batched" / "config.json").read_text())
    assert config["run"]["models"]["batch_dir"] == str(tmp_path / "batched")
