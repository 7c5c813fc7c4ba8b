"""The Theory of Space action grammar: every rule, each violation naming its rule."""

import pytest
from test_tos_world import two_rooms

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.tos.grammar import Executed, Violation, execute_turn, parse_changes
from playbench.tasks.tos.world import START, Pose

W = two_rooms()
SEEN = frozenset({"lamp", "sofa", "red door", "chair"})


def run(text, pose=START, observed=SEEN, first=False, fb=False):
    return execute_turn(W, pose, observed, text, first_step=first, changes_phase=fb)


@pytest.mark.parametrize(
    "text, rule, kwargs",
    [
        ("I would like to look around.", "action_list", {}),
        ("Actions: []", "empty", {}),
        ("Actions: [Walk(north), Observe()]", "unknown_action", {}),
        ("Actions: [Rotate, Observe()]", "unknown_action", {}),
        # a missing comma joins two actions into one unknown item (not a JumpTo of "lamp) Observe(")
        ("Actions: [JumpTo(lamp) Observe()]", "unknown_action", {}),
        ("Actions: [Rotate(ninety), Observe()]", "argument", {}),
        ("Actions: [Observe(now)]", "argument", {}),
        ("Actions: [Return(home), Observe()]", "argument", {}),
        ("Actions: [Term(now)]", "argument", {}),
        ("Actions: [Rotate(45), Observe()]", "rotate_degrees", {}),
        ("Actions: [Rotate(-180), Observe()]", "rotate_degrees", {}),
        ("Actions: [Rotate(90)]", "final_last", {}),
        ("Actions: [Observe(), Rotate(90)]", "final_last", {}),
        ("Actions: [Query(lamp), Observe()]", "final_last", {}),
        ("Actions: [Observe(), Observe()]", "single_observe", {}),
        ("Actions: [Rotate(90), Term()]", "term_alone", {}),
        ("Actions: [JumpTo(lamp), Observe()]", "no_jump_first_step", {"first": True}),
        ("Actions: [JumpTo(piano), Observe()]", "unknown_target", {}),
        ("Actions: [Query(piano)]", "unknown_target", {}),
        ("Actions: [JumpTo(lamp), Observe()]", "not_observed", {"observed": frozenset()}),
        ("Actions: [Query(plant)]", "not_observed", {}),
        ("Actions: [JumpTo(lamp), Observe()]", "not_visible", {"pose": Pose(0, 0, "south")}),
        # the chair is in the field of view from the start facing east, but in the other room
        ("Actions: [JumpTo(chair), Observe()]", "not_visible", {"pose": Pose(0, 0, "east")}),
        ("Actions: [Term()]", "changes_required", {"fb": True}),
        ('Actions: [Term(changes="lamp: moved")]', "changes_format", {"fb": True}),
    ],
)
def test_each_rule_is_enforced_and_named(text, rule, kwargs):
    result = run(text, **kwargs)
    assert isinstance(result, Violation), result
    assert result.rule == rule
    if ") " in text:
        assert "separate actions with commas" in result.message
    assert f"rule '{rule}'" in result.message
    assert result.unparseable == (rule == "action_list")


@pytest.mark.parametrize(
    "text, final, pose",
    [
        ("Actions: [Observe()]", "Observe", START),
        ("Thinking...\nActions: [Rotate(90), Observe()]", "Observe", Pose(0, 0, "east")),
        ("actions: [rotate(-270), observe()]", "Observe", Pose(0, 0, "east")),
        ("Actions: [Return(), Term()]", "Term", START),
        ("Actions: [Query(lamp)]", "Query", START),
        # actions run in order: turning first puts the lamp in view for the jump
        ("Actions: [Rotate(180), JumpTo(lamp), Observe()]", "Observe", Pose(0, 2, "north")),
        ("Actions: [JumpTo(red_door), Rotate(0), JumpTo(chair), Observe()]", "Observe", Pose(5, 1, "east")),
        ("[Rotate(270), Observe()]", "Observe", Pose(0, 0, "west")),
    ],
)
def test_legal_turns_execute_in_order(text, final, pose):
    start = (
        Pose(0, 0, "south") if "Rotate(180)" in text else Pose(0, 0, "east") if "red_door" in text else START
    )
    result = run(text, pose=start)
    assert isinstance(result, Executed), result
    assert result.final == final and result.pose == pose


def test_the_last_action_list_counts_and_changes_parse():
    result = run("Plan: Actions: [Term()] ... no wait.\nActions: [Rotate(90), Observe()]")
    assert isinstance(result, Executed) and result.canonical == "Actions: [Rotate(90), Observe()]"
    fb = run('Actions: [Term(changes="Lamp: position, sofa: orientation")]', fb=True)
    assert isinstance(fb, Executed) and fb.changes == [("lamp", "position"), ("sofa", "orientation")]
    assert parse_changes("") == [] and parse_changes("lamp position") is None


def test_invalid_turns_cost_half_change_nothing_and_count_a_step():
    task = make_task("tos/explore")
    task.reset(task.instances(1, 0)[0])
    before = task.observe("player")
    result = task.step("Actions: [Rotate(45), Observe()]")
    assert result.validity == Validity.INVALID and result.reason == "rotate_degrees"
    assert "rotate_degrees" in result.feedback
    after = task.observe("player")
    assert after.legal_actions == before.legal_actions
    assert task.step("no actions here").validity == Validity.UNPARSEABLE
    out = task.outcome()
    assert out.steps == 2 and out.metrics["cost"] == 1.0
    assert out.metrics["invalid_actions"] == 1 and out.metrics["unparseable_actions"] == 1


def test_the_step_cap_ends_the_exploration():
    task = make_task("tos/explore")
    # an instance carries its cap as `budget` (the field name the published sets were written with)
    task.reset(task.instances(1, 0)[0].model_copy(update={"budget": 3}))
    for _ in range(3):
        assert not task.done
        task.step("Actions: [Observe()]")
    assert task.done and task.outcome().steps == 3 and task.outcome().metrics["cost"] == 3.0
    assert task.outcome().termination == "step_cap"
    with pytest.raises(ConfigError, match="step cap of 2; raise max_steps"):
        make_task("tos/explore", max_steps=2).instances(1, 0)
