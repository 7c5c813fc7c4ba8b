"""The original's responses to an action (`prompts=original`): src/BaseGame.py `BaseGame.interaction`
and src/Game.py `Game.get_action` of EscapeCraft, their facts in their words or ours (`words.py`)."""

from __future__ import annotations

import math

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action
from playbench.tasks.mmescape.chain import ChainItem
from playbench.tasks.mmescape.game_state import GameState, Outcome
from playbench.tasks.mmescape.schema import EscapeInstance
from playbench.tasks.mmescape.words import Words


class OriginalResponses:
    """The original's game responses: the reply's keys answered in order, then the motion.

    Mixed into `Rules` (`engine.py`), whose state (`world`, `inst`, `items`, `words`, `hint`, `read_scope`,
    `grab_rule`) and motion (`_turn`, `_move`, `centre_hit`, `view_targets`) it uses.
    """

    world: geo.World
    inst: EscapeInstance
    items: dict[str, ChainItem]
    words: Words
    hint: str
    read_scope: str
    grab_rule: str

    def _apply_original(self, state: GameState, action: Action, centre_entity: int | None) -> Outcome:
        """The original's `Game.get_action` and `BaseGame.interaction`: the reply's keys in order,
        each adding its response; then the motion. (Their facts; their words or ours: `self.words`.)"""
        w = self.words
        out = Outcome()
        desc = ""
        interacted = False  # their obj_interact: a grab or a read was attempted
        failed = action.grab or action.read is not None  # their obj_interact_fail
        before = state.copy()
        targets = self.view_targets(before) if action.grab and self.grab_rule == "view" else None
        # the motion happens after the keys (their env.step); its effect on the state comes first
        # here only for the centre rule, which aims after the motion (playbench's rule)
        moved = Outcome()
        self._turn(state, action, moved)
        if action.move_forward or action.jump:
            self._move(state, action, moved)
        out.moved, out.turned = moved.moved, moved.turned
        for key in action.order:
            if key in ("move_forward", "move_right", "rotate_right", "rotate_down", "jump"):
                said = w.raw("action.moved")
                if action.moved_keys and said not in desc:
                    desc += said
            elif key == "look_at":
                said = w.raw("action.view")
                if action.look_key and said not in desc:
                    desc += said
            elif key == "grab" and action.grab:
                interacted = True
                out.grabbed = True
                if not action.has_rationale:
                    out.grab_ignored = (
                        True  # their code reads the rationale to log it; without one it skips the grab
                    )
                    continue
                if targets is not None:
                    near, seen = targets
                else:
                    near, seen = self._centre_target(state, centre_entity if not action.moves else None)
                if near:
                    parts = []
                    for i, eid in enumerate(near):
                        text = self._interact_original(state, eid, action.use_item_id, action.input, out)
                        parts.append(text)
                        desc += w.fill("action.interaction", n=i + 1, desc=text)
                        out.targets.append(eid)
                    out.target = near[0]
                    out.interaction = "\n".join(parts)
                    failed = False
                elif seen:
                    out.in_view = True
                    desc += w.raw("action.too_far")
                else:
                    desc += w.raw("action.nothing")
            elif key == "read" and action.read:
                text = self._read_original(state, action.read, out)
                if text is not None:
                    desc = text  # their read replaces what the earlier keys said
                    interacted = True
                    if text:
                        failed = False
        out.text = w.turn(desc, interacted, failed)
        out.lines.append(out.text)
        return out

    def _centre_target(self, state: GameState, entity: int | None) -> tuple[list[int], bool]:
        """The centre rule's target in the original's terms: ([the object under the dot], seen)."""
        if entity is None:
            entity, _ = self.centre_hit(state)
        ent = self.world.entities.get(entity)
        if ent is None or ent.kind not in ("item", "door"):
            return [], False
        if math.hypot(ent.x - state.x, ent.z - state.z) > geo.REACH:
            return [], True
        return [entity], True

    def _description(self, item: ChainItem) -> str | None:
        """The original's `description` of an item (`BaseGame.__add_description`): keys and boxes."""
        w = self.words
        if item.type == "key":
            return w.raw("item.key")
        if item.type == "box":
            m = item.unlock_method
            if m is not None and m.type != "none":
                return w.raw("item.box") + w.fill("item.box_lock", lock=m.type)
        return None

    def describe(self, item_id: str) -> str:
        """The original's line for an item in the bag (`Bag.get_item_desc`)."""
        w = self.words
        item = self.items[item_id]
        if item.type == "paper":
            text = w.fill("bag.paper", id=item_id)
            for c in item.contents:
                if c in self.items:
                    text += w.fill("bag.paper_numbers", password=self.items[c].value)
            if item.story:
                text += w.fill("bag.paper_other", what="story")
            return text
        return w.fill("bag.item", id=item_id, type=item.type, description=self._description(item) or "")

    def bag_lines(self, state: GameState) -> str:
        """The original's bag description: every item's line, empty when the bag is."""
        return "".join(self.describe(i) for i in state.bag)

    def bag_text(self, state: GameState) -> str:
        """The bag as a turn states it: the lines, or that the bag is empty."""
        return self.bag_lines(state) or self.words.raw("bag.empty")

    def _obtain(self, state: GameState, item_id: str, out: Outcome) -> None:
        state.bag.append(item_id)
        out.obtained.append(item_id)
        item = self.items[item_id]
        if item.type == "paper":  # the original names a note's numbers as soon as it is in the bag
            state.known.update(c for c in item.contents if c in self.items)

    def _interact_original(
        self, state: GameState, eid: int, used: str | None, typed: str | None, out: Outcome
    ) -> str:
        """The original's answer of object `eid` to an interaction with item `used` and input `typed`."""
        w = self.words
        ent = self.world.entities[eid]
        if used and used not in state.bag:
            return w.fill("game.not_in_bag", item=used)
        if ent.kind == "door":
            assert isinstance(ent.ref, int)
            k = ent.ref
            method = self.inst.rooms[self.inst.doors[k].room].chain.exit.unlock_method
            if k in state.doors_open:  # playbench's rooms in a row only: the original's game has ended
                return "This door is already open."
            opened = False
            text = w.fill("exit.about", lock=method.type)
            if method.type == "interact":
                opened, text = True, w.raw("exit.interact")
            elif method.type == "password" and typed:
                if typed == (self.items[method.id or ""].value or ""):
                    opened, text = True, w.raw("exit.password_right")
                else:
                    text = w.fill("exit.password_wrong", input=typed)
            elif method.type == "key" and used:
                if used == method.id:
                    opened, text = True, w.fill("exit.key_right", item=used)
                else:
                    text = w.fill("exit.key_wrong", item=used)
            if opened:
                self._open_door(state, k, out)
            return text
        assert isinstance(ent.ref, str)
        item = self.items[ent.ref]
        if item.type == "box":
            m = item.unlock_method
            if item.id in state.opened or m is None or m.type == "none":
                return w.raw("box.empty")
            text = self._description(item) or ""
            ok = False
            if m.type == "key":
                if used == m.id:
                    ok = True
                elif used:
                    text = w.fill("box.key_wrong", item=used)
                elif self.hint == "original":
                    text = w.fill("box.key_hint")
            elif m.type == "password":
                if typed and typed == (self.items[m.id or ""].value or ""):
                    ok = True
                elif typed:
                    text = w.fill("box.password_wrong", input=typed)
                elif self.hint == "original":
                    text = w.fill("box.password_hint")
            if not ok:
                out.lock_info = out.lock_info or not (used or typed)
                return text
            state.opened.add(item.id)
            out.opened.append(item.id)
            out.grab_success = True
            got = w.raw("box.opened")  # BaseGame.open_box
            for c in item.contents:
                self._obtain(state, c, out)
                got += self.describe(c)
            if m.type == "key":
                return w.fill("box.key_right", item=used, opened=got)
            return w.fill("box.password_right", opened=got)
        # a key or a note lying in the room: into the bag
        state.picked.add(item.id)
        self._obtain(state, item.id, out)
        out.grab_success = True
        return w.fill("pickup", line=self.describe(item.id))

    def _read_original(self, state: GameState, item_id: str, out: Outcome) -> str | None:
        """The original's read: the item's description and what is written on it; None for an id
        the game does not know (their code skips it). Their read goes through the same interaction
        as a grab, and the door and boxes come before the bag check there: `exit` and a box id are
        answered as that door or box answers a grab without a key or code, wherever the player
        stands (so `exit` opens a door that opens by interaction). `read_scope="bag"` keeps to the
        paper's definition (an item in the bag) and answers every other id as not in the bag."""
        w = self.words
        item = self.items.get(item_id)
        if self.read_scope == "original":
            eid = self._read_target(state, item_id, item)
            if eid is not None:
                out.read = item_id
                grab_success = out.grab_success  # a read is no grab, whatever it opens
                text = self._interact_original(state, eid, None, None, out)
                out.grab_success = grab_success
                return text
            if item is None:
                return None
        out.read = item_id
        if item is None or item_id not in state.bag:
            return w.fill("read.not_in_bag", item=item_id)
        text = self.describe(item_id)
        if item.type == "paper":
            codes = [self.items[c].value for c in item.contents if c in self.items]
            for i, code in enumerate(codes):
                text += w.fill("read.numbers", n=str(i + 1), password=str(code))
            if item.story:
                text += w.fill("read.story", n=len(codes) + 1, story=item.text or "")
        return text

    def _read_target(self, state: GameState, item_id: str, item: ChainItem | None) -> int | None:
        """The object the original's read of `item_id` interacts with: the exit of the room the
        player is in (the first room whose exit is still closed) or a box; None otherwise."""
        if item_id == "exit":
            closed = [k for k in range(len(self.inst.doors)) if k not in state.doors_open]
            if not closed:
                return None
            return geo.DOOR_BASE + min(closed, key=lambda k: self.inst.doors[k].room)
        if item is not None and item.type == "box":
            return self.world.item_entity.get(item_id)
        return None

    def _open_door(self, state: GameState, k: int, out: Outcome) -> None:
        state.doors_open.add(k)
        out.opened.append(f"exit:{k}")
        out.grab_success = True
        if self.inst.doors[k].leads_to is None:
            state.escaped = True
