"""MM-Escape prop chains: the built-in levels, validation errors, realisation, user chain files."""

import json
import random

import pytest

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.tasks.mmescape.chain import (
    ChainError,
    builtin_chain,
    load_chain_file,
    parse_chain,
    parse_rooms,
    realise,
    renumber,
    solution_order,
)


@pytest.mark.parametrize(
    "level, order",
    [
        ("level-1", ["exit"]),
        ("level-2", ["key_1", "exit"]),
        ("level-3-note-key", ["note_1", "box_1", "exit"]),
        ("level-3-key-note", ["key_1", "box_1", "exit"]),
    ],
)
def test_builtin_levels_follow_the_papers_chains(level, order):
    chain = builtin_chain(level)
    assert solution_order(chain)[0] == order


def test_level_3_note_key_is_table_7():
    chain = builtin_chain("level-3-note-key")
    box = chain.item("box_1")
    assert box.unlock_method.type == "password" and box.unlock_method.id == "password_1"
    assert box.contents == ["key_1", "note_2"] and box.show
    assert chain.item("note_1").contents == ["password_1"] and chain.item("note_1").show
    assert not chain.item("key_1").show and chain.item("note_2").story
    assert chain.exit.unlock_method.type == "key" and chain.exit.unlock_method.id == "key_1"
    assert chain.props() == ["note_1", "box_1", "key_1", "note_2", "exit"]


def ok_chain(**overrides):
    data = {
        "exit": {"unlock_method": {"type": "key", "id": "key_1"}},
        "items": [
            {
                "id": "box_1",
                "type": "box",
                "unlock_method": {"type": "password", "id": "pw"},
                "contents": ["key_1"],
            },
            {"id": "key_1", "type": "key", "show": False},
            {"id": "note_1", "type": "paper", "contents": ["pw"]},
            {"id": "pw", "type": "password", "show": False, "value": "1234"},
        ],
    }
    data.update(overrides)
    return data


def items_with(*changes):
    items = ok_chain()["items"]
    for index, patch in changes:
        if patch is None:
            items.pop(index)
        else:
            items[index] = {**items[index], **patch}
    return items


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "must be a JSON object"),
        ({"items": []}, "'exit' must be an object"),
        (ok_chain(colour="red"), "unknown key(s) colour"),
        (
            ok_chain(exit={"unlock_method": {"type": "magic"}}),
            "unlock_method.type must be one of interact, key, password",
        ),
        (ok_chain(exit={"unlock_method": {"type": "interact", "id": "key_1"}}), "takes no id"),
        (ok_chain(exit={"unlock_method": {"type": "key"}}), "needs the id of the key item"),
        (
            ok_chain(exit={"unlock_method": {"type": "key", "id": "key_9"}}),
            "needs key 'key_9', which is not an item",
        ),
        (
            ok_chain(exit={"unlock_method": {"type": "password", "id": "key_1"}}),
            "needs a password, but 'key_1' is a key",
        ),
        (ok_chain(items=items_with((1, {"type": "sword"}))), "type must be one of box, key, paper, password"),
        (ok_chain(items=items_with((1, {"id": "box_1"}))), "item id 'box_1' is used twice"),
        (ok_chain(items=items_with((1, {"id": "1key"}))), "id must be a letter"),
        (ok_chain(items=items_with((0, {"contents": ["key_7"]}))), "contains 'key_7', which is not an item"),
        (ok_chain(items=items_with((1, {"show": True}))), 'must have "show": false'),
        (ok_chain(items=items_with((0, {"contents": []}))), "no box holds it"),
        (ok_chain(items=items_with((2, {"contents": []}))), "written on no paper"),
        (ok_chain(items=items_with((3, {"value": "12ab"}))), "1 to 12 digits"),
        (
            ok_chain(items=items_with((2, {"unlock_method": {"type": "key", "id": "key_1"}}))),
            "only boxes have an unlock_method",
        ),
        (
            ok_chain(items=items_with((0, {"contents": ["key_1", "note_1"]}), (2, {"show": False}))),
            "the exit can never be opened",
        ),
        (
            ok_chain(items=items_with((0, {"unlock_method": {"type": "key", "id": "key_1"}}))),
            "the exit can never be opened",
        ),
        (ok_chain(items="nope"), "'items' must be a list"),
    ],
)
def test_invalid_chains_are_rejected_with_a_specific_message(data, message):
    with pytest.raises(ChainError) as err:
        parse_chain(data)
    assert message in str(err.value)


def test_decoys_that_lead_nowhere_are_allowed_but_not_in_the_order():
    data = ok_chain()
    data["items"].append({"id": "note_9", "type": "paper", "text": "Nothing here."})
    chain = parse_chain(data)
    assert solution_order(chain)[0] == ["note_1", "box_1", "exit"]


def test_realise_draws_four_digit_passwords_and_a_story():
    rng = random.Random(3)
    chain = realise(builtin_chain("level-3-note-key"), rng)
    value = chain.item("password_1").value
    assert value is not None and len(value) == 4 and value.isdigit()
    assert value in chain.item("note_1").text
    assert chain.item("note_2").text and chain.story_text() == chain.item("note_2").text
    again = realise(builtin_chain("level-3-note-key"), random.Random(3))
    assert again == chain
    assert realise(ok_chain_model(), random.Random(0)).item("pw").value == "1234"  # a given value is kept


def ok_chain_model():
    return parse_chain(ok_chain())


def test_renumber_keeps_ids_unique_across_rooms():
    first = builtin_chain("level-3-note-key")
    second = renumber(builtin_chain("level-3-key-note"), {it.id for it in first.items})
    ids = {it.id for it in second.items}
    assert not ids & {it.id for it in first.items}
    assert second.exit.unlock_method.id in ids
    box = next(it for it in second.items if it.type == "box")
    assert box.unlock_method.id in ids and set(box.contents) <= ids


def test_multi_room_files_need_distinct_ids(tmp_path):
    room = ok_chain()
    with pytest.raises(ChainError, match="is used in room 1 and room 2"):
        parse_rooms({"rooms": [room, room]}, "f")
    with pytest.raises(ChainError, match="room 2: .*unknown key"):
        parse_rooms({"rooms": [room, {**room, "x": 1}]}, "f")


def test_chain_files_report_bad_json_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"exit": ')
    with pytest.raises(ChainError, match="not valid JSON"):
        load_chain_file(bad)
    with pytest.raises(ChainError, match="no such file"):
        load_chain_file(tmp_path / "missing.json")
    task = make_task("mmescape/level-1", protocol="playbench", chain=str(bad))
    with pytest.raises(ConfigError, match="bad.json"):
        task.instances(1, 0)


def test_a_user_chain_file_is_played_by_the_oracle(tmp_path):
    path = tmp_path / "two_boxes.json"
    data = ok_chain()
    # a second box, opened by a visible key, holds the note with the first box's password
    data["items"][2]["show"] = False
    data["items"].append({"id": "key_2", "type": "key"})
    data["items"].append(
        {
            "id": "box_2",
            "type": "box",
            "unlock_method": {"type": "key", "id": "key_2"},
            "contents": ["note_1"],
        }
    )
    path.write_text(json.dumps(data))
    task = make_task("mmescape/level-1", protocol="playbench", chain=str(path))
    for inst in task.instances(3, 0):
        assert inst.id.startswith("chain-") and inst.max_steps == 100
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action(task.current_role()))
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps >= 4  # key_2, box_2, box_1, exit
