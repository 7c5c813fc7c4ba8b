"""The generic model-driven agent: the task writes the prompt, the agent keeps the conversation window."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from playbench.agents.base import Agent
from playbench.agents.captioning import Captioner
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext
from playbench.core.types import Action, Observation, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message

NO_COT_SUFFIX = "\n\nAnswer with the final action line only, in the required format, without any explanation."
# Seats whose reply is a message or a verdict, not an action: "no chain of thought" does not make them
# answer with an action line (a COMMA expert told to do so would stop explaining the manual).
CONVERSATION_SEATS = frozenset({"expert", "judge"})

LLM_OPTIONS = {"history", "cot", "temperature", "top_p", "max_tokens", "captioner"}


class LLMAgent(Agent):
    """Sends the task's instructions as the system prompt and its observation parts as the user turn.

    `history` keeps the last k (observation, reply) exchanges in the conversation; 0 sends only the
    current observation (tasks such as iVISPAR put their own past window into the observation).
    `cot=False` asks for the bare action line (not of the expert and judge seats, which reply in words). With a `captioner` model, images reach the model as
    that captioner's descriptions (caption-then-reason baselines).
    """

    name = "llm"

    def __init__(
        self, model: ChatModel, options: dict[str, Any] | None = None, captioner: ChatModel | None = None
    ) -> None:
        options = dict(options or {})
        unknown = set(options) - LLM_OPTIONS
        if unknown:
            raise ConfigError(
                f"unknown llm agent option(s) {', '.join(sorted(unknown))} (accepted: {', '.join(sorted(LLM_OPTIONS))})"
            )
        self.model = model
        self.captioner_model = captioner
        try:
            self.history = int(options.get("history", 0))
            self.cot = bool(options.get("cot", True))
            self.params = GenerationParams(
                temperature=None if options.get("temperature") is None else float(options["temperature"]),
                top_p=None if options.get("top_p") is None else float(options["top_p"]),
                max_tokens=int(options.get("max_tokens", 1024)),
            )
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"bad llm agent option: {exc}") from None
        if self.history < 0:
            raise ConfigError(f"llm agent option history must be >= 0 (got {self.history})")

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.params = replace(self.params, sample_key=f"trial-{ctx.trial}")
        self.window: deque[tuple[Message, Message]] = deque(maxlen=max(self.history, 1))
        self.captioner = Captioner(self.captioner_model) if self.captioner_model is not None else None

    def build_messages(self, observation: Observation) -> list[Message]:
        bare = not self.cot and observation.role not in CONVERSATION_SEATS
        system = observation.instructions + (NO_COT_SUFFIX if bare else "")
        messages = [Message("system", [TextPart(system)])] if system.strip() else []
        if self.history:
            for user, assistant in self.window:
                messages.extend([user, assistant])
        messages.append(Message("user", list(observation.parts)))
        return messages

    async def act(self, observation: Observation) -> Action:
        usage = Usage()
        if self.captioner is not None:
            parts, usage = await self.captioner.to_text(list(observation.parts))
            observation = replace(observation, parts=parts)
        messages = self.build_messages(observation)
        response = await self.model.generate(messages, self.params)
        usage.add(response.usage)
        if self.history:
            self.window.append((messages[-1], Message.text("assistant", response.text)))
        return Action(text=response.text, raw=response.text, usage=usage)
