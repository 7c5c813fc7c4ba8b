"""What the Gymnasium and PettingZoo environments share: building the task as `playbench run` builds
it, the seeded order of episodes, rewards, and how an episode's end maps to terminated / truncated.

Episode order is the CLI's: `playbench run TASK --seed S [--episodes N] [--trials K]` plays
`task.instances(N, S)` instance by instance, each instance's trials 0..K-1 in turn, with
`task.episode_seed = derive_seed(S, trial)`; an environment reset with `seed=S` plays the same list in
the same order, one episode per reset, then starts the list again with the next K trial numbers (so every
episode of an endless loop is a distinct `(instance, trial)` key, as a run with more trials would play).
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.originals import resolve_options
from playbench.core.registry import TaskSpec, get_spec, suggest
from playbench.core.task import Instance, Task, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, StepResult

# The environments' own keyword options; every other keyword is a task option (`--set`).
ENV_OPTIONS = ("render_mode", "seat", "partners", "episodes", "trials", "reward", "model_settings")
RESET_OPTIONS = ("instance", "trial")
REWARDS = ("success", "progress")

# Ends that cut an episode short from outside the game (Gymnasium's truncation: a time limit, an
# evaluation cut-off, a seat that left); every other end is a terminal state of the game itself:
# solved, the agent's own `Term()`, COMMA's strike limit and its bomb clock (both rules of the game,
# the clock shown on the module).
TRUNCATIONS = frozenset({Termination.STEP_CAP, Termination.NO_PROGRESS, Termination.AGENT_STOPPED})


def _fraction(key: str) -> Callable[[dict[str, Any], dict[str, Any]], float | None]:
    def read(metrics: dict[str, Any], start: dict[str, Any]) -> float | None:
        value = metrics.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    return read


def _distance_closed(metrics: dict[str, Any], start: dict[str, Any]) -> float | None:
    """iVISPAR: the share of the start's distance to the goal closed so far (the paper's distance metric,
    `final_distance`, read after every move); 1.0 when solved, negative when moved away."""
    now, first = metrics.get("final_distance"), start.get("final_distance")
    if not isinstance(now, int | float) or not isinstance(first, int | float):
        return None
    return 1.0 if first <= 0 else 1.0 - float(now) / float(first)


# Per-step progress a task defines, read from its own metrics (`task.outcome()` mid-episode), by suite;
# `reward="progress"` pays its increase. Tasks whose metrics lack the key have none (single-answer tasks:
# iVISPAR's board inference, ToS's questions, VisEscape's quiz).
PROGRESS: dict[str, tuple[str, Callable[[dict[str, Any], dict[str, Any]], float | None]]] = {
    "ivispar": ("1 - final_distance / start distance", _distance_closed),
    "visescape": ("gc (goal completion)", _fraction("gc")),
    "mmescape": ("prop_gain (share of the chain's props obtained)", _fraction("prop_gain")),
    "comma": ("partial_score (the authors' partial module score)", _fraction("partial_score")),
    "tos": ("coverage (share of objects observed)", _fraction("coverage")),
}


@dataclass
class Episode:
    """One episode being played: the task, its key and where its reward stands."""

    task: Task
    instance: Instance
    seed: int
    trial: int
    start_metrics: dict[str, Any]
    progress: float = 0.0


class TaskEpisodes:
    """A task as `playbench run` builds it (options checked, the originals folder's defaults, preflight),
    and the seeded sequence of episodes an environment plays."""

    def __init__(
        self,
        task_id: str,
        task_options: dict[str, Any],
        episodes: int | None = None,
        trials: int = 1,
        reward: str = "success",
    ) -> None:
        self.spec: TaskSpec = get_spec(task_id)  # unknown id: ConfigError with the closest ids
        self.task_id = task_id
        cls = self.spec.load_class()
        check_option_names(task_id, cls, task_options)
        self.spec.check_overrides(task_options)
        options = {**self.spec.options, **task_options}
        # the authors' clone in the originals folder, exactly as `playbench run` resolves it
        self.options, self.notices = resolve_options(cls.originals, options, set(task_options))
        self.cls = cls
        self.planner = cls(**self.options)
        self.planner.preflight()
        if episodes is not None and (
            isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1
        ):
            raise ConfigError(f"episodes must be an integer >= 1 or None (got {episodes!r})")
        if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
            raise ConfigError(f"trials must be an integer >= 1 (got {trials!r})")
        if reward not in REWARDS:
            raise ConfigError(f"unknown reward '{reward}' (accepted: {', '.join(REWARDS)})")
        self.episodes, self.trials, self.reward = episodes, trials, reward
        self.seed = 0  # the CLI's default --seed until a reset passes one
        self.cursor = 0  # the next position in the seeded sequence
        self._sets: dict[int, list[Instance]] = {}
        if reward == "progress" and self.progress_rule() is None:
            raise ConfigError(
                f"reward='progress': {task_id} defines no per-step progress (suites that do: "
                f"{', '.join(f'{s}: {d}' for s, (d, _) in PROGRESS.items())}); use reward='success'"
            )

    # --- instances ---------------------------------------------------------------------------
    def instance_set(self, seed: int) -> list[Instance]:
        """`task.instances(episodes, seed)`: the list `playbench run --seed S --episodes N` plays."""
        if seed not in self._sets:
            self._sets = {seed: self.planner.instances(self.episodes, seed)}  # one seed's set kept
        if not self._sets[seed]:
            raise ConfigError(f"{self.task_id} has no instances for seed {seed}")
        return self._sets[seed]

    def find_instance(self, wanted: Any, seed: int) -> Instance:
        """An instance by id from the seed's set, or an instance given as data (validated by the task)."""
        if isinstance(wanted, dict | Instance):
            return self.planner.coerce_instance(wanted)
        instances = self.instance_set(seed)
        for inst in instances:
            if inst.id == str(wanted):
                return inst.model_copy(deep=True)
        ids = [i.id for i in instances]
        close = difflib.get_close_matches(str(wanted), ids, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        shown = ", ".join(ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")
        raise ConfigError(
            f"instance '{wanted}' is not in {self.task_id}'s set for seed {seed} ({hint}accepted: {shown})"
        )

    def next_episode(self, seed: int | None, options: dict[str, Any] | None) -> tuple[Instance, int, int]:
        """The (instance, trial, seed) a reset plays; advances the sequence unless an instance is named."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # Gymnasium and PettingZoo pass reset options through blindly (PettingZoo's api_test sends one
            # of its own), so a key playbench does not read is a warning, not an error
            warnings.warn(
                f"reset options {', '.join(map(repr, unknown))} are not read by playbench "
                f"(accepted: {', '.join(RESET_OPTIONS)})",
                stacklevel=3,
            )
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ConfigError(f"seed must be an integer >= 0 (got {seed!r})")
            self.seed, self.cursor = seed, 0
        trial = options.get("trial")
        if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 0):
            raise ConfigError(f"reset option trial must be an integer >= 0 (got {trial!r})")
        if options.get("instance") is not None:
            return self.find_instance(options["instance"], self.seed), trial or 0, self.seed
        instances = self.instance_set(self.seed)
        per_round = len(instances) * self.trials
        position = self.cursor
        self.cursor += 1
        rounds, within = divmod(position, per_round)
        instance = instances[within // self.trials].model_copy(deep=True)
        default_trial = rounds * self.trials + within % self.trials
        return instance, default_trial if trial is None else trial, self.seed

    # --- episodes ----------------------------------------------------------------------------
    def start(self, instance: Instance, trial: int, seed: int) -> Episode:
        """A fresh task on `instance`, seeded as the runner seeds it."""
        task = self.cls(**self.options)
        task.episode_seed = derive_seed(seed, trial)
        task.reset(task.coerce_instance(instance.model_dump(mode="json")))
        start = self._metrics(task) if self.reward == "progress" else {}
        return Episode(task=task, instance=instance, seed=seed, trial=trial, start_metrics=start)

    @staticmethod
    def _metrics(task: Task) -> dict[str, Any]:
        return dict(task.outcome().metrics)

    def progress_rule(self) -> Callable[[dict[str, Any], dict[str, Any]], float | None] | None:
        """The task's progress reader, if its metrics (probed on its first instance) carry one."""
        rule = PROGRESS.get(self.spec.suite)
        if rule is None:
            return None
        task = self.cls(**self.options)
        task.reset(self.instance_set(self.seed)[0].model_copy(deep=True))
        start = self._metrics(task)
        return rule[1] if rule[1](start, start) is not None else None

    def reward_after(self, episode: Episode) -> float:
        """The reward for the step just played: the success (1.0 / 0.0) when the episode has ended
        (`reward="success"`), or the increase of the task's progress measure (`reward="progress"`)."""
        task = episode.task
        if self.reward == "success":
            return 1.0 if task.done and task.outcome().success else 0.0
        read = PROGRESS[self.spec.suite][1]
        value = read(self._metrics(task), episode.start_metrics)
        now = episode.progress if value is None else value
        gained, episode.progress = now - episode.progress, now
        return float(gained)


def ended(outcome: EpisodeResult) -> tuple[bool, bool]:
    """(terminated, truncated) for an ended episode, from its `termination` (see `TRUNCATIONS`)."""
    truncated = outcome.termination in TRUNCATIONS
    return not truncated, truncated


def check_option_names(task_id: str, cls: type[Task], options: dict[str, Any]) -> None:
    """An unknown task option is one ConfigError naming it, the closest names and the accepted ones."""
    accepted = sorted(cls.Config.model_fields)
    for key in options:
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=3, cutoff=0.5)
            hint = suggest(key, accepted) if close else ""
            raise ConfigError(
                f"unknown option '{key}' for {task_id}{hint} (task options: {', '.join(accepted) or 'none'}; "
                f"environment options: {', '.join(ENV_OPTIONS)})"
            )


def final_info(episode: Episode) -> dict[str, Any]:
    """What an episode record holds of the outcome, for the last step's info."""
    outcome = episode.task.outcome()
    return {
        "success": bool(outcome.success),
        "steps": int(outcome.steps),
        "optimal_steps": episode.instance.optimal_steps,
        "termination": str(outcome.termination) if outcome.termination is not None else None,
        "metrics": jsonable(outcome.metrics),
    }


def result_info(role: str, action: str, result: StepResult) -> dict[str, Any]:
    """A step's verdict as plain data (the trajectory's fields)."""
    return {
        "role": role,
        "action": action,
        "validity": str(result.validity),
        "reason": result.reason,
        "parsed": result.parsed,
        "feedback": result.feedback,
        "info": jsonable(result.info),
    }


def jsonable(value: Any) -> Any:
    """`value` as fresh JSON data (what a trajectory records: other values as their text), so every
    info is a new object, as Gymnasium requires, and equal episodes give equal infos."""
    return json.loads(json.dumps(value, default=str))
