"""VisEscape metrics beyond the per-episode ones: repetition, GC progression, per-room tables.

- GC progression (paper Figure 9): GC after each of the first 100 steps, averaged over episodes;
  an episode that ended earlier keeps its final GC.
- Essential scenes (paper Figure 8): the share of the scenes on the oracle's path seen at least once,
  after each of the first 100 steps (`essential_curve`), averaged like GC.
- Repetition (paper Figure 5/10): an action repeated in an identical situation (same full game
  state) counts once per attempt; the histogram gives, for 2..9 and 10+ attempts, the share of all
  actions that belong to (situation, action) pairs tried that many times.
"""

from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Any

PROGRESS_STEPS = 100
REPEAT_BUCKETS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10+")


def per_lock(wrong: dict[str, set[str]], locks: list[str]) -> float:
    """Mean number of distinct wrong answers entered per lock of the room."""
    if not locks:
        return 0.0
    return sum(len(wrong.get(lock, ())) for lock in locks) / len(locks)


def repeat_histogram(situations: Counter[Any], steps: int) -> list[float]:
    hist = [0.0] * len(REPEAT_BUCKETS)
    if steps <= 0:
        return hist
    for count in situations.values():
        if count >= 2:
            hist[min(count, 10) - 2] += count / steps
    return [round(x, 5) for x in hist]


def repeated_ratio(situations: Counter[Any], steps: int) -> float:
    if steps <= 0:
        return 0.0
    return sum(c for c in situations.values() if c >= 2) / steps


def progression(curves: list[list[float]], length: int = PROGRESS_STEPS) -> list[float]:
    """Mean GC at steps 1..length; a finished episode holds its last value."""
    rows = []
    for curve in curves:
        if not curve:
            rows.append([0.0] * length)
            continue
        padded = list(curve[:length]) + [curve[-1]] * max(0, length - len(curve))
        rows.append(padded)
    if not rows:
        return []
    return [round(fmean(col), 5) for col in zip(*rows, strict=True)]


def _scored(episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for e in episodes
        if not e.get("error") and isinstance(e.get("metrics"), dict) and "gc" in e["metrics"]
    ]


def summarize(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Paper-style aggregates: SR, GC, SPL, steps (failed = 300), HCR, lock statistics, curves."""
    rows = _scored(episodes)
    if not rows:
        return {}
    m = [e["metrics"] for e in rows]
    out: dict[str, Any] = {
        "sr": fmean(float(bool(e.get("success"))) for e in rows),
        "gc": fmean(x["gc"] for x in m),
        "spl": fmean(x["spl"] for x in m),
        "paper_steps": fmean(x["paper_steps"] for x in m),
        "solved_quiz_ratio": (sum(x["locks_solved"] for x in m) / max(1, sum(x["locks_total"] for x in m))),
        "wrong_answers_per_lock": fmean(x["wrong_answers_per_lock"] for x in m),
        "repeated_action_ratio": fmean(x["repeated_action_ratio"] for x in m),
        "repeat_hist": [round(fmean(col), 5) for col in zip(*(x["repeat_hist"] for x in m), strict=True)],
        "repeat_buckets": list(REPEAT_BUCKETS),
        "gc_progression": progression([x.get("gc_curve", []) for x in m]),
    }
    essential = [x["essential_curve"] for x in m if x.get("essential_curve")]
    if essential:  # Figure 8: essential scenes seen within the first 100 steps
        out["essential_progression"] = progression(essential)
    hinted = [x for x in m if x.get("hints") and "hcr" in x]
    if hinted:
        out["hcr"] = fmean(x["hcr"] for x in hinted)
    by_room: dict[str, list[dict[str, Any]]] = {}
    for e in rows:
        by_room.setdefault(e["metrics"]["room"], []).append(e)
    out["by_room"] = [
        {
            "room": room,
            "episodes": len(group),
            "sr": fmean(float(bool(e.get("success"))) for e in group),
            "gc": fmean(e["metrics"]["gc"] for e in group),
            "spl": fmean(e["metrics"]["spl"] for e in group),
            "paper_steps": fmean(e["metrics"]["paper_steps"] for e in group),
        }
        for room, group in sorted(by_room.items())
    ]
    return out
