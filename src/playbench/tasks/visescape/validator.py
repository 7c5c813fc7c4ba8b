"""Proves a room escapable and computes its oracle path (breadth-first search over the FSM).

The search runs over complete game states (view, receptacle states, inventory, triggers) with the
engine's own available actions, entering only the correct answer at locks and never opening the
close-up of a held item (a dead end that cannot help). Its goal is the clear condition with every
checkpoint reached, so the oracle path is the shortest way to escape *and* complete the room (GC
100%). `check_room` adds the authoring rules the paper implies (clues apart from their locks,
checkpoints in the order the oracle meets them, quiz parameters valid).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from playbench.tasks.visescape.engine import ANSWER_ACTION, Engine, GameState
from playbench.tasks.visescape.quizzes import get_kind
from playbench.tasks.visescape.schema import Room, RoomFormatError

MAX_STATES = 400_000


@dataclass
class RoomReport:
    """What the validator found about one room."""

    room_id: str
    oracle_path: list[str]
    receptacles: int
    items: int
    quizzes: int
    checkpoints: int
    states_explored: int
    checkpoint_steps: list[int] = field(
        default_factory=list
    )  # oracle step at which each checkpoint is reached

    @property
    def oracle_steps(self) -> int:
        return len(self.oracle_path)

    def stats(self) -> dict[str, Any]:
        return {
            "room": self.room_id,
            "receptacles": self.receptacles,
            "items": self.items,
            "quizzes": self.quizzes,
            "checkpoints": self.checkpoints,
            "oracle_steps": self.oracle_steps,
        }


def clue_exposed(engine: Engine, state: GameState, lock: str) -> bool:
    """Whether the clue of `lock`'s quiz can be seen in `state` (held, or shown by a visible receptacle)."""
    quiz = engine.lock_quiz[lock]
    if quiz.clue in engine.recs:
        r = engine.recs[quiz.clue]
        shown = quiz.clue_states is None or engine.rec_state(state, r.id) in quiz.clue_states
        return shown and engine.holds(r.visible, state)
    if quiz.clue in state.held or quiz.clue in state.gone:
        return True
    home = engine.room.location(quiz.clue)
    return engine.holds(home.visible, state) and any(
        i.id == quiz.clue for i in engine.visible_items(state, home.id)
    )


def clues_read(engine: Engine, state: GameState) -> frozenset[str]:
    """Quiz ids whose clue can be read in `state`'s view: the clue item's close-up, or the close-up
    of a clue receptacle while it shows the clue (wall views draw clues too small to read)."""
    view = state.view
    out = set()
    for quiz in engine.room.quizzes:
        if view[0] == "item" and view[1] == quiz.clue:
            out.add(quiz.id)
        elif view[0] == "rec" and view[1] == quiz.clue:
            shown = quiz.clue_states is None or engine.rec_state(state, quiz.clue) in quiz.clue_states
            if shown:
                out.add(quiz.id)
    return frozenset(out)


def search_actions(
    engine: Engine,
    state: GameState,
    skip_lock: str | None = None,
    need_clues: bool = False,
    read: frozenset[str] | None = None,
) -> list[str]:
    """The actions the search tries: the available ones, with the true answer at an open lock
    (except at `skip_lock`; with `need_clues`, not at locks whose clue cannot be seen anywhere yet;
    with `read`, only at locks whose quiz is in `read`, i.e. whose clue was looked at up close)."""
    out = []
    for a in engine.available(state, include_held_views=read is not None):
        if a == ANSWER_ACTION:
            lock = engine.lock_in_view(state)
            assert lock is not None
            if lock == skip_lock or (need_clues and not clue_exposed(engine, state, lock)):
                continue
            if read is not None and engine.lock_quiz[lock].id not in read:
                continue
            a = f"<ANSWER>{engine.answer(lock)}</ANSWER>"
        out.append(a)
    return out


def is_goal(engine: Engine, state: GameState) -> bool:
    return engine.cleared(state) and all(t in state.triggers for t in engine.checkpoints)


def escapable_without(
    engine: Engine, lock: str | None = None, trigger: str | None = None, max_states: int = MAX_STATES
) -> bool:
    """Whether the door can be reached without ever solving `lock` / firing `trigger` (then that quiz
    or checkpoint is optional, not a bottleneck).

    Here a lock is only answered while its clue can be seen: an agent cannot know the answer
    otherwise, so a lock that guards another quiz's clue is needed too."""
    start = engine.initial_state()
    seen = {start}
    queue: deque[GameState] = deque([start])
    while queue:
        state = queue.popleft()
        if engine.cleared(state):
            return True
        for action in search_actions(engine, state, skip_lock=lock, need_clues=True):
            nxt = engine.apply(state, action).state
            if trigger is not None and trigger in nxt.triggers:
                continue
            if nxt not in seen and len(seen) < max_states:
                seen.add(nxt)
                queue.append(nxt)
    return False


def clue_pickups(room: Room) -> set[str]:
    """`picked_<clue>` triggers: picking up a clue is progress, though it can also be read where it lies."""
    return {f"picked_{q.clue}" for q in room.quizzes}


def _prefix_length(engine: Engine, state: GameState) -> int | None:
    """How many checkpoints are reached, if they form a prefix of the list (else None)."""
    k = engine.reached_checkpoints(state)
    return k if all(t in state.triggers for t in engine.checkpoints[:k]) else None


Node = tuple[GameState, frozenset[str]]  # a game state and the quizzes whose clue was read so far


def shortest_path(
    engine: Engine,
    start: GameState,
    max_states: int = MAX_STATES,
    ordered: bool = True,
    read: frozenset[str] = frozenset(),
) -> tuple[list[str] | None, int]:
    """Shortest action list from `start` to the goal, and the number of states explored.

    The oracle plays like an informed player: it enters a lock's answer only after it has looked at
    that quiz's clue up close (`read` holds the quizzes whose clue was already read before `start`).
    With `ordered`, checkpoints must be reached in their listed order (the paper's sequential game
    logic): a move that would reach a later checkpoint first is not taken. A start state whose
    checkpoints are not a prefix of the list (an agent went its own way) is searched unordered.
    """
    if is_goal(engine, start):
        return [], 1
    if ordered and _prefix_length(engine, start) is None:
        ordered = False
    first: Node = (start, read | clues_read(engine, start))
    parent: dict[Node, tuple[Node, str] | None] = {first: None}
    queue: deque[Node] = deque([first])
    while queue:
        node = queue.popleft()
        state, seen = node
        if engine.cleared(state):
            continue  # the game ends on escaping: no action follows
        for action in search_actions(engine, state, read=seen):
            nxt = engine.apply(state, action).state
            nxt_node: Node = (nxt, seen | clues_read(engine, nxt))
            if nxt_node in parent:
                continue
            if ordered and nxt.triggers != state.triggers and _prefix_length(engine, nxt) is None:
                continue
            parent[nxt_node] = (node, action)
            if is_goal(engine, nxt):
                path: list[str] = []
                back: Node | None = nxt_node
                while back is not None and parent[back] is not None:
                    prev, act = parent[back]  # type: ignore[misc]
                    path.append(act)
                    back = prev
                return path[::-1], len(parent)
            if len(parent) > max_states:
                return None, len(parent)
            queue.append(nxt_node)
    return None, len(parent)


def check_room(room: Room, quiz_params: dict[str, dict[str, Any]], carry_clues: bool = False) -> RoomReport:
    """Validate the room's logic and return its report; problems raise RoomFormatError. `room` is the room
    as played (see `rooms.as_played`); `carry_clues` lets held items be looked at again."""
    problems: list[str] = []
    for quiz in room.quizzes:
        try:
            get_kind(quiz.kind).check(quiz_params[quiz.id])
        except ValueError as exc:
            problems.append(f"quiz {quiz.id!r} ({quiz.kind}): {exc}")
            continue
        lock_home = room.location(quiz.lock).id
        clue_home = (
            quiz.clue if quiz.clue in {r.id for r in room.receptacles} else room.location(quiz.clue).id
        )
        if lock_home == clue_home:
            problems.append(
                f"quiz {quiz.id!r}: the clue and the lock are both at {lock_home!r}; put the clue elsewhere so the "
                "agent must associate two places"
            )
        elif room.receptacle(lock_home).wall == room.receptacle(clue_home).wall:
            # the paper keeps clue and lock distinctly apart: never seen together in one wall view
            problems.append(
                f"quiz {quiz.id!r}: the clue ({clue_home!r}) and the lock ({lock_home!r}) stand on the same "
                f"{room.receptacle(lock_home).wall} wall; put them on different walls"
            )
    if problems:
        raise RoomFormatError(f"{room.id}: " + "; ".join(problems))
    engine = Engine(room, quiz_params, carry_clues=carry_clues)
    start = engine.initial_state()
    path, explored = shortest_path(engine, start)
    if path is None:
        reason = "the search space is too large" if explored > MAX_STATES else "no action sequence reaches it"
        raise RoomFormatError(
            f"{room.id}: the room cannot be escaped with every checkpoint reached in the listed order ({reason}; "
            f"{explored} states explored). Check the transitions, rules and checkpoint triggers."
        )
    # replay to find when each checkpoint is reached: they must come in the listed order
    state = start
    reached: dict[str, int] = {}
    for k, action in enumerate(path, 1):
        state = engine.apply(state, action).state
        for t in engine.checkpoints:
            if t in state.triggers and t not in reached:
                reached[t] = k
    optional = [lock for lock in engine.lock_quiz if escapable_without(engine, lock=lock)]
    if optional:
        raise RoomFormatError(
            f"{room.id}: the room can be escaped without solving {', '.join(optional)}; every quiz must lie on "
            "the way out"
        )
    # checkpoints are bottlenecks (the paper's definition): the door must stay shut without each one
    skippable = [
        t for t in engine.checkpoints if t not in clue_pickups(room) and escapable_without(engine, trigger=t)
    ]
    if skippable:
        raise RoomFormatError(
            f"{room.id}: the room can be escaped without reaching checkpoint(s) {', '.join(skippable)}; "
            "every checkpoint (except picking up a clue) must be needed on the way out"
        )
    order = sorted(engine.checkpoints, key=lambda t: reached[t])
    if order != engine.checkpoints:
        raise RoomFormatError(
            f"{room.id}: list the checkpoints in the order the oracle reaches them: {', '.join(order)} "
            "(hints follow this order)"
        )
    return RoomReport(
        room_id=room.id,
        oracle_path=path,
        receptacles=len(room.receptacles),
        items=len(room.items),
        quizzes=len(room.quizzes),
        checkpoints=len(room.checkpoints),
        states_explored=explored,
        checkpoint_steps=[reached[t] for t in engine.checkpoints],
    )


def main(argv: list[str] | None = None) -> int:
    """`python -m playbench.tasks.visescape.validator ROOM...`: check rooms (ids or files)."""
    import sys

    from playbench.tasks.visescape.rooms import as_played, load_room, quiz_params, room_ids

    args = list(argv if argv is not None else sys.argv[1:])
    carry = "--carry-clues" in args  # check the room as played with our carry_clues option
    names = [a for a in args if a != "--carry-clues"] or room_ids()
    failed = 0
    for name in names:
        try:
            room = as_played(load_room(name), carry)
            report = check_room(room, quiz_params(room), carry_clues=carry)
        except RoomFormatError as exc:
            print(f"FAIL {name}: {exc}")
            failed += 1
            continue
        print(f"ok   {name}: {report.stats()}")
        print("     oracle: " + " | ".join(report.oracle_path))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
