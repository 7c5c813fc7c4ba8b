"""Theory of Space report figures from run records."""

from playbench.tasks.tos.plots import make_plots


def record(task, agent, success, cost=None, coverage=None):
    metrics = {} if cost is None else {"cost": cost, "coverage": coverage}
    return {
        "task": task,
        "agent": agent,
        "model": None,
        "success": success,
        "metrics": metrics,
        "error": None,
    }


def test_figures_are_written(tmp_path):
    runs = [
        {"config": {}, "records": [record("tos/pairwise-direction", "oracle", True, 5.0, 1.0),
                                   record("tos/cogmap", "oracle", True, 4.0, 1.0),
                                   record("tos/explore", "oracle", True, 4.0, 1.0)]},
        {"config": {"task_options_resolved": {"tos/pairwise-direction": {"modality": "vision"}}},
         "records": [record("tos/pairwise-direction", "random", False, 7.5, 0.3),
                     record("tos/pairwise-direction", "random", True, 2.0, 0.1)]},
        {"config": {"task_options_resolved": {"tos/mental-rotation": {"exploration": "passive"}}},
         "records": [record("tos/mental-rotation", "random", False)]},
    ]  # fmt: skip
    paths = make_plots(runs, tmp_path)
    assert sorted(p.name for p in paths) == ["tos_accuracy_by_family.png", "tos_cost_vs_coverage.png"]
    assert all(p.stat().st_size > 5000 for p in paths)
    assert make_plots([{"config": {}, "records": []}], tmp_path / "empty") == []
