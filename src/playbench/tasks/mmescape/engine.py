"""The rules of an EscapeCraft room: moving with collisions, grabbing, locks, reading.

Two grab rules (`grab`):
- "view", the original's (src/Game.py `LegentGame.agent_grab_object_id`): every chain prop and exit
  door that is in the view the player was shown (before this action's motion) and less than 4 m
  away horizontally is interacted with, each with the action's `interactions`;
- "centre", playbench's: only the object under the red dot after the action's motion, within 4 m.

Two response styles (`prompts`):
- "original": the original's game responses (src/BaseGame.py `BaseGame.interaction`, src/Game.py
  `Game.get_action`), in the authors' words (`texts=original`, read from their clone) or ours
  (`texts=ours`), always with their facts (`words.py`): the action's keys answered in the reply's
  order, "moved" even when something stopped the move, a note's password handed over when it is
  picked up, an item id not in the bag answered per object, a grab without a `rationale` ignored;
- "playbench": playbench's responses (distances, what blocked a move, which lock a door has, notes
  read with `read`; an item id not in the bag makes the action invalid).

The motion is `look_at` (relative to the image the player saw), `rotate_right`, `rotate_down`, then
`move_forward` (with `jump`). The same code runs for the task, the oracle planner and the instance
generator, so the oracle's step counts are exactly what the task will see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action
from playbench.tasks.mmescape.chain import Chain, ChainItem, UnlockMethod
from playbench.tasks.mmescape.words import OURS, Words

TYPE_WORDS = {"key": "a key", "paper": "a note", "box": "a box", "password": "a password"}

# The original's fixed responses in playbench's words (texts=ours; `words.py`)
T_MOVED = OURS["action.moved"]
T_VIEW = OURS["action.view"]
T_TOO_FAR = OURS["action.too_far"]
T_NOTHING = OURS["action.nothing"]
T_NO_RESPONSE = OURS["turn.no_response"]


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
    known: set[str] = field(default_factory=set)  # passwords the player has been told

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
            set(self.known),
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
    targets: list[int] = field(default_factory=list)  # the objects a grab reached
    in_view: bool = False  # "view" grabs: a chain prop or door was in view but none within reach
    grab_ignored: bool = False  # the original ignores a grab without a rationale
    text: str = ""  # prompts="original": the composed result of the action, as the next turn states it

    @property
    def key_step(self) -> bool:
        return bool(self.obtained or self.opened or self.read or self.lock_info)

    @property
    def changed(self) -> bool:
        return bool(self.moved > 1e-9 or self.turned or self.grab_success or self.read)

    @property
    def feedback(self) -> str:
        return self.text if self.text else " ".join(self.lines)


class Rules:
    """Game rules over one instance's world; caches the ray casters and obstacles per visual state."""

    def __init__(
        self,
        world: geo.World,
        view: geo.ViewSpec = geo.SQUARE_512,
        grab: str = "centre",
        prompts: str = "playbench",
        hint: str = "none",
        read_scope: str = "original",
        words: Words | None = None,
    ) -> None:
        self.world = world
        self.view = view
        self.grab_rule = grab
        self.prompts = prompts
        # prompts="original": the words of its responses (the authors' from their clone, or ours)
        self.words = words if words is not None else Words()
        self.hint = hint  # "original": the original's --hint box messages
        # prompts="original": what `read` reaches. "original": as the original, `exit` and a box id
        # answer as that door or box does to a grab without a key or code (from anywhere); "bag":
        # the paper's definition, only items in the bag
        self.read_scope = read_scope
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

    def centre_hit(self, state: GameState) -> tuple[int, float]:
        """The entity under the red dot (the centre pixel's sample) and the ray distance to it."""
        v = self.view
        nx, ny = geo.centre_ndc(v)
        d = geo.pixel_direction(state.yaw, state.pitch, v.fov_y, nx, ny, v.aspect)
        return self.caster(state.visual()).cast(np.array([state.x, geo.EYE_H, state.z]), d)

    def entity_name(self, eid: int) -> str:
        ent = self.world.entities.get(eid)
        return ent.name if ent is not None else "nothing"

    # --- applying an action ------------------------------------------------------------------
    def apply(self, state: GameState, action: Action, centre_entity: int | None = None) -> Outcome:
        """Apply `action` to `state` in place. `centre_entity` is the id the rendered id buffer
        showed under the red dot, usable when the action does not move the view."""
        if self.prompts == "original":
            return self._apply_original(state, action, centre_entity)
        out = Outcome()
        problem = self._check_items(state, action)
        if problem:
            out.invalid = problem
            return out
        if action.ignored:
            out.lines.append(f"(Ignored unknown key(s): {', '.join(action.ignored)}.)")
        targets = self.view_targets(state) if action.grab and self.grab_rule == "view" else None
        self._turn(state, action, out)
        if action.move_forward or action.jump:
            self._move(state, action, out)
        if action.grab:
            if targets is not None:
                self._grab_targets(state, action, out, *targets)
            else:
                entity = centre_entity if (centre_entity is not None and not action.moves) else None
                self._grab(state, action, out, entity)
        if action.read:
            self._read(action.read, out, state)
        if not out.lines:
            out.lines.append("Nothing happened: the action asked for no movement, grab or reading.")
        return out

    def view_targets(self, state: GameState) -> tuple[list[int], bool]:
        """The original's grab targets from `state`'s pose: (every chain prop and door in view and
        less than 4 m away horizontally, in the scene's order; whether any was in view at all)."""
        eye = (state.x, geo.EYE_H, state.z)
        near: list[int] = []
        seen = False
        for eid, point in self._targets(state):
            if not geo.in_view(state.yaw, state.pitch, self.view, eye, point):
                continue
            seen = True
            if math.hypot(point[0] - state.x, point[2] - state.z) < geo.REACH:
                near.append(eid)
        return near, seen

    def _targets(self, state: GameState) -> list[tuple[int, tuple[float, float, float]]]:
        """Every interactable object still in the scene with its position (centre)."""
        out = []
        for place_ in self.inst.props:
            if place_.item in state.picked:
                continue
            kind = self.world.item_types[place_.item]
            _, _, h = geo.prop_size(place_, kind)
            out.append((self.world.item_entity[place_.item], (place_.x, place_.y + h / 2, place_.z)))
        for k, door in enumerate(self.inst.doors):
            ent = self.world.entities[geo.DOOR_BASE + k]
            out.append((ent.id, (ent.x, door.height / 2, ent.z)))
        return out

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

    # --- the original's responses ------------------------------------------------------------
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
            v = self.view
            d = geo.pixel_direction(yaw, pitch, v.fov_y, 2 * x - 1, 1 - 2 * y, v.aspect)
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
