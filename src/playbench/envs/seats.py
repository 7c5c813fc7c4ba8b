"""playbench agents in the seats an environment's caller does not play (COMMA's expert beside a
trained solver): built from agent specs as the runner builds them, their async `act` run on a private
event loop in a background thread, so the environment works the same inside a running loop (Jupyter).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from playbench.agents import Agent, AgentSpec, build_agent, parse_agent
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext, Task, derive_seed
from playbench.core.types import Action, Observation
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.runner.protocol import apply_model_side

T = TypeVar("T")


def parse_partners(partners: Any, roles: tuple[str, ...], seat: str) -> dict[str, AgentSpec]:
    """Agent specs for every seat but `seat`. `partners` is one agent for all of them (`"oracle"`,
    `"random"`, an AgentSpec, or `{"name": "llm", "model": "openai:gpt-4o", "options": {...}}`) or a
    mapping from role to one of those."""
    others = [r for r in roles if r != seat]
    if partners is None:
        raise ConfigError(
            f"seat='{seat}' leaves {', '.join(others)} to playbench agents: pass partners= "
            "(e.g. partners='oracle', or {'expert': {'name': 'llm', 'model': 'openai:gpt-4o'}})"
        )
    if isinstance(partners, dict) and not {"name", "model", "options"} >= set(partners):
        unknown = sorted(set(partners) - set(others))
        if unknown:
            raise ConfigError(
                f"partners names seat(s) {', '.join(unknown)} that playbench plays not "
                f"(other seats: {', '.join(others)})"
            )
        missing = [r for r in others if r not in partners]
        if missing:
            raise ConfigError(f"partners gives no agent for seat(s) {', '.join(missing)}")
        return {role: _spec(partners[role]) for role in others}
    spec = _spec(partners)
    return {role: spec for role in others}


def _spec(value: Any) -> AgentSpec:
    if isinstance(value, AgentSpec):
        return parse_agent(value.name, value.model, value.options)
    if isinstance(value, str):
        return parse_agent(value)
    if isinstance(value, dict) and "name" in value:
        return parse_agent(str(value["name"]), value.get("model"), value.get("options"))
    raise ConfigError(
        f"a partner agent must be a name, an AgentSpec or {{'name': ..., 'model': ..., 'options': ...}} "
        f"(got {value!r})"
    )


class Partners:
    """The agents of the other seats, rebuilt for every episode as `run_episode` builds them."""

    def __init__(self, specs: dict[str, AgentSpec], model_settings: ModelSettings | dict | None) -> None:
        self.specs = specs
        if isinstance(model_settings, dict):
            try:
                model_settings = ModelSettings(**model_settings)
            except TypeError as exc:
                raise ConfigError(f"model_settings: {exc}") from None
        self.pool = ModelPool(model_settings or ModelSettings())
        self.agents: dict[str, Agent] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def check(self, task: Task) -> None:
        for role, spec in self.specs.items():
            if spec.name == "oracle" and not type(task).has_oracle():
                raise ConfigError(f"the oracle cannot play {role}: the task has no oracle")

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="playbench-partners", daemon=True
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def start(self, task: Task, task_id: str, instance_id: str, seed: int, trial: int) -> None:
        """New agents for a new episode (the model side the task declares applied to model-driven seats)."""
        self.close_agents()
        job_agents, _, _ = apply_model_side(task, self.specs, set())
        for role in self.specs:
            spec = AgentSpec.from_dict(job_agents[role])
            agent = build_agent(spec, self.pool.get)
            ctx = EpisodeContext(
                task_id=task_id,
                instance_id=instance_id,
                role=role,
                trial=trial,
                seed=derive_seed(seed, trial),
                oracle=(lambda r=role: task.oracle_action(r)),
            )
            self._run(agent.reset(ctx))
            self.agents[role] = agent

    def act(self, role: str, observation: Observation) -> Action:
        return self._run(self.agents[role].act(observation))

    def close_agents(self) -> None:
        for agent in self.agents.values():
            self._run(agent.close())
        self.agents = {}

    def close(self) -> None:
        if self._loop is None:
            self.agents = {}
            return
        try:
            self.close_agents()
            self._run(self.pool.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._loop.close()
            self._loop = self._thread = None
