"""Reading moves out of replies with the lenient parser (`parser=lenient`, our extension), and
fuzzing both parsers: nothing a model writes may crash the task. The paper's parser has its own
cases in test_ivispar_paper.py."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playbench.core.types import Validity
from playbench.tasks.ivispar.actions import ParsedMove, ParseFailure, command_line, parse_move
from playbench.tasks.ivispar.board import DIRECTIONS, SHAPE_ALIASES
from playbench.tasks.ivispar.schema import GeomSpec, SGPInstance
from playbench.tasks.ivispar.sgp import COUNTERS, OTHER_COUNTERS, SlidingGeomTask


@pytest.mark.parametrize(
    "reply",
    [
        "action: move red cube up",
        "ACTION: Move Red Cube Up",
        "I think so.\nAction: **move the red cube up.**",
        "Action: `move red cube up`",
        "action:\n\n  move red cube up\nbecause it is free",
        "action: move red-cube up!",
        "action: move cube red up",  # colour and shape swapped
        "action: move red square up",  # 2D alias of cube
        "action: move the red cube to the up",
        "action: move red cube upwards",
        "action: move red cube up, then left",  # only the first direction counts
        "First action: move blue sphere left\nFinal action: move red cube up",  # the last action wins
        "The red cube should go up.\nmove red cube up",  # no action: -> last line
        'action: "move <red> <cube> <up>"',
    ],
)
def test_accepted_replies(reply):
    assert parse_move(reply) == ParsedMove("red", "cube", "up")


@pytest.mark.parametrize("alias, shape", sorted(SHAPE_ALIASES.items()))
def test_every_shape_alias(alias, shape):
    assert parse_move(f"action: move green {alias} left") == ParsedMove("green", shape, "left")


def test_grey_is_gray():
    assert parse_move("action: move grey cube up") == ParsedMove("gray", "cube", "up")


@pytest.mark.parametrize(
    "reply, fragment",
    [
        ("", "nothing"),
        ("   \n\n", "nothing"),
        ("action:", "after 'action:'"),
        ("action: red cube up", "no 'move'"),
        ("action: move red cube", "no direction"),
        ("action: move red up", "color and a shape"),
        ("action: move big red cube up", "color and a shape"),
        ("action: move red cube north", "no direction"),
        ("action: move red cube up\nmove blue sphere down", None),  # first line after action: only
    ],
)
def test_rejected_or_limited_replies(reply, fragment):
    result = parse_move(reply)
    if fragment is None:
        assert result == ParsedMove("red", "cube", "up")
    else:
        assert isinstance(result, ParseFailure)
        assert fragment in result.reason


def test_command_line_takes_text_after_the_last_action_marker():
    assert command_line("Action: a\nAction: b\nc") == "b"
    assert command_line("x\ny\n\n") == "y"


def test_words_outside_the_vocabulary_are_well_formed_but_unknown():
    result = parse_move("action: move purple banana up")
    assert result == ParsedMove("purple", "banana", "up")


# --- fuzzing ---------------------------------------------------------------------------------
def make_task(**options) -> SlidingGeomTask:
    task = SlidingGeomTask(max_steps=10_000, **options)
    task.reset(
        SGPInstance(
            id="fuzz",
            geoms=[
                GeomSpec(color="red", shape="cube", start="b2", goal="c2"),
                GeomSpec(color="blue", shape="sphere", start="b3", goal="a3"),
                GeomSpec(color="green", shape="pyramid", start="a1", goal="d4"),
            ],
        )
    )
    return task


WORDS = [
    "move",
    "action:",
    "Action:",
    "the",
    "red",
    "blue",
    "green",
    "cube",
    "sphere",
    "pyramid",
    "circle",
    "purple",
    "up",
    "down",
    "left",
    "right",
    "\n",
    "**",
    ".",
    "move red cube",
    "a1",
    ":",
    "<",
    ">",
]
near_miss = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


REPLIES = st.one_of(
    st.text(max_size=300), near_miss, st.binary(max_size=60).map(lambda b: b.decode("latin-1"))
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(REPLIES, st.sampled_from(["paper", "lenient"]))
def test_fuzzed_replies_never_raise_and_always_get_feedback(reply, parser):
    task = make_task(parser=parser, move_results=parser == "lenient")
    before = task.board_state
    res = task.step(reply)
    assert res.feedback
    if res.validity in (Validity.UNPARSEABLE, Validity.INVALID):
        assert task.board_state == before
    else:
        assert task.board_state != before
        assert res.parsed is not None
    if res.validity is Validity.UNPARSEABLE:
        assert res.parsed is None
    m = task.outcome().metrics
    counted = sum(m[k] for k in COUNTERS + OTHER_COUNTERS)
    if parser == "lenient":
        assert counted == 1
    else:  # a command repeated n times counts each failed repetition (the original's logs)
        assert counted >= 1
    obs = task.observe("player")
    # the verdict reaches the observation only with move_results (our extension)
    assert obs.feedback == (res.feedback if parser == "lenient" else "")


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["red", "blue", "green"]),
    st.sampled_from(["cube", "sphere", "pyramid"]),
    st.sampled_from(DIRECTIONS),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80).filter(
        lambda s: "action" not in s.lower()
    ),
)
def test_wellformed_final_line_is_always_read(color, shape, direction, prefix):
    reply = f"{prefix}\naction: move {color} {shape} {direction}"
    assert parse_move(reply) == ParsedMove(color, shape, direction)
