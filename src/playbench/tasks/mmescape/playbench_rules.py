"""playbench's responses to an action (`prompts=playbench`): grabbing with distances, which lock a door
has, what a key or code did, notes read with `read`."""

from __future__ import annotations

import math

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action
from playbench.tasks.mmescape.chain import ChainItem, UnlockMethod
from playbench.tasks.mmescape.game_state import GameState, Outcome
from playbench.tasks.mmescape.schema import EscapeInstance

TYPE_WORDS = {"key": "a key", "paper": "a note", "box": "a box", "password": "a password"}


class PlaybenchResponses:
    """playbench's responses to grabbing and reading.

    Mixed into `Rules` (`engine.py`), whose state (`world`, `inst`, `items`) and `centre_hit` (the entity
    under the red dot) it uses.
    """

    world: geo.World
    inst: EscapeInstance
    items: dict[str, ChainItem]

    def _grab_targets(
        self, state: GameState, action: Action, out: Outcome, near: list[int], seen: bool
    ) -> None:
        """playbench's texts for the original's grab rule: one response per object reached."""
        out.grabbed = True
        if not near:
            out.in_view = seen
            out.lines.append(
                "Grab: a chain object is in view but none within reach (less than 4 m); move closer."
                if seen
                else "Grab: no object you can interact with is in view within reach."
            )
            return
        texts = []
        for eid in near:
            texts.append(self._respond(state, eid, action, out))
            out.targets.append(eid)
        out.target = near[0]
        out.interaction = " ".join(texts)
        out.lines.extend(texts)

    def _respond(self, state: GameState, eid: int, action: Action, out: Outcome) -> str:
        ent = self.world.entities[eid]
        if ent.kind == "door":
            assert isinstance(ent.ref, int)
            return self._door(state, ent.ref, action, out)
        assert isinstance(ent.ref, str)
        item = self.items[ent.ref]
        return (
            self._box(state, item, action, out)
            if item.type == "box"
            else self._pick(state, item, action, out)
        )

    def _grab(self, state: GameState, action: Action, out: Outcome, entity: int | None) -> None:
        out.grabbed = True
        distance = None
        if entity is None:
            entity, distance = self.centre_hit(state)
        out.target = entity
        ent = self.world.entities.get(entity)
        if ent is None or ent.kind == "structure":
            if distance is None:
                _, distance = self.centre_hit(state)
            # walls and floor: how far the dot's point is (horizontally)
            reach = distance * math.cos(math.radians(state.pitch)) if math.isfinite(distance) else math.inf
        else:
            # objects: from the player to the object's position, horizontally (FACTS.md)
            reach = math.hypot(ent.x - state.x, ent.z - state.z)
        # The same answer for anything out of reach, so distance never tells useful from useless.
        if reach > geo.REACH:
            out.lines.append(
                f"Grab: the object under the red dot is too far away to reach (more than {geo.REACH:g} m); move closer."
            )
            return
        if ent is None or ent.kind not in ("item", "door"):
            out.lines.append("Grab: there is nothing you can interact with under the red dot.")
            return
        if ent.kind == "door":
            assert isinstance(ent.ref, int)
            text = self._door(state, ent.ref, action, out)
        else:
            assert isinstance(ent.ref, str)
            item = self.items[ent.ref]
            text = (
                self._box(state, item, action, out)
                if item.type == "box"
                else self._pick(state, item, action, out)
            )
        out.interaction = text
        out.lines.append(text)

    def _pick(self, state: GameState, item: ChainItem, action: Action, out: Outcome) -> str:
        state.picked.add(item.id)
        state.bag.append(item.id)
        out.obtained.append(item.id)
        out.grab_success = True
        extra = " Use read to see what it says." if item.type == "paper" else ""
        if action.use_item_id or action.input:
            extra += " (The item or input you gave was not needed.)"
        return f"You picked up {item.id} ({TYPE_WORDS[item.type]}).{extra}"

    def _unlock(self, what: str, method: UnlockMethod, action: Action, out: Outcome) -> tuple[bool, str]:
        """Whether `action` opens a lock of `method`, and what to say when it does not."""
        if method.type in ("interact", "none"):
            return True, ""
        required = method.id or ""
        if method.type == "key":
            if action.use_item_id == required:
                return True, ""
            if action.use_item_id is not None:
                used = self.items.get(action.use_item_id)
                kind = TYPE_WORDS.get(used.type, "an item") if used else "an item"
                return False, f"{action.use_item_id} ({kind}) does not open the {what}; it stays locked."
            if action.input is not None:
                return False, f"The {what} has a keyhole, not a keypad; typing does nothing. It needs a key."
            out.lock_info = True
            return False, f"The {what} is locked. It has a keyhole: you need a key to open it."
        value = self.items[required].value or ""
        if action.input is not None:
            if action.input == value:
                return True, ""
            return False, f"You typed {action.input} on the {what}'s keypad: wrong password, it stays locked."
        if action.use_item_id is not None:
            return False, (
                f"The {what} has a keypad for a {len(value)}-digit password; using {action.use_item_id} on it does "
                "nothing. Type the password with input."
            )
        out.lock_info = True
        return (
            False,
            f"The {what} is locked with a {len(value)}-digit password lock. Type the password with input.",
        )

    def _box(self, state: GameState, box: ChainItem, action: Action, out: Outcome) -> str:
        if box.id in state.opened:
            return f"{box.id} is already open and empty."
        ok, message = self._unlock("box", box.unlock_method or UnlockMethod(type="none"), action, out)
        if not ok:
            return message
        state.opened.add(box.id)
        out.opened.append(box.id)
        out.grab_success = True
        found = []
        for c in box.contents:
            state.bag.append(c)
            out.obtained.append(c)
            found.append(f"{c} ({TYPE_WORDS[self.items[c].type]})")
        how = ""
        if action.use_item_id:
            how = f" with {action.use_item_id}"
        elif action.input:
            how = " with the password"
        inside = ", ".join(found) if found else "nothing"
        return f"You opened {box.id}{how}. Inside you found: {inside}; now in your bag."

    def _door(self, state: GameState, k: int, action: Action, out: Outcome) -> str:
        if k in state.doors_open:
            return "This door is already open; walk through it."
        door = self.inst.doors[k]
        chain = self.inst.rooms[door.room].chain
        ok, message = self._unlock("door", chain.exit.unlock_method, action, out)
        if not ok:
            return message
        state.doors_open.add(k)
        out.opened.append(f"exit:{k}")
        out.grab_success = True
        if door.leads_to is None:
            state.escaped = True
            return "Escaped successfully! The door opens and you leave the room."
        return "The door is unlocked and swings open into the next room. Walk through to continue."

    def _read(self, item_id: str, out: Outcome, state: GameState | None = None) -> None:
        item = self.items.get(item_id)
        out.read = item_id
        if item is not None and item.type == "paper" and state is not None:
            state.known.update(c for c in item.contents if c in self.items)
        if item is None:
            out.lines.append(f"{item_id}: nothing to read.")
        elif item.type == "paper":
            text = (item.text or "").replace("\n", " / ")
            out.lines.append(f'You read {item_id}: "{text}"')
        else:
            out.lines.append(f"{item_id} is {TYPE_WORDS[item.type]}; there is nothing written on it.")
