"""The iVISPAR paper preset: its settings, and that each published measure reads a metric the
tasks really produce, in the paper's unit."""

from __future__ import annotations

import pytest

from playbench.core.preset import get_preset
from playbench.core.registry import make_task
from playbench.report.paper import comparisons


@pytest.fixture(scope="module")
def preset():
    return get_preset("ivispar")


def played_metrics(task_id: str) -> dict:
    task = make_task(task_id, **({"image_size": 96} if "inference" in task_id else {}))
    task.reset(task.instances(1, 0)[0])
    while not task.done:
        task.step(task.oracle_action("player"))
    return task.outcome().metrics


def test_the_run_block_holds_the_papers_settings(preset):
    run = preset.run
    assert run.tasks == [
        "ivispar/sgp-3d",
        "ivispar/sgp-2d",
        "ivispar/sgp",
        "ivispar/board-inference-3d",
        "ivispar/board-inference-2d",
    ]
    assert run.task_options == {"max_steps": 20, "past_window": 2}
    # the model side (cap, sampling per model, history) is the tasks' declaration, not the preset's
    assert run.agent_options == {"cot": True} and not getattr(run, "sampling_by_model", None)


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
    deviation = next(m for m in preset.tables[0].measures if m.name == "Optimal path deviation")
    assert deviation.metric == "metrics.step_deviation"


def test_board_state_inference_is_the_pooled_accuracy_of_the_paper():
    preset = get_preset("ivispar")
    measure = next(m for m in preset.tables[0].measures if m.name == "Board state inference")
    # Table 2 = Table 4's correct geoms per episode / 6.5 geoms (Sonnet 2D: 5.50 -> 84.62 %)
    assert round(5.50 * measure.scale, 2) == 84.62 and round(2.30 * measure.scale, 2) == 35.38
    run = {
        "name": "fake",
        "records": [{"agent": "x"}],
        "summary": {
            "tasks": {
                t: {"task": t, "metrics": {"correct": {"n": 10, "value": v, "ci95": [v, v]}}}
                for t, v in (("ivispar/board-inference-3d", 1.3), ("ivispar/board-inference-2d", 3.25))
            }
        },
    }
    inference = next(c for c in comparisons(preset, [run]) if c.measure.startswith("Board state"))
    cells = [c.value for c in inference.rows[-1].cells]
    assert cells[1] == pytest.approx(20.0) and cells[2] == pytest.approx(50.0) and cells[3] is None
    assert cells[0] == pytest.approx(35.0)  # the average of 3D and 2D, as the paper's Avg


def test_tables_4_and_5_are_in_the_preset():
    tables = [t for t in get_preset("ivispar").tables if t.id in ("Table 4", "Table 5")]
    assert [t.id for t in tables] == ["Table 4", "Table 5"]
    sonnet = tables[0].rows[0]
    assert sonnet.model == "Sonnet-3.5" and sonnet.values["Correct"] == {
        "Avg": 3.90,
        "3D": 2.30,
        "2D": 5.50,
        "Text": None,
    }
    qwen = next(r for r in tables[1].rows if r.model == "Qwen2-72B")
    assert qwen.values["Shape Errors"]["3D"] == 1.67 and qwen.values["Format Errors"]["2D"] == 0.38
    assert sum(len(v) for t in tables for r in t.rows for v in r.values.values()) == 2 * 4 * 7 * 4
    produced = played_metrics("ivispar/board-inference-2d")
    for table in tables:
        assert all(m.metric.removeprefix("metrics.") in produced for m in table.measures)
