"""A small room of our own, laid out as the authors' repository: `visescape/original` plays it when no
clone is given (so the task has a default set and runs in CI), and the tests read it as their fixture.

Everything here is written for playbench (room, classes, images, walkthrough); only the *format* is
the original's: `assets/room0/config.py` constructs objects of classes under `src/vis_escape/objects`,
`mapping/*/*.json` maps states to images, `walkthrough_oracle.json` lists every turn (the actions
available before it, the action chosen, the image after it) and `evaluation/get_score.py` holds the
scoring constants. The images are flat drawings made here with Pillow.

The room: a panel (south) with a button that releases a cupboard (east) holding a key; the key opens
a chest (north) through its key lock; the chest holds a picture of four digits, the code of the
door's number lock (north).
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import product
from pathlib import Path

from PIL import Image, ImageDraw

from playbench.render.draw2d import get_font, to_png

ROOM = "room0"  # numbered 0: never one of the authors' room1..room20

CONFIG = """from vis_escape.game.core.rules import HasItemRule, TriggerActiveRule
from vis_escape.game.manage.game_state import GameState, WallState

from vis_escape.objects.receptacles.chest.chest import Chest
from vis_escape.objects.receptacles.cupboard.cupboard import Cupboard
from vis_escape.objects.receptacles.panel.panel import Panel
from vis_escape.objects.receptacles.door.lock_door import LockDoor

from vis_escape.objects.items.key.key import Key
from vis_escape.objects.items.button.button import Button
from vis_escape.objects.items.puzzle.puzzle import Puzzle
from vis_escape.objects.items.lock.key_lock import KeyLock
from vis_escape.objects.items.lock.non_key_lock import NonKeyLock

key_A = Key(item_type="key", item_name="key_A", appliable_receptacle=None, appliable_state=None)
button = Button(item_type="button", item_name="Button", appliable_receptacle="Cupboard", appliable_state="locked", after_solve_state="closed")
picture = Puzzle(item_type="puzzle", item_name="Image1", appliable_receptacle=None, appliable_state=None, after_solve_state=None)
keylock_A = KeyLock(item_type="lock", item_name="Keylock_A", question_text="", answer=f"use {key_A.item_name}", appliable_receptacle="Chest", appliable_state="locked", after_solve_state="open")
numberlock = NonKeyLock(item_type="lock", item_name="Numberlock", question_text="", answer="4213", appliable_receptacle="Door", appliable_state="locked", after_solve_state="closed")

chest = Chest(
    id="Chest",
    interactable_states={
        keylock_A: {"locked"},
        picture: {"open"},
    }
)
door = LockDoor(
    id="Door",
    interactable_states={
        numberlock: {"locked"},
    }
)
cupboard = Cupboard(
    id="Cupboard",
    interactable_states={
        key_A: {"open"},
    }
)
panel = Panel(
    id="Panel",
    interactable_states={
        button: {"default"},
    }
)

chest.add_transition("locked", f"use {key_A.item_name}", "open", HasItemRule(key_A.item_name))
door.add_transition("locked", "unlock", "closed", TriggerActiveRule(f"solved_{numberlock.item_name}"))

north_wall = WallState("NORTH", [chest, door])
east_wall = WallState("EAST", [cupboard])
south_wall = WallState("SOUTH", [panel])
west_wall = WallState("WEST", [])

game_state = GameState([north_wall, east_wall, south_wall, west_wall], initial_direction="NORTH")
game_state.set_clear_condition("Door", "open")

hint_messages = {
    "": "Press the Button on the Panel at the south wall",
    "press Button": "Pick up key_A in the Cupboard at the east wall",
    "picked_key_A": "Use key_A on the Keylock_A of the Chest at the north wall",
    "used key_A": "Solve the Numberlock of the Door at the north wall. The answer is 4213",
    "solved_Numberlock": "Open the Door at the north wall",
}
game_state.set_hint_message(hint_messages)
"""

ITEM_BASES = """class Item:
    def __init__(self, item_type, item_name=None, appliable_receptacle=None, appliable_state=None):
        self._item_type = item_type
        self._item_name = item_name or item_type


class PickableItem(Item):
    def get_actions(self):
        return [f"pick {self._item_name}"]


class StaticItem(Item):
    def get_actions(self):
        return [f"inspect {self._item_name}"]


class QuizItem(Item):
    def get_actions(self):
        return [f"inspect {self._item_name}"]


class LockKeyItem(QuizItem):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._state = "not_solved"
"""


def _item_class(name: str, base: str, verb: str | None = None) -> str:
    text = f"from vis_escape.objects.item import {base}\n\n\nclass {name}({base}):\n"
    if verb is None:
        return text + "    pass\n"
    return text + f'    def get_actions(self):\n        return [f"{verb} {{self._item_name}}"]\n'


def _receptacle_class(
    name: str, states: list[str], initial: str, transitions: list[tuple[str, str, str]]
) -> str:
    lines = [
        "from vis_escape.game.core.rules import AlwaysAllowRule",
        "from vis_escape.objects.receptacle import Receptacle",
        "",
        "",
        f"class {name}(Receptacle):",
        "    def __init__(self, id, interactable_states):",
        "        super().__init__(",
        "            id=id,",
        "            possible_states={" + ", ".join(f'"{s}"' for s in states) + "},",
        f'            initial_state="{initial}",',
        "            interactable_states=interactable_states,",
        "        )",
    ]
    lines += [
        f'        self.add_transition("{a}", "{b}", "{c}", AlwaysAllowRule())' for a, b, c in transitions
    ]
    return "\n".join(lines) + "\n"


LOCKABLE = (["locked", "closed", "open"], "locked", [("closed", "open", "open"), ("open", "close", "closed")])

CLASSES = {
    "src/vis_escape/objects/item.py": ITEM_BASES,
    "src/vis_escape/objects/items/key/key.py": _item_class("Key", "PickableItem"),
    "src/vis_escape/objects/items/button/button.py": _item_class("Button", "StaticItem", "press"),
    "src/vis_escape/objects/items/puzzle/puzzle.py": _item_class("Puzzle", "StaticItem", "inspect"),
    "src/vis_escape/objects/items/lock/key_lock.py": _item_class("KeyLock", "LockKeyItem", "inspect").replace(
        "import LockKeyItem", "import LockKeyItem, QuizItem"
    ),
    "src/vis_escape/objects/items/lock/non_key_lock.py": _item_class("NonKeyLock", "QuizItem", "inspect"),
    "src/vis_escape/objects/receptacles/chest/chest.py": _receptacle_class("Chest", *LOCKABLE),
    "src/vis_escape/objects/receptacles/door/lock_door.py": _receptacle_class("LockDoor", *LOCKABLE),
    "src/vis_escape/objects/receptacles/cupboard/cupboard.py": _receptacle_class("Cupboard", *LOCKABLE),
    "src/vis_escape/objects/receptacles/panel/panel.py": _receptacle_class(
        "Panel", ["default"], "default", []
    ),
}

GET_SCORE = """ORACLE_STEPS = {
    0: 18
}

CLEAR_PROGRESS = {
    0: 4
}
"""

# (receptacle, its states, the items visible in each state at the start)
RECEPTACLES = {
    "Chest": (["locked", "closed", "open"], {"locked": ["Keylock_A"], "open": ["Image1"]}),
    "Door": (["locked", "closed", "open"], {"locked": ["Numberlock"]}),
    "Cupboard": (["locked", "closed", "open"], {"open": ["key_A"]}),
    "Panel": (["default"], {"default": ["Button"]}),
}
WALLS = {"NORTH": ["Chest", "Door"], "EAST": ["Cupboard"], "SOUTH": ["Panel"], "WEST": []}
ITEM_STATES = {
    "Keylock_A": ["not_solved", "solved"],
    "Numberlock": ["not_solved", "solved"],
    "Image1": ["default"],
    "Button": ["default"],
}
COLORS = {
    "locked": (150, 70, 60),
    "closed": (120, 110, 90),
    "open": (90, 150, 90),
    "default": (110, 120, 150),
}


def _file(name: str, state: str, items: list[str]) -> str:
    return f"{name}_{state}" + "".join(f"_with_{i}" for i in items) + ".png"


def _variants(rid: str) -> list[tuple[str, list[str]]]:
    """Each state of a receptacle with the items it may show (all of them, or none once taken)."""
    states, shown = RECEPTACLES[rid]
    out = []
    for st in states:
        items = shown.get(st, [])
        out.append((st, items))
        if items:
            out.append((st, []))
    return out


def mappings() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for rid in RECEPTACLES:
        out[f"object_view/{rid}"] = {
            "scene_states": [
                {
                    "idx": k + 1,
                    "name": f"{st}" + "".join(f"_with_{i}" for i in items),
                    "object_states": {"receptacle_state": st, "items": items},
                    "image_path": _file(rid, st, items),
                }
                for k, (st, items) in enumerate(_variants(rid))
            ]
        }
    for wall, recs in WALLS.items():
        scenes = []
        for combo in product(*(_variants(r) for r in recs)):
            scenes.append(
                {
                    "idx": len(scenes) + 1,
                    "name": "_".join(f"{r}({st})" for r, (st, _) in zip(recs, combo, strict=True)) or "empty",
                    "object_states": {
                        r: {"receptacle_state": st, "items": items}
                        for r, (st, items) in zip(recs, combo, strict=True)
                    },
                    "image_path": "_".join(
                        _file(r, st, items)[:-4] for r, (st, items) in zip(recs, combo, strict=True)
                    )
                    + ".png"
                    if recs
                    else "empty.png",
                }
            )
        out[f"wall_view/{wall}"] = {"scene_states": scenes}
    for item, states in ITEM_STATES.items():
        out[f"item_view/{item}"] = {
            "item_states": [
                {"idx": k + 1, "name": s, "image_path": f"{item}({s}).png"} for k, s in enumerate(states)
            ]
        }
    return out


def _draw(kind: str, name: str) -> bytes:
    """A flat 160x120 picture: receptacles as coloured boxes by state, the clue with its digits."""
    img = Image.new("RGB", (160, 120), (228, 222, 210))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 92, 159, 119], fill=(170, 150, 120))
    if kind == "item_view" and name.startswith("Image1"):
        d.rectangle([20, 20, 140, 100], fill=(250, 250, 240), outline=(60, 60, 60), width=3)
        d.text((48, 44), "4 2 1 3", fill=(20, 20, 20), font=get_font(20))
    elif kind == "item_view":
        solved = "(solved)" in name
        d.ellipse(
            [50, 30, 110, 90], fill=(90, 150, 90) if solved else (150, 70, 60), outline=(40, 40, 40), width=3
        )
    else:
        parts = name[: -len(".png")].split("_")
        states = [p for p in parts if p in COLORS]
        for k, st in enumerate(states or ["default"]):
            x = 12 + k * 74
            d.rectangle([x, 30, x + 62, 92], fill=COLORS[st], outline=(40, 40, 40), width=2)
    return to_png(img)


WALKTHROUGH = [
    (
        "turn_to_south",
        ["turn_to_east", "turn_to_south", "turn_to_west", "inspect Chest", "inspect Door"],
        "wall_view/SOUTH/Panel_default_with_Button.png",
    ),
    (
        "inspect Panel",
        ["turn_to_north", "turn_to_east", "turn_to_west", "inspect Panel"],
        "object_view/Panel/Panel_default_with_Button.png",
    ),
    (
        "press Button",
        ["turn_to_north", "turn_to_east", "turn_to_west", "step_back", "press Button"],
        "object_view/Panel/Panel_default_with_Button.png",
    ),
    (
        "turn_to_east",
        ["turn_to_north", "turn_to_east", "turn_to_west", "step_back", "press Button"],
        "wall_view/EAST/Cupboard_closed.png",
    ),
    (
        "inspect Cupboard",
        ["turn_to_north", "turn_to_south", "turn_to_west", "inspect Cupboard"],
        "object_view/Cupboard/Cupboard_closed.png",
    ),
    (
        "open",
        ["turn_to_north", "turn_to_south", "turn_to_west", "step_back", "open"],
        "object_view/Cupboard/Cupboard_open_with_key_A.png",
    ),
    (
        "pick key_A",
        ["turn_to_north", "turn_to_south", "turn_to_west", "step_back", "close", "pick key_A"],
        "object_view/Cupboard/Cupboard_open.png",
    ),
    (
        "turn_to_north",
        ["turn_to_north", "turn_to_south", "turn_to_west", "step_back", "close", "use key_A"],
        "wall_view/NORTH/Chest_locked_with_Keylock_A_Door_locked_with_Numberlock.png",
    ),
    (
        "inspect Chest",
        ["turn_to_east", "turn_to_south", "turn_to_west", "inspect Chest", "inspect Door"],
        "object_view/Chest/Chest_locked_with_Keylock_A.png",
    ),
    (
        "inspect Keylock_A",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "inspect Keylock_A", "use key_A"],
        "item_view/Keylock_A/Keylock_A(not_solved).png",
    ),
    (
        "use key_A",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "use key_A"],
        "object_view/Chest/Chest_open_with_Image1.png",
    ),
    (
        "inspect Image1",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "close", "inspect Image1"],
        "item_view/Image1/Image1(default).png",
    ),
    (
        "step_back",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back"],
        "object_view/Chest/Chest_open_with_Image1.png",
    ),
    (
        "step_back",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "close", "inspect Image1"],
        "wall_view/NORTH/Chest_open_with_Image1_Door_locked_with_Numberlock.png",
    ),
    (
        "inspect Door",
        ["turn_to_east", "turn_to_south", "turn_to_west", "inspect Chest", "inspect Door"],
        "object_view/Door/Door_locked_with_Numberlock.png",
    ),
    (
        "inspect Numberlock",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "unlock", "inspect Numberlock"],
        "item_view/Numberlock/Numberlock(not_solved).png",
    ),
    (
        "4213",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back"],
        "object_view/Door/Door_closed.png",
    ),
    (
        "open",
        ["turn_to_east", "turn_to_south", "turn_to_west", "step_back", "open"],
        "object_view/Door/Door_open.png",
    ),
]


def walkthrough() -> list[dict]:
    """The demo's walkthrough in the original's format (written by hand from the rules, not generated)."""
    out, previous = [], None
    for k, (action, available, image) in enumerate(WALKTHROUGH):
        path = f"{ROOM}/image/{image}"
        out.append(
            {
                "turn_number": k + 1,
                "available_actions": available,
                "chosen_action": action,
                "image_path": path,
                "previous_image_path": previous,
            }
        )
        previous = path
    return out


@lru_cache(maxsize=1)
def demo_files() -> dict[str, bytes]:
    """Every file of the demo clone by relative path."""
    files: dict[str, bytes] = {f"assets/{ROOM}/config.py": CONFIG.encode()}
    files.update({k: v.encode() for k, v in CLASSES.items()})
    files["evaluation/get_score.py"] = GET_SCORE.encode()
    for key, data in mappings().items():
        kind, name = key.split("/")
        files[f"assets/{ROOM}/mapping/{kind}/{name}.json"] = json.dumps(data, indent=2).encode()
        entries = data.get("scene_states") or data.get("item_states") or []
        for entry in entries:
            files[f"assets/{ROOM}/image/{kind}/{name}/{entry['image_path']}"] = _draw(
                kind, entry["image_path"]
            )
    files[f"assets/{ROOM}/walkthrough_oracle.json"] = json.dumps(walkthrough(), indent=2).encode()
    return files


def write_demo_clone(root: str | Path) -> Path:
    """Write the demo as a directory laid out like a clone (for tests, and to try `--set source=`)."""
    base = Path(root)
    for rel, data in demo_files().items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return base
