"""Episode metrics and the suite's summary extras."""

from __future__ import annotations

import json
import random

from playbench.core.metrics import aggregate_metrics
from playbench.core.types import Validity
from playbench.tasks.ivispar.sgp import COUNTERS, SlidingGeomTask
from playbench.tasks.ivispar.solver import Solver


def run(task: SlidingGeomTask, inst, policy) -> dict:
    task.reset(inst)
    while not task.done:
        task.step(policy(task))
    out = task.outcome()
    return {"success": out.success, "steps": out.steps, "metrics": out.metrics}


def test_random_episode_metrics_are_consistent():
    task = SlidingGeomTask()
    rng = random.Random(0)
    for inst in task.instances(25, seed=11):
        ep = run(task, inst, lambda t: rng.choice(t.observe("player").legal_actions + ["oops"]))
        m = ep["metrics"]
        assert ep["steps"] <= task.config.max_steps
        assert len(m["regret"]) == ep["steps"] + 1
        assert sum(m[k] for k in COUNTERS) == ep["steps"]
        assert m["optimal_steps"] == inst.optimal_steps and m["num_geoms"] == inst.num_geoms
        # R(t) = d(s_t) - (d(s_0) - t), so the last entry gives back the final distance
        assert m["regret"][-1] == m["final_distance"] - (m["optimal_steps"] - ep["steps"])
        assert all(r >= 0 for r in m["regret"])  # nobody beats the optimal path
        assert ep["success"] == (m["final_distance"] == 0)
        # the final distance is the true remaining shortest path
        board, goal = inst.board(), inst.goal_state()
        assert Solver(board, goal).distance(task.board_state) == m["final_distance"]
        json.dumps(ep)  # plain JSON for episodes.jsonl
        scalars = aggregate_metrics([m])
        assert "mean_regret" in scalars and "regret" not in scalars


def test_summarize_curves_and_cells():
    task = SlidingGeomTask()
    insts = task.instances(20, seed=0)
    oracle = [run(task, i, lambda t: t.oracle_action("player")) for i in insts]
    summary = task.summarize(oracle)
    assert set(summary["regret_curve"]["mean"]) == {0}
    assert len(summary["regret_curve"]["t"]) == max(i.optimal_steps for i in insts) + 1
    assert all(c["success_rate"] == 1 and c["mean_final_distance"] == 0 for c in summary["by_cell"])
    assert sum(c["n"] for c in summary["by_cell"]) == 20
    assert summary["actions_per_episode"]["actions_effective"] == sum(i.optimal_steps for i in insts) / 20

    stuck = [run(task, i, lambda t: "pass") for i in insts]
    summary = task.summarize(oracle + stuck)
    # an idle agent's regret grows by one per step; a solved episode's is frozen at its last value
    curve = summary["regret_curve"]["mean"]
    assert len(curve) == task.config.max_steps + 1
    assert curve == [t / 2 for t in range(len(curve))]
    assert {c["success_rate"] for c in summary["by_num_geoms"]} == {0.5}
    json.dumps(summary)
    assert task.summarize([]) == {}
    assert task.summarize([{"success": False, "steps": 0, "metrics": {}, "error": "boom"}]) == {}


def test_effective_moves_reduce_distance_by_one():
    task = SlidingGeomTask()
    inst = task.instances(40, seed=3)[-1]
    task.reset(inst)
    d = task.distance
    res = task.step(task.oracle_action("player"))
    assert res.validity is Validity.EFFECTIVE and task.distance == d - 1 == res.info["distance"]


def test_runs_reports_and_figures_take_episodes_without_a_step_deviation(tmp_path):
    from playbench.cli import main
    from playbench.report.tables import load_run, write_report
    from playbench.tasks.ivispar.plots import make_plots

    # one action against optimal lengths of 2 and more: no episode has a step deviation
    for name, extra in (("short", ["--set", "max_steps=1"]), ("full", [])):
        out = tmp_path / name
        argv = ["run", "ivispar/sgp", "--agent", "oracle", "--episodes", "3", "--out", str(out), *extra]
        assert main(argv) == 0
    short, full = load_run(tmp_path / "short"), load_run(tmp_path / "full")
    assert all(r["metrics"]["step_deviation"] is None for r in short["records"])
    assert all(r["metrics"]["step_deviation"] == 0 for r in full["records"])
    (entry,) = short["summary"]["tasks"].values()
    assert "step_deviation" not in entry["metrics"]  # no value to average
    assert entry["extra"]["episodes_without_step_deviation"] == 3
    assert all(c["mean_step_deviation"] is None for c in entry["extra"]["by_cell"])
    (entry,) = full["summary"]["tasks"].values()
    assert entry["metrics"]["step_deviation"]["n"] == 3 and entry["metrics"]["step_deviation"]["value"] == 0
    assert entry["extra"]["episodes_without_step_deviation"] == 0
    for runs in ([short], [short, full]):
        paths = make_plots(runs, tmp_path / f"plots{len(runs)}")
        # `guarded` would swallow a figure that raised: every SGP figure must be there
        names = {p.name for p in paths}
        assert {"ivispar_success_deviation.png", "ivispar_action_classes.png"} <= names
        assert any(n.startswith("ivispar_heatmap_") for n in names)
        written = write_report(runs, tmp_path / f"report{len(runs)}")
        markdown = next(p for p in written if p.name == "report.md").read_text()
        assert "episodes_without_step_deviation" in markdown
