"""The oracle: navigation over the room plus the chain's interactions, one action JSON per step.

Interactions come in the chain's solution order (`chain.solution_order`, room after room). For
the next one the planner looks for an *approach*: turn towards the target, tilt the view onto it,
walk straight at it until it is within 3 m (or closer when something is in the way) and grab in
the same action, with the key or password the lock needs. An approach counts only if replaying
that very action with the game's rules (`Rules.apply` on a copy of the state) grabs the target,
so the red dot, the 4 m reach and collisions are exactly the task's.

When no approach works from where the player stands, the planner walks a visibility graph whose
nodes are the corners of the furniture and walls grown by the player's radius (plus points on both
sides of every door): Dijkstra ordered by (straight segments, metres), and the first segment of the
best route to any node with a working approach is the next action. Segments are at most 10 m, the
range of `move_forward`. Each step re-plans from the actual state, so the oracle's step count and
moving distance are whatever this deterministic procedure needs: they define the instance's
`optimal_steps` and `optimal_distance`.
"""

from __future__ import annotations

import heapq
import json
import math
from typing import Any

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import parse_action
from playbench.tasks.mmescape.chain import solution_order
from playbench.tasks.mmescape.engine import GameState, Rules

MARGIN = 0.04  # planned paths keep this much beyond the player's radius
NODE_MARGIN = 0.1  # graph nodes sit this far beyond it
STANDOFFS = (3.0, 2.5, 2.0, 1.6, 1.2, 0.9)
MAX_SEGMENT = 10.0
DIGITS = 4  # decimals of the numbers in the oracle's action JSON


class Planner:
    def __init__(self, rules: Rules, image_size: int = 512) -> None:
        self.rules = rules
        self.inst = rules.inst
        self.size = image_size
        self._nodes: dict[geo.VisualState, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.plan: list[tuple[str, int]] = []  # (target, room) in order
        for k, room in enumerate(self.inst.rooms):
            order, _ = solution_order(room.chain)
            self.plan += [(t, k) for t in order]
        self._props = {p.item: p for p in self.inst.props}

    # --- targets -------------------------------------------------------------------------------
    def _done(self, state: GameState, target: str, room: int) -> bool:
        if target == "exit":
            return room in state.doors_open or (state.escaped and room == len(self.inst.rooms) - 1)
        item = self.rules.items[target]
        return target in (state.opened if item.type == "box" else state.picked)

    def next_target(self, state: GameState) -> tuple[str, int] | None:
        for target, room in self.plan:
            if not self._done(state, target, room):
                return target, room
        return None

    def _aim(self, target: str, room: int) -> tuple[tuple[float, float, float], int]:
        if target == "exit":
            door = self.inst.doors[room]
            point = geo._local_to_world_door(self.inst.rooms[door.room], door, 0.0, 1.0, 0.03)
            return point, geo.DOOR_BASE + room
        place = self._props[target]
        kind = self.rules.items[target].type
        lift = {"key": 0.013, "paper": 0.004, "box": 0.15}[kind]
        return (place.x, place.y + lift, place.z), self.rules.world.item_entity[target]

    def _interaction(self, target: str, room: int) -> dict[str, str]:
        if target == "exit":
            method = self.inst.rooms[room].chain.exit.unlock_method
        else:
            method = self.rules.items[target].unlock_method
        if method is None or method.type in ("interact", "none"):
            return {}
        if method.type == "key":
            return {"use_item_id": method.id or ""}
        return {"input": self.rules.items[method.id or ""].value or ""}

    # --- actions -------------------------------------------------------------------------------
    def next_action(self, state: GameState, read: str | None = None) -> str | None:
        """The oracle's next action JSON for `state`, or None when it has no way forward."""
        nxt = self.next_target(state)
        if nxt is None:
            return None
        target, room = nxt
        aim, entity = self._aim(target, room)
        extra: dict[str, Any] = {"read": read} if read else {}
        direct = self._approach(state, state.x, state.z, target, room, aim, entity)
        if direct is not None:
            return self._json(direct[0], extra, f"I go for {self._label(target, room)}.")
        route = self._route(state, target, room, aim, entity)
        if route is None:
            return None
        x, z = route
        turn, dist = self._heading(state, x, z)
        action = {"rotate_right": turn, "move_forward": dist}
        return self._json(action, extra, f"I walk around the furniture towards {self._label(target, room)}.")

    def _label(self, target: str, room: int) -> str:
        if target == "exit":
            return "the door"
        return f"{target} ({self.rules.items[target].type})"

    @staticmethod
    def _json(action: dict[str, Any], extra: dict[str, Any], rationale: str) -> str:
        return json.dumps({**action, **extra, "rationale": rationale})

    @staticmethod
    def _wrap(angle: float) -> float:
        a = (angle + 180.0) % 360.0 - 180.0
        return 180.0 if a == -180.0 else a

    def _heading(self, state: GameState, x: float, z: float) -> tuple[float, float]:
        dx, dz = x - state.x, z - state.z
        yaw = math.degrees(math.atan2(dx, -dz))
        return round(self._wrap(yaw - state.yaw), DIGITS), round(math.hypot(dx, dz), DIGITS)

    def _approach(
        self,
        state: GameState,
        qx: float,
        qz: float,
        target: str,
        room: int,
        aim: tuple[float, float, float],
        entity: int,
    ) -> tuple[dict[str, Any], float] | None:
        """An action from (qx, qz) that grabs the target in one step, and its moving distance."""
        ax, ay, az = aim
        hx, hz = ax - qx, az - qz
        h = math.hypot(hx, hz)
        if h < 1e-6:
            return None
        candidates = ([h] if 0.6 <= h <= STANDOFFS[0] else []) + [s for s in STANDOFFS if s < h]
        obstacles = self._inflated(state.visual(), MARGIN)
        yaw = math.degrees(math.atan2(hx, -hz))
        probe = state.copy()
        probe.x, probe.z = qx, qz
        for s in candidates:
            m = h - s
            if m > MAX_SEGMENT:
                continue
            px, pz = qx + hx / h * m, qz + hz / h * m
            if m > 1e-9 and not _segments_clear(np.array([[qx, qz, px, pz]]), obstacles)[0]:
                continue
            pitch = math.degrees(math.atan2(geo.EYE_H - ay, s))
            turn = round(self._wrap(yaw - probe.yaw), DIGITS)
            tilt = round(pitch - probe.pitch, DIGITS)
            if abs(tilt) > 90.0:
                continue
            action: dict[str, Any] = {"rotate_right": turn, "rotate_down": tilt}
            if m > 1e-4:
                action["move_forward"] = round(m, DIGITS)
            action["grab"] = True
            inter = self._interaction(target, room)
            if inter:
                action["interactions"] = inter
            trial = probe.copy()
            out = self.rules.apply(trial, parse_action(json.dumps(action)), size=self.size)
            if out.grab_success and out.target == entity:
                return action, out.moved
        return None

    # --- the visibility graph ----------------------------------------------------------------
    def _inflated(self, visual: geo.VisualState, margin: float) -> np.ndarray:
        r = geo.AGENT_R + margin
        obs = self.rules.obstacles(visual)
        return np.array([[o.x0 - r, o.z0 - r, o.x1 + r, o.z1 + r] for o in obs]).reshape(-1, 4)

    def _graph(self, visual: geo.VisualState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cached = self._nodes.get(visual)
        if cached is not None:
            return cached
        grown = self._inflated(visual, NODE_MARGIN)
        blocked = self._inflated(visual, MARGIN)
        pts = [(b[i], b[j]) for b in grown for i in (0, 2) for j in (1, 3)]
        for door in self.inst.doors:
            room = self.inst.rooms[door.room]
            for depth in (0.7, -0.7 - geo.WALL_T):
                pts.append(geo.door_point(room, door, depth))
        keep = []
        r = geo.AGENT_R + MARGIN
        for x, z in pts:
            inside_room = any(
                rm.x0 + r <= x <= rm.x0 + rm.width - r and rm.z0 + r <= z <= rm.z0 + rm.depth - r
                for rm in self.inst.rooms
            )
            if inside_room and not _points_blocked(np.array([[x, z]]), blocked)[0]:
                keep.append((round(float(x), 6), round(float(z), 6)))
        nodes = np.array(sorted(set(keep))).reshape(-1, 2)
        n = len(nodes)
        if n:
            ii, jj = np.triu_indices(n, 1)
            segs = np.c_[nodes[ii], nodes[jj]]
            length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
            ok = _segments_clear(segs, blocked) & (length <= MAX_SEGMENT)
            adj = np.full((n, n), np.inf)
            adj[ii[ok], jj[ok]] = length[ok]
            adj[jj[ok], ii[ok]] = length[ok]
        else:
            adj = np.zeros((0, 0))
        result = (nodes, adj, blocked)
        self._nodes[visual] = result
        return result

    def _route(
        self, state: GameState, target: str, room: int, aim: tuple[float, float, float], entity: int
    ) -> tuple[float, float] | None:
        nodes, adj, blocked = self._graph(state.visual())
        n = len(nodes)
        if n == 0:
            return None
        start = np.array([[state.x, state.z]])
        segs = np.c_[np.repeat(start, n, axis=0), nodes]
        length = np.hypot(nodes[:, 0] - state.x, nodes[:, 1] - state.z)
        first = _segments_clear(segs, blocked) & (length <= MAX_SEGMENT) & (length > 1e-6)
        best: dict[int, tuple[int, float, int]] = {}  # node -> (links, metres, first hop)
        heap: list[tuple[int, float, int, int]] = []
        for j in np.flatnonzero(first):
            heap.append((1, float(length[j]), int(j), int(j)))
        heapq.heapify(heap)
        while heap:
            links, dist, j, hop = heapq.heappop(heap)
            if j in best:
                continue
            best[j] = (links, dist, hop)
            for k in np.flatnonzero(np.isfinite(adj[j])):
                k = int(k)
                if k not in best:
                    heapq.heappush(heap, (links + 1, dist + float(adj[j, k]), k, hop))
        choice: tuple[int, float, int] | None = None
        for j in sorted(best, key=lambda j: (best[j][0], best[j][1], j)):
            links, dist, hop = best[j]
            if choice is not None and links + 1 > choice[0]:
                break
            found = self._approach(state, float(nodes[j, 0]), float(nodes[j, 1]), target, room, aim, entity)
            if found is None:
                continue
            total = (links + 1, dist + found[1], hop)
            if choice is None or total[:2] < choice[:2]:
                choice = total
        if choice is None:
            return None
        hop = choice[2]
        return float(nodes[hop, 0]), float(nodes[hop, 1])


def _points_blocked(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    if not len(boxes):
        return np.zeros(len(points), dtype=bool)
    x, z = points[:, 0:1], points[:, 1:2]
    inside = (
        (boxes[None, :, 0] < x) & (x < boxes[None, :, 2]) & (boxes[None, :, 1] < z) & (z < boxes[None, :, 3])
    )
    return inside.any(axis=1)


def _segments_clear(segs: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For (m, 4) segments [x0, z0, x1, z1]: True where none crosses the inside of a box."""
    m = len(segs)
    if m == 0 or not len(boxes):
        return np.ones(m, dtype=bool)
    p = segs[:, None, 0:2]
    d = (segs[:, 2:4] - segs[:, 0:2])[:, None, :]
    lo = boxes[None, :, 0:2]
    hi = boxes[None, :, 2:4]
    with np.errstate(divide="ignore", invalid="ignore"):
        small = np.abs(d) < 1e-12
        safe = np.where(small, 1.0, d)
        a = (lo - p) / safe
        b = (hi - p) / safe
        t0 = np.where(small, np.where((lo < p) & (p < hi), -np.inf, np.inf), np.minimum(a, b))
        t1 = np.where(small, np.where((lo < p) & (p < hi), np.inf, -np.inf), np.maximum(a, b))
    t_in = np.maximum(t0.max(axis=2), 0.0)
    t_out = np.minimum(t1.min(axis=2), 1.0)
    hit = t_out - t_in > 1e-9
    return ~hit.any(axis=1)


def solve(inst: Any, image_size: int = 512, limit: int = 1000) -> tuple[int, float] | None:
    """Play the oracle on `inst` without rendering: (steps, metres moved), or None if it gets stuck."""
    rules = Rules(geo._build_world(inst))
    planner = Planner(rules, image_size)
    state = rules.start_state()
    steps = 0
    read: str | None = None
    while not state.escaped:
        if steps >= limit:
            return None
        text = planner.next_action(state, read)
        if text is None:
            return None
        out = rules.apply(state, parse_action(text), size=image_size)
        if out.invalid:
            return None
        read = next((i for i in out.obtained if rules.items[i].type == "paper"), None)
        steps += 1
    return steps, state.moved
