"""Prompts of the VisEscape agents, in our own words, after the paper's prompt tables (14-18).

Every prompt opens with `GAME_INTRO` (the paper's "initial prompt"). The reasoning prompts ask for a
`[THINK]` section and an `[ACTION]` section; the memory prompts for four bracketed sections; the
feedback prompt for a short `[ANALYSIS]`. Section markers are what `agents.py` parses, so they are
constants here. Builders return plain strings; images are placed by the agents between the text pieces
(`IMAGE_SLOT` marks where a view's image goes).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

THINK = "[THINK]"
ACTION = "[ACTION]"
ANALYSIS = "[ANALYSIS]"
SPATIAL = "[SPATIAL MEMORY]"
INSPECTED = "[INSPECTED OBJECTS]"
UNINSPECTED = "[UNINSPECTED OBJECTS]"
ADDITIONAL = "[ADDITIONAL MEMORY]"

# Where the agent splices the current view's image(s) into a prompt (VLM mode).
IMAGE_SLOT = "\x00IMAGE\x00"

NO_CHANGE = "No change occurred"
UNAVAILABLE = "That action was not available"

GAME_INTRO = (
    "You are an AI agent inside a room escape game. Four walls surround the room; you look at another "
    'wall with "turn_to_[direction]". Every wall holds objects you can interact with, and you look at an '
    'object up close with "inspect [object]". Read the information and the task below carefully and '
    "answer as asked."
)

ANSWER_NOTE = (
    "<ANSWER> is the action that enters a solution into the lock in front of you. To use it, write "
    "<ANSWER>your answer</ANSWER> with your answer between the tags."
)

SPATIAL_FORMAT = json.dumps({"direction 1": {"objects": ["object1", "object2", "..."]}, "...": {}})
INSPECTED_FORMAT = '[{"object 1": {"state": "", "characteristics": "", "additional info": ""}}, ...]'


def hint_text(hints: Sequence[str]) -> str:
    if not hints:
        return ""
    return "Hint message: " + " ".join(hints)


def action_format(cot: bool, answer_offered: bool) -> str:
    """The closing instruction of a reasoning prompt."""
    target = "the chosen action or <ANSWER>your answer</ANSWER>" if answer_offered else "the chosen action"
    if cot:
        return (
            "Think before you act. Write your thinking in the section [THINK] and your action in the section "
            f"[ACTION]. In [ACTION] write only {target} and nothing else.\n{THINK}\n{ACTION}"
        )
    return f"Reply with the section [ACTION] holding only {target}, with no other text.\n{ACTION}"


def available_block(actions: Sequence[str]) -> str:
    return "You can choose one of these actions: " + ", ".join(actions)


def task_notes(last_result: str, lock: str | None, answer_format: str | None) -> str:
    """What the task reported besides the view, as the agents pass it on with the view: the last action's
    result and, at a lock, how to enter its answer."""
    lines = [f"<Last action result>{last_result}</Last action result>"] if last_result else []
    if lock is not None:
        lines.append(
            f"You are facing the lock {lock}. To enter an answer reply <ANSWER>your answer</ANSWER> ({answer_format})."
        )
    return "\n".join(lines)


def observation_block(where: str, scene: str) -> str:
    """`where` names the view ("north side of room - wall view"); `scene` is a description, or IMAGE_SLOT
    (plus any remaining task text) when the model sees the image itself."""
    return f"<Current Observation>{where} - {scene}</Current Observation>"


# --- base agent ---------------------------------------------------------------------------------


def base_prompt(
    history: Sequence[str],
    held_items: str,
    observation: str,
    actions: Sequence[str],
    answer_offered: bool,
    hints: Sequence[str],
    cot: bool,
) -> str:
    """The baseline: last k observations and actions, held items, the current view, the available actions."""
    past = "\n".join(history) if history else "(nothing yet: this is your first step)"
    parts = [
        GAME_INTRO,
        f"<Recent history (from oldest to latest)>\n{past}\n</Recent history>",
        f"<Held items>{held_items or 'nothing'}</Held items>",
        observation,
        "Choose the next action that moves you forward in the game. " + available_block(actions),
    ]
    if answer_offered:
        parts.append(ANSWER_NOTE)
    if hints:
        parts.append(hint_text(hints) + " Choose the action that carries out the hint.")
    parts.append(action_format(cot, answer_offered))
    return "\n".join(parts)


# --- memory agent: reasoning (Table 14) ---------------------------------------------------------------


def initial_prompt(
    observation: str, actions: Sequence[str], answer_offered: bool, hints: Sequence[str]
) -> str:
    """The first step: nothing is remembered yet."""
    parts = [
        GAME_INTRO,
        observation,
        "Using this information, choose the next action that moves you forward in the game. "
        + available_block(actions),
    ]
    if answer_offered:
        parts.append(ANSWER_NOTE)
    if hints:
        parts.append(hint_text(hints))
    parts.append(action_format(True, answer_offered))
    return "\n".join(parts)


def reason_prompt(
    memory: str,
    salient_actions: Sequence[str],
    recent_actions: Sequence[str],
    observation: str,
    previous_react: str,
    actions: Sequence[str],
    answer_offered: bool,
    hints: Sequence[str],
    cot: bool,
) -> str:
    parts = [
        GAME_INTRO,
        f"<Memory>{memory}</Memory>",
        f"<Action Memory>{_lines(salient_actions)}</Action Memory>",
        f"<Recent actions (from oldest to latest)>{_lines(recent_actions)}</Recent actions>",
        observation,
        f"<Your thought and action in the previous turn>{previous_react or '(none)'}"
        "</Your thought and action in the previous turn>",
        available_block(actions),
    ]
    if answer_offered:
        parts.append(ANSWER_NOTE)
    guide = "If a hint message is given, choose the action that carries out its guideline."
    parts.append(f"{guide} {hint_text(hints)}".rstrip())
    parts.append(action_format(cot, answer_offered))
    return "\n".join(parts)


def retry_prompt(memory: str, previous_action: str, actions: Sequence[str], hints: Sequence[str]) -> str:
    """After an action that was not available: ask again for one of the offered actions, action only."""
    parts = [
        GAME_INTRO,
        f"<Memory>{memory}</Memory>",
        f"<Your Previous Action> {previous_action}",
        f"<Available Actions> {', '.join(actions)}",
        "You just tried <Your Previous Action>, but it is not among <Available Actions> here. Using your "
        "memory, choose the available action that brings you closer to doing <Your Previous Action>.",
    ]
    if hints:
        parts.append(hint_text(hints))
    parts.append(f"Choose one of these actions: {', '.join(actions)}")
    parts.append(f"Reply in the format below and write nothing else:\n{ACTION}")
    return "\n".join(parts)


# --- memory agent: memory construction and update (Tables 15, 16) ---------------------------------------


def log_lines(entries: Sequence[tuple[str, str, str]]) -> str:
    """(scene, action, effect) triples as the paper's log lines."""
    out = []
    for scene, action, effect in entries:
        out.append(f"Observation: [{scene}]")
        out.append(f"Action: [{action}]" + (f" - {effect}" if effect else ""))
    return "\n".join(out)


def _memory_reply_format() -> str:
    return (
        "Reply in exactly this format, with no other text:\n"
        f"{SPATIAL} {SPATIAL_FORMAT}\n"
        f"{INSPECTED} {INSPECTED_FORMAT}\n"
        f"{UNINSPECTED} []\n"
        f"{ADDITIONAL} [1. additional memory 1, 2. additional memory 2, ...]"
    )


def memory_construct_prompt(logs: str, count: int) -> str:
    return "\n".join(
        [
            GAME_INTRO,
            f"<Last {count} logs (from oldest to latest)>\n{logs}\n</Last {count} logs>",
            "<Last logs> is the sequence of what you observed and what your action did, turn by turn.",
            f"Your task: build your memory of the room from the last {count} logs, following these rules.",
            f'1. Find out which objects stand on each wall and record them under "{SPATIAL}".',
            f'2. Record every object you looked at up close with "inspect [object]" under "{INSPECTED}".',
            f'3. Record the objects you have not yet inspected with "inspect [object]" under "{UNINSPECTED}".',
            f'4. Record under "{ADDITIONAL}" anything else you observed that is not in {SPATIAL} or '
            f"{INSPECTED} and that you may need to solve other problems (clues, codes, colors, counts).",
            _memory_reply_format(),
        ]
    )


def memory_update_prompt(memory: str, logs: str, count: int) -> str:
    return "\n".join(
        [
            GAME_INTRO,
            f"<Current Memory>\n{memory}\n</Current Memory>",
            f"<Last {count} logs (from oldest to latest)>\n{logs}\n</Last {count} logs>",
            "<Last logs> is the sequence of what you observed and what your action did, turn by turn.",
            f"Your task: update your memory of the room with the last {count} logs, following these rules.",
            f'1. Move every object listed under "{UNINSPECTED}" that you have now inspected with '
            f'"inspect [object]" to "{INSPECTED}", with what you learned about it.',
            "2. Add to <Current Memory> everything the last logs tell you that it does not contain yet, and "
            "correct what has changed (object states, where things are).",
            f'3. Record under "{ADDITIONAL}" anything else not in the spatial memory or the inspected '
            "objects that you may need to solve other problems (clues, codes, colors, counts).",
            _memory_reply_format(),
        ]
    )


# --- memory agent: feedback after an action (Table 17) ---------------------------------------------------


def feedback_prompt(previous_scene: str, action: str, current_scene: str) -> str:
    return "\n".join(
        [
            GAME_INTRO,
            f"<Previous Observation> : {previous_scene}",
            f"<Previous Action> : {action}",
            f"<Current Observation> : {current_scene}",
            "<Previous Observation> describes the scene before your action and <Current Observation> the "
            "scene after it.",
            "Your task: compare <Previous Observation> with <Current Observation> and state what your action "
            "did. Be brief and definite rather than descriptive, in fewer than 10 words.",
            ANALYSIS,
        ]
    )


# --- captions of views (Table 18) ------------------------------------------------------------------------

_CAPTION_RULES = (
    "Rules for the description:\n"
    "1. Give every piece of visual information (colors, shapes, counts, digits, letters, order, states such "
    "as open, closed, locked or lit), briefly and clearly.\n"
    "2. Describe only the picture; do not analyse the room or suggest what to do.\n"
    "3. Begin directly with the content, not with words like 'The image shows'."
)


def caption_prompt(view_kind: str, subject: str, names: Sequence[str]) -> str:
    """`view_kind` is wall, object or item; `subject` what the view shows; `names` the objects in it."""
    listed = ", ".join(f'"{n}"' for n in names)
    if view_kind == "item":
        head = f"This picture is a close-up of the item '{subject}'."
    elif view_kind == "object":
        head = f"This picture is a close-up of the object '{subject}'."
        if listed:
            head += f" These things can be seen in it: {listed}. Call them by these names, in double quotes."
    else:
        where = f"the {subject}" if subject else "a wall of the room"
        head = f"This picture is a view of {where}."
        if listed:
            head += f" It holds these objects: {listed}. Call them by these names, in double quotes."
    return f"{head}\nDescribe the picture.\n{_CAPTION_RULES}"


def _lines(items: Sequence[str]) -> str:
    return ("\n" + "\n".join(items) + "\n") if items else "(none)"
