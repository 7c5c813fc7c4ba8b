"""MM-Escape world rules: collisions, jumping, the red-dot grab within 4 m, each level's chain logic."""

import json
import math
import random

import pytest

from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import parse_action
from playbench.tasks.mmescape.chain import builtin_chain, realise
from playbench.tasks.mmescape.engine import Rules
from playbench.tasks.mmescape.schema import DoorSpec, EscapeInstance, Placed, Pose, PropPlace, RoomSpec


def room_instance(level="level-2", start=(3.0, 7.5, 0.0, 0.0), prop_spots=None):
    """A 6 x 9 m room: exit door in the north wall at x = 3, a coffee table at (3, 3) (0.42 m high),
    a wardrobe against the east wall; visible props at `prop_spots` (default: first visible on the table)."""
    chain = realise(builtin_chain(level), random.Random(1))
    visible = [it for it in chain.items if it.show]
    spots = prop_spots or [(3.0, 0.42, 3.0), (1.0, 0.0, 8.6)]
    props = [
        PropPlace(item=it.id, room=0, x=x, y=y, z=z, rot=0 if y else 180, on="coffee table" if y else "floor")
        for it, (x, y, z) in zip(visible, spots, strict=False)
    ]
    room = RoomSpec(
        scene="living room",
        x0=0,
        z0=0,
        width=6,
        depth=9,
        wall_color=(220, 214, 196),
        floor_color=(128, 96, 70),
        chain=chain,
    )
    x, z, yaw, pitch = start
    return EscapeInstance(
        id=f"test-{level}",
        level=level,
        rooms=[room],
        doors=[DoorSpec(room=0, wall="north", center=3.0)],
        furniture=[
            Placed(kind="coffee_table", room=0, x=3.0, z=3.0, rot=0),
            Placed(kind="wardrobe", room=0, x=5.69, z=6.0, rot=270),
        ],
        clutter=[],
        props=props,
        start=Pose(x=x, z=z, yaw=yaw, pitch=pitch),
        max_steps=75,
    )


def act(rules, state, **action):
    return rules.apply(state, parse_action(json.dumps(action)))


def aim_pitch(distance, height):
    return math.degrees(math.atan2(geo.EYE_H - height, distance))


def test_walls_and_furniture_stop_the_player_at_its_radius():
    rules = Rules(geo.build_world(room_instance()))
    s = rules.start_state()
    out = act(rules, s, move_forward=10)  # north, into the coffee table (z 2.7..3.3)
    assert s.z == pytest.approx(3.3 + geo.AGENT_R, abs=2e-3) and "coffee table is in the way" in out.lines[-1]
    assert out.moved == pytest.approx(7.5 - 3.55, abs=2e-3) and s.moved == out.moved
    act(rules, s, rotate_right=90, move_forward=10)  # east, into the wall
    assert s.x == pytest.approx(6.0 - geo.AGENT_R, abs=2e-3)
    out = act(rules, s, move_forward=1)
    assert out.moved < 1e-2 and "could not move forward: the wall" in out.lines[-1]
    act(rules, s, move_forward=-2)  # backwards works
    assert s.x == pytest.approx(6.0 - geo.AGENT_R - 2, abs=2e-3)


def test_a_jump_carries_a_move_over_a_low_table_but_not_into_it():
    rules = Rules(geo.build_world(room_instance()))
    s = rules.start_state()
    act(rules, s, move_forward=8, jump=True)  # over the 0.42 m table, up to the closed door
    assert s.z == pytest.approx(0.03 + geo.AGENT_R, abs=2e-3)
    s = rules.start_state()
    out = act(rules, s, move_forward=4.3, jump=True)  # would land on the table: stops before it
    assert s.z == pytest.approx(3.3 + geo.AGENT_R, abs=2e-3)
    assert out.lines[-1].startswith("You jumped 3.95 m forward of the 4.3 m asked: the coffee table")


def test_grab_needs_the_red_dot_on_the_object_and_4_m_reach():
    rules = Rules(geo.build_world(room_instance()))
    s = rules.start_state()  # 4.5 m south of the key on the table
    out = act(rules, s, rotate_down=aim_pitch(4.5, 0.435), grab=True)
    assert out.target == rules.world.item_entity["key_1"] and not out.grab_success
    assert "too far away" in out.lines[-1] and s.bag == []
    out = act(rules, s, rotate_right=12, grab=True)  # dot beside the key, on the floor 6 m away
    assert out.target != rules.world.item_entity["key_1"] and "too far away" in out.lines[-1]
    out = act(rules, s, rotate_down=40, grab=True)  # the floor at arm's length
    assert out.target == geo.FLOOR_ID and "nothing you can interact with" in out.lines[-1]
    act(rules, s, rotate_down=-40)
    out = act(
        rules, s, rotate_right=-12, rotate_down=aim_pitch(3.5, 0.435) - s.pitch, move_forward=1, grab=True
    )
    assert out.grab_success and s.bag == ["key_1"] and "picked up key_1 (a key)" in out.lines[-1]
    assert "key_1" in s.picked  # gone from the scene


def test_the_grab_ray_matches_the_rendered_object_id_buffer():
    from playbench.tasks.mmescape.view import ViewRenderer

    task = make_task("mmescape/level-3-note-key", protocol="playbench")
    inst = task.instances(1, 3)[0]
    world = geo.build_world(inst)
    rules, renderer = Rules(world), ViewRenderer(world)
    rng = random.Random(0)
    room = inst.rooms[0]
    agree = total = 0
    targets = [p for p in inst.props]
    for k in range(16):
        s = rules.start_state()
        if k < len(targets):  # look straight at a prop from 2 m
            p = targets[k]
            s.x, s.z, s.yaw = p.x, p.z + 2.0, 0.0
            s.pitch = aim_pitch(2.0, p.y + 0.05)
        else:
            s.x = rng.uniform(room.x0 + 0.5, room.x0 + room.width - 0.5)
            s.z = rng.uniform(room.z0 + 0.5, room.z0 + room.depth - 0.5)
            s.yaw, s.pitch = rng.uniform(0, 360), rng.uniform(-20, 50)
        _, centre = renderer.render(s.visual(), s.x, s.z, s.yaw, s.pitch, 512)
        total += 1
        agree += centre == rules.centre_hit(s)[0]
    assert agree == total


@pytest.mark.parametrize("lock", ["level-1", "level-2"])
def test_the_door_of_levels_1_and_2(lock):
    inst = room_instance(lock, start=(3.0, 2.0, 0.0, aim_pitch(2.0, 1.0)))
    rules = Rules(geo.build_world(inst))
    s = rules.start_state()
    out = act(rules, s, grab=True)
    if lock == "level-1":
        assert s.escaped and out.lines[-1].startswith("Escaped successfully!")
        return
    assert not s.escaped and "locked. It has a keyhole: you need a key" in out.lines[-1] and out.lock_info
    s.bag.append("key_1")
    out = act(rules, s, grab=True, interactions={"input": "1234"})
    assert not s.escaped and "not a keypad" in out.lines[-1]
    out = act(rules, s, grab=True, interactions={"use_item_id": "key_1"})
    assert s.escaped and out.grab_success and out.opened == ["exit:0"]


def test_level_3_note_key_chain():
    # note on the table, box on the floor against the south wall at x = 1
    inst = room_instance("level-3-note-key", start=(3.0, 5.0, 0.0, aim_pitch(2.0, 0.425)))
    rules = Rules(geo.build_world(inst))
    code = rules.items["password_1"].value
    s = rules.start_state()
    out = act(rules, s, grab=True)
    assert s.bag == ["note_1"] and "Use read" in out.lines[-1]
    out = act(rules, s, read="note_1")
    assert code in out.lines[-1] and out.read == "note_1"
    # walk to 1.5 m north of the box and face it (south)
    act(
        rules, s, rotate_right=180 - s.yaw + math.degrees(math.atan2(1.0 - 3.0, -(7.1 - 5.0))), move_forward=0
    )
    s.x, s.z, s.yaw, s.pitch = 1.0, 7.1, 180.0, aim_pitch(1.5, 0.15)
    out = act(rules, s, grab=True)
    assert "4-digit password lock" in out.lines[-1] and not out.grab_success
    wrong = "0000" if code != "0000" else "1111"
    out = act(rules, s, grab=True, interactions={"input": wrong})
    assert "wrong password" in out.lines[-1] and "box_1" not in s.opened
    out = act(rules, s, grab=True, interactions={"use_item_id": "note_1"})
    assert "Type the password with input" in out.lines[-1]
    out = act(rules, s, grab=True, interactions={"input": code})
    assert (
        out.grab_success
        and s.bag == ["note_1", "key_1", "note_2"]
        and "key_1 (a key), note_2 (a note)" in out.lines[-1]
    )
    out = act(rules, s, grab=True)
    assert "already open" in out.lines[-1] and not out.grab_success
    story = rules.items["note_2"].text
    assert story and story[:30] in act(rules, s, read="note_2").lines[-1]


def test_level_3_key_note_chain_ends_with_the_password_on_the_door():
    inst = room_instance("level-3-key-note", start=(3.0, 5.0, 0.0, aim_pitch(2.0, 0.435)))
    rules = Rules(geo.build_world(inst))
    s = rules.start_state()
    act(rules, s, grab=True)
    assert s.bag == ["key_1"]
    s.x, s.z, s.yaw, s.pitch = 1.0, 7.1, 180.0, aim_pitch(1.5, 0.15)
    out = act(rules, s, grab=True)
    assert "keyhole" in out.lines[-1]
    out = act(rules, s, grab=True, interactions={"use_item_id": "key_1"})
    assert out.grab_success and {"note_1", "note_2"} <= set(s.bag)
    code = rules.items["password_1"].value
    s.x, s.z, s.yaw, s.pitch = 3.0, 2.0, 0.0, aim_pitch(2.0, 1.0)
    out = act(rules, s, grab=True, interactions={"use_item_id": "key_1"})
    assert not s.escaped and "keypad" in out.lines[-1]
    out = act(rules, s, grab=True, interactions={"input": code})
    assert s.escaped


def test_look_at_centres_the_chosen_point():
    inst = room_instance()
    rules = Rules(geo.build_world(inst))
    s = rules.start_state()
    act(rules, s, look_at=[1.0, 0.5])  # the right edge of a 60 degree view comes to the centre
    assert s.yaw == pytest.approx(30.0, abs=1e-6) and s.pitch == pytest.approx(0.0, abs=1e-6)
    act(rules, s, rotate_down=80)
    out = act(rules, s, rotate_down=20)
    assert s.pitch == geo.PITCH_LIMIT and "cannot tilt" in out.lines[-1]


def test_the_task_uses_the_observed_centre_and_classifies_steps():
    task = make_task("mmescape/level-1", protocol="playbench")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    obs = task.observe("player")
    assert obs.images and obs.images[0].png[:4] == b"\x89PNG" and "Your bag holds: nothing" in obs.text
    assert task._observed is not None and task._observed[0] == task._state.pose_key()
    r = task.step("{}")
    assert r.validity == Validity.INEFFECTIVE and "Nothing happened" in r.feedback
    r = task.step('{"rotate_right": 45}')
    assert r.validity == Validity.EFFECTIVE and "turned 45 degrees right" in r.feedback


def test_look_at_at_the_tilt_limit_reports_no_tilt():
    rules = Rules(geo.build_world(room_instance()))
    s = rules.start_state()
    act(rules, s, rotate_down=89)
    out = act(rules, s, look_at=[0.5, 0.5])
    assert not any("cannot tilt" in line for line in out.lines)


def test_the_recorded_action_keeps_the_rationale():
    task = make_task("mmescape/level-1", protocol="playbench")
    task.reset(task.instances(1, 0)[0])
    r = task.step('{"rotate_right": 10, "rationale": "Looking for the door."}')
    assert json.loads(r.parsed) == {"rotate_right": 10, "rationale": "Looking for the door."}
    r = task.step('{"interactions": {"use_item_id": "note_1"}, "rationale": "read it"}')
    assert r.validity == Validity.INVALID and 'use "read"' in r.feedback
    assert r.parsed is None  # rejected before it became an action; the raw reply is in the trajectory


@pytest.mark.parametrize("rot", [0, 90, 180, 270])
def test_a_note_reads_upright_from_the_room_side_however_the_sheet_lies(rot):
    """The writing on a note faces the room's centre (the open side of wall furniture), not the
    sheet's random rotation: upside-down or sideways text is not 'readable in the scene'. A sheet
    lying crosswise gets the text along its long side, so the decal still covers the sheet."""
    from playbench.tasks.mmescape.view import note_image

    inst = room_instance("level-3-note-key")
    note = next(p for p in inst.props if p.item == "note_1")
    for x, z in ((3.0, 0.5), (3.0, 8.5), (0.5, 4.5), (5.5, 4.5)):  # near the N, S, W, E walls
        note.x, note.z, note.rot = x, z, rot
        _, decals = geo.build_world(inst).parts(geo.VisualState())
        d = next(d for d in decals if d.facing == "up")
        rx, rz = geo.rotate_xz(0.0, 1.0, d.rot)  # where a reader of the upright text stands
        assert rx * (3.0 - x) + rz * (4.5 - z) > 0, (x, z, rot, d.rot)
        # the decal's world footprint is the sheet's (0.3 x 0.4, its long side along z when rot is 0/180)
        decal_x = d.width if d.rot % 180 == 0 else d.height
        sheet_x = 0.3 if rot % 180 == 0 else 0.4
        assert decal_x == pytest.approx(sheet_x - 0.02)
        assert note_image(d.lines, d.width > d.height).size == (
            (380, 280) if d.width > d.height else (280, 380)
        )
