"""The kernel: types, the task protocol, the registry and metric helpers. Imports nothing else of playbench."""

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.task import EpisodeContext, Task
from playbench.core.types import (
    Action,
    EpisodeResult,
    ImagePart,
    Observation,
    StepResult,
    TextPart,
    Usage,
    Validity,
)

__all__ = [
    "Action",
    "ConfigError",
    "EpisodeContext",
    "EpisodeResult",
    "ImagePart",
    "Observation",
    "PlaybenchError",
    "StepResult",
    "Task",
    "TextPart",
    "Usage",
    "Validity",
]
