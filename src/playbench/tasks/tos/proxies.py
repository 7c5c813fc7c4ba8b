"""Scripted explorers whose logs the passive setting shows (the paper's proxy agents).

SCOUT (the authors' sweep proxy, `tos_base/managers/agent_proxy.py`): a depth-first walk over the
rooms from the start room (neighbours in room-number order). In the start room it observes four
times, turning a quarter clockwise between views; in every other room, standing in the door it
came through and facing into the room, three times: ahead, then a quarter clockwise, then a half
turn (ahead, right, left). It stops as soon as every object has been seen. To reach a room it
turns to the door's nearest cardinal direction, jumps to the door and faces into the next room;
moves that do not end in a view are carried into the next turn.

The paper's text proxy, STRATEGIST (views chosen by AC-3 constraint propagation until every
relation is determined), is not reproduced here (its code is not public in a runnable form); our
other log is the oracle's minimum-cost plan (`passive_log=oracle`).
"""

from __future__ import annotations

from playbench.tasks.tos.world import (
    FACINGS,
    HEADING,
    Gate,
    Pose,
    World,
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
