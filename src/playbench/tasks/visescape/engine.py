"""The finite-state machine of a room: views, receptacle states, inventory, triggers and actions.

`Engine` is pure: `apply(state, action)` returns a new immutable `GameState`, so the validator's
breadth-first search and the task share exactly the same rules. Views form the paper's game graph:
a wall view per direction, a close-up per receptacle (`inspect <receptacle>` from its wall) and a
close-up per item (`inspect <item>` from the receptacle showing it, or of a held item).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from playbench.tasks.visescape.quizzes import QuizKind, get_kind
from playbench.tasks.visescape.schema import DIRECTIONS, Item, Quiz, Receptacle, Room, Rule, Transition

ANSWER_ACTION = "<ANSWER>your answer</ANSWER>"
ANSWER_RE = re.compile(r"<\s*answer\s*>(.*?)<\s*/\s*answer\s*>", re.IGNORECASE | re.DOTALL)
MAX_AUTO_ROUNDS = 32

View = tuple[Any, ...]  # ("wall", dir) | ("rec", rid) | ("item", iid, parent view)


@dataclass(frozen=True)
class GameState:
    view: View
    states: tuple[str, ...]  # one per receptacle, in room order
    held: frozenset[str] = frozenset()
    gone: frozenset[str] = frozenset()  # items taken out of the world (picked)
    triggers: frozenset[str] = frozenset()


@dataclass
class Outcome:
    state: GameState
    feedback: str
    changed: bool
    fired: list[str] = field(default_factory=list)
    wrong_answer: str | None = None  # normalised wrong answer entered at a lock
    lock: str | None = None


def view_wall(view: View, room: Room) -> str:
    """The wall the agent faces in `view`."""
    if view[0] == "wall":
        return view[1]
    if view[0] == "rec":
        return room.receptacle(view[1]).wall
    return view_wall(view[2], room)


PART_NAMES: dict[int, tuple[str, ...]] = {
    2: ("top", "bottom"),
    3: ("top", "middle", "bottom"),
    4: ("first", "second", "third", "fourth"),
}


def state_words(r: Receptacle, name: str) -> str:
    """A state in words: `opened_closed` on a chest of drawers reads "top drawer open, bottom drawer closed"."""
    words = name.split("_")
    if len(words) > 1 and all(w in ("opened", "closed", "open") for w in words):
        places = PART_NAMES.get(len(words), tuple(f"part {k + 1}" for k in range(len(words))))
        noun = "drawer" if r.kind in ("drawers", "desk") else "compartment"
        return ", ".join(
            f"{place} {noun} {'closed' if w == 'closed' else 'open'}"
            for place, w in zip(places, words, strict=False)
        )
    return name.replace("_", " ")


def verb_phrase(verb: str, r: Receptacle) -> str:
    """`open` -> "open the desk"; `open_top_drawer` -> "open top drawer (drawers)"."""
    words = verb.replace("_", " ")
    return f"{words} the {r.label}" if "_" not in verb else f"{words} ({r.label})"


class Engine:
    """Rules of one room with its quiz parameters fixed."""

    def __init__(
        self,
        room: Room,
        quiz_params: dict[str, dict[str, Any]],
        *,
        carry_clues: bool = False,
        answer_matching: str = "exact",
    ) -> None:
        self.room = room
        self.quiz_params = quiz_params
        # our extension: held items can be looked at again from any view (the original has no such view)
        self.carry_clues = carry_clues
        self.answer_matching = answer_matching
        self.rec_index = {r.id: k for k, r in enumerate(room.receptacles)}
        self.recs = {r.id: r for r in room.receptacles}
        self.items = {i.id: i for i in room.items}
        self.items_lower = {i.id.lower(): i.id for i in room.items}
        self.transitions: dict[str, list[Transition]] = {
            r.id: self._with_defaults(r) for r in room.receptacles
        }
        self.lock_quiz: dict[str, Quiz] = {q.lock: q for q in room.quizzes}
        self.checkpoints = [c.trigger for c in room.checkpoints]

    @staticmethod
    def _with_defaults(r: Receptacle) -> list[Transition]:
        """Add plain open/close between states named `closed` and `open` unless the author wrote them."""
        out = list(r.transitions)
        names = {s.name for s in r.states}
        verbs = {t.action for t in out}
        if {"closed", "open"} <= names and "open" not in verbs and "close" not in verbs:
            out.append(Transition.model_validate({"action": "open", "from": "closed", "to": "open"}))
            out.append(Transition.model_validate({"action": "close", "from": "open", "to": "closed"}))
        return out

    # --- state queries ---------------------------------------------------------------------------
    def initial_state(self) -> GameState:
        return self._settle(
            GameState(
                view=("wall", self.room.start_wall),
                states=tuple(r.initial_state for r in self.room.receptacles),
            ),
            [],
        )

    def rec_state(self, state: GameState, rid: str) -> str:
        return state.states[self.rec_index[rid]]

    def holds(self, rule: Rule | None, state: GameState) -> bool:
        if rule is None or rule.always is not None:
            return True if rule is None else bool(rule.always)
        if rule.has_item is not None:
            return rule.has_item in state.held
        if rule.trigger is not None:
            return rule.trigger in state.triggers
        if rule.state is not None:
            return self.rec_state(state, rule.state.receptacle) == rule.state.is_
        if rule.all_ is not None:
            return all(self.holds(r, state) for r in rule.all_)
        if rule.any_ is not None:
            return any(self.holds(r, state) for r in rule.any_)
        assert rule.not_ is not None
        return not self.holds(rule.not_, state)

    def visible_receptacles(self, state: GameState, wall: str) -> list[Receptacle]:
        return [r for r in self.room.receptacles if r.wall == wall and self.holds(r.visible, state)]

    def visible_items(self, state: GameState, rid: str) -> list[Item]:
        st = self.rec_state(state, rid)
        return [
            self.items[c.item]
            for c in self.recs[rid].contains
            if c.item not in state.gone and (c.states is None or st in c.states)
        ]

    def solved(self, state: GameState, lock_id: str) -> bool:
        return f"solved_{lock_id}" in state.triggers

    def cleared(self, state: GameState) -> bool:
        return self.rec_state(state, self.room.clear.receptacle) == self.room.clear.state

    def quiz_kind(self, lock_id: str) -> tuple[QuizKind, dict[str, Any]]:
        quiz = self.lock_quiz[lock_id]
        return get_kind(quiz.kind), self.quiz_params[quiz.id]

    def answer(self, lock_id: str) -> str:
        kind, params = self.quiz_kind(lock_id)
        return kind.answer(params)

    def reached_checkpoints(self, state: GameState) -> int:
        return sum(t in state.triggers for t in self.checkpoints)

    def next_checkpoint(self, state: GameState) -> int | None:
        """Index of the first checkpoint not reached yet (the one a hint points to)."""
        for k, t in enumerate(self.checkpoints):
            if t not in state.triggers:
                return k
        return None

    def answer_correct(self, lock: str, text: str) -> bool:
        """`exact` (the original: the answer string, ignoring case and surrounding spaces; a list answer
        such as colours or directions as its words in order, whatever separates them) or `normalised`
        (our extension: digits, letters or words read out of any spelling)."""
        kind, params = self.quiz_kind(lock)
        if self.answer_matching == "normalised":
            return kind.is_correct(params, text)
        answer = kind.answer(params)
        if kind.answer_type in ("colors", "directions"):
            return re.findall(r"[a-z]+", text.lower()) == re.findall(r"[a-z]+", answer.lower())
        return text.strip().lower() == answer.strip().lower()

    def lock_in_view(self, state: GameState) -> str | None:
        """The unsolved lock whose close-up is shown, if any."""
        v = state.view
        if v[0] == "item" and self.items[v[1]].kind == "lock" and not self.solved(state, v[1]):
            return v[1]
        return None

    # --- available actions ---------------------------------------------------------------------
    def verbs(self, state: GameState, rid: str) -> list[str]:
        st = self.rec_state(state, rid)
        r = self.recs[rid]
        out: list[str] = []
        for t in self.transitions[rid]:
            if t.action not in ("use", "auto") and st in t.from_ and t.action not in out:
                out.append(t.action)
        # trying to open something locked is allowed (and told it is locked)
        if (
            r.state(st).locked
            and "open" not in out
            and any(t.action == "open" for t in self.transitions[rid])
        ):
            out.insert(0, "open")
        return out

    def available(self, state: GameState, include_held_views: bool = True) -> list[str]:
        """The available actions in the paper's style; a lock close-up offers ANSWER_ACTION. As in the
        original game, `turn_to_<dir>` is offered from every view (all walls but the one faced)."""
        v = state.view
        out: list[str] = []
        held = sorted(state.held, key=str.lower)
        include_held_views = include_held_views and self.carry_clues
        if v[0] != "wall":
            wall = view_wall(v, self.room)
            out += [f"turn_to_{d}" for d in DIRECTIONS if d != wall]
        if v[0] == "wall":
            out += [f"turn_to_{d}" for d in DIRECTIONS if d != v[1]]
            out += [f"inspect {r.id}" for r in self.visible_receptacles(state, v[1])]
            if include_held_views:
                out += [f"inspect {i}" for i in held]
        elif v[0] == "rec":
            rid = v[1]
            out.append("step_back")
            out += self.verbs(state, rid)
            visible = self.visible_items(state, rid)
            for item in visible:
                if item.can_pick:
                    out.append(f"pick {item.id}")
                if item.kind == "button":
                    out.append(f"press {item.id}")
            out += [f"inspect {item.id}" for item in visible]
            if include_held_views:
                out += [f"inspect {i}" for i in held if f"inspect {i}" not in out]
            out += [f"use {i}" for i in held if self.items[i].applicable]
        else:
            iid = v[1]
            out.append("step_back")
            item = self.items[iid]
            if item.can_pick and iid not in state.held and iid not in state.gone:
                out.append(f"pick {iid}")
            if item.kind == "lock" and not self.solved(state, iid):
                out.append(ANSWER_ACTION)
        return out

    # --- parsing ---------------------------------------------------------------------------------
    def canonical(self, text: str) -> str:
        """Normalise a reply's action text to the canonical spelling (without judging availability)."""
        t = text.strip().strip("`'\"*[](){}.").strip()
        t = re.sub(r"\s+", " ", t)
        low = t.lower()
        m = re.fullmatch(r"turn[ _]?to[ _]?(?:the[ _])?(north|east|south|west)(?:[ _]wall)?", low)
        if m:
            return f"turn_to_{m.group(1)}"
        if re.fullmatch(r"step[ _]?back", low):
            return "step_back"
        m = re.fullmatch(
            r"(inspect|pick|use|press)(?:[ _]up)?[ _:]+(?:the )?['\"]?([A-Za-z0-9_ ]+?)['\"]?",
            t,
            re.IGNORECASE,
        )
        if m:
            verb, name = m.group(1).lower(), m.group(2).strip().replace(" ", "_")
            name = self.items_lower.get(name.lower(), name.lower() if name.lower() in self.recs else name)
            return f"{verb} {name}"
        return low.replace(" ", "_")

    # --- transitions -----------------------------------------------------------------------------
    def _set_rec(self, state: GameState, rid: str, to: str) -> GameState:
        states = list(state.states)
        states[self.rec_index[rid]] = to
        return replace(state, states=tuple(states))

    def _fire(self, state: GameState, trigger: str | None, fired: list[str]) -> GameState:
        if trigger is None or trigger in state.triggers:
            return state
        fired.append(trigger)
        return replace(state, triggers=state.triggers | {trigger})

    def _settle(self, state: GameState, fired: list[str]) -> GameState:
        """Apply `auto` transitions until none holds (bounded)."""
        for _ in range(MAX_AUTO_ROUNDS):
            moved = False
            for r in self.room.receptacles:
                st = self.rec_state(state, r.id)
                for t in self.transitions[r.id]:
                    if t.action == "auto" and st in t.from_ and t.to != st and self.holds(t.when, state):
                        state = self._fire(self._set_rec(state, r.id, t.to), t.trigger, fired)
                        moved = True
                        break
            if not moved:
                return state
        return state

    def apply(self, state: GameState, action: str) -> Outcome:
        """Apply an available action (the caller checked availability; answers come as ANSWER text)."""
        fired: list[str] = []
        v = state.view
        m = ANSWER_RE.search(action)
        if m is not None:
            return self._answer(state, m.group(1).strip(), fired)
        if action.startswith("turn_to_"):
            d = action.removeprefix("turn_to_")
            return Outcome(replace(state, view=("wall", d)), f"You turn to the {d} wall.", True)
        if action == "step_back":
            if v[0] == "rec":
                wall = self.recs[v[1]].wall
                return Outcome(
                    replace(state, view=("wall", wall)), f"You step back and see the whole {wall} wall.", True
                )
            return Outcome(replace(state, view=v[2]), "You step back.", True)
        verb, _, arg = action.partition(" ")
        if verb == "inspect":
            if arg in self.recs:
                return Outcome(
                    replace(state, view=("rec", arg)),
                    f"You take a close look at the {self.recs[arg].label}.",
                    True,
                )
            return Outcome(replace(state, view=("item", arg, v)), f"You take a close look at {arg}.", True)
        if verb == "pick":
            item = self.items[arg]
            new = replace(state, held=state.held | {arg}, gone=state.gone | {arg})
            new = self._settle(self._fire(new, f"picked_{arg}", fired), fired)
            return Outcome(
                new, f"You picked up {arg} ({item.words}). It is now in your inventory.", True, fired
            )
        if verb == "press":
            new = self._fire(state, f"pressed_{arg}", fired)
            new = self._settle(new, fired)
            if new == state:
                return Outcome(state, f"You press {arg}. Nothing else happens.", False)
            return Outcome(new, f"You press {arg}. Something clicks.", True, fired)
        if verb == "use":
            return self._use(state, arg, fired)
        return self._verb(state, action, fired)

    def _use(self, state: GameState, iid: str, fired: list[str]) -> Outcome:
        rid = state.view[1]
        r = self.recs[rid]
        st = self.rec_state(state, rid)
        for t in self.transitions[rid]:
            if t.action == "use" and t.item == iid and st in t.from_:
                if not self.holds(t.when, state):
                    return Outcome(
                        state, t.fail_message or f"Using {iid} on the {r.label} does nothing yet.", False
                    )
                new = self._set_rec(state, rid, t.to)
                if t.consume:
                    new = replace(new, held=new.held - {iid})
                new = self._settle(self._fire(new, t.trigger, fired), fired)
                words = t.message or f"You use {iid} on the {r.label}; it is now {state_words(r, t.to)}."
                return Outcome(new, words, True, fired)
        return Outcome(state, f"Using {iid} on the {r.label} has no effect.", False)

    def _verb(self, state: GameState, verb: str, fired: list[str]) -> Outcome:
        rid = state.view[1]
        r = self.recs[rid]
        st = self.rec_state(state, rid)
        candidates = [t for t in self.transitions[rid] if t.action == verb and st in t.from_]
        if not candidates:
            if r.state(st).locked:
                return Outcome(state, f"The {r.label} is locked.", False)
            return Outcome(state, f"You cannot {verb_phrase(verb, r)} now.", False)
        for t in candidates:
            if self.holds(t.when, state):
                new = self._settle(self._fire(self._set_rec(state, rid, t.to), t.trigger, fired), fired)
                words = t.message or f"You {verb_phrase(verb, r)}; it is now {state_words(r, t.to)}."
                return Outcome(new, words, new != state, fired)
        return Outcome(
            state,
            candidates[0].fail_message or f"You try to {verb_phrase(verb, r)}, but nothing happens.",
            False,
        )

    def _answer(self, state: GameState, text: str, fired: list[str]) -> Outcome:
        lock = self.lock_in_view(state)
        assert lock is not None
        kind, params = self.quiz_kind(lock)
        if self.answer_correct(lock, text):
            new = self._settle(self._fire(state, f"solved_{lock}", fired), fired)
            return Outcome(new, f"Correct! The {lock} clicks open.", True, fired, lock=lock)
        shown = text if len(text) <= 40 else text[:37] + "..."
        return Outcome(
            state,
            f"The answer '{shown}' is wrong; the {lock} stays shut.",
            False,
            wrong_answer=(kind.normalize(text) if self.answer_matching == "normalised" else "")
            or text.strip().lower(),
            lock=lock,
        )
