"""MM-Escape's paper scenes: the original's level and scene files (fixtures written here in their
format) converted into instances with the same room, chain, prop positions, angles, sizes and start
pose; every shipped public scene listed and escaped by the oracle in its optimal steps."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.engine import Rules
from playbench.tasks.mmescape.paper import (
    PAPER_LEVELS,
    PaperDataError,
    convert_chain,
    extract_scene,
    fallback_prefabs,
    paper_instance,
    prefab_sizes,
    shipped_scenes,
)

# A level file as the original writes them (levels/level3_note_first.json's shape).
NOTE_FIRST = {
    "room": {
        "exit": {"type": "key", "unlock_item_id": "key_1"},
        "items": [
            {
                "id": "box_1",
                "type": "box",
                "unlock_method": {"type": "password", "id": "password_1"},
                "contents": ["key_1", "note_2"],
                "show": True,
            },
            {"id": "key_1", "type": "key", "use": "box_1", "show": False},
            {"id": "note_1", "type": "paper", "contents": ["password_1"], "show": True},
            {
                "id": "note_2",
                "type": "paper",
                "contents": [{"type": "story", "content": "A diary of the last resident."}],
                "show": False,
            },
            {"id": "password_1", "type": "password", "show": False},
        ],
    },
    "story": "The story of a cursed mansion.",
}


def wall(x: float, z: float, yaw: float, door: bool = False) -> dict:
    suffix = "02" if door else "01"
    return {
        "prefab": f"LowPolyInterior2_Wall1_C1_{suffix}",
        "position": [x, 1.5, z],
        "rotation": [0, yaw, 0],
        "scale": [1.0, 1.0, 0.5],
        "type": "kinematic",
    }


def scene_file() -> dict:
    """A 7.35 m room (the original's 3 x 3 tiles of 2.5 m), its exit in the west wall at z = 1.25."""
    t = 0.0375  # wall centres: 0.15 m thick prefabs scaled by 0.5
    walls = []
    for c in (1.25, 3.75, 6.25):
        walls += [wall(t, c, 90, door=c == 1.25), wall(7.5 - t, c, 270), wall(c, t, 0), wall(c, 7.5 - t, 180)]
    return {
        "prompt": "",
        "instances": [
            *walls,
            {
                "prefab": "LowPolyInterior2_Floor20_01",
                "position": [1.25, -0.1, 1.25],
                "rotation": [0, 90, 0],
                "scale": [1.0, 1, 1.0],
                "type": "kinematic",
            },
            # a table turned by an angle that is not a quarter turn, and a chair
            {
                "prefab": "LowPolyInterior2_Table_01_C1",
                "position": [3.0, 0.4, 4.0],
                "rotation": [0, 27.5, 0],
                "scale": [1, 1, 1],
                "parent": 2,
                "type": "kinematic",
                "room_id": 2,
                "is_receptacle": True,
            },
            {
                "prefab": "LowPolyInterior2_Chair_07_C2",
                "position": [3.8, 0.45, 4.6],
                "rotation": [0, 250.0, 0],
                "scale": [1, 1, 1],
                "parent": 2,
                "type": "kinematic",
                "room_id": 2,
                "is_receptacle": True,
            },
            {
                "prefab": "LowPolyInterior2_PC_Table1_C1",
                "position": [6.9, 0.37, 6.0],
                "rotation": [0, 270, 0],
                "scale": [1, 1, 1],
                "parent": 2,
                "type": "kinematic",
                "room_id": 2,
                "is_receptacle": True,
            },
            # a thing of no known kind: a plain box of its size
            {
                "prefab": "LowPolyInterior2_Clothes5_C4",
                "position": [0.2, 0.465, 5.0],
                "rotation": [0, 90, 0],
                "scale": [1, 1, 1],
                "parent": 2,
                "type": "kinematic",
                "room_id": 2,
                "is_receptacle": True,
            },
            # the chain props, on the furniture they name as parent
            {
                "prefab": "{__PREFAB_DIR__}\\box/box_1.glb",
                "position": [6.9, 0.84, 6.1],
                "type": "kinematic",
                "parent": "LowPolyInterior2_PC_Table1_C1",
                "scale": [0.1153, 0.1153, 0.1153],
                "rotation": [0, 0, 0],
                "item_type": "box",
                "item_id": "box_1",
            },
            {
                "prefab": "{__PREFAB_DIR__}\\paper/paper_1.glb",
                "position": [3.1, 0.805, 3.9],
                "type": "kinematic",
                "parent": "LowPolyInterior2_Table_01_C1",
                "scale": [1, 1, 1],
                "rotation": [0, 33.0, 0],
                "item_type": "paper",
                "item_id": "note_1",
            },
            {
                "prefab": "{__PREFAB_DIR__}\\door/door_1.glb",
                "position": [t, 1.13, 1.25],
                "scale": [0.0231, 0.0122, 0.0127],
                "rotation": [0, 0, 0],
                "item_type": "exit",
                "type": "kinematic",
                "item_id": "exit",
            },
        ],
        "player": {
            "prefab": "",
            "position": [6.0, 0.05, 3.0],
            "rotation": [0, -40.0, 0],
            "scale": [1, 1, 1],
            "parent": -1,
            "type": "",
        },
        "agent": {
            "prefab": "",
            "position": [1.9, 0.05, 5.6],
            "rotation": [0, 121.25, 0],
            "scale": [1, 1, 1],
            "parent": -1,
            "type": "",
        },
        "center": [3.75, 12, 3.75],
        "room_polygon": [
            {
                "room_id": 2,
                "room_type": "Kitchen",
                "position": [3.75, 1.5, 3.75],
                "size": [7.3, 3, 7.3],
                "polygon": [[7.4, 0.1], [0.1, 0.1], [0.1, 7.4], [7.4, 7.4], [7.4, 0.1]],
            }
        ],
    }


@pytest.fixture
def converted():
    level = PAPER_LEVELS["paper-level-3-note-key"]
    chain = convert_chain(json.loads(json.dumps(NOTE_FIRST)), "levels/level3_note_first.json")
    record = extract_scene(scene_file(), prefab_sizes(), "levels/scene_data/level3_note_first/4.json")
    return paper_instance(level, 4, record, chain)


def test_a_level_file_becomes_the_same_chain():
    chain = convert_chain(NOTE_FIRST, "levels/level3_note_first.json")
    assert chain["exit"] == {"unlock_method": {"type": "key", "id": "key_1"}}
    items = {it["id"]: it for it in chain["items"]}
    assert items["box_1"]["unlock_method"] == {"type": "password", "id": "password_1"}
    assert items["box_1"]["contents"] == ["key_1", "note_2"] and items["box_1"]["show"]
    assert items["note_1"]["contents"] == ["password_1"] and items["note_1"]["show"]
    assert items["note_2"]["story"] and items["note_2"]["text"] == "A diary of the last resident."
    assert not items["key_1"]["show"] and "use" not in items["key_1"]
    assert chain["story"] == "The story of a cursed mansion."


def test_a_scene_file_becomes_the_same_room_props_and_start(converted):
    inst = converted
    assert (
        inst.id == "level3_note_first-4" and inst.level == "paper-level-3-note-key" and inst.max_steps == 100
    )
    room = inst.rooms[0]
    # the walls' inner faces: 0.075 .. 7.425 in x and in the original's z (our z = -z)
    assert (room.x0, room.width) == pytest.approx((0.075, 7.35))
    assert (room.z0, room.depth) == pytest.approx((-7.425, 7.35))
    assert room.scene == "kitchen"
    # the start pose: the original's agent (not its player), same position, same yaw
    assert (inst.start.x, inst.start.z, inst.start.yaw, inst.start.pitch) == pytest.approx(
        (1.9, -5.6, 121.25, 0.0)
    )
    # the exit: the west wall at the original's z = 1.25, the original's door size and position
    door = inst.doors[0]
    assert (door.wall, door.center, door.width, door.height) == ("west", pytest.approx(-1.25), 1.11, 2.26)
    assert door.anchor == pytest.approx((0.0375, -1.25))
    # the props: same centres (y from centre to base), their sizes, what they lie on
    props = {p.item: p for p in inst.props}
    assert set(props) == {"box_1", "note_1"}
    box, note = props["box_1"], props["note_1"]
    assert (box.x, box.z, box.y + 0.1) == pytest.approx((6.9, -6.1, 0.84))
    assert box.size == pytest.approx((0.475, 0.2, 0.334)) and box.on == "desk"
    assert (note.x, note.z, note.y + 0.005) == pytest.approx((3.1, -3.9, 0.805))
    assert note.rot == pytest.approx((180 - 33.0) % 360) and note.on == "table"
    # the chain: the original's, with a 4-digit password drawn for this scene
    chain = room.chain
    assert chain.exit.unlock_method.id == "key_1" and chain.story == "The story of a cursed mansion."
    code = chain.item("password_1").value
    assert code is not None and len(code) == 4 and code.isdigit()


def test_every_object_stands_where_the_originals_does_turned_and_sized_as_it(converted):
    inst = converted
    by_source = {p.source: p for p in inst.furniture}
    table = by_source["LowPolyInterior2_Table_01_C1"]
    size = prefab_sizes()["LowPolyInterior2_Table_01_C1"]
    assert table.kind == "round_table" and table.size == pytest.approx(tuple(size))
    assert (table.x, table.z, table.y) == pytest.approx((3.0, -4.0, 0.4 - size[1] / 2))
    assert table.rot == pytest.approx(180 - 27.5)  # any angle, not rounded to a quarter turn
    chair = by_source["LowPolyInterior2_Chair_07_C2"]
    assert chair.kind == "chair" and chair.rot == pytest.approx((180 - 250.0) % 360) and chair.solid
    clothes = by_source["LowPolyInterior2_Clothes5_C4"]  # no known kind: a box of its size
    assert clothes.kind == "object" and clothes.size == pytest.approx(tuple(prefab_sizes()[clothes.source]))
    # the turned table blocks walking along its turned footprint, not its bounding square
    world = geo.build_world(inst)
    rules = Rules(world)
    turned = [o for o in world.static_obstacles if o.yaw]
    assert turned and any(o.entity == geo.FURNITURE_BASE + inst.furniture.index(table) for o in turned)
    s = rules.start_state()
    s.x, s.z, s.yaw = 3.0, -1.0, 180.0  # south of the table, walking north into it
    dx, dz = 0.0, -1.0
    moved, blocker = geo.sweep(rules.obstacles(s.visual()), 3.0, -1.0, dx, dz, 6.0, geo.AGENT_R, False)
    assert blocker is not None and blocker.entity == geo.FURNITURE_BASE + inst.furniture.index(table)
    # the footprint grown by the player's radius, turned 27.5 degrees: met 0.735 / cos(27.5) from the
    # centre on this line (its axis-aligned bounding square would stop the player 7 cm earlier)
    half = size[0] / 2  # the table is square
    reach = (half + geo.AGENT_R) / math.cos(math.radians(27.5))
    assert moved == pytest.approx(3.0 - reach, abs=2e-3)
    square = (half * (math.cos(math.radians(27.5)) + math.sin(math.radians(27.5)))) + geo.AGENT_R
    assert moved - (3.0 - square) > 0.05


def test_bad_original_files_are_one_clear_error():
    with pytest.raises(PaperDataError, match="level.json: not a level file"):
        convert_chain([], "level.json")
    with pytest.raises(PaperDataError, match="3.json: no 'agent'"):
        extract_scene({"instances": [], "room_polygon": [{"polygon": []}]}, prefab_sizes(), "3.json")
    bad = scene_file()
    bad["instances"].append({"prefab": "SomeoneElses_Sofa", "position": [1, 0.4, 1], "rotation": [0, 0, 0]})
    with pytest.raises(PaperDataError, match="no size is known for prefab 'SomeoneElses_Sofa'"):
        extract_scene(bad, prefab_sizes(), "4.json")
    no_exit = scene_file()
    no_exit["instances"] = [i for i in no_exit["instances"] if i.get("item_id") != "exit"]
    with pytest.raises(PaperDataError, match="no exit door"):
        extract_scene(no_exit, prefab_sizes(), "4.json")


def test_a_users_clone_is_read_with_the_scenes_option(tmp_path):
    levels = tmp_path / "EscapeCraft" / "levels"
    (levels / "scene_data" / "level3_note_first").mkdir(parents=True)
    (levels / "level3_note_first.json").write_text(json.dumps(NOTE_FIRST))
    (levels / "scene_data" / "level3_note_first" / "4.json").write_text(json.dumps(scene_file()))
    task = make_task("mmescape/paper-level-3-note-key", scenes=str(tmp_path / "EscapeCraft"))
    insts = task.instances(None, 0)
    assert [i.id for i in insts] == ["level3_note_first-4"]
    assert insts[0].optimal_steps is not None and insts[0].optimal_steps >= 3
    missing = make_task("mmescape/paper-level-3-note-key", scenes=str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="nowhere.*no levels/scene_data folder"):
        missing.instances(None, 0)
    (levels / "scene_data" / "level3_note_first" / "4.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"4.json: not valid JSON"):
        make_task("mmescape/paper-level-3-note-key", scenes=str(levels)).instances(None, 0)


def test_instances_lists_every_public_scene(capsys):
    assert main(["instances", "mmescape/paper"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    ids = [r["id"] for r in rows]
    expected = (
        [f"level1-{n}" for n in range(1, 12)]
        + [f"level2-{n}" for n in range(1, 12)]
        + [f"level3_note_first-{n}" for n in range(1, 12)]
        + [f"level3_key_first-{n}" for n in range(1, 11)]
    )
    # the paper's four settings only: level 3.5 (the authors' file, in no table) has its own id
    assert ids == expected
    assert all(r["source"].startswith("THUNLP-MT/EscapeCraft@") for r in rows)
    caps = {r["level"]: r["max_steps"] for r in rows}
    assert caps == {
        "paper-level-1": 50,
        "paper-level-2": 75,
        "paper-level-3-note-key": 100,
        "paper-level-3-key-note": 100,
    }
    assert main(["instances", "mmescape/paper-level-3.5"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == [f"level3.5-{n}" for n in range(1, 11)]
    assert {r["level"] for r in rows} == {"paper-level-3.5"}
    # 30 of the 43 scene files turn objects by angles that are not quarter turns (25 of the fork's 40)
    authors = {k: r for k, r in shipped_scenes().items() if not k.startswith("level4/")}
    turned = {k for k, r in authors.items() if any(o["yaw"] % 90 for o in r["objects"])}
    assert len(authors) == 43 and len(turned) == 30


@pytest.mark.parametrize("task_id", [f"mmescape/{p}" for p in PAPER_LEVELS])
def test_the_oracle_escapes_every_paper_scene_in_its_optimal_steps(task_id):
    task = make_task(task_id)
    for inst in task.instances(None, 0):
        task.reset(inst)
        while not task.done:
            result = task.step(task.oracle_action(task.current_role()))
            assert result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE), (inst.id, result.feedback)
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps, inst.id
        assert out.termination == "goal_reached"


def test_the_playbench_protocol_escapes_the_paper_scenes_too():
    task = make_task("mmescape/paper-level-3-note-key", protocol="playbench")
    for inst in task.instances(4, 0):
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action(task.current_role()))
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps


def test_unknown_kinds_are_few_and_listed():
    assert fallback_prefabs(shipped_scenes()) == [
        "LowPolyInterior2_Clothes1_C2",
        "LowPolyInterior2_Clothes5_C4",
        "LowPolyInterior2_PanPart_02_C2",
        "LowPolyInterior2_Spoon_01",
        "LowPolyInterior2_Spoon_03",
        "LowPolyInterior2_Toothbrush_02",
        "LowPolyInterior_KitchenDesk",  # in the fork's houses
        "LowPolyInterior_Toothbrush_02",
    ]
    readme = (Path(__file__).parents[1] / "src/playbench/tasks/mmescape/README.md").read_text()
    for name in fallback_prefabs(shipped_scenes()):
        assert name in readme


def test_a_person_plays_a_paper_scene_at_the_terminal(tmp_path, monkeypatch, capsys):
    import io

    twin = make_task("mmescape/paper-level-2")
    inst = twin.instances(1, 0)[0]
    twin.reset(inst)
    typed = ["I look around"]  # prose is no action: asked again, no step used
    while not twin.done:
        action = twin.oracle_action("player")
        typed.append(action)
        twin.step(action)
    typed.append("I found a key and left the room.")  # the debriefing
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in typed)))
    out = tmp_path / "play"
    assert main(["play", "mmescape/paper-level-2", "--out", str(out)]) == 0
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["agent"] == "human" and rec["success"] and rec["steps"] == inst.optimal_steps
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert steps[0]["validity"] == "unparseable" and steps[0]["info"]["retry"] == 1
    assert math.isclose(rec["metrics"]["grab_success_rate"], 1.0)


def test_a_two_room_house_has_its_inner_walls_and_an_open_doorway():
    """The fork's level-4 houses: two rooms parted by walls, joined by a door the game never locks."""
    data = scene_file()
    # an inner wall pair along z at x = 3.75 (three segments), the last one with a doorway
    for c in (1.25, 3.75, 6.25):
        data["instances"] += [wall(3.7125, c, 270, door=c == 6.25), wall(3.7875, c, 90, door=c == 6.25)]
    data["instances"].append(
        {
            "prefab": "LowPolyInterior2_Door1_C1",
            "position": [3.75, 1.13, 6.25],
            "rotation": [0, 270, 0],
            "scale": [1.0, 1, 1],
            "type": "kinematic",
        }
    )
    data["room_polygon"] = [
        {"room_type": "Kitchen", "polygon": [[0.1, 0.1], [0.1, 7.4], [3.7, 7.4], [3.7, 0.1], [0.1, 0.1]]},
        {"room_type": "Bedroom", "polygon": [[3.8, 0.1], [3.8, 7.4], [7.4, 7.4], [7.4, 0.1], [3.8, 0.1]]},
    ]
    chain = convert_chain(json.loads(json.dumps(NOTE_FIRST)), "level3_note_first.json")
    record = extract_scene(data, prefab_sizes(), "house.json")
    assert record["doorways"] == [{"position": [3.75, 1.13, 6.25], "yaw": 270.0}]
    inst = paper_instance(PAPER_LEVELS["paper-level-3-note-key"], 1, record, chain)
    assert inst.rooms[0].scene == "kitchen + bedroom" and len(inst.rooms[0].polygons) == 2
    assert (inst.rooms[0].x0, inst.rooms[0].width) == pytest.approx((0.075, 7.35))  # the outer walls
    walls = inst.inner_walls
    assert len(walls) == 6 and {w.axis for w in walls} == {"z"}
    assert sorted(w.opening is not None for w in walls) == [False] * 4 + [True] * 2
    rules = Rules(geo.build_world(inst))
    obstacles = rules.obstacles(geo.VisualState())
    # west of the inner wall at the doorway's z: walking east passes; 5 m south of it: a wall stops it
    through, blocker = geo.sweep(obstacles, 2.0, -6.25, 1.0, 0.0, 3.0, geo.AGENT_R, False)
    assert blocker is None and through == pytest.approx(3.0)
    stopped, blocker = geo.sweep(obstacles, 2.0, -1.25, 1.0, 0.0, 3.0, geo.AGENT_R, False)
    assert blocker is not None and blocker.entity == geo.WALL_ID
    assert stopped == pytest.approx(3.675 - 2.0 - geo.AGENT_R, abs=2e-3)


def test_the_forks_houses_are_played_and_escaped():
    task = make_task("mmescape/paper-houses")
    insts = task.instances(None, 0)
    assert [i.id for i in insts] == [f"level4-{n}" for n in range(1, 11)]
    assert all(i.inner_walls and any(w.opening for w in i.inner_walls) for i in insts)
    assert all(i.source.startswith("yanan1116/EscapeCraft@") for i in insts)
    for inst in insts:
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action(task.current_role()))
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps, inst.id


def test_options_of_the_other_kind_of_task_are_refused():
    with pytest.raises(ConfigError, match="chain= and scene= apply to the generated levels"):
        make_task("mmescape/paper-level-1", chain="x.json").instances(None, 0)
    with pytest.raises(ConfigError, match="scenes= reads the original's scene files"):
        make_task("mmescape/level-1", scenes="/tmp").instances(None, 0)
