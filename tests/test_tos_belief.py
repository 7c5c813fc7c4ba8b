"""Belief probing and information gain inside the tos episodes (`tos/cogmap`, `tos/false-belief`).

The authors' protocol: after every reply of the exploration the model is asked, apart from the
exploration itself, for a local map, the uncertainty probe and a global map; after every reply of
the false-belief phase for a map of everything. Probe replies are not steps. Replaying their
recorded gpt-5.2 run on scene run05 with its logged probe replies gives their logged scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tos_probing import GLOBAL_T1, GLOBAL_T2, INFOGAIN, LOCAL_T2
from test_tos_replay import RUN05_GPT52
from test_tos_scenes import write_scenes

from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.tos.feedback import OURS


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenes(tmp_path_factory.mktemp("scenes") / "3-room")


def run05(task_id: str, scenes: Path, **options):
    task = make_task(task_id, scenes=str(scenes), **options)
    inst = next(i for i in task.instances(None, 0) if i.id.endswith("run05"))
    task.reset(inst)
    return task, inst


def answer_probes(task, replies: dict[str, str] | None = None) -> list[str]:
    """Answer the pending probes (by the given replies, else the oracle's); their kinds in order."""
    kinds = []
    while task.phase == "probe":
        kind = task.observe("player").data["probe"]
        kinds.append(kind)
        reply = (replies or {}).get(kind) or task.oracle_action("player")
        result = task.step(reply)
        assert result.info["phase"] == "probe" and result.info["probe"] == kind
    return kinds


def test_replaying_their_run_gives_their_probe_scores_and_information_gain(scenes: Path) -> None:
    task, _ = run05("tos/cogmap", scenes)
    gains = []
    for k, (answer, _) in enumerate(RUN05_GPT52, start=1):
        result = task.step(f"THINK:\n(reasoning)\nFINAL ANSWER:\n{answer}")
        if answer == "Actions: [Term()]":
            assert task.phase == "probe"  # the last reply's local and uncertainty probes, then the map
            answer_probes(task)
            assert task.phase == "answer"
            task.step(task.oracle_action("player"))
            break
        gains.append(result.info["information_gain"])
        replies = {1: {"global": GLOBAL_T1}, 2: {"global": GLOBAL_T2, "local": LOCAL_T2}}.get(k)
        answer_probes(task, replies)
    assert gains == pytest.approx(INFOGAIN["gpt-5.2"][: len(gains)], abs=1e-12)
    out = task.outcome()
    assert out.steps == len(RUN05_GPT52) + 1  # the probes are not steps
    turns = task._turns
    t1, t2 = turns[0], turns[1]
    # turn 1: `metrics_full` of the agent-only map; turn 2: metrics, metrics_full, metric_agent, local, consistency
    assert (t1.full_scores.direction, t1.full_scores.facing, t1.full_scores.position) == pytest.approx(
        (1 / 120, 1 / 12, 1 / 15)
    )
    assert t1.local_scores is None  # nothing in view: the local map scores nothing
    assert t2.global_scores.overall == pytest.approx(0.8602821801347141)
    assert t2.full_scores.overall == pytest.approx(0.26831922126023483)
    assert t2.agent_scores.overall == 1.0
    assert t2.local_scores.overall == pytest.approx(0.7711218777471482)
    assert t2.local_global.overall == pytest.approx(0.8022249881049138)
    m = out.metrics
    assert m["information_gain"] == pytest.approx(INFOGAIN["gpt-5.2"][-1])
    assert m["information_gain_per_turn"] == pytest.approx(INFOGAIN["gpt-5.2"])
    assert m["map_score"] == 1.0 and out.success  # the oracle's final map
    for key in ("perception_position", "self_tracking_facing", "local_global_position", "stability_position"):
        assert 0.0 <= m[key] <= 1.0, key
    assert m["uncertainty"] == 1.0  # the oracle answered every uncertainty probe


def test_probe_flow_prompts_and_unreadable_replies(scenes: Path) -> None:
    task, _ = run05("tos/cogmap", scenes)
    result = task.step("Actions: [Rotate(90), Observe()]")
    assert result.info["information_gain"] == pytest.approx(INFOGAIN["gpt-5.2"][1])
    assert task.phase == "probe" and task.steps == 1 and task.max_steps is None
    obs = task.observe("player")
    assert (
        obs.data["probe"] == "local"
        and '"origin": "agent"' in obs.text
        and OURS.observe_text("")[:-1] in obs.text
    )
    assert task.state()["probes"] == ["local", "fog", "global"]
    bad = task.step("I would rather not.")
    assert bad.validity == Validity.INEFFECTIVE and not bad.info["readable"] and task.steps == 1
    fog = task.observe("player")
    assert fog.data["probe"] == "fog" and "`*` you" in fog.text and "\n##*" in fog.text
    task.step(task.oracle_action("player"))
    assert "[0, 0] is your initial position" in task.observe("player").text
    task.step(task.oracle_action("player"))
    assert task.phase == "explore" and task.observe("player").data["probe"] is None
    m = task._turns[0]
    assert m.local_scores is None and m.fog == (1.0, 1.0, 1.0) and m.global_scores.overall == 1.0


def test_vision_uncertainty_probe_shows_a_map_image() -> None:
    task = make_task("tos/cogmap", modality="vision", image_size=96)
    task.reset(task.instances(1, 0)[0])
    task.step(task.oracle_action("player"))
    while task.observe("player").data["probe"] != "fog":
        task.step(task.oracle_action("player"))
    obs = task.observe("player")
    assert [i.label for i in obs.images][-1] == "fog-map" and "Blue dot" in obs.text


def test_probing_is_an_option_and_passive_maps_are_not_probed() -> None:
    for options in ({"probe": False}, {"exploration": "passive"}):
        task = make_task("tos/cogmap", **options)
        inst = task.instances(1, 0)[0]
        task.reset(inst)
        replies = 0
        while not task.done:
            assert task.phase != "probe"
            task.step(task.oracle_action("player"))
            replies += 1
        out = task.outcome()
        assert out.success and replies == out.steps == inst.optimal_steps
        assert "perception_position" not in out.metrics and "probe_replies" not in out.metrics
    # the final map is scored as theirs (correctness against everything, doors and agent included)
    assert out.metrics["map_score"] == out.metrics["position_accuracy"] == 1.0


def test_false_belief_probes_score_correctness_and_inertia() -> None:
    task = make_task("tos/false-belief")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    # first exploration by the oracle; its end asks for the map of that moment
    while task.phase == "explore":
        task.step(task.oracle_action("player"))
    assert task.phase == "probe" and task.observe("player").data["probe"] == "last_global"
    obs = task.observe("player")
    assert "have been changed" not in obs.text  # asked before the second phase begins
    task.step(task.oracle_action("player"))
    assert task.phase == "fb"
    # the second exploration: every reply but the answer is followed by a map of everything
    kinds = []
    while not task.done:
        if task.phase == "probe":
            obs = task.observe("player")
            assert "ALL objects and doors" in obs.text and "have been changed" in obs.text
            kinds.append(obs.data["probe"])
        task.step(task.oracle_action("player"))
    out = task.outcome()
    assert out.success and out.steps == inst.optimal_steps and set(kinds) == {"fb_global"}
    m = out.metrics
    assert m["belief_correctness_position"] == 1.0 and m["belief_correctness_facing"] == 1.0
    assert m["belief_inertia_facing"] == 0.0 and 0.0 < m["belief_inertia_position"] < 1.0
    assert m["probe_replies"] == 1 + len(kinds)


def test_false_belief_capped_turn_is_probed_before_the_end() -> None:
    task = make_task("tos/false-belief")
    inst = task.instances(1, 0)[0].model_copy(update={"fb_budget": 2})
    task.reset(inst)
    task.step("Actions: [Term()]")
    task.step('FINAL ANSWER: {"agent": {"position": [0, 0], "facing": "north"}}')  # the first map
    task.step("Actions: [Observe()]")
    assert task.phase == "probe" and not task.done
    task.step("{}")
    task.step("Actions: [Rotate(90), Observe()]")  # the cap: probed, then the episode ends
    assert task.phase == "probe" and not task.done
    task.step(task.oracle_action("player"))
    out = task.outcome()
    assert (
        task.done and out.termination == "step_cap" and out.steps == 3 and out.metrics["probe_replies"] == 3
    )


def test_inertia_reads_the_first_explorations_map(scenes: Path) -> None:
    """run05 changed by their rule: a model that keeps every object where it was before the changes
    keeps all its old belief (inertia 1) and misplaces the moved ones (correctness below 1)."""
    task, inst = run05("tos/false-belief", scenes)
    while task.phase == "explore":
        task.step(task.oracle_action("player"))
    old = json.loads(task.oracle_action("player").split(":", 1)[1])
    task.step("FINAL ANSWER: " + json.dumps(old))
    moved = [c for c in inst.changes if c.kind == "position"]
    assert moved
    while not task.done:
        if task.phase == "probe":
            # a stubborn model: every object where it was before the changes
            task.step("FINAL ANSWER: " + json.dumps(old))
        else:
            task.step(task.oracle_action("player"))
    m = task.outcome().metrics
    assert m["belief_inertia_position"] == 1.0 and m["belief_correctness_position"] < 1.0
