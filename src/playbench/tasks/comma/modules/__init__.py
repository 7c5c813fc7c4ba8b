"""The ten COMMA puzzle modules, by name, as lazy "module:Class" entry points.

Nothing is imported until a module is asked for, so registering the tasks stays cheap and one
module's import error only affects the tasks that use it.
"""

from __future__ import annotations

from functools import cache

from playbench.core.errors import ConfigError
from playbench.core.loading import load_object
from playbench.tasks.comma.module import PuzzleModule

# In the paper's table order (Tables 1-4): real-time, grounding, then memory / multi-step puzzles.
MODULES: dict[str, str] = {
    "button": "playbench.tasks.comma.modules.button:ButtonModule",
    "dog": "playbench.tasks.comma.modules.dog:DogModule",
    "wire": "playbench.tasks.comma.modules.wire:WireModule",
    "who": "playbench.tasks.comma.modules.who:WhoModule",
    "led": "playbench.tasks.comma.modules.led:LedModule",
    "memory": "playbench.tasks.comma.modules.memory:MemoryModule",
    "keypad": "playbench.tasks.comma.modules.keypad:KeypadModule",
    "password": "playbench.tasks.comma.modules.password:PasswordModule",
    "color": "playbench.tasks.comma.modules.color:ColorModule",
    "maze": "playbench.tasks.comma.modules.maze:MazeModule",
}

NAMES: tuple[str, ...] = tuple(MODULES)


@cache
def module_class(name: str) -> type[PuzzleModule]:
    """The PuzzleModule class for `name`; a clear ConfigError for an unknown or broken one."""
    if name not in MODULES:
        raise ConfigError(f"unknown COMMA module '{name}' (known: {', '.join(NAMES)})")
    cls = load_object(MODULES[name], f"COMMA module '{name}'")
    if not (isinstance(cls, type) and issubclass(cls, PuzzleModule)):
        raise ConfigError(f"COMMA module '{name}': '{MODULES[name]}' is not a PuzzleModule")
    return cls
