"""MM-Escape's task ids. Imported by `playbench.tasks`; keep it free of heavy imports.

Each id is one level (`fixed`): `--set level=...` cannot turn `mmescape/level-1` into another
level; the error names the id to run instead.
"""

from playbench.core.registry import register

TASK = "playbench.tasks.mmescape.task:EscapeTask"
register(
    "mmescape/level-1",
    TASK,
    description="MM-Escape difficulty 1: the door opens by interaction",
    fixed={"level": "level-1"},
)
register(
    "mmescape/level-2",
    TASK,
    description="MM-Escape difficulty 2: a visible key opens the door",
    fixed={"level": "level-2"},
)
register(
    "mmescape/level-3-note-key",
    TASK,
    description="MM-Escape difficulty 3: note -> password -> box -> key -> door",
    fixed={"level": "level-3-note-key"},
)
register(
    "mmescape/level-3-key-note",
    TASK,
    description="MM-Escape difficulty 3: key -> box -> note -> password -> door",
    fixed={"level": "level-3-key-note"},
)
register(
    "mmescape/multi-room",
    TASK,
    description="MM-Escape two rooms joined by a door (levels via --set rooms=level-1,level-2)",
    fixed={"level": "multi-room"},
)
