"""Information gain: how many positions each object and door can still occupy, given what was seen.

The authors measure an exploration's information with a constraint solver over grid positions
(`SpatialSolver` / `AC3Solver` in `tos_base/managers/spatial_solver.py`, used by
`ExplorationManager._compute_exploration_quality`; mll-lab-nu/Theory-of-Space, MIT). This is our
own implementation of the same computation:

- One variable per object and door, plus the start (`initial_pos`, fixed at (0, 0)). A variable's
  domain is a set of integer points of the box [-g, g]², g = the grid size (the larger side of the
  scene's mask); a variable no observation has named yet has no domain.
- Every Observe() adds one constraint per item in view: the item's offset from where the agent
  stands (the object or door it stands on, or the start) falls in the reported egocentric bin and
  distance bin for the agent's facing; and one per reported close pair: `a` is within 2 of `b`, in
  the reported cardinal bin (the agent's facing called north) and distance bin. A Query adds the
  exact offset of the object from the start.
- Domains are then made arc consistent (AC-3): a point stays in a domain only while every
  neighbouring variable has a point satisfying all constraints between the two. The fixed point
  does not depend on the order of revisions, so the result equals theirs (their seeding of a new
  domain from a small anchor domain is one such revision).
- Information gain after a turn: Σ_i log2(M / C_i) / (N log2 M) over the N objects and doors,
  M = g², C_i the size of i's domain (M while it has none; at least 1). As in theirs, a domain
  seeded over the whole box can hold more than M points and then counts negatively.

Domains are boolean grids; a revision is one convolution of the neighbour's domain with the set of
offsets the constraints allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy.signal import fftconvolve

from playbench.tasks.tos.world import (
    HEADING,
    PROXIMITY,
    UNIT,
    Item,
    Pose,
    World,
    bearing,
    cardinal_bin,
    distance_bin_points,
    ego_bin,
    items_of,
    relative_angle,
)

INITIAL = "initial_pos"


@dataclass(frozen=True)
class Relation:
    """What an observation says about the offset (subject - anchor).

    `ego`: egocentric bin and distance bin for an agent facing `facing`; `close`: a close pair,
    cardinal bin with `facing` called north, distance bin, at most 2 apart; `exact`: the offset
    itself (a Query)."""

    kind: Literal["ego", "close", "exact"]
    facing: str = "north"
    direction: str = ""
    distance: str = ""
    dx: int = 0
    dy: int = 0

    def holds(self, dx: int, dy: int) -> bool:
        if self.kind == "exact":
            return (dx, dy) == (self.dx, self.dy)
        if distance_bin_points(dx, dy) != self.distance:
            return False
        if self.kind == "ego":
            return ego_bin(relative_angle(dx, dy, self.facing)) == self.direction
        if dx * dx + dy * dy > PROXIMITY * PROXIMITY:
            return False
        return cardinal_bin((bearing(dx, dy) - HEADING[self.facing]) % 360.0) == self.direction


@dataclass(frozen=True)
class Triple:
    subject: str
    anchor: str
    relation: Relation


_DISTANCE_SQ: dict[str, tuple[int, int]] = {  # (low, high] of the squared length of each distance bin
    "near": (0, 4),
    "mid distance": (4, 16),
    "slightly far": (16, 64),
    "far": (64, 256),
    "very far": (256, 1024),
    "extremely far": (1024, 1 << 62),
}


@lru_cache(maxsize=4096)
def offset_mask(relation: Relation, reach: int) -> np.ndarray:
    """The offsets in [-reach, reach]² the relation allows, as a boolean grid (index = offset + reach).
    Vectorised on integer offsets: the same answers as `Relation.holds` (tests compare them)."""
    side = 2 * reach + 1
    out = np.zeros((side, side), dtype=bool)
    if relation.kind == "exact":
        if abs(relation.dx) <= reach and abs(relation.dy) <= reach:
            out[relation.dx + reach, relation.dy + reach] = True
    elif relation.kind == "close":  # at most 2 apart: a handful of offsets
        for dx in range(-min(2, reach), min(2, reach) + 1):
            for dy in range(-min(2, reach), min(2, reach) + 1):
                out[dx + reach, dy + reach] = relation.holds(dx, dy)
    else:
        r = np.arange(-reach, reach + 1)
        dx, dy = np.meshgrid(r, r, indexing="ij")
        d2 = dx * dx + dy * dy
        if relation.distance == "same distance":
            near = d2 == 0
        else:
            lo, hi = _DISTANCE_SQ[relation.distance]
            near = (d2 > lo) & (d2 <= hi)
        fx, fy = UNIT[relation.facing]
        ahead = dx * fx + dy * fy
        right = dx * fy - dy * fx  # the offset's component to the agent's right
        angle = np.degrees(np.arctan2(right, ahead))
        ahead_pos = ahead > 0
        bins = {
            "front": (right == 0) & ahead_pos,
            "front-slight-right": (right > 0) & ahead_pos & (angle <= 22.5),
            "front-right": (right > 0) & ahead_pos & (angle > 22.5) & (right <= ahead),
            "front-slight-left": (right < 0) & ahead_pos & (angle >= -22.5),
            "front-left": (right < 0) & ahead_pos & (angle < -22.5) & (-right <= ahead),
        }
        if relation.direction in bins:
            direction = bins[relation.direction]
        else:
            direction = ~np.logical_or.reduce(list(bins.values()))
        out = near & direction
        out[reach, reach] = relation.holds(0, 0)  # the zero offset as the bin functions read it
    out.setflags(write=False)
    return out


def observation_triples(world: World, pose: Pose, seen: list[Item]) -> list[Triple]:
    """The constraints one Observe() from `pose` adds (their `relation_triples`): each item in view
    relative to where the agent stands, and each close pair, in the order the view lists them."""
    anchor = anchor_name(world, pose)
    out = []
    for it in seen:
        dx, dy = it.x - pose.x, it.y - pose.y
        rel = Relation(
            "ego", pose.facing, ego_bin(relative_angle(dx, dy, pose.facing)), distance_bin_points(dx, dy)
        )
        out.append(Triple(it.name, anchor, rel))
    for i, a in enumerate(seen):
        for b in seen[i + 1 :]:
            dx, dy = a.x - b.x, a.y - b.y
            if dx * dx + dy * dy > PROXIMITY * PROXIMITY:
                continue
            direction = cardinal_bin((bearing(dx, dy) - HEADING[pose.facing]) % 360.0)
            out.append(
                Triple(a.name, b.name, Relation("close", pose.facing, direction, distance_bin_points(dx, dy)))
            )
    return out


def query_triple(name: str, x: int, y: int) -> Triple:
    """A Query: the object's exact offset from the start."""
    return Triple(name, INITIAL, Relation("exact", dx=x, dy=y))


def anchor_name(world: World, pose: Pose) -> str:
    """Where the agent stands, as a variable: the start, or the object or door at its point."""
    if (pose.x, pose.y) == (0, 0):
        return INITIAL
    for it in items_of(world):
        if (it.x, it.y) == (pose.x, pose.y):
            return it.name
    raise ValueError(f"the agent at ({pose.x}, {pose.y}) stands on no object or door")


def grid_size(world: World) -> int:
    """Their solver's grid size: the larger side of the scene's mask."""
    return max(world.width, world.height)


class PositionSolver:
    """Domains of every object and door, narrowed by the observations added (see the module doc)."""

    def __init__(self, names: list[str], size: int, origin: str = INITIAL) -> None:
        """`origin` is the variable fixed at (0, 0): the start, or (their per-room solvers) a door."""
        self.g = int(size)
        self.side = 2 * self.g + 1
        self.names = [n for n in names if n != origin]
        self.domains: dict[str, np.ndarray | None] = dict.fromkeys(self.names)
        start = np.zeros((self.side, self.side), dtype=bool)
        start[self.g, self.g] = True
        self.domains[origin] = start
        self.constraints: dict[frozenset[str], set[Triple]] = {}
        self.neighbours: dict[str, set[str]] = {n: set() for n in self.domains}
        self.consistent = True
        self._allowed_cache: dict[tuple[str, str], np.ndarray] = {}

    @classmethod
    def for_world(cls, world: World) -> PositionSolver:
        return cls([it.name for it in items_of(world)], grid_size(world))

    def _full(self) -> np.ndarray:
        return np.ones((self.side, self.side), dtype=bool)

    def add(self, triples: list[Triple]) -> bool:
        """Add observed constraints and restore arc consistency; False if a domain became empty."""
        work: set[tuple[str, str]] = set()
        for t in triples:
            if t.subject not in self.domains or t.anchor not in self.domains or t.subject == t.anchor:
                continue
            for name in (t.subject, t.anchor):
                if self.domains[name] is None:
                    self.domains[name] = self._full()
            bucket = self.constraints.setdefault(frozenset((t.subject, t.anchor)), set())
            if t in bucket:
                continue
            bucket.add(t)
            self._allowed_cache.pop((t.subject, t.anchor), None)
            self._allowed_cache.pop((t.anchor, t.subject), None)
            self.neighbours[t.subject].add(t.anchor)
            self.neighbours[t.anchor].add(t.subject)
            work |= {(t.subject, t.anchor), (t.anchor, t.subject)}
        while work:
            a, b = work.pop()
            if self._revise(a, b):
                if not self.domains[a].any():  # type: ignore[union-attr]
                    self.consistent = False
                    return False
                work |= {(k, a) for k in self.neighbours[a] if k != b}
        return True

    def _allowed(self, a: str, b: str) -> np.ndarray:
        """Offsets (pa - pb) satisfying every constraint between a and b, over [-2g, 2g]²."""
        cached = self._allowed_cache.get((a, b))
        if cached is not None:
            return cached
        reach = 2 * self.g
        allowed = np.ones((2 * reach + 1,) * 2, dtype=bool)
        for t in self.constraints.get(frozenset((a, b)), ()):
            mask = offset_mask(t.relation, reach)
            allowed &= mask if t.subject == a else mask[::-1, ::-1]
        self._allowed_cache[(a, b)] = allowed
        return allowed

    def _revise(self, a: str, b: str) -> bool:
        da, db = self.domains[a], self.domains[b]
        if da is None or db is None:
            return False
        allowed = self._allowed(a, b)
        reach = 2 * self.g
        points = np.argwhere(db)
        if len(points) <= 16:
            # few partners: the union of the allowed-offset window around each of them
            support = np.zeros_like(da)
            for i, j in points:
                support |= allowed[reach - i : reach - i + self.side, reach - j : reach - j + self.side]
        else:
            # support[pa] = any over allowed offsets o of db[pa - o]: a convolution of db with `allowed`
            full = fftconvolve(db.astype(float), allowed.astype(float), mode="full")
            support = full[reach : reach + self.side, reach : reach + self.side] > 0.5
        narrowed = da & support
        if narrowed.sum() == da.sum():
            return False
        self.domains[a] = narrowed
        return True

    def count(self, name: str) -> int | None:
        """The size of a domain, None while the variable has none."""
        d = self.domains[name]
        return None if d is None else int(d.sum())

    def points(self, name: str) -> set[tuple[int, int]]:
        d = self.domains[name]
        if d is None:
            return set()
        return {(int(x) - self.g, int(y) - self.g) for x, y in zip(*np.nonzero(d), strict=True)}

    def information_gain(self) -> float:
        m = self.g * self.g
        if m <= 1 or not self.names:
            return 0.0
        total = 0.0
        for name in self.names:
            c = self.count(name)
            total += math.log2(m / max(1, m if c is None else c))
        return total / (len(self.names) * math.log2(m))
