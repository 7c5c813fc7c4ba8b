"""The VisEscape paper preset: its settings, every published number as printed, and that each
measure reads a metric the tasks produce, in the paper's unit."""

from __future__ import annotations

import json

import pytest

from playbench.cli import main
from playbench.core.preset import get_preset
from playbench.core.registry import make_task
from playbench.report.paper import comparisons
from playbench.tasks.visescape.original.demo import write_demo_clone


@pytest.fixture(scope="module")
def preset():
    return get_preset("visescape")


def played_metrics(task_id: str) -> dict:
    task = make_task(task_id)
    task.reset(task.instances(1, 0)[0])
    while not task.done:
        task.step(task.oracle_action("player"))
    return task.outcome().metrics


def test_the_run_block_holds_the_papers_settings(preset):
    run = preset.run
    assert run.tasks == ["visescape/original", "visescape/original-hint"]
    assert run.trials == 3 and run.episodes is None and run.agent == "visescape-base"
    assert run.task_options == {"max_steps": 300, "patience": 100, "hint_after": 30, "history": 10}
    for task in run.tasks:  # the options are the tasks' defaults: the paper's protocol needs no --set
        config = make_task(task).config
        assert all(getattr(config, k) == v for k, v in run.task_options.items())


def test_the_published_numbers_as_printed(preset):
    tables = {t.id: t for t in preset.tables}
    assert list(tables) == ["Table 2", "Table 4", "Table 5", "Table 7", "Table 10", "Table 11", "Table 13"]
    rows = {r.model: r.values for r in tables["Table 2"].rows}
    assert rows["Claude-3.5-Sonnet"] == {
        "SR": {"exp_base": 6.3},
        "GC": {"exp_base": 11.11},
        "SPL": {"exp_base": 3.35},
        "Step": {"exp_base": 286.7},
    }
    assert rows["Human"]["SPL"] == {"exp_base": 51.3} and rows["GPT-4o-mini"]["SPL"] == {"exp_base": None}
    r1 = next(r for r in tables["Table 10"].rows if r.model == "InternVL2.5-38B + Base LLM (R1) (Caption)")
    assert (
        r1.values["HCR"] == {"exp_base": None, "exp_hint": 25.53} and r1.values["Step"]["exp_hint"] == 166.8
    )
    no_memory = next(r for r in tables["Table 5"].rows if r.model == "LLaVA-v1.6-34B (no memory)")
    assert no_memory.values["Step"] == {"exp_hint": 300.0}
    count = sum(len(v) for t in preset.tables for r in t.rows for v in r.values.values())
    assert (
        count == 309 + 21 * 3
    )  # the six tables (HCR's exp_base cells are null) and Table 13's 20 rooms + average


def test_every_measure_reads_a_metric_the_tasks_produce(preset):
    produced = {t: played_metrics(t) for t in preset.run.tasks}
    for table in preset.tables:
        for measure in table.measures:
            for condition in table.conditions:
                task = measure.task_for(condition)
                if task is None or measure.metric in ("success", "steps"):
                    continue
                name = measure.metric.removeprefix("metrics.")
                has_number = any(
                    values.get(condition.name) is not None
                    for row in table.rows
                    if (values := row.values.get(measure.name))
                )
                if has_number:
                    assert name in produced[task], (table.id, measure.name, condition.name)


def test_our_numbers_appear_in_the_papers_units(preset):
    run = {
        "name": "fake",
        "records": [{"agent": "random"}],
        "summary": {
            "tasks": {
                "visescape/original": {
                    "task": "visescape/original",
                    "success": {"n": 60, "value": 0.05, "ci95": [0.01, 0.1]},
                    "metrics": {"gc": {"n": 60, "value": 0.1111, "ci95": [0.1, 0.12]}},
                }
            }
        },
    }
    table2 = [c for c in comparisons(preset, [run]) if c.table == "Table 2"]
    sr = next(c for c in table2 if c.measure == "SR (%)")
    assert sr.rows[-1].cells[0].value == pytest.approx(5.0)
    gc = next(c for c in table2 if c.measure == "GC (%)")
    assert gc.rows[-1].cells[0].value == pytest.approx(11.11)


def test_reproduce_shows_the_papers_rows_beside_ours(tmp_path, capsys):
    clone = write_demo_clone(tmp_path / "clone")
    out = tmp_path / "run"
    code = main(
        ["reproduce", "visescape", "--agent", "random", "--set", f"source={clone}", "--out", str(out)]
    )
    assert code == 0
    report = (out / "report.md").read_text()
    assert (
        "Beside the paper" in report
        and "Claude-3.5-Sonnet" in report
        and "InternVL2.5-38B (no memory)" in report
    )
    config = json.loads((out / "config.json").read_text())
    assert config["run"]["preset"] == "visescape"
    assert {r["task"] for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())} == {
        "visescape/original",
        "visescape/original-hint",
    }
