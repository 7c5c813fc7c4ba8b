"""Task registry: `suite/name` ids mapped to `module:Class` entry points with keyword options.

Built-in suites register in `playbench.tasks`; third-party packages add theirs through the
`playbench.tasks` entry-point group, whose entries point at a callable that calls `register`.

An id means one thing: the options in `fixed` define it (`mmescape/level-1` is `level="level-1"`)
and cannot be overridden; the other `kwargs` are defaults a user may change with `--set`.
"""

from __future__ import annotations

import difflib
import importlib
import json
import re
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.loading import load_object
from playbench.core.task import Task

TASK_ID = re.compile(r"^[a-z0-9_\-]+/[a-z0-9_\-.]+$")


@dataclass(frozen=True)
class TaskSpec:
    id: str
    entry_point: str
    description: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)  # defaults, overridable with --set
    default: bool = True  # in the built-in default job (quickstart) and in a bare suite name's tasks
    fixed: dict[str, Any] = field(default_factory=dict)  # the options that define this id

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def options(self) -> dict[str, Any]:
        """Every option this id sets: its defaults and its defining options."""
        return {**self.kwargs, **self.fixed}

    def load_class(self) -> type[Task]:
        cls = load_object(self.entry_point, f"task {self.id}")
        if not (isinstance(cls, type) and issubclass(cls, Task)):
            raise ConfigError(f"task {self.id}: entry point '{self.entry_point}' is not a Task class")
        return cls

    def check_overrides(self, overrides: dict[str, Any]) -> None:
        """Refuse an override of a defining option, naming the id that has that value."""
        for key, value in overrides.items():
            if key in self.fixed and value != self.fixed[key]:
                wanted = {**self.fixed, key: value}
                # the same class with the wanted value: another class is another task
                same_task = (s for s in all_specs() if s.entry_point == self.entry_point)
                other = next((s.id for s in same_task if s.fixed == wanted), None)
                instead = f"run {other} instead" if other else "it cannot be changed with --set"
                if self.fixed[key] is None:
                    raise ConfigError(f"--set {key}={json.dumps(value)}: {self.id} takes no {key}; {instead}")
                raise ConfigError(
                    f"--set {key}={json.dumps(value)}: {key} defines the task {self.id} "
                    f"({key}={json.dumps(self.fixed[key])}); {instead}"
                )

    def make(self, **overrides: Any) -> Task:
        self.check_overrides(overrides)
        cls = self.load_class()
        return cls(**{**self.kwargs, **overrides, **self.fixed})


_REGISTRY: dict[str, TaskSpec] = {}
_loaded = False


def register(
    id: str,
    entry_point: str,
    description: str = "",
    default: bool = True,
    fixed: dict[str, Any] | None = None,
    **kwargs: Any,
) -> TaskSpec:
    """Register a task id. `fixed` holds the options that define the id; `kwargs` are defaults."""
    if not TASK_ID.match(id):
        raise ValueError(f"task id '{id}' must look like 'suite/name' (lowercase, digits, - _ .)")
    if id in _REGISTRY:
        raise ValueError(f"task id '{id}' is already registered")
    fixed = dict(fixed or {})
    both = set(fixed) & set(kwargs)
    if both:
        raise ValueError(f"task id '{id}': options {sorted(both)} are both fixed and defaults")
    spec = TaskSpec(
        id=id, entry_point=entry_point, description=description, kwargs=kwargs, default=default, fixed=fixed
    )
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


def suggest(name: str, known: list[str], n: int = 3) -> str:
    """' (did you mean a, b?)' for the closest known names, or a short pointer when none is close."""
    close = difflib.get_close_matches(name, known, n=n, cutoff=0.5)
    if not close:
        suites = sorted({k.split("/", 1)[0] for k in known})
        close = [s for s in suites if s.startswith(name.split("/", 1)[0][:3])]
    if close:
        return f" (did you mean {', '.join(close)}?)"
    return " (playbench list shows every task)"


def get_spec(task_id: str) -> TaskSpec:
    _ensure_loaded()
    if task_id in _REGISTRY:
        return _REGISTRY[task_id]
    raise ConfigError(f"unknown task '{task_id}'{suggest(task_id, sorted(_REGISTRY))}")


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
            known = sorted(_REGISTRY) + sorted({s.suite for s in _REGISTRY.values()})
            raise ConfigError(f"unknown task '{pat}'{suggest(pat, known)}")
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
