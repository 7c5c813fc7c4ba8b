"""OpenAI chat completions, and every server that speaks the same protocol (vLLM, SGLang, Ollama...)."""

from __future__ import annotations

import base64
import re
from typing import Any

import openai

from playbench.core.types import ImagePart, TextPart
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.remote import MalformedReply, RemoteChatModel, _Reply

# Reasoning models reject `max_tokens` and want `max_completion_tokens`; local servers and older
# models only know `max_tokens`, so the new name is used only where it is required.
_COMPLETION_TOKENS_MODELS = re.compile(r"^(o\d|gpt-5)")

_ROLES = ("system", "user", "assistant", "developer")


def png_data_uri(image: ImagePart) -> str:
    return "data:image/png;base64," + base64.b64encode(image.png).decode("ascii")


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
                {"type": "text", "text": p.text}
                if isinstance(p, TextPart)
                else {"type": "image_url", "image_url": {"url": png_data_uri(p)}}
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
        if params.max_tokens is not None:
            name = "max_completion_tokens" if _COMPLETION_TOKENS_MODELS.match(self.model) else "max_tokens"
            request[name] = params.max_tokens
        for name in ("temperature", "top_p", "seed"):
            value = getattr(params, name)
            if value is not None:
                request[name] = value
        return request

    async def _send(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> _Reply:
        response = await client.chat.completions.create(**request)
        if not response.choices:
            raise MalformedReply("the server returned no choices")
        message = response.choices[0].message
        # A refusal comes back in its own field with empty content; the task should still see it.
        text = message.content or getattr(message, "refusal", None) or ""
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
            finish_reason=getattr(response.choices[0], "finish_reason", None),
        )
