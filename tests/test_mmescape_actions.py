"""MM-Escape action JSON: parsing, the original's ranges, and specific feedback in the task."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.mmescape.actions import KEYS, ParseError, RangeError, parse_action


def test_a_full_action_is_read():
    a = parse_action(
        'Sure.\n```json\n{"move_forward": 1.5, "rotate_right": -30, "rotate_down": 10, "jump": false, '
        '"look_at": [0.25, 0.75], "grab": true, "interactions": {"use_item_id": "key_1", "input": ""}, '
        '"read": "note_1", "rationale": "try the key"}\n```'
    )
    assert (a.move_forward, a.rotate_right, a.rotate_down, a.jump) == (1.5, -30.0, 10.0, False)
    assert a.look_at == (0.25, 0.75) and a.grab and a.use_item_id == "key_1" and a.input is None
    assert a.read == "note_1" and a.rationale == "try the key"


def test_python_spellings_trailing_commas_and_numeric_strings_are_accepted():
    a = parse_action('{\'x\': 1} then {"grab": True, "move_forward": "2", "read": None,}')
    assert a.grab and a.move_forward == 2.0 and a.read is None


def test_the_last_object_is_the_action_and_unknown_keys_are_reported():
    a = parse_action('{"rotate_right": 10} no wait {"rotate_right": 20, "thought": "hm"}')
    assert a.rotate_right == 20.0 and a.ignored == ["thought"]


def test_empty_object_is_a_valid_do_nothing_action():
    a = parse_action("{}")
    assert not a.moves and not a.grab


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"move_forward": 10.5}', "move_forward must be between -10 and 10 metres, got 10.5"),
        ('{"move_forward": -11}', "move_forward must be between -10 and 10"),
        ('{"rotate_right": 181}', "rotate_right must be between -180 and 180 degrees, got 181"),
        ('{"rotate_down": -90.5}', "rotate_down must be between -90 and 90 degrees"),
        ('{"rotate_right": "left"}', "rotate_right must be a number"),
        ('{"move_forward": true}', "move_forward must be a number"),
        ('{"look_at": [1.2, 0.5]}', "look_at x must be between 0 and 1, got 1.2"),
        ('{"look_at": [0.5]}', "look_at must be a list [x, y]"),
        ('{"jump": "maybe"}', "jump must be true or false"),
        ('{"grab": 2}', "grab must be true or false"),
        ('{"interactions": {"use_item_id": "key_1"}}', 'need "grab": true'),
        ('{"grab": true, "interactions": {"key": "key_1"}}', "interactions takes only use_item_id and input"),
        ('{"grab": true, "interactions": "key_1"}', "interactions must be an object"),
        ('{"read": ["note_1"]}', "read must be a string"),
    ],
)
def test_out_of_range_values_name_the_key(text, message):
    with pytest.raises(RangeError) as err:
        parse_action(text)
    assert message in str(err.value)


@pytest.mark.parametrize("text", ["", "move forward 3 metres", '{"move_forward": 1', "[1, 2]"])
def test_replies_without_an_action_object_are_parse_errors(text):
    with pytest.raises(ParseError):
        parse_action(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parsing_never_fails_other_than_with_a_message(text):
    try:
        parse_action(text)
    except (ParseError, RangeError) as exc:
        assert str(exc)


@pytest.fixture(scope="module")
def level2():
    task = make_task("mmescape/level-2", protocol="playbench")
    return task, task.instances(1, 0)[0]


def test_invalid_and_unparseable_actions_change_nothing_but_count_as_steps(level2):
    task, inst = level2
    task.reset(inst)
    before = (task._state.pose_key(), task._state.visual())
    r = task.step('{"move_forward": 12}')
    assert r.validity == Validity.INVALID and r.reason == "out_of_range"
    assert "move_forward must be between -10 and 10 metres" in r.feedback and "Nothing changed" in r.feedback
    r = task.step("I think I should look around.")
    assert r.validity == Validity.UNPARSEABLE and "no JSON object" in r.feedback
    r = task.step('{"grab": true, "interactions": {"use_item_id": "key_1"}}')
    assert r.validity == Validity.INVALID and "no item 'key_1' in your bag" in r.feedback
    r = task.step('{"read": "note_1"}')
    assert r.validity == Validity.INVALID and "only read items in your bag" in r.feedback
    assert (task._state.pose_key(), task._state.visual()) == before
    out = task.outcome()
    assert out.steps == 4 and out.metrics["invalid_actions"] == 3 and out.metrics["unparseable_actions"] == 1


def test_the_step_cap_counts_every_action(level2):
    task, inst = level2
    task.reset(inst)
    assert inst.max_steps == 75
    for _ in range(75):
        task.step("no idea")
    assert task.done and not task.outcome().success and task.outcome().steps == 75


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
action_keys = st.sampled_from([*KEYS, "x"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(action_keys, json_values, max_size=5))
def test_any_action_object_gets_feedback_and_never_raises(level2, data):
    import json

    task, inst = level2
    task.reset(inst)
    result = task.step(json.dumps(data))
    assert result.feedback.strip()
    assert result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE, Validity.INVALID)
