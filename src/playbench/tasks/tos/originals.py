"""The authors' repository as Theory of Space reads it from the user's clone (`core/originals.py`).

Only this light module is imported by `registration.py`: it names the repository, the pinned commit,
the paths the suite reads (a sparse clone: the repository is large) and the text map. The words
themselves are read at run time (`texts.py`), never shipped.
"""

from __future__ import annotations

from playbench.core.originals import OriginalRepo, TextRef, register_original

NAME = "Theory-of-Space"
URL = "https://github.com/mll-lab-nu/Theory-of-Space"
COMMIT = "7a2a1223e0f46390fb5f20126966cd2852e40b0c"
BASE = "vagen/env/spatial/Base/tos_base"
PROMPTER = f"{BASE}/prompts/prompter.py"
UTILS = f"{BASE}/utils/utils.py"
FALSE_BELIEF = f"{BASE}/prompts/false_belief_prompts.py"
ENV = "vagen/env/spatial/env.py"
ACTIONS = f"{BASE}/actions/actions.py"
EXPLORATION = f"{BASE}/managers/exploration_manager.py"
# their example scenes (run00 ... run99, `meta_data.json` each): the default of the `scenes` option
SCENES = "room_data/3-room"

TEXTS: tuple[TextRef, ...] = (
    TextRef(
        "system",
        PROMPTER,
        "PromptManager.system_prompt:return",
        filled="f-string with the two labels (`think_label`, `answer_label`): the system message",
    ),
    TextRef("think_label", UTILS, "THINK_LABEL", filled="as is, in `system` and `format_footer`"),
    TextRef("answer_label", UTILS, "ANSWER_LABEL", filled="as is, in `system` and `format_footer`"),
    TextRef(
        "format_footer",
        PROMPTER,
        "PromptManager.get_format_footer:return",
        filled="their `enable_think`, `is_exploration=True` form: the labels, `answer_hint` = `footer_answer`, "
        "`think` = `footer_think`; after a newline, it closes the first message and every later user "
        "message of the exploration but the last (`env.py`)",
    ),
    TextRef(
        "footer_answer", PROMPTER, "PromptManager.get_format_footer:answer_hint", filled="as is (exploration)"
    ),
    TextRef(
        "footer_think",
        PROMPTER,
        "PromptManager.get_format_footer:#4",
        filled="as is: the exploration branch of their `think = ... if is_exploration else ...`",
    ),
    TextRef(
        "steps_left",
        PROMPTER,
        "PromptManager.steps_left_message:#1",
        filled="`remaining_steps` = the steps left; after a valid turn's result, on a new line",
    ),
    TextRef(
        "task_finished",
        PROMPTER,
        "PromptManager.task_finished_message:return",
        filled="as is: the whole answer to Term() and Term(changes=...)",
    ),
    TextRef(
        "invalid_action",
        PROMPTER,
        "PromptManager.invalid_action_message:return",
        filled="as is, then a newline (their `env.py`; no steps-left line): the result of an invalid reply",
    ),
    TextRef(
        "false_belief",
        FALSE_BELIEF,
        "FALSE_BELIEF_INSTRUCTION",
        filled="`.format(n_changes, max_steps)` as env.py fills it; the format footer after a newline",
    ),
)

# the result sentences of a turn (`feedback.py`): their action classes and ExplorationManager
RESULT_TEXTS: tuple[TextRef, ...] = (
    TextRef(
        "observe",
        ACTIONS,
        "ObserveBase.success_message:return",
        filled="`answer` = the entries (or `nothing_in_view`)",
    ),
    TextRef(
        "nothing_in_view",
        ACTIONS,
        "ObserveAction.execute:answer",
        filled="as is, the answer of an empty view",
    ),
    TextRef(
        "close_pairs",
        ACTIONS,
        "ObserveAction.execute:final_answer#2",
        filled="`local_answer` = the close-pair lines; appended to the entries",
    ),
    TextRef("rotated_zero", ACTIONS, "RotateAction.success_message:return", filled="as is, Rotate(0)"),
    TextRef(
        "rotated",
        ACTIONS,
        "RotateAction.success_message:return#2",
        filled="`direction` = `clockwise` / `counterclockwise`, `abs(self.degrees)`",
    ),
    TextRef("clockwise", ACTIONS, "RotateAction.success_message:#2", filled="as is, a positive angle"),
    TextRef("counterclockwise", ACTIONS, "RotateAction.success_message:#3", filled="as is, a negative angle"),
    TextRef(
        "rotate_failed",
        ACTIONS,
        "RotateAction.error_message:return",
        filled="`self.degrees`, `self.VALID_DEGREES` = our list of angles",
    ),
    TextRef("jumped", ACTIONS, "MoveAction.success_message:#2", filled="`self.target` = the object or door"),
    TextRef(
        "jump_failed",
        ACTIONS,
        "MoveAction.error_message:return",
        filled="`self.target`, the reason (`jump_reasons`) in place of `errors.get(...)`",
    ),
    *(
        TextRef(f"jump_{kind}", ACTIONS, f"MoveAction.error_message:errors[{kind}]", filled="as is, a reason")
        for kind in ("not_found", "not_observed", "not_visible")
    ),
    TextRef(
        "query",
        ACTIONS,
        "QueryAction.success_message:return",
        filled="`self.obj`, the answer `(x, y), facing F`",
    ),
    TextRef("query_failed", ACTIONS, "QueryBase.error_message:return", filled="`error_type` = the reason"),
    TextRef("query_not_found", ACTIONS, "QueryAction.execute:#2", filled="as is, the reason: no such object"),
    TextRef(
        "query_not_observed", ACTIONS, "QueryAction.execute:#6", filled="as is, the reason: not observed"
    ),
    TextRef(
        "terminated", ACTIONS, "TermAction.success_message:return", filled="as is, Term() in a passive log"
    ),
    TextRef(
        "failed_move",
        EXPLORATION,
        "ExplorationManager.execute_action_sequence:message",
        filled="`obs_result.message` = the Observe() result that replaces the rest of the turn",
    ),
)

REPO = OriginalRepo(
    name=NAME,
    url=URL,
    commit=COMMIT,
    suites=("tos",),
    needs=(ENV, PROMPTER, UTILS, FALSE_BELIEF, ACTIONS, EXPLORATION, SCENES),
    sparse=True,
    texts=TEXTS + RESULT_TEXTS,
    # their scenes' instance digests are pinned once measured on a full clone (see the README)
    digests={},
)


def register() -> None:
    register_original(REPO)
