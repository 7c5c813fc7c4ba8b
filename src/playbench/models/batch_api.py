"""The parts every provider's batch API shares (`playbench.models.batch`): what one poll says, what
`on_progress` is told, the interface a provider implements, and a finished batch's outcomes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playbench.models.remote import RemoteChatModel, _Failure, _Reply

# What a batch gives back for one request: the reply, or why there is none.
Outcome = _Reply | _Failure


@dataclass
class BatchStatus:
    """One poll of a batch, in the provider's words (`state`) and counted."""

    state: str
    done: bool
    total: int = 0
    completed: int = 0
    failed: int = 0
    error: str | None = None  # why the whole batch failed, when it did


@dataclass
class BatchProgress:
    """What `on_progress` is told after every poll."""

    batch_id: str
    spec: str
    state: str
    total: int
    completed: int
    failed: int
    polls: int
    elapsed_s: float
    done: bool

    def line(self) -> str:
        return (
            f"batch {self.batch_id} ({self.spec}): {self.state}, {self.completed}/{self.total} answered, "
            f"{self.failed} failed, {self.elapsed_s:.0f}s"
        )


class BatchAPI(ABC):
    """A provider's batch endpoints, reached through its official SDK."""

    max_requests: int  # the provider's limit per batch
    max_bytes: int

    def __init__(self, model: RemoteChatModel) -> None:
        self.model = model

    @abstractmethod
    def body(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request's JSON body, as the SDK would send `create(**request)`."""

    @abstractmethod
    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request as the batch carries it."""

    @abstractmethod
    async def submit(self, entries: list[dict[str, Any]]) -> str:
        """Create the batch; its id."""

    @abstractmethod
    async def status(self, batch_id: str) -> BatchStatus: ...

    @abstractmethod
    async def results(self, batch_id: str, status: BatchStatus) -> dict[str, Outcome]:
        """Each custom_id's outcome (a finished batch)."""

    async def aclose(self) -> None:
        return None


class BatchResults(dict[str, Outcome]):
    """A finished batch's outcomes by custom_id; a request it holds no line for gets `missing`."""

    def __init__(self, known: Mapping[str, Outcome], missing: _Failure) -> None:
        super().__init__(known)
        self.missing = missing

    def get(self, key: str, default: Any = None) -> Outcome:  # type: ignore[override]
        found = super().get(key)
        return found if found is not None else self.missing
