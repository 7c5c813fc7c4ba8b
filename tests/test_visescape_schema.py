"""The room format: clear validation errors, YAML and JSON files, the validator's checks."""

import copy
import json

import pytest

from playbench.tasks.visescape.rooms import load_room, quiz_params
from playbench.tasks.visescape.schema import RoomFormatError, infer_state_look, load_room_file, parse_room
from playbench.tasks.visescape.validator import check_room, main


def base() -> dict:
    return copy.deepcopy(load_room("room-01").model_dump(by_alias=True, exclude_none=True))


def error(data: dict) -> str:
    with pytest.raises(RoomFormatError) as exc:
        room = parse_room(data, "test.json")
        check_room(room, quiz_params(room))
    return str(exc.value)


def test_round_trip_of_a_shipped_room():
    room = parse_room(base(), "x")
    assert room == load_room("room-01")


def test_unknown_state_in_a_transition_is_named():
    data = base()
    data["receptacles"][0]["transitions"][1]["to"] = "opn"
    msg = error(data)
    assert "receptacle 'door' transition 2 (open): state 'opn' is not one of locked, closed, open" in msg


def test_rules_need_exactly_one_key_and_known_triggers():
    data = base()
    data["receptacles"][4]["transitions"][0]["when"] = {"trigger": "solved_safe_lock", "has_item": "key_A"}
    assert "exactly one of" in error(data)
    data = base()
    data["receptacles"][4]["transitions"][0]["when"] = {"trigger": "no_such_trigger"}
    assert "trigger 'no_such_trigger' is never fired" in error(data)


def test_items_must_be_placed_once_and_locks_need_a_quiz():
    data = base()
    data["items"].append({"id": "spare", "kind": "key"})
    assert "item 'spare' is not placed in any receptacle" in error(data)
    data = base()
    data["quizzes"] = []
    assert "lock 'safe_lock' needs exactly one quiz" in error(data)


def test_unknown_quiz_kind_and_bad_params():
    data = base()
    data["quizzes"][0]["kind"] = "riddle"
    assert "unknown quiz kind 'riddle'" in error(data)
    data = base()
    data["quizzes"][0]["params"] = {"colors": ["red"], "digits": [1, 2], "lock_order": ["red"]}
    assert "quiz 'safe_code' (color_digits)" in error(data)


def test_clue_beside_its_lock_is_rejected():
    data = base()
    safe = next(r for r in data["receptacles"] if r["id"] == "safe")
    wardrobe = next(r for r in data["receptacles"] if r["id"] == "wardrobe")
    wardrobe["contains"] = []
    safe["contains"].append({"item": "note", "states": ["open"]})
    assert "the clue and the lock are both at 'safe'" in error(data)


def test_unreachable_checkpoint_is_reported():
    data = base()
    data["receptacles"][1]["states"] = ["closed"]  # the desk never opens: the key stays hidden
    data["receptacles"][1]["contains"] = [{"item": "key_A", "states": ["closed"]}]
    data["receptacles"][1]["visible"] = {"trigger": "opened_door"}
    assert "cannot be escaped" in error(data)


def test_state_look_is_inferred_from_names():
    assert infer_state_look("locked") == {"name": "locked", "locked": True}
    assert infer_state_look("opened_closed")["open_parts"] == [0]
    assert infer_state_look("on")["lit"] and infer_state_look("moved")["moved"]


def test_yaml_and_json_files_load(tmp_path):
    import yaml

    (tmp_path / "r.yaml").write_text(yaml.safe_dump(base()))
    assert load_room_file(tmp_path / "r.yaml").id == "room-01"
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(RoomFormatError, match="bad.json: not valid json"):
        load_room_file(tmp_path / "bad.json")
    (tmp_path / "r.json").write_text(json.dumps(base()))
    assert main([str(tmp_path / "r.json")]) == 0


def test_a_lock_off_the_way_out_is_rejected():
    data = base()
    safe = next(r for r in data["receptacles"] if r["id"] == "safe")
    safe["transitions"].append({"action": "kick", "from": "locked", "to": "closed"})  # a way around the lock
    assert "can be escaped without solving safe_lock" in error(data)


def test_a_checkpoint_that_is_not_a_bottleneck_is_rejected():
    # tilting the painting fires a trigger that nothing needs: not a checkpoint in the paper's sense
    data = base()
    painting = next(r for r in data["receptacles"] if r["id"] == "painting")
    painting["states"] = ["straight", "tilted"]
    painting["transitions"] = [
        {"action": "tilt", "from": "straight", "to": "tilted", "trigger": "tilted_painting"}
    ]
    data["checkpoints"].insert(0, {"trigger": "tilted_painting", "hint": "Tilt the painting."})
    assert "without reaching checkpoint(s) tilted_painting" in error(data)


def test_clue_on_the_same_wall_as_its_lock_is_rejected():
    data = base()
    next(r for r in data["receptacles"] if r["id"] == "wardrobe")["wall"] = "west"  # where the safe is
    assert "stand on the same west wall" in error(data)


def test_written_out_states_keep_the_look_their_name_implies():
    data = base()
    safe = next(r for r in data["receptacles"] if r["id"] == "safe")
    safe["states"][0] = {"name": "locked", "description": "a heavy steel safe"}
    room = parse_room(data, "x")
    look = room.receptacle("safe").state("locked")
    assert look.locked and look.description == "a heavy steel safe"
    assert infer_state_look("screwed")["screwed"] and infer_state_look("running")["lit"]


def test_colour_names_and_values_agree():
    from typing import get_args

    from playbench.tasks.visescape.colors import COLORS, ColorName

    assert tuple(COLORS) == get_args(ColorName)


def test_modules_import_one_way():
    """schema → quizzes → drawing → colors: no module of the suite imports one that imports it back."""
    import ast
    from pathlib import Path

    import playbench.tasks.visescape as suite

    folder = Path(suite.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "playbench.tasks.visescape"
            ):
                tail = node.module.removeprefix("playbench.tasks.visescape").lstrip(".")
                deps |= {tail} if tail else {a.name for a in node.names}
        graph[path.stem] = deps

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph.get(start, ()))
        while todo:
            mod = todo.pop()
            if mod not in seen:
                seen.add(mod)
                todo += graph.get(mod, ())
        return seen

    assert [m for m in graph if m in reach(m)] == []
