"""`--max-cost`: a priced model over the scripted server stops at or under the limit; a resume goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.runner.cost_cap import CostCap
from playbench.testing.scripted_server import ScriptedServer

# an unknown colour is always illegal, so every episode runs its whole step cap: a known number of calls
REPLY = "action: move purple cube up"


def _prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.json"
    # dear enough that an episode of 6 calls costs about two cents (its prompts, ~1,500 tokens each)
    path.write_text(json.dumps({"priced": {"input": 2.0, "output": 20.0}}))
    return path


def _run(tmp_path: Path, srv: ScriptedServer, out: Path, limit: str, *extra: str) -> int:
    return main(
        [
            "run",
            "ivispar/sgp",
            "--agent",
            "llm",
            "--model",
            "openai:priced",
            "--base-url",
            srv.base_url,
            "--prices",
            str(_prices(tmp_path)),
            "--max-cost",
            limit,
            "--episodes",
            "12",
            "--concurrency",
            "3",
            "--set",
            "max_steps=6",
            "--out",
            str(out),
            *extra,
        ]
    )


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def test_a_run_stops_at_or_under_the_limit_and_a_resume_goes_on(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = _run(tmp_path, srv, out, "0.05")
        assert code == 3
        err = capsys.readouterr().err
        assert "stopped at --max-cost $0.05" in err
        summary = json.loads((out / "summary.json").read_text())
        cap = summary["cost_cap"]
        assert cap["stopped"] and cap["spent"] <= 0.05 + 1e-9
        first = _records(out)
        assert 0 < len(first) < 12
        recorded = sum(r["usage"]["cost"] for r in first)
        assert recorded <= cap["spent"] + 1e-9
        assert all(r["error"] is None for r in first)  # nothing abandoned was written as an error
        # every call the server answered, abandoned episodes' included, was paid for within the limit
        per_call = min(r["usage"]["cost"] / r["usage"]["calls"] for r in first)
        assert len(srv.requests) * per_call <= 0.05 + 1e-9

        code = _run(tmp_path, srv, out, "0.05")
        second = _records(out)
        assert len(second) > len(first)
        keys = [(r["instance_id"], r["trial"]) for r in second]
        assert len(keys) == len(set(keys))  # no episode played twice
        assert json.loads((out / "summary.json").read_text())["cost_cap"]["spent"] <= 0.05 + 1e-9

        code = _run(tmp_path, srv, out, "10")
        assert code == 0
        assert len(_records(out)) == 12


def test_several_models_share_one_budget(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"a": {"input": 2.0, "output": 20.0}, "b": {"input": 2.0, "output": 20.0}}))
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp",
                "--agent",
                "llm",
                "--model",
                "openai:a",
                "--model",
                "openai:b",
                "--base-url",
                srv.base_url,
                "--prices",
                str(prices),
                "--max-cost",
                "0.04",
                "--episodes",
                "8",
                "--concurrency",
                "2",
                "--set",
                "max_steps=6",
                "--out",
                str(tmp_path / "sweep"),
            ]
        )
    assert code == 3
    cells = sorted((tmp_path / "sweep").iterdir())
    assert len(cells) == 2
    spent = sum(
        r["usage"]["cost"] for cell in cells if (cell / "episodes.jsonl").exists() for r in _records(cell)
    )
    assert 0 < spent <= 0.04 + 1e-9
    caps = [json.loads((cell / "summary.json").read_text())["cost_cap"] for cell in cells]
    assert max(c["spent"] for c in caps) <= 0.04 + 1e-9


def test_a_model_without_a_price_cannot_be_capped(tmp_path: Path, capsys) -> None:
    with ScriptedServer(REPLY, cycle=True) as srv:
        code = main(
            [
                "run",
                "ivispar/sgp",
                "--agent",
                "llm",
                "--model",
                "openai:unpriced-model",
                "--base-url",
                srv.base_url,
                "--max-cost",
                "1",
                "--episodes",
                "1",
                "--out",
                str(tmp_path / "u"),
            ]
        )
    assert code == 2
    assert "openai:unpriced-model has no price" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-1"])
def test_the_limit_must_be_positive(tmp_path: Path, capsys, value: str) -> None:
    code = main(
        ["run", "ivispar/sgp", "--agent", "random", "--max-cost", value, "--out", str(tmp_path / "x")]
    )
    assert code == 2
    assert "--max-cost must be a positive amount" in capsys.readouterr().err


def test_episodes_start_within_the_estimate_and_one_at_a_time_above_it() -> None:
    cap = CostCap(1.0, bounds={"t": 0.3})
    assert cap.try_start(1, "t") and cap.try_start(2, "t") and cap.try_start(3, "t")
    assert not cap.try_start(4, "t")  # 0.9 in flight + 0.3 > 1.0
    cap.episode_done(1, "t", 0.1)  # measured: the mean of finished episodes replaces the bound
    assert cap.episode_estimate("t") == pytest.approx(0.1)
    cap.spent = 0.1
    assert cap.try_start(4, "t")
    big = CostCap(1.0, bounds={"t": 5.0})  # an upper bound past the whole limit: one at a time
    assert big.try_start(1, "t")
    assert not big.try_start(2, "t")
    big.episode_done(1, "t", None, abandoned=True)
    assert big.abandoned == 1 and big.try_start(3, "t")


def test_calls_reserve_their_bound_and_settle_what_they_cost() -> None:
    cap = CostCap(0.05)
    assert cap.reserve(0.03)
    assert not cap.reserve(0.03)  # two calls in flight together may not pass the limit
    cap.reserved -= 0.03
    assert cap.reserve(0.03)
