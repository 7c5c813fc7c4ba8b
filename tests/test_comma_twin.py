"""COMMA's twin set (`dataset=twin`): one new puzzle per puzzle of the authors' set, matched in difficulty.

The paper set's difficulty records ship as figures (`comma/data/paper_difficulty.json`, pinned); the
twin is built from them, so most tests need no clone. Tests that read the authors' clone (the figures
recomputed from it, the baselines on the paper set) run with the clone named by
`PLAYBENCH_COMMA_CLONE` and are skipped otherwise."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.metrics import mean, proportion
from playbench.core.originals import find_clone
from playbench.core.registry import make_task
from playbench.core.twins import compare_distributions, paired_paper_id, twin_id
from playbench.runner.episode import run_episode
from playbench.runner.model_pool import ModelPool
from playbench.runner.run import RunConfig, plan_run
from playbench.tasks.comma.config import CommaConfig
from playbench.tasks.comma.instances import paper_instance
from playbench.tasks.comma.modules import NAMES, module_class
from playbench.tasks.comma.originals import NAME, PUZZLES
from playbench.tasks.comma.paper_figures import figures_from_clone, write_figures
from playbench.tasks.comma.paper_set import PAPER_MODULES
from playbench.tasks.comma.twin import content_digest, paper_figures, paper_records

SEEDS = (0, 1)  # the default twin and one other
EIGHT = [n for n in NAMES if n in PAPER_MODULES]
NOT_STATS = ("id", "module", "content")


def paper_stats(name: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in NOT_STATS} for r in paper_records(name)]


def clone_path() -> Path:
    """The authors' clone named by PLAYBENCH_COMMA_CLONE (the tests' originals folder is empty)."""
    clone = (
        find_clone(NAME, os.environ["PLAYBENCH_COMMA_CLONE"])
        if os.environ.get("PLAYBENCH_COMMA_CLONE")
        else None
    )
    if clone is None:
        pytest.skip("set PLAYBENCH_COMMA_CLONE to a clone of pschwendy/multimodal_comms")
    return clone.path


def test_the_shipped_figures_hold_numbers_and_categories_of_the_eight_puzzles_only():
    figures = paper_figures()  # checks the pinned digest
    assert figures["source"]["file"] == PUZZLES and re.fullmatch(r"[0-9a-f]{40}", figures["source"]["commit"])
    counts = Counter(r["module"] for r in figures["records"])
    assert counts == {name: 100 for name in EIGHT}
    assert set(EIGHT) == PAPER_MODULES and set(NAMES) - PAPER_MODULES == {"button", "dog"}
    for r in figures["records"]:
        assert re.fullmatch(rf"{r['module']}-\d{{4}}", r["id"]) and re.fullmatch(
            r"[0-9a-f]{16}", r["content"]
        )
        for key, value in r.items():
            if key not in NOT_STATS:  # a count, or a short category name (a position, a colour), no text
                assert isinstance(value, int) or re.fullmatch(r"[a-z0-9_]{1,12}", value), (key, value)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_statistic_of_every_puzzles_twin_matches_the_paper_set(seed):
    for name in EIGHT:
        task = make_task(f"comma/{name}", dataset="twin")
        twin = task.instances(None, seed)
        records = [task.difficulty(t) for t in twin]
        tests = compare_distributions(paper_stats(name), records)
        assert {t.name for t in tests} == set(paper_stats(name)[0])
        assert all(t.passed for t in tests), [t.line() for t in tests if not t.passed]
        for paper, t, record in zip(paper_records(name), twin, records, strict=True):
            assert t.id == twin_id(paper["id"], seed) and paired_paper_id(t.id) == paper["id"]
            assert record == {k: v for k, v in paper.items() if k not in NOT_STATS}  # matched exactly


@pytest.mark.parametrize("seed", SEEDS)
def test_twins_are_new_and_the_oracle_pair_solves_them_in_their_optimal_steps(seed):
    for name in EIGHT:
        paper_contents = {r["content"] for r in paper_records(name)}
        twin = make_task(f"comma/{name}", dataset="twin").instances(None, seed)
        assert not [t.id for t in twin if content_digest(module_class(name)(t.params)) in paper_contents]
    # the oracle pair through the runner, on the first twins of every puzzle
    config = RunConfig(
        tasks=["comma/all"], agents={"*": AgentSpec("oracle")}, out="unused", seed=seed, episodes=16,
        task_options={"dataset": "twin"}, save_images=False, save_calls=False,
    )  # fmt: skip
    records = asyncio.run(_play(config))
    assert sorted(r["metrics"]["module"] for r in records) == sorted(EIGHT * 2)
    assert all(r["success"] and r["steps"] == r["optimal_steps"] for r in records)


def test_the_twin_is_deterministic_and_depends_only_on_seed_and_paper_puzzle():
    first = make_task("comma/all", dataset="twin").instances(None, 0)
    assert len(first) == 800 and [t.module for t in first[:8]] == EIGHT  # round robin, as the paper set
    again = make_task("comma/all", dataset="twin").instances(None, 0)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in first]
    # a prefix, a per-puzzle task and a smaller set give the same twins
    by_id = {t.id: t.model_dump() for t in first}
    for task_id, n in (("comma/all", 20), ("comma/maze", 7), ("comma/led", None)):
        for t in make_task(task_id, dataset="twin", instances_per_module=30).instances(n, 0):
            assert t.model_dump() == by_id[t.id]
    other = make_task("comma/all", dataset="twin").instances(None, 1)
    assert sum(a.params == b.params for a, b in zip(first, other, strict=True)) < 40  # memory has few puzzles


def test_puzzles_the_paper_set_lacks_have_no_twin_and_say_so():
    for name in ("button", "dog"):
        with pytest.raises(ConfigError, match=f"holds no {name} puzzles"):
            make_task(f"comma/{name}", dataset="twin").instances(2, 0)
    with pytest.raises(ConfigError, match="holds 100 wire puzzles"):
        make_task("comma/wire", dataset="twin", instances_per_module=200).instances(101, 0)
    with pytest.raises(ConfigError, match="dataset"):
        make_task("comma/wire", dataset="paper")
    assert make_task("comma/all", dataset="twin").data_origin() == "generated"


def test_figures_are_computed_from_a_clone_in_the_authors_format(tmp_path):
    """A two-puzzle set in the format of their `puzzles_final.json` (a fixture written here)."""
    entries = [
        {"SimpleWirePuzzle": {"n_wires": 3, "colors": ["blue", "blue", "red"]}},
        {"TelehealthPuzzle": {"skin_lesion_idx": 3}},  # not a COMMA paper puzzle: left out
        {"MemoryPuzzle": {"display_text": 3}},
    ]
    file = tmp_path / PUZZLES
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps(entries))
    figures = figures_from_clone(tmp_path)
    wire, memory = figures["records"]
    # three wires, one red, the last not white, two blue: the last blue wire (manual, 3 wires)
    assert {k: wire[k] for k in ("id", "wires", "answer_wire")} == {
        "id": "wire-0000",
        "wires": 3,
        "answer_wire": 2,
    }
    assert memory["id"] == "memory-0000" and memory["first_display"] == 3
    config = CommaConfig(puzzles=str(file))
    assert wire["optimal_steps"] == paper_instance("wire", 0, config).optimal_steps == 2
    out = tmp_path / "figures.json"
    write_figures(figures, out)
    assert json.loads(out.read_text()) == figures


def test_the_shipped_figures_are_those_of_the_authors_clone(tmp_path):
    clone = clone_path()
    out = tmp_path / "figures.json"
    write_figures(figures_from_clone(clone), out)
    assert json.loads(out.read_text())["records"] == paper_figures()["records"]
    # with the clone the paper set is the clone's, and the twin is the same as without it
    paper = make_task("comma/keypad", puzzles=str(clone / PUZZLES)).instances(None, 0)
    assert [make_task("comma/keypad").difficulty(p) for p in paper] == paper_stats("keypad")
    with_clone = make_task("comma/keypad", dataset="twin", puzzles=str(clone / PUZZLES)).instances(None, 0)
    assert with_clone == make_task("comma/keypad", dataset="twin").instances(None, 0)


async def _play(config: RunConfig) -> list[dict[str, Any]]:
    return [(await run_episode(job, ModelPool(), save_images=False)).record for job in plan_run(config).jobs]


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The two 95% intervals overlap (a set where every episode scores alike has a point interval)."""
    (alo, ahi), (blo, bhi) = a["ci95"] or (a["value"],) * 2, b["ci95"] or (b["value"],) * 2
    return alo <= bhi and blo <= ahi


def test_oracle_and_random_agents_score_alike_on_paper_set_and_twin():
    """The default twin, the first 6 puzzles of each of the eight (48 episodes per agent and set),
    success (Wilson) and partial score (t) pooled; the whole set, per puzzle and for seeds 0 and 1:
    scripts/comma_twin_baselines.py (README)."""
    seed = 0
    puzzles = str(clone_path() / PUZZLES)
    for agent in ("oracle", "random"):
        runs: dict[str, list[dict[str, Any]]] = {"default": [], "twin": []}
        for dataset, records in runs.items():
            for name in EIGHT:
                config = RunConfig(
                    tasks=[f"comma/{name}"], agents={"*": AgentSpec(agent)}, out="unused", seed=seed, episodes=6,
                    task_options={"dataset": dataset, "puzzles": puzzles}, save_images=False, save_calls=False,
                )  # fmt: skip
                records += asyncio.run(_play(config))
        assert [paired_paper_id(r["instance_id"]) for r in runs["twin"]] == [
            r["instance_id"] for r in runs["default"]
        ]
        success = {ds: proportion([r["success"] for r in recs]) for ds, recs in runs.items()}
        partial = {ds: mean([r["metrics"]["partial_score"] for r in recs], "t") for ds, recs in runs.items()}
        assert overlap(success["default"], success["twin"]), (agent, success)
        assert overlap(partial["default"], partial["twin"]), (agent, partial)
        if agent == "oracle":
            assert success["twin"]["value"] == success["default"]["value"] == 1.0
