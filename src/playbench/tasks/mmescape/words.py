"""The words of the original's protocol (`prompts=original`): the authors' own, read from their clone
(`texts=original`), or playbench's paraphrases of them (`texts=ours`, `OURS` below).

Each text has the id of the suite's text map (`originals.TEXTS`). A text is either used as written
(`Words.raw`) or filled (`Words.fill`) with values named here by short names; `FIELDS` maps each short
name to the field the original's template has (its f-string expression or `.format` name), so the
authors' template is filled exactly as their code fills it, and ours (written with the short names)
the same way. Where the original puts texts together (the system prompt, a turn, the bag, the story
prompt), `engine.py` and `task.py` do it in the same order through the methods below.
"""

from __future__ import annotations

from playbench.core.original_texts import TextSource, fill
from playbench.tasks.mmescape.originals import TEXTS

# --- playbench's paraphrases (texts=ours): the same facts and places, in our words --------------------

JSON_FORMAT = """\
{
    "move_forward": float,
    "rotate_right": float,
    "rotate_down": float,
    "jump": bool,
    "look_at": list[x: float, y: float],
    "grab": bool,
    "interactions": {
        "use_item_id": str,
        "input": str
    },
    "read": str,
    "rationale": str
}"""

_OPENING = (
    "You are locked inside a room, and your final goal is to get out of it: this is a room escape game.\n\n"
)
_ABILITIES = "You can explore the room, interact with objects, inspect items and solve puzzles."
_DOORS = (
    " If a door is locked or does not respond, you probably have to look for a key or a password "
    "that unlocks it while you interact with the room."
)
_ACTIONS = " These are the actions you can use to explore the room and interact with objects:"

_OPERATIONS = f"""
- move_forward: a float from -10 to 10, the metres you walk forward (a negative value walks \
backward).
- rotate_right: a float from -180 to 180, the degrees you turn to the right (a negative value \
turns left).
- rotate_down: a float from -90 to 90, the angle by which you tilt your view vertically: a \
positive value looks down, a negative one looks up, 0 looks straight ahead.
- jump: a bool, whether to jump (it can go together with moving forward); True means "jump".
- look_at: a list [x: float, y: float] with x and y from 0 to 1, the point of the image you want \
to look at; the image's upper left corner is (0, 0) and its lower right corner (1, 1). There are \
no clues on the ceiling.
- grab: a bool, whether to interact with the object exactly in the centre of the image, which a \
red dot marks: set grab=True to pick up a key, or to interact with (or open) a box, in the centre \
of the image. The red dot helps you find the object to interact with; turn (rotate_right, \
rotate_down) or walk closer (move_forward) until the red dot is on your target. To grab an object \
you have to centre it with the red dot and be within a certain distance of it. If a grab fails, \
move closer to the object. If it keeps failing from the same place, remember that not every \
object can be used, and do not get stuck at an object you cannot use.
- interactions: a dict {{"use_item_id": str, the item_id of an item to view or use (together with \
grab=True, the item is used on the object you grab, e.g. the item_id of a key to open the door in \
the scene), "input": str, text to enter into the object in the centre}}.
- read: a str, the item_id of an item in your bag whose details you want to know.
- rationale: a str, the reasoning behind your action, explaining how you decided.

To act in the scene, reply with a JSON string in this format:
{JSON_FORMAT}

Every operation above is optional: an operation you leave out is not performed.

Follow these instructions and reply with nothing but the JSON string of operations."""

_JSON_TEMPLATE = JSON_FORMAT.replace("{", "{{").replace("}", "}}")

_STORY = """\
You got out of the room. Now rebuild the whole story from the items you found during the game and \
the room as you saw it. Go through the steps below to recall it and put the full story together.

Step 1: the room
Begin with the room you started in. What did it look like, what was its atmosphere? Did anything \
stand out: furniture, light, odd objects? Add what you sensed, smells and sounds, and how the room \
was arranged, to set the scene of the story.

Step 2: the items that may hold information or clues
Think back to the objects you found in the game. Which items did you come across? Did any seem \
unusual or important? They may be things like keys, notes or devices, or abstract clues such as \
symbols or marks on a wall. Think about how each item led to the next step of your escape.

Step 3: the whole story
Now put the room and the items together into the full story. What was the room for? Who or what \
set up this escape challenge, and why? Which events led to your escape? Connect the room, the \
clues and the items, and tell the story from beginning to end.
"""

# the hint sentence (ours; prompts=playbench with hint=original adds it alone)
HINT = (
    "===\nHints: you have to get out through a door; a locked door opens with a key or a password, "
    "which you have to find by exploring the room."
)
# texts=ours with history=key: what the original's SYS_PROMPT_KEYONLY adds (our words)
_KEY_HISTORY = (
    "\nDuring the game you are shown only the key steps that carried useful information; steps in "
    "between that brought nothing new are left out."
)

OURS: dict[str, str] = {
    "system": _OPENING + _ABILITIES + _DOORS + _ACTIONS + _OPERATIONS,
    "system.key_history": _OPENING + _ABILITIES + _DOORS + _ACTIONS + _OPERATIONS + _KEY_HISTORY,
    "system.hint": _OPENING + _ABILITIES + _ACTIONS + _OPERATIONS + HINT,
    "step": (
        "{interaction_result}\n===\nThe items in your bag that you can use:\n{bag_desc}\n===\n"
        "Decide the next action(s) that help you observe the room or get useful tools or clues.\n"
        "If you are stuck in a corner, turn around with rotate_right.\n"
        "Reply with nothing but a JSON string in this format:\n" + _JSON_TEMPLATE
    ),
    "turn.start": "The picture shows the room where you start.",
    "turn.interacted": "After your last interaction you found:\n{desc}",
    "turn.failed": "{desc}",
    "turn.plain": "{desc} You did not interact with any object in the last step.",
    "turn.no_response": "Your last action got no response from the environment.",
    "bag.empty": "Your bag is empty.",
    "action.moved": "Moved successfully.",
    "action.view": "The view turned.",
    "action.interaction": "Interaction {n} triggered, and it returned: {desc}\n",
    "action.too_far": (
        "You tried to interact with an object in view, but nothing responded. Try to get closer to it; "
        "if you are already close and it still does not respond, it cannot be used, so explore "
        "elsewhere in the room."
    ),
    "action.nothing": (
        "No object you can interact with is in view, or your target is too far away: the interaction "
        "got no response."
    ),
    "item.box": "A box ",
    "item.box_lock": "that seems to open with a {lock}.",
    "item.key": "a key that seems to open something",
    "bag.item": "- {id} ({type}): {description}\n",
    "bag.paper": "- {id} (paper): a paper ",
    "bag.paper_numbers": "with the numbers {password} written on it\n",
    "bag.paper_other": "with a {what} written on it\n",
    "game.not_in_bag": "You do not have {item} in your bag; explore the room further.",
    "exit.about": "This door looks like the way out; it opens with a {lock}. ",
    "exit.password_right": "The password was right: the door is unlocked.",
    "exit.password_wrong": "You entered the password {input}, but it is wrong.",
    "exit.key_right": "You used {item} and unlocked the door.",
    "exit.key_wrong": "You used {item}, but it does not fit this door; try other items.",
    "exit.interact": "You found the exit door and got out!",
    "box.key_right": "You used {item} and the box opened. {opened}",
    "box.key_wrong": "You used {item}, but it does not fit this box; try other items.",
    "box.key_hint": "You found the box but cannot open it yet: you need to find its key.",
    "box.password_right": "The password was right: the box is unlocked. {opened}",
    "box.password_wrong": "You entered the password {input}, but it is wrong.",
    "box.password_hint": "You found the box but cannot open it yet: you need to find its password.",
    "box.empty": "You already opened this box and took everything in it; it is empty now.",
    "read.not_in_bag": "You do not have {item} in your bag; explore the room further.",
    "read.story": "Part {n} of the paper is a story: {story}\n",
    "read.numbers": "Part {n} of the paper is a string of numbers: {password}.\n",
    "pickup": "You got: {line}",
    "box.opened": "Opening the box, you got:\n",
    "story": _STORY,
    "story.empty_bag": "Your bag is empty.",
}

# short name -> the original template's field, per text (a text absent here has no fields)
FIELDS: dict[str, dict[str, str]] = {
    "step": {"interaction_result": "interaction_result", "bag_desc": "bag_desc"},
    "turn.interacted": {"desc": "desc"},
    "turn.failed": {"desc": "desc"},
    "turn.plain": {"desc": "desc"},
    "action.interaction": {"n": "id + 1", "desc": "_desc"},
    "item.box_lock": {"lock": "item['unlock_method']['type']"},
    "bag.item": {"id": "id", "type": "item['type']", "description": "item['description']"},
    "bag.paper": {"id": "id"},
    "bag.paper_numbers": {"password": "item['password']"},
    "bag.paper_other": {"what": "content['type']"},
    "game.not_in_bag": {"item": "use_item_id"},
    "exit.about": {"lock": "unlock['type']"},
    "exit.password_wrong": {"input": "user_input"},
    "exit.key_right": {"item": "use_item_id"},
    "exit.key_wrong": {"item": "use_item_id"},
    "box.key_right": {"item": "use_item_id", "opened": "self.open_box(item_id)"},
    "box.key_wrong": {"item": "use_item_id"},
    "box.password_right": {"opened": "self.open_box(item_id)"},
    "box.password_wrong": {"input": "user_input"},
    "read.not_in_bag": {"item": "item_id"},
    "read.story": {"n": "idx + 1", "story": "content['content']"},
    "read.numbers": {"n": "str(idx + 1)", "password": "str(self.items[item_id]['password'])"},
    "pickup": {"line": "self.bag.get_item_desc(item_id)"},
}
# f-strings whose template has no field (the reader still returns them as templates)
_FILLED_WITHOUT_FIELDS = {"box.key_hint", "box.password_hint"}
_REFS = {ref.id: ref for ref in TEXTS}


class Words:
    """The texts of the original's protocol, from the authors' clone (`source`) or ours (None)."""

    def __init__(self, source: TextSource | None = None) -> None:
        self.source = source

    @property
    def original(self) -> bool:
        return self.source is not None

    @property
    def stamp(self) -> str:
        return self.source.stamp if self.source is not None else "ours"

    def check(self) -> None:
        """Read every text (preflight): a text the clone lacks fails here, naming file and symbol."""
        for text_id in _REFS:
            self._template(text_id)

    def _template(self, text_id: str) -> str:
        if self.source is None:
            return OURS[text_id]
        return self.source.text(_REFS[text_id])

    def raw(self, text_id: str) -> str:
        """A text used as written."""
        if text_id in FIELDS or text_id in _FILLED_WITHOUT_FIELDS:
            raise KeyError(f"{text_id} is a template: use fill()")
        return self._template(text_id)

    def fill(self, text_id: str, **values: object) -> str:
        """A template filled as the original fills it (ours: by the short names)."""
        template = self._template(text_id)
        names = FIELDS.get(text_id, {})
        if self.source is None:
            return fill(template, values, text_id)
        return fill(template, {names[k]: v for k, v in values.items()}, text_id)

    # --- the original's compositions -------------------------------------------------------------
    def system(self, hint: bool = False, key_history: bool = False) -> str:
        """`src/main.py`'s choice of system prompt: with `hint`, their `--hint` prompt
        (`PromptTemplate_Hint.SYS_PROMPT`, whatever the history); with `key_history` (history=key) the
        key-steps prompt (`SYS_PROMPT_KEYONLY`); else the paper's Table 13 (`SYS_PROMPT`); the last two
        of `PromptTemplate_Base2`, whose instruction is Table 13's."""
        if hint:
            return self.raw("system.hint")
        return self.raw("system.key_history" if key_history else "system")

    def turn(self, desc: str, interacted: bool, failed: bool) -> str:
        """`Game.ask_for_action`: the result of the last action, as the turn states it."""
        if not desc:
            return self.raw("turn.no_response")
        if interacted:
            return self.fill("turn.failed" if failed else "turn.interacted", desc=desc)
        return self.fill("turn.plain", desc=desc)

    def start(self) -> str:
        """The first turn's result: the opening line, as a turn without an interaction."""
        return self.turn(self.raw("turn.start"), interacted=False, failed=False)

    def step(self, result: str, bag_lines: str) -> str:
        """`STEP_PROMPT.format(interaction_result=..., bag_desc=...)`."""
        bag = bag_lines if bag_lines else self.raw("bag.empty")
        return self.fill("step", interaction_result=result, bag_desc=bag)

    def story(self, bag_lines: str) -> str:
        """`Game.story_recovery`: the story prompt, then the bag."""
        return self.raw("story") + (bag_lines if bag_lines else self.raw("story.empty_bag"))
