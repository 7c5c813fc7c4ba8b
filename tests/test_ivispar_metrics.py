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
