"""The twin kernel: ids that name their paper instance, and the two-sample checks every suite's twin runs."""

from __future__ import annotations

import random

import pytest

from playbench.core.twins import ALPHA, compare_distributions, paired_paper_id, twin_id


@pytest.mark.parametrize("paper_id", ["button-0007", "room-01", "a.b-c", "sgp_4x4_3.twin"])
def test_a_twin_id_names_its_paper_instance(paper_id: str) -> None:
    assert paired_paper_id(twin_id(paper_id, 3)) == paper_id
    assert paired_paper_id(paper_id) is None


def test_the_same_distribution_passes_and_a_shifted_one_fails() -> None:
    rng = random.Random(0)
    paper = [{"length": rng.randint(4, 12), "kind": rng.choice("ab")} for _ in range(300)]
    same = [{"length": rng.randint(4, 12), "kind": rng.choice("ab")} for _ in range(300)]
    assert all(t.passed for t in compare_distributions(paper, same))
    longer = [{"length": rng.randint(8, 16), "kind": "a"} for _ in range(300)]
    failed = {t.name for t in compare_distributions(paper, longer) if not t.passed}
    assert failed == {"length", "kind"}
    assert all(t.p_value < ALPHA for t in compare_distributions(paper, longer))


def test_a_missing_statistic_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="'depth'"):
        compare_distributions([{"depth": 1}], [{"other": 1}])
