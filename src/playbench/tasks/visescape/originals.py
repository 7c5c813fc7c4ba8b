"""The authors' repository (pull-ups/VisEscape-demo) as the originals folder holds it, and its text map.

Imported by `registration.py`: only `playbench.core.originals` here. Every text below is read from the
clone at run time (`texts=original`) and filled as the authors' code fills it (`original_prompts.py`);
nothing of it ships with playbench. `texts=ours` uses our paraphrases (`agent_prompts.py`, `protocol.py`).
"""

from __future__ import annotations

from playbench.core.originals import OriginalRepo, OriginalsUse, TextRef, register_original

NAME = "VisEscape-demo"
COMMIT = "9f65b999d0163e623d14b396ad30aed09fefad65"

_AGENT = "src/vis_escape/experiment/agent"
BASE = f"{_AGENT}/baseagent/prompt.py"
BASE_AGENT = f"{_AGENT}/baseagent/agent.py"
MEM = f"{_AGENT}/visescaper/prompt.py"
MEM_AGENT = f"{_AGENT}/visescaper/agent.py"
MEM_RUNNER = f"{_AGENT}/visescaper/experiment_runner.py"
CAPTIONS = "src/vis_escape/config"

_B_TURN = "get_prompt_next_action_withreason_vlm"
_B_RETRY = "get_prompt_next_action_withreason_retry"
_M_TURN = "get_prompt_next_action_withreason_vlm"
_M_RETRY = "get_prompt_next_action_withreason_retry"
_M_BUILD = "get_prompt_spatial_memory_construct"
_M_UPDATE = "get_prompt_spatial_memory_update"


def _t(id: str, file: str, symbol: str, filled: str) -> TextRef:
    return TextRef(id, file, symbol, filled)


# --- the base agent (its turn prompt is also what every room task shows the `llm` agent) -------------
BASE_TEXTS = (
    _t("base.init", BASE, "init_prompt", "the {init_prompt} field of every prompt below"),
    _t(
        "base.first",
        BASE,
        "get_prompt_next_action_first_turn_vlm:prompt",
        "first turn, image: init prompt, direction, the actions as a Python list; the image after the text",
    ),
    _t(
        "base.first.caption",
        BASE,
        "get_prompt_next_action_first_turn:prompt",
        "first turn with a caption instead of the image (Socratic setting, observation=caption)",
    ),
    _t(
        "base.turn",
        BASE,
        f"{_B_TURN}:prompt",
        "every later turn, image: the sections below, direction, previous action, the actions list",
    ),
    _t(
        "base.turn.caption",
        BASE,
        "get_prompt_next_action_withreason:prompt",
        "every later turn with a caption instead of the image",
    ),
    _t("base.answer_note", BASE, f"{_B_TURN}:#1", "{puzzle_text1} at a lock that takes a typed answer"),
    _t("base.answer_or", BASE, f"{_B_TURN}:#3", "{puzzle_text2} at such a lock"),
    _t(
        "base.action_memory",
        BASE,
        f"{_B_TURN}:#9",
        "the action memory, lines joined by newlines; omitted when empty",
    ),
    _t(
        "base.recent",
        BASE,
        f"{_B_TURN}:#11",
        "the last 10 non-turn actions, joined by newlines; omitted when empty",
    ),
    _t("base.inventory_none", BASE, f"{_B_TURN}:#13", "the inventory when empty"),
    _t("base.inventory", BASE, f"{_B_TURN}:#14", "the inventory, names joined by ', '"),
    _t("base.hint", BASE, f"{_B_TURN}:#15", "the hint when due, else empty"),
    _t("base.hint_guide", BASE, f"{_B_TURN}:#17", "{hint_guideline_text} when a hint is shown"),
    _t("base.answer_slot", BASE, f"{_B_TURN}:#19", "appended to the actions list at such a lock"),
    _t(
        "base.retry",
        BASE,
        f"{_B_RETRY}:prompt",
        "after an unavailable [ACTION]: the chosen action, hint, the actions list (twice); no image",
    ),
    _t("base.retry.hint", BASE, f"{_B_RETRY}:#1", "the retry prompt's hint section"),
    _t("base.retry.hint_guide", BASE, f"{_B_RETRY}:#3", "the retry prompt's hint guideline"),
    _t(
        "base.system",
        BASE_AGENT,
        "Agent.get_next_action:system_prompt",
        "system prompt of the text calls (caption setting, retries at a lock, asking again)",
    ),
)

# --- VisEscaper (the memory agent) --------------------------------------------------------------------
MEMORY_TEXTS = (
    _t("memory.init", MEM, "init_prompt", "the {init_prompt} field of the prompts below"),
    _t("memory.first", MEM, "get_prompt_next_action_first_turn_vlm:prompt", "first turn, image"),
    _t("memory.first.caption", MEM, "get_prompt_next_action_first_turn:prompt", "first turn, caption"),
    _t("memory.turn", MEM, f"{_M_TURN}:prompt", "every later turn, image (memory, previous reply, ...)"),
    _t("memory.turn.caption", MEM, "get_prompt_next_action_withreason:prompt", "every later turn, caption"),
    _t("memory.answer_note", MEM, f"{_M_TURN}:#1", "{puzzle_text1}"),
    _t("memory.answer_or", MEM, f"{_M_TURN}:#3", "{puzzle_text2}"),
    _t("memory.line.effect", MEM, f"{_M_TURN}:#9", "an action line with its effect (not '-')"),
    _t("memory.action_memory", MEM, f"{_M_TURN}:#15", "the action memory (distinct lines)"),
    _t("memory.recent", MEM, f"{_M_TURN}:#17", "the last 10 non-turn actions with their effects"),
    _t("memory.inventory_none", MEM, f"{_M_TURN}:#19", "the inventory when empty"),
    _t("memory.inventory", MEM, f"{_M_TURN}:#20", "the inventory"),
    _t("memory.memory", MEM, f"{_M_TURN}:#21", "the memory section"),
    _t("memory.hint", MEM, f"{_M_TURN}:#23", "the hint section"),
    _t("memory.hint_guide", MEM, f"{_M_TURN}:#25", "the hint guideline"),
    _t("memory.answer_slot", MEM, f"{_M_TURN}:#27", "appended to the actions list at a lock"),
    _t("memory.retry", MEM, f"{_M_RETRY}:prompt", "after an unavailable [ACTION]"),
    _t("memory.retry.memory", MEM, f"{_M_RETRY}:#1", "the retry prompt's memory section"),
    _t("memory.retry.hint", MEM, f"{_M_RETRY}:#3", "the retry prompt's hint section"),
    _t("memory.retry.hint_guide", MEM, f"{_M_RETRY}:#5", "the retry prompt's hint guideline"),
    _t("memory.build", MEM, f"{_M_BUILD}:prompt", "the memory built at step 10 from the last 10 logs"),
    _t("memory.update", MEM, f"{_M_UPDATE}:prompt", "the memory rebuilt every 10 steps after"),
    _t("memory.format.spatial", MEM, f"{_M_BUILD}:spatial_json_format", "{spatial_json_format}"),
    _t(
        "memory.format.inspected",
        MEM,
        f"{_M_BUILD}:inspected_objects_json_format",
        "{inspected_objects_json_format}",
    ),
    _t(
        "memory.format.uninspected",
        MEM,
        f"{_M_BUILD}:uninspected_objects_json_format",
        "{uninspected_objects_json_format}",
    ),
    _t(
        "memory.format.additional",
        MEM,
        f"{_M_BUILD}:additional_memory_json_format",
        "{additional_memory_json_format}",
    ),
    _t("memory.log", MEM, f"{_M_BUILD}:#6", "a log line of a move (effect '-'), joined by newlines"),
    _t("memory.log.effect", MEM, f"{_M_BUILD}:#9", "a log line with its effect"),
    _t(
        "memory.feedback",
        MEM,
        "get_prompt_action_feedback:prompt",
        "the effect of an object action (captions before and after)",
    ),
    _t(
        "memory.system.react",
        MEM_AGENT,
        "Agent.get_next_action:system_prompt",
        "system prompt of a text turn call",
    ),
    _t(
        "memory.system.action", MEM_AGENT, "Agent.get_next_action:system_prompt#2", "system prompt of a retry"
    ),
    _t(
        "memory.system.memory",
        MEM_AGENT,
        "Agent.get_first_spatial_memory:system_prompt",
        "system prompt of the memory calls",
    ),
    _t(
        "memory.no_change",
        MEM_RUNNER,
        "AIExperimentRunner.run_experiment:action_feedback#3",
        "the effect when the view did not change",
    ),
)

# --- captions (Table 18; the object view's prompt holds a nested f-string: its field reads `{#1}`, the
# nested text `@1`) ---------------------------------------------------------------------------------------
CAPTION_TEXTS = (
    _t(
        "caption.wall",
        f"{CAPTIONS}/caption_wall_view.py",
        "process_wall_view_json:prompt",
        "{objects}: the Python list of the wall's receptacles and their items",
    ),
    _t("caption.item", f"{CAPTIONS}/caption_item_view.py", "process_item_view_json:prompt", "{item_name}"),
    _t(
        "caption.object",
        f"{CAPTIONS}/caption_object_view.py",
        "process_object_view_json:prompt",
        "{object_type}; {#1}: caption.object.items filled when the view holds items, else empty",
    ),
    _t(
        "caption.object.items",
        f"{CAPTIONS}/caption_object_view.py",
        "process_object_view_json:prompt@1",
        "{object_type}, {items_str}: the items as 'a', 'b'",
    ),
)
CAPTION_OBJECT_FILE = f"{CAPTIONS}/caption_object_view.py"

REPO = OriginalRepo(
    name=NAME,
    url="https://github.com/pull-ups/VisEscape-demo",
    commit=COMMIT,
    suites=("visescape",),
    needs=(
        "assets",
        "src/vis_escape/objects",
        "evaluation/get_score.py",
        BASE,
        BASE_AGENT,
        MEM,
        MEM_AGENT,
        MEM_RUNNER,
        f"{CAPTIONS}/caption_wall_view.py",
        CAPTION_OBJECT_FILE,
        f"{CAPTIONS}/caption_item_view.py",
    ),
    texts=BASE_TEXTS + MEMORY_TEXTS + CAPTION_TEXTS,
    # the authors' twenty rooms read from the clone at COMMIT (`playbench list --digests`)
    digests={"visescape/original": "29ba01efd53934b8", "visescape/original-hint": "29ba01efd53934b8"},
)

# how each task class uses the clone: `source` defaults to the clone for the authors' rooms
ORIGINAL_ROOMS = OriginalsUse(repo=NAME, data={"source": ""}, texts=True)
TEXTS_ONLY = OriginalsUse(repo=NAME, data={}, texts=True)

register_original(REPO)
