"""Theory of Space on the episode template: ids, caps, terminations, state, public data and step info."""

import json
import re

import pytest

from playbench.core.episode import EPISODE_OVER, RESET_FIRST
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.tos.prompts import STEPS_LEFT, TASK_FINISHED
from playbench.tasks.tos.world import items_of


def started(task_id, **options):
    task = make_task(task_id, **options)
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    return task, inst


def test_the_family_defines_a_question_id():
    with pytest.raises(
        ConfigError, match="family defines the task tos/pairwise-direction.*run tos/mental-rotation"
    ):
        make_task("tos/pairwise-direction", family="mental-rotation")
    assert (
        make_task("tos/pairwise-direction", family="pairwise-direction").config.family == "pairwise-direction"
    )


@pytest.mark.parametrize(("task_id", "old"), [("tos/explore", "budget"), ("tos/false-belief", "fb_budget")])
def test_the_old_cap_names_are_refused_naming_the_new_ones(task_id, old):
    with pytest.raises(ConfigError, match=rf"unknown option '{old}' \(accepted: .*max_steps"):
        make_task(task_id, **{old: 10})


def test_max_steps_and_max_steps_second_set_the_caps_shown_to_the_agent():
    task, inst = started("tos/false-belief", max_steps=9, max_steps_second=8, probe=False)
    assert (inst.budget, inst.fb_budget) == (9, 8)
    obs = task.observe("player")
    assert "You have at most 9 exploration steps" in obs.instructions and "Step 1 of 9." in obs.text
    assert obs.data["max_steps"] == 9
    task.step("Actions: [Term()]")
    obs = task.observe("player")
    assert "You have at most 8 steps for this phase." in obs.text and "Step 1 of 8." in obs.text
    assert obs.data["phase"] == "fb" and obs.data["max_steps"] == 8 and obs.data["step"] == 0


def test_max_steps_is_the_current_phases_cap_in_episode_steps():
    task, _ = started("tos/explore")
    assert task.max_steps == 20
    task, _ = started("tos/cogmap", exploration="passive")
    assert task.max_steps == 1  # the one answer turn
    task, _ = started("tos/cogmap", max_steps=7, probe=False)
    task.step("Actions: [Observe()]")
    task.step("Actions: [Term()]")
    assert task.phase == "answer" and task.max_steps == 3
    task, _ = started("tos/false-belief", max_steps_second=12, probe=False)
    for _ in range(3):
        task.step("no actions")
    task.step("Actions: [Term()]")
    assert task.phase == "fb" and task.steps == 4 and task.max_steps == 16
    for _ in range(12):
        assert task.steps < task.max_steps and not task.done
        task.step("Actions: [Observe()]")
    assert task.done and task.steps == task.max_steps == 16 and task.outcome().termination == "step_cap"


def test_explore_ends_by_term_or_by_the_cap():
    task, _ = started("tos/explore")
    result = task.step("Actions: [Term()]")
    assert task.done and task.outcome().termination == "agent_ended"
    assert result.info["phase_ended"] == "explore" and result.feedback == TASK_FINISHED  # the whole answer
    task, _ = started("tos/explore", max_steps=7)
    for _ in range(7):
        result = task.step("Actions: [Observe()]")
    assert task.done and task.outcome().termination == "step_cap"
    assert result.feedback.endswith(STEPS_LEFT.format(left=0) + " The exploration is over.")


def test_an_answer_ends_with_goal_reached_read_or_not():
    for reply in ("FINAL ANSWER: north, near", "I am not sure."):
        task, _ = started("tos/pairwise-direction", exploration="passive")
        result = task.step(reply)
        assert task.done and task.outcome().termination == "goal_reached"
        assert result.info["phase"] == "answer" and "score" in result.info
    # the exploration's cap moves an answer task to its answer turn; it does not end the episode
    task, _ = started("tos/cogmap", max_steps=7, probe=False)
    for _ in range(7):
        task.step("Actions: [Observe()]")
    assert not task.done and task.phase == "answer"
    task.step(task.oracle_action("player"))
    assert task.outcome().termination == "goal_reached" and task.outcome().steps == 8


def test_false_belief_ends_with_its_answer_or_at_the_second_cap():
    task, inst = started("tos/false-belief", probe=False)
    result = task.step("Actions: [Term()]")
    assert not task.done and result.feedback == TASK_FINISHED
    first = inst.changes[0]
    result = task.step(f'Actions: [Term(changes="{first.name}: {first.kind}")]')
    assert task.done and task.outcome().termination == "goal_reached"
    assert result.feedback == TASK_FINISHED  # the answer to every Term(), Term(changes=...) too
    assert result.info["changes"] == [[first.name, first.kind]]
    task = make_task("tos/false-belief", probe=False)
    task.reset(inst.model_copy(update={"fb_budget": 2}))
    task.step("Actions: [Term()]")
    task.step("Actions: [Observe()]")
    assert not task.done
    task.step("no actions")
    out = task.outcome()
    assert task.done and out.termination == "step_cap" and out.metrics["answered"] is False


def test_the_template_guards_the_episode():
    task = make_task("tos/explore")
    with pytest.raises(RuntimeError, match=re.escape(RESET_FIRST)):
        task.step("Actions: [Observe()]")
    task.reset(task.instances(1, 0)[0].model_dump(mode="json"))  # a dict is an instance too
    task.step("Actions: [Term()]")
    late = task.step("Actions: [Observe()]")
    assert (
        late.validity == Validity.INVALID and late.reason == "episode_over" and late.feedback == EPISODE_OVER
    )
    assert task.oracle_action("player") is None


@pytest.mark.parametrize("invalid_cost", [0.0, 0.5])
def test_rejected_replies_change_no_state(invalid_cost):
    task, _ = started("tos/explore", invalid_cost=invalid_cost)
    task.step("Actions: [Observe()]")
    for reply in ("Actions: [Rotate(90), Term()]", "nothing to do", "", "Actions: [Observe(), Observe()]"):
        before, cost = task.state_digest(), task.observe("player").data["cost"]
        result = task.step(reply)
        assert result.validity in (Validity.INVALID, Validity.UNPARSEABLE)
        assert result.info["cost"] == invalid_cost and result.info["rule"] == result.reason
        assert task.state_digest() == before  # the cost is bookkeeping, not game state
        assert task.observe("player").data["cost"] == cost + invalid_cost
    # a move that fails is not a rejected reply: the turn runs up to it and observes
    before = task.state_digest()
    failed = task.step("Actions: [Rotate(90), Rotate(45), Observe()]")
    assert failed.info["failed"] == "rotate_degrees" and task.state()["pose"]["facing"] == "east"
    assert task.state_digest() != before
    before = task.state_digest()
    task.step("Actions: [Rotate(90), Observe()]")
    assert task.state_digest() != before and task.state()["pose"]["facing"] == "south"


def test_state_holds_the_changed_world_and_the_answer_of_false_belief():
    task, inst = started("tos/false-belief")
    state = task.state()
    assert state["phase"] == "explore" and state["world_changes"] == [] and state["answer"] == {}
    task.step(task.oracle_action("player"))
    task.step("Actions: [Term()]")
    state = task.state()
    assert state["phase"] == "fb"
    assert state["world_changes"] == [c.model_dump(mode="json") for c in inst.changes]
    assert state["first_exploration_observed"] == state["observed"] != []
    assert state["pose"] == {"x": 0, "y": 0, "facing": "north"}
    json.dumps(state)


def test_observation_data_names_the_place_not_the_coordinates():
    task, inst = started("tos/explore")
    data = task.observe("player").data
    assert data == {
        "phase": "explore",
        "probe": None,
        "step": 0,
        "max_steps": 20,
        "cost": 0.0,
        "position": "start",
        "facing": "north",
        "observed": [],
    }
    for _ in range(inst.optimal_steps - 1):  # the oracle's turns jump from object to object
        result = task.step(task.oracle_action("player"))
        assert result.info["action"] == "Observe" and result.info["cost"] == 1.0
        if task.observe("player").data["position"] != "start":
            break
    data = task.observe("player").data
    pose = task.state()["pose"]
    at = next(i for i in items_of(inst.world) if (i.x, i.y) == (pose["x"], pose["y"]))
    assert data["position"] == at.name and data["facing"] == pose["facing"]
    assert data["observed"] == task.state()["observed"]
    assert "x" not in data and "pose" not in data
    json.dumps(data)


def test_step_info_reports_what_an_observe_revealed():
    task, _ = started("tos/explore")
    result = task.step("Actions: [Observe()]")
    assert result.info["newly_observed"] == task.state()["observed"]
    assert result.info["pose"] == {"x": 0, "y": 0, "facing": "north"}
    assert result.info["total_cost"] == 1.0 and result.info["step"] == 1
    again = task.step("Actions: [Observe()]")
    assert again.validity == Validity.INEFFECTIVE and again.info["newly_observed"] == []
