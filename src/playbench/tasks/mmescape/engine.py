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

Here: `Rules` (state caches, the action's checks and motion, and `apply`); the two response styles
are mixed in from `original_rules.py` and `playbench_rules.py`; `GameState` and `Outcome` are in
`game_state.py`.
"""

from __future__ import annotations

import math

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import Action
from playbench.tasks.mmescape.chain import Chain, ChainItem
from playbench.tasks.mmescape.game_state import GameState, Outcome
from playbench.tasks.mmescape.original_rules import OriginalResponses
from playbench.tasks.mmescape.playbench_rules import PlaybenchResponses
from playbench.tasks.mmescape.words import OURS, Words

# The original's fixed responses in playbench's words (texts=ours; `words.py`)
T_MOVED = OURS["action.moved"]
T_VIEW = OURS["action.view"]
T_TOO_FAR = OURS["action.too_far"]
T_NOTHING = OURS["action.nothing"]
T_NO_RESPONSE = OURS["turn.no_response"]


class Rules(OriginalResponses, PlaybenchResponses):
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

    # --- checking and moving -------------------------------------------------------------------
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
