"""Scenes in the authors' format (`--set scenes=PATH`): small fixtures we write ourselves.

The fixtures carry the facts (grid, objects, doors, start) of three of the authors' published
3-room scenes (mll-lab-nu/Theory-of-Space, MIT licence): `example_data/3-room/run00` (with its
false-belief variant), `run05` (the scene of their recorded runs `experiments/*/177ef6532828f8d7`,
whose `history_state.json` names `room_data/3-room/run05`) and `run03` (the scene of their recorded
run `experiments/gemini-3-pro-preview/66b32ca3d0e68f66`; `write_run03`, used by the replay tests).
Only the fields the loader reads are written; images are not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.core.errors import ConfigError
from playbench.tasks.tos import cogmap
from playbench.tasks.tos.oracle_plan import plan_observations
from playbench.tasks.tos.scenes import SceneError, load_scene, load_scenes, scene_folders
from playbench.tasks.tos.world import Pose, observation_text

# run00: mask[x][y] with offset (7, 8); three 6x6 rooms, the start in room 1
RUN00_MASK = (
    [[-1] + [0] * 15]
    + [[-1, 0] + [1] * 6 + [0] + [2] * 6 + [0] for _ in range(5)]
    + [[-1, 0] + [1] * 6 + [101] + [2] * 6 + [0]]
    + [[0] * 6 + [100] + [0] * 9]
    + [[0] + [3] * 6 + [0] + [-1] * 8 for _ in range(6)]
    + [[0] * 8 + [-1] * 8]
)
RUN00_OBJECTS = [  # name, (x, z), rot y, has_orientation
    ("television", (-4, -6), 90, True),
    ("chair", (-4, 2), 90, True),
    ("truck", (4, -4), 270, True),
    ("bike", (-4, -2), 270, True),
    ("backpack", (-6, 4), 180, True),
    ("pan", (2, -4), 90, True),
    ("cap", (-2, -6), 90, True),
    ("lamp", (-6, -1), 180, False),
    ("vase", (-6, 6), 0, False),
    ("shelf", (6, -6), 180, False),
    ("rubberduck", (-2, 6), 270, True),
    ("laptop", (2, -6), 90, True),
]
RUN00_DOORS = [("green door", (0, -2), [1, 3], 20072), ("blue door", (-1, 0), [1, 2], 20172)]
RUN00_AGENT = (-6, -5)
RUN00_TASK_CAMERAS = [((2, -7), 0.0), ((-2, -1), 270.0), ((-6, -2), 90.0)]
# falsebelief_exp.json of run00: pan and cap turned north, vase and laptop moved
RUN00_FB = {"pan": ((2, -4), 0), "cap": ((-2, -6), 0), "vase": ((4, -3), 0), "laptop": ((-5, -1), 90)}

# run05 (from the recorded run's history_state.json: mask coordinates; we write offset (8, 10))
RUN05_MASK = (
    [[0] * 8 + [-1] * 9]
    + [[0] + [2] * 6 + [0] * 8 + [-1] * 2]
    + [[0] + [2] * 6 + [0] + [1] * 6 + [0, -1, -1] for _ in range(4)]
    + [[0] + [2] * 6 + [101] + [1] * 6 + [0, -1, -1]]
    + [[0] * 8 + [1] * 6 + [0, -1, -1]]
    + [[-1] * 7 + [0, 0, 0, 100] + [0] * 6]
    + [[-1] * 9 + [0] + [3] * 6 + [0] for _ in range(6)]
    + [[-1] * 9 + [0] * 8]
)
RUN05_OFFSET = (8, 10)
RUN05_OBJECTS = [  # name, mask cell, facing rot y, has_orientation
    ("shoes", (6, 10), 270, True),
    ("shoppingcart", (6, 2), 180, True),
    ("laptop", (12, 12), 90, True),
    ("rubberduck", (4, 10), 0, True),
    ("bike", (4, 6), 90, True),
    ("airplane", (14, 14), 180, True),
    ("pan", (2, 8), 270, True),
    ("alarmclock", (4, 12), 270, True),
    ("red chair", (4, 4), 180, True),
    ("backpack", (14, 12), 0, True),
    ("desklamp", (1, 3), 180, True),
    ("books", (12, 10), 90, False),
]
RUN05_DOORS = [("yellow door", (8, 10), [1, 3], 9001), ("blue door", (6, 7), [2, 1], 9002)]
RUN05_AGENT = (2, 11)

# run03 (from the recorded run `experiments/gemini-3-pro-preview/66b32ca3d0e68f66`, whose
# history_state.json names room_data/3-room/run03: mask cells and facings; we write offset (10, 4))
RUN03_MASK = (
    [[-1] + [0] * 8]
    + [[-1, 0] + [3] * 6 + [0] for _ in range(6)]
    + [[0, 0, 100] + [0] * 6]
    + [[0] + [1] * 6 + [0, -1] for _ in range(6)]
    + [[0] * 5 + [100, 0, 0, -1]]
    + [[0] + [2] * 6 + [0, -1] for _ in range(6)]
    + [[0] * 8 + [-1]]
)
RUN03_OFFSET = (10, 4)
RUN03_OBJECTS = [  # name, mask cell, facing rot y, has_orientation
    ("television", (13, 2), 180, True),
    ("shoppingcart", (17, 2), 180, True),
    ("chair", (5, 2), 180, True),
    ("teddybear", (11, 4), 90, True),
    ("scooter", (17, 4), 90, True),
    ("desklamp", (3, 4), 270, True),
    ("bike", (11, 6), 90, True),
    ("vase", (8, 4), 90, False),
    ("shoes", (19, 2), 90, True),
    ("plant", (1, 4), 90, False),
    ("shelf", (19, 6), 90, False),
    ("basket", (5, 6), 90, False),
]
RUN03_DOORS = [("yellow door", (7, 2), [3, 1], 9101), ("green door", (14, 5), [1, 2], 9102)]
RUN03_AGENT = (10, 2)


def _obj(
    k: int, name: str, pos: tuple[int, int], rot: float, oriented: bool, room: int | None = None
) -> dict:
    attrs: dict = {"has_orientation": oriented}
    if oriented:
        attrs["orientation"] = {0: "north", 90: "east", 180: "south", 270: "west"}[int(rot) % 360]
    if room is not None:
        attrs["room_id"] = room
    return {
        "object_id": 1000 + k,
        "model": name.replace(" ", "_"),
        "name": name,
        "label": str(k + 1),
        "pos": {"x": float(pos[0]), "y": 0.05, "z": float(pos[1])},
        "rot": {"x": 0, "y": rot, "z": 0},
        "attributes": attrs,
    }


def _door(name: str, pos: tuple[int, int], rooms: list[int], oid: int) -> dict:
    return {
        "object_id": oid,
        "model": name.replace(" ", "_"),
        "name": name,
        "pos": {"x": float(pos[0]), "y": 0, "z": float(pos[1])},
        "rot": {"x": 0, "y": 0, "z": 0},
        "attributes": {"color": name.split()[0], "connected_rooms": rooms},
    }


def run00_meta(objects: list | None = None) -> dict:
    objs = [_obj(k, n, p, r, o) for k, (n, p, r, o) in enumerate(objects or RUN00_OBJECTS)]
    objs += [_door(*d) for d in RUN00_DOORS]
    cams = [
        {"id": "agent", "label": "A", "position": {"x": -6.0, "y": 0.85, "z": -5.0}, "rotation": {"y": 0.0}}
    ]
    for k, (p, rot) in enumerate(RUN00_TASK_CAMERAS):
        cams.append({"id": f"task_{k}", "label": f"T{k + 1}", "position": {"x": float(p[0]), "y": 0.8, "z": float(p[1])},
                     "rotation": {"y": rot}, "task_type": "bwd_loc_vision"})  # fmt: skip
    return {"room_size": [16.0, 15.0], "seed": 0, "run_seed": 0, "min_distance": 1.42, "objects": objs,
            "cameras": cams, "mask": [list(r) for r in RUN00_MASK], "offset": [7, 8]}  # fmt: skip


def cells_meta(mask: list, offset: tuple[int, int], objects: list, doors: list, agent: tuple[int, int],
               seed: int) -> dict:  # fmt: skip
    """A scene in their format from mask cells (as their run logs give them) and an offset of ours."""
    ox, oz = offset
    objs = [_obj(k, n, (x - ox, y - oz), r, o) for k, (n, (x, y), r, o) in enumerate(objects)]
    objs += [_door(n, (x - ox, y - oz), rooms, oid) for n, (x, y), rooms, oid in doors]
    camera = {"x": float(agent[0] - ox), "y": 0.85, "z": float(agent[1] - oz)}
    cams = [{"id": "agent", "label": "A", "position": camera, "rotation": {"y": 0.0}}]
    return {"seed": seed, "run_seed": seed, "min_distance": 1.42, "objects": objs, "cameras": cams,
            "mask": [list(r) for r in mask], "offset": [ox, oz]}  # fmt: skip


def run05_meta() -> dict:
    return cells_meta(RUN05_MASK, RUN05_OFFSET, RUN05_OBJECTS, RUN05_DOORS, RUN05_AGENT, 5)


def write_scenes(root: Path, with_fb: bool = True) -> Path:
    """`root/run00` (with `falsebelief_exp.json`) and `root/run05`, laid out as `room_data/3-room/`."""
    (root / "run00").mkdir(parents=True, exist_ok=True)
    (root / "run05").mkdir(parents=True, exist_ok=True)
    (root / "run00" / "meta_data.json").write_text(json.dumps(run00_meta()))
    if with_fb:
        changed = [(n, RUN00_FB[n][0] if n in RUN00_FB else p, RUN00_FB[n][1] if n in RUN00_FB else r, o)
                   for n, p, r, o in RUN00_OBJECTS]  # fmt: skip
        (root / "run00" / "falsebelief_exp.json").write_text(json.dumps(run00_meta(changed)))
    (root / "run05" / "meta_data.json").write_text(json.dumps(run05_meta()))
    return root


def run03_meta() -> dict:
    return cells_meta(RUN03_MASK, RUN03_OFFSET, RUN03_OBJECTS, RUN03_DOORS, RUN03_AGENT, 3)


def write_run03(root: Path) -> Path:
    """`root/run03` (no false-belief file: their environment made its changes at run time)."""
    (root / "run03").mkdir(parents=True, exist_ok=True)
    (root / "run03" / "meta_data.json").write_text(json.dumps(run03_meta()))
    return root


@pytest.fixture
def scenes_dir(tmp_path: Path) -> Path:
    return write_scenes(tmp_path / "3-room")


def test_run00_loads_as_the_authors_scene(scenes_dir: Path) -> None:
    scene = load_scene(scenes_dir / "run00")
    w = scene.world
    assert w.source == "run00" and (w.width, w.height) == (15, 16)
    assert [o.name for o in w.objects] == [o[0] for o in RUN00_OBJECTS]  # the file's order
    tv = w.objects[0]
    # start (-6, -5); the television at (-4, -6) faces east
    assert (tv.x, tv.y, tv.facing, tv.room) == (2, -1, "east", 1)
    assert [o.facing for o in w.objects if o.name in ("lamp", "vase", "shelf")] == [None, None, None]
    rooms = {r.id: (r.x0, r.y0, r.x1, r.y1) for r in w.rooms}
    assert rooms == {1: (0, -1, 5, 4), 2: (0, 6, 5, 11), 3: (7, -2, 12, 3)}
    # doors in mask order: the 100 door (green, rooms 1|3 along x) first, then the 101 door (blue)
    assert [(g.name, g.x, g.y, g.rooms) for g in w.gates] == [
        ("green door", 6, 3, (1, 3)),
        ("blue door", 5, 5, (1, 2)),
    ]
    assert w.unoriented_facing == "east"
    assert [(p.x, p.y, p.facing) for p in w.task_poses] == [(8, -2, "north"), (4, 4, "west"), (0, 3, "east")]
    assert scene.image_ids["green door"] == "20072"


def test_run00_start_view_matches_the_authors_visibility_record(scenes_dir: Path) -> None:
    """Their meta_data records which objects each camera image shows (doors are not recorded); from
    the start facing north: bike and lamp, facing east: television and cap, south and west: none."""
    w = load_scene(scenes_dir / "run00").world
    from playbench.tasks.tos.world import visible_items

    seen = {
        f: [i.name for i in visible_items(w, Pose(0, 0, f)) if not i.is_gate]
        for f in ("north", "east", "south", "west")
    }
    assert seen == {"north": ["bike", "lamp"], "east": ["television", "cap"], "south": [], "west": []}


def test_false_belief_variant_is_read_as_changes(scenes_dir: Path) -> None:
    scene = load_scene(scenes_dir / "run00")
    got = {(c["name"], c["kind"]) for c in scene.changes or []}
    assert got == {
        ("pan", "orientation"),
        ("cap", "orientation"),
        ("vase", "position"),
        ("laptop", "position"),
    }


def test_authors_change_rule_reproduces_run00_false_belief(scenes_dir: Path) -> None:
    """Their ObjectModifier, seeded with the run number (0), made run00's falsebelief_exp.json:
    our port of it, with numpy's generator, gives the same four changes."""
    scene = load_scene(scenes_dir / "run00")
    made = cogmap.make_changes(scene.world, 4, seed=0)
    want = {(c["name"], c["kind"], c["x"], c["y"], c["facing"]) for c in scene.changes or []}
    assert {(c.name, c.kind, c.x, c.y, c.facing) for c in made} == want
    assert [c.kind for c in made] == ["orientation", "orientation", "position", "position"]


def test_run05_and_folder_order(scenes_dir: Path) -> None:
    assert [p.name for p in scene_folders(scenes_dir)] == ["run00", "run05"]
    assert [p.name for p in scene_folders(scenes_dir / "run05")] == ["run05"]
    scenes = load_scenes(scenes_dir)
    w = scenes[1].world
    assert scenes[1].changes is None
    assert [(g.name, g.rooms) for g in w.gates] == [("yellow door", (1, 3)), ("blue door", (2, 1))]
    # their first observation in the recorded run, after Rotate(90)
    assert (
        observation_text(w, Pose(0, 0, "east")).splitlines()[0]
        == "• shoes: front-slight-right, slightly far, facing backward"
    )


def test_oracle_plan_covers_every_loaded_scene(scenes_dir: Path) -> None:
    for scene in load_scenes(scenes_dir):
        plan = plan_observations(scene.world, limit=20)
        assert 1 <= len(plan) <= 19


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.pop("mask"), "'mask' must be a list of rows"),
        (lambda m: m.update(offset="x"), "'offset' must be a pair"),
        (lambda m: m["cameras"].pop(0), "one camera with id 'agent'"),
        (lambda m: m["objects"][0]["pos"].update(x=-4.5), "not on a grid point"),
        (lambda m: m["objects"][0]["rot"].update(y=45), "not a multiple of 90"),
        (lambda m: m["objects"][0]["pos"].update(x=30.0), "not inside a room"),
        (lambda m: m["mask"][1].__setitem__(2, 2), "room 1 is not a rectangle"),
    ],
)
def test_malformed_scenes_give_one_clear_message(tmp_path: Path, edit, message: str) -> None:
    meta = run00_meta()
    edit(meta)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "meta_data.json").write_text(json.dumps(meta))
    with pytest.raises(SceneError, match=message) as err:
        load_scene(tmp_path / "s")
    assert str(tmp_path / "s" / "meta_data.json") in str(err.value)
    assert isinstance(err.value, ConfigError)


def test_missing_paths_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(SceneError, match="is not a folder"):
        scene_folders(tmp_path / "nope")
    with pytest.raises(SceneError, match="holds no scene"):
        scene_folders(tmp_path)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "meta_data.json").write_text("{nope")
    with pytest.raises(SceneError, match="not valid JSON"):
        load_scene(tmp_path / "bad")


ALL_TASKS = [
    "tos/explore", "tos/pairwise-direction", "tos/perspective-taking", "tos/perspective-determine",
    "tos/action2view", "tos/view2action", "tos/allocentric-map", "tos/mental-rotation",
    "tos/location2view", "tos/view2location", "tos/cogmap", "tos/false-belief",
]  # fmt: skip


@pytest.mark.parametrize("task_id", ALL_TASKS)
def test_every_task_runs_on_loaded_scenes_and_the_oracle_scores_100(scenes_dir: Path, task_id: str) -> None:
    from playbench.core.registry import make_task

    task = make_task(task_id, scenes=str(scenes_dir))
    insts = task.instances(None, 0)
    per = 3 if task_id not in ("tos/explore", "tos/cogmap", "tos/false-belief") else 1
    assert len(insts) == 2 * per and insts[0].id.startswith(f"tos-{task_id[4:]}-run00")
    for inst in insts:
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action("player"))
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps, inst.id
    if task_id == "tos/false-belief":  # run00's changes come from its falsebelief_exp.json
        assert {c.name for c in insts[0].changes} == {"pan", "cap", "vase", "laptop"}


def test_a_missing_scene_folder_is_one_clear_error(tmp_path: Path) -> None:
    from playbench.core.registry import make_task

    with pytest.raises(ConfigError, match="scenes path .*nope is not a folder"):
        make_task("tos/explore", scenes=str(tmp_path / "nope")).instances(None, 0)


def test_vision_uses_the_scenes_own_images_when_the_folder_has_them(scenes_dir: Path) -> None:
    """The authors' images are read at run time from the user's clone (never shipped): a view
    from the start facing north is `agent_facing_north.png`, resized to image_size."""
    from PIL import Image

    from playbench.core.registry import make_task

    Image.new("RGB", (768, 768), (200, 10, 10)).save(scenes_dir / "run00" / "agent_facing_north.png")
    task = make_task("tos/explore", scenes=str(scenes_dir), modality="vision", image_size=96)
    task.reset(task.instances(None, 0)[0])
    task.step("FINAL ANSWER:\nActions: [Observe()]")
    view = next(i for i in task.observe("player").images if i.label == "view-1")
    import io

    img = Image.open(io.BytesIO(view.png))
    assert img.size == (96, 96) and img.getpixel((40, 40)) == (200, 10, 10)
    task.step("FINAL ANSWER:\nActions: [Rotate(90), Observe()]")  # no such file: our renderer
    other = next(i for i in task.observe("player").images if i.label == "view-2")
    assert Image.open(io.BytesIO(other.png)).getpixel((40, 40)) != (200, 10, 10)
