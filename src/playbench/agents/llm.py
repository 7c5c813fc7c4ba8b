"""The generic model-driven agent: the task writes the prompt, the agent keeps the conversation window."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from playbench.agents.base import Agent
from playbench.agents.captioning import Captioner
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext
from playbench.core.types import (
    IMAGE_DETAILS,
    IMAGE_FORMATS,
    Action,
    ImagePart,
    Observation,
    Part,
    TextPart,
    Usage,
)
from playbench.models.base import REASONING_EFFORTS, ChatModel, GenerationParams, Message

NO_COT_SUFFIX = "\n\nAnswer with the final action line only, in the required format, without any explanation."
# Seats whose reply is a message or a verdict, not an action: "no chain of thought" does not make them
# answer with an action line (a COMMA expert told to do so would stop explaining the manual).
CONVERSATION_SEATS = frozenset({"expert", "judge"})

LLM_OPTIONS = {
    "history",
    "cot",
    "temperature",
    "top_p",
    "seed",
    "max_tokens",
    "captioner",
    "image_format",
    "image_detail",
    "reasoning_effort",
    "reasoning_tokens",
    "extra_body",
}


def _number(
    options: dict[str, Any], name: str, low: float, high: float, low_open: bool = False
) -> float | None:
    value = options.get(name)
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number (got {value!r})") from None
    if (
        isinstance(value, bool)
        or number != number
        or number > high
        or number < low
        or (low_open and number == low)
    ):
        bound = f"> {low:g}" if low_open else f">= {low:g}"
        raise ConfigError(f"{name} must be {bound} and <= {high:g} (got {value!r})")
    return number


def _integer(options: dict[str, Any], name: str, minimum: int, none_word: bool = False) -> int | None:
    value = options.get(name)
    if value is None or (none_word and isinstance(value, str) and value.strip().lower() == "none"):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool) or str(number) != str(value).strip() or number < minimum:
        extra = " or none" if none_word else ""
        raise ConfigError(f"{name} must be an integer >= {minimum}{extra} (got {value!r})")
    return number


def _choice(options: dict[str, Any], name: str, accepted: tuple[str, ...]) -> str | None:
    value = options.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or value not in accepted:
        raise ConfigError(f"{name} must be one of {', '.join(accepted)} (got {value!r})")
    return value


# `history=all`: every earlier exchange stays in the chat (an original with no window)
HISTORY_ALL = 1_000_000


@dataclass(frozen=True)
class ModelOptions:
    """A model-driven agent's options, checked: generation parameters, the real chat's window, how
    images go on the wire, chain of thought."""

    params: GenerationParams
    history: int = 0
    cot: bool = True
    image_format: str = "png"
    image_detail: str | None = None

    def wire_images(self, parts: list[Part]) -> list[Part]:
        """The parts with every image marked for its wire encoding and detail."""
        if self.image_format == "png" and self.image_detail is None:
            return parts
        return [
            replace(p, send_as=self.image_format, detail=self.image_detail) if isinstance(p, ImagePart) else p
            for p in parts
        ]


def read_model_options(
    options: dict[str, Any], default_history: int = 0, default_cot: bool = True
) -> ModelOptions:
    """Check every model option's value (a ConfigError naming the bad one) and gather them."""
    extra = options.get("extra_body")
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"extra_body must be a JSON object (got {extra!r}: {exc.msg})") from None
    if extra is not None and not isinstance(extra, dict):
        raise ConfigError(f"extra_body must be a JSON object (got {extra!r})")
    cot = options.get("cot", default_cot)
    if not isinstance(cot, bool):
        if str(cot).lower() not in ("true", "false", "1", "0"):
            raise ConfigError(f"cot must be true or false (got {cot!r})")
        cot = str(cot).lower() in ("true", "1")
    max_tokens = _integer(options, "max_tokens", 1, none_word=True) if "max_tokens" in options else 1024
    all_turns = isinstance(options.get("history"), str) and options["history"].strip().lower() == "all"
    history = HISTORY_ALL if all_turns else _integer(options, "history", 0)
    params = GenerationParams(
        temperature=_number(options, "temperature", 0.0, 2.0),
        top_p=_number(options, "top_p", 0.0, 1.0, low_open=True),
        seed=_integer(options, "seed", 0),
        max_tokens=max_tokens,
        reasoning_effort=_choice(options, "reasoning_effort", REASONING_EFFORTS),
        reasoning_tokens=_integer(options, "reasoning_tokens", 0),
        extra_body=extra,
    )
    return ModelOptions(
        params=params,
        history=default_history if history is None else history,
        cot=cot,
        image_format=_choice(options, "image_format", IMAGE_FORMATS) or "png",
        image_detail=_choice(options, "image_detail", IMAGE_DETAILS),
    )


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
        self.options = read_model_options(options)
        self.history = self.options.history
        self.cot = self.options.cot
        self.params = self.options.params

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.params = replace(self.params, sample_key=f"trial-{ctx.trial}")
        self.window: deque[tuple[Message, Message]] = deque(
            maxlen=None if self.history >= HISTORY_ALL else max(self.history, 1)
        )
        self.captioner = Captioner(self.captioner_model) if self.captioner_model is not None else None

    def edit_window(self, observation: Observation) -> None:
        """Keep the chat as the original kept it: an unusable exchange that is asked again is dropped,
        and the previous reply stands in its cleaned form where the task gives one."""
        if not self.history or not self.window:
            return
        if observation.reask:
            self.window.pop()
        elif observation.reply_in_history is not None:
            user, _ = self.window[-1]
            self.window[-1] = (user, Message.text("assistant", observation.reply_in_history))

    def build_messages(self, observation: Observation) -> list[Message]:
        bare = not self.cot and observation.role not in CONVERSATION_SEATS
        system = observation.instructions + (NO_COT_SUFFIX if bare else "")
        messages = [Message("system", [TextPart(system)])] if system.strip() else []
        if observation.turns is not None:  # the task's own rebuilt conversation, as the original sent it
            for turn in observation.turns:
                messages.append(Message(turn.role, self.options.wire_images(list(turn.parts))))
        elif self.history:
            for user, assistant in self.window:
                messages.extend([user, assistant])
        messages.append(Message("user", self.options.wire_images(list(observation.parts))))
        return messages

    async def act(self, observation: Observation) -> Action:
        usage = Usage()
        if self.captioner is not None:
            parts, usage = await self.captioner.to_text(list(observation.parts))
            turns = observation.turns
            if turns is not None:  # the task's own earlier turns hold images too
                turns = []
                for turn in observation.turns or []:
                    described, used = await self.captioner.to_text(list(turn.parts))
                    usage.add(used)
                    turns.append(replace(turn, parts=described))
            observation = replace(observation, parts=parts, turns=turns)
        self.edit_window(observation)
        messages = self.build_messages(observation)
        response = await self.model.generate(messages, self.params)
        usage.add(response.usage)
        if self.history and observation.turns is None:
            self.window.append((messages[-1], Message.text("assistant", response.text)))
        return Action(text=response.text, raw=response.text, usage=usage)
