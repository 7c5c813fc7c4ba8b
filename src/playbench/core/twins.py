"""Fresh twins: new instance sets matched in difficulty to a published set, one twin per paper instance.

A published set ends up in training data; a twin of it (`--set dataset=twin`, seedable) is new, drawn by
the suite's generator so that every difficulty statistic the suite names (`Task.difficulty`) has the
paper set's distribution. Each twin instance is paired with the paper instance it was matched to, and its
id says which (`twin_id`), so a paired comparison (`playbench probe contamination`) needs no side table
and the instance schemas, hence the published sets' digests, stay as they are.

`compare_distributions` is the check every suite's twin test runs: per statistic a two-sample test
(Kolmogorov-Smirnov for numbers, chi-square on the categories' counts for the rest) whose p-value must stay
above `ALPHA`: a twin is rejected when its statistics differ from the paper set's more than chance does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A twin fails a statistic when the two-sample test says p < ALPHA. 0.01 rather than 0.05: a suite has
# several statistics, and one chance failure in twenty would make the tests flaky across seeds.
ALPHA = 0.01
TWIN_MARK = ".twin-s"


def twin_id(paper_id: str, seed: int) -> str:
    """The id of the twin of `paper_id` drawn with `seed` (`button-0007.twin-s0`)."""
    return f"{paper_id}{TWIN_MARK}{seed}"


def paired_paper_id(instance_id: str) -> str | None:
    """The paper instance a twin instance was matched to, or None for an instance that is no twin."""
    head, mark, seed = instance_id.rpartition(TWIN_MARK)
    return head if mark and seed.lstrip("-").isdigit() and head else None


@dataclass(frozen=True)
class StatTest:
    """One difficulty statistic compared between the paper set and a twin."""

    name: str
    kind: str  # "numeric" (Kolmogorov-Smirnov) or "categorical" (chi-square)
    paper: str  # a short summary: mean and range, or the categories' counts
    twin: str
    p_value: float

    @property
    def passed(self) -> bool:
        return self.p_value >= ALPHA

    def line(self) -> str:
        verdict = "ok" if self.passed else f"DIFFERS (p < {ALPHA})"
        return f"{self.name} [{self.kind}]: paper {self.paper}; twin {self.twin}; p = {self.p_value:.3g} {verdict}"


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _summary(values: Sequence[Any]) -> str:
    if _numeric(values):
        mean = sum(values) / len(values) if values else math.nan
        return f"mean {mean:.3g}, range {min(values, default=0):g}..{max(values, default=0):g}"
    counts: dict[str, int] = {}
    for v in values:
        counts[str(v)] = counts.get(str(v), 0) + 1
    return ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()))


def compare_distributions(
    paper: Sequence[Mapping[str, Any]], twin: Sequence[Mapping[str, Any]]
) -> list[StatTest]:
    """Every statistic of the paper set's difficulty records (`Task.difficulty` of each instance) tested
    against the twin's. A statistic missing from a twin record is an error, not a skip."""
    from scipy import stats

    if not paper or not twin:
        raise ValueError("compare_distributions needs instances on both sides")
    names = sorted({k for record in paper for k in record})
    out = []
    for name in names:
        missing = [i for i, record in enumerate(twin) if name not in record]
        if missing:
            raise ValueError(f"the twin's instance {missing[0]} has no difficulty statistic '{name}'")
        a = [record[name] for record in paper if name in record]
        b = [record[name] for record in twin]
        if _numeric(a) and _numeric(b):
            # both constant and equal: nothing to tell apart
            p = 1.0 if len(set(a) | set(b)) == 1 else float(stats.ks_2samp(a, b).pvalue)
            kind = "numeric"
        else:
            categories = sorted({str(v) for v in [*a, *b]})
            if len(categories) == 1:
                p = 1.0
            else:
                table = [[sum(1 for v in side if str(v) == c) for c in categories] for side in (a, b)]
                p = float(stats.chi2_contingency(table).pvalue)
            kind = "categorical"
        out.append(StatTest(name, kind, _summary(a), _summary(b), p))
    return out
