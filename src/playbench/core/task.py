"""The task protocol: a turn-based game with one or more roles (AEC semantics).

The runner drives every task the same way::

    task.reset(instance)
    while not task.done:
        role = task.current_role()
        obs = task.observe(role)          # private to that role
        action = await agent_for[role].act(obs)
        result = task.step(action.text)   # parses, validates, applies
    outcome = task.outcome()

Tasks never call models; agents never read task internals. The one sanctioned window into a
task's knowledge is `oracle_action`, which only the `oracle` agent is handed.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from playbench.core.errors import ConfigError
from playbench.core.model_side import ModelSide
from playbench.core.originals import OriginalsUse
from playbench.core.types import EpisodeResult, Observation, Progress, StepResult


class TaskConfig(BaseModel):
    """Options a user sets with `--set key=value`. Subclass per task; unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid")


class Instance(BaseModel):
    """One puzzle: plain JSON-serialisable data with a stable `id`."""

    id: str
    optimal_steps: int | None = None


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any values, identical on every machine and Python (unlike `hash`)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class EpisodeContext:
    """What an agent may know about the episode it is about to play."""

    task_id: str
    instance_id: str
    role: str
    trial: int
    seed: int
    oracle: Callable[[], str | None] | None = None


# Generated instance sets, by task class, options, seed and count: generation can cost more than
# playing (some suites run their oracle on every draft), and the runner, the conformance check and
# the web app build fresh task objects over the same sets. Bounded; callers get copies.
INSTANCE_CACHE_SIZE = 256
# each instance kept pickled: a copy for the next caller is then one `pickle.loads` (half of a deep copy)
_INSTANCE_CACHE: OrderedDict[tuple[Any, ...], list[bytes]] = OrderedDict()


class Task(ABC):
    """Base class for every game. Subclasses set the class attributes and implement the methods."""

    Config: ClassVar[type[TaskConfig]] = TaskConfig
    InstanceModel: ClassVar[type[Instance]] = Instance
    instance_label: ClassVar[str] = "task"  # names the instance kind in load errors
    roles: ClassVar[tuple[str, ...]] = ("player",)
    # False for sets read from files a user may edit between two calls in one process
    cache_instances: ClassVar[bool] = True
    # The episode's own seed (the run's seed and the trial, `derive_seed(seed, trial)`), set by the
    # runner before `reset`: what a task draws at random while playing (a fallback action) comes from
    # it, so trials of one instance differ and a rerun repeats them. 0 outside a run.
    episode_seed: int = 0
    # What the task reads from the authors' clone in the originals folder (`core/originals.py`): the
    # data options that default to paths inside it, and whether it reads its texts from it
    originals: ClassVar[OriginalsUse | None] = None

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        if config is None:
            config = self.make_config(**options)
        self.config = config

    @classmethod
    def make_config(cls, **options: Any) -> TaskConfig:
        try:
            return cls.Config(**options)
        except ValidationError as exc:
            raise ConfigError(_describe_validation_error(cls.Config, exc)) from None

    # --- instances -------------------------------------------------------------------------
    def instances(self, n: int | None, seed: int) -> list[Instance]:
        """The first `n` instances (all of the default set if None) for `seed`, deterministically.

        Checks `n`, then returns `_instances(n, seed)` through a bounded cache."""
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ConfigError(f"the number of instances must be an integer >= 0 (got {n!r})")
        if not self.cache_instances:
            return self._instances(n, seed)
        cls = type(self)
        key = (cls.__module__, cls.__qualname__, self.config.model_dump_json(), seed, n)
        cached = _INSTANCE_CACHE.get(key)
        if cached is None:
            fresh = self._instances(n, seed)
            try:
                cached = [pickle.dumps(inst, pickle.HIGHEST_PROTOCOL) for inst in fresh]
            except (pickle.PicklingError, AttributeError, TypeError):  # a class pickle cannot name
                return [inst.model_copy(deep=True) for inst in fresh]
            _INSTANCE_CACHE[key] = cached
            if len(_INSTANCE_CACHE) > INSTANCE_CACHE_SIZE:
                _INSTANCE_CACHE.popitem(last=False)
        else:
            _INSTANCE_CACHE.move_to_end(key)
        # copies: a task may build its instances from objects it keeps (loaded scenes, paper boards)
        return [pickle.loads(data) for data in cached]

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        """Generate or load the instances (see `instances`); every task defines this."""
        raise ConfigError(f"{type(self).__name__} defines no instances")

    def load_instance(self, data: dict[str, Any]) -> Instance:
        """Validate instance data (from a run's jobs or a file); a bad record is a ConfigError."""
        try:
            return self.InstanceModel.model_validate(data)
        except ValidationError as exc:
            msgs = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'instance'}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigError(
                f"invalid {self.instance_label} instance {data.get('id', '?')!r}: {msgs}"
            ) from None

    def coerce_instance(self, instance: Instance | dict[str, Any]) -> Instance:
        """`instance` as this task's own instance model (from a dict or another Instance)."""
        if isinstance(instance, self.InstanceModel):
            return instance
        data = instance.model_dump(mode="json") if isinstance(instance, BaseModel) else instance
        if not isinstance(data, dict):
            raise ConfigError(
                f"a {self.instance_label} instance must be an object, got {type(data).__name__}"
            )
        return self.load_instance(data)

    # --- episode ---------------------------------------------------------------------------
    @abstractmethod
    def reset(self, instance: Instance) -> None: ...

    def current_role(self) -> str:
        return self.roles[0]

    @abstractmethod
    def observe(self, role: str) -> Observation: ...

    @abstractmethod
    def step(self, action_text: str) -> StepResult: ...

    @property
    @abstractmethod
    def done(self) -> bool: ...

    @abstractmethod
    def outcome(self) -> EpisodeResult: ...

    def oracle_action(self, role: str) -> str | None:
        """The optimal next action for `role`, or None if the task has no oracle."""
        return None

    @classmethod
    def solution_reply(cls, move: str) -> str:
        """One move of an instance's printed `solution` as a reply the task's parser reads, so a replay
        file made from `playbench instances` output plays as printed (iVISPAR adds its `action: `)."""
        return move

    @classmethod
    def has_oracle(cls) -> bool:
        return cls.oracle_action is not Task.oracle_action

    def preflight(self) -> None:  # noqa: B027 - a hook with nothing to check by default
        """Raise ConfigError if the task cannot be played as configured (a data source it needs is
        missing): `run`, `reproduce`, `play` and the web app call it before the first episode; listing
        instances and the conformance check do not."""

    def model_side(self) -> ModelSide | None:
        """What the original sent to the model (sampling, output cap, history, images), applied to
        every model-driven seat on every run (`core/model_side.py`); None: nothing declared."""
        return None

    def texts_origin(self) -> str:
        """Whose words the task sends, for the fidelity stamp: `original@<commit>` (read from the authors'
        clone) or `ours`. A task whose options can send only its own texts whatever `texts` says (a
        playbench protocol) overrides this."""
        from playbench.core.originals import texts_stamp

        return texts_stamp(type(self).originals, self.config.model_dump())

    def data_origin(self) -> str:
        """Where the instances come from, for the run's fidelity stamp: `generated` (drawn by playbench),
        `ours` (playbench's own set), `original@<commit>` (read from the authors' clone), or a
        conversion shipped with playbench (`original@<commit>, converted`)."""
        return "ours"

    def state(self) -> Any:
        """The full game state, hidden parts included, as JSON-able data (PettingZoo's `state()`):
        what a rule can change, not the step counter, history or feedback. None if not provided;
        the conformance check then says so, as it cannot prove that bad actions change nothing."""
        return None

    def state_digest(self) -> str:
        """A digest of `state()`: equal digests mean equal game states."""
        state = self.state()
        if state is None:
            raise ConfigError(f"{type(self).__name__} does not define state(), so it has no state digest")
        return hashlib.sha256(json.dumps(state, sort_keys=True, default=_jsonable).encode()).hexdigest()

    def progress(self) -> Progress | None:
        """How far the current state is from the goal (the oracle's distance, and/or the task's own
        progress fraction), for error maps: the report replays a recorded episode's actions and asks this
        after reset and after every step (`report/error_maps.py`), so it costs nothing while playing.
        None: the task defines no progress. It must not change the state."""
        return None

    def difficulty(self, instance: Instance) -> dict[str, Any] | None:
        """The instance's difficulty statistics (numbers or category names: geoms, optimal length, chain
        depth, ...), the ones a twin set matches the paper set on (`core/twins.py`); None if the task
        names none."""
        return None

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """Task-specific aggregates added to summary.json beside the generic ones."""
        return {}


def _describe_validation_error(model: type[BaseModel], exc: ValidationError) -> str:
    accepted = ", ".join(sorted(model.model_fields)) or "(none)"
    problems = []
    for err in exc.errors():
        key = ".".join(str(x) for x in err["loc"]) or "?"
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown option '{key}' (accepted: {accepted})")
        else:
            problems.append(f"option '{key}': {err['msg']} (got {err.get('input')!r})")
    return "; ".join(problems)


def instance_set_digest(instances: list[Instance]) -> str:
    """A digest of an instance set's content (every field of every instance, in order): published
    sets are pinned by it, so a change to a set is a deliberate act, never a refactor's accident."""
    canon = json.dumps([i.model_dump(mode="json") for i in instances], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()[:16]


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if hasattr(value, "__dict__"):
        return vars(value)
    return repr(value)
