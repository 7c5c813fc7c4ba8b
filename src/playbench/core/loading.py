"""The one `module:attribute` loader (task entry points, suite agents, providers, plot hooks)."""

from __future__ import annotations

import importlib
from typing import Any

from playbench.core.errors import ConfigError


def load_object(entry_point: str, what: str) -> Any:
    """The object named by `package.module:attribute`; `what` names it in the error message."""
    module_name, sep, attr = entry_point.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{what}: entry point '{entry_point}' is not of the form 'package.module:Name'")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{what}: cannot load entry point '{entry_point}': {exc}") from None
    return obj
