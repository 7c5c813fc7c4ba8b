"""Task registry: `suite/name` ids mapped to `module:Class` entry points with keyword variants.

Built-in suites register in `playbench.tasks`; third-party packages add theirs through the
`playbench.tasks` entry-point group, whose entries point at a callable that calls `register`.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import Task

TASK_ID = re.compile(r"^[a-z0-9_\-]+/[a-z0-9_\-.]+$")


@dataclass(frozen=True)
class TaskSpec:
    id: str
    entry_point: str
    description: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)
    default: bool = True  # in the built-in default job (quickstart) and in a bare suite name's tasks

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]

    def load_class(self) -> type[Task]:
        module_name, _, attr = self.entry_point.partition(":")
        try:
            module = importlib.import_module(module_name)
            cls = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"task {self.id}: cannot load entry point '{self.entry_point}': {exc}") from exc
        if not (isinstance(cls, type) and issubclass(cls, Task)):
            raise ConfigError(f"task {self.id}: entry point '{self.entry_point}' is not a Task class")
        return cls

    def make(self, **overrides: Any) -> Task:
        cls = self.load_class()
        return cls(**{**self.kwargs, **overrides})


_REGISTRY: dict[str, TaskSpec] = {}
_loaded = False


def register(
    id: str, entry_point: str, description: str = "", default: bool = True, **kwargs: Any
) -> TaskSpec:
    if not TASK_ID.match(id):
        raise ValueError(f"task id '{id}' must look like 'suite/name' (lowercase, digits, - _ .)")
    if id in _REGISTRY:
        raise ValueError(f"task id '{id}' is already registered")
    spec = TaskSpec(id=id, entry_point=entry_point, description=description, kwargs=kwargs, default=default)
    _REGISTRY[id] = spec
    return spec


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    importlib.import_module("playbench.tasks")
    for ep in entry_points(group="playbench.tasks"):
        hook = ep.load()
        if callable(hook):
            hook()


def all_specs() -> list[TaskSpec]:
    _ensure_loaded()
    return sorted(_REGISTRY.values(), key=lambda s: s.id)


def get_spec(task_id: str) -> TaskSpec:
    _ensure_loaded()
    if task_id in _REGISTRY:
        return _REGISTRY[task_id]
    known = ", ".join(sorted(_REGISTRY)) or "(none)"
    raise ConfigError(f"unknown task '{task_id}' (known tasks: {known})")


def resolve(patterns: list[str]) -> list[TaskSpec]:
    """Expand task ids and `suite/*` or bare `suite` patterns, keeping order and dropping repeats.

    `suite/*` is every task of the suite; a bare `suite` is its default tasks (all of them when none is
    marked), so a suite whose aggregate task repeats its single tasks (`comma/all` plays the ten
    `comma/<puzzle>` instances) is not run twice over by `playbench run comma`."""
    _ensure_loaded()
    out: dict[str, TaskSpec] = {}
    for pat in patterns:
        if pat in _REGISTRY:
            out.setdefault(pat, _REGISTRY[pat])
            continue
        suite = pat[:-2] if pat.endswith("/*") else pat if "/" not in pat else None
        matches = [s for s in all_specs() if suite is not None and s.suite == suite]
        if not matches:
            get_spec(pat)  # raises with the list of known ids
        if not pat.endswith("/*"):
            matches = [s for s in matches if s.default] or matches
        for spec in matches:
            out.setdefault(spec.id, spec)
    return list(out.values())


def make_task(task_id: str, **overrides: Any) -> Task:
    return get_spec(task_id).make(**overrides)


def parse_assignments(items: list[str]) -> dict[str, Any]:
    """Parse `key=value` strings; values are JSON when they parse as JSON, else plain strings."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set value '{item}' is not of the form key=value")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key] = value
    return out
