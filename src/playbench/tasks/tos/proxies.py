"""Scripted explorers whose logs the passive setting shows (the paper's proxy agents).

SCOUT (the authors' sweep proxy, `tos_base/managers/agent_proxy.py`): a depth-first walk over the
rooms from the start room (neighbours in room-number order). In the start room it observes four
times, turning a quarter clockwise between views; in every other room, standing in the door it
came through and facing into the room, three times: ahead, then a quarter clockwise, then a half
turn (ahead, right, left). It stops as soon as every object has been seen. To reach a room it
turns to the door's nearest cardinal direction, jumps to the door and faces into the next room;
moves that do not end in a view are carried into the next turn.

STRATEGIST (`Strategist` below): their candidate planner, which sweeps like SCOUT on entering a
room and then observes where an AC-3 solver of the room's positions says the most is still open.
Our other log is the oracle's minimum-cost plan (`passive_log=oracle`).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from playbench.tasks.tos.world import (
    FACINGS,
    HEADING,
    Gate,
    Item,
    Pose,
    World,
    in_fov,
    items_of,
    room_by_id,
    rooms_at,
    turn,
    visible_items,
)


def _quarter(current: str, wanted: str) -> int:
    """The Rotate that turns `current` into `wanted`, in (-180, 180] (theirs: `_rotate_by`)."""
    delta = (HEADING[wanted] - HEADING[current]) % 360
    return delta - 360 if delta > 180 else delta


def _closest_facing(dx: int, dy: int) -> str:
    return max(FACINGS, key=lambda f: {"north": dy, "east": dx, "south": -dy, "west": -dx}[f])


def scout_turns(world: World) -> list[str]:
    """The SCOUT proxy's turns, as `Actions: [...]` strings (the last one is Term())."""
    objects = {o.name for o in world.objects}
    adjacent: dict[int, set[int]] = {}
    for g in world.gates:
        a, b = g.rooms
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)
    turns: list[str] = []
    seen: set[str] = set()
    state = {"pose": Pose(0, 0, "north")}
    visited: set[int] = set()

    def done() -> bool:
        return objects <= seen

    def observe(prefix: list[str]) -> None:
        pose = state["pose"]
        turns.append("Actions: [" + ", ".join([*prefix, "Observe()"]) + "]")
        seen.update(i.name for i in visible_items(world, pose))

    def rotate(deg: int) -> list[str]:
        if deg % 360 == 0:
            return []
        pose = state["pose"]
        state["pose"] = Pose(pose.x, pose.y, turn(pose.facing, deg))
        return [f"Rotate({deg})"]

    def explore_room(initial: bool, prefix: list[str]) -> bool:
        """Observe from where the agent stands; True if a view was taken."""
        took = False
        for deg in (0, 90, 90, 90) if initial else (0, 90, 180):
            if done():
                break
            observe(prefix + rotate(deg))
            prefix = []
            took = True
        return took

    def gate_between(a: int, b: int) -> Gate:
        return next(g for g in world.gates if set(g.rooms) == {a, b})

    def traverse(cur: int, nxt: int) -> list[str]:
        g = gate_between(cur, nxt)
        pose = state["pose"]
        acts: list[str] = []
        if (pose.x, pose.y) != (g.x, g.y):
            acts += rotate(_quarter(pose.facing, _closest_facing(g.x - pose.x, g.y - pose.y)))
            acts.append(f"JumpTo({g.name})")
            state["pose"] = Pose(g.x, g.y, state["pose"].facing)
        # face into the next room: away from the current room's side of the door
        into_next = room_facing(g, nxt)
        acts += rotate(_quarter(state["pose"].facing, into_next))
        return acts

    def room_facing(g: Gate, rid: int) -> str:
        """The facing from the door into room `rid`."""
        wall = room_by_id(world, rid).wall_of(g.x, g.y)
        return {"east": "west", "west": "east", "north": "south", "south": "north"}[wall]

    def dfs(rid: int, initial: bool, pre: list[str]) -> list[str]:
        visited.add(rid)
        took = explore_room(initial, pre)
        carry = [] if took else list(pre)
        if done():
            return carry
        for child in sorted(adjacent.get(rid, ())):
            if child in visited:
                continue
            carry = dfs(child, False, carry + traverse(rid, child))
            if done():
                return carry
            carry = carry + traverse(child, rid)
        return carry

    start = min(rooms_at(world, 0, 0))
    dfs(start, True, [])
    turns.append("Actions: [Term()]")
    return turns


# --- STRATEGIST ----------------------------------------------------------------------------------
_CARDINALS: tuple[str, ...] = ("north", "east", "south", "west")  # their argmax order on ties


def _cardinal_of(dx: float, dy: float) -> str:
    """The cardinal facing closest to an offset (their `_closest_cardinal`: ties go to the first of
    north, east, south, west)."""
    dots = {"north": dy, "east": dx, "south": -dy, "west": -dx}
    return max(_CARDINALS, key=lambda f: (dots[f], -_CARDINALS.index(f)))


class Strategist:
    """The authors' STRATEGIST proxy as their passive text logs show it: their candidate planner
    (`CandidatePlannerAgentProxy` with the sweep as its entry observation, `tos_base/managers/
    agent_proxy.py`), in our own code.

    A depth-first walk over the rooms (neighbours in room order). Entering a room it sweeps as SCOUT
    does (at the start: ahead and three quarter turns; at a door: ahead, right, left; it stops
    sweeping once every object and door is known), then plans within the room with a solver of the
    room's objects and doors (the start or the entry door fixed at (0, 0)): while some position is
    still ambiguous and some pair of the room's items has not been seen one from the other, it goes
    to the item with the most candidate positions among those with unseen pairs and looks in the
    cardinal direction that holds most sampled candidate pairs toward the items it still has to
    relate, then keeps turning there while pairs from it remain. Bookkeeping as theirs: an item is
    known in the room the agent is focused on when it is seen; a pair is seen when one item is
    observed from the other (the start counts in the start room).

    Candidate positions are sampled (30 per item, as theirs) with our seeded generator; theirs
    samples with Python's unseeded global generator, so their own logs vary from run to run.
    Their last stage (go back to the start, then Query the most informative objects) is not run:
    their recorded STRATEGIST runs end where the planner ends (see the README).
    """

    SAMPLES = 30
    MAX_OBSERVES = 100

    def __init__(self, world: World, seed: int) -> None:
        from playbench.tasks.tos.solver import INITIAL, grid_size

        self.world = world
        self.rng = random.Random(seed)
        self.initial = INITIAL
        self.g = grid_size(world)
        self.items = {it.name: it for it in items_of(world)}
        self.nodes: dict[int, set[str]] = {r.id: set() for r in world.rooms}
        for it in self.items.values():
            for rid in it.rooms:
                self.nodes.setdefault(rid, set()).add(it.name)
        self.known: dict[int, set[str]] = {rid: set() for rid in self.nodes}
        self.edges: dict[int, set[frozenset[str]]] = {
            rid: {frozenset((a, b)) for a in names for b in names if a != b}
            for rid, names in self.nodes.items()
        }
        self.start_room = min(rooms_at(world, 0, 0))
        self.edges[self.start_room] |= {frozenset((INITIAL, n)) for n in self.nodes[self.start_room]}
        self.known_edges: dict[int, set[frozenset[str]]] = {rid: set() for rid in self.nodes}
        self.total = set().union(*self.nodes.values())
        self.adjacent: dict[int, set[int]] = {}
        for g in world.gates:
            a, b = g.rooms
            self.adjacent.setdefault(a, set()).add(b)
            self.adjacent.setdefault(b, set()).add(a)
        self.pose = Pose(0, 0, "north")
        self.focus = self.start_room
        self.gate: str | None = None
        self.anchor: str | None = None
        self.visited: set[int] = set()
        self.observed: set[str] = set()
        self.turns: list[str] = []
        self.views: list[tuple[Pose, list[Item]]] = []
        self.pending: list[str] = []  # moves made but not yet written into a turn

    # --- moves (written into the next turn) ---------------------------------------------------
    def _rotate_to(self, facing: str) -> None:
        delta = _quarter(self.pose.facing, facing)
        if delta:
            self.pending.append(f"Rotate({delta})")
            self.pose = Pose(self.pose.x, self.pose.y, facing)

    def _jump(self, name: str) -> None:
        it = self.items[name]
        self.pending.append(f"JumpTo({name})")
        self.pose = Pose(it.x, it.y, self.pose.facing)

    def _visible(self, name: str) -> bool:
        it = self.items[name]
        here = rooms_at(self.world, self.pose.x, self.pose.y)
        return bool(it.rooms & here) and in_fov(self.pose, it.x, it.y)

    def _move_to_visible(self, name: str) -> None:
        """Their `_move_to_visible`: from the closest cardinal toward the item, turn a quarter at a
        time until it is in view, then jump onto it."""
        it = self.items[name]
        base = _cardinal_of(it.x - self.pose.x, it.y - self.pose.y)
        for d in (0, 90, 180, 270):
            self._rotate_to(turn(base, d))
            if self._visible(name):
                if (self.pose.x, self.pose.y) != (it.x, it.y):
                    self._jump(name)
                return

    # --- observing ----------------------------------------------------------------------------
    def _observe(self) -> list[Item]:
        seen = visible_items(self.world, self.pose)
        self.turns.append("Actions: [" + ", ".join([*self.pending, "Observe()"]) + "]")
        self.pending = []
        self.views.append((self.pose, seen))
        names = {it.name for it in seen}
        self.observed |= names
        self.known[self.focus] |= names
        if self.anchor:
            self.known_edges[self.focus] |= {frozenset((self.anchor, n)) for n in names if n != self.anchor}
        return seen

    def _all_known(self) -> bool:
        return set().union(*(self.nodes[r] & self.known[r] for r in self.nodes)) == self.total

    def _unknown_edges(self, rid: int) -> set[frozenset[str]]:
        return self.edges[rid] - self.known_edges[rid]

    def _sweep(self, initial: bool) -> None:
        self.anchor = self.initial if initial else self.gate
        for d in (0, 90, 90, 90) if initial else (0, 90, 180):
            if self._all_known():
                break
            self._rotate_to(turn(self.pose.facing, d))
            self._observe()
        self.anchor = None

    # --- the room planner ---------------------------------------------------------------------
    def _explore_room(self, initial: bool) -> None:
        from playbench.tasks.tos.solver import PositionSolver, observation_triples

        first = len(self.views)
        self._sweep(initial)
        rid = self.focus
        origin = self.initial if initial else (self.gate or self.initial)
        names = sorted(self.nodes[rid])
        solver = PositionSolver(names, self.g, origin=origin)
        for pose, seen in self.views[first:]:
            solver.add(observation_triples(self.world, pose, seen))

        def sizes() -> dict[str, int]:
            full = self.side * self.side
            return {n: (full if (c := solver.count(n)) is None else c) for n in names}

        def settled() -> bool:
            return all(v == 1 for v in sizes().values()) or not self._unknown_edges(rid)

        if settled():
            return
        budget = self.MAX_OBSERVES
        moved: set[str] = set()
        while budget > 0 and not settled():
            anchor = self._anchor_with_most_candidates(rid, moved, sizes())
            if anchor is None:
                break
            used: set[str] = set()
            facing = self._best_direction(solver, rid, anchor, moved, used)
            if facing is None:
                moved.add(anchor)
                continue
            seen = self._observe_at(anchor, facing, solver)
            used.add(facing)
            budget -= 1
            if settled():
                moved.add(anchor)
                break
            others = {it.name for it in seen} - {anchor}
            while budget > 0 and any(anchor in e for e in self._unknown_edges(rid)) and not settled():
                facing = self._best_direction(solver, rid, anchor, others | moved, used)
                if facing is None:
                    break
                seen = self._observe_at(anchor, facing, solver)
                used.add(facing)
                budget -= 1
                if settled():
                    break
                others |= {it.name for it in seen} - {anchor}
            moved.add(anchor)

    @property
    def side(self) -> int:
        return 2 * self.g + 1

    def _anchor_with_most_candidates(self, rid: int, moved: set[str], sizes: dict[str, int]) -> str | None:
        nodes = self.nodes[rid]
        unknown = self._unknown_edges(rid)
        open_nodes = sorted(a for a in nodes if any(a in e and next(iter(e - {a})) in nodes for e in unknown))
        names = [n for n in open_nodes if n not in moved]
        if not names:
            return None
        return max(names, key=lambda n: (sizes.get(n, 0), -names.index(n)))

    def _sample(self, points: set[tuple[int, int]]) -> list[tuple[int, int]]:
        pts = sorted(points)
        return pts if len(pts) <= self.SAMPLES else self.rng.sample(pts, self.SAMPLES)

    def _best_direction(
        self, solver: Any, rid: int, anchor: str, exclude: set[str], used: set[str]
    ) -> str | None:
        """The cardinal facing that most sampled candidate pairs (anchor -> item still to relate)
        point to; None when no pair is left."""
        allowed = [f for f in _CARDINALS if f not in used]
        if not allowed:
            return None
        anchor_pts = self._sample(self._domain(solver, anchor))
        if not anchor_pts:
            return None
        unknown = self._unknown_edges(rid)
        totals = dict.fromkeys(allowed, 0)
        for other in sorted(self.nodes[rid]):
            if other == anchor or frozenset((anchor, other)) not in unknown or other in exclude:
                continue
            other_pts = self._sample(self._domain(solver, other))
            for pa in anchor_pts:
                for pb in other_pts:
                    f = _cardinal_of(pb[0] - pa[0], pb[1] - pa[1])
                    if f in totals:
                        totals[f] += 1
        best = max(allowed, key=lambda f: (totals[f], -allowed.index(f)))
        return best if totals[best] > 0 else None

    def _domain(self, solver: Any, name: str) -> set[tuple[int, int]]:
        if solver.count(name) is None:  # never constrained: the whole box (their initialised domain)
            r = range(-self.g, self.g + 1)
            return {(x, y) for x in r for y in r}
        return solver.points(name)

    def _observe_at(self, anchor: str, facing: str, solver: Any) -> list[Item]:
        from playbench.tasks.tos.solver import observation_triples

        self.anchor = anchor
        it = self.items[anchor]
        if (self.pose.x, self.pose.y) != (it.x, it.y):
            self._move_to_visible(anchor)
        self._rotate_to(facing)
        seen = self._observe()
        self.anchor = None
        solver.add(observation_triples(self.world, self.pose, seen))
        return seen

    # --- rooms ----------------------------------------------------------------------------------
    def _traverse(self, nxt: int) -> None:
        g = next(g for g in self.world.gates if set(g.rooms) == {self.focus, nxt})
        if (self.pose.x, self.pose.y) != (g.x, g.y):
            self._rotate_to(_cardinal_of(g.x - self.pose.x, g.y - self.pose.y))
            self._jump(g.name)
        wall = room_by_id(self.world, nxt).wall_of(g.x, g.y)
        self._rotate_to({"east": "west", "west": "east", "north": "south", "south": "north"}[wall])
        self.gate = g.name
        self.focus = nxt
        self.known[nxt].add(g.name)

    def _dfs(self, rid: int, initial: bool) -> None:
        self.visited.add(rid)
        self._explore_room(initial)
        if self._all_known():
            return
        for child in sorted(self.adjacent.get(rid, ())):
            if child in self.visited:
                continue
            self._traverse(child)
            self._dfs(child, False)
            if self._all_known():
                return
            self._traverse(rid)

    def run(self) -> list[str]:
        self._dfs(self.start_room, True)
        if self.pending:  # moves no view followed (theirs drops them from the log text)
            self.pending = []
        self.turns.append("Actions: [Term()]")
        return self.turns


def strategist_turns(world: World) -> list[str]:
    """The STRATEGIST proxy's turns, as `Actions: [...]` strings (the last one is Term()); seeded by
    the world itself, so a world always gets the same log."""
    return list(_strategist_cached(world.model_dump_json()))


@lru_cache(maxsize=256)
def _strategist_cached(world_json: str) -> tuple[str, ...]:
    from playbench.core.task import derive_seed

    world = World.model_validate_json(world_json)
    return tuple(Strategist(world, derive_seed("tos-strategist", world_json)).run())
