"""The declarative room format of VisEscape (one JSON or YAML file per room), validated by pydantic.

A room is four walls with receptacles (furniture with named states and guarded transitions), items
(applicable items such as keys and cards, clue items, locks, buttons), quizzes linking a clue to a
lock, an ordered list of checkpoints with one hint each, and a clear condition. The README section
"Authoring a room" explains every field with an example; `load_room` turns any problem into one
`RoomFormatError` whose message names the file and the offending field.

Triggers are plain names. Besides the `trigger` a transition may fire, the engine fires
`picked_<item>` when an item is picked up, `solved_<lock>` when a lock's answer is entered and
`pressed_<button>` when a button is pressed. Checkpoints are triggers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from playbench.core.errors import ConfigError
from playbench.tasks.visescape.colors import ColorName
from playbench.tasks.visescape.quizzes import QUIZ_KINDS

DIRECTIONS: tuple[str, ...] = ("north", "east", "south", "west")
Direction = Literal["north", "east", "south", "west"]

# How each kind of furniture is drawn (views.py); any state names work with any kind.
ReceptacleKind = Literal[
    "door", "wardrobe", "cabinet", "drawers", "desk", "safe", "chest", "bookshelf",
    "painting", "clock", "lamp", "computer", "table", "plant", "mirror", "board",
]  # fmt: skip

# Applicable items can be picked up and used on receptacles.
ApplicableKind = Literal[
    "key", "card", "coin", "battery", "fuse", "screwdriver", "gem", "bulb", "handle", "remote"
]
APPLICABLE_KINDS: tuple[str, ...] = get_args(ApplicableKind)
# Clue items carry a quiz clue (or any text) and are read through their close-up.
ClueKind = Literal["note", "photo", "book", "poster"]
ItemKind = Literal[ApplicableKind, ClueKind, Literal["lock", "button"]]

NAME = re.compile(r"^[a-z][a-z0-9_]*$")  # receptacle ids, verbs, triggers, state names
ITEM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")  # item ids keep the paper's style (key_A)
RESERVED_VERBS = {"use", "auto", "pick", "inspect", "press", "step_back", "answer"}


class RoomFormatError(ConfigError):
    """A room file that cannot be loaded; the message names the file and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class StateRef(_Strict):
    receptacle: str
    is_: str = Field(alias="is")


class Rule(_Strict):
    """A guard. Exactly one key: `always`, `has_item`, `trigger`, `state`, `and`, `or`, `not`.

    The string "always" is accepted as a shorthand for `{"always": true}`.
    """

    always: bool | None = None
    has_item: str | None = None
    trigger: str | None = None
    state: StateRef | None = None
    all_: list[Rule] | None = Field(None, alias="and")
    any_: list[Rule] | None = Field(None, alias="or")
    not_: Rule | None = Field(None, alias="not")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if value == "always":
            return {"always": True}
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> Rule:
        keys = [
            k
            for k in ("always", "has_item", "trigger", "state", "all_", "any_", "not_")
            if getattr(self, k) is not None
        ]
        if len(keys) != 1:
            shown = [k.rstrip("_") for k in keys]
            raise ValueError(
                "a rule needs exactly one of always, has_item, trigger, state, and, or, not "
                f"(got {', '.join(shown) if shown else 'none'})"
            )
        for name in ("all_", "any_"):
            value = getattr(self, name)
            if value is not None and not value:
                raise ValueError(f"'{name.rstrip('_')}' needs at least one rule")
        return self

    def references(self) -> tuple[set[str], set[str], set[tuple[str, str]]]:
        """(item ids, trigger names, (receptacle, state) pairs) this rule mentions."""
        items: set[str] = set()
        triggers: set[str] = set()
        states: set[tuple[str, str]] = set()
        if self.has_item is not None:
            items.add(self.has_item)
        if self.trigger is not None:
            triggers.add(self.trigger)
        if self.state is not None:
            states.add((self.state.receptacle, self.state.is_))
        for sub in (self.all_ or []) + (self.any_ or []) + ([self.not_] if self.not_ else []):
            i, t, s = sub.references()
            items |= i
            triggers |= t
            states |= s
        return items, triggers, states


class StateSpec(_Strict):
    """A named state and how it looks. A bare string infers the look from the name:
    names containing `locked` show a lock, `open` shows the inside (`opened_closed` style names
    open the compartments whose part is `opened`), `on`/`lit`/`running`/`powered`/`active` light it
    up (a lamp's cone, a screen, else a green indicator light), `moved`/`pushed`/`pulled`/`raised`/
    `rolled` shift it aside, `screwed` shows screws on its front."""

    name: str
    locked: bool = False
    open: bool = False
    open_parts: list[int] = Field(default_factory=list)
    lit: bool = False
    moved: bool = False
    screwed: bool = False  # screws hold its front shut
    description: str | None = None  # extra words for the ground-truth caption

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            return infer_state_look(value)
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            # a written-out state keeps the look its name implies unless it says otherwise
            return {**infer_state_look(value["name"]), **value}
        return value

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError(
                f"state name {value!r} must be lowercase letters, digits and _ (start with a letter)"
            )
        return value


def infer_state_look(name: str) -> dict[str, Any]:
    """The look a bare state name implies (see `StateSpec`)."""
    words = name.split("_")
    look: dict[str, Any] = {"name": name}
    if "locked" in words:
        look["locked"] = True
    if len(words) > 1 and all(w in ("opened", "closed", "open") for w in words):
        look["open_parts"] = [i for i, w in enumerate(words) if w in ("opened", "open")]
    elif "open" in words or "opened" in words:
        look["open"] = True
    if any(w in ("on", "lit", "running", "powered", "active") for w in words):
        look["lit"] = True
    if "screwed" in words:
        look["screwed"] = True
    if any(w in ("moved", "pushed", "pulled", "raised", "rolled") for w in words):
        look["moved"] = True
    return look


class Transition(_Strict):
    """`action` is a verb shown as an available action in the receptacle's close-up (`open`,
    `pull_lever`, ...), `use` (applying the held `item`) or `auto` (fires by itself as soon as
    `when` holds). `from` lists the states it applies in."""

    action: str
    item: str | None = None
    from_: list[str] = Field(alias="from")
    to: str
    when: Rule | None = None
    trigger: str | None = None
    consume: bool = True  # a used item leaves the inventory
    message: str | None = None  # feedback when it fires
    fail_message: str | None = None  # feedback when `when` does not hold

    @field_validator("from_", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _check(self) -> Transition:
        if not NAME.match(self.action):
            raise ValueError(f"action {self.action!r} must be lowercase letters, digits and _")
        if self.action in RESERVED_VERBS - {"use", "auto"}:
            raise ValueError(f"action {self.action!r} is reserved for the engine; choose another verb")
        if self.action == "use" and self.item is None:
            raise ValueError("a 'use' transition needs the 'item' it applies")
        if self.action != "use" and self.item is not None:
            raise ValueError(f"only 'use' transitions take an item (action is {self.action!r})")
        if self.action == "auto" and self.when is None:
            raise ValueError("an 'auto' transition needs a 'when' rule (else it would fire at once)")
        if self.trigger is not None and not NAME.match(self.trigger):
            raise ValueError(f"trigger {self.trigger!r} must be lowercase letters, digits and _")
        if not self.from_:
            raise ValueError("'from' needs at least one state")
        return self


class Contained(_Strict):
    """An item shown by a receptacle while it is in one of `states` (all states if omitted)."""

    item: str
    states: list[str] | None = None
    part: int | None = None  # which compartment/drawer it lies in (drawing only)


class Receptacle(_Strict):
    id: str
    kind: ReceptacleKind
    wall: Direction
    name: str | None = None  # display name; the id by default
    color: ColorName = "brown"
    states: list[StateSpec] = Field(default_factory=lambda: [StateSpec(name="idle")])
    initial: str | None = None  # the first state by default
    transitions: list[Transition] = Field(default_factory=list)
    contains: list[Contained] = Field(default_factory=list)
    visible: Rule | None = None  # hidden until the rule holds (e.g. a secret panel)
    parts: int = Field(1, ge=1, le=4)  # drawers/compartments drawn (for open_parts)
    description: str | None = None  # appearance words for captions

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError(f"receptacle id {value!r} must be lowercase letters, digits and _")
        return value

    @property
    def label(self) -> str:
        return self.name or self.id

    def state(self, name: str) -> StateSpec:
        for s in self.states:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def initial_state(self) -> str:
        return self.initial or self.states[0].name


class Item(_Strict):
    id: str
    kind: ItemKind
    name: str | None = None  # display words ("brass key"); captions use them
    color: ColorName = "gold"
    label: str | None = None  # short text printed on it (a card's name, a book's title)
    text: str | None = None  # text written on a note that has no quiz
    pickable: bool | None = None  # applicable items and notes/photos: yes; locks and buttons: no

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not ITEM_NAME.match(value):
            raise ValueError(f"item id {value!r} must be letters, digits and _ (start with a letter)")
        return value

    @property
    def applicable(self) -> bool:
        return self.kind in APPLICABLE_KINDS

    @property
    def can_pick(self) -> bool:
        if self.pickable is not None:
            return self.pickable
        return self.kind in APPLICABLE_KINDS or self.kind in ("note", "photo")

    @property
    def words(self) -> str:
        return self.name or self.id.replace("_", " ")

    @model_validator(mode="after")
    def _check(self) -> Item:
        if self.kind in ("lock", "button") and self.pickable:
            raise ValueError(f"a {self.kind} cannot be pickable")
        return self


class Quiz(_Strict):
    """A visual quiz: the clue shown by `clue` (an item or a receptacle) opens the lock item `lock`.

    `params` fixes the puzzle (see quizzes.py for each kind); when omitted they are drawn from a seed
    derived from the room and quiz ids, so the room file stays short and the puzzle stays fixed."""

    id: str
    kind: str
    clue: str
    lock: str
    params: dict[str, Any] | None = None
    clue_states: list[str] | None = None  # when the clue is a receptacle: the states that show it

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in QUIZ_KINDS:
            raise ValueError(f"unknown quiz kind {value!r}; known: {', '.join(QUIZ_KINDS)}")
        return value


class Checkpoint(_Strict):
    trigger: str
    hint: str


class ClearCondition(_Strict):
    receptacle: str
    state: str


class Room(_Strict):
    schema_version: Literal[1] = 1
    id: str
    title: str = "Escape room"
    start_wall: Direction = "north"
    wall_color: ColorName = "beige"
    floor_color: ColorName = "brown"
    receptacles: list[Receptacle]
    items: list[Item] = Field(default_factory=list)
    quizzes: list[Quiz] = Field(default_factory=list)
    checkpoints: list[Checkpoint]
    clear: ClearCondition

    # --- lookups ---------------------------------------------------------------------------
    def receptacle(self, rid: str) -> Receptacle:
        for r in self.receptacles:
            if r.id == rid:
                return r
        raise KeyError(rid)

    def location(self, iid: str) -> Receptacle:
        for r in self.receptacles:
            if any(c.item == iid for c in r.contains):
                return r
        raise KeyError(iid)

    def producible_triggers(self) -> set[str]:
        out = {t.trigger for r in self.receptacles for t in r.transitions if t.trigger}
        for item in self.items:
            if item.can_pick:
                out.add(f"picked_{item.id}")
            if item.kind == "lock":
                out.add(f"solved_{item.id}")
            if item.kind == "button":
                out.add(f"pressed_{item.id}")
        return out

    # --- validation ------------------------------------------------------------------------
    @model_validator(mode="after")
    def _consistent(self) -> Room:
        problems: list[str] = []
        rids = [r.id for r in self.receptacles]
        iids = [i.id for i in self.items]
        for dup in sorted({x for x in rids + iids if (rids + iids).count(x) > 1}):
            problems.append(
                f"id {dup!r} is used more than once (receptacle and item ids share one namespace)"
            )
        items = {i.id: i for i in self.items}
        recs = {r.id: r for r in self.receptacles}
        lowered: dict[str, str] = {}
        for iid in iids:
            if iid.lower() in lowered and lowered[iid.lower()] != iid:
                problems.append(f"item ids {lowered[iid.lower()]!r} and {iid!r} differ only in case")
            lowered[iid.lower()] = iid
        triggers = self.producible_triggers()

        def check_rule(rule: Rule | None, where: str) -> None:
            if rule is None:
                return
            r_items, r_triggers, r_states = rule.references()
            for i in sorted(r_items - set(items)):
                problems.append(f"{where}: has_item names unknown item {i!r}")
            for t in sorted(r_triggers - triggers):
                problems.append(
                    f"{where}: trigger {t!r} is never fired (known: {', '.join(sorted(triggers))})"
                )
            for rid, st in sorted(r_states):
                if rid not in recs:
                    problems.append(f"{where}: state rule names unknown receptacle {rid!r}")
                elif st not in {s.name for s in recs[rid].states}:
                    problems.append(f"{where}: {rid!r} has no state {st!r}")

        located: dict[str, str] = {}
        for r in self.receptacles:
            names = [s.name for s in r.states]
            where = f"receptacle {r.id!r}"
            if len(set(names)) != len(names):
                problems.append(f"{where}: state names repeat ({', '.join(names)})")
            if r.initial is not None and r.initial not in names:
                problems.append(f"{where}: initial state {r.initial!r} is not one of {', '.join(names)}")
            for k, t in enumerate(r.transitions, 1):
                tw = f"{where} transition {k} ({t.action})"
                for st in [*t.from_, t.to]:
                    if st not in names:
                        problems.append(f"{tw}: state {st!r} is not one of {', '.join(names)}")
                if t.item is not None:
                    if t.item not in items:
                        problems.append(f"{tw}: unknown item {t.item!r}")
                    elif not items[t.item].applicable:
                        problems.append(
                            f"{tw}: item {t.item!r} is a {items[t.item].kind}, which cannot be used"
                        )
                check_rule(t.when, tw)
            check_rule(r.visible, f"{where} visible")
            for c in r.contains:
                if c.item not in items:
                    problems.append(f"{where} contains unknown item {c.item!r}")
                if c.item in located:
                    problems.append(f"item {c.item!r} is placed in both {located[c.item]!r} and {r.id!r}")
                located[c.item] = r.id
                for st in c.states or []:
                    if st not in names:
                        problems.append(f"{where} shows {c.item!r} in unknown state {st!r}")
        for iid in iids:
            if iid not in located:
                problems.append(f"item {iid!r} is not placed in any receptacle (add it to one's 'contains')")
        quiz_ids = [q.id for q in self.quizzes]
        if len(set(quiz_ids)) != len(quiz_ids):
            problems.append("quiz ids repeat")
        for q in self.quizzes:
            if q.clue not in items and q.clue not in recs:
                problems.append(f"quiz {q.id!r}: clue {q.clue!r} is neither an item nor a receptacle")
            if q.clue_states is not None:
                if q.clue not in recs:
                    problems.append(f"quiz {q.id!r}: clue_states only apply when the clue is a receptacle")
                else:
                    bad = [st for st in q.clue_states if st not in {s.name for s in recs[q.clue].states}]
                    if bad:
                        problems.append(f"quiz {q.id!r}: clue_states {bad} are not states of {q.clue!r}")
            if q.lock not in items or items[q.lock].kind != "lock":
                problems.append(f"quiz {q.id!r}: lock {q.lock!r} must be an item of kind 'lock'")
        for lock in (i for i in self.items if i.kind == "lock"):
            n = sum(q.lock == lock.id for q in self.quizzes)
            if n != 1:
                problems.append(f"lock {lock.id!r} needs exactly one quiz (has {n})")
        seen: set[str] = set()
        for k, cp in enumerate(self.checkpoints, 1):
            if cp.trigger not in triggers:
                problems.append(
                    f"checkpoint {k}: trigger {cp.trigger!r} is never fired (known: {', '.join(sorted(triggers))})"
                )
            if cp.trigger in seen:
                problems.append(f"checkpoint {k}: trigger {cp.trigger!r} is listed twice")
            seen.add(cp.trigger)
        if not self.checkpoints:
            problems.append("a room needs at least one checkpoint")
        if self.clear.receptacle not in recs:
            problems.append(f"clear: unknown receptacle {self.clear.receptacle!r}")
        elif self.clear.state not in {s.name for s in recs[self.clear.receptacle].states}:
            problems.append(f"clear: {self.clear.receptacle!r} has no state {self.clear.state!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


def format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_room(data: Any, source: str = "room") -> Room:
    """Validate room data; any problem becomes one RoomFormatError naming `source`."""
    if not isinstance(data, dict):
        raise RoomFormatError(f"{source}: a room must be a mapping, got {type(data).__name__}")
    try:
        return Room.model_validate(data)
    except ValidationError as exc:
        raise RoomFormatError(f"{source}: {format_validation_error(exc)}") from None


def load_room_file(path: str | Path) -> Room:
    """Load a `.json`, `.yaml` or `.yml` room file."""
    p = Path(path)
    if not p.is_file():
        raise RoomFormatError(f"room file {str(p)!r} does not exist")
    text = p.read_text(encoding="utf-8")
    try:
        if p.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as exc:  # noqa: BLE001 - any parser error becomes one clear message
        raise RoomFormatError(f"{p.name}: not valid {p.suffix.lstrip('.') or 'json'}: {exc}") from None
    return parse_room(data, p.name)
