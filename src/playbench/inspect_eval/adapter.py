"""Inspect AI's model API behind playbench's `ChatModel` interface.

playbench's agents talk to `ChatModel.generate(messages, params)`; inside an Inspect eval that call
becomes `inspect_ai.model.Model.generate(input, config=GenerateConfig(...))` on the model Inspect was
given (`--model`), so Inspect's providers, retries, rate limits, cache and transcript all apply, and
the agent, the task's prompts and the task's model side are playbench's own.

The model spec playbench sees is `<inspect provider>:<model name>`: Inspect's `openai/gpt-4o` is
`openai:gpt-4o`, `anthropic/claude-sonnet-4-5` is `anthropic:claude-sonnet-4-5`, `mockllm/model` is
`mockllm:model`. So the per-family rules of a task's model side (searched in what follows the
colon: `gpt-4`, `^claude`, o-series) and the provider rules (`openai:` reasoning models take no
sampling settings, `anthropic:` thinking takes temperature 1) see the same names as in a
`playbench run --model openai:gpt-4o`.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)

from playbench.core.types import ImagePart, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, ModelError, ModelResponse
from playbench.models.images import data_uri
from playbench.models.pricing import cost_of, merge_prices, price_for

# Inspect's stop reasons, as the finish reasons playbench's reply checks read (`models/base.py`):
# `max_tokens` is a reply cut by its output budget, `content_filter` a refusal.
STOP_TO_FINISH = {
    "stop": "stop",
    "max_tokens": "max_tokens",
    "model_length": "model_length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "unknown": None,
}
# Providers whose calls cost nothing (Inspect's scripted test model).
FREE_PROVIDERS = frozenset({"mockllm", "none"})


def spec_for(model: Model | str) -> str:
    """playbench's spec for an Inspect model (`openai/gpt-4o` -> `openai:gpt-4o`)."""
    name = str(model)
    provider, sep, rest = name.partition("/")
    if not sep or not rest:
        raise ModelError(f"Inspect model {name!r} is not of the form provider/model")
    return f"{provider}:{rest}"


def inspect_name(spec: str) -> str:
    """Inspect's name for a playbench spec (`openai:gpt-4o` -> `openai/gpt-4o`)."""
    provider, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise ModelError(f"model spec {spec!r} is not of the form provider:model", spec=spec)
    return f"{provider}/{rest}"


def to_inspect_content(parts: list[Any]) -> str | list[Content]:
    """A message's parts as Inspect content: text only -> one string, its parts joined by newlines
    (as playbench's OpenAI provider sends it); with images -> text and image parts in order, each
    image a data URI in its wire format (PNG, or JPEG where `send_as` says so) with its detail."""
    if all(isinstance(p, TextPart) for p in parts):
        return "\n".join(p.text for p in parts)
    content: list[Content] = []
    for part in parts:
        if isinstance(part, TextPart):
            content.append(ContentText(text=part.text))
        elif isinstance(part, ImagePart):
            # Inspect's own default detail is "auto", which is also what OpenAI assumes when none is sent
            content.append(ContentImage(image=data_uri(part), detail=part.detail or "auto"))
        else:
            raise ModelError(f"unsupported message part {type(part).__name__}")
    return content


def to_inspect_messages(messages: list[Message]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for message in messages:
        content = to_inspect_content(message.parts)
        if message.role == "system":
            out.append(ChatMessageSystem(content=content))
        elif message.role == "user":
            out.append(ChatMessageUser(content=content))
        elif message.role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            raise ModelError(f"unsupported message role {message.role!r} (accepted: system, user, assistant)")
    return out


def _reasoning_allowance(provider: str, model: str, params: GenerationParams) -> tuple[bool, int]:
    """(is a reasoning model, the thinking allowance added to the answer cap), as playbench's own
    providers count them: OpenAI's reasoning models 25,000 tokens, Gemini's thinking models theirs."""
    if provider == "openai":
        from playbench.models.openai_provider import DEFAULT_REASONING_ALLOWANCE, is_reasoning_model

        return is_reasoning_model(model), DEFAULT_REASONING_ALLOWANCE
    if provider == "google":
        from playbench.models.google_provider import is_thinking_model, thinking_config

        return is_thinking_model(model), thinking_config(model, params)[1]
    return False, 0


def to_generate_config(provider: str, model: str, params: GenerationParams) -> GenerateConfig:
    """playbench's generation parameters as Inspect's GenerateConfig; a value playbench does not send
    (None) is left unset, so the eval's own config or the provider's default applies."""
    reasoning_model, allowance = _reasoning_allowance(provider, model, params)
    fields: dict[str, Any] = {
        "temperature": params.temperature,
        "top_p": params.top_p,
        "max_tokens": params.output_budget(reasoning_model, allowance),
        "seed": params.seed,
        "reasoning_effort": params.reasoning_effort,
        "reasoning_tokens": params.reasoning_tokens,
        "extra_body": params.extra_body,
    }
    return GenerateConfig(**{k: v for k, v in fields.items() if v is not None})


def to_model_response(output: ModelOutput, price: dict[str, float] | None, free: bool) -> ModelResponse:
    """Inspect's output as playbench's response: the completion, usage, finish reason (a refusal as
    `refusal`), the reasoning text and tokens."""
    text = output.completion or ""
    finish: str | None = None
    reasoning: list[str] = []
    if output.choices:
        choice = output.choices[0]
        finish = STOP_TO_FINISH.get(choice.stop_reason, choice.stop_reason)
        content = choice.message.content
        if isinstance(content, list):
            reasoning = [p.reasoning for p in content if isinstance(p, ContentReasoning) and not p.redacted]
            texts = [p for p in content if isinstance(p, ContentText)]
            # a reply that is only a refusal (OpenAI's `message.refusal`) is a refusal, as playbench's
            # own OpenAI provider reads it; its text stays on record
            if texts and all(p.refusal for p in texts):
                finish = "refusal"
    usage = output.usage
    input_tokens = usage.input_tokens + (usage.input_tokens_cache_read or 0) if usage else 0
    output_tokens = usage.output_tokens if usage else 0
    if free:
        cost: float | None = 0.0
    elif usage is not None and usage.total_cost is not None:
        cost = usage.total_cost
    else:
        cost = cost_of(price, input_tokens, output_tokens) if usage is not None else None
    return ModelResponse(
        text=text,
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, calls=1, cost=cost),
        reasoning_tokens=usage.reasoning_tokens if usage is not None else None,
        reasoning="\n".join(reasoning) or None,
        finish_reason=finish,
    )


class InspectChatModel(ChatModel):
    """A playbench ChatModel that generates through an Inspect `Model`."""

    def __init__(self, model: Model, spec: str | None = None) -> None:
        spec = spec or spec_for(model)
        provider, _, name = spec.partition(":")
        super().__init__(name)
        self.provider = provider
        self.inspect_model = model
        self.price = price_for(spec, name, merge_prices(None))

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        config = to_generate_config(self.provider, self.model, params)
        try:
            output = await self.inspect_model.generate(to_inspect_messages(messages), config=config)
        except ModelError:
            raise
        except Exception as exc:  # any failure of Inspect's call is the episode's model error, not a crash
            raise ModelError(
                f"{self.spec} (Inspect {self.inspect_model}): {type(exc).__name__}: {exc}", spec=self.spec
            ) from exc
        if output.error and not output.choices:
            raise ModelError(f"{self.spec} (Inspect {self.inspect_model}): {output.error}", spec=self.spec)
        return to_model_response(output, self.price, self.provider in FREE_PROVIDERS)

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "via": "inspect_ai", "inspect_model": str(self.inspect_model)}


class InspectModelPool:
    """The model pool `run_episode` takes: every spec is an Inspect model. The eval's own model
    (`--model`) answers for its spec; any other spec (a captioner, a judge, an expert model named in
    the agent's options as `provider:model`) is Inspect's `get_model("provider/model")`."""

    def __init__(self, active: Model) -> None:
        self.active = active
        self.active_spec = spec_for(active)
        self._models: dict[str, InspectChatModel] = {}

    def get(self, spec: str) -> ChatModel:
        if spec not in self._models:
            model = self.active if spec == self.active_spec else get_model(inspect_name(spec))
            self._models[spec] = InspectChatModel(model, spec)
        return self._models[spec]

    def describe(self) -> dict[str, Any]:
        return {spec: model.describe() for spec, model in self._models.items()}

    async def aclose(self) -> None:
        """Inspect owns its models' clients; nothing to close here."""
