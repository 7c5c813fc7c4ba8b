"""Every registered playbench task id as an Inspect task, `playbench/<id with / - . as _>`.

Inspect loads this module through playbench's `inspect_ai` entry point when a task name starts with
`playbench/`, so `inspect eval playbench/ivispar_sgp` works after `pip install 'playbench[inspect]'`
(third-party suites registered through `playbench.tasks` included). Each function here is also
importable (`from playbench.inspect_eval.registry import ivispar_sgp`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from playbench.core.registry import all_specs
from playbench.inspect_eval.tasks import generic_task, inspect_task_name, playbench_task

TASK_IDS: dict[str, str] = {}  # Inspect name (without `playbench/`) -> playbench task id


def _factory(task_id: str, description: str) -> Callable[..., Task]:
    def factory(
        seed: int = 0,
        episodes: int | None = None,
        trials: int | None = None,
        agent: str = "llm",
        agent_opts: dict[str, Any] | None = None,
        out: str | None = None,
        **options: Any,
    ) -> Task:
        return playbench_task(task_id, seed, episodes, trials, agent, agent_opts, out, **options)

    name = inspect_task_name(task_id)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"playbench {task_id}: {description}".strip().rstrip(":")
    return task(name=name)(factory)


def _register_all() -> None:
    for spec in all_specs():
        name = inspect_task_name(spec.id)
        if name in TASK_IDS or name == "task":
            warnings.warn(
                f"playbench task {spec.id} is not an Inspect task: its name playbench/{name} is taken by "
                f"{TASK_IDS.get(name, 'the generic task')}",
                stacklevel=2,
            )
            continue
        TASK_IDS[name] = spec.id
        globals()[name] = _factory(spec.id, spec.description)


_register_all()

__all__ = ["TASK_IDS", "generic_task", "playbench_task"]
