"""The COMMA paper preset: the paper's settings, every number of its Tables 1-4, measures that read
metrics the tasks produce, and `playbench reproduce comma` putting the paper's rows beside a run's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.preset import get_preset, preset_names
from playbench.core.registry import make_task

PUZZLES = ["Button", "Dog", "Wire", "Who", "LED", "Memory", "Keypad", "Password", "Color", "Maze"]


@pytest.fixture(scope="module")
def preset():
    return get_preset("comma")


def tables(preset) -> dict:
    return {t.id: t for t in preset.tables}


def test_the_run_block_holds_the_papers_settings(preset):
    assert "comma" in preset_names()
    run = preset.run
    assert run.tasks == [f"comma/{p.lower()}" for p in PUZZLES]
    assert run.task_options == {"max_steps": 20, "mistake_limit": None}  # 20 turns, no mistake limit
    assert run.agent == "llm" and run.episodes is None and run.trials == 1  # 100 default instances each
    # temperature 0, 1024 tokens and history 0 are the tasks' declaration (model_side.py), not the preset's
    assert run.agent_options == {"cot": True} and not getattr(run, "sampling_by_model", None)


def test_every_published_number_is_in_the_preset(preset):
    by_id = tables(preset)
    assert list(by_id) == ["Table 2", "Table 1", "Table 3", "Table 4"]
    for table in by_id.values():
        assert [c.name for c in table.conditions] == [*PUZZLES, "Overall"]
        assert [c.task for c in table.conditions] == [f"comma/{p.lower()}" for p in PUZZLES] + [None]
    counts = {tid: len(t.rows) for tid, t in by_id.items()}
    assert counts == {"Table 2": 11, "Table 1": 7, "Table 3": 17, "Table 4": 17}
    cells = sum(len(v) for t in by_id.values() for r in t.rows for v in r.values.values())
    assert cells == (11 + 7 + 17 + 17) * 11
    psr = "Average partial success rate"
    random_row = next(r for r in by_id["Table 2"].rows if r.model == "Random / InternVL")
    assert [random_row.values[psr][p] for p in [*PUZZLES, "Overall"]] == [
        100, 100, 100, 100, 85, 25, 33, 0, 1, 15, 56,
    ]  # fmt: skip
    o1 = next(r for r in by_id["Table 1"].rows if r.model == "Human / GPT4o1")
    assert o1.values[psr]["Keypad"] == 0 and o1.values[psr]["Color"] == 44 and o1.values[psr]["Overall"] == 74
    acl = next(r for r in by_id["Table 4"].rows if r.model == "Random / InternVL")
    assert acl.values["Average conversation length"]["Maze"] == 19.79
    assert acl.values["Average conversation length"]["Overall"] == 12.98


def test_table_2_overall_is_the_puzzle_average_and_table_3s_lost_maze_cells_are_null(preset):
    by_id = tables(preset)
    for row in by_id["Table 2"].rows:  # equal runs per puzzle: Overall = the mean of the ten columns
        values = row.values["Average partial success rate"]
        assert abs(sum(values[p] for p in PUZZLES) / 10 - values["Overall"]) <= 0.6, row.model
    am = "Average number of mistakes"
    missing = {r.model for r in by_id["Table 3"].rows if r.values[am]["Maze"] is None}
    assert len(missing) == 10 and "Random / InternVL" in missing and "GPT4V / GPT4V" not in missing
    random_am = next(r for r in by_id["Table 3"].rows if r.model == "Random / InternVL").values[am]
    # the lost cell follows from the printed Overall: 10 x 5.86 - the nine printed values
    assert round(10 * random_am["Overall"] - sum(random_am[p] for p in PUZZLES[:-1]), 2) == 4.22


def test_every_measure_reads_a_metric_the_tasks_produce(preset):
    produced = {}
    for task_id in preset.run.tasks:
        task = make_task(task_id)
        task.reset(task.instances(1, 0)[0])
        while not task.done:
            task.step(task.oracle_action(task.current_role()))
        produced[task_id] = task.outcome().metrics
    for table in preset.tables:
        for measure in table.measures:
            name = measure.metric.removeprefix("metrics.")
            for condition in table.conditions:
                if condition.task:
                    assert name in produced[condition.task], (table.id, measure.name, condition.name)
    psr = tables(preset)["Table 2"].measures[0]
    assert psr.metric == "metrics.partial_score" and psr.scale == 100 and psr.unit == "%"


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reproduce") / "run"
    argv = ["reproduce", "comma", "--agent", "random", "--episodes", "2", "--out", str(out), "--no-images"]
    assert main(argv) == 0
    return out


def test_reproduce_puts_the_papers_random_row_beside_the_runs(reproduced):
    config = json.loads((reproduced / "config.json").read_text())
    assert config["run"]["preset"] == "comma" and config["run"]["agents"]["*"]["name"] == "random"
    assert config["run"]["task_options"]["max_steps"] == 20
    assert config["run"]["task_options"]["mistake_limit"] is None
    report = (reproduced / "report.md").read_text()
    assert "## Beside the paper" in report and "### Table 2: Average partial success rate (%)" in report
    paper_row = next(line for line in report.splitlines() if line.startswith("| Random / InternVL |"))
    assert "85.0" in paper_row and "56.0" in paper_row
    ours = [line for line in report.splitlines() if line.startswith("| **random (this run")]
    assert len(ours) == 4 and all(line.count("|") == 13 for line in ours)  # model + 10 puzzles + Overall
    beside = json.loads((reproduced / "paper.json").read_text())
    psr = next(c for c in beside if c["table"] == "Table 2")
    run_row = next(r for r in psr["rows"] if r["source"] == "run")
    summary = json.loads((reproduced / "summary.json").read_text())
    for column, value in zip(psr["columns"], run_row["values"], strict=True):
        if column == "Overall":
            assert math.isclose(value, sum(run_row["values"][:-1]) / 10)
        else:
            ours = summary["tasks"][f"comma/{column.lower()}"]["metrics"]["partial_score"]["value"]
            assert math.isclose(value, 100 * ours)
