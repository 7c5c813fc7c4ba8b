"""The authors' repository (THUNLP-MT/EscapeCraft) as the originals folder holds it, and its text map.

Imported by `registration.py`: only `playbench.core.originals` here. Every text below is read from the
clone at run time (`texts=original`) and filled as the authors' code fills it (`words.py`); nothing of
it ships with playbench. `texts=ours` uses playbench's paraphrases (`words.OURS`).

The paper tasks' `scenes` option defaults to the clone's `levels/` folder (`PAPER_USE`); the sets read
from it are pinned in `DIGESTS` (the converted copies playbench ships, `levels/paper/`, are the same
scenes rounded to 4 decimals).
"""

from __future__ import annotations

from playbench.core.originals import OriginalRepo, OriginalsUse, TextRef, register_original

NAME = "EscapeCraft"
URL = "https://github.com/THUNLP-MT/EscapeCraft"
COMMIT = "b7b9fea826a029e32675a8cd1bdebd55ea132f1d"

PROMPTS = "src/prompt_config.py"
GAME = "src/Game.py"
BASE = "src/BaseGame.py"
LEVELS = "levels"


def _t(id: str, file: str, symbol: str, filled: str) -> TextRef:
    return TextRef(id, file, symbol, filled)


_DESCRIPTION = "BaseGame.__add_description:__description"
_ITEM = "Bag.get_item_desc:desc"
_ACT = "BaseGame.interaction:desc"

TEXTS: tuple[TextRef, ...] = (
    # the system prompt, whole (`src/main.py` picks it): the paper's Table 13 is `PromptTemplate_Base2`'s
    _t("system", PROMPTS, "PromptTemplate_Base2.SYS_PROMPT", "as read (instruction + operations)"),
    _t(
        "system.key_history",
        PROMPTS,
        "PromptTemplate_Base2.SYS_PROMPT_KEYONLY",
        "history=key: as read (instruction + operations + the key-steps sentence)",
    ),
    _t(
        "system.hint",
        PROMPTS,
        "PromptTemplate_Hint.SYS_PROMPT",
        "hint=original (any history, as their --hint): as read (their Base instruction + operations + hint)",
    ),
    # each turn's user message (its view follows the text)
    _t("step", PROMPTS, "PromptTemplate.STEP_PROMPT", ".format(interaction_result, bag_desc)"),
    _t("turn.start", GAME, "Game.main:desc", "the first turn's {desc} (no interaction)"),
    _t(
        "turn.interacted",
        GAME,
        "Game.ask_for_action:interaction_desc#1",
        "{desc} after a grab or read that answered",
    ),
    _t(
        "turn.failed",
        GAME,
        "Game.ask_for_action:interaction_desc#2",
        "{desc} after a grab or read that did not",
    ),
    _t("turn.plain", GAME, "Game.ask_for_action:interaction_desc#3", "{desc} without a grab or read"),
    _t("turn.no_response", GAME, "Game.ask_for_action:interaction_desc#4", "when {desc} is empty"),
    _t("bag.empty", GAME, "Game.ask_for_action:#7", "{bag_desc} when the bag is empty"),
    # the action's answers, key by key in the reply's order (Game.get_action)
    _t("action.moved", GAME, "Game.get_action:desc#2", "once for any movement key"),
    _t("action.view", GAME, "Game.get_action:desc#3", "once for look_at"),
    _t("action.interaction", GAME, "Game.get_action:desc#4", "per object reached: {id + 1}, {_desc}"),
    _t("action.too_far", GAME, "Game.get_action:desc#5", "a grab with an object in view, none within reach"),
    _t("action.nothing", GAME, "Game.get_action:desc#6", "a grab with no object in view"),
    # the objects' answers (BaseGame.interaction) and the bag's lines (Bag.get_item_desc)
    _t("item.box", BASE, f"{_DESCRIPTION}#1", "a box's description, then the lock"),
    _t("item.box_lock", BASE, f"{_DESCRIPTION}#2", "{item['unlock_method']['type']}"),
    _t("item.key", BASE, f"{_DESCRIPTION}#4", "a key's description"),
    _t("bag.item", BASE, f"{_ITEM}#2", "{id}, {item['type']}, {item['description']}"),
    _t("bag.paper", BASE, f"{_ITEM}#3", "a paper's line: {id}, then one part per content"),
    _t("bag.paper_numbers", BASE, f"{_ITEM}#4", "{item['password']}"),
    _t("bag.paper_other", BASE, f"{_ITEM}#5", "{content['type']} (story)"),
    _t("game.not_in_bag", BASE, "BaseGame.interaction:return[0]", "{use_item_id}"),
    _t("exit.about", BASE, f"{_ACT}#3", "{unlock['type']}"),
    _t("exit.password_right", BASE, f"{_ACT}#4", "as written"),
    _t("exit.password_wrong", BASE, f"{_ACT}#5", "{user_input}"),
    _t("exit.key_right", BASE, f"{_ACT}#6", "{use_item_id}"),
    _t("exit.key_wrong", BASE, f"{_ACT}#7", "{use_item_id}"),
    _t("exit.interact", BASE, f"{_ACT}#8", "as written"),
    _t("box.key_right", BASE, f"{_ACT}#10", "{use_item_id}, {self.open_box(item_id)}"),
    _t("box.key_wrong", BASE, f"{_ACT}#11", "{use_item_id}"),
    _t("box.key_hint", BASE, f"{_ACT}#12", "hint=original, no key given"),
    _t("box.password_right", BASE, f"{_ACT}#13", "{self.open_box(item_id)}"),
    _t("box.password_wrong", BASE, f"{_ACT}#14", "{user_input}"),
    _t("box.password_hint", BASE, f"{_ACT}#15", "hint=original, no input given"),
    _t("box.empty", BASE, f"{_ACT}#16", "as written"),
    _t("read.not_in_bag", BASE, f"{_ACT}#17", "{item_id}"),
    _t("read.story", BASE, f"{_ACT}#19", "{idx + 1}, {content['content']}"),
    _t("read.numbers", BASE, f"{_ACT}#21", "{str(idx + 1)}, {str(self.items[item_id]['password'])}"),
    _t("pickup", BASE, f"{_ACT}#22", "{self.bag.get_item_desc(item_id)}"),
    _t("box.opened", BASE, "BaseGame.open_box:desc#1", "then each content's bag line"),
    # after the escape
    _t("story", PROMPTS, "PromptTemplate.story_prompt", "as written, then the bag"),
    _t("story.empty_bag", GAME, "Game.story_recovery:#2", "the bag when empty"),
)

# the paper tasks' instance sets read from the clone at COMMIT (`playbench list --digests`); they differ
# from the shipped copies' only in rounding (the shipped files keep 4 decimals)
DIGESTS: dict[str, str] = {
    "mmescape/paper": "474eb18edcddb95c",
    "mmescape/paper-level-1": "d3b52a1802bba8aa",
    "mmescape/paper-level-2": "422ee85672bdbb66",
    "mmescape/paper-level-3-note-key": "a3399a65296c2825",
    "mmescape/paper-level-3-key-note": "69517993b8ef524e",
    "mmescape/paper-level-3.5": "6837d43ef2b5b6a5",
}

REPO = OriginalRepo(
    name=NAME,
    url=URL,
    commit=COMMIT,
    suites=("mmescape",),
    needs=(PROMPTS, GAME, BASE, LEVELS),
    texts=TEXTS,
    digests=DIGESTS,
)

# the generated levels (and the fork's houses, which the clone lacks): texts only
TEXTS_USE = OriginalsUse(repo=NAME)
# the paper's scenes: texts, and `scenes` defaults to the clone's levels/ folder
PAPER_USE = OriginalsUse(repo=NAME, data={"scenes": LEVELS})

register_original(REPO)
