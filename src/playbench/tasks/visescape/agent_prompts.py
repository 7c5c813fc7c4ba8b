"""The prompts of the paper's agents (Tables 14-18) as the authors' code builds them
(`experiment/agent/baseagent/prompt.py`, `visescaper/prompt.py`, `config/caption_*_view.py`,
pull-ups/VisEscape-demo at 9f65b99), in our own words with the same facts and the same layout: the same
sections, tags, lists and order, so a model sees what the original agents showed it.

`IMAGE` is written where the original prompt says "[IMAGE]"; the image itself follows the whole text
(the original sends the text, then the image, in one user message).
"""

from __future__ import annotations

from collections.abc import Sequence

from playbench.tasks.visescape.protocol import INIT_PROMPT, action_list

IMAGE = "[IMAGE]"
THINK = "[THINK]"
ACTION = "[ACTION]"
ANALYSIS = "[ANALYSIS]"
SPATIAL = "[SPATIAL MEMORY]"
ANSWER_SLOT = "<ANSWER> [the answer]"  # ours; the original's slot: texts=original
NO_CHANGE = "The action changed nothing."  # ours; the original's note comes from the clone (texts=original)

SYSTEM_ACTION = "Answer in this format: [ACTION]your action"
SYSTEM_REACT = "Answer in this format: [THINK]your thought\n[ACTION]your action"
SYSTEM_MEMORY = (
    "Answer in this format: [SPATIAL MEMORY]spatial_json_format, [INSPECTED OBJECTS]inspected_objects_json_format, "
    "[UNINSPECTED OBJECTS]uninspected_objects_format, [ADDITIONAL MEMORY]additional_memory_format"
)

PUZZLE_NOTE = (
    "<ANSWER> is the action that enters an answer into the lock in front of you. When you choose <ANSWER>, "
    'use this form: "<ANSWER>your answer</ANSWER>".'
)
HINT_GUIDE = (
    "If there is a hint message, choose the action that carries out the guideline in the hint message."
)

# the memory's layout (ours: the same four sections and JSON shapes, our placeholders)
SPATIAL_FORMAT = """{"wall A" : {
    "objects":["object A", "object B", ...]
},
...}"""
INSPECTED_FORMAT = """[{"object A" : {
    "state":"",
    "features":"",
    "notes":""
},
...}]"""
UNINSPECTED_FORMAT = "[ ]"
ADDITIONAL_FORMAT = "[1. a note, 2. another note, ...]"


def _hint(hint: str) -> str:
    return f"<Hint Message>\n{hint}</Hint Message>\n" if hint else ""


def _shown_actions(actions: Sequence[str], puzzle: bool) -> str:
    return action_list([*actions, ANSWER_SLOT] if puzzle else list(actions))


def _inventory(inventory: str) -> str:
    return (
        f"<Inventory>You hold {inventory}.</Inventory>"
        if inventory
        else "<Inventory>You hold nothing.</Inventory>"
    )


# --- the base agent (Table 2) ------------------------------------------------------------------------


def base_first(direction: str, scene: str, actions: Sequence[str], cot: bool = False) -> str:
    think = "Think first, then act: your thought in a [THINK] section, then " if cot else ""
    return (
        f"{INIT_PROMPT}. \n"
        f"<Current Observation>{direction} side of room - {scene}</Current Observation>\n\n"
        "Based on this information, choose the next action to progress in the game. You can take one of these "
        f"actions:\n{action_list(actions)}\n"
        f"{think}Give your action in an [ACTION] section: in [ACTION], answer ONLY with the chosen action, no other text.\n"
        + (f"{THINK}\n" if cot else "")
        + ACTION
    )


def base_turn(
    *,
    direction: str,
    scene: str,
    salient: Sequence[str],
    recent: Sequence[str],
    inventory: str,
    previous_action: str | None,
    hint: str,
    actions: Sequence[str],
    puzzle: bool,
    cot: bool = False,
) -> str:
    salient_text = "<Action Memory>\n" + "\n".join(salient) + "</Action Memory>\n" if salient else ""
    recent_text = (
        "<Recent actions(from oldest to latest)>\n" + "\n".join(recent) + "</Recent actions>\n"
        if recent
        else ""
    )
    answer_or = " (at this lock, the answer as <ANSWER>your answer</ANSWER>)" if puzzle else ""
    think = "Think first, then act: your thought in a [THINK] section, then " if cot else ""
    return (
        f"{INIT_PROMPT}. \n"
        f"{salient_text}{recent_text}\n"
        f"<Current Observation>{direction} side of room - {scene}</Current Observation>\n"
        f"{_inventory(inventory)}\n"
        f"<Your action before this turn>{previous_action}</Your action before this turn>\n"
        f"{_hint(hint)}\n"
        "Your task now:\n"
        "Based on this information, choose the next action to progress in the game. It must be one of these actions:\n"
        f"{_shown_actions(actions, puzzle)}\n"
        f"{PUZZLE_NOTE if puzzle else ''}\n"
        f"{HINT_GUIDE if hint else ''} {think}Give your action in an [ACTION] section: in [ACTION], answer ONLY with "
        f"the chosen action{answer_or}, no other text.\n" + (f"{THINK}\n" if cot else "") + ACTION
    )


def base_retry(direction: str, chosen: str, actions: Sequence[str], hint: str) -> str:
    return (
        f"{INIT_PROMPT}. \n"
        f"<Current Observation>{direction} side of room</Current Observation>\n"
        f"<Your Previous Action> {chosen}\n"
        f"{_hint(hint)}\n"
        f"<Available Actions> {action_list(actions)}\n"
        "You just took <Your Previous Action>, but that action is not among <Available Actions> now. Using your "
        "memory, choose an action that is needed before <Your Previous Action> can be taken.\n"
        f"{HINT_GUIDE if hint else ''}\n"
        f"Choose one of these actions:\n{action_list(actions)}\n"
        "Answer in this format and with no other text:\n[ACTION]"
    )


# --- VisEscaper: reasoning (Table 14) -------------------------------------------------------------


def react_first(direction: str, scene: str, actions: Sequence[str]) -> str:
    return (
        f"{INIT_PROMPT}. \n"
        f"<Current Observation>{direction} side of room - {scene}</Current Observation>\n\n"
        "Based on this information, choose the next action to progress in the game. You can take one of these "
        f"actions:\n{action_list(actions)}\n"
        "Think first, then act. Put your thought in a [THINK] section and your action in an [ACTION] section; "
        "in [ACTION], answer ONLY with the chosen action, no other text.\n"
        f"{THINK}\n{ACTION}"
    )


def react_turn(
    *,
    memory: str,
    salient: Sequence[str],
    recent: Sequence[str],
    direction: str,
    scene: str,
    inventory: str,
    previous_react: str,
    hint: str,
    actions: Sequence[str],
    puzzle: bool,
) -> str:
    memory_text = f"<Memory>\n{memory}</Memory>\n" if memory else ""
    salient_text = "<Action Memory>\n" + "\n".join(salient) + "</Action Memory>\n" if salient else ""
    recent_text = (
        "<Recent actions(from oldest to latest)>\n" + "\n".join(recent) + "</Recent actions>\n"
        if recent
        else ""
    )
    answer_or = " (at this lock, the answer as <ANSWER>your answer</ANSWER>)" if puzzle else ""
    return (
        f"{INIT_PROMPT}. \n"
        f"{memory_text}{salient_text}{recent_text}\n"
        f"<Current Observation>{direction} side of room - {scene}</Current Observation>\n"
        f"{_inventory(inventory)}\n"
        f"<Your Thought and Action before this turn>{previous_react}</Your Thought and Action before this turn>\n"
        f"{_hint(hint)}\n"
        "Your task now:\n"
        "Based on this information, choose the next action to progress in the game. It must be one of these actions:\n"
        f"{_shown_actions(actions, puzzle)}\n"
        f"{PUZZLE_NOTE if puzzle else ''}\n"
        f"Think first, then act. {HINT_GUIDE if hint else ''} Put your thought in a [THINK] section and your action in "
        f"an [ACTION] section; in [ACTION], answer ONLY with the chosen action{answer_or}, no other text.\n"
        f"{THINK}\n{ACTION}"
    )


def react_retry(direction: str, memory: str, chosen: str, actions: Sequence[str], hint: str) -> str:
    memory_text = f"<Memory>{memory}</Memory>\n" if memory else ""
    return (
        f"{INIT_PROMPT}. \n"
        f"<Current Observation>{direction} side of room</Current Observation>\n"
        f"{memory_text}\n"
        f"<Your Previous Action> {chosen}\n"
        f"{_hint(hint)}\n"
        f"<Available Actions> {action_list(actions)}\n"
        "You just took <Your Previous Action>, but that action is not among <Available Actions> now. Using your "
        "memory, choose an action that is needed before <Your Previous Action> can be taken.\n"
        f"{HINT_GUIDE if hint else ''}\n"
        f"Choose one of these actions:\n{action_list(actions)}\n"
        "Answer in this format and with no other text:\n[ACTION]"
    )


# --- VisEscaper: memory (Tables 15, 16) and feedback (Table 17) ------------------------------------------


def log_lines(logs: Sequence[dict[str, str]]) -> str:
    """The last logs as the memory prompts list them (an effect follows object actions only)."""
    return "\n".join(
        f"Observation: [{log['scene']}]\n Action: [{log['action']}]"
        if log["analysis"] == "-"
        else f"Observation: [{log['scene']}]\n Action: [{log['action']}] - {log['analysis']}"
        for log in logs
    )


def _memory_tail() -> str:
    return (
        "Answer in this format and with no other text:\n"
        f"[SPATIAL MEMORY]{SPATIAL_FORMAT}\n"
        f"[INSPECTED OBJECTS]{INSPECTED_FORMAT}\n"
        f"[UNINSPECTED OBJECTS]{UNINSPECTED_FORMAT}\n"
        f"[ADDITIONAL MEMORY]{ADDITIONAL_FORMAT}"
    )


def memory_construct(logs: Sequence[dict[str, str]]) -> str:
    return (
        f"{INIT_PROMPT}. \n"
        f"<Last 10 logs(from oldest to latest)>\n{log_lines(logs)}</Last 10 logs>\n"
        "What the information means:\n"
        "<Last 10 logs>: the sequence of observation, action-effect, next observation, next action-effect of each turn.\n\n"
        "Your task now:\n"
        "Build your memory of the room from the last 10 logs, following these guidelines:\n"
        '1. Find which objects are on each wall (by direction) and put that in the "[SPATIAL MEMORY]" section.\n'
        '2. Objects you inspected with "inspect [object]" go into the "[INSPECTED OBJECTS]" section.\n'
        '3. Objects you have not inspected with "inspect [object]" go into the "[UNINSPECTED OBJECTS]" section.\n'
        "4. Anything from the observations that is in neither [SPATIAL MEMORY] nor [INSPECTED OBJECTS] and that you "
        'think you need to solve other problems goes into the "[Additional Memory]" section.\n\n'
        + _memory_tail()
    )


def memory_update(memory: str, logs: Sequence[dict[str, str]]) -> str:
    return (
        f"{INIT_PROMPT}. \n"
        f"<Current Memory>\n{memory}</Current Memory>\n"
        f"<Last 10 logs(from oldest to latest)>\n{log_lines(logs)}</Last 10 logs>\n"
        "What each piece of information means:\n"
        "<Last 10 logs>: the sequence of observation, action-effect, next observation, next action-effect of each turn.\n\n"
        "Your task now:\n"
        "Update your memory of the room from the last 10 logs, following these guidelines:\n"
        '1. An object from the "[UNINSPECTED OBJECTS]" section that you have now inspected with "inspect [object]" '
        'goes into the "[INSPECTED OBJECTS]" section.\n'
        "2. Update <Current Memory> with anything the last 10 logs tell you that <Current Memory> does not hold yet.\n"
        "3. Anything that is in neither the spatial memory nor the inspected objects and that you think you need to "
        'solve other problems goes into the "[ADDITIONAL MEMORY]" section.\n' + _memory_tail()
    )


def feedback(previous_scene: str, previous_action: str, current_scene: str) -> str:
    return (
        f"{INIT_PROMPT}. \n"
        f"<Previous Observation> : {previous_scene}\n"
        f"<Previous Action> : {previous_action}\n"
        f"<Current Observation> : {current_scene}\n\n"
        "What each piece of information means:\n"
        "<Previous Observation> describes the scene before your action, and <Current Observation> the scene after it.\n\n"
        "Your task now:\n"
        "Compare <Previous Observation> and <Current Observation> to analyse the effect of your action. Make the "
        "analysis concise and definite, not descriptive, in fewer than 10 words.\n"
        f"{ANALYSIS}"
    )


# --- captions (Table 18) ----------------------------------------------------------------------------

_CAPTION_RULES = (
    'Describe this image. Write the names of the visible objects as given above, in "".\n'
    "Your description must follow these rules:\n"
    "1. Include every piece of visual information, concisely and clearly.\n"
    "2. Describe the image only; do not analyse the scene or the room.\n"
    "3. Do not begin with phrases such as 'The image depicts' or 'The image shows'."
)


def caption(kind: str, name: str, objects: Sequence[str]) -> str:
    """The caption prompt of a wall view (objects: the wall's receptacles and their items), an object
    close-up (its visible items) or an item close-up."""
    if kind == "wall":
        return f"A picture of one wall of a room, showing these objects: {action_list(objects)}\n{_CAPTION_RULES}"
    if kind == "receptacle":
        items = [o for o in objects if o != name]
        present = (
            f" In {name}, these objects are present: {', '.join(repr(i) for i in items)}" if items else ""
        )
        return f"A close-up picture of the object '{name}'.{present}\n{_CAPTION_RULES}"
    return f"A close-up picture of the item '{name}'.\n{_CAPTION_RULES}"
