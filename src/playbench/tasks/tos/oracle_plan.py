"""The Theory of Space oracle's exploration plan: standing points and turns that observe every object
at low cost, and the moves between poses (see `world.py` for the frame)."""

from __future__ import annotations

from collections.abc import Iterable

from playbench.tasks.tos.world import (
    FACINGS,
    START,
    Pose,
    World,
    in_fov,
    items_of,
    rooms_at,
    rotation_between,
    turn,
    visible_items,
)


# --- oracle explorer ----------------------------------------------------------------------------
def reachable_rooms(world: World, observed: Iterable[str]) -> frozenset[int]:
    """Rooms the agent can get into: its start room, then through every observed door."""
    seen = set(observed)
    rooms = set(rooms_at(world, 0, 0))
    changed = True
    while changed:
        changed = False
        for g in world.gates:
            if g.name in seen and set(g.rooms) & rooms and not set(g.rooms) <= rooms:
                rooms |= set(g.rooms)
                changed = True
    return frozenset(rooms)


def standing_points(world: World, observed: frozenset[str]) -> list[tuple[int, int]]:
    """Observed items in reachable rooms: the points jumps can reach (moves are free and every
    item of a room the agent is in comes into view after some turn)."""
    rooms = reachable_rooms(world, observed)
    return [(it.x, it.y) for it in items_of(world) if it.name in observed and it.rooms & rooms]


def plan_observations(
    world: World,
    targets: Iterable[str] | None = None,
    limit: int = 40,
    known: frozenset[str] = frozenset(),
    allow_return: bool = False,
    seen: frozenset[str] = frozenset(),
    home: bool = True,
) -> list[Pose]:
    """A shortest list of Observe poses that sees every target (all objects by default).

    Moves are free, so the cost of an exploration is its number of Observe() turns. The agent
    starts at (0, 0) and can stay there; once it has jumped away it can come back only with
    Return() (`allow_return`, our extension). `known` are items observed in an earlier phase:
    they can be jumped to but still have to be seen again. The search is breadth-first over the
    sets seen so far (with whether the agent is still at the start), keeping only sets not
    contained in another of the same depth, so it is exact and small. `seen` and `home` start it
    from the middle of an exploration (the items observed so far; whether the agent still stands
    at the start): the rest of the plan (empty once every target is seen).
    """
    want = frozenset(o.name for o in world.objects) if targets is None else frozenset(targets)
    items = items_of(world)
    views: dict[Pose, frozenset[str]] = {}

    def view(pose: Pose) -> frozenset[str]:
        v = views.get(pose)
        if v is None:
            v = views[pose] = frozenset(i.name for i in visible_items(world, pose, items))
        return v

    if seen and want <= seen:
        return []
    level: dict[tuple[frozenset[str], bool], list[Pose]] = {(frozenset(seen), home): []}
    for _depth in range(limit):
        nxt: dict[tuple[frozenset[str], bool], list[Pose]] = {}
        for (seen, home), path in sorted(level.items(), key=lambda kv: (sorted(kv[0][0]), not kv[0][1])):
            points = standing_points(world, known | seen)
            if home or allow_return:
                points = [(0, 0), *points]
            for x, y in points:
                at_home = (x, y) == (0, 0) and (home or allow_return)
                for facing in FACINGS:
                    pose = Pose(x, y, facing)
                    new = seen | view(pose)
                    key = (new, at_home)
                    if new != seen and key not in nxt:
                        nxt[key] = path + [pose]
        done = [k for k in nxt if want <= k[0]]
        if done:
            best = min(done, key=lambda k: (-len(k[0]), sorted(k[0]), not k[1]))
            return nxt[best]
        if not nxt:
            break
        # keep the maximal sets only (being at the start is worth keeping apart: it can observe there)
        keys = sorted(nxt, key=lambda k: (len(k[0]), k[1]), reverse=True)
        kept: list[tuple[frozenset[str], bool]] = []
        for k in keys:
            if not any(k[0] <= o[0] and (o[1] or not k[1]) and k != o for o in kept):
                kept.append(k)
        level = {k: nxt[k] for k in kept}
    raise ValueError("no observation plan within the limit covers every object")


def moves_to(
    world: World, pose: Pose, target: Pose, observed: frozenset[str], allow_return: bool = False
) -> list[str]:
    """Move actions (Rotate, JumpTo; Return() when allowed) taking the agent from `pose` to `target`,
    each jump to an observed item that is in view (its room and field of view) when it is made."""
    moves: list[str] = []
    cur = pose
    if (target.x, target.y) == (0, 0) and (cur.x, cur.y) != (0, 0):
        if not allow_return:
            raise ValueError("the start cannot be reached again without Return()")
        moves.append("Return()")
        cur = START
    elif (cur.x, cur.y) != (target.x, target.y):
        by_point = {(it.x, it.y): it for it in items_of(world) if it.name in observed}
        # breadth-first over standing points joined when they share a room
        start = (cur.x, cur.y)
        prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = [start]
        goal = (target.x, target.y)
        while queue and goal not in prev:
            p = queue.pop(0)
            here = rooms_at(world, *p)
            for q, it in sorted(by_point.items(), key=lambda kv: kv[1].name):
                if q not in prev and it.rooms & here:
                    prev[q] = p
                    queue.append(q)
        if goal not in prev:
            if not allow_return:
                raise ValueError(f"no chain of jumps reaches {goal}")
            return ["Return()", *moves_to(world, START, target, observed, allow_return)]
        hops = []
        q: tuple[int, int] | None = goal
        while q is not None and q != start:
            hops.append(q)
            q = prev[q]
        for hx, hy in reversed(hops):
            if not in_fov(cur, hx, hy):
                for deg in (90, -90, 180):
                    if in_fov(Pose(cur.x, cur.y, turn(cur.facing, deg)), hx, hy):
                        moves.append(f"Rotate({deg})")
                        cur = Pose(cur.x, cur.y, turn(cur.facing, deg))
                        break
            moves.append(f"JumpTo({by_point[(hx, hy)].name})")
            cur = Pose(hx, hy, cur.facing)
    deg = rotation_between(cur.facing, target.facing)
    if deg:
        moves.append(f"Rotate({deg})")
    return moves


def plan_turns(
    world: World,
    poses: list[Pose],
    start: Pose = START,
    observed: frozenset[str] = frozenset(),
    allow_return: bool = False,
) -> list[str]:
    """The oracle's turns (`Actions: [...]` strings) that observe from `poses` in order."""
    turns = []
    cur = start
    seen = set(observed)
    items = items_of(world)
    for pose in poses:
        moves = moves_to(world, cur, pose, frozenset(seen), allow_return)
        turns.append("Actions: [" + ", ".join([*moves, "Observe()"]) + "]")
        seen |= {i.name for i in visible_items(world, pose, items)}
        cur = pose
    return turns
