"""MM-Escape's task ids. Imported by `playbench.tasks`; keep it free of heavy imports.

Each id is one level (`fixed`): `--set level=...` cannot turn `mmescape/level-1` into another
level; the error names the id to run instead. The `mmescape/paper*` ids play the paper's own
public scenes (the suite's default tasks); the `mmescape/level-*` and `mmescape/multi-room` ids are
playbench's procedural extension (generated rooms, any number of them).

The paper ids but the fork's houses are `PaperEscapeTask`: their `scenes` default to the authors' clone
in the originals folder (`originals.py`); every id reads its texts from it under the original's prompts.
"""

from playbench.core.preset import register_preset
from playbench.core.registry import register
from playbench.tasks.mmescape import originals  # noqa: F401 - registers the authors' repository

TASK = "playbench.tasks.mmescape.task:EscapeTask"
PAPER_TASK = "playbench.tasks.mmescape.task:PaperEscapeTask"
register(
    "mmescape/paper",
    PAPER_TASK,
    description="MM-Escape, every public scene of the paper's settings (levels 1, 2, 3 note-key, 3 key-note)",
    default=False,
    fixed={"level": "paper"},
)
register(
    "mmescape/paper-level-1",
    PAPER_TASK,
    description="MM-Escape Difficulty-1 in the paper's own scenes: the door opens by interaction",
    fixed={"level": "paper-level-1"},
)
register(
    "mmescape/paper-level-2",
    PAPER_TASK,
    description="MM-Escape Difficulty-2 in the paper's own scenes: a visible key opens the door",
    fixed={"level": "paper-level-2"},
)
register(
    "mmescape/paper-level-3-note-key",
    PAPER_TASK,
    description="MM-Escape Difficulty-3 (note first) in the paper's own scenes: note -> password -> box -> key -> door",
    fixed={"level": "paper-level-3-note-key"},
)
register(
    "mmescape/paper-level-3-key-note",
    PAPER_TASK,
    description="MM-Escape Difficulty-3 (key first) in the paper's own scenes: key -> box -> note -> password -> door",
    fixed={"level": "paper-level-3-key-note"},
)
register(
    "mmescape/paper-level-3.5",
    PAPER_TASK,
    description="MM-Escape level 3.5 (the authors' extension, not a setting of the paper) in the key-first scenes: key_1 opens a box holding the door's key_2",
    default=False,
    fixed={"level": "paper-level-3.5"},
)
register(
    "mmescape/paper-houses",
    TASK,
    description="MM-Escape key-first chain in the two-room houses of the fork's level 4 (replaced by the authors; not a setting of the paper)",
    default=False,
    fixed={"level": "paper-houses"},
)
register(
    "mmescape/level-1",
    TASK,
    description="MM-Escape difficulty 1 in generated rooms (playbench's extension): the door opens by interaction",
    default=False,
    fixed={"level": "level-1"},
)
register(
    "mmescape/level-2",
    TASK,
    description="MM-Escape difficulty 2 in generated rooms (playbench's extension): a visible key opens the door",
    default=False,
    fixed={"level": "level-2"},
)
register(
    "mmescape/level-3-note-key",
    TASK,
    description="MM-Escape difficulty 3 in generated rooms (playbench's extension): note -> password -> box -> key -> door",
    default=False,
    fixed={"level": "level-3-note-key"},
)
register(
    "mmescape/level-3-key-note",
    TASK,
    description="MM-Escape difficulty 3 in generated rooms (playbench's extension): key -> box -> note -> password -> door",
    default=False,
    fixed={"level": "level-3-key-note"},
)
register(
    "mmescape/multi-room",
    TASK,
    description="MM-Escape two generated rooms joined by a door (playbench's extension; levels via --set rooms=level-1,level-2)",
    default=False,
    fixed={"level": "multi-room"},
)

# the paper's settings and its published tables, for `playbench reproduce mmescape`
register_preset("mmescape", "playbench.tasks.mmescape", "paper_preset.json")
