"""Theory of Space's fresh twins (`--set dataset=twin`): one generated world per reference scene with
the same rooms, objects and exploration cost; new, deterministic, as hard for the oracle and a random
explorer; the same twin from the authors' scenes and from their shipped figures."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_tos_scenes import write_scenes

from playbench.core.errors import ConfigError
from playbench.core.metrics import mean, proportion
from playbench.core.registry import make_task
from playbench.core.twins import compare_distributions, paired_paper_id, twin_id
from playbench.tasks.tos import twins as tos_twins
from playbench.tasks.tos.instances import oracle_poses
from playbench.tasks.tos.scenes import load_scenes

SEEDS = (0, 1)


@pytest.fixture(scope="module")
def reference() -> tuple[Any, list[Any]]:
    """No figures ship yet (README): the reference is the generator's default set at seed 0."""
    assert not tos_twins.PAPER_FIGURES.exists()
    task = make_task("tos/explore")
    return task, task.instances(None, 0)


@pytest.fixture(scope="module")
def twin_sets() -> dict[int, tuple[Any, list[Any]]]:
    out = {}
    for seed in SEEDS:
        task = make_task("tos/explore", dataset="twin")
        out[seed] = (task, task.instances(None, seed))
    return out


def _stats(inst: Any) -> dict[str, int]:
    # computed here from the world and the oracle's plan, not by the task's own `difficulty`
    return {
        "rooms": len(inst.world.rooms),
        "objects": len(inst.world.objects),
        "exploration_cost": len(oracle_poses(inst.world)),
    }


def _world(inst: Any) -> dict[str, Any]:
    return inst.world.model_dump(mode="json", exclude={"source"})


def test_one_twin_per_reference_world_in_order_with_equal_statistics(reference, twin_sets) -> None:
    task, refs = reference
    assert len(refs) == 100
    for seed, (twin_task, insts) in twin_sets.items():
        assert [t.id for t in insts] == [twin_id(r.id, seed) for r in refs]
        assert [paired_paper_id(t.id) for t in insts] == [r.id for r in refs]
        for r, t in zip(refs, insts, strict=True):
            assert _stats(t) == _stats(r), t.id
            assert twin_task.difficulty(t) == _stats(t)
            assert t.optimal_steps == _stats(t)["exploration_cost"] + 1  # the Observe turns, then Term()
        tests = compare_distributions(
            [task.difficulty(r) for r in refs], [twin_task.difficulty(t) for t in insts]
        )
        assert {s.name for s in tests} == {"rooms", "objects", "exploration_cost"}
        assert all(s.passed for s in tests), [s.line() for s in tests]


def test_no_twin_world_equals_a_reference_world_or_another_twin(reference, twin_sets) -> None:
    _, refs = reference
    seen = [_world(r) for r in refs]
    for _, insts in twin_sets.values():
        for t in insts:
            assert _world(t) not in seen, t.id
            seen.append(_world(t))


def _play(task: Any, insts: list[Any], oracle: bool) -> tuple[dict[str, Any], dict[str, Any], int]:
    """Success (Wilson 95%), mean coverage (bootstrap 95%) and the oracle games that took exactly
    `optimal_steps`; the random explorer draws uniformly from the listed actions, as the `random` agent."""
    wins, coverage, exact = [], [], 0
    for inst in insts:
        rng = random.Random(inst.id)
        task.reset(inst)
        while not task.done:
            role = task.current_role()
            task.step(task.oracle_action(role) if oracle else rng.choice(task.observe(role).legal_actions))
        out = task.outcome()
        wins.append(out.success)
        coverage.append(out.metrics["coverage"])
        exact += out.steps == inst.optimal_steps
    return proportion(wins), mean(coverage), exact


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["ci95"][0] <= b["ci95"][1] and b["ci95"][0] <= a["ci95"][1]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_oracle_and_a_random_explorer_score_alike(reference, twin_sets, seed) -> None:
    task, refs = reference
    twin_task, insts = twin_sets[seed]
    wins, _, exact = _play(twin_task, insts, oracle=True)
    assert wins["value"] == 1.0 and exact == len(insts)
    ref_wins, ref_cov, _ = _play(task, refs, oracle=False)
    twin_wins, twin_cov, _ = _play(twin_task, insts, oracle=False)
    assert _overlap(ref_wins, twin_wins), (ref_wins, twin_wins)
    assert _overlap(ref_cov, twin_cov), (ref_cov, twin_cov)


def test_twins_are_deterministic_and_cut_to_n(twin_sets) -> None:
    _, insts = twin_sets[0]
    again = make_task("tos/explore", dataset="twin")._instances(4, 0)  # past the instance cache
    assert [t.model_dump() for t in again] == [t.model_dump() for t in insts[:4]]


def test_question_twins_pair_each_question_with_the_references() -> None:
    refs = make_task("tos/pairwise-direction").instances(6, 0)
    twins = make_task("tos/pairwise-direction", dataset="twin").instances(6, 0)
    assert [paired_paper_id(t.id) for t in twins] == [r.id for r in refs]
    per = make_task("tos/pairwise-direction").config.questions_per_scene
    # the questions of one reference world are asked about one twin world
    assert len({json.dumps(_world(t), sort_keys=True) for t in twins[:per]}) == 1
    assert all(t.question for t in twins)
    fb = make_task("tos/false-belief", dataset="twin").instances(2, 0)
    assert [paired_paper_id(t.id) for t in fb] == [f"tos-false-belief-r3o4-s0-000{k}" for k in (0, 1)]
    assert all(t.changes for t in fb)


def test_scenes_and_their_shipped_figures_give_the_same_twin(tmp_path: Path, monkeypatch) -> None:
    root = write_scenes(tmp_path / "3-room")
    from_scenes = make_task("tos/explore", dataset="twin", scenes=str(root)).instances(None, 3)
    scenes = load_scenes(root)
    assert [t.id for t in from_scenes] == [twin_id(f"tos-explore-{s.world.source}", 3) for s in scenes]
    for scene, t in zip(scenes, from_scenes, strict=True):
        assert _stats(t) == {
            "rooms": len(scene.world.rooms),
            "objects": len(scene.world.objects),
            "exploration_cost": len(oracle_poses(scene.world)),
        }
    figures = tmp_path / "paper_difficulty.json"
    text = json.dumps(tos_twins.figures_from_scenes(root, "abc123"), indent=1) + "\n"
    assert "pos" not in text and "name" not in text  # figures only: no positions, no object names
    figures.write_text(text)
    monkeypatch.setattr(tos_twins, "PAPER_FIGURES", figures)
    monkeypatch.setattr(tos_twins, "PAPER_FIGURES_SHA256", "0" * 64)
    with pytest.raises(ConfigError, match="pinned"):
        make_task("tos/explore", dataset="twin").instances(None, 3)
    monkeypatch.setattr(tos_twins, "PAPER_FIGURES_SHA256", hashlib.sha256(text.encode()).hexdigest())
    from_figures = make_task("tos/explore", dataset="twin", default_set=7).instances(None, 3)
    assert [t.model_dump() for t in from_figures] == [t.model_dump() for t in from_scenes]


def test_the_stamp_and_bad_uses() -> None:
    assert make_task("tos/explore", dataset="twin").data_origin() == "generated"
    with pytest.raises(ConfigError, match="layout=grid"):
        make_task("tos/explore", dataset="twin", layout="grid").instances(1, 0)
    with pytest.raises(ConfigError, match="dataset"):
        make_task("tos/explore", dataset="fresh")
