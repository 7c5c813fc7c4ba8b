"""The twin of the authors' twenty VisEscape rooms (`dataset=twin`, issue 30): built from the shipped figures,
matched in difficulty, new, deterministic, and playable under `visescape/original` without a clone."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from playbench.core.registry import make_task
from playbench.core.task import instance_set_digest
from playbench.core.twins import compare_distributions, paired_paper_id, twin_id
from playbench.tasks.visescape.difficulty import STATISTICS
from playbench.tasks.visescape.generated import PAPER_FIGURES, PAPER_FIGURES_SHA256, paper_figures
from playbench.tasks.visescape.rooms import as_played, load_room, room_ids
from playbench.tasks.visescape.twin_check import overlap, play_oracle, play_random, rate

CLONE = os.environ.get("PLAYBENCH_VISESCAPE_CLONE") or (
    "/work/originals/VisEscape-demo" if Path("/work/originals/VisEscape-demo/assets").is_dir() else None
)


def _twin(seed: int):
    task = make_task("visescape/generated", dataset="twin")
    return task, task.instances(None, seed)


def _paper_records() -> list[dict]:
    return [{k: v for k, v in r.items() if k != "id"} for r in paper_figures()]


def test_the_shipped_figures_are_pinned_and_hold_only_ids_and_numbers() -> None:
    raw = PAPER_FIGURES.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == PAPER_FIGURES_SHA256
    data = json.loads(raw)
    assert data["commit"].startswith("9f65b99")
    rooms = data["rooms"]
    assert [r["id"] for r in rooms] == [f"room{k}" for k in range(1, 21)]
    for r in rooms:
        assert set(r) == {"id", *STATISTICS}
        assert all(isinstance(r[k], int) for k in STATISTICS)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_statistic_of_the_twin_matches_the_paper_set(seed: int) -> None:
    task, twins = _twin(seed)
    records = [task.difficulty(i) for i in twins]
    tests = compare_distributions(_paper_records(), records)
    assert {t.name for t in tests} == set(STATISTICS)
    assert all(t.passed for t in tests), "\n".join(t.line() for t in tests)
    # most twins equal their own paper room on every statistic built or searched for
    paper = _paper_records()
    matched = ("receptacles", "items", "quizzes", "chain_depth", "hint_stalls", "optimal_steps")
    exact = sum(all(r[k] == p[k] for k in matched) for r, p in zip(records, paper, strict=True))
    assert exact >= 14


def test_twins_are_paired_in_the_paper_order_and_new() -> None:
    task, twins = _twin(0)
    paper_ids = [r["id"] for r in paper_figures()]
    assert [i.id for i in twins] == [twin_id(p, 0) for p in paper_ids]
    assert [paired_paper_id(i.id) for i in twins] == paper_ids
    assert not {i.id for i in twins} & set(paper_ids)
    rooms = [json.dumps(i.room_data, sort_keys=True) for i in twins]
    assert len(set(rooms)) == len(rooms)
    own = {
        json.dumps(
            as_played(load_room(r)).model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True
        )
        for r in room_ids()
    }
    assert not set(rooms) & own


def test_the_twin_is_deterministic_and_each_seed_is_another_set() -> None:
    a = instance_set_digest(_twin(0)[1])
    assert a == instance_set_digest(make_task("visescape/generated", dataset="twin").instances(None, 0))
    assert a != instance_set_digest(_twin(1)[1])


def test_the_paper_ids_play_the_twin_without_a_clone(monkeypatch) -> None:
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", "/nonexistent-originals")
    task = make_task("visescape/original", dataset="twin")
    task.preflight()  # no refusal: the twin needs no clone
    assert task.data_origin() == "generated"
    assert instance_set_digest(task.instances(None, 0)) == instance_set_digest(_twin(0)[1])
    hint = make_task("visescape/original-hint", dataset="twin")
    assert hint.config.hints is True
    only = make_task("visescape/original", dataset="twin", rooms="room4").instances(None, 0)
    assert [i.id for i in only] == [twin_id("room4", 0)]
    with pytest.raises(Exception, match="dataset"):
        make_task("visescape/original", dataset="mirror")


def test_oracle_and_random_rates_on_the_twin_agree_with_the_paper_set() -> None:
    task, twins = _twin(0)
    twin_oracle = rate([play_oracle(task, i)[0] for i in twins])
    twin_random = rate([play_random(task, i) for i in twins])
    if CLONE is None:
        pytest.skip("the authors' rooms' rates need a clone (PLAYBENCH_VISESCAPE_CLONE)")
    original = make_task("visescape/original", source=CLONE)
    rooms = original.instances(None, 0)
    paper_oracle = rate([play_oracle(original, i)[0] for i in rooms])
    paper_random = rate([play_random(original, i) for i in rooms])
    assert overlap(twin_oracle[1], paper_oracle[1]), (twin_oracle, paper_oracle)
    assert overlap(twin_random[1], paper_random[1]), (twin_random, paper_random)


@pytest.mark.skipif(
    CLONE is None, reason="set PLAYBENCH_VISESCAPE_CLONE to a clone of pull-ups/VisEscape-demo"
)
def test_the_script_recomputes_the_shipped_figures_from_the_clone() -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
    from visescape_paper_figures import room_figures

    from playbench.tasks.visescape.original.clone import open_clone

    clone = open_clone(CLONE)
    shipped = {r["id"]: r for r in paper_figures()}
    for room in ("room7", "room13", "room18"):  # the quick ones (room 4 takes half a minute)
        assert {"id": room, **room_figures(clone, room)} == shipped[room]
