"""MM-Escape generator and oracle: every level and the two-room task escape on many seeds."""

import io
import json
import random

import pytest

from playbench.cli import main
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.planner import solve

TASKS = [
    "mmescape/level-1",
    "mmescape/level-2",
    "mmescape/level-3-note-key",
    "mmescape/level-3-key-note",
    "mmescape/multi-room",
]


@pytest.mark.parametrize("task_id", TASKS)
def test_oracle_escapes_on_many_seeds_in_optimal_steps(task_id):
    task = make_task(task_id, protocol="playbench")
    for seed in (1, 2, 3):
        for inst in task.instances(8, seed):
            assert solve(inst) == (inst.optimal_steps, pytest.approx(inst.optimal_distance, abs=1e-3))
            assert 1 <= inst.optimal_steps <= inst.max_steps
    # through the task's own step(): the oracle's JSON is played like any reply
    for inst in task.instances(3, 4):
        task.reset(inst)
        while not task.done:
            result = task.step(task.oracle_action(task.current_role()))
            assert result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE), result.feedback
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps
        assert out.metrics["prop_gain_with_exit"] == 1.0 and out.metrics["grab_success_rate"] == 1.0
        # the paper's prop gain counts the keys and password notes the exit needs: none in level 1
        assert out.metrics["prop_gain"] == (None if task_id == "mmescape/level-1" else 1.0)
        assert out.metrics["moving_distance"] == pytest.approx(inst.optimal_distance, abs=1e-3)


def test_every_required_interaction_is_a_grab_step():
    # one grab per chain interaction: 1 (door), 2 (key, door), 3 (note/key, box, door)
    minimum = {"level-1": 1, "level-2": 2, "level-3-note-key": 3, "level-3-key-note": 3}
    for level, n in minimum.items():
        for inst in make_task(f"mmescape/{level}", protocol="playbench").instances(6, 5):
            assert inst.optimal_steps >= n


def test_instances_are_seeded_and_furnished_without_overlaps():
    task = make_task("mmescape/level-3-note-key", protocol="playbench")
    a = task.instances(6, 11)
    cached = make_task("mmescape/level-3-note-key", protocol="playbench").instances(6, 11)
    assert [i.model_dump() for i in a] == [i.model_dump() for i in cached]
    assert all(x is not y for x, y in zip(a, cached, strict=True))  # copies, not shared objects
    # and generated again from scratch (past the instance cache), the same
    assert [i.model_dump() for i in a] == [
        i.model_dump() for i in make_task("mmescape/level-3-note-key", protocol="playbench")._instances(6, 11)
    ]
    scenes = set()
    for inst in a:
        room = inst.rooms[0]
        scenes.add(room.scene)
        rects = [
            geo.footprint(p.kind, p.x, p.z, p.rot)
            for p in inst.furniture
            if geo.fx.KINDS[p.kind].solid and not geo.fx.KINDS[p.kind].mounted
        ]
        for i, r in enumerate(rects):
            assert room.x0 - 1e-6 <= r[0] and r[2] <= room.x0 + room.width + 1e-6
            assert room.z0 - 1e-6 <= r[1] and r[3] <= room.z0 + room.depth + 1e-6
            for q in rects[i + 1 :]:
                assert not (r[0] < q[2] and q[0] < r[2] and r[1] < q[3] and q[1] < r[3])
        visible = {it.id for it in room.chain.items if it.show}
        assert {p.item for p in inst.props} == visible
        assert len(inst.furniture) >= 4 and inst.clutter
        s = inst.start
        assert room.x0 < s.x < room.x0 + room.width and room.z0 < s.z < room.z0 + room.depth
    assert len(scenes) >= 2


def test_multi_room_has_a_connecting_door_and_unique_item_ids():
    task = make_task("mmescape/multi-room", protocol="playbench", rooms="level-2,level-3-note-key")
    inst = task.instances(1, 0)[0]
    assert len(inst.rooms) == 2 and inst.doors[0].leads_to == 1 and inst.doors[1].leads_to is None
    ids = [it.id for room in inst.rooms for it in room.chain.items]
    assert len(ids) == len(set(ids)) and "key_2" in ids
    assert inst.max_steps == 100


def test_scene_option_forces_the_scene_type():
    for inst in make_task("mmescape/level-1", protocol="playbench", scene="kitchen").instances(3, 0):
        assert inst.rooms[0].scene == "kitchen"
        assert {"counter", "fridge"} <= {p.kind for p in inst.furniture}


def test_random_legal_play_rarely_escapes_the_harder_levels():
    for task_id, budget in (("mmescape/level-2", 0.2), ("mmescape/level-3-note-key", 0.05)):
        task = make_task(task_id, protocol="playbench")
        rng = random.Random(0)
        escapes = 0
        insts = task.instances(10, 9)
        for inst in insts:
            task.reset(inst)
            while not task.done:
                actions = (
                    task.legal_actions()
                    if task.phase == "play"
                    else task.observe(task.current_role()).legal_actions
                )
                task.step(rng.choice(actions))
            escapes += task.outcome().success
        assert escapes <= budget * len(insts), (task_id, escapes)


def test_rooms_have_the_originals_scale_and_clutter():
    # the original's rooms are 7.3 m squares, 3 m high, with 10-20 pieces of furniture and about as
    # many small things on them; ours: 6.6-8.0 m sides, a dozen pieces, 7-12 distractors per room
    insts = make_task("mmescape/level-3-key-note", protocol="playbench").instances(8, 3)
    standing, clutter = [], []
    for inst in insts:
        room = inst.rooms[0]
        assert 6.6 <= room.width <= 8.0 and 6.6 <= room.depth <= 8.0
        standing.append(
            sum(1 for p in inst.furniture if geo.fx.KINDS[p.kind].solid and not geo.fx.KINDS[p.kind].mounted)
        )
        clutter.append(len(inst.clutter))
        assert 1 <= len(inst.clutter) <= 12
    assert sum(standing) / len(insts) >= 10 and min(standing) >= 7
    assert sum(clutter) / len(insts) >= 6
    assert geo.ROOM_H == 3.0


def test_a_person_escapes_level_2_at_the_terminal(tmp_path, monkeypatch, capsys):
    """`playbench play`: one JSON action per line, a malformed line first gets feedback, not a crash."""
    twin = make_task("mmescape/level-2", protocol="playbench")
    twin.reset(twin.instances(1, 0)[0])
    typed = ["{not json"]
    while not twin.done:
        action = twin.oracle_action(twin.current_role())
        typed.append(json.dumps(json.loads(action)))  # the oracle's JSON on one terminal line
        twin.step(action)
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in typed)))
    out = tmp_path / "play"
    assert main(["play", "mmescape/level-2", "--set", "protocol=playbench", "--out", str(out)]) == 0
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["agent"] == "human" and rec["success"] and rec["metrics"]["escaped"]
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert steps[0]["validity"] in ("invalid", "unparseable") and steps[0]["feedback"]
    assert len(steps) == len(typed)
    assert capsys.readouterr().err.count(".png") >= len(typed)  # each view saved, its path printed
