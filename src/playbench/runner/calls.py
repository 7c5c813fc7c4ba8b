"""Every model call of an episode, on record: the request, the response, its usage, latency and retries.

`run_episode` gives each seat's agent its models through a `CallRecorder`, which wraps every
`ChatModel` in a `RecordingModel`. The wrapper sits at the chat-model layer, so every call an agent
makes is seen, whoever makes it (the `llm` agent, a captioner, a suite's own agents with their
memory, feedback and ReAct calls, a judge), without any change to the agents.

Each call becomes one line of `trajectories/<key>.calls.jsonl` (see `CallRecord` fields in
`call_record`): the seat (`role`), what the call was for (`purpose`: "act", "caption", or the label
an agent gives with `playbench.models.call_purpose`), the model, the exact request (the messages
with images as references to the PNG files beside the trajectory, and the generation parameters)
and the response (text, reasoning where the provider returns it, finish reason), its usage, latency,
retries and, for a call that failed, the error. Nothing else goes in: API keys live in the SDK
clients and never reach a message, and a base URL is written without its credentials.

With `record=False` (`--no-calls`) only the usage per seat, purpose and model is kept.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playbench.core.types import ImagePart, TextPart, Usage
from playbench.models.base import (
    CALL_PURPOSE,
    ChatModel,
    GenerationParams,
    Message,
    ModelError,
    ModelResponse,
    cut_by_budget,
    reply_error,
)
from playbench.models.remote import redact_url
from playbench.report.summary import add_usage

CALLS_SUFFIX = ".calls.jsonl"
# A text part at least this long that an earlier call of the episode already sent (the system prompt,
# a history window's past turns) is written as a reference to that call's part, not again: a file of a
# long episode stays linear in its length. `RunReader.calls` puts the text back.
REPEAT_MIN_CHARS = 200


def public_spec(spec: str) -> str:
    """A model spec as it may be written: `openai:m@https://user:pw@host/v1` loses the credentials."""
    head, sep, url = spec.partition("@http")
    return f"{head}@{redact_url('http' + url)}" if sep else spec


def params_record(params: GenerationParams) -> dict[str, Any]:
    """The generation parameters as sent (`sample_key` only separates trials in the response cache
    and never reaches a provider)."""
    return {k: v for k, v in params.to_dict().items() if k != "sample_key"}


@dataclass
class _UsageRow:
    usage: Usage = field(default_factory=lambda: Usage(cost=0.0))
    reasoning: int | None = None
    latency: float = 0.0
    failed: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = self.usage.to_dict()
        if self.reasoning is not None:
            out["reasoning_tokens"] = self.reasoning
        out.update(latency_s=round(self.latency, 4), failed_calls=self.failed)
        return out


class CallRecorder:
    """Collects one episode's calls. `turn` is the trajectory turn being played (0 before the first)."""

    def __init__(self, stem: str, record: bool = True) -> None:
        self.stem = stem
        self.record = record
        self.turn = 0
        # each call as its finished JSON line: text, not nested containers, so a run with many long
        # episodes in flight gives the garbage collector nothing more to traverse
        self.calls: list[str] = []
        self.images: dict[str, bytes] = {}  # file name inside the episode folder -> PNG
        self._usage: dict[tuple[str, str, str], _UsageRow] = {}
        self._texts: dict[str, dict[str, int]] = {}  # long text -> where it was first written
        self.truncated_replies = 0  # replies with text that stopped because the output budget ran out

    def getter(self, role: str, get_model: Callable[[str], ChatModel]) -> Callable[[str], ChatModel]:
        """`get_model` for one seat's agent: the same models, each call recorded for `role`."""
        return lambda spec: RecordingModel(get_model(spec), self, role, public_spec(spec))

    # --- what a call leaves behind ------------------------------------------------------------
    def message(self, message: Message) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                name = f"{part.digest}.png"
                self.images.setdefault(name, part.png)
                image: dict[str, Any] = {"type": "image", "file": f"{self.stem}/{name}", "label": part.label}
                if part.send_as != "png":  # how it went on the wire, where not as the PNG on file
                    image["format"] = part.send_as
                if part.detail is not None:
                    image["detail"] = part.detail
                content.append(image)
        return {"role": message.role, "content": content}

    def _compact(self, messages: list[Message], call: int) -> list[dict[str, Any]]:
        """The messages as written: a long text an earlier call sent becomes {"type": "text",
        "repeat_of": {"call", "message", "part"}}."""
        out = []
        for m_index, message in enumerate(messages):
            record = self.message(message)
            for p_index, part in enumerate(record["content"]):
                text = part.get("text")
                if text is None or len(text) < REPEAT_MIN_CHARS:
                    continue
                first = self._texts.get(text)
                if first is None:
                    self._texts[text] = {"call": call, "message": m_index, "part": p_index}
                else:
                    record["content"][p_index] = {"type": "text", "repeat_of": first}
            out.append(record)
        return out

    def add(
        self,
        role: str,
        model: str,
        messages: list[Message],
        params: GenerationParams,
        started: float,
        response: ModelResponse | None,
        error: BaseException | None,
    ) -> None:
        purpose = CALL_PURPOSE.get()
        latency = round(time.perf_counter() - started, 4)
        if response is not None:
            usage = response.usage
        else:  # a failed call: no tokens, but its attempts were made
            attempts = getattr(error, "attempts", 0) or 1
            usage = Usage(calls=0, cost=0.0, retries=max(0, attempts - 1))
        reasoning_tokens = response.reasoning_tokens if response is not None else None
        self._count(role, purpose, model, usage, reasoning_tokens, latency, failed=response is None)
        if not self.record:
            return
        usage_dict = usage.to_dict()
        if reasoning_tokens is not None:
            usage_dict["reasoning_tokens"] = reasoning_tokens
        line: dict[str, Any] = {
            "call": len(self.calls) + 1,
            "turn": self.turn,
            "role": role,
            "purpose": purpose,
            "model": model,
            "request": {
                "messages": self._compact(messages, len(self.calls) + 1),
                "params": params_record(params),
            },
            "response": None,
            "usage": usage_dict,
            "latency_s": latency,
            "retries": usage.retries,
            "cached": bool(response is not None and response.cached),
            "error": None,
        }
        if response is not None:
            line["response"] = {
                "text": response.text,
                "reasoning": response.reasoning,
                "finish_reason": response.finish_reason,
            }
        if error is not None:  # a failed call, or a reply that is not an answer (refusal, empty budget)
            line["error"] = (
                str(error) if isinstance(error, ModelError) else f"{type(error).__name__}: {error}"
            )
            if isinstance(error, ModelError):
                line["error_kind"] = error.kind
        self.calls.append(json.dumps(line, ensure_ascii=False))

    def _count(
        self,
        role: str,
        purpose: str,
        model: str,
        usage: Usage,
        reasoning: int | None,
        latency: float,
        failed: bool,
    ) -> None:
        row = self._usage.get((role, purpose, model))
        if row is None:
            row = self._usage[(role, purpose, model)] = _UsageRow()
        row.usage.add(usage)
        row.latency += latency
        row.failed += int(failed)
        if reasoning is not None:
            row.reasoning = (row.reasoning or 0) + reasoning

    # --- the episode record's usage fields ------------------------------------------------------
    def usage_breakdown(self) -> list[dict[str, Any]]:
        """One row per seat, purpose and model: calls, tokens, cost, retries, failed calls, latency."""
        return [
            {"role": role, "purpose": purpose, "model": model, **row.to_dict()}
            for (role, purpose, model), row in sorted(self._usage.items())
        ]

    def usage_by_model(self) -> dict[str, dict[str, Any]]:
        """Usage per model over every seat and purpose."""
        out: dict[str, dict[str, Any]] = {}
        for (_, _, model), row in sorted(self._usage.items()):
            out[model] = add_usage(out.get(model, {}), row.to_dict())
        return out


class RecordingModel(ChatModel):
    """A seat's view of a pooled model: the same calls, each one recorded by the episode's recorder."""

    def __init__(self, inner: ChatModel, recorder: CallRecorder, role: str, spec: str) -> None:
        super().__init__(inner.model)
        self.provider = inner.provider
        self.inner, self.recorder, self.role, self.label = inner, recorder, role, spec

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        started = time.perf_counter()
        try:
            response = await self.inner.generate(messages, params)
        except Exception as exc:
            self.recorder.add(self.role, self.label, messages, params, started, None, exc)
            raise
        # A refusal, or an empty reply cut by its budget, is never a move: the call stays on record
        # with its response, and the episode errors with that kind. A cut reply with text is counted
        # and goes on to the task, which reads it as the protocol says.
        problem = reply_error(response, self.label)
        self.recorder.add(self.role, self.label, messages, params, started, response, problem)
        if problem is not None:
            raise problem
        if cut_by_budget(response):
            self.recorder.truncated_replies += 1
        return response

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def aclose(self) -> None:
        """The pool owns the model; a seat closing its view must not close it for every episode."""


# --- replaying a recorded episode -------------------------------------------------------------------
class ReplayMismatch(ModelError):
    """A replayed episode sent a request that is not the one on record (or one more than on record)."""


class ReplayedModel(ChatModel):
    """Answers with the recorded responses of one model, in order, after checking that each request
    is exactly the recorded one (messages, image files, parameters)."""

    provider = "replay"

    def __init__(self, spec: str, calls: list[dict[str, Any]], stem: str) -> None:
        super().__init__(spec)
        self.label = spec
        self.calls = list(calls)
        self.next = 0
        self.serializer = CallRecorder(stem)

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        if self.next >= len(self.calls):
            raise ReplayMismatch(f"{self.label}: call {self.next + 1} was not made in the recorded episode")
        call = self.calls[self.next]
        self.next += 1
        request = {
            "messages": [self.serializer.message(m) for m in messages],
            "params": params_record(params),
        }
        if request != call.get("request"):
            raise ReplayMismatch(
                f"{self.label}: the request of call {call.get('call')} (turn {call.get('turn')}) differs from the "
                "recorded one"
            )
        if call.get("response") is None:  # a reply that came but was no answer is replayed as it came
            raise ReplayMismatch(
                f"{self.label}: call {call.get('call')} failed when recorded: {call.get('error')}"
            )
        usage = call.get("usage") or {}
        fields = ("input_tokens", "output_tokens", "calls", "cached_calls", "retries")
        response = call["response"]
        return ModelResponse(
            text=response.get("text") or "",
            usage=Usage(**{k: int(usage.get(k) or 0) for k in fields}, cost=usage.get("cost")),
            cached=bool(call.get("cached")),
            reasoning_tokens=usage.get("reasoning_tokens"),
            reasoning=response.get("reasoning"),
            finish_reason=response.get("finish_reason"),
        )

    @property
    def unused(self) -> int:
        return len(self.calls) - self.next


class ReplayPool:
    """A model pool for `run_episode` that serves an episode's calls file instead of real models."""

    def __init__(self, calls: list[dict[str, Any]], stem: str) -> None:
        by_model: dict[str, list[dict[str, Any]]] = {}
        for call in sorted(calls, key=lambda c: int(c.get("call") or 0)):
            by_model.setdefault(str(call.get("model")), []).append(call)
        self.models = {spec: ReplayedModel(spec, group, stem) for spec, group in by_model.items()}
        self.stem = stem

    def get(self, spec: str) -> ChatModel:
        key = public_spec(spec)
        if key not in self.models:
            self.models[key] = ReplayedModel(key, [], self.stem)
        return self.models[key]

    async def aclose(self) -> None:
        return None
