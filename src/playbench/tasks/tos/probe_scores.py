"""The belief probes' scores: two maps compared, one turn's record, the episode and false-belief metrics.

Their `compute_map_metrics` (direction, facing, position, overall), the consistency of a turn's
local and global maps, the per-turn record (`TurnProbe`), stability over successive turns and the
per-episode averages, and the false-belief scores of each changed object (belief correctness and
inertia). It is apart from `probe_maps.py` because it only consumes maps, whatever their source;
`probing.py` re-exports its public names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from playbench.tasks.tos.probe_maps import Map, Placed, raw_entry, to_frame


# --- comparing two maps ------------------------------------------------------------------------
@dataclass(frozen=True)
class Scores:
    direction: float
    facing: float
    position: float

    @property
    def overall(self) -> float:
        return (self.direction + self.facing + self.position) / 3.0


class FarOff(ValueError):
    """A pair more than 64 apart: their distance bins end there and their evaluation fails."""


def _cardinal_index(dx: float, dy: float) -> int:
    deg = 0.0 if abs(dx) < 1e-6 and abs(dy) < 1e-6 else math.degrees(math.atan2(dx, dy))
    return int(((((deg + 360.0) % 360.0) + 22.5) // 45.0) % 8)


def _direction(pred: Map, truth: Map) -> float:
    origin = Placed(0.0, 0.0, (0, 1), False)
    p = {**pred, "initial": origin}
    t = {**truth, "initial": origin}
    names = sorted(t)
    if len(names) < 2:
        return 1.0
    total = hits = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ta, tb = t[a], t[b]
            if math.hypot(ta.x - tb.x, ta.y - tb.y) > 64 + 1e-6:
                raise FarOff(f"{a} and {b}")
            if a in p and b in p:
                pa, pb = p[a], p[b]
                if math.hypot(pa.x - pb.x, pa.y - pb.y) > 64 + 1e-6:
                    raise FarOff(f"{a} and {b}")
                hits += _cardinal_index(pa.x - pb.x, pa.y - pb.y) == _cardinal_index(ta.x - tb.x, ta.y - tb.y)
            total += 1
    return hits / total if total else 0.0


def _facing(pred: Map, truth: Map) -> float:
    total = hits = 0
    for name in sorted(truth):
        t = truth[name]
        if not t.oriented or "door" in name:
            continue
        total += 1
        hits += name in pred and pred[name].ori == t.ori
    return hits / total if total else 1.0


def _position(pred: Map, truth: Map, scale: float | None) -> float:
    names = sorted(truth)
    matched = [n for n in names if n in pred]
    if not names:
        return 1.0
    if not matched:
        return 0.0
    sq = [(pred[n].x - truth[n].x) ** 2 + (pred[n].y - truth[n].y) ** 2 for n in matched]
    rmse = math.sqrt(sum(sq) / len(sq))
    if scale is None:
        scale = math.sqrt(sum(truth[n].x ** 2 + truth[n].y ** 2 for n in matched) / len(matched))
    base = math.exp(-rmse / scale) if scale > 0 else 0.0
    return base * len(matched) / len(names)


def compare(pred: Map | None, truth: Map, scale: float | None) -> Scores | None:
    """Their `compute_map_metrics`; None when the prediction is unreadable or runs off their bins."""
    if pred is None:
        return None
    try:
        return Scores(_direction(pred, truth), _facing(pred, truth), _position(pred, truth, scale))
    except FarOff:
        return None


def local_vs_global(local: Map | None, glob: Map | None, scale: float) -> Scores | None:
    """Consistency of a turn's two maps: the global map carried into the agent pose it gives, compared
    with the local map on the names both hold (all 1 for an empty local map, all 0 with no overlap)."""
    if local is None or glob is None or "agent" not in glob:
        return None
    me = glob["agent"]
    moved = {k: Placed(*to_frame(v.x, v.y, (me.x, me.y), me.ori), v.ori, v.oriented) for k, v in glob.items()}
    if not local:
        return Scores(1.0, 1.0, 1.0)
    common = set(local) & set(moved)
    if not common:
        return Scores(0.0, 0.0, 0.0)
    return compare(
        {k: v for k, v in local.items() if k in common},
        {k: v for k, v in moved.items() if k in common},
        scale,
    )


# --- one turn's probe record and the per-episode summary ----------------------------------------
@dataclass
class TurnProbe:
    """What one exploration reply left for the belief metrics."""

    visible: frozenset[str]  # their `visible_objects` (kept from the last Observe() on turns without one)
    truth: Map  # the full truth at this turn (the agent at its pose then)
    probed: bool = False
    global_map: Map | None = None  # the parsed global map (None: not asked, or unreadable)
    global_scores: Scores | None = None  # against the observed truth
    full_scores: Scores | None = None  # against the full truth
    agent_scores: Scores | None = None
    local_scores: Scores | None = None
    local_global: Scores | None = None
    fog: tuple[float, float, float] | None = None  # precision, recall, F1
    raw_global: dict[str, Any] | None = None


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _facing_valid(name: str, curr: Map, prev: Map) -> bool:
    if name == "agent":
        return False
    ref = curr.get(name) or prev.get(name)
    gate = "door" in name.lower() or "gate" in name.lower()
    if ref is not None:
        return ref.oriented and not gate
    return not gate


def stability(turns: list[TurnProbe]) -> tuple[list[float | None], list[float | None]]:
    """Per pair of successive exploration replies: the position and facing stability of the objects
    the later reply did not see (their `stability`, `position_stability` / `facing_stability`)."""
    pos_out: list[float | None] = []
    face_out: list[float | None] = []
    for prev, curr in zip(turns, turns[1:], strict=False):
        pp, pc = prev.global_map or {}, curr.global_map or {}
        tp, tc = prev.truth if prev.probed else {}, curr.truth if curr.probed else {}
        common = (set(pp) & set(pc) & set(tp) & set(tc)) - curr.visible - {"agent"}
        pos_scores: list[float] = []
        face_scores: list[float] = []
        for name in sorted(common):
            d_prev = math.hypot(pp[name].x - tp[name].x, pp[name].y - tp[name].y)
            d_curr = math.hypot(pc[name].x - tc[name].x, pc[name].y - tc[name].y)
            pos_scores.append(1.0 if d_curr <= d_prev else 0.0)
            if _facing_valid(name, tc, tp):
                was, now = pp[name].ori == tp[name].ori, pc[name].ori == tc[name].ori
                if was and not now:
                    face_scores.append(0.0)
                elif now and not was:
                    face_scores.append(1.0)
                else:
                    face_scores.append(1.0 if pc[name].ori == pp[name].ori else 0.0)
        pos_out.append(sum(pos_scores) / len(pos_scores) if pos_scores else None)
        face_out.append(sum(face_scores) / len(face_scores) if face_scores else None)
    return pos_out, face_out


def episode_metrics(turns: list[TurnProbe]) -> dict[str, float | None]:
    """The per-episode belief metrics (their `aggregate_per_sample`), as averages over probed turns."""
    probed = [t for t in turns if t.probed]
    local = [t.local_scores for t in probed]
    agent = [t.agent_scores for t in probed]
    lvg = [t.local_global for t in probed]
    pos_stab, face_stab = stability(turns)
    return {
        "perception_position": _mean(s.position if s else None for s in local),
        "perception_facing": _mean(s.facing if s else None for s in local),
        "self_tracking_position": _mean(s.position if s else None for s in agent),
        "self_tracking_facing": _mean(s.facing if s else None for s in agent),
        "local_global_position": _mean(s.position if s else None for s in lvg),
        "local_global_facing": _mean(s.facing if s else None for s in lvg),
        "stability_position": _mean(pos_stab),
        "stability_facing": _mean(face_stab),
        "uncertainty": _mean(t.fog[2] if t.fog else None for t in probed),
    }


# --- false belief --------------------------------------------------------------------------------
@dataclass
class BeliefScores:
    """Per changed object, scored the turn it is first seen again."""

    correctness: dict[str, dict[str, float | None]] = field(default_factory=dict)
    inertia: dict[str, dict[str, float | None]] = field(default_factory=dict)


def score_changed(
    name: str,
    kind: str,
    pred: Map | None,
    truth: Map,
    old_raw: dict[str, Any] | None,
    scale: float,
) -> tuple[dict[str, float | None], dict[str, float | None]] | None:
    """Belief correctness and inertia of one changed object (`kind`: position or orientation): the
    new map's entry against the new truth, and against the entry of the map at the end of the first
    exploration. None when this turn's map is unreadable (their evaluation skips the object)."""
    if pred is None:
        return None
    mine = {k: v for k, v in pred.items() if k == name}
    s = compare(mine, {name: truth[name]}, scale)
    if s is None:
        return None
    pos_kind = kind == "position"
    correct = {"position": s.position if pos_kind else None, "facing": None if pos_kind else s.facing}
    old = raw_entry(old_raw, name)
    inertia: dict[str, float | None] = {"position": None, "facing": None}
    if old is not None:
        r = compare(mine, old, scale)
        if r is not None:
            inertia = {"position": r.position if pos_kind else None, "facing": None if pos_kind else r.facing}
    return correct, inertia


def belief_metrics(scored: BeliefScores) -> dict[str, float | None]:
    return {
        "belief_correctness_position": _mean(v["position"] for v in scored.correctness.values()),
        "belief_correctness_facing": _mean(v["facing"] for v in scored.correctness.values()),
        "belief_inertia_position": _mean(v["position"] for v in scored.inertia.values()),
        "belief_inertia_facing": _mean(v["facing"] for v in scored.inertia.values()),
    }
