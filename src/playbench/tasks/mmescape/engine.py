"""The rules of an EscapeCraft room: moving with collisions, grabbing under the red dot, locks.

One action is applied in a fixed order (a Choice, see README): `look_at` (relative to the image
the player saw), `rotate_right`, `rotate_down`, `move_forward` (with `jump`), then `grab` with
its `interactions` on whatever is under the red dot *after* the motion, then `read`. Item ids the
action names are checked first, so an action naming an item the player does not carry changes
nothing.

The same code runs for the task, the oracle planner and the instance generator, so the oracle's
step counts are exactly what the task will see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action
from playbench.tasks.mmescape.chain import Chain, ChainItem, UnlockMethod

TYPE_WORDS = {"key": "a key", "paper": "a note", "box": "a box", "password": "a password"}


@dataclass
class GameState:
    x: float
    z: float
    yaw: float
    pitch: float
    bag: list[str] = field(default_factory=list)
    picked: set[str] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    doors_open: set[int] = field(default_factory=set)
    escaped: bool = False
    moved: float = 0.0

    def visual(self) -> geo.VisualState:
        return geo.VisualState(frozenset(self.picked), frozenset(self.opened), frozenset(self.doors_open))

    def pose_key(self) -> tuple[float, float, float, float]:
        return (round(self.x, 6), round(self.z, 6), round(self.yaw, 6), round(self.pitch, 6))

    def copy(self) -> GameState:
        return GameState(
            self.x,
            self.z,
            self.yaw,
            self.pitch,
            list(self.bag),
            set(self.picked),
            set(self.opened),
            set(self.doors_open),
            self.escaped,
            self.moved,
        )


@dataclass
class Outcome:
    """What one action did."""

    invalid: str | None = None  # why nothing was applied
    lines: list[str] = field(default_factory=list)
    moved: float = 0.0
    turned: bool = False
    grabbed: bool = False
    grab_success: bool = False
    target: int = 0  # entity under the red dot when grabbing
    interaction: str | None = None  # the response when the grab reached an interactable object
    obtained: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)  # box ids and "exit:<k>"
    read: str | None = None
    lock_info: bool = False

    @property
    def key_step(self) -> bool:
        return bool(self.obtained or self.opened or self.read or self.lock_info)

    @property
    def changed(self) -> bool:
        return bool(self.moved > 1e-9 or self.turned or self.grab_success or self.read)


class Rules:
    """Game rules over one instance's world; caches the ray casters and obstacles per visual state."""

    def __init__(self, world: geo.World) -> None:
        self.world = world
        self.inst = world.inst
        self._casters: dict[geo.VisualState, geo.RayCaster] = {}
        self._obstacles: dict[geo.VisualState, list[geo.Obstacle]] = {}
        self.items: dict[str, ChainItem] = {}
        self.item_chain: dict[str, Chain] = {}
        for room in self.inst.rooms:
            for it in room.chain.items:
                self.items[it.id] = it
                self.item_chain[it.id] = room.chain

    def start_state(self) -> GameState:
        s = self.inst.start
        return GameState(s.x, s.z, s.yaw % 360.0, s.pitch)

    def caster(self, visual: geo.VisualState) -> geo.RayCaster:
        c = self._casters.get(visual)
        if c is None:
            c = self._casters[visual] = geo.RayCaster(self.world.parts(visual)[0])
        return c

    def obstacles(self, visual: geo.VisualState) -> list[geo.Obstacle]:
        o = self._obstacles.get(visual)
        if o is None:
            o = self._obstacles[visual] = self.world.obstacles(visual)
        return o

    def centre_hit(self, state: GameState, size: int = 512) -> tuple[int, float]:
        """The entity under the red dot (the centre pixel's sample) and the ray distance to it."""
        nx, ny = geo.centre_ndc(size)
        d = geo.pixel_direction(state.yaw, state.pitch, geo.FOV_Y, nx, ny)
        return self.caster(state.visual()).cast(np.array([state.x, geo.EYE_H, state.z]), d)

    def entity_name(self, eid: int) -> str:
        ent = self.world.entities.get(eid)
        return ent.name if ent is not None else "nothing"

    # --- applying an action ------------------------------------------------------------------
    def apply(
        self, state: GameState, action: Action, centre_entity: int | None = None, size: int = 512
    ) -> Outcome:
        """Apply `action` to `state` in place. `centre_entity` is the id the rendered id buffer
        showed under the red dot, usable when the action does not move the view."""
        out = Outcome()
        problem = self._check_items(state, action)
        if problem:
            out.invalid = problem
            return out
        if action.ignored:
            out.lines.append(f"(Ignored unknown key(s): {', '.join(action.ignored)}.)")
        self._turn(state, action, out)
        if action.move_forward or action.jump:
            self._move(state, action, out)
        if action.grab:
            entity = centre_entity if (centre_entity is not None and not action.moves) else None
            self._grab(state, action, out, entity, size)
        if action.read:
            self._read(action.read, out)
        if not out.lines:
            out.lines.append("Nothing happened: the action asked for no movement, grab or reading.")
        return out

    def _check_items(self, state: GameState, action: Action) -> str | None:
        bag = ", ".join(state.bag) if state.bag else "nothing"
        if action.use_item_id is not None and action.use_item_id not in state.bag:
            return f"You have no item '{action.use_item_id}' in your bag (your bag holds: {bag})."
        if action.read is not None and action.read not in state.bag:
            return f"You can only read items in your bag, and '{action.read}' is not there (your bag holds: {bag})."
        return None

    def _turn(self, state: GameState, action: Action, out: Outcome) -> None:
        yaw, pitch = state.yaw, state.pitch
        if action.look_at is not None:
            x, y = action.look_at
            d = geo.pixel_direction(yaw, pitch, geo.FOV_Y, 2 * x - 1, 1 - 2 * y)
            yaw = math.degrees(math.atan2(d[0], -d[2])) % 360.0
            pitch = math.degrees(math.asin(max(-1.0, min(1.0, -d[1]))))
        yaw = (yaw + action.rotate_right) % 360.0
        pitch += action.rotate_down
        # a tolerance, so that look_at at the limit (recomputed through trigonometry) is no "tilt"
        clamped = abs(pitch) > geo.PITCH_LIMIT + 1e-6
        pitch = max(-geo.PITCH_LIMIT, min(geo.PITCH_LIMIT, pitch))
        if abs(yaw - state.yaw) > 1e-9 or abs(pitch - state.pitch) > 1e-9:
            out.turned = True
            parts = []
            if action.look_at is not None:
                parts.append(f"looked towards ({action.look_at[0]:g}, {action.look_at[1]:g}) of the view")
            if action.rotate_right:
                side = "right" if action.rotate_right > 0 else "left"
                parts.append(f"turned {abs(action.rotate_right):g} degrees {side}")
            if action.rotate_down:
                side = "down" if action.rotate_down > 0 else "up"
                parts.append(f"tilted your view {abs(action.rotate_down):g} degrees {side}")
            if parts:
                out.lines.append("You " + " and ".join(parts) + ".")
        if clamped:
            out.lines.append(f"(Your view cannot tilt more than {geo.PITCH_LIMIT:g} degrees up or down.)")
        state.yaw, state.pitch = yaw, pitch

    def _move(self, state: GameState, action: Action, out: Outcome) -> None:
        d = action.move_forward
        if d == 0:
            out.lines.append("You jumped in place.")
            return
        sign = 1.0 if d > 0 else -1.0
        rad = math.radians(state.yaw)
        dx, dz = sign * math.sin(rad), -sign * math.cos(rad)
        moved, blocker = geo.sweep(
            self.obstacles(state.visual()), state.x, state.z, dx, dz, abs(d), geo.AGENT_R, action.jump
        )
        state.x += dx * moved
        state.z += dz * moved
        state.moved += moved
        out.moved = moved
        past, verb = ("jumped", "jump") if action.jump else ("moved", "move")
        way = "forward" if sign > 0 else "backward"
        if blocker is None:
            out.lines.append(f"You {past} {moved:.2f} m {way}.")
        else:
            what = self.entity_name(blocker.entity)
            if moved < 1e-3:
                out.lines.append(f"You could not {verb} {way}: the {what} is in the way.")
            else:
                out.lines.append(
                    f"You {past} {moved:.2f} m {way} of the {abs(d):g} m asked: the {what} is in the way."
                )

    # --- grabbing ----------------------------------------------------------------------------
    def _grab(self, state: GameState, action: Action, out: Outcome, entity: int | None, size: int) -> None:
        out.grabbed = True
        distance = None
        if entity is None:
            entity, distance = self.centre_hit(state, size)
        out.target = entity
        ent = self.world.entities.get(entity)
        if ent is None or ent.kind == "structure":
            if distance is None:
                _, distance = self.centre_hit(state, size)
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

    def _read(self, item_id: str, out: Outcome) -> None:
        item = self.items.get(item_id)
        out.read = item_id
        if item is None:
            out.lines.append(f"{item_id}: nothing to read.")
        elif item.type == "paper":
            text = (item.text or "").replace("\n", " / ")
            out.lines.append(f'You read {item_id}: "{text}"')
        else:
            out.lines.append(f"{item_id} is {TYPE_WORDS[item.type]}; there is nothing written on it.")
