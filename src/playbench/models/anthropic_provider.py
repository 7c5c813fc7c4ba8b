"""Anthropic messages API."""

from __future__ import annotations

from typing import Any

import anthropic

from playbench.core.types import ImagePart, TextPart
from playbench.models.base import GenerationParams, Message, ModelError
from playbench.models.images import wire_base64
from playbench.models.remote import MalformedReply, RemoteChatModel, _Reply


def png_block(image: ImagePart) -> dict[str, Any]:
    """An image block, in the format the image is sent (PNG, or JPEG when `send_as` says so); the
    messages API has no detail setting."""
    media_type, data = wire_base64(image)
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def to_anthropic_request(
    messages: list[Message], spec: str = "anthropic"
) -> tuple[str | None, list[dict[str, Any]]]:
    """(system prompt, messages) in the messages-API wire format.

    The API takes the system prompt as a top-level parameter, not as a message, so system messages
    are lifted out (joined by blank lines if there are several). A text-only message becomes a
    plain string; one with images a list of text and base64 image blocks.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            if any(isinstance(p, ImagePart) for p in m.parts):
                raise ModelError(
                    f"{spec}: the Anthropic API takes no images in the system prompt; put them in a user message",
                    spec=spec,
                )
            system.append("\n".join(p.text for p in m.parts if isinstance(p, TextPart)))
            continue
        if m.role not in ("user", "assistant"):
            raise ModelError(
                f"{spec}: unsupported message role {m.role!r} (accepted: system, user, assistant)", spec=spec
            )
        if all(isinstance(p, TextPart) for p in m.parts):
            content: Any = "\n".join(p.text for p in m.parts)  # type: ignore[union-attr]
        else:
            content = [
                {"type": "text", "text": p.text} if isinstance(p, TextPart) else png_block(p) for p in m.parts
            ]
        out.append({"role": m.role, "content": content})
    return ("\n\n".join(system) if system else None), out


# The messages API requires max_tokens; a run whose protocol sends no cap (an original that sent none to
# other providers) gets this one, the largest every current Claude model accepts.
DEFAULT_MAX_TOKENS = 8192
# --reasoning-effort as a thinking budget (LiteLLM's mapping; the API's minimum budget is 1024).
EFFORT_BUDGETS = {"minimal": 1024, "low": 1024, "medium": 2048, "high": 4096}
MIN_THINKING_BUDGET = 1024


def thinking_budget(params: GenerationParams) -> int | None:
    """Extended thinking's budget_tokens for these params, or None for no thinking (reasoning_tokens=0:
    none beyond the answer cap)."""
    if params.reasoning_effort == "none":
        return None
    if params.reasoning_tokens:
        return max(MIN_THINKING_BUDGET, params.reasoning_tokens)
    if params.reasoning_effort is not None:
        return EFFORT_BUDGETS[params.reasoning_effort]
    return None


class AnthropicModel(RemoteChatModel):
    """`anthropic:MODEL` through `anthropic.AsyncAnthropic().messages.create`.

    Base URL: the `base_url` argument, else $ANTHROPIC_BASE_URL, else the SDK default. Key: only
    $ANTHROPIC_API_KEY; without it a custom base URL is required and a placeholder key is sent.
    `GenerationParams.seed` is not sent: the messages API has no seed. temperature/top_p are sent
    only when set (see `_build_request`).
    """

    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_base_url = "https://api.anthropic.com"
    sdk = anthropic

    def _compatible_name(self) -> str:
        return "Anthropic-compatible"

    def _make_client(self) -> anthropic.AsyncAnthropic:
        # Passing api_key explicitly also stops the SDK from looking for other credentials
        # (ANTHROPIC_AUTH_TOKEN, profiles on disk): the key comes from ANTHROPIC_API_KEY only.
        kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": 0, "timeout": self.timeout}
        if self._sdk_base_url:
            kwargs["base_url"] = self._sdk_base_url
        return anthropic.AsyncAnthropic(**kwargs)

    def _build_request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        system, wire = to_anthropic_request(messages, self.spec)
        if not wire:
            raise ModelError(
                f"{self.spec}: the Anthropic API needs at least one user message", spec=self.spec
            )
        thinking = thinking_budget(params)
        # max_tokens is mandatory in this API: the answer cap (DEFAULT_MAX_TOKENS where the run sends
        # none) plus the thinking budget, which the API counts inside max_tokens.
        answer = params.max_tokens if params.max_tokens is not None else DEFAULT_MAX_TOKENS
        request: dict[str, Any] = {
            "model": self.model,
            "messages": wire,
            "max_tokens": answer + (thinking or 0),
        }
        if system is not None:
            request["system"] = system
        if thinking:
            request["thinking"] = {"type": "enabled", "budget_tokens": thinking}
        # This SDK generation no longer types temperature/top_p (newer models reject them), so when
        # a run asks for them they travel in extra_body: older models and compatible servers still
        # honour them, and a model that refuses answers 400, which fails at once with its reason.
        sampling = {name: getattr(params, name) for name in ("temperature", "top_p")}
        sampling = {k: v for k, v in sampling.items() if v is not None}
        extra = {**sampling, **(params.extra_body or {})}
        if extra:
            request["extra_body"] = extra
        return request

    async def _send(self, client: anthropic.AsyncAnthropic, request: dict[str, Any]) -> _Reply:
        response = await client.messages.create(**request)
        blocks = response.content
        if not isinstance(blocks, list):
            raise MalformedReply("the response has no content list")
        stop = getattr(response, "stop_reason", None)
        if not blocks and stop not in ("max_tokens", "refusal"):
            # The API's counterpart of OpenAI's empty `choices`: nothing the task could even judge.
            # (An empty reply cut by max_tokens or a refusal is an answer the runner classifies.)
            raise MalformedReply(f"the response has no content blocks (stop_reason={stop})")
        # Thinking and tool-use blocks are not the answer; the text blocks together are.
        text = "".join(getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", None) == "text")
        usage = response.usage
        # extended thinking comes back as its own blocks; the API counts its tokens in output_tokens only
        thinking = "".join(
            getattr(b, "thinking", "") or "" for b in blocks if getattr(b, "type", None) == "thinking"
        )
        return _Reply(
            text=text,
            input_tokens=getattr(usage, "input_tokens", None) if usage is not None else None,
            output_tokens=getattr(usage, "output_tokens", None) if usage is not None else None,
            reasoning=thinking or None,
            finish_reason=stop,
        )
