"""One chat interface in front of every model provider."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Self

from playbench.core.types import Part, TextPart, Usage


@dataclass
class Message:
    role: str  # "system", "user" or "assistant"
    parts: list[Part]

    @classmethod
    def text(cls, role: str, text: str) -> Message:
        return cls(role, [TextPart(text)])


@dataclass(frozen=True)
class GenerationParams:
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 1024
    seed: int | None = None
    # Never sent to a provider: it separates repeated samples of one prompt (trials) in the response cache.
    sample_key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class ModelResponse:
    """A model's reply. Beside the text and usage, what the provider says about how it answered,
    when it says it: `reasoning_tokens` (tokens spent on hidden reasoning, part of the output tokens),
    `reasoning` (reasoning text a server returns beside the answer) and `finish_reason`."""

    text: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    reasoning_tokens: int | None = None
    reasoning: str | None = None
    finish_reason: str | None = None


# What a model call is for, as the run's calls file and usage breakdown record it: "act" (a seat's
# reply), "caption" (a captioner describing an image), or a label an agent chooses. A context
# variable, so an agent labels its calls without any change to the models it was given.
CALL_PURPOSE: ContextVar[str] = ContextVar("playbench_call_purpose", default="act")


@contextmanager
def call_purpose(purpose: str) -> Iterator[None]:
    """Label the model calls made inside the block: `with call_purpose("memory"): ...`."""
    token = CALL_PURPOSE.set(str(purpose))
    try:
        yield
    finally:
        CALL_PURPOSE.reset(token)


class ModelError(Exception):
    """A model call failed for good (after retries, or on an error retrying cannot fix).

    The message is meant for a log line: it names the model spec, the HTTP status if any, the
    server's own error message and the attempts made, and never contains an API key. The
    attributes carry the same facts for code that wants to branch on them.
    """

    def __init__(
        self,
        message: str,
        *,
        spec: str | None = None,
        status_code: int | None = None,
        attempts: int = 0,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.spec = spec
        self.status_code = status_code
        self.attempts = attempts
        # True when the last failure was of a retryable kind (429, 5xx, timeout, connection):
        # the retries ran out rather than the request being rejected outright.
        self.retryable = retryable


class ChatModel(ABC):
    """A model behind `provider:model`. Implementations own retries, the concurrency cap and pricing."""

    provider: str = ""

    def __init__(self, model: str) -> None:
        self.model = model

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse: ...

    def describe(self) -> dict[str, Any]:
        """What goes into config.json about this model (never a key)."""
        return {"spec": self.spec}

    async def aclose(self) -> None:
        return None

    # `async with make_model(...) as model:` closes the HTTP client on the loop that used it.
    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
