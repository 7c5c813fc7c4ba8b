"""OpenAI chat completions, and every server that speaks the same protocol (vLLM, SGLang, Ollama...)."""

from __future__ import annotations

import re
from typing import Any

import openai

from playbench.core.types import ImagePart, TextPart
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.images import data_uri
from playbench.models.remote import MalformedReply, RemoteChatModel, _Reply

# OpenAI's reasoning models: they reject `max_tokens` and want `max_completion_tokens`, count their
# hidden reasoning against it, and take no sampling settings; local servers and older models only
# know `max_tokens`, so the new name is used only where it is required (or reasoning is asked for).
REASONING_MODELS = re.compile(r"^(o\d|gpt-5(?!-chat))", re.IGNORECASE)
# The reasoning allowance added to an answer cap for a reasoning model when the run gives no
# --reasoning-tokens: OpenAI's advice is to reserve at least 25,000 tokens for reasoning and output.
DEFAULT_REASONING_ALLOWANCE = 25_000


def is_reasoning_model(model: str) -> bool:
    return bool(REASONING_MODELS.match(model.rsplit("/", 1)[-1]))


_ROLES = ("system", "user", "assistant", "developer")


def png_data_uri(image: ImagePart) -> str:
    """The image as a data URI, in the format it is sent (PNG, or JPEG when `send_as` says so)."""
    return data_uri(image)


def image_url_part(image: ImagePart) -> dict[str, Any]:
    url: dict[str, Any] = {"url": data_uri(image)}
    if image.detail is not None:
        url["detail"] = image.detail
    return {"type": "image_url", "image_url": url}


def to_openai_messages(messages: list[Message], spec: str = "openai") -> list[dict[str, Any]]:
    """Messages in the chat-completions wire format.

    A message with only text becomes a plain string (the form every compatible server accepts);
    one with images becomes a list of text and image_url parts, images as PNG data URIs.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role not in _ROLES:
            raise ModelError(
                f"{spec}: unsupported message role {m.role!r} (accepted: {', '.join(_ROLES)})", spec=spec
            )
        if all(isinstance(p, TextPart) for p in m.parts):
            content: Any = "\n".join(p.text for p in m.parts)  # type: ignore[union-attr]
        else:
            content = [
                {"type": "text", "text": p.text} if isinstance(p, TextPart) else image_url_part(p)
                for p in m.parts
            ]
        out.append({"role": m.role, "content": content})
    return out


class OpenAIModel(RemoteChatModel):
    """`openai:MODEL` through `openai.AsyncOpenAI().chat.completions.create`.

    Base URL: the `base_url` argument, else $OPENAI_BASE_URL, else the SDK default. Key: only
    $OPENAI_API_KEY; without it a custom base URL is required and a placeholder key is sent.
    """

    provider = "openai"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = "https://api.openai.com/v1"
    sdk = openai

    def _compatible_name(self) -> str:
        return "OpenAI-compatible"

    def _make_client(self) -> openai.AsyncOpenAI:
        kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": 0, "timeout": self.timeout}
        if self._sdk_base_url:
            kwargs["base_url"] = self._sdk_base_url
        return openai.AsyncOpenAI(**kwargs)

    def _build_request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages, self.spec)}
        reasoning_model = is_reasoning_model(self.model)
        budget = params.output_budget(reasoning_model, DEFAULT_REASONING_ALLOWANCE)
        if budget is not None:
            name = "max_completion_tokens" if reasoning_model or params.reasoning else "max_tokens"
            request[name] = budget
        for name in ("temperature", "top_p", "seed"):
            value = getattr(params, name)
            if value is not None:
                request[name] = value
        request.update(self._reasoning_fields(params))
        if params.extra_body:
            request["extra_body"] = {**request.get("extra_body", {}), **params.extra_body}
        return request

    def _reasoning_fields(self, params: GenerationParams) -> dict[str, Any]:
        """OpenAI takes an effort only; a thinking budget (`reasoning_tokens`) has no field of its own
        in its API and only enlarges the output budget (a server with one takes it by --extra-body)."""
        if params.reasoning_effort is None:
            return {}
        return {"reasoning_effort": params.reasoning_effort}

    async def _send(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> _Reply:
        response = await client.chat.completions.create(**request)
        if not response.choices:
            raise MalformedReply("the server returned no choices")
        message = response.choices[0].message
        # A refusal comes back in its own field with empty content: its text is recorded as the
        # reply, and its finish reason says "refusal" so the episode errors with that kind.
        refusal = getattr(message, "refusal", None)
        text = message.content or refusal or ""
        finish = getattr(response.choices[0], "finish_reason", None)
        if refusal and not message.content:
            finish = "refusal"
        usage = response.usage
        details = getattr(usage, "completion_tokens_details", None) if usage is not None else None
        reasoning_tokens = getattr(details, "reasoning_tokens", None)
        # reasoning text beside the answer: vLLM/SGLang reasoning parsers (`reasoning_content`), OpenRouter
        # and others (`reasoning`); absent from OpenAI's own API, which only counts the tokens
        reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
        return _Reply(
            text=text,
            input_tokens=usage.prompt_tokens if usage is not None else None,
            output_tokens=usage.completion_tokens if usage is not None else None,
            reasoning_tokens=reasoning_tokens if isinstance(reasoning_tokens, int) else None,
            reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
            finish_reason=finish,
        )


class OpenRouterModel(OpenAIModel):
    """`openrouter:VENDOR/MODEL` through OpenRouter's OpenAI-compatible API (https://openrouter.ai/api/v1).

    Key: $OPENROUTER_API_KEY. Reasoning travels in OpenRouter's own `reasoning` object ({"effort"} or
    {"max_tokens"}), which it maps to every vendor's reasoning setting.
    """

    provider = "openrouter"
    key_env = "OPENROUTER_API_KEY"
    base_url_env = "OPENROUTER_BASE_URL"
    default_base_url = "https://openrouter.ai/api/v1"

    def _compatible_name(self) -> str:
        return "OpenRouter-compatible"

    def _make_client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            max_retries=0,
            timeout=self.timeout,
            base_url=self._sdk_base_url or self.default_base_url,
        )

    def _reasoning_fields(self, params: GenerationParams) -> dict[str, Any]:
        reasoning: dict[str, Any] = {}
        if params.reasoning_effort == "none":
            reasoning = {"enabled": False}
        elif params.reasoning_tokens:
            reasoning = {"max_tokens": params.reasoning_tokens}
        elif params.reasoning_effort is not None:
            reasoning = {"effort": params.reasoning_effort}
        return {"extra_body": {"reasoning": reasoning}} if reasoning else {}
