"""Theory of Space observation model: bins at every edge, bearings, visibility across doors, generator, planner."""

import pytest

from playbench.tasks.tos.feedback import OURS
from playbench.tasks.tos.oracle_plan import plan_observations, plan_turns
from playbench.tasks.tos.world import (
    Gate,
    Pose,
    Room,
    World,
    WorldObject,
    bearing,
    cardinal_bin,
    distance_bin,
    distance_bin_points,
    ego_bin,
    observation_text,
    relative_angle,
    rooms_at,
    visible_items,
)
from playbench.tasks.tos.worldgen import cached_world, generate_world


def two_rooms() -> World:
    """Room 1 around the start, room 2 east of it behind the wall x = 3 with a door at (3, 1)."""
    return World(
        width=13,
        height=7,
        rooms=[Room(id=1, x0=-2, y0=-1, x1=2, y1=3), Room(id=2, x0=4, y0=-1, x1=7, y1=3)],
        gates=[Gate(name="red door", x=3, y=1, rooms=(1, 2))],
        objects=[
            WorldObject(name="lamp", x=0, y=2, room=1),
            WorldObject(name="sofa", x=-2, y=2, room=1, facing="east"),
            WorldObject(name="chair", x=5, y=1, room=2, facing="west"),
            WorldObject(name="plant", x=6, y=3, room=2),
        ],
    )


@pytest.mark.parametrize(
    "angle, expected",
    [
        (-180, "beyond-fov"),
        (-45.0001, "beyond-fov"),
        (-45, "front-left"),
        (-30, "front-left"),
        (-22.5001, "front-left"),
        (-22.5, "front-slight-left"),
        (-0.0001, "front-slight-left"),
        (0, "front"),
        (0.0001, "front-slight-right"),
        (22.5, "front-slight-right"),
        (22.5001, "front-right"),
        (45, "front-right"),
        (45.0001, "beyond-fov"),
        (90, "beyond-fov"),
        (180, "beyond-fov"),
    ],
)
def test_ego_bins_at_every_edge(angle, expected):
    assert ego_bin(angle) == expected


@pytest.mark.parametrize(
    "angle, expected",
    [
        (-22.5, "north-west"),  # (-22.5, 22.5] is north: -22.5 itself = 337.5 is the last north-west angle
        (-22.4999, "north"),
        (0, "north"),
        (22.5, "north"),
        (22.5001, "north-east"),
        (67.5, "north-east"),
        (67.5001, "east"),
        (112.5, "east"),
        (112.5001, "south-east"),
        (157.5, "south-east"),
        (157.5001, "south"),
        (202.5, "south"),
        (202.5001, "south-west"),
        (247.5, "south-west"),
        (247.5001, "west"),
        (292.5, "west"),
        (292.5001, "north-west"),
        (337.5, "north-west"),
        (337.5001, "north"),
        (360, "north"),
        (-90, "west"),
    ],
)
def test_cardinal_bins_at_every_edge(angle, expected):
    assert cardinal_bin(angle) == expected


@pytest.mark.parametrize(
    "d, expected",
    [
        (0, "same distance"),
        (1e-9, "near"),
        (2, "near"),
        (2.0001, "mid distance"),
        (4, "mid distance"),
        (4.0001, "slightly far"),
        (8, "slightly far"),
        (8.0001, "far"),
        (16, "far"),
        (16.0001, "very far"),
        (32, "very far"),
        (32.0001, "extremely far"),
        (100, "extremely far"),
    ],
)
def test_distance_bins_at_every_edge(d, expected):
    assert distance_bin(d) == expected


@pytest.mark.parametrize(
    "dx, dy, expected",
    [((0, 0), None, "same distance"), ((2, 0), None, "near"), ((1, 1), None, "near"), ((2, 1), None, "mid distance"),
     ((0, 4), None, "mid distance"), ((4, 1), None, "slightly far"), ((0, 8), None, "slightly far"),
     ((8, 1), None, "far"), ((0, 32), None, "very far"), ((32, 1), None, "extremely far")],
)  # fmt: skip
def test_integer_distances_are_binned_exactly(dx, dy, expected):
    assert distance_bin_points(*dx) == expected


def test_bearings_are_exact_on_axes_and_diagonals():
    assert [bearing(*v) for v in [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]] == [
        0, 45, 90, 135, 180, 225, 270, 315,
    ]  # fmt: skip
    assert relative_angle(-3, 3, "north") == -45 and ego_bin(relative_angle(-3, 3, "north")) == "front-left"
    assert relative_angle(3, 3, "north") == 45
    assert relative_angle(0, -1, "north") == 180
    assert relative_angle(1, 0, "south") == -90


def test_vision_is_confined_to_the_room_except_from_a_doorway():
    w = two_rooms()
    names = lambda pose: [i.name for i in visible_items(w, pose)]  # noqa: E731
    # sofa exactly at -45° is in view; items are listed in the scene's order (objects, then doors)
    assert names(Pose(0, 0, "north")) == ["lamp", "sofa"]
    # facing east from the start the chair is inside the field of view but behind the wall
    assert names(Pose(0, 0, "east")) == ["red door"]
    assert rooms_at(w, 3, 1) == {1, 2}
    assert names(Pose(3, 1, "east")) == ["chair", "plant"]
    assert names(Pose(3, 1, "west")) == ["lamp", "sofa"]
    # standing on an object, that object is not reported
    assert "chair" not in names(Pose(5, 1, "west")) and "red door" in names(Pose(5, 1, "west"))


def test_observation_text_reports_bins_orientation_and_gate_wall():
    w = two_rooms()
    text = observation_text(w, Pose(0, 0, "north"))
    assert "• sofa: front-left, mid distance, facing right" in text
    assert "• lamp: front, near" in text
    # the two are 2 apart: a close pair, in the agent's frame ("north" = its facing)
    assert text.endswith(OURS.pairs_text("• lamp is east, near to sofa"))
    assert (
        observation_text(w, Pose(0, 0, "east"))
        == "• red door: front-slight-left, mid distance, on front wall"
    )
    # from inside room 1 the same door is on that room's west wall
    assert "red door: front, near, on front wall" in observation_text(w, Pose(5, 1, "west"))
    assert observation_text(w, Pose(0, 0, "south")) == OURS.nothing
    door_view = observation_text(w, Pose(3, 1, "east"))
    assert (
        "chair: front, near, facing backward" in door_view and "plant: front-left, mid distance" in door_view
    )


def test_planner_finds_a_minimum_plan_and_its_turns_are_legal():
    w = two_rooms()
    poses = plan_observations(w)
    assert len(plan_observations(w, allow_return=True)) == 3
    # the first turn cannot jump, and no start view shows the door and room 0's objects together:
    # the door must be seen (1), entered (2), and room 0 covered by another view (3)
    assert len(poses) == 3
    assert not any(
        {"lamp", "sofa", "red door"} <= {i.name for i in visible_items(w, Pose(0, 0, f))}
        for f in ("north", "east", "south", "west")
    )
    seen = set()
    for p in poses:
        seen |= {i.name for i in visible_items(w, p)}
    assert {"lamp", "sofa", "chair", "plant"} <= seen
    turns = plan_turns(w, poses)
    assert turns[0].startswith("Actions: [") and "JumpTo" not in turns[0]
    assert not any("Return()" in t for t in turns)  # theirs has no Return()


def test_without_return_the_start_is_left_for_good():
    """Room 1 is seen from the start, room 2 only from its door: a plan that leaves the start
    cannot come back to it (the authors' grammar has no Return())."""
    w = two_rooms()
    with pytest.raises(ValueError, match="Return"):
        from playbench.tasks.tos.oracle_plan import moves_to

        moves_to(w, Pose(3, 1, "east"), Pose(0, 0, "north"), frozenset({"red door"}))


def test_generator_is_seeded_and_well_formed():
    a = generate_world(3, 3, 123)
    assert a == generate_world(3, 3, 123) and a != generate_world(3, 3, 124)
    assert len(a.rooms) == 3 and len(a.gates) == 2 and len(a.objects) == 9
    assert len({o.name for o in a.objects}) == 9
    assert rooms_at(a, 0, 0) == {1}
    points = {(o.x, o.y) for o in a.objects}
    assert len(points) == 9 and (0, 0) not in points
    for o in a.objects:
        assert rooms_at(a, o.x, o.y) == {o.room}
    for g in a.gates:
        assert len(rooms_at(a, g.x, g.y)) == 2
    for rooms in (1, 2, 4):
        w, plan = cached_world(rooms, 2, 0, 0, 20)
        assert len(w.rooms) == rooms and len(w.gates) == rooms - 1 and 1 <= len(plan) < 20


def test_default_generator_has_the_authors_layout_and_spacing_over_100_seeds():
    """Their 3-room scenes: a main room (room 1, the agent's) joined by a door to each other room
    (a T), 6 x 6 rooms, 4 objects per room at least 1.42 apart; 2 rooms in a line, 4 in a cross."""
    import itertools

    from playbench.tasks.tos.worldgen import MIN_SPACING

    for rooms in (2, 3, 4):
        for seed in range(100 if rooms == 3 else 25):
            w = generate_world(rooms, 4, seed)
            assert rooms_at(w, 0, 0) == {1}  # the agent starts in the main room
            assert len(w.gates) == rooms - 1 and all(1 in g.rooms for g in w.gates)  # main room is the hub
            assert all((r.x1 - r.x0, r.y1 - r.y0) == (5, 5) for r in w.rooms)
            for r in w.rooms:
                objs = [o for o in w.objects if o.room == r.id]
                assert len(objs) == 4
                for a, b in itertools.combinations(objs, 2):
                    assert (a.x - b.x) ** 2 + (a.y - b.y) ** 2 >= MIN_SPACING**2
            assert (0, 0) not in {(o.x, o.y) for o in w.objects}
            # rooms never touch: between any two there is at least a wall line
            for a, b in itertools.combinations(w.rooms, 2):
                assert a.x1 + 1 < b.x0 or b.x1 + 1 < a.x0 or a.y1 + 1 < b.y0 or b.y1 + 1 < a.y0
            for g in w.gates:
                assert len(rooms_at(w, g.x, g.y)) == 2


def test_earlier_grid_generator_stays_as_an_option():
    from playbench.tasks.tos.worldgen import generate_grid_world

    w = generate_grid_world(3, 4, 7)
    assert len(w.rooms) == 3 and rooms_at(w, 0, 0) == {1}
    w2, plan = cached_world(3, 4, 0, 0, 20, layout="grid", allow_return=True)
    assert len(plan) < 20
