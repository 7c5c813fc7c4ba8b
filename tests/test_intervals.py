"""Intervals that respect their metric's range, and errored episodes kept out of every score (issue #21)."""

import asyncio
import csv
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.core.metrics import N_BELOW_TWO, aggregate_metrics, mean, proportion
from playbench.report import plots
from playbench.report.summary import summarize
from playbench.report.tables import headline_rows, load_run, metric_rows, to_markdown
from playbench.runner.run import RunConfig, execute

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=2, max_size=30))
def test_a_mean_interval_stays_between_the_smallest_and_largest_value(values):
    stat = mean(values)
    lo, hi = stat["ci95"]
    assert min(values) - 1e-9 <= lo <= hi <= max(values) + 1e-9
    value, plo, phi = plots.mean_ci(values)
    assert min(values) - 1e-9 <= plo <= phi <= max(values) + 1e-9


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.booleans()), min_size=1, max_size=40))
def test_a_proportion_interval_stays_inside_zero_and_one(pairs):
    units = [u for u, _ in pairs]
    flags = [f for _, f in pairs]
    for stat in (proportion(flags), proportion(flags, units)):
        lo, hi = stat["ci95"]
        assert 0.0 <= lo <= stat["value"] <= hi <= 1.0
        assert hi > lo  # a proportion's interval always has width, even at 0% or 100%


def test_one_instance_says_n_below_two_instead_of_a_zero_width_interval():
    stat = mean([2.5])
    assert stat["ci95"] is None and stat["note"] == N_BELOW_TWO and stat["value"] == 2.5
    repeated = mean([1.0, 3.0, 2.0], units=["a", "a", "a"])  # three trials of one instance
    assert repeated["n"] == 1 and repeated["ci95"] is None
    value, lo, hi = plots.mean_ci([4.0])
    assert value == 4.0 and math.isnan(lo) and math.isnan(hi)


def test_the_issues_examples_stay_in_range():
    # "optimal 2.50 [-3.85, 8.85]": two instances with 0 and 5 optimal steps
    lo, hi = mean([0, 5])["ci95"]
    assert lo >= 0 and hi <= 5
    # a ratio in [0, 1] with a few values near the ends
    ratios = [0.0, 1.0, 1.0, 0.05]
    lo, hi = aggregate_metrics([{"grab_ratio": r} for r in ratios])["grab_ratio"]["ci95"]
    assert 0.0 <= lo <= hi <= 1.0


def _record(i, error=None, success=True, steps=3):
    return {
        "task": "toy/walk",
        "instance_id": f"walk-0-{i}",
        "trial": 0,
        "agent": "llm(mock:x)",
        "model": "mock:x",
        "success": success and error is None,
        "steps": steps,
        "optimal_steps": 2,
        "metrics": {"final_distance": 0 if success else 4, "solved": success},
        "termination": "error" if error else "goal_reached",
        "error": error,
        "usage": {"input_tokens": 10, "output_tokens": 2, "calls": 1, "cost": 0.0},
    }


def test_errored_episodes_are_missing_not_failed():
    records = [_record(0), _record(1), _record(2, error="mock:x failed after 6 attempts: cannot connect")]
    entry = summarize(records)["tasks"]["toy/walk"]
    assert entry["episodes"] == 3 and entry["scored"] == 2 and entry["errors"] == 1
    assert entry["success"]["value"] == 1.0 and entry["success"]["n"] == 2  # not 2 of 3
    assert entry["metrics"]["final_distance"]["n"] == 2
    assert entry["usage"]["calls"] == 3  # an errored episode's calls still cost
    assert entry["error_messages"] == {"mock:x failed after 6 attempts: cannot connect": 1}
    run = {"name": "r", "path": "r", "summary": summarize(records), "records": records}
    (row,) = headline_rows([run])
    assert row["scored / errored"] == "2 / 1"
    text = to_markdown([run])
    assert "## Errors (left out of every score)" in text and "cannot connect" in text


def test_all_errored_shows_no_score_and_draws_nothing(tmp_path):
    records = [_record(i, error="boom") for i in range(3)]
    run = {"name": "r", "path": "r", "summary": summarize(records), "records": records}
    (row,) = headline_rows([run])
    assert row["scored / errored"] == "0 / 3" and row["success"] == "–" and row["steps"] == "–"
    assert plots.write_plots([run], tmp_path) == []
    csv_rows = {r["metric"]: r for r in metric_rows([run])}
    assert csv_rows["errors"]["value"] == 3 and csv_rows["termination.error"]["value"] == 3
    assert csv_rows["success"]["n"] == 0


def test_plots_leave_errored_episodes_out(tmp_path, capsys):
    records = [_record(0), _record(1, error="boom")]
    run = {"name": "r", "path": "r", "summary": summarize(records), "records": records}
    seen = []
    kept, errored = plots.scored_only([run])
    seen += kept[0]["records"]
    assert errored == 1 and [r["instance_id"] for r in seen] == ["walk-0-0"]
    assert plots.write_plots([run], tmp_path)  # the scored one is drawn
    assert "1 errored episode(s) are left out of the plots" in capsys.readouterr().err


def test_a_run_with_trials_reports_bounded_intervals(tmp_path):
    out = tmp_path / "run"
    asyncio.run(execute(RunConfig(["toy/walk"], {"*": AgentSpec("random")}, str(out), episodes=4, trials=3)))
    run = load_run(out)
    _check_ranges(run)


def _check_ranges(run):
    """Every interval of a run's summary lies within the values its episodes took."""
    records = [r for r in run["records"] if not r.get("error")]
    for entry in run["summary"]["tasks"].values():
        recs = [r for r in records if r["task"] == entry["task"]]
        stats = {"success": entry["success"], "steps": entry["steps"], **entry["metrics"]}
        for name, stat in stats.items():
            if stat.get("ci95") is None:
                assert stat["n"] < 2 or stat["kind"] == "proportion" and stat["n"] == 0, name
                continue
            lo, hi = stat["ci95"]
            if stat["kind"] == "proportion":
                assert 0.0 <= lo <= hi <= 1.0, (entry["task"], name, stat)
                continue
            if name == "steps":
                values = [r["steps"] for r in recs]
            else:
                values = [
                    float(r["metrics"][name])
                    for r in recs
                    if isinstance(r["metrics"].get(name), int | float)
                    and not isinstance(r["metrics"][name], bool)
                ]
            values = [v for v in values if not math.isnan(v)]
            assert min(values) - 1e-9 <= lo <= hi <= max(values) + 1e-9, (entry["task"], name, stat)


SUITES = ("ivispar", "comma", "tos", "visescape", "mmescape")


@pytest.mark.slow
def test_no_interval_leaves_its_range_on_every_suites_quickstart(tmp_path, monkeypatch, capsys):
    """`playbench quickstart` (oracle and random on every default task): every interval in summary.json,
    report.csv and the plots lies within the values it summarises."""
    import importlib

    seen = {"mean": 0, "proportion": 0}

    def checked_mean(values):
        value, lo, hi = plots.mean_ci(values)
        if not math.isnan(lo):
            assert min(values) - 1e-9 <= lo <= value <= hi <= max(values) + 1e-9
        seen["mean"] += 1
        return value, lo, hi

    def checked_proportion(flags):
        value, lo, hi = plots.proportion_ci(flags)
        if flags:
            assert 0.0 <= lo <= value <= hi <= 1.0
        seen["proportion"] += 1
        return value, lo, hi

    for suite in SUITES:
        module = importlib.import_module(f"playbench.tasks.{suite}.plots")
        if hasattr(module, "mean_ci"):
            monkeypatch.setattr(module, "mean_ci", checked_mean)
        if hasattr(module, "proportion_ci"):
            monkeypatch.setattr(module, "proportion_ci", checked_proportion)
    out = tmp_path / "qs"
    assert main(["quickstart", "--episodes", "3", "--out", str(out), "--concurrency", "2"]) == 0
    # the default job says, once, which suites it played on playbench's own sets (issue 27)
    err = capsys.readouterr().err
    assert err.count("visescape/rooms: playbench's own instances, not the paper's set") == 1
    assert seen["mean"] > 0 and seen["proportion"] > 0
    runs = [load_run(out / agent) for agent in ("oracle", "random")]
    assert {r["task"].split("/")[0] for run in runs for r in run["records"]} == set(SUITES)
    for run in runs:
        _check_ranges(run)
    for row in csv.DictReader((out / "report.csv").open()):
        if row["ci95_low"]:
            lo, hi = float(row["ci95_low"]), float(row["ci95_high"])
            assert lo <= float(row["value"]) + 1e-9 and float(row["value"]) <= hi + 1e-9, row
            if row["kind"] == "proportion":
                assert 0.0 <= lo <= hi <= 1.0, row
