"""The Theory of Space action grammar as the authors' environment reads and runs it."""

import pytest
from test_tos_world import two_rooms

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.tos.feedback import OURS
from playbench.tasks.tos.grammar import (
    ChangedObject,
    Invalid,
    Turn,
    execute,
    parse_change,
    parse_changes,
    parse_turn,
)
from playbench.tasks.tos.prompts import STEPS_LEFT
from playbench.tasks.tos.world import ROTATIONS, START, Pose, view_answer

W = two_rooms()
SEEN = frozenset({"lamp", "sofa", "red door", "chair"})


@pytest.mark.parametrize(
    "text, reason, kwargs",
    [
        ("I would like to look around.", "action_list", {}),
        ("Actions: []", "empty", {}),
        ("Actions: [Observe]", "empty", {}),
        ("Actions: [Walk(north), Observe()]", "unknown_action", {}),
        ("Actions: [Rotate(ninety), Observe()]", "unknown_action", {}),
        ("Actions: [Rotate( 90), Observe()]", "unknown_action", {}),  # their patterns allow no spaces
        ("Actions: [Observe(now)]", "unknown_action", {}),
        ("Actions: [observe()]", "unknown_action", {}),  # action names are case-sensitive
        ("Actions: [Return(), Observe()]", "unknown_action", {}),  # no Return() by default
        ("Actions: [Rotate(90)]", "final_last", {}),
        ("Actions: [Observe(), Rotate(90)]", "final_last", {}),
        ("Actions: [Query(lamp), Observe()]", "final_last", {}),
        ("Actions: [Observe(), Observe()]", "final_last", {}),
        ("Actions: [Rotate(90), Term()]", "term_alone", {}),
        ("Actions: [Term()]", "unknown_action", {"fb_phase": True}),  # the second phase answers
        ('Actions: [Rotate(90), Term(changes="lamp: position")]', "term_alone", {"fb_phase": True}),
    ],
)
def test_invalid_replies_are_named(text, reason, kwargs):
    result = parse_turn(text, **kwargs)
    assert isinstance(result, Invalid), result
    assert result.reason == reason
    assert result.message.startswith("Invalid action sequence:")


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("Actions: [Observe()]", "Actions: [Observe()]"),
        ("THINK: look around\nFINAL ANSWER:\nActions: [Rotate(90), Observe()]", "Actions: [Rotate(90), Observe()]"),
        # only the last FINAL ANSWER counts; tokens are read from the bracketed list
        ("FINAL ANSWER: Actions: [Term()]\nFINAL ANSWER:\nActions: [Rotate(-180), Observe()]",
         "Actions: [Rotate(-180), Observe()]"),
        # text that is no `Name(args)` token inside the list is skipped, as their parser does
        ("Actions: [Observe(), then stop]", "Actions: [Observe()]"),
        ("Actions: [JumpTo(red_door), Observe()]", "Actions: [JumpTo(red door), Observe()]"),
        ("[Rotate(45), Observe()]", "Actions: [Rotate(45), Observe()]"),  # parses; fails when run
        ('Actions: [Term(changes="lamp: moved, sofa: rotated")]', 'Actions: [Term(changes="lamp: moved, sofa: rotated")]'),
    ],
)  # fmt: skip
def test_valid_replies_parse(text, canonical):
    t = parse_turn(text, fb_phase="changes" in text)
    assert isinstance(t, Turn), t
    assert t.canonical == canonical


def run(text, pose=START, observed=SEEN, **kw):
    t = parse_turn(text, **kw)
    assert isinstance(t, Turn), t
    return execute(W, pose, observed, t)


def test_moves_run_in_order_and_observe_last():
    out = run("Actions: [Rotate(180), JumpTo(lamp), Observe()]", pose=Pose(0, 0, "south"))
    assert out.pose == Pose(0, 2, "north") and out.failed is None
    assert out.messages[:2] == [OURS.rotated_text(180), OURS.jumped_text("lamp")]
    assert out.messages[2] == OURS.observe_text(view_answer(W, out.pose)) and out.cost == 1.0
    assert out.counts == {"rotate": 1, "move": 1, "observe": 1}
    out = run("Actions: [JumpTo(red_door), Rotate(0), JumpTo(chair), Observe()]", pose=Pose(0, 0, "east"))
    assert out.pose == Pose(5, 1, "east") and out.messages[1] == OURS.rotated_zero
    assert run("Actions: [Rotate(-90), Observe()]").messages[0] == OURS.rotated_text(-90)


@pytest.mark.parametrize(
    "text, pose, observed, failure, message",
    [
        ("Actions: [JumpTo(piano), Observe()]", START, SEEN, "not_found", ("jump", "piano")),
        ("Actions: [JumpTo(lamp), Observe()]", START, frozenset(), "not_observed",
         ("jump", "lamp")),
        ("Actions: [JumpTo(lamp), Observe()]", Pose(0, 0, "south"), SEEN, "not_visible",
         ("jump", "lamp")),
        # the chair is in the field of view facing east, but in the other room
        ("Actions: [JumpTo(chair), Observe()]", Pose(0, 0, "east"), SEEN, "not_visible",
         ("jump", "chair")),
        ("Actions: [Rotate(45), Query(lamp)]", START, SEEN, "rotate_degrees",
         ("rotate", 45)),
    ],
)  # fmt: skip
def test_a_failed_move_stops_the_turn_and_observes_instead(text, pose, observed, failure, message):
    """Theirs: the moves before the failure stand, the rest is skipped, an Observe() runs (cost 1)."""
    out = run(text, pose=pose, observed=observed)
    assert out.failed == failure
    kind, arg = message
    want = (
        OURS.jump_failed_text(arg, failure)
        if kind == "jump"
        else OURS.rotate_failed_text(arg, list(ROTATIONS))
    )
    assert out.messages[-2] == want
    assert out.messages[-1] == OURS.failed_move_text(OURS.observe_text(view_answer(W, out.pose)))
    assert out.cost == 1.0 and out.counts.get("observe") == 1 and out.query is None


def test_moves_before_a_failure_stand():
    out = run("Actions: [Rotate(90), JumpTo(piano), Observe()]")
    assert out.pose == Pose(0, 0, "east") and out.counts == {"rotate": 1, "observe": 1}


def test_query_reports_coordinates_and_facing_and_fails_without_cost():
    out = run("Actions: [Query(sofa)]")
    assert out.messages == [OURS.query_text("sofa", "(-2, 2), facing east")] and out.cost == 2.0
    lamp = run("Actions: [Query(lamp)]")  # no facing: the world's default for such objects
    assert lamp.messages == [OURS.query_text("lamp", "(0, 2)")]
    door = run("Actions: [Query(red door)]")
    assert door.messages == [OURS.query_text("red door", "(3, 1), facing east")]
    failed = run("Actions: [Query(plant)]")
    assert failed.messages == [OURS.query_failed_text("not_observed")] and failed.cost == 0.0
    assert run("Actions: [Query(piano)]").messages == [OURS.query_failed_text("not_found")]


def test_return_is_our_option():
    out = run("Actions: [Return(), Observe()]", pose=Pose(5, 1, "east"), allow_return=True)
    assert out.pose == START and out.messages[0] == OURS.returned
    assert isinstance(parse_turn("Actions: [Return(), Term()]", allow_return=True), Turn)


@pytest.mark.parametrize(
    "entry, expected",
    [
        ("apple: position", ChangedObject("apple", pos=True)),
        ("chair: orientation", ChangedObject("chair", ori=True)),
        ("sofa: moved", ChangedObject("sofa", pos=True)),
        ("sofa: rotated", ChangedObject("sofa", ori=True)),
        ("red_chair: facing", ChangedObject("red chair", ori=True)),
        ("table moved", ChangedObject("table", pos=True)),
        ("lamp: gone", None),
    ],
)
def test_change_entries_read_as_theirs(entry, expected):
    assert parse_change(entry) == expected


def test_change_lists_skip_entries_without_a_colon_and_merge():
    got = parse_changes("sofa moved, lamp: position, lamp: orientation, vase: ???")
    assert got == [ChangedObject("lamp", pos=True, ori=True)]
    assert got[0].labels() == {("lamp", "position"), ("lamp", "orientation")}


def test_invalid_replies_change_nothing_cost_nothing_and_count_a_step():
    task = make_task("tos/explore")
    task.reset(task.instances(1, 0)[0])
    before = task.state()
    result = task.step("Actions: [Rotate(90), Term()]")
    assert result.validity == Validity.INVALID and result.reason == "term_alone"
    assert task.state() == before
    assert task.step("no actions here").validity == Validity.UNPARSEABLE
    out = task.outcome()
    assert out.steps == 2 and out.metrics["cost"] == 0.0  # their 0.5 is a reward penalty
    assert out.metrics["invalid_penalty"] == 1.0
    assert out.metrics["invalid_actions"] == 1 and out.metrics["unparseable_actions"] == 1
    ours = make_task("tos/explore", invalid_cost=0.5)
    ours.reset(ours.instances(1, 0)[0])
    ours.step("nothing")
    assert ours.outcome().metrics["cost"] == 0.5


def test_the_step_cap_ends_the_exploration():
    task = make_task("tos/explore")
    # an instance carries its cap as `budget` (the field name the published sets were written with)
    task.reset(task.instances(1, 0)[0].model_copy(update={"budget": 3}))
    for left in (2, 1):
        assert not task.done
        assert task.step("Actions: [Observe()]").feedback.endswith(STEPS_LEFT.format(left=left))
    task.step("Actions: [Observe()]")
    assert task.done and task.outcome().steps == 3 and task.outcome().metrics["cost"] == 3.0
    assert task.outcome().termination == "step_cap"
    with pytest.raises(ConfigError, match="step cap of 2; raise max_steps"):
        make_task("tos/explore", max_steps=2).instances(1, 0)
