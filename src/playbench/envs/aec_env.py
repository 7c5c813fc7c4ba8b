"""A playbench task as a PettingZoo AEC environment: the agents are the task's seats (`task.roles`:
COMMA's `solver` and `expert`, `player` for one-seat tasks, plus `judge` where a judge phase is on), the
agent to act is the task's `current_role()`, each seat observes its own private observation.

Rewards come when the episode ends (or per step under `reward="progress"`), the same team reward to every
seat, as the papers score a COMMA pair together; terminations and truncations are set for every seat
at once from the episode's `termination` (`episodes.TRUNCATIONS`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pydantic import BaseModel

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.types import Observation
from playbench.envs.episodes import Episode, TaskEpisodes, ended, final_info, result_info
from playbench.envs.gym_env import RENDER_MODES, observation_info, probe_shapes
from playbench.envs.spaces import AnyText, ImageDecoder, action_space, observation_space, to_observation


class PlaybenchAECEnv(AECEnv):
    """A registered playbench task as an AEC game (see the module docstring and the README)."""

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "name": "playbench",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        task_id: str,
        render_mode: str | None = None,
        episodes: int | None = None,
        trials: int = 1,
        reward: str = "success",
        **task_options: Any,
    ) -> None:
        super().__init__()
        self.source = TaskEpisodes(task_id, task_options, episodes=episodes, trials=trials, reward=reward)
        self.task_id = task_id
        self.possible_agents: list[str] = list(self.source.planner.roles)
        shapes = {r: probe_shapes(self.source, [r]) for r in self.possible_agents}
        self.observation_spaces = {r: observation_space(shapes[r]) for r in self.possible_agents}
        self.action_spaces: dict[str, AnyText] = {r: action_space() for r in self.possible_agents}
        if not any(shapes.values()):
            # a task of text observations has no frame to return as an array
            self.metadata = {**self.metadata, "render_modes": ["ansi"]}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode '{render_mode}' is not offered by {task_id} "
                f"(offered: {', '.join(self.metadata['render_modes'])})"
            )
        self.render_mode = render_mode
        self.decode = ImageDecoder()
        self.episode: Episode | None = None
        self._views: dict[str, tuple[int, Observation]] = {}
        self._turn = 0
        self._last_frame: np.ndarray | None = None

    def __str__(self) -> str:
        return f"playbench:{self.task_id}"

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    # --- the AEC API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        instance, trial, episode_seed = self.source.next_episode(seed, options)
        self.episode = self.source.start(instance, trial, episode_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._views, self._turn, self._last_frame = {}, 0, None
        self.agent_selection = self.episode.task.current_role()
        self.infos = {a: self._info(a) for a in self.agents}

    def observe(self, agent: str) -> dict[str, Any]:
        out = to_observation(self._view(agent), self.decode)
        if out["images"]:
            self._last_frame = out["images"][-1].copy()
        return out

    def step(self, action: str | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self.episode is None:
            raise PlaybenchError("call reset() before step()")
        if not isinstance(action, str):
            raise TypeError(f"an action is the reply text, a str (got {type(action).__name__})")
        task = self.episode.task
        self._cumulative_rewards[agent] = 0.0
        result = task.step(action)
        self._turn += 1
        reward = self.source.reward_after(self.episode)
        self.rewards = {a: reward for a in self.agents}
        if task.done:
            terminated, truncated = ended(task.outcome())
            self.terminations = {a: terminated for a in self.agents}
            self.truncations = {a: truncated for a in self.agents}
            end = final_info(self.episode)
            self.infos = {a: {**self._info(a), **end} for a in self.agents}
        else:
            self.agent_selection = task.current_role()
            self.infos = {a: self._info(a) for a in self.agents}
        self.infos[agent]["result"] = result_info(agent, action, result)
        self._accumulate_rewards()

    def state(self) -> str:
        """The task's full state, hidden parts included (`Task.state()`), as a JSON string with sorted keys."""
        if self.episode is None:
            raise PlaybenchError("call reset() before state()")
        state = self.episode.task.state()
        if state is None:
            raise NotImplementedError(f"{self.task_id} defines no state()")
        return json.dumps(state, sort_keys=True, default=_json_default)

    def render(self) -> str | np.ndarray | None:
        if self.episode is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self._view(self.agent_selection).text
        self.observe(self.agent_selection)
        return None if self._last_frame is None else self._last_frame.copy()

    def close(self) -> None:
        self.episode = None

    # --- playbench additions ---------------------------------------------------------------------
    def oracle_action(self) -> str | None:
        """The task's optimal next reply for the agent to act, or None (for baselines and checks)."""
        if self.episode is None or self.episode.task.done:
            return None
        return self.episode.task.oracle_action(self.agent_selection)

    # --- internals -------------------------------------------------------------------------------
    def _view(self, agent: str) -> Observation:
        """The task's observation for `agent` now, observed once per turn."""
        assert self.episode is not None
        cached = self._views.get(agent)
        if cached is None or cached[0] != self._turn:
            cached = (self._turn, self.episode.task.observe(agent))
            self._views[agent] = cached
        return cached[1]

    def _info(self, agent: str) -> dict[str, Any]:
        assert self.episode is not None
        return observation_info(self.task_id, self.episode, self._view(agent))


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)
