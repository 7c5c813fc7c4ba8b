"""iVISPAR's twin set (`dataset=twin`): one new board per paper board, matched in difficulty.

Every statistic of `Task.difficulty` is compared between the paper's 300 boards and the twin
(`core.twins.compare_distributions`, p >= ALPHA) for the default seed and another one; the twins are
new (no twin is a paper board), solvable in exactly their optimal length, deterministic, and the
oracle's and the random agent's results on both sets agree within their 95% intervals."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.metrics import mean, proportion
from playbench.core.registry import make_task
from playbench.core.twins import ALPHA, compare_distributions, paired_paper_id, twin_id
from playbench.runner.episode import run_episode
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import RunConfig, plan_run
from playbench.tasks.ivispar.board import manhattan_sum
from playbench.tasks.ivispar.schema import SGPInstance
from playbench.tasks.ivispar.solver import Solver
from playbench.tasks.ivispar.twin import content_key, twin_instances

SEEDS = (0, 1)  # the default twin and one other
# the statistics drawn to equal the paper board's; the others are only tested in distribution
EXACT = ("num_geoms", "optimal_length", "board", "colors", "shapes", "moved_geoms")


def sets(seed: int) -> tuple[list[SGPInstance], list[SGPInstance]]:
    task = make_task("ivispar/sgp")
    paper = task.instances(None, seed)
    twin = make_task("ivispar/sgp", dataset="twin").instances(None, seed)
    return paper, twin  # type: ignore[return-value]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_statistic_of_the_twin_matches_the_paper_set(seed):
    task = make_task("ivispar/sgp")
    paper, twin = sets(seed)
    assert len(twin) == len(paper) == 300
    paper_records = [task.difficulty(p) for p in paper]
    twin_records = [task.difficulty(t) for t in twin]
    tests = compare_distributions(paper_records, twin_records)
    assert {t.name for t in tests} == set(paper_records[0])
    assert all(t.passed for t in tests), [t.line() for t in tests if not t.passed]
    assert all(t.p_value >= ALPHA for t in tests)
    # each twin equals its own paper board on the matched statistics
    for p, t, rp, rt in zip(paper, twin, paper_records, twin_records, strict=True):
        assert paired_paper_id(t.id) == p.id and t.id == twin_id(p.id, seed)
        assert {k: rt[k] for k in EXACT} == {k: rp[k] for k in EXACT}


@pytest.mark.parametrize("seed", SEEDS)
def test_twins_are_new_solvable_in_their_optimal_length_and_interference_free(seed):
    paper, twin = sets(seed)
    paper_keys = {content_key(p) for p in paper}
    assert not [t.id for t in twin if content_key(t) in paper_keys]
    for t in twin:
        board, start, goal = t.board(), t.start_state(), t.goal_state()
        assert Solver(board, goal).distance(start) == t.optimal_steps == len(t.solution or [])
        assert manhattan_sum(board, start, goal) == t.optimal_steps  # interference 0, as the paper's


def test_the_twin_set_is_deterministic_and_depends_only_on_seed_and_paper_board():
    first = twin_instances(None, 0, None, None)
    assert [t.model_dump() for t in twin_instances(None, 0, None, None)] == [t.model_dump() for t in first]
    other = twin_instances(None, 1, None, None)
    assert sum(content_key(a) == content_key(b) for a, b in zip(first, other, strict=True)) < 5
    # a prefix or a filter gives the same twins as the whole set
    assert [t.id for t in twin_instances(7, 0, None, None)] == [t.id for t in first[:7]]
    filtered = twin_instances(None, 0, 5, None)
    by_id = {t.id: t for t in first}
    assert filtered and all(t.num_geoms == 5 for t in filtered)
    assert all(content_key(t) == content_key(by_id[t.id]) for t in filtered)


def test_every_modality_and_board_inference_play_the_same_twin():
    ids = ["ivispar/sgp", "ivispar/sgp-2d", "ivispar/sgp-3d"]
    boards = [make_task(i, dataset="twin").instances(10, 3) for i in ids]
    assert all([content_key(b) for b in bs] == [content_key(b) for b in boards[0]] for bs in boards)
    sgp = make_task("ivispar/sgp")
    for tid in ("ivispar/board-inference", "ivispar/board-inference-3d"):
        task = make_task(tid, dataset="twin")
        shown = task.instances(10, 3)
        assert [b.id for b in shown] == [b.id for b in boards[0]]
        assert [task.difficulty(b) for b in shown] == [sgp.difficulty(b) for b in boards[0]]
        assert task.data_origin() == "generated"


def test_the_twin_is_refused_on_other_boards_with_a_message_naming_it():
    for tid in ("ivispar/sgp", "ivispar/board-inference"):
        with pytest.raises(ConfigError, match="dataset=twin"):
            make_task(tid, dataset="twin", board_size="5x5")
    with pytest.raises(ConfigError, match="dataset=twin"):
        make_task("ivispar/sgp", dataset="twin", interference=2, num_geoms=5)


def test_the_whole_twin_set_is_generated_in_seconds():
    started = time.perf_counter()
    twin_instances(None, 12345, None, None)
    assert time.perf_counter() - started < 20


def play(task_id: str, agent: str, dataset: str, seed: int, **options: Any) -> list[dict[str, Any]]:
    config = RunConfig(
        tasks=[task_id],
        agents={"*": AgentSpec(agent)},
        out="unused",
        seed=seed,
        task_options={"dataset": dataset, **options},
        save_images=False,
        save_calls=False,
    )

    async def go() -> list[dict[str, Any]]:
        return [
            (await run_episode(job, ModelPool(), save_images=False)).record for job in plan_run(config).jobs
        ]

    return asyncio.run(go())


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Each set's estimate lies inside the other's 95% interval."""
    (alo, ahi), (blo, bhi) = a["ci95"], b["ci95"]
    return blo <= a["value"] <= bhi and alo <= b["value"] <= ahi


@pytest.mark.parametrize("seed", SEEDS)
def test_oracle_and_random_agents_score_alike_on_paper_set_and_twin(seed):
    for agent in ("oracle", "random"):
        runs = {ds: play("ivispar/sgp", agent, ds, seed) for ds in ("paper", "twin")}
        assert all(len(r) == 300 for r in runs.values())
        rates = {ds: proportion([r["success"] for r in recs]) for ds, recs in runs.items()}
        assert agree(rates["paper"], rates["twin"]), rates
        deviation = {
            ds: mean(
                [r["metrics"]["step_deviation"] for r in recs if r["metrics"]["step_deviation"] is not None],
                "t",
            )
            for ds, recs in runs.items()
        }
        if agent == "oracle":
            assert rates["twin"]["value"] == 1.0 and deviation["twin"]["value"] == 0.0
        else:  # the paper's main measure, step deviation, on the random baseline
            assert agree(deviation["paper"], deviation["twin"]), deviation


def test_board_inference_baselines_score_alike_on_paper_set_and_twin():
    for agent in ("oracle", "random"):
        runs = {ds: play("ivispar/board-inference", agent, ds, 0, image_size=96) for ds in ("paper", "twin")}
        rates = {ds: proportion([r["success"] for r in recs]) for ds, recs in runs.items()}
        assert agree(rates["paper"], rates["twin"]), rates
        correct = {ds: mean([r["metrics"]["correct"] for r in recs], "t") for ds, recs in runs.items()}
        assert agree(correct["paper"], correct["twin"]), correct
