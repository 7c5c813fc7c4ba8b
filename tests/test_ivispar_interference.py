"""Harder Sliding Geom Puzzle configurations: exact interference, larger boards, more geoms."""

from __future__ import annotations

import inspect
import json

import pytest

from playbench.core.errors import ConfigError
from playbench.tasks.ivispar.board import get_board, manhattan_sum
from playbench.tasks.ivispar.generator import cell_order, make_instance
from playbench.tasks.ivispar.schema import DEFAULT_GEOMS, DEFAULT_LENGTHS, SGPConfig, SGPInstance
from playbench.tasks.ivispar.sgp import SlidingGeomTask
from playbench.tasks.ivispar.solver import Solver

COLORS = ["green", "red", "blue", "yellow"]
SHAPES = ["cube", "sphere", "pyramid", "cylinder"]


def check(inst: SGPInstance, length: int, interference: int) -> None:
    """Optimal length and interference as requested, measured by a solver with empty caches."""
    board, start, goal = inst.board(), inst.start_state(), inst.goal_state()
    assert Solver(board, goal).distance(start) == length == inst.optimal_steps, inst.id
    assert manhattan_sum(board, start, goal) == length - interference
    assert inst.interference == interference
    assert inst.solution is not None and len(inst.solution) == length  # validated as legal on load


def grid(config: SGPConfig, n: int, seed: int) -> list[SGPInstance]:
    # what SlidingGeomTask.instances does with the config's interference
    board = get_board(*config.board_size)
    cells = cell_order(config.geom_counts(), config.lengths())
    out = []
    for idx in range(n):
        rep, k = divmod(idx, len(cells))
        g, length = cells[k]
        out.append(
            make_instance(
                board, config.colors, config.shapes, g, length, seed, rep, interference=config.interference
            )
        )
    return out


def test_zero_interference_is_the_papers_dataset_unchanged():
    config = SGPConfig(dataset="generated")
    assert config.interference == 0
    assert config.geom_counts() == DEFAULT_GEOMS and config.lengths() == DEFAULT_LENGTHS
    board = get_board(4, 4)
    plain = make_instance(board, COLORS, SHAPES, 5, 7, 0, 1)
    assert make_instance(board, COLORS, SHAPES, 5, 7, 0, 1, interference=0) == plain
    assert "-i" not in plain.id and plain.interference == 0


@pytest.mark.parametrize(
    "size, geoms, length, interference",
    [((4, 4), 8, 8, 2), ((4, 4), 11, 11, 4), ((4, 4), 6, 11, 6), ((4, 4), 3, 6, 2)],
)
def test_4x4_instances_have_exact_length_and_interference(size, geoms, length, interference):
    board = get_board(*size)
    for rep in range(3):
        inst = make_instance(board, COLORS, SHAPES, geoms, length, 7, rep, interference=interference)
        check(inst, length, interference)
        assert inst.id.startswith(f"sgp-g{geoms:02d}-l{length:02d}-i{interference}-r{rep}-")


@pytest.mark.parametrize(
    "geoms, length, interference", [(12, 12, 2), (13, 10, 4), (14, 13, 4), (15, 12, 6), (12, 16, 6)]
)
def test_5x5_boards_with_many_geoms(geoms, length, interference):
    board = get_board(5, 5)
    inst = make_instance(board, COLORS, SHAPES, geoms, length, 3, 0, interference=interference)
    check(inst, length, interference)
    assert inst.board_size == [5, 5] and inst.num_geoms == geoms


def test_generation_is_deterministic_and_round_trips():
    board = get_board(4, 4)
    a = make_instance(board, COLORS, SHAPES, 9, 10, 5, 2, interference=4)
    assert make_instance(board, COLORS, SHAPES, 9, 10, 5, 2, interference=4) == a
    assert make_instance(board, COLORS, SHAPES, 9, 10, 6, 2, interference=4) != a
    assert SGPInstance.model_validate_json(a.model_dump_json()) == a
    assert SlidingGeomTask(dataset="generated").load_instance(json.loads(a.model_dump_json())) == a


@pytest.mark.parametrize("interference", [2, 4, 6])
def test_default_grid_with_interference(interference):
    config = SGPConfig(dataset="generated", interference=interference)
    assert min(config.geom_counts()) == interference + 1 and max(config.geom_counts()) == 11
    assert min(config.lengths()) == interference + interference // 2 + 2 and max(config.lengths()) == 11
    for inst in grid(config, 6, seed=0):
        check(inst, inst.optimal_steps, interference)


def test_configuration_rules():
    with pytest.raises(ValueError, match="even"):
        SGPConfig(dataset="generated", interference=3)
    with pytest.raises(ValueError, match="exceed the interference by at least 2"):
        SGPConfig(dataset="generated", interference=4, optimal_length=5)
    with pytest.raises(ValueError, match="set optimal_length"):
        SGPConfig(dataset="generated", interference=8)  # no paper length leaves a Manhattan sum of 6
    assert SGPConfig(dataset="generated", interference=8, optimal_length=14, num_geoms=11).lengths() == (14,)
    with pytest.raises(ValueError, match="set num_geoms"):
        SGPConfig(
            dataset="generated", interference=6, colors=["red", "blue"], shapes=["cube", "sphere"]
        )  # at most 4 geoms
    # the length bound counts the Manhattan sum: 2 geoms on 2x2 are at most 4 apart, plus detours
    assert (
        SGPConfig(
            dataset="generated", board_size=[2, 2], num_geoms=2, interference=2, optimal_length=6
        ).optimal_length
        == 6
    )
    with pytest.raises(ValueError, match="unreachable"):
        SGPConfig(dataset="generated", board_size=[2, 2], num_geoms=2, interference=2, optimal_length=8)
    with pytest.raises(ConfigError, match="option 'interference'.*even"):
        SlidingGeomTask(dataset="generated", interference=3)


def test_impossible_cell_is_a_config_error():
    # two geoms on an open 4x4 board step around each other: no detour of 4 is ever forced
    with pytest.raises(ConfigError, match="could not generate .* interference 4"):
        make_instance(get_board(4, 4), COLORS, SHAPES, 2, 8, 0, 0, interference=4)


WIRED = "interference" in inspect.getsource(SlidingGeomTask.instances)


@pytest.mark.skipif(not WIRED, reason="sgp.py must pass interference=cfg.interference to make_instance")
def test_task_generates_the_requested_interference():
    task = SlidingGeomTask(
        dataset="generated", board_size="5x5", num_geoms=13, optimal_length=12, interference=4
    )
    insts = task.instances(3, seed=0)
    assert [i.rep for i in insts] == [0, 1, 2]
    for inst in insts:
        check(inst, 12, 4)
    task.reset(insts[0])
    while not task.done:
        task.step(task.oracle_action("player"))
    assert task.outcome().success and task.outcome().steps == 12
