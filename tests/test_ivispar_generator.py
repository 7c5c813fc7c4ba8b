"""The seeded instance generator (`dataset=generated`) and its default set, the paper's design."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from playbench.core.errors import ConfigError
from playbench.tasks.ivispar.board import manhattan_sum
from playbench.tasks.ivispar.generator import cell_order
from playbench.tasks.ivispar.schema import SGPInstance
from playbench.tasks.ivispar.sgp import SlidingGeomTask
from playbench.tasks.ivispar.solver import Solver


@pytest.fixture(scope="module")
def default_set() -> list[SGPInstance]:
    return SlidingGeomTask(dataset="generated").instances(None, seed=0)


def test_default_set_is_the_papers_grid(default_set):
    assert len(default_set) == 300
    assert len({i.id for i in default_set}) == 300
    cells = Counter((i.num_geoms, i.optimal_steps) for i in default_set)
    assert set(cells) == {(g, L) for g in range(2, 12) for L in range(2, 12)}
    assert set(cells.values()) == {3}
    assert all(i.board_size == [4, 4] for i in default_set)
    for inst in default_set:
        names = {(g.color, g.shape) for g in inst.geoms}
        assert len(names) == inst.num_geoms == len(inst.geoms)
        assert {c for c, _ in names} <= {"green", "red", "blue", "yellow"}
        assert {s for _, s in names} <= {"cube", "sphere", "pyramid", "cylinder"}


def test_every_instance_has_exact_optimal_length_and_no_interference(default_set):
    for inst in default_set:
        board, start, goal = inst.board(), inst.start_state(), inst.goal_state()
        assert Solver(board, goal).distance(start) == inst.optimal_steps
        assert manhattan_sum(board, start, goal) == inst.optimal_steps
        assert inst.interference == 0
        assert inst.solution is not None and len(inst.solution) == inst.optimal_steps


def test_stored_solution_solves_the_instance(default_set):
    task = SlidingGeomTask(dataset="generated")
    for inst in default_set[::7]:
        task.reset(inst)
        for action in inst.solution:
            task.step(f"action: {action}")
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps


def test_deterministic_and_prefix_stable(default_set):
    again = SlidingGeomTask(dataset="generated").instances(None, seed=0)
    assert [i.model_dump() for i in again] == [i.model_dump() for i in default_set]
    few = SlidingGeomTask(dataset="generated").instances(7, seed=0)
    assert [i.model_dump() for i in few] == [i.model_dump() for i in default_set[:7]]
    other = SlidingGeomTask(dataset="generated").instances(20, seed=1)
    assert [i.id for i in other] != [i.id for i in default_set[:20]]
    # the modality never changes the dataset
    assert SlidingGeomTask(dataset="generated", modality="2d").instances(5, seed=0) == default_set[:5]


def test_small_prefixes_are_diverse(default_set):
    first = default_set[:10]
    assert {i.num_geoms for i in first} == set(range(2, 12))
    assert {i.optimal_steps for i in first} == set(range(2, 12))
    assert [i.rep for i in default_set] == [r for r in range(3) for _ in range(100)]


def test_more_than_300_continues_with_further_reps(default_set):
    more = SlidingGeomTask(dataset="generated").instances(305, seed=0)
    assert more[:300] == default_set
    assert {i.rep for i in more[300:]} == {3}
    assert len({i.id for i in more}) == 305


def test_json_round_trip(default_set):
    task = SlidingGeomTask(dataset="generated")
    for inst in default_set[::13]:
        text = inst.model_dump_json()
        assert SGPInstance.model_validate_json(text) == inst
        assert task.load_instance(json.loads(text)) == inst


@pytest.mark.parametrize(
    "options", [{"num_geoms": 6, "optimal_length": 9}, {"num_geoms": 11, "optimal_length": 11}]
)
def test_fixed_cell_generation(options):
    task = SlidingGeomTask(dataset="generated", **options)
    insts = task.instances(8, seed=3)
    assert len(insts) == 8 and len({i.id for i in insts}) == 8
    for inst in insts:
        assert inst.num_geoms == options["num_geoms"]
        assert inst.optimal_steps == options["optimal_length"]
        assert (
            Solver(inst.board(), inst.goal_state()).distance(inst.start_state()) == options["optimal_length"]
        )


def test_only_num_geoms_set_varies_length():
    insts = SlidingGeomTask(dataset="generated", num_geoms=3).instances(None, seed=0)
    assert len(insts) == 30
    assert {i.num_geoms for i in insts} == {3}
    assert {i.optimal_steps for i in insts} == set(range(2, 12))


def test_other_boards_and_vocabularies():
    task = SlidingGeomTask(
        dataset="generated", board_size=[5, 3], colors=["orange", "purple"], shapes=["cone", "prism", "cube"]
    )
    insts = task.instances(None, seed=0)
    # 2 colours x 3 shapes allow at most 6 geoms
    assert {i.num_geoms for i in insts} == set(range(2, 7))
    for inst in insts[:40]:
        assert inst.board_size == [5, 3]
        assert Solver(inst.board(), inst.goal_state()).distance(inst.start_state()) == inst.optimal_steps


def test_infeasible_cell_is_a_config_error():
    # one geom on a 2x2 board is never more than 2 moves from its goal
    with pytest.raises(ConfigError, match="optimal_length"):
        SlidingGeomTask(dataset="generated", board_size=[2, 2], num_geoms=1, optimal_length=3)
    # within the per-geom bound, but on a 2x3 board with 5 geoms no interference-free start is
    # more than 12 moves away (exhaustive search): generation gives up with a clear message
    task = SlidingGeomTask(dataset="generated", board_size=[2, 3], num_geoms=5, optimal_length=13)
    with pytest.raises(ConfigError, match="could not generate"):
        task.instances(1, seed=0)


@pytest.mark.parametrize("n_g, n_l", [(10, 10), (3, 7), (7, 3), (1, 5), (5, 1)])
def test_cell_order_is_a_bijection(n_g, n_l):
    geoms, lengths = tuple(range(n_g)), tuple(range(100, 100 + n_l))
    order = cell_order(geoms, lengths)
    assert sorted(order) == sorted((g, L) for g in geoms for L in lengths)
    assert {g for g, _ in order[:n_g]} == set(geoms)


def test_cached_instance_sets_hand_out_independent_copies():
    task = SlidingGeomTask(dataset="generated")
    first = task.instances(4, 11)  # generated now, then kept (pickled) in the cache
    again = SlidingGeomTask(dataset="generated").instances(4, 11)  # from the cache
    assert [i.model_dump() for i in first] == [i.model_dump() for i in again]
    assert all(a is not b for a, b in zip(first, again, strict=True))
    first[0].geoms[0].start, again[1].solution[:] = "a1", []  # a caller changing what it was given...
    third = task.instances(4, 11)
    assert third[0].geoms[0].start == again[0].geoms[0].start != "a1"  # ...changes no later caller's
    assert third[1].solution == first[1].solution != []


def test_solver_tables_shared_per_goal_cell_give_the_distances_of_a_search():
    from collections import deque

    from playbench.tasks.ivispar.board import get_board, moved, state_changing_moves

    board = get_board(3, 3)
    goal = (0, 4)
    solver = Solver(board, goal)
    # breadth-first search from the goal over every placement of two geoms
    dist, frontier = {goal: 0}, deque([goal])
    while frontier:
        state = frontier.popleft()
        for geom, _, dest in state_changing_moves(board, state):
            nxt = moved(state, geom, dest)
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                frontier.append(nxt)
    assert len(dist) == 9 * 8
    assert all(Solver(board, goal).distance(s) == d for s, d in dist.items())  # fresh solvers: shared tables
    assert all(solver.distance(s) == d for s, d in dist.items())
