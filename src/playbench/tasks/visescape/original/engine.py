"""The original VisEscape game's rules, re-implemented over data (no code of the original runs).

The behaviour follows the authors' `src/vis_escape/game/manage/game_state.py`,
`src/vis_escape/objects/receptacle.py`, `item.py`, `game/core/rules.py` and the image choice of
`game/manage/view_manager.py` (pull-ups/VisEscape-demo, commit 9f65b99), including their quirks,
because the published walkthroughs and results were made with them:

- three views: a wall, a receptacle close-up, an item close-up; `turn_to_<dir>` works from every
  view; every receptacle action of the current state is offered, whether its rule holds or not;
- at an item close-up any text other than `step_back`, `use X` or a turn is an answer attempt,
  compared with the item's answer case-insensitively (`QuizItem.check_answer`);
- progress is measured in *triggers*, an ordered set of names: `picked_X`, `used X`, `solved_X`,
  and the action text of a button press or of any two-word receptacle action (`press Button`);
- the image of a view is chosen from the room's mapping files by the receptacles' states and the
  items visible in them; the file is shown unchanged.

`Game` is mutable (like the original) with `copy()`; `available_actions()` lists the actions in a
fixed order where the original lists a Python set (its order varies from run to run).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from playbench.tasks.visescape.original.pysource import HintProgram, run_hint_program

DIRECTIONS = ("NORTH", "EAST", "SOUTH", "WEST")

# A transition rule: ("always",) | ("has", item) | ("trigger", name) | ("and", (rule, ...)) | ("not", rule)
Rule = tuple[Any, ...]


@dataclass(frozen=True)
class ItemDef:
    name: str
    item_type: str
    cls: str  # the original's class name (Key, Button, NonKeyLock, ...)
    category: str  # "pickable" (PickableItem), "static" (StaticItem) or "quiz" (QuizItem)
    nonkey_lock: bool  # a NonKeyLock: answering it fires its receptacle's `unlock` transition
    actions: tuple[str, ...]  # what the item offers where it is visible ("pick key_A", "press Button")
    answer: str | None = None
    appliable_receptacle: str | None = None
    appliable_state: str | None = None
    after_solve_state: str | None = None

    @property
    def is_quiz(self) -> bool:
        return self.category == "quiz"

    @property
    def is_puzzle_view(self) -> bool:
        """The original agents' `isquiz()`: a quiz item whose name does not contain "key" takes an
        <ANSWER> at its close-up (so a number lock does, a key lock does not)."""
        return self.is_quiz and "key" not in self.name.lower()


@dataclass
class RecDef:
    id: str
    cls: str  # the original's class name (Safe, LockDoor, ...)
    states: list[str]
    initial: str
    # from state -> action -> (to state, rule); later definitions of a pair replace earlier ones in place
    transitions: dict[str, dict[str, tuple[str, Rule]]]
    interactable: list[tuple[str, frozenset[str]]]  # item name -> states in which it is visible


@dataclass
class RoomDef:
    name: str  # the original's folder name, "room1"
    walls: list[tuple[str, list[str]]]  # (wall id, receptacle ids) in the order given to GameState
    initial_direction: str
    items: dict[str, ItemDef]
    recs: dict[str, RecDef]
    clear: tuple[str, str] | None  # (receptacle, state)
    hints: dict[str, str] | HintProgram | None = None
    mappings: dict[str, dict[str, Any]] = field(default_factory=dict)  # "wall_view/NORTH" -> parsed JSON
    images: dict[str, set[str]] = field(default_factory=dict)  # "wall_view/NORTH" -> file names present

    def mapping(self, key: str) -> dict[str, Any] | None:
        """A mapping file by `kind/name`; matched ignoring case when the exact name is absent, as the
        authors' runs resolved it (their file system ignores case: room 20's `SensorLock.json` serves
        the item `Sensorlock` in their recorded runs)."""
        if key in self.mappings:
            return self.mappings[key]
        low = key.lower()
        return next((v for k, v in self.mappings.items() if k.lower() == low), None)

    def wall_of(self, rid: str) -> str:
        for wall, recs in self.walls:
            if rid in recs:
                return wall
        raise KeyError(rid)


def holds(rule: Rule, inventory: dict[str, Any], triggers: dict[str, bool]) -> bool:
    kind = rule[0]
    if kind == "always":
        return True
    if kind == "has":
        return rule[1] in inventory
    if kind == "trigger":
        return bool(triggers.get(rule[1], False))
    if kind == "and":
        return all(holds(r, inventory, triggers) for r in rule[1])
    if kind == "not":
        return not holds(rule[1], inventory, triggers)
    raise ValueError(f"unknown rule {rule!r}")


class Game:
    """One play of a room, with the original's rules (see the module docstring)."""

    def __init__(self, room: RoomDef) -> None:
        self.room = room
        self.wall_order = [w for w, _ in room.walls]
        self.rec_state = {rid: r.initial for rid, r in room.recs.items()}
        self.interactable: dict[str, dict[str, frozenset[str]]] = {
            rid: dict(r.interactable) for rid, r in room.recs.items()
        }
        self.contained: dict[str, list[str]] = {
            rid: [n for n, _ in r.interactable] for rid, r in room.recs.items()
        }
        # ReceptacleState.item_states: every item a receptacle held at the start, never removed
        self.item_state: dict[tuple[str, str], str] = {
            (rid, n): ("not_solved" if room.items[n].is_quiz else "default")
            for rid, r in room.recs.items()
            for n, _ in r.interactable
        }
        self.inventory: dict[str, None] = {}
        self.triggers: dict[str, bool] = {}
        start = room.initial_direction
        self.wall = start if start in self.wall_order else self.wall_order[0]
        self.view = "WALL"
        self.rec: str | None = None
        self.item: str | None = None

    def copy(self) -> Game:
        return copy.deepcopy(self)

    # --- queries -------------------------------------------------------------------------------
    def wall_recs(self, wall: str | None = None) -> list[str]:
        return dict(self.room.walls)[wall or self.wall]

    def on_wall(self, rid: str | None) -> bool:
        return rid is not None and rid in self.wall_recs()

    def visible_items(self, rid: str) -> list[str]:
        """`get_interactable_items_in_current_state`: items shown in the receptacle's current state."""
        st = self.rec_state[rid]
        return [n for n, states in self.interactable[rid].items() if st in states]

    def full_state(self, rid: str) -> tuple[Any, ...]:
        return (
            self.rec_state[rid],
            tuple(sorted(self.visible_items(rid))),
            tuple(sorted(self.contained[rid])),
        )

    def item_by_name(self, name: str) -> ItemDef | None:
        """`get_item_by_name`: any item a receptacle held at the start (picked ones included)."""
        for _wall, recs in self.room.walls:
            for rid in recs:
                if (rid, name) in self.item_state:
                    return self.room.items[name]
        return None

    def rec_actions(self, rid: str) -> list[str]:
        """`Receptacle.get_actions`: the current state's transition actions, then the visible items' actions."""
        out = list(self.room.recs[rid].transitions.get(self.rec_state[rid], {}))
        visible = self.visible_items(rid)
        for n in visible:
            if n in self.contained[rid]:
                out += self.room.items[n].actions
        return list(dict.fromkeys(out))

    def available_actions(self) -> list[str]:
        """`GameState.get_available_actions` (its set-ordered parts in a fixed order)."""
        out = [f"turn_to_{d.lower()}" for d in DIRECTIONS if d != self.wall]
        if self.view == "WALL":
            out += [f"inspect {rid}" for rid in self.wall_recs()]
        elif self.view == "RECEPTACLE":
            out.append("step_back")
            if self.rec is not None:
                if not self.on_wall(self.rec):
                    return []
                out += [a for a in self.rec_actions(self.rec) if "use" not in a]
                out += [f"use {n}" for n in self.inventory]
                for n in self.visible_items(self.rec):
                    out += self.room.items[n].actions
        elif self.view == "ITEM":
            out.append("step_back")
            out += [f"use {n}" for n in self.inventory]
        return list(dict.fromkeys(out))

    def current_item(self) -> ItemDef | None:
        return self.room.items[self.item] if self.view == "ITEM" and self.item else None

    def accepts_answer(self) -> bool:
        """The game takes typed text as an answer attempt at the close-up of any quiz item (a lock)."""
        item = self.current_item()
        return item is not None and item.is_quiz

    def takes_answer(self) -> bool:
        """The original agents' `isquiz()`: the close-up shows a lock that takes a typed answer."""
        item = self.current_item()
        return item is not None and item.is_puzzle_view

    def cleared(self) -> bool:
        clear = self.room.clear
        return clear is not None and self.rec_state.get(clear[0]) == clear[1]

    def location(self) -> str:
        """`get_current_location`: "At NORTH side of room, ", "At Safe, ", "At Numberlock_A, "."""
        if self.view == "WALL":
            return f"At {self.wall} side of room, "
        if self.view == "RECEPTACLE" and self.rec and self.on_wall(self.rec):
            return f"At {self.rec}, "
        if self.view == "ITEM" and self.item:
            return f"At {self.item}, "
        return "Unknown location"

    def last_trigger(self) -> str:
        return next(reversed(self.triggers), "") if self.triggers else ""

    def hint(self) -> str | None:
        """The hint the original gives now: the room's hint for the last trigger reached (or its hint
        function's answer). None where the original has no entry (its run would stop with a KeyError)."""
        hints = self.room.hints
        if isinstance(hints, HintProgram):
            return run_hint_program(hints, self.triggers)
        if isinstance(hints, dict):
            return hints.get(self.last_trigger())
        return None

    # --- acting --------------------------------------------------------------------------------
    def _turns(self, target: str) -> list[str]:
        cur, tgt = DIRECTIONS.index(self.wall), DIRECTIONS.index(target)
        right, left = (tgt - cur) % 4, (cur - tgt) % 4
        return ["right"] * right if right <= left else ["left"] * left

    def _solve(self, rid: str, name: str, attempt: str) -> bool:
        """`ItemState.solve_question`: a quiz item whose answer equals the attempt (ignoring case) is solved."""
        item = self.room.items[name]
        if item.is_quiz and item.answer is not None and item.answer.lower() == attempt.lower():
            self.item_state[(rid, name)] = "solved"
            return True
        return False

    def _pick(self, rid: str, name: str) -> None:
        if name not in self.visible_items(rid):
            return  # the original raises here; the action is never offered then
        if name in self.contained[rid]:
            self.contained[rid].remove(name)
        self.interactable[rid].pop(name, None)
        self.triggers[f"picked_{name}"] = True
        self.inventory[name] = None

    def _use_item(self, rid: str, name: str) -> None:
        if name not in self.inventory:
            return
        item = self.room.items[name]
        if item.appliable_receptacle == rid and self.rec_state[rid] == item.appliable_state:
            self.triggers[f"used_{name}"] = True
        del self.inventory[name]

    def _rec_handle(self, rid: str, action: str) -> None:
        """`Receptacle.handle_action`."""
        st = self.rec_state[rid]
        trans = self.room.recs[rid].transitions
        for n in self.visible_items(rid):
            item = self.room.items[n]
            if item.nonkey_lock and item.answer is not None and item.answer.lower() == action.lower():
                if "unlock" in trans.get(st, {}):
                    self.rec_state[rid] = trans[st]["unlock"][0]
                return
        if " " in action:
            kind, target = action.split(" ")[0], action.split(" ")[1]
            if kind == "pick":
                self._pick(rid, target)
                return
            if kind == "use":
                if action in trans.get(st, {}):
                    to, rule = trans[st][action]
                    if holds(rule, self.inventory, self.triggers):
                        self._use_item(rid, target)
                        self.rec_state[rid] = to
                return
            if action in trans.get(st, {}):
                to, rule = trans[st][action]
                if holds(rule, self.inventory, self.triggers):
                    self.rec_state[rid] = to
            self.triggers[action] = True
            return
        if action in trans.get(st, {}):
            to, rule = trans[st][action]
            if holds(rule, self.inventory, self.triggers):
                self.rec_state[rid] = to

    def _apply_on(self, rid: str, action: str) -> bool:
        """`ReceptacleState.apply_action`: True when the receptacle's full state changed."""
        if action.startswith("inspect "):
            return (rid, action.split("inspect ")[1]) in self.item_state
        before = self.full_state(rid)
        self._rec_handle(rid, action)
        return self.full_state(rid) != before

    def _act_on_receptacle(self, rid: str, action: str, item: ItemDef | None) -> bool:
        """`_handle_action_on_receptacle`: an item bound to a receptacle (a button) sets that receptacle's
        state directly; other actions go to the receptacle in view."""
        if item is None:
            return rid in self.rec_state and self._apply_on(rid, action)
        target = item.appliable_receptacle
        if target is not None and target in self.rec_state:
            if self.rec_state[target] == item.appliable_state:
                self.triggers[action] = True
                self.rec_state[target] = item.after_solve_state or self.rec_state[target]
                return True
            return False
        return self._apply_on(rid, action)

    def handle_action(self, action: str) -> bool:
        """`GameState.handle_action`: apply an action (or, at an item close-up, an answer attempt)."""
        if action.startswith("turn_to_"):
            target = action.split("turn_to_")[1].upper()
            if target == self.wall or target not in DIRECTIONS:
                return False
            for turn in self._turns(target):
                k = self.wall_order.index(self.wall)
                self.wall = self.wall_order[(k + (1 if turn == "right" else -1)) % len(self.wall_order)]
            self.view, self.rec, self.item = "WALL", None, None
            return True
        result = False
        if self.view == "WALL":
            if action.startswith("inspect "):
                rid = action.split("inspect ")[1]
                if rid in self.wall_recs():
                    self.view, self.rec = "RECEPTACLE", rid
                    result = True
        elif self.view == "RECEPTACLE":
            if action not in self.available_actions() or self.rec is None:
                return False
            rid = self.rec
            if action == "step_back":
                self.view, self.rec = "WALL", None
                result = True
            elif action.startswith("inspect "):
                name = action.split("inspect ")[1]
                if (rid, name) in self.item_state:
                    self.view, self.item = "ITEM", name
                    result = True
            elif action.startswith("use "):
                name = action.split("use ")[1]
                item = self.item_by_name(name)
                lock = next(
                    (
                        n
                        for (r, n) in self.item_state
                        if r == rid and "lock" in self.room.items[n].item_type.lower()
                    ),
                    None,
                )
                if item is not None and lock is not None and self.room.items[lock].is_quiz:
                    if self._solve(rid, lock, action):
                        self.triggers[f"used {name}"] = True
                        result = self._act_on_receptacle(rid, action, item)
                        if name in self.contained[rid]:
                            self.contained[rid].remove(name)
                elif item is not None and item.category == "pickable":
                    defined = {a for acts in self.room.recs[rid].transitions.values() for a in acts}
                    if action in defined:
                        self.triggers[f"used {name}"] = True
                        result = self._act_on_receptacle(rid, action, item)
            else:
                item = self.item_by_name(action.split(" ")[1]) if " " in action else None
                result = self._act_on_receptacle(rid, action, item)
        elif self.view == "ITEM":
            if not self.item or self.rec is None:
                return False
            rid, name = self.rec, self.item
            if action == "step_back":
                self.view, self.item = "RECEPTACLE", None
                result = True
            elif action.startswith("use "):
                used = action.split("use ")[1]
                item = self.item_by_name(used)
                if item is not None and self.room.items[name].is_quiz and self._solve(rid, name, action):
                    self.triggers[f"used {used}"] = True
                    result = self._act_on_receptacle(rid, action, item)
                    if used in self.contained[rid]:
                        self.contained[rid].remove(used)
                    self.view, self.item = "RECEPTACLE", None
            elif self._solve(rid, name, action):
                self.triggers[f"solved_{name}"] = True
                target = self.room.items[name].appliable_receptacle
                if target is not None and target in self.wall_recs():
                    result = self._apply_on(target, action)
                    self.view, self.item = "RECEPTACLE", None
        return result

    # --- images --------------------------------------------------------------------------------
    def image(self) -> str:
        """The image of the current view as `image/<kind>/<folder>/<file>`, chosen as the original's
        ViewManager does; "" where the mapping gives none."""
        if self.view == "WALL":
            return self._wall_image()
        if self.view == "RECEPTACLE" and self.rec and self.on_wall(self.rec):
            file = self._rec_image(self.rec)
            return f"image/object_view/{self.rec}/{file}" if file else ""
        if self.view == "ITEM" and self.item and self.rec:
            state = self.item_state.get((self.rec, self.item))
            mapping = self.room.mapping(f"item_view/{self.item}")
            if state is None or mapping is None:
                return ""
            for entry in mapping.get("item_states", []):
                if entry.get("name") == state:
                    return f"image/item_view/{self.item}/{entry['image_path']}"
        return ""

    def _rec_image(self, rid: str) -> str | None:
        mapping = self.room.mapping(f"object_view/{rid}")
        if mapping is None:
            return None
        state, items = self.rec_state[rid], set(self.visible_items(rid))
        for scene in mapping.get("scene_states", []):
            obj = scene.get("object_states", {})
            if obj.get("receptacle_state") == state and set(obj.get("items", [])) == items:
                return scene["image_path"]
        return None

    def _wall_image(self) -> str:
        key = f"wall_view/{self.wall}"
        mapping = self.room.mapping(key) or {"scene_states": []}
        present = {f.rsplit(".", 1)[0] if "." in f else f: f for f in self.room.images.get(key, set())}
        here = {rid: (self.rec_state[rid], set(self.visible_items(rid))) for rid in self.wall_recs()}
        matching = [
            scene
            for scene in mapping.get("scene_states", [])
            if all(
                scene["object_states"][rid]["receptacle_state"] == st
                for rid, (st, _) in here.items()
                if rid in scene["object_states"]
            )
        ]
        if not matching:
            stem = "0"
        elif len(matching) == 1:
            stem = matching[0]["image_path"].split(".")[0]
        else:
            counts = [
                sum(
                    1
                    for rid, (_, items) in here.items()
                    if rid in scene["object_states"] and set(scene["object_states"][rid]["items"]) == items
                )
                for scene in matching
            ]
            stem = matching[counts.index(max(counts))]["image_path"].split(".")[0]
        file = present.get(stem) or present.get("default")
        return f"image/{key}/{file}" if file else ""

    # --- the whole state, for records and checks -----------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {
            "wall": self.wall,
            "view": self.view,
            "receptacle": self.rec,
            "item": self.item,
            "receptacles": dict(self.rec_state),
            "visible": {rid: sorted(v) for rid, v in self.interactable.items()},
            "contained": {rid: sorted(v) for rid, v in self.contained.items()},
            "items": {f"{r}/{n}": s for (r, n), s in sorted(self.item_state.items())},
            "inventory": list(self.inventory),
            "triggers": list(self.triggers),
        }
