"""VisEscape metrics and report figures."""

from collections import Counter

from playbench.core.registry import make_task
from playbench.tasks.visescape import metrics
from playbench.tasks.visescape.plots import make_plots


def test_repeat_histogram_and_ratio():
    situations = Counter({("s1", "a"): 3, ("s2", "b"): 1, ("s3", "c"): 12})
    hist = metrics.repeat_histogram(situations, 16)
    assert hist[1] == round(3 / 16, 5) and hist[-1] == round(12 / 16, 5) and sum(hist[2:-1]) == 0
    assert metrics.repeated_ratio(situations, 16) == 15 / 16


def test_progression_holds_the_final_value():
    curve = metrics.progression([[0.0, 0.5, 1.0], [0.0] * 5], length=5)
    assert curve == [0.0, 0.25, 0.5, 0.5, 0.5]


def _episodes():
    task = make_task("visescape/room-02")
    out = []
    for inst in task.instances(2, 0):
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action("player"))
        res = task.outcome()
        out.append(
            {
                "task": "visescape/room-02",
                "agent": "oracle",
                "instance_id": inst.id,
                "success": res.success,
                "steps": res.steps,
                "metrics": res.metrics,
                "error": None,
            }
        )
    return task, out


def test_summary_and_plots(tmp_path):
    task, episodes = _episodes()
    summary = task.summarize(episodes)
    assert summary["sr"] == 1.0 and summary["gc"] == 1.0 and len(summary["gc_progression"]) == 100
    assert summary["by_room"][0]["room"] == "room-02"
    paths = make_plots([{"records": episodes}], tmp_path)
    assert {p.name for p in paths} >= {
        "visescape_gc_progression.png",
        "visescape_repetition.png",
        "visescape_metrics.png",
    }


def test_repetition_figure_separates_hint_mode():
    from playbench.tasks.visescape.plots import repetition_series

    hist = [0.0] * len(metrics.REPEAT_BUCKETS)
    records = [
        {"agent": "random", "metrics": {"gc": 0.0, "repeat_hist": hist, "hints": hints}}
        for hints in (False, True)
    ]
    assert sorted(repetition_series(records)) == [("random", False), ("random", True)]
