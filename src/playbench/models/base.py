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


REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


@dataclass(frozen=True)
class GenerationParams:
    """What a model call asks of the provider.

    `max_tokens` is the cap on the *visible* answer (None: no cap is sent, where the API allows it).
    `reasoning_effort` (one of REASONING_EFFORTS) and `reasoning_tokens` (a thinking budget) are
    mapped per provider: OpenAI's `reasoning_effort`, Anthropic's extended thinking, Gemini's thinking
    config. For a reasoning model the request's output budget is the answer cap plus the reasoning
    budget (`output_budget`), so a paper's cap limits the answer and not the thinking.
    `extra_body` is merged into the request body as it is (a provider's own fields).
    """

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = 1024
    seed: int | None = None
    reasoning_effort: str | None = None
    reasoning_tokens: int | None = None
    extra_body: dict[str, Any] | None = None
    # Never sent to a provider: it separates repeated samples of one prompt (trials) in the response cache.
    sample_key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @property
    def reasoning(self) -> bool:
        """The call asks for reasoning (an effort other than "none", or a thinking budget)."""
        return (self.reasoning_effort not in (None, "none")) or bool(self.reasoning_tokens)

    def output_budget(self, reasoning_model: bool = False, reasoning_allowance: int = 0) -> int | None:
        """The output tokens to request: the answer cap, plus the reasoning budget for a reasoning
        model (`reasoning_tokens`, else `reasoning_allowance`); None when there is no answer cap."""
        if self.max_tokens is None:
            return None
        if not (reasoning_model or self.reasoning) or self.reasoning_effort == "none":
            return self.max_tokens
        extra = self.reasoning_tokens if self.reasoning_tokens is not None else reasoning_allowance
        return self.max_tokens + extra


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

    # what went wrong, as the episode record's `error_kind` says it
    kind: str = "model_call"


class OutputBudgetExhausted(ModelError):
    """The reply's visible text is empty because the output budget ran out (finish reason `length`,
    `max_tokens`, `MAX_TOKENS`): a reasoning model that spent it all on thinking, or a cap too small.
    It is never a move: the episode errors (rerunnable, left out of scores)."""

    kind = "output_budget"


class Refused(ModelError):
    """The provider's content filter or the model's refusal ended the reply (finish reason
    `content_filter`, `refusal`, `SAFETY`, ...)."""

    kind = "refusal"


# Finish reasons, lower-cased, across providers (OpenAI, Anthropic, Gemini).
BUDGET_FINISHES = frozenset({"length", "max_tokens", "max_output_tokens"})
REFUSAL_FINISHES = frozenset(
    {
        "content_filter",
        "refusal",
        "safety",
        "prohibited_content",
        "blocklist",
        "spii",
        "image_safety",
        "recitation",
    }
)


def cut_by_budget(response: ModelResponse) -> bool:
    """The reply stopped because the output budget ran out."""
    return str(response.finish_reason or "").lower() in BUDGET_FINISHES


def reply_error(response: ModelResponse, spec: str) -> ModelError | None:
    """The error a reply stands for, if it is not an answer: refused, or empty because its budget ran out."""
    finish = str(response.finish_reason or "").lower()
    if finish in REFUSAL_FINISHES:
        return Refused(f"{spec} refused to answer (finish reason {response.finish_reason!r})", spec=spec)
    if finish in BUDGET_FINISHES and not response.text.strip():
        spent = f", {response.reasoning_tokens} of them reasoning" if response.reasoning_tokens else ""
        return OutputBudgetExhausted(
            f"{spec} returned an empty reply: its output budget ran out (finish reason "
            f"{response.finish_reason!r}, {response.usage.output_tokens} output tokens{spent}); "
            "raise --max-tokens or --reasoning-tokens, or lower --reasoning-effort",
            spec=spec,
        )
    return None


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
