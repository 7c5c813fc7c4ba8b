"""playbench tasks as Gymnasium environments.

    import playbench.gym
    env = playbench.gym.make("ivispar/sgp-2d")                  # or, after the import:
    env = gymnasium.make("playbench/ivispar-sgp-2d-v0")
    env = gymnasium.make("playbench.gym:playbench/ivispar-sgp-2d-v0")   # without importing first

Importing this module registers every task id under the Gymnasium id `playbench/<suite>-<name>-v0`
(`gym_id`, and back with `task_id_for`). Gymnasium 1.x loads no plugin entry points, so the import (or
the `module:` prefix, which Gymnasium imports for you) is what makes the ids known.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
except ModuleNotFoundError as exc:  # the `gym` extra is not installed
    raise ModuleNotFoundError(f"playbench.gym needs {exc.name}: pip install 'playbench[gym]'") from None

from playbench.core.errors import ConfigError
from playbench.core.registry import all_specs, get_spec, suggest
from playbench.envs.gym_env import PlaybenchEnv

__all__ = ["PlaybenchEnv", "gym_id", "make", "register_envs", "task_id_for"]

NAMESPACE = "playbench"
VERSION = 0
ENTRY_POINT = "playbench.envs.gym_env:PlaybenchEnv"

_GYM_TO_TASK: dict[str, str] = {}


def gym_id(task_id: str) -> str:
    """`suite/name` -> `playbench/suite-name-v0`. Task ids use `[a-z0-9_-]` and `.`, all of which
    Gymnasium's id grammar accepts in a name, so the name keeps every character (`paper-level-3.5`
    stays `mmescape-paper-level-3.5`); the `/` becomes `-`."""
    suite, _, name = task_id.partition("/")
    return f"{NAMESPACE}/{suite}-{name}-v{VERSION}"


def task_id_for(env_id: str) -> str:
    """The task id a registered Gymnasium id stands for (the inverse of `gym_id`)."""
    register_envs()
    if env_id in _GYM_TO_TASK:
        return _GYM_TO_TASK[env_id]
    raise ConfigError(f"unknown playbench environment '{env_id}'{suggest(env_id, sorted(_GYM_TO_TASK))}")


def register_envs() -> list[str]:
    """Register every task id (built-in and third-party) as a Gymnasium id; idempotent. Returns the
    Gymnasium ids. Called on import; call again after registering a task later in the process."""
    for spec in all_specs():
        env_id = gym_id(spec.id)
        known = _GYM_TO_TASK.get(env_id)
        if known is not None and known != spec.id:
            # `a-b/c` and `a/b-c` would share an id: only possible with a third-party suite named with `-`
            raise ConfigError(
                f"tasks {known} and {spec.id} map to the same Gymnasium id {env_id}: rename one suite"
            )
        _GYM_TO_TASK[env_id] = spec.id
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"task_id": spec.id})
    return sorted(_GYM_TO_TASK)


def make(task_id: str, **options: Any) -> gymnasium.Env:
    """The Gymnasium environment of a playbench task, through `gymnasium.make` (so its order-enforcing
    and passive checker wrappers apply). `options` are task options (`--set`) and the environment's own:
    `render_mode`, `seat`, `partners`, `episodes`, `trials`, `reward`, `model_settings`."""
    register_envs()
    spec = get_spec(_as_task_id(task_id))  # an unknown id: one ConfigError naming the closest ids
    return gymnasium.make(gym_id(spec.id), **options)


def _as_task_id(name: str) -> str:
    """A task id, also accepting a playbench Gymnasium id."""
    return _GYM_TO_TASK.get(name, name)


register_envs()
