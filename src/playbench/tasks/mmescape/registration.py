"""MM-Escape's task ids. Imported by `playbench.tasks`; keep it free of heavy imports."""

from playbench.core.registry import register

TASK = "playbench.tasks.mmescape.task:EscapeTask"
register(
    "mmescape/level-1",
    TASK,
    description="MM-Escape difficulty 1: the door opens by interaction",
    level="level-1",
)
register(
    "mmescape/level-2",
    TASK,
    description="MM-Escape difficulty 2: a visible key opens the door",
    level="level-2",
)
register(
    "mmescape/level-3-note-key",
    TASK,
    description="MM-Escape difficulty 3: note -> password -> box -> key -> door",
    level="level-3-note-key",
)
register(
    "mmescape/level-3-key-note",
    TASK,
    description="MM-Escape difficulty 3: key -> box -> note -> password -> door",
    level="level-3-key-note",
)
register(
    "mmescape/multi-room",
    TASK,
    description="MM-Escape two rooms joined by a door (levels via --set rooms=level-1,level-2)",
    level="multi-room",
)
