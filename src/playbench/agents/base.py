"""The agent interface and the plain-data spec the runner uses to build one agent per episode."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

from playbench.core.task import EpisodeContext
from playbench.core.types import Action, Observation


class AgentStopped(Exception):
    """Raised by an agent that has nothing more to play (a replay ran out, a human quit).

    The runner ends the episode there and records how it ended; it is not an error.
    """


@dataclass(frozen=True)
class AgentSpec:
    """Everything needed to build an agent, as data, so a remote worker can rebuild it."""

    name: str
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentSpec:
        return cls(name=data["name"], model=data.get("model"), options=dict(data.get("options") or {}))

    @property
    def label(self) -> str:
        return f"{self.name}({self.model})" if self.model else self.name


class Agent(ABC):
    name: str = ""

    async def reset(self, ctx: EpisodeContext) -> None:
        self.ctx = ctx

    @abstractmethod
    async def act(self, observation: Observation) -> Action: ...

    async def close(self) -> None:  # noqa: B027 - a hook with nothing to do by default
        """The episode is over (however it ended): release what the agent made for it."""
