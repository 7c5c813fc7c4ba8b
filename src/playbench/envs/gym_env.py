"""A playbench task as a Gymnasium environment (`playbench.gym.make`, `gymnasium.make`).

One step is one reply: the action is the text the task parses, the observation the text and images the
task shows next. By default the environment drives every seat in turn (`info["role"]` says whose turn it
is); `seat="solver"` plays one seat and lets playbench agents (`partners=`) play the others.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from playbench.agents import AgentStopped
from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.termination import Termination
from playbench.core.types import Observation, TextPart
from playbench.envs.episodes import (
    Episode,
    TaskEpisodes,
    ended,
    final_info,
    jsonable,
    result_info,
)
from playbench.envs.seats import Partners, parse_partners
from playbench.envs.spaces import ImageDecoder, action_space, image_shapes, observation_space, to_observation

RENDER_MODES = ("ansi", "rgb_array")


def observation_info(task_id: str, episode: Episode, obs: Observation) -> dict[str, Any]:
    """What the task shows beside the observation's text and images (all plain, fresh data)."""
    turns = [
        {
            "role": t.role,
            "text": "\n".join(p.text for p in t.parts if isinstance(p, TextPart)),
            "images": sum(1 for p in t.parts if not isinstance(p, TextPart)),
        }
        for t in obs.turns or []
    ]
    return jsonable(
        {
            "task": task_id,
            "instance_id": episode.instance.id,
            "seed": episode.seed,
            "trial": episode.trial,
            "role": obs.role,
            "instructions": obs.instructions,
            "turns": turns,
            "image_labels": [i.label for i in obs.all_images],
            "legal_actions": list(obs.legal_actions),
            "feedback": obs.feedback,
            "step": obs.step,
            "data": obs.data,
        }
    )


def probe_shapes(source: TaskEpisodes, roles: list[str]) -> list[tuple[int, int]]:
    """The image sizes each of `roles` is shown at the start of the seed-0 set's first instance (read from
    the PNG headers; no decoding)."""
    instance = source.instance_set(0)[0]
    task = source.cls(**source.options)
    task.reset(instance.model_copy(deep=True))
    shapes: list[tuple[int, int]] = []
    for role in roles:
        shapes += image_shapes(task.observe(role))
    return shapes


class PlaybenchEnv(gymnasium.Env):
    """A registered playbench task, one reply per step (see the module docstring and the README)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        task_id: str,
        render_mode: str | None = None,
        seat: str | None = None,
        partners: Any = None,
        episodes: int | None = None,
        trials: int = 1,
        reward: str = "success",
        model_settings: Any = None,
        **task_options: Any,
    ) -> None:
        self.source = TaskEpisodes(task_id, task_options, episodes=episodes, trials=trials, reward=reward)
        self.task_id = task_id
        self.roles: tuple[str, ...] = tuple(self.source.planner.roles)
        if seat is not None and seat not in self.roles:
            raise ConfigError(f"seat '{seat}' is not a seat of {task_id} (seats: {', '.join(self.roles)})")
        self.seat = seat
        self.partners: Partners | None = None
        if seat is not None and len(self.roles) > 1:
            self.partners = Partners(parse_partners(partners, self.roles, seat), model_settings)
            self.partners.check(self.source.planner)
        elif partners is not None:
            raise ConfigError(
                f"partners= plays the seats the caller does not: give seat= too ({task_id}'s seats: "
                f"{', '.join(self.roles)})"
            )
        played = [seat] if seat is not None else list(self.roles)
        shapes = probe_shapes(self.source, played)
        self.shows_images = bool(shapes)
        if not self.shows_images:
            # a task of text observations has no frame to return as an array
            self.metadata = {**self.metadata, "render_modes": ["ansi"]}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode '{render_mode}' is not offered by {task_id} "
                f"(offered: {', '.join(self.metadata['render_modes'])})"
            )
        self.render_mode = render_mode
        self.observation_space = observation_space(shapes)
        self.action_space = action_space()
        self.decode = ImageDecoder()
        self.episode: Episode | None = None
        self._obs: Observation | None = None
        self._last_frame: np.ndarray | None = None
        self._stopped = False

    # --- the Gymnasium API ---------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        instance, trial, episode_seed = self.source.next_episode(seed, options)
        self.episode = self.source.start(instance, trial, episode_seed)
        self._stopped = False
        self._last_frame = None
        partner_steps: list[dict[str, Any]] = []
        reward = 0.0
        if self.partners is not None:
            self.partners.start(self.episode.task, self.task_id, instance.id, episode_seed, trial)
            reward = self._play_partners(partner_steps)
        obs, info = self._observe()
        if partner_steps:
            info["partner_steps"] = partner_steps
            info["partner_reward"] = reward  # earned before the caller's first move
        return obs, info

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        episode = self.episode
        if episode is None:
            raise PlaybenchError("call reset() before step()")
        task = episode.task
        if task.done or self._stopped:
            raise PlaybenchError(f"the episode of {self.task_id} has ended: call reset()")
        if not isinstance(action, str):
            raise TypeError(f"an action is the reply text, a str (got {type(action).__name__})")
        role = task.current_role()
        result = task.step(action)
        reward = self.source.reward_after(episode)
        partner_steps: list[dict[str, Any]] = []
        if self.partners is not None:
            reward += self._play_partners(partner_steps)
        obs, info = self._observe()
        info["result"] = result_info(role, action, result)
        if partner_steps:
            info["partner_steps"] = partner_steps
        terminated = truncated = False
        if task.done or self._stopped:
            info.update(final_info(episode))
            if self._stopped:
                info["termination"] = str(Termination.AGENT_STOPPED)
                truncated = True
            else:
                terminated, truncated = ended(task.outcome())
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return "" if self._obs is None else self._obs.text
        if self.render_mode == "rgb_array":
            return None if self._last_frame is None else self._last_frame.copy()
        return None

    def close(self) -> None:
        if self.partners is not None:
            self.partners.close()
        super().close()

    # --- playbench additions -------------------------------------------------------------------
    @property
    def task(self) -> Any:
        """The playing task object (None before the first reset)."""
        return None if self.episode is None else self.episode.task

    def oracle_action(self) -> str | None:
        """The task's optimal next reply for the seat to act, or None (for baselines and checks; it
        reads the task's hidden state, so it is never put in an observation or info)."""
        if self.episode is None or self.episode.task.done:
            return None
        task = self.episode.task
        return task.oracle_action(task.current_role())

    # --- internals -----------------------------------------------------------------------------
    def _play_partners(self, steps: list[dict[str, Any]]) -> float:
        """Let the partner agents play until it is the caller's seat again (or the game ends)."""
        assert self.partners is not None and self.episode is not None
        task, reward = self.episode.task, 0.0
        while not task.done and task.current_role() != self.seat:
            role = task.current_role()
            obs = task.observe(role)
            try:
                action = self.partners.act(role, obs)
            except AgentStopped:
                self._stopped = True
                break
            result = task.step(action.text)
            reward += self.source.reward_after(self.episode)
            steps.append(result_info(role, action.text, result))
        return reward

    def _observe(self) -> tuple[dict[str, Any], dict[str, Any]]:
        assert self.episode is not None
        task = self.episode.task
        # the caller's seat; else the seat to act, or once the game is over the last seat that acted
        # (it sees how its move ended the game)
        if self.seat is not None:
            role = self.seat
        elif task.done and self._obs is not None:
            role = self._obs.role
        else:
            role = task.current_role()
        obs = task.observe(role)
        self._obs = obs
        out = to_observation(obs, self.decode)
        if out["images"]:
            self._last_frame = out["images"][-1].copy()  # the current view: the last image sent
        return out, observation_info(self.task_id, self.episode, obs)
