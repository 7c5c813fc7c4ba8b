"""VisEscape's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register
from playbench.tasks.visescape import originals as _originals  # noqa: F401 - registers the authors' repository

ROOMS = "playbench.tasks.visescape.task:VisEscapeTask"
ROOM_COUNT = 20

# Each id is one shipped room (`fixed`): `visescape/room-01 --set rooms=room-02` is refused, naming
# visescape/room-02, and no room file replaces it. `visescape/rooms` plays all twenty by default.
for _k in range(1, ROOM_COUNT + 1):
    _room = f"room-{_k:02d}"
    # `visescape/rooms` plays these same rooms; `playbench run visescape` runs that, not each twice
    register(
        f"visescape/{_room}",
        ROOMS,
        description=f"playbench's own VisEscape-style room {_room} (not one of the paper's rooms)",
        default=False,
        fixed={"rooms": _room, "room_file": None},
    )
register(
    "visescape/rooms",
    ROOMS,
    description="playbench's own twenty VisEscape-style rooms (the paper's rooms: visescape/original)",
    rooms=["all"],
)
# The authors' twenty rooms, read at run time from a clone (`--set source=PATH`; nothing of theirs ships).
# Without a source they refuse to be played (one line naming --set source= and the originals folder); only
# the checks see a default set under them, the demo room's. Not in the bare suite name.
ORIGINAL = "playbench.tasks.visescape.original.task:OriginalTask"
register(
    "visescape/original",
    ORIGINAL,
    description="VisEscape: the authors' twenty rooms and images from a clone (--set source=PATH)",
    default=False,
)
register(
    "visescape/original-hint",
    ORIGINAL,
    description="VisEscape: the authors' rooms in hint mode (exp_hint: a hint after 30 steps without progress)",
    default=False,
    fixed={"hints": True},
)
# playbench's own demo room in the authors' format (room0), played by its own id only: no clone needed
register(
    "visescape/original-demo",
    "playbench.tasks.visescape.original.task:DemoTask",
    description="VisEscape: playbench's demo room in the authors' format (not one of their rooms; no clone "
    "needed, for trying the task and agents)",
    default=False,
)
# rooms built from a seed (issue 30); dataset=twin: one per room of the authors' set, matched in difficulty
register(
    "visescape/generated",
    "playbench.tasks.visescape.generated:GeneratedTask",
    description="VisEscape rooms generated from the seed (dataset=twin: the difficulty-matched twin of the "
    "authors' twenty rooms, also under visescape/original --set dataset=twin)",
    default=False,
    fixed={"rooms": ["all"], "room_file": None},
)
register(
    "visescape/quiz-vqa",
    "playbench.tasks.visescape.quiz_vqa:QuizVQATask",
    description="the visual quizzes of playbench's own rooms as multi-image VQA (clue + lock image, pass@1/@10)",
)

# --- agents (owned by the agents engineer: add the register_agent lines below) ---------------
from playbench.agents.registry import register_agent  # noqa: E402 - the agents block stays at the end

VISESCAPE_AGENTS = "playbench.tasks.visescape.agents"
register_agent(
    "visescape-base",
    f"{VISESCAPE_AGENTS}:BaseAgent",
    description="VisEscape base agent as the authors' code: action memory, last 10 non-turn actions, previous "
    "action, shuffled actions, retry prompt (--captioner-model for the Socratic setting)",
    needs_model=True,
    options=("shuffle_actions", "recent_actions", "unreadable", "no_image"),
)
register_agent(
    "visescape-memory",
    f"{VISESCAPE_AGENTS}:MemoryAgent",
    description="VisEscaper as the authors' code: memory rebuilt every 10 steps from the last 10 logs, feedback "
    "after object actions, ReAct with the previous reply; memory=false is Table 5's ablation",
    needs_model=True,
    options=(
        "shuffle_actions",
        "recent_actions",
        "unreadable",
        "no_image",
        "memory",
        "memory_every",
        "feedback",
    ),
)

from playbench.core.preset import register_preset  # noqa: E402

# the paper's settings and its Tables 2, 4, 5, 7, 10 and 11, for `playbench reproduce visescape`
register_preset("visescape", "playbench.tasks.visescape", "paper_preset.json")
