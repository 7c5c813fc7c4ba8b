"""OpenAI chat completions, and every server that speaks the same protocol (vLLM, SGLang, Ollama...)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

import openai

from playbench.core.types import ImagePart, TextPart
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.images import data_uri
from playbench.models.lean_http import LeanClient
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


def sdk_headers(api_key: str) -> dict[str, str]:
    """The headers the `openai` SDK sends that a server may act on: the key, the content type, the
    organization and project from $OPENAI_ORG_ID / $OPENAI_PROJECT_ID, and $OPENAI_CUSTOM_HEADERS
    (one "Name: value" a line, overriding the others, as the SDK applies it)."""
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": f"playbench (lean transport; openai-python {openai.__version__} compatible)",
    }
    for env, name in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
        value = os.environ.get(env)
        if value is not None:
            headers[name] = value
    custom = os.environ.get("OPENAI_CUSTOM_HEADERS")
    for line in (custom or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            headers = {k: v for k, v in headers.items() if k.lower() != name.strip().lower()}
            headers[name.strip()] = value.strip()
    return headers


def wire_body(request: dict[str, Any]) -> bytes:
    """The JSON body the SDK sends for `create(**request)`: `extra_body` merged over the other fields
    (shallowly, as the SDK merges it), serialised as the SDK serialises it."""
    extra = request.get("extra_body")
    body = {k: v for k, v in request.items() if k != "extra_body"}
    if extra:
        body.update(extra)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def reply_from_json(data: object) -> _Reply:
    """A chat completion's reply from its parsed JSON, read as `_send` reads the SDK's objects."""
    choices = data.get("choices") if isinstance(data, Mapping) else None
    if not choices or not isinstance(choices, list):
        raise MalformedReply("the server returned no choices")
    choice = choices[0] if isinstance(choices[0], Mapping) else {}
    message = choice.get("message")
    if not isinstance(message, Mapping):
        message = {}
    content, refusal = message.get("content"), message.get("refusal")
    text = content or refusal or ""
    finish = choice.get("finish_reason")
    if refusal and not content:
        finish = "refusal"
    usage = data.get("usage")  # type: ignore[union-attr]
    usage = usage if isinstance(usage, Mapping) else None
    details = usage.get("completion_tokens_details") if usage is not None else None
    reasoning_tokens = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return _Reply(
        text=text,
        input_tokens=usage.get("prompt_tokens") if usage is not None else None,
        output_tokens=usage.get("completion_tokens") if usage is not None else None,
        reasoning_tokens=reasoning_tokens if isinstance(reasoning_tokens, int) else None,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
        finish_reason=finish,
    )


class OpenAIModel(RemoteChatModel):
    """`openai:MODEL` through the chat completions API.

    Base URL: the `base_url` argument, else $OPENAI_BASE_URL, else the SDK default. Key: only
    $OPENAI_API_KEY; without it a custom base URL is required and a placeholder key is sent.
    Transport: the lean one (`playbench.models.lean_http`) by default, or
    `openai.AsyncOpenAI().chat.completions.create` with `transport="sdk"` ($PLAYBENCH_TRANSPORT=sdk).
    """

    provider = "openai"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = "https://api.openai.com/v1"
    sdk = openai
    lean = True

    def _compatible_name(self) -> str:
        return "OpenAI-compatible"

    def _make_client(self) -> openai.AsyncOpenAI | LeanClient:
        if self.transport == "lean":
            return LeanClient(self._sdk_base_url or self.default_base_url, sdk_headers(self._api_key))
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

    async def _send(self, client: openai.AsyncOpenAI | LeanClient, request: dict[str, Any]) -> _Reply:
        if isinstance(client, LeanClient):
            # a 2xx body that is not JSON raises json.JSONDecodeError, as from the SDK
            return reply_from_json(
                json.loads(await client.post("chat/completions", wire_body(request), self.timeout))
            )
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

    def _make_client(self) -> openai.AsyncOpenAI | LeanClient:
        if self.transport == "lean":
            return LeanClient(self._sdk_base_url or self.default_base_url, sdk_headers(self._api_key))
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
