"""The classic numbered sliding tile puzzle (ivispar/stp): rules, parser, solver, generator, views."""

from __future__ import annotations

import json
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import TextPart, Turn, Validity
from playbench.tasks.ivispar.actions import ParseFailure
from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.stp import COUNTERS, SlidingTileTask
from playbench.tasks.ivispar.stp_schema import DIAMETERS, STPConfig, STPInstance, rows_from_state, spread
from playbench.tasks.ivispar.stp_solver import (
    TileSolver,
    bfs_distances,
    blank_of,
    goal_state,
    is_solvable,
    linear_conflict,
    manhattan,
    neighbors_of,
    partition,
    pattern_heuristic,
    slide,
)
from playbench.tasks.ivispar.stp_text import ParsedTileMove, grid_text, parse_tile_move

GOAL_ROWS = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 0]]


def instance(rows: list[list[int]], **extra) -> STPInstance:
    w, h = len(rows[0]), len(rows)
    return STPInstance(id="t", board_size=[w, h], rows=rows, **extra)


def near_goal() -> STPInstance:
    # from the goal, 12 slid down and then 11 right: two moves away, the blank on c2
    return instance([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 0, 11], [13, 14, 15, 12]])


def replay(board, state, plan):
    for tile in plan:
        blank = blank_of(board, state)
        assert blank in board.neighbors[state[tile - 1]], "plan moves a tile that is not next to the blank"
        state = slide(state, tile, blank)
    return state


@pytest.fixture(scope="module")
def truth_3x3() -> dict:
    return bfs_distances(get_board(3, 3))


@pytest.fixture(scope="module")
def default_set() -> list[STPInstance]:
    return SlidingTileTask().instances(None, seed=0)


# --- goal, coordinates, rules ------------------------------------------------------------------
def test_goal_is_row_major_from_the_top_left_with_the_blank_bottom_right():
    board = get_board(4, 4)
    goal = goal_state(4, 4)
    assert rows_from_state(board, goal) == GOAL_ROWS
    assert board.coord(goal[0]) == "a4" and board.coord(goal[3]) == "d4" and board.coord(goal[14]) == "c1"
    assert board.coord(blank_of(board, goal)) == "d1"
    assert instance(GOAL_ROWS).start_state() == goal
    # a 3x2 board: rows top to bottom 1 2 3 / 4 5 _
    assert rows_from_state(get_board(3, 2), goal_state(3, 2)) == [[1, 2, 3], [4, 5, 0]]


def test_text_listing_shows_rows_top_to_bottom_and_every_coordinate():
    text = grid_text(get_board(4, 4), near_goal().start_state())
    lines = text.splitlines()
    assert lines[0] == "4 |  1  2  3  4"
    assert lines[2] == "2 |  9 10  _ 11"
    assert lines[3] == "1 | 13 14 15 12"
    assert lines[4].split() == ["A", "B", "C", "D"]  # upper case, as the geom puzzle's text states
    assert lines[5].startswith("Tiles: 1 A4, 2 B4,") and "11 D2, 12 D1," in lines[5]
    assert lines[5].endswith("15 C1; empty: C2")


def test_valid_moves_are_classified_by_true_distance():
    task = SlidingTileTask()
    task.reset(near_goal())
    assert task.distance == 2
    r = task.step("action: move 10 right")  # away from the goal
    assert r.validity == Validity.INEFFECTIVE and r.parsed == "move 10 right"
    assert "tile 10 slid from b2 to c2" in r.feedback and task.distance == 3
    r = task.step("action: move 10 left")
    assert r.validity == Validity.EFFECTIVE and task.distance == 2
    assert task.step("action: move 11 left").validity == Validity.EFFECTIVE
    r = task.step("action: move 12 up")
    assert r.validity == Validity.EFFECTIVE and "goal state is reached" in r.feedback
    out = task.outcome()
    assert task.done and out.success and out.steps == 4
    assert out.metrics["regret"] == [0, 2, 2, 2, 2]
    assert out.metrics["actions_effective"] == 3 and out.metrics["actions_ineffective"] == 1
    assert task.step("action: move 12 down").reason == "episode_over"


@pytest.mark.parametrize(
    "reply, validity, reason, counter, words",
    [
        ("action: move 7 up", Validity.INVALID, "not_adjacent", "actions_not_adjacent", "holds tile 3"),
        # 11 is next to the blank (c2) but moving up does not lead into it
        (
            "action: move 11 up",
            Validity.INVALID,
            "not_adjacent",
            "actions_not_adjacent",
            "empty cell, which is c2",
        ),
        ("action: move 4 up", Validity.INVALID, "out_of_bounds", "actions_out_of_bounds", "leave the board"),
        ("action: move 1 left", Validity.INVALID, "out_of_bounds", "actions_out_of_bounds", "a4"),
        ("action: move 16 left", Validity.INVALID, "unknown_tile", "actions_illegal", "numbered 1 to 15"),
        ("action: move 0 left", Validity.INVALID, "unknown_tile", "actions_illegal", "no tile 0"),
        (
            "action: move 9999999999 up",
            Validity.INVALID,
            "unknown_tile",
            "actions_illegal",
            "no tile 999999...",
        ),
        ("I give up", Validity.UNPARSEABLE, "format", "actions_illegal", "no 'action: move '"),
        ("move 7 up", Validity.UNPARSEABLE, "format", "actions_illegal", "no 'action: move '"),
        ("action: move seven up", Validity.UNPARSEABLE, "format", "actions_illegal", "one tile number"),
    ],
)
def test_failed_actions_change_nothing_and_say_why(reply, validity, reason, counter, words):
    task = SlidingTileTask()
    task.reset(near_goal())
    before = task.board_state
    r = task.step(reply)
    assert (r.validity, r.reason) == (validity, reason)
    assert words in r.feedback and "did not change" in r.feedback
    assert task.board_state == before and task.distance == 2
    counts = task.outcome().metrics
    assert counts[counter] == 1 and sum(counts[k] for k in COUNTERS) == 1


def test_legal_actions_are_exactly_the_state_changing_moves():
    task = SlidingTileTask()
    task.reset(near_goal())
    legal = task.legal_actions()
    assert legal == [
        "action: move 7 down",
        "action: move 10 right",
        "action: move 11 left",
        "action: move 15 up",
    ]
    for move in legal:
        task.reset(near_goal())
        assert task.step(move).validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE)
    for tile in range(1, 16):
        for d in ("up", "down", "left", "right"):
            task.reset(near_goal())
            r = task.step(f"action: move {tile} {d}")
            changed = r.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE)
            assert changed == (f"action: move {tile} {d}" in legal)


def test_step_cap_default_scales_with_the_optimum_and_max_steps_overrides():
    assert STPConfig().step_cap(2) == 20 and STPConfig().step_cap(30) == 60
    assert STPConfig(max_steps=5).step_cap(30) == 5
    task = SlidingTileTask(max_steps=3)
    task.reset(near_goal())
    for _ in range(3):
        task.step("nonsense")
    assert task.done and not task.outcome().success and task.outcome().steps == 3
    assert task.outcome().metrics["actions_illegal"] == 3


def test_observation_text_shows_goal_past_window_and_current():
    task = SlidingTileTask(past_window=1)
    task.reset(near_goal())
    task.step("action: move 7 up")
    task.step("action: move 10 right")
    obs = task.observe("player")
    text = obs.text
    # the geom puzzle's conversation: the past state a user turn and the action taken in it an assistant
    # turn, then the step text with the goal and the active state
    [seen, said] = obs.turns
    assert seen.role == "user" and seen.parts[0].text.startswith("Previous state 1:\n")
    assert said == Turn("assistant", [TextPart("Action taken in state 1: move 10 right")])
    goal, active = "The goal state is the first board:", "The active state is"
    assert text.index(goal) < text.index(active)
    assert "move 7 up" not in text + seen.parts[0].text  # outside the window of one
    assert "Result" not in text
    assert obs.legal_actions == task.legal_actions() and obs.feedback == ""
    assert "move <tile number> <direction>" in obs.instructions and "corner" not in obs.instructions
    told = SlidingTileTask(past_window=1, move_results=True, extra_facts=True)
    told.reset(near_goal())
    told.step("action: move 10 right")
    obs = told.observe("player")
    assert obs.turns[-1].parts[0].text.startswith("Result: move 10 right: tile 10 slid")
    assert obs.feedback.startswith("move 10 right")
    assert "bottom-right corner (D1)" in obs.instructions
    packed = SlidingTileTask(past_window=1, conversation="packed")
    packed.reset(near_goal())
    packed.step("action: move 10 right")
    obs = packed.observe("player")
    assert obs.turns is None and "Your action in state 1: move 10 right" in obs.text


# --- parser ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        "action: move 7 up",
        "ACTION: Move 7 Up",
        "Reasoning...\nAction: **move tile 7 up.**",
        "action: `move the 7 tile up`",
        "action: move #7 upwards",
        "action: slide 07 up",
        "action: move number 7 up, then left",
        "First action: move 3 left\nFinal action: move 7 up",
        "Tile 7 goes up.\nmove 7 up",
    ],
)
def test_accepted_replies(reply):
    assert parse_tile_move(reply) == ParsedTileMove(7, "7", "up")


@pytest.mark.parametrize(
    "reply, why",
    [
        ("", "nothing to read in the reply"),
        ("action:", "nothing to read after 'action:'"),
        ("action: 7 up", "no 'move'"),
        ("action: move 7", "no direction"),
        ("action: move 7 8 up", "one tile number"),
        ("action: move up", "found 'nothing'"),
    ],
)
def test_rejected_replies(reply, why):
    out = parse_tile_move(reply)
    assert isinstance(out, ParseFailure) and why in out.reason


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.one_of(
        st.text(max_size=300),
        st.builds(
            lambda a, n, d, b: f"{a}action: move {n} {d}{b}",
            st.text(max_size=20),
            st.one_of(st.integers(-5, 10**30), st.text(max_size=5)),
            st.sampled_from(["up", "down", "left", "right", "sideways", ""]),
            st.text(max_size=20),
        ),
    )
)
def test_fuzzed_replies_never_raise(text):
    parse_tile_move(text)
    task = SlidingTileTask()
    task.reset(near_goal())
    before = task.board_state
    r = task.step(text)
    assert r.feedback.strip()
    if r.validity in (Validity.INVALID, Validity.UNPARSEABLE):
        assert task.board_state == before


# --- solver ------------------------------------------------------------------------------------
@pytest.mark.parametrize("w, h", [(2, 3), (3, 2), (2, 2), (2, 4)])
def test_solver_matches_bfs_on_small_boards(w, h):
    board = get_board(w, h)
    truth = bfs_distances(board)
    assert max(truth.values()) == DIAMETERS[(w, h)]
    # one pattern holds every tile of these boards, so the table is the exact distance
    if len(partition(w, h)) == 1:
        assert all(pattern_heuristic(board, s) == d for s, d in truth.items())
    states = random.Random(w * 10 + h).sample(sorted(truth), min(200, len(truth)))
    shared, lc = TileSolver(board), TileSolver(board, "lc")
    for k, s in enumerate(states):
        assert TileSolver(board).distance(s) == truth[s]
        if k % 4 == 0:  # the weaker heuristic is slow on the long 2x4 distances
            assert lc.distance(s) == truth[s]
        plan = shared.plan(s)
        assert len(plan) == truth[s] and replay(board, s, plan) == shared.goal


def test_solver_matches_bfs_on_3x3(truth_3x3):
    board = get_board(3, 3)
    assert max(truth_3x3.values()) == DIAMETERS[(3, 3)]
    assert len(truth_3x3) == 181440  # half of 9!: the other half has the wrong parity
    rng = random.Random(33)
    states = rng.sample(sorted(truth_3x3), 300)
    solver = TileSolver(board)
    for s in states:
        d = truth_3x3[s]
        assert solver.distance(s) == d
        assert replay(board, s, solver.plan(s)) == solver.goal and len(solver.plan(s)) == d
    for s in states[:60]:
        assert TileSolver(board, "lc").distance(s) == truth_3x3[s]


def test_heuristics_never_overestimate(truth_3x3):
    board = get_board(3, 3)
    for s in random.Random(4).sample(sorted(truth_3x3), 3000):
        d = truth_3x3[s]
        assert manhattan(board, s) <= linear_conflict(board, s) <= d
        assert pattern_heuristic(board, s) <= d
        assert manhattan(board, s) % 2 == d % 2
    # 4x4: against exact distances of random-walk states
    board = get_board(4, 4)
    solver = TileSolver(board)
    rng = random.Random(8)
    state = solver.goal
    for step in range(120):
        state = rng.choice(list(neighbors_of(board, state)))
        if step % 6 == 0:
            d = solver.distance(state)
            assert linear_conflict(board, state) <= d and pattern_heuristic(board, state) <= d


def test_linear_conflict_counts_reversed_pairs():
    board = get_board(4, 4)
    # 2 and 1 swapped in the top row: Manhattan 2, plus one tile out and back
    rows = [row[:] for row in GOAL_ROWS]
    rows[0][0], rows[0][1] = 2, 1
    state = STPInstance.model_construct(board_size=[4, 4], rows=rows).start_state()
    assert manhattan(board, state) == 2 and linear_conflict(board, state) == 4


def test_distance_near_follows_bfs_along_a_random_walk(truth_3x3):
    board = get_board(3, 3)
    solver = TileSolver(board)
    rng = random.Random(9)
    state = rng.choice(sorted(truth_3x3))
    d = solver.distance(state)
    for _ in range(300):
        state = rng.choice(list(neighbors_of(board, state)))
        d = solver.distance_near(state, d)
        assert d == truth_3x3[state]
        tile = solver.next_move(state)
        if d:
            assert truth_3x3[slide(state, tile, blank_of(board, state))] == d - 1
        else:
            assert tile is None


def test_parity_rule_and_bad_states():
    board = get_board(4, 4)
    rows = [row[:] for row in GOAL_ROWS]
    rows[3][0], rows[3][1] = 14, 13  # one swap: unreachable
    with pytest.raises(ValueError, match="parity"):
        instance(rows)
    goal = goal_state(4, 4)
    swapped = (goal[1], goal[0], *goal[2:])
    assert not is_solvable(board, swapped)
    with pytest.raises(ValueError, match="not reachable"):
        TileSolver(board).distance(swapped)


# --- instances ---------------------------------------------------------------------------------
def test_default_set_shape(default_set):
    assert len(default_set) == 100 and len({i.id for i in default_set}) == 100
    lengths = [i.optimal_steps for i in default_set]
    assert sorted(set(lengths)) == list(range(1, 41))
    assert all(lengths.count(L) == (3 if L % 2 == 0 else 2) for L in range(1, 41))
    assert max(lengths[:12]) >= 38 and min(lengths[:12]) <= 4  # prefixes spread over the range
    assert all(i.board_size == [4, 4] and len(i.solution) == i.optimal_steps for i in default_set)


def test_generated_lengths_are_exact(default_set):
    board = get_board(4, 4)
    fresh = TileSolver(board)  # empty caches: nothing the generator left behind
    lc = TileSolver(board, "lc")
    for inst in default_set[::3]:
        start = inst.start_state()
        assert fresh.distance(start) == inst.optimal_steps, inst.id
        if inst.optimal_steps <= 26:  # an independent heuristic, cheap at these depths
            assert lc.distance(start) == inst.optimal_steps, inst.id


def test_generated_lengths_on_3x3_match_bfs(truth_3x3):
    insts = SlidingTileTask(board_size="3x3").instances(None, seed=2)
    assert len(insts) == 100 and {i.optimal_steps for i in insts} == set(range(1, 21))
    for inst in insts:
        assert truth_3x3[inst.start_state()] == inst.optimal_steps


def test_oracle_and_stored_solution_solve_in_exactly_optimal_steps(default_set):
    task = SlidingTileTask()
    for inst in default_set[:40]:
        task.reset(inst)
        while not task.done:
            assert task.step(task.oracle_action("player")).validity == Validity.EFFECTIVE
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps
        assert task.outcome().metrics["regret"] == [0] * (inst.optimal_steps + 1)
    for inst in default_set[::9]:
        task.reset(inst)
        for action in inst.solution:
            task.step(f"action: {action}")
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps


def test_instances_are_deterministic_prefix_stable_and_round_trip(default_set):
    assert SlidingTileTask().instances(7, seed=0) == default_set[:7]
    assert SlidingTileTask(modality="2d").instances(3, seed=0) == default_set[:3]
    assert [i.id for i in SlidingTileTask().instances(5, seed=1)] != [i.id for i in default_set[:5]]
    assert SlidingTileTask().instances(25, seed=0) == default_set[:25]
    # past the default 100 the reps continue
    assert [STPConfig().slot(i) for i in (0, 19, 20, 100, 120)] == [(2, 0), (24, 0), (1, 1), (1, 5), (2, 6)]
    task = SlidingTileTask()
    for inst in default_set[::11]:
        text = inst.model_dump_json()
        assert STPInstance.model_validate_json(text) == inst
        assert task.load_instance(json.loads(text)) == inst


def test_fixed_length_and_other_boards():
    insts = SlidingTileTask(optimal_length=17).instances(4, seed=5)
    assert [i.optimal_steps for i in insts] == [17] * 4 and [i.rep for i in insts] == [0, 1, 2, 3]
    for w, h, L in [(3, 4, 15), (5, 3, 12), (2, 2, 5)]:
        (inst,) = SlidingTileTask(board_size=[w, h], optimal_length=L).instances(1, seed=0)
        assert inst.board_size == [w, h]
        assert TileSolver(get_board(w, h)).distance(inst.start_state()) == L
    assert {i.optimal_steps for i in SlidingTileTask(board_size="2x2").instances(None, 0)} == {1, 2, 3, 4}


def test_configuration_errors():
    with pytest.raises(ConfigError, match="board width and height"):
        SlidingTileTask(board_size=[1, 4])
    with pytest.raises(ConfigError, match="board width and height"):
        SlidingTileTask(board_size="9x2")
    with pytest.raises(ConfigError, match="longest optimal solution has 31"):
        SlidingTileTask(board_size="3x3", optimal_length=32)
    with pytest.raises(ConfigError, match="unknown option"):
        SlidingTileTask(num_geoms=3)
    with pytest.raises(ConfigError, match="could not generate"):
        # 31 moves exist on 3x3 (two states), but random walks do not find them
        SlidingTileTask(board_size="3x3", optimal_length=31).instances(1, seed=0)
    with pytest.raises(ConfigError, match="invalid sliding tile instance"):
        SlidingTileTask().load_instance({"id": "x", "board_size": [4, 4], "rows": [[1, 2], [3, 0]]})
    with pytest.raises(ConfigError, match="not legal"):
        SlidingTileTask().load_instance(near_goal().model_dump() | {"solution": ["move 7 up"]})
    with pytest.raises(ConfigError, match="differs from optimal_steps"):
        SlidingTileTask().load_instance(
            near_goal().model_dump() | {"solution": ["move 11 left", "move 12 up"], "optimal_steps": 4}
        )


def test_registered_and_spread_order():
    assert isinstance(make_task("ivispar/stp"), SlidingTileTask)
    assert spread(list(range(20)))[:4] == [0, 9, 18, 7]
    assert sorted(spread(list(range(13)))) == list(range(13))


# --- images, metrics ---------------------------------------------------------------------------
def test_2d_images_are_deterministic_pngs():
    task = SlidingTileTask(modality="2d", image_size=256)
    task.reset(near_goal())
    task.step("action: move 11 left")
    obs = task.observe("player")
    labels = [i.label for i in obs.all_images]
    assert labels == ["past", "goal", "current"]
    assert all(i.png.startswith(b"\x89PNG\r\n\x1a\n") for i in obs.all_images)
    again = SlidingTileTask(modality="2d", image_size=256)
    again.reset(near_goal())
    again.step("action: move 11 left")
    assert [i.png for i in again.observe("player").all_images] == [i.png for i in obs.all_images]
    assert obs.all_images[1].png != obs.all_images[2].png
    assert "## The images" in obs.text and "labelled active" in obs.text


def test_3d_modality_without_its_renderer_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "playbench.tasks.ivispar.render3d", None)  # import fails
    with pytest.raises(ConfigError, match="modality '3d' is not available"):
        SlidingTileTask(modality="3d")


def test_summarize_groups_by_length():
    task = SlidingTileTask()
    episodes = []
    for moves in (["move 11 left", "move 12 up"], ["move 7 down"]):
        task.reset(near_goal())
        for m in moves:
            task.step(f"action: {m}")
        out = task.outcome()
        episodes.append({"success": out.success, "metrics": out.metrics})
    summary = task.summarize(episodes)
    assert summary["regret_curve"]["mean"] == [0.0, 1.0, 1.0]
    assert summary["by_optimal_steps"] == [
        {
            "optimal_steps": 2,
            "n": 2,
            "success_rate": 0.5,
            # the second episode has one action of an optimal 2: no step deviation, left out
            "mean_step_deviation": 0.0,
            "mean_final_distance": 1.5,
        }
    ]
    assert [e["metrics"]["step_deviation"] for e in episodes] == [0, None]
    assert summary["episodes_without_step_deviation"] == 1
    assert summary["by_length_band"][0]["optimal_steps"] == "1-10"
    assert summary["actions_per_episode"]["actions_effective"] == 1.0
    assert task.summarize([]) == {}
