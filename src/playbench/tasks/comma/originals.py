"""COMMA's authors' repository as the originals folder holds it, and the map of its texts.

`pschwendy/multimodal_comms` at the commit the fidelity table names; the COMMA app is
`src/multimodal_comms/apps/comma`. Read as data only (`core/original_texts.py`): the role prompts and
the manuals (`config/prompts.json`), how their agents assemble a request (`agents/agent.py`, the GPT-4o
agent `agents/gpt4o_agent.py`), the environment's words (`modules/module.py`), the seats' labels
(`main.py`), and the paper's puzzle set (`config/puzzles_final.json`). Imported by `registration.py`:
only `playbench.core.originals` may be imported here.
"""

from __future__ import annotations

from playbench.core.originals import OriginalRepo, OriginalsUse, TextRef, register_original

NAME = "multimodal_comms"
URL = "https://github.com/pschwendy/multimodal_comms"
COMMIT = "7aef98f96cc602852ba9fbdbb40eef98b38a103a"
APP = "src/multimodal_comms/apps/comma"

PROMPTS = f"{APP}/config/prompts.json"
AGENT = f"{APP}/agents/agent.py"
GPT4O = f"{APP}/agents/gpt4o_agent.py"
MODULE = f"{APP}/modules/module.py"
MAIN = f"{APP}/main.py"
PUZZLES = f"{APP}/config/puzzles_final.json"

# our module name -> the key of its manual in prompts.json (their module's `str()`, its class name)
MANUAL_KEYS: dict[str, str] = {
    "button": "ButtonPuzzle",
    "dog": "DogPuzzle",
    "wire": "SimpleWirePuzzle",
    "who": "WhoPuzzle",
    "led": "LedPuzzle",
    "memory": "MemoryPuzzle",
    "keypad": "KeyPadPuzzle",
    "password": "PasswordPuzzle",
    "color": "ColourPuzzle",
    "maze": "MazePuzzle",
}

_HISTORY = "Agent.get_conversation_history_string"
_RESPOND = "GPT4oAgent.respond"

TEXTS: tuple[TextRef, ...] = (
    TextRef("system", GPT4O, f"{_RESPOND}:#37", "the system message of every call, as is"),
    TextRef("solver_prompt", PROMPTS, "SOLVER", "as is, at the head of the solver's request"),
    TextRef(
        "expert_prompt",
        PROMPTS,
        "EXPERT",
        "at the head of the expert's request; its closing word-limit clause is dropped unless "
        "`expert_word_limit` is set (then its number is the limit)",
    ),
    *(
        TextRef(f"manual.{name}", PROMPTS, key, "as is, after the expert's prompt")
        for name, key in MANUAL_KEYS.items()
    ),
    TextRef("actions_header", AGENT, f"{_HISTORY}:#13", "then the actions available now, one a line"),
    TextRef("action_format", AGENT, f"{_HISTORY}:action_string#2", "filled with the delimiter"),
    TextRef("action_delimiter", MAIN, "GameManager.__init__:action_delimeter", "as is (empty)"),
    TextRef("prompt_alone", AGENT, f"{_HISTORY}:#9", "filled with the solver's prompt"),
    TextRef("prompt_and_manual", AGENT, f"{_HISTORY}:#10", "filled with the expert's prompt and manual"),
    TextRef("transcript_line", AGENT, f"{_HISTORY}:#11", "one per message: label and words"),
    TextRef("reply_cue", AGENT, f"{_HISTORY}:#12", "filled with the seat's label, last"),
    TextRef("label.solver", MAIN, "GameManager.__init__:#28", "the solver's label"),
    TextRef("label.expert", MAIN, "GameManager.__init__:#24", "the expert's label"),
    TextRef("label.environment", MODULE, "Module.execute_action:#6", "the label of action results"),
    TextRef("feedback.mistake", MODULE, "Module.execute_action:message#1", "after an action that struck"),
    TextRef("feedback.done", MODULE, "Module.execute_action:message#2", "after any other action"),
    TextRef("manual_picture", GPT4O, f"{_RESPOND}:#33", "the expert's text beside the manual page"),
    TextRef("word_limit", GPT4O, f"{_RESPOND}:#45", "with `expert_word_limit`: filled with it"),
)

# instance-set digests of the tasks whose default set the clone gives (`config/puzzles_final.json`)
# (seed 0; comma/all's button and dog are generated, so its digest holds them too)
DIGESTS: dict[str, str] = {
    "comma/all": "81307968c0397470",
    "comma/color": "e78517ed4b18dd5d",
    "comma/keypad": "3c5dfdcc9a52f3eb",
    "comma/led": "049763e3bfb9ba80",
    "comma/maze": "953eb10300582478",
    "comma/memory": "39be9c41ebc7c06c",
    "comma/password": "94b50f131707af10",
    "comma/who": "159d12cbc7a19dcf",
    "comma/wire": "efff6b9e4392727a",
}

REPO = OriginalRepo(
    name=NAME,
    url=URL,
    commit=COMMIT,
    suites=("comma",),
    needs=(PROMPTS, AGENT, GPT4O, MODULE, MAIN, PUZZLES),
    texts=TEXTS,
    digests=DIGESTS,
)

# what CommaTask reads from the clone: its texts, and `puzzles` (the paper's set) by default
USE = OriginalsUse(repo=NAME, data={"puzzles": PUZZLES}, texts=True)


def register() -> None:
    register_original(REPO)
