"""The contamination probe's figures: a model's success on a published set beside its success on a fresh
twin of that set (`core/twins.py`), instance by instance.

Each twin instance names the paper instance it was matched to, so the comparison is paired: per pair the
paper instance's success (its trials averaged) minus its twin's; the gap is the mean over pairs, in
percentage points, with a percentile bootstrap 95% interval over pairs (seeded: the same runs give the same
interval on every machine). Episodes that ended with an error are left out, as everywhere; a pair needs a
scored episode on both sides.

The verdict is a plain sentence that never overclaims: a gap is evidence consistent with memorised
instances, never proof of it (the sets may still differ in ways the difficulty statistics miss), and no gap
is not evidence that the model never saw the set.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from playbench.core.twins import paired_paper_id

BOOTSTRAP = 10_000
PROBE_FILE = "probe.json"


def _success_by_instance(records: Iterable[dict[str, Any]], twin: bool) -> dict[tuple[str, str], float]:
    trials: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        if r.get("error") is not None:
            continue
        instance = str(r["instance_id"])
        if twin:
            paired = paired_paper_id(instance)
            if paired is None:
                continue
            instance = paired
        trials[(r["task"], instance)].append(1.0 if r.get("success") else 0.0)
    return {key: sum(v) / len(v) for key, v in trials.items()}


def _interval(differences: np.ndarray, seed: int) -> tuple[float, float]:
    if len(differences) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(differences), size=(BOOTSTRAP, len(differences)))
    means = differences[picks].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _row(name: str, pairs: list[tuple[float, float]], seed: int) -> dict[str, Any]:
    paper = np.array([p for p, _ in pairs])
    twin = np.array([t for _, t in pairs])
    diff = (paper - twin) * 100
    lo, hi = _interval(diff, seed)
    return {
        "task": name,
        "pairs": len(pairs),
        "paper_success": float(paper.mean() * 100) if len(pairs) else None,
        "twin_success": float(twin.mean() * 100) if len(pairs) else None,
        "gap_pts": float(diff.mean()) if len(pairs) else None,
        "ci95": [lo, hi],
        "paper_better": int((diff > 0).sum()),
        "twin_better": int((diff < 0).sum()),
    }


def paired_gap(
    paper_records: Iterable[dict[str, Any]], twin_records: Iterable[dict[str, Any]], seed: int = 0
) -> dict[str, Any]:
    """Per task and pooled: pairs, success on each side, the gap (paper − twin, points) and its interval."""
    paper = _success_by_instance(paper_records, twin=False)
    twin = _success_by_instance(twin_records, twin=True)
    by_task: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in sorted(paper.keys() & twin.keys()):
        by_task[key[0]].append((paper[key], twin[key]))
    rows = [_row(task, pairs, seed) for task, pairs in sorted(by_task.items())]
    pooled = _row("all", [p for pairs in by_task.values() for p in pairs], seed)
    return {
        "tasks": rows,
        "all": pooled,
        "unpaired_paper": len(paper.keys() - twin.keys()),
        "unpaired_twin": len(twin.keys() - paper.keys()),
        "verdict": verdict(pooled),
    }


def verdict(row: dict[str, Any]) -> str:
    """One sentence on the pooled gap that says what it shows and what it does not."""
    n = row["pairs"]
    if not n:
        return "No instance was scored on both sides, so the probe says nothing."
    lo, hi = row["ci95"]
    figures = (
        f"{row['paper_success']:.1f}% on the published instances and {row['twin_success']:.1f}% on their fresh "
        f"twins ({n} pairs; gap {row['gap_pts']:+.1f} points"
    )
    if n < 2 or lo != lo:  # too few pairs for an interval (nan)
        return f"Solved {figures}); too few pairs for an interval, so no conclusion."
    figures += f", 95% interval [{lo:+.1f}, {hi:+.1f}])"
    if lo > 0:
        return (
            f"Solved {figures}: the model does better on the published set than on new instances of the same "
            "difficulty, as memorised instances would make it; this is evidence, not proof (the sets may differ "
            "in ways the matched statistics miss)."
        )
    if hi < 0:
        return (
            f"Solved {figures}: the model does better on the fresh twins, so nothing here suggests the "
            "published set was memorised (the twins may be easier in ways the matched statistics miss)."
        )
    return (
        f"Solved {figures}: no gap beyond chance at this sample size; this does not show the model never "
        "saw the published set."
    )


def write_probe(out: str | Path, suite: str, result: dict[str, Any], meta: dict[str, Any]) -> Path:
    path = Path(out) / PROBE_FILE
    path.write_text(json.dumps({"suite": suite, **meta, **result}, indent=2) + "\n", encoding="utf-8")
    return path


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}%"


def markdown(probe: dict[str, Any]) -> list[str]:
    """The probe as a Markdown section: one row per task and the pooled row, then the verdict."""
    lines = [
        f"### Contamination probe: {probe.get('suite', '?')} ({probe.get('model') or probe.get('agent', '')})",
        "",
        "| task | pairs | published set | fresh twins | gap (points) | 95% interval | paper better / twin better |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in [*probe["tasks"], probe["all"]]:
        lo, hi = row["ci95"]
        interval = "–" if lo != lo else f"[{lo:+.1f}, {hi:+.1f}]"
        gap = "–" if row["gap_pts"] is None else f"{row['gap_pts']:+.1f}"
        lines.append(
            f"| {row['task']} | {row['pairs']} | {_pct(row['paper_success'])} | {_pct(row['twin_success'])} | "
            f"{gap} | {interval} | {row['paper_better']} / {row['twin_better']} |"
        )
    lines += ["", probe["verdict"], ""]
    return lines


def find_probes(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """The probe.json files at the given folders or one level above them (a probe's paper/ and twin/ runs)."""
    seen: dict[Path, dict[str, Any]] = {}
    for given in paths:
        for folder in (Path(given), Path(given).parent):
            path = folder / PROBE_FILE
            if path.resolve() in seen or not path.is_file():
                continue
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and "all" in data and "tasks" in data:
                seen[path.resolve()] = data
    return list(seen.values())
