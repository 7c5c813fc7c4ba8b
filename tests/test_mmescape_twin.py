"""MM-Escape's fresh twins (`--set dataset=twin`): one generated room per paper scene, matched to its
difficulty statistics, new, deterministic, and as hard for the oracle and a random player."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from playbench.core.errors import ConfigError
from playbench.core.metrics import proportion
from playbench.core.registry import make_task
from playbench.core.twins import ALPHA, compare_distributions, paired_paper_id, twin_id
from playbench.tasks.mmescape.schema import EscapeInstance

SEEDS = (0, 1)
LEVELS = ("level1-", "level2-", "level3_note_first-", "level3_key_first-")
RANDOM_TRIALS = 3


@pytest.fixture(scope="module")
def paper() -> tuple[Any, list[EscapeInstance]]:
    task = make_task("mmescape/paper")
    return task, task.instances(None, 0)


@pytest.fixture(scope="module")
def twins() -> dict[int, tuple[Any, list[EscapeInstance]]]:
    out = {}
    for seed in SEEDS:
        task = make_task("mmescape/paper", dataset="twin")
        out[seed] = (task, task.instances(None, seed))
    return out


def _content(inst: EscapeInstance) -> dict[str, Any]:
    """An instance without its id and the oracle's figures: what a player meets."""
    return inst.model_dump(mode="json", exclude={"id", "optimal_steps", "optimal_distance", "source"})


def test_one_twin_per_paper_scene_in_order_with_paired_ids(paper, twins) -> None:
    _, papers = paper
    assert len(papers) == 43
    for seed, (_, insts) in twins.items():
        assert [t.id for t in insts] == [twin_id(p.id, seed) for p in papers]
        assert [paired_paper_id(t.id) for t in insts] == [p.id for p in papers]
        assert [t.level for t in insts] == [p.level for p in papers]
        assert [t.max_steps for t in insts] == [p.max_steps for p in papers]


def test_no_twin_equals_a_paper_scene_or_another_twin(paper, twins) -> None:
    _, papers = paper
    seen = [_content(p) for p in papers]
    for _, insts in twins.values():
        for t in insts:
            content = _content(t)
            assert content not in seen, t.id
            seen.append(content)
            assert t.source is None  # no file of the original behind it


def test_each_twin_falls_in_its_paper_scenes_bins(paper, twins) -> None:
    task, papers = paper

    def expected_bins(r: dict[str, Any]) -> tuple[Any, ...]:
        # whole metres; shares in quarters rounded half up
        return (
            r["chain_length"],
            r["props"],
            math.floor(r["dist_exit_m"]),
            math.floor(r["dist_props_m"]),
            math.floor(r["hidden"] * 4 + 0.5),
            math.floor(r["blocked"] * 4 + 0.5),
        )

    paper_records = [task.difficulty(p) for p in papers]
    assert [r["chain_length"] for r in paper_records[:11]] == [1] * 11  # the door alone
    assert {r["chain_length"] for r in paper_records[22:]} == {4}  # note/key, box, key/note, door
    for twin_task, insts in twins.values():
        for p, t, r in zip(papers, insts, paper_records, strict=True):
            assert expected_bins(twin_task.difficulty(t)) == expected_bins(r), (p.id, t.id)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_statistic_passes_the_two_sample_tests(paper, twins, seed) -> None:
    task, papers = paper
    twin_task, insts = twins[seed]
    p_records = [task.difficulty(p) for p in papers]
    t_records = [twin_task.difficulty(t) for t in insts]
    # pooled over the 43 scenes (the test with power), and per level (10-11 scenes each: only large
    # differences show there, see the README)
    for stat in compare_distributions(p_records, t_records):
        assert stat.passed, stat.line()
    for prefix in LEVELS:
        idx = [k for k, p in enumerate(papers) if p.id.startswith(prefix)]
        tests = compare_distributions([p_records[k] for k in idx], [t_records[k] for k in idx])
        assert all(s.p_value >= ALPHA for s in tests), [s.line() for s in tests if not s.passed]
    # the oracle's plan length is no matched statistic: it still has to come out alike
    steps = compare_distributions(
        [{"optimal_steps": p.optimal_steps} for p in papers],
        [{"optimal_steps": t.optimal_steps} for t in insts],
    )
    assert steps[0].passed, steps[0].line()


def _play(task: Any, insts: list[EscapeInstance], trials: int, oracle: bool) -> tuple[dict[str, Any], int]:
    """Success rate (Wilson 95%, the instance as the unit) and how many oracle games took exactly
    `optimal_steps`; the random player draws uniformly from the legal actions, as the `random` agent."""
    flags, units, exact = [], [], 0
    for inst in insts:
        for trial in range(trials):
            rng = random.Random(f"{inst.id}/{trial}")
            task.reset(inst)
            while not task.done:
                if oracle:
                    action = task.oracle_action(task.current_role())
                elif task.phase == "play":
                    action = rng.choice(task.legal_actions())
                else:
                    action = rng.choice(task.observe(task.current_role()).legal_actions)
                task.step(action)
            outcome = task.outcome()
            flags.append(outcome.success)
            units.append(inst.id)
            exact += oracle and outcome.steps == inst.optimal_steps
    return proportion(flags, units if trials > 1 else None), exact


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["ci95"][0] <= b["ci95"][1] and b["ci95"][0] <= a["ci95"][1]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_oracle_and_a_random_player_score_alike(paper, twins, seed) -> None:
    task, papers = paper
    twin_task, insts = twins[seed]
    oracle_twin, exact = _play(twin_task, insts, 1, oracle=True)
    assert oracle_twin["value"] == 1.0 and exact == len(insts)
    oracle_paper, _ = _play(task, papers, 1, oracle=True)
    assert _overlap(oracle_paper, oracle_twin)
    random_paper, _ = _play(task, papers, RANDOM_TRIALS, oracle=False)
    random_twin, _ = _play(twin_task, insts, RANDOM_TRIALS, oracle=False)
    assert _overlap(random_paper, random_twin), (random_paper, random_twin)


def test_twins_are_deterministic_and_cut_to_n(twins) -> None:
    _, insts = twins[0]
    fresh = make_task("mmescape/paper-level-2", dataset="twin")
    again = fresh._instances(3, 0)  # past the instance cache: generated anew
    by_id = {t.id: t for t in insts}
    assert [t.model_dump() for t in again] == [by_id[t.id].model_dump() for t in again]
    assert [t.id for t in again] == [twin_id(f"level2-{k}", 0) for k in (1, 2, 3)]


def test_the_twin_stamp_and_bad_uses(twins) -> None:
    task, _ = twins[0]
    assert task.data_origin() == "generated"
    assert make_task("mmescape/paper").data_origin().startswith("original@")
    for task_id in ("mmescape/level-2", "mmescape/paper-houses"):
        with pytest.raises(ConfigError, match="dataset=twin"):
            make_task(task_id, dataset="twin").instances(1, 0)
    with pytest.raises(ConfigError, match="dataset"):
        make_task("mmescape/paper", dataset="fresh")
