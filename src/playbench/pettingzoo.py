"""playbench tasks as PettingZoo AEC environments.

    from playbench.pettingzoo import env
    game = env("comma/wire")          # agents: ["solver", "expert"]
    game.reset(seed=0)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        game.step(None if terminated or truncated else "...reply text...")

`env` wraps the raw environment in PettingZoo's OrderEnforcingWrapper (stepping before `reset` is an
error); `raw_env` is the environment itself. Options are those of `playbench.gym.make` except `seat`,
`partners` and `model_settings` (every seat is an agent here).
"""

from __future__ import annotations

from typing import Any

try:
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
except ModuleNotFoundError as exc:  # the `gym` extra is not installed
    raise ModuleNotFoundError(
        f"playbench.pettingzoo needs {exc.name}: pip install 'playbench[gym]'"
    ) from None

from playbench.envs.aec_env import PlaybenchAECEnv

__all__ = ["PlaybenchAECEnv", "env", "raw_env"]


def raw_env(task_id: str, **options: Any) -> PlaybenchAECEnv:
    """The AEC environment of a playbench task, unwrapped."""
    return PlaybenchAECEnv(task_id, **options)


def env(task_id: str, **options: Any) -> OrderEnforcingWrapper:
    """The AEC environment of a playbench task, wrapped as PettingZoo's own environments are."""
    return OrderEnforcingWrapper(raw_env(task_id, **options))
