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
from collections.abc import Callable
from typing import Any

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action, parse_action, parse_original
from playbench.tasks.mmescape.chain import solution_order
from playbench.tasks.mmescape.engine import GameState, Rules

MARGIN = 0.04  # planned paths keep this much beyond the player's radius
NODE_MARGIN = 0.1  # graph nodes sit this far beyond it
STANDOFFS = (3.0, 2.5, 2.0, 1.6, 1.2, 0.9)
MAX_SEGMENT = 10.0
DIGITS = 4  # decimals of the numbers in the oracle's action JSON


class Planner:
    def __init__(self, rules: Rules, parse: Callable[[str], Action] = parse_action) -> None:
        self.rules = rules
        self.parse = parse  # the task's own reply parser, so a replayed action is the one the task reads
        self.inst = rules.inst
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
        _, _, h = geo.prop_size(place, kind)
        return (place.x, place.y + h / 2, place.z), self.rules.world.item_entity[target]

    def _method(self, target: str, room: int) -> Any:
        if target == "exit":
            return self.inst.rooms[room].chain.exit.unlock_method
        return self.rules.items[target].unlock_method

    def _interaction(self, target: str, room: int) -> dict[str, str]:
        method = self._method(target, room)
        if method is None or method.type in ("interact", "none"):
            return {}
        if method.type == "key":
            return {"use_item_id": method.id or ""}
        return {"input": self.rules.items[method.id or ""].value or ""}

    def _unknown_code(self, state: GameState, target: str, room: int) -> str | None:
        """The note to read first when the target's password has not been told to the player yet
        (playbench's texts reveal a code only when the note is read, in an earlier action than the
        one that types it; the original's name it when the note is picked up)."""
        method = self._method(target, room)
        if method is None or method.type != "password" or method.id in state.known:
            return None
        return next((i for i in state.bag if method.id in self.rules.items[i].contents), None)

    # --- actions -------------------------------------------------------------------------------
    def next_action(self, state: GameState, read: str | None = None) -> str | None:
        """The oracle's next action JSON for `state`, or None when it has no way forward."""
        if self.rules.grab_rule == "view":
            return self._next_view(state)
        nxt = self.next_target(state)
        if nxt is None:
            return None
        target, room = nxt
        aim, entity = self._aim(target, room)
        note = self._unknown_code(state, target, room)
        extra: dict[str, Any] = {"read": note} if note else {}
        label = self._label(target, room)
        direct = self._approach(state, state.x, state.z, target, room, aim, entity, grab=note is None)
        if direct is not None:
            return self._json(direct[0], extra, f"I go for {label}.")
        route = self._route(state, target, room, aim, entity)
        if route is None:
            return None
        return self._json(self._walk(state, route), extra, f"I walk around the furniture towards {label}.")

    def _next_view(self, state: GameState) -> str | None:
        """The original's grab rule: grab when the target is in view within reach (the grab uses
        the view from before the action's motion), and in the same action walk on towards the
        next target."""
        nxt = self.next_target(state)
        if nxt is None:
            return None
        target, room = nxt
        aim, entity = self._aim(target, room)
        note = self._unknown_code(state, target, room)
        if note is None and entity in self.rules.view_targets(state)[0]:
            grab: dict[str, Any] = {"grab": True}
            inter = self._interaction(target, room)
            if inter:
                grab["interactions"] = inter
            grab["rationale"] = f"I take {self._label(target, room)}."
            after = state.copy()
            out = self.rules.apply(after, self.parse(json.dumps(grab)))
            if not (out.grab_success and entity in out.targets):
                return None
            if after.escaped:
                return json.dumps(grab)
            onward = self._view_motion(after)
            if onward:
                action = {**{k: v for k, v in grab.items() if k != "rationale"}, **onward}
                trial = state.copy()
                check = self.rules.apply(trial, self.parse(json.dumps(action)))
                if check.grab_success and entity in check.targets:
                    return json.dumps(action)
            return json.dumps(grab)
        motion = self._view_motion(state)
        if motion is None:
            return None
        if note and self.rules.prompts != "original":
            motion = {
                **{k: v for k, v in motion.items() if k != "rationale"},
                "read": note,
                # {} (the target already in view): the read alone
                "rationale": motion.get("rationale", f"I read {note} for the code."),
            }
        return json.dumps(motion)

    def _view_motion(self, state: GameState) -> dict[str, Any] | None:
        """A motion (no grab) towards a pose from which the next target is in view within reach;
        {} when it already is; None when there is no way."""
        nxt = self.next_target(state)
        if nxt is None:
            return {}
        target, room = nxt
        aim, entity = self._aim(target, room)
        if entity in self.rules.view_targets(state)[0]:
            return {}
        label = self._label(target, room)
        direct = self._approach(state, state.x, state.z, target, room, aim, entity, grab=False)
        if direct is not None:
            return {**direct[0], "rationale": f"I move to see {label} up close."}
        route = self._route(state, target, room, aim, entity)
        if route is None:
            return None
        return {**self._walk(state, route), "rationale": f"I walk around the furniture towards {label}."}

    def _walk(self, state: GameState, point: tuple[float, float]) -> dict[str, Any]:
        turn, dist = self._heading(state, *point)
        return {"rotate_right": turn, "move_forward": dist}

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
        grab: bool = True,
    ) -> tuple[dict[str, Any], float] | None:
        """An action from (qx, qz) that turns to the target, tilts onto it and walks up to it, and
        its moving distance. With `grab` (the centre rule) it also grabs the target and counts only
        if the grab succeeds; without, it counts if the target ends up grabbable in the next action:
        under the centre rule under the red dot within reach, under the view rule in view within reach."""
        ax, ay, az = aim
        hx, hz = ax - qx, az - qz
        h = math.hypot(hx, hz)
        if h < 1e-6:
            return None
        view = self.rules.grab_rule == "view"
        near = geo.REACH - 0.05 if view else STANDOFFS[0]
        candidates = ([h] if 0.6 <= h <= near else []) + [s for s in STANDOFFS if s < h]
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
            action: dict[str, Any] = {}
            if turn:
                action["rotate_right"] = turn
            if tilt:
                action["rotate_down"] = tilt
            if m > 1e-4:
                action["move_forward"] = round(m, DIGITS)
            if grab:
                action["grab"] = True
                inter = self._interaction(target, room)
                if inter:
                    action["interactions"] = inter
                action["rationale"] = "approach"
            trial = probe.copy()
            out = self.rules.apply(trial, self.parse(json.dumps(action)))
            if grab:
                if out.grab_success and out.target == entity:
                    action.pop("rationale")
                    return action, out.moved
                continue
            if view:
                ok = entity in self.rules.view_targets(trial)[0]
            else:
                hit, _ = self.rules.centre_hit(trial)
                ent = self.rules.world.entities.get(hit)
                ok = (
                    hit == entity
                    and ent is not None
                    and math.hypot(ent.x - trial.x, ent.z - trial.z) <= geo.REACH
                )
            if ok:
                return action, out.moved
        return None

    # --- the visibility graph ----------------------------------------------------------------
    def _inflated(self, visual: geo.VisualState, margin: float) -> np.ndarray:
        """Obstacles grown by the player's radius and `margin`, as rows (centre x, centre z, half
        width, half depth, cos yaw, sin yaw)."""
        r = geo.AGENT_R + margin
        rows = []
        for o in self.rules.obstacles(visual):
            cx, cz = o.center
            rad = math.radians(o.yaw)
            rows.append([cx, cz, (o.x1 - o.x0) / 2 + r, (o.z1 - o.z0) / 2 + r, math.cos(rad), math.sin(rad)])
        return np.array(rows, dtype=np.float64).reshape(-1, 6)

    def _graph(self, visual: geo.VisualState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cached = self._nodes.get(visual)
        if cached is not None:
            return cached
        grown = self._inflated(visual, NODE_MARGIN)
        blocked = self._inflated(visual, MARGIN)
        pts = [_corner(b, sx, sz) for b in grown for sx in (-1, 1) for sz in (-1, 1)]
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
            found = self._approach(
                state,
                float(nodes[j, 0]),
                float(nodes[j, 1]),
                target,
                room,
                aim,
                entity,
                grab=self.rules.grab_rule != "view",
            )
            if found is None:
                continue
            total = (links + 1, dist + found[1], hop)
            if choice is None or total[:2] < choice[:2]:
                choice = total
        if choice is None:
            return None
        hop = choice[2]
        return float(nodes[hop, 0]), float(nodes[hop, 1])


def _corner(box: np.ndarray, sx: int, sz: int) -> tuple[float, float]:
    """A corner of a grown box (sx, sz = -1 or 1) in the world."""
    cx, cz, hx, hz, c, s = box
    lx, lz = sx * hx, sz * hz
    # the box's frame turned by its yaw: rotate_xz(lx, lz, yaw)
    return float(cx + lx * c + lz * s), float(cz - lx * s + lz * c)


def _local(px: np.ndarray, pz: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points (any shape, broadcast against the boxes on the last axis) in each box's own frame,
    relative to its centre: rotate_xz(p - c, -yaw)."""
    dx, dz = px - boxes[:, 0], pz - boxes[:, 1]
    c, s = boxes[:, 4], boxes[:, 5]
    return dx * c - dz * s, dx * s + dz * c


def _points_blocked(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    if not len(boxes):
        return np.zeros(len(points), dtype=bool)
    lx, lz = _local(points[:, 0:1], points[:, 1:2], boxes)
    inside = (np.abs(lx) < boxes[None, :, 2]) & (np.abs(lz) < boxes[None, :, 3])
    return inside.any(axis=1)


def _segments_clear(segs: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For (m, 4) segments [x0, z0, x1, z1]: True where none crosses the inside of a box."""
    m = len(segs)
    if m == 0 or not len(boxes):
        return np.ones(m, dtype=bool)
    ax, az = _local(segs[:, 0:1], segs[:, 1:2], boxes)
    bx, bz = _local(segs[:, 2:3], segs[:, 3:4], boxes)
    p = np.stack([ax, az], axis=2)
    d = np.stack([bx - ax, bz - az], axis=2)
    hi = boxes[None, :, 2:4]
    lo = -hi
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


# `steps_to_escape`'s recovery moves: a turn (degrees) and a short walk, tried where the planner
# has no way from the exact spot (the player stands closer to furniture than MARGIN allows)
RECOVERY_TURNS = (180.0, 90.0, -90.0, 135.0, -135.0, 45.0, -45.0, 0.0)
RECOVERY_STEP = 0.5


def steps_to_escape(
    planner: Planner, state: GameState, limit: int = 1000, memo: dict[tuple[Any, ...], int] | None = None
) -> int | None:
    """The oracle's remaining steps from `state`: the planner played on a copy until it escapes (the
    same procedure as `solve`, from any state), or None if it gets stuck or needs more than `limit`.
    Where the planner has no way from the exact spot (the player walked into furniture, closer than
    the planner's margin: its routes start nowhere), one recovery move comes first (a turn and a
    0.5 m walk, the best of `RECOVERY_TURNS`) and counts as a step. `memo` (kept by the caller for
    one episode) remembers the steps from every state a play-out passed, since the planner is a
    function of the state. `state` itself does not change."""
    memo = {} if memo is None else memo
    direct = _play_out(planner, state, limit, memo)
    if direct is not None or limit < 1:
        return direct
    best: int | None = None
    for turn in RECOVERY_TURNS:
        trial = state.copy()
        action: dict[str, float] = {"rotate_right": turn} if turn else {}
        action["move_forward"] = RECOVERY_STEP
        out = planner.rules.apply(trial, planner.parse(json.dumps(action)))
        if out.invalid or out.moved < 1e-3:
            continue
        rest = _play_out(planner, trial, (best - 2) if best is not None else limit - 1, memo)
        if rest is not None and (best is None or rest + 1 < best):
            best = rest + 1
    return best


def state_key(state: GameState) -> tuple[Any, ...]:
    """Everything the planner reads of a state (all but the metres moved), exactly."""
    return (
        state.x,
        state.z,
        state.yaw,
        state.pitch,
        tuple(state.bag),
        frozenset(state.picked),
        frozenset(state.opened),
        frozenset(state.doors_open),
        frozenset(state.known),
        state.escaped,
    )


def _play_out(planner: Planner, state: GameState, limit: int, memo: dict[tuple[Any, ...], int]) -> int | None:
    trial = state.copy()
    passed: list[tuple[Any, ...]] = []
    steps = 0
    while not trial.escaped:
        key = state_key(trial)
        if key in memo:
            steps += memo[key]
            break
        passed.append(key)
        if steps >= limit:
            return None
        text = planner.next_action(trial)
        if text is None:
            return None
        if planner.rules.apply(trial, planner.parse(text)).invalid:
            return None
        steps += 1
    if steps > limit:
        return None
    for i, key in enumerate(passed):
        memo[key] = steps - i
    return steps


def solve(
    inst: Any,
    view: geo.ViewSpec = geo.SQUARE_512,
    limit: int = 1000,
    aids: bool = True,
    grab: str = "centre",
    prompts: str = "playbench",
    parser: str = "lenient",
) -> tuple[int, float] | None:
    """Play the oracle on `inst` without rendering: (steps, metres moved), or None if it gets stuck.
    The options are the task's (view, visual aids, grab rule, prompts, reply parser)."""
    rules = Rules(geo._build_world(inst, aids), view, grab=grab, prompts=prompts)
    parse = parse_original if parser == "original" else parse_action
    planner = Planner(rules, parse)
    state = rules.start_state()
    steps = 0
    while not state.escaped:
        if steps >= limit:
            return None
        text = planner.next_action(state)
        if text is None:
            return None
        out = rules.apply(state, parse(text))
        if out.invalid:
            return None
        steps += 1
    return steps, state.moved
