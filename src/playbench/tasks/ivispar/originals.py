"""The iVISPAR authors' repository as the geom puzzle reads it: its texts, from the user's clone.

`SharkyBamboozle/iVISPAR` at the commit the suite README's fidelity table names. The geom puzzle
(`ivispar/sgp*`) reads every text its model receives from it with `texts=original`: the system
prompt (an instruction file plus the chain-of-thought block their agents append), the text of each
step, the past-state and past-action labels, and the note their agents show as the past action of
a reply they found no action in. Their agent classes word the step texts and labels differently
(indentation, labels), so the texts are mapped per class (`prompt_agent`). Nothing here is read at
import; keep this module free of imports other than `playbench.core.originals`.

No instance set is read from this clone: the paper's boards ship converted from the submission copy
(`anon148/iVISPAR@725ee6c`, `paper_data.py`).
"""

from __future__ import annotations

from playbench.core.originals import OriginalRepo, TextRef, register_original

NAME = "iVISPAR"
URL = "https://github.com/SharkyBamboozle/iVISPAR"
COMMIT = "97140194f7bdcd702b8b9d76175b9f51db012249"
# the submission copy the paper's 300 boards were converted from (data/paper_boards.json)
PAPER_BOARDS_COMMIT = "725ee6c"

AGENTS = "Source/Experiment/agent_systems.py"
INSTRUCTIONS = "Data/Instructions/ICML_instruction.txt"  # text and 3D vision
INSTRUCTIONS_2D = "Data/Instructions/ICML_instruction_2D.txt"  # 2D vision (shapes named by their glyphs)
COLOR_CODES = "Data/Params/color_codes.json"

# prompt_agent -> the authors' agent class whose texts and layout are sent
AGENT_CLASSES = {"gpt4": "GPT4Agent", "claude": "ClaudeAgent", "gemini": "GeminiAgent"}

# Fields of the originals' f-strings (their expressions' source), filled with our values.
FIELD_RESPONSE = "prev_exchange['response']"
FIELD_OBSERVATION = "prev_exchange['observation']"
FIELD_INDEX = "i"
FIELD_GOAL = "self.goal_state"
FIELD_CURRENT = "observation"
# ast.unparse writes the conditional without parentheses (some Python versions add them): both are filled
FIELD_HISTORY = "history_context if self.max_history > 0 else ''"
FIELD_SNIPPETS = ("text_snippet_active", "text_snippet_goal", "text_snippet_past")


def _code(kind: str, key: str) -> str:
    """The field of a label snippet that reads `color_codes.json` (`self.color_codes['past']['color']`)."""
    return f"self.color_codes['{kind}']['{key}']"


# the label kinds of color_codes.json the snippets read: active state, goal state, past state
CODE_KINDS = ("active_1", "goal_1", "past")

COMMON = (
    TextRef("system.instructions", INSTRUCTIONS, "", "the system prompt in text and 3D, as read"),
    TextRef("system.instructions_2d", INSTRUCTIONS_2D, "", "the system prompt in 2D, as read"),
    TextRef(
        "system.cot",
        AGENTS,
        "LLMAgent.__init__:system_prompt#2",
        "appended to the instruction file (their COT=true), as written",
    ),
    TextRef(
        "past.no_action",
        AGENTS,
        "LLMAgent.parse_action:action#2",
        "the past action of an unreadable reply, cleaned as their parse_action_rmv_special_chars",
    ),
    *(
        TextRef(f"label.{kind}.{key}", COLOR_CODES, f"{kind}.{key}", f"fills {{{_code(kind, key)}}}")
        for kind in CODE_KINDS
        for key in ("type", "color")
    ),
)

# (text id suffix, symbol in <Class>.act, how ours fills it), per agent class; `#N` = N-th literal
_PER_AGENT: dict[str, tuple[tuple[str, str, str], ...]] = {
    "gpt4": (
        (
            "vision.step",
            "#135",
            "text_snippet_* filled from the label snippets; a user turn after the images",
        ),
        ("vision.past_action", "#88", f"{{{FIELD_RESPONSE}}} = the cleaned past action"),
        ("text.step", "#165", f"{{{FIELD_GOAL}}}, {{{FIELD_CURRENT}}} = the goal and active state lines"),
        (
            "text.past_state",
            "#157",
            f"{{{FIELD_INDEX}}} = 1.., {{{FIELD_OBSERVATION}}} = the past state lines",
        ),
        (
            "text.past_action",
            "#161",
            f"{{{FIELD_INDEX}}} = 1.., {{{FIELD_RESPONSE}}} = the cleaned past action",
        ),
    ),
    "claude": (
        ("vision.step", "#101", "as gpt4.vision.step"),
        ("vision.past_action", "#58", "as gpt4.vision.past_action"),
        ("text.step", "#131", "as gpt4.text.step"),
        ("text.past_state", "#123", "as gpt4.text.past_state"),
        ("text.past_action", "#127", "as gpt4.text.past_action"),
    ),
    "gemini": (
        ("vision.step", "instruction", "as gpt4.vision.step"),
        ("vision.past_action", "#20", "as gpt4.vision.past_action"),
        (
            "text.step",
            "content#2[0]",
            f"{{{FIELD_HISTORY}}} = the past entries joined, goal and active lines",
        ),
        ("text.past_state", "history_context#2", f"{{{FIELD_OBSERVATION}}} = the past state lines"),
        ("text.past_action", "history_context#3", f"{{{FIELD_RESPONSE}}} = the cleaned past action"),
    ),
}


def agent_texts(agent: str) -> tuple[TextRef, ...]:
    cls = AGENT_CLASSES[agent]
    refs = [
        TextRef(f"{agent}.{suffix}", AGENTS, f"{cls}.act:{symbol}", filled)
        for suffix, symbol, filled in _PER_AGENT[agent]
    ]
    refs += [
        TextRef(
            f"{agent}.vision.snippet_{field.rsplit('_', 1)[1]}",
            AGENTS,
            f"{cls}.act:{field}",
            "the first assignment (their visual_state_embedding 'both'), filled from color_codes.json",
        )
        for field in FIELD_SNIPPETS
    ]
    return tuple(refs)


TEXTS: tuple[TextRef, ...] = COMMON + tuple(ref for agent in AGENT_CLASSES for ref in agent_texts(agent))
TEXT_BY_ID: dict[str, TextRef] = {ref.id: ref for ref in TEXTS}

REPO = OriginalRepo(
    name=NAME,
    url=URL,
    commit=COMMIT,
    suites=("ivispar",),
    needs=(AGENTS, INSTRUCTIONS, INSTRUCTIONS_2D, COLOR_CODES),
    texts=TEXTS,
)


def register() -> None:
    register_original(REPO)
