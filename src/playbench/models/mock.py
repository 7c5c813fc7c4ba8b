"""`mock:FILE`: a model whose replies are read from a file, for tests, demos and benchmarks.

The file holds the replies, served in order and cycling back to the first after the last:
- `*.jsonl`: one JSON value per line, either a string (the reply) or an object
  `{"reply": "...", "input_tokens": N, "output_tokens": N, "reasoning_tokens": N, "reasoning": "...",
  "finish_reason": "length"}`
  (everything but the reply is optional; reasoning stands for what a reasoning model returns beside
  its answer, and is recorded in the run's calls file);
- any other name: plain text, one reply per line (blank lines are skipped, so a reply that spans
  several lines, or an empty reply, needs JSONL).

Options follow a `?` as in a URL: `mock:replies.jsonl?delay=0.05&jitter=0.2` waits 50 ms ± 20%
before each reply (a seeded random draw, `seed=0` by default, the same on every run), to stand in
for a model's latency. A path that names an existing file is taken whole, `?` included.

The sequence belongs to the model object: every episode of a run that uses the same spec in one
process takes the next reply, in the order of the calls. Usage counts one call per reply; tokens
are the file's counts, else estimated as one per four characters of text (images are not counted);
the cost is 0. A reply is data handed to the task like any model output, never evaluated.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from playbench.core.errors import ConfigError
from playbench.core.types import TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, ModelError, ModelResponse

OPTIONS = ("delay", "jitter", "seed")
REPLY_KEYS = ("reply", "input_tokens", "output_tokens", "reasoning_tokens", "reasoning", "finish_reason")


@dataclass(frozen=True)
class MockReply:
    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    reasoning: str | None = None
    finish_reason: str = "stop"


def estimate_tokens(text: str) -> int:
    """About four characters per token, the usual rule of thumb for English text and code."""
    return math.ceil(len(text) / 4)


def split_options(model: str) -> tuple[str, dict[str, str]]:
    """`FILE?key=value&...` -> (FILE, options); a FILE that exists keeps any `?` it contains."""
    path, sep, query = model.rpartition("?")
    if not sep or Path(model).expanduser().is_file():
        return model, {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ConfigError(
            f"mock provider: bad options {query!r} in 'mock:{model}' (expected key=value&..., keys: "
            f"{', '.join(OPTIONS)})"
        ) from None
    options = dict(pairs)
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"mock provider: unknown option(s) {', '.join(unknown)} in 'mock:{model}' "
            f"(accepted: {', '.join(OPTIONS)})"
        )
    return path, options


def _number(options: dict[str, str], key: str, default: float, low: float, high: float) -> float:
    if key not in options:
        return default
    try:
        value = float(options[key])
    except ValueError:
        value = math.nan
    if not low <= value <= high:  # also rejects nan
        bound = f"between {low:g} and {high:g}" if math.isfinite(high) else f">= {low:g}"
        raise ConfigError(f"mock provider: {key} must be a number {bound} (got {options[key]!r})")
    return value


def _reply_from_json(value: Any, where: str) -> MockReply:
    if isinstance(value, str):
        return MockReply(value)
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a JSON string or an object with a 'reply' string")
    unknown = sorted(set(value) - set(REPLY_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (accepted: {', '.join(REPLY_KEYS)})")
    if not isinstance(value.get("reply"), str):
        raise ConfigError(f"{where}: 'reply' must be a string")
    counts: dict[str, Any] = {}
    for key in ("input_tokens", "output_tokens", "reasoning_tokens"):
        n = value.get(key)
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ConfigError(f"{where}: '{key}' must be an integer >= 0 (got {n!r})")
        counts[key] = n
    reasoning = value.get("reasoning")
    if reasoning is not None and not isinstance(reasoning, str):
        raise ConfigError(f"{where}: 'reasoning' must be a string")
    finish = value.get("finish_reason", "stop")
    if not isinstance(finish, str) or not finish:
        raise ConfigError(f"{where}: 'finish_reason' must be a word such as stop or length (got {finish!r})")
    return MockReply(value["reply"], reasoning=reasoning, finish_reason=finish, **counts)


def load_replies(path: str | Path) -> list[MockReply]:
    """The replies in `path`; a ConfigError naming the file if it is missing, unreadable or empty."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"mock provider: reply file '{path}' does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"mock provider: cannot read reply file '{path}': {reason}") from None
    replies: list[MockReply] = []
    if path.suffix.lower() == ".jsonl":
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"mock provider: {path}:{number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: not valid JSON ({exc.msg})") from None
            replies.append(_reply_from_json(value, where))
    else:
        replies = [MockReply(line) for line in text.splitlines() if line.strip()]
    if not replies:
        raise ConfigError(f"mock provider: reply file '{path}' holds no replies")
    return replies


class MockModel(ChatModel):
    """`mock:FILE[?delay=S&jitter=F&seed=N]`: replies from FILE, in order, cycling (see the module doc).

    Takes the same settings as the HTTP providers; only `concurrency` (calls waiting out their delay
    at once) matters: nothing here fails, so there is nothing to retry, and there is nothing to price.
    """

    provider = "mock"

    def __init__(self, model: str, *, concurrency: int = 8, **settings: Any) -> None:
        super().__init__(model)
        if not model or not model.strip():
            raise ConfigError("empty reply file for provider mock (expected mock:FILE)")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(f"model concurrency must be an integer >= 1 (got {concurrency!r})")
        path, options = split_options(model)
        self.delay = _number(options, "delay", 0.0, 0.0, math.inf)
        self.jitter = _number(options, "jitter", 0.0, 0.0, 1.0)
        seed = _number(options, "seed", 0, -(2**63), 2**63)
        if seed != int(seed):
            raise ConfigError(f"mock provider: seed must be an integer (got {options['seed']!r})")
        self.seed = int(seed)
        self.path = Path(path).expanduser().resolve()
        self.replies = load_replies(self.path)
        self.digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        self.concurrency = concurrency
        self.calls = 0
        self._rng = random.Random(self.seed)
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _gate(self) -> asyncio.Semaphore:
        # A semaphore belongs to one event loop; the model may outlive one asyncio.run().
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._semaphore

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        if not messages:
            raise ModelError(f"{self.spec}: no messages to send", spec=self.spec)
        # Taken before the wait, so replies go out in the order the calls came in.
        reply = self.replies[self.calls % len(self.replies)]
        self.calls += 1
        if self.delay > 0:
            delay = self.delay
            if self.jitter:
                delay *= 1 + self.jitter * (2 * self._rng.random() - 1)
            async with self._gate():
                await asyncio.sleep(delay)
        if reply.input_tokens is not None:
            input_tokens = reply.input_tokens
        else:
            chars = sum(len(p.text) for m in messages for p in m.parts if isinstance(p, TextPart))
            input_tokens = math.ceil(chars / 4)
        output_tokens = (
            reply.output_tokens if reply.output_tokens is not None else estimate_tokens(reply.text)
        )
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, calls=1, cost=0.0)
        return ModelResponse(
            text=reply.text,
            usage=usage,
            reasoning_tokens=reply.reasoning_tokens,
            reasoning=reply.reasoning,
            finish_reason=reply.finish_reason,
        )

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "spec": self.spec,
            "provider": self.provider,
            "model": self.model,
            "path": str(self.path),
            "sha256": self.digest,
            "replies": len(self.replies),
            "concurrency": self.concurrency,
        }
        if self.delay:
            info.update(delay=self.delay, jitter=self.jitter, seed=self.seed)
        return info

    def __repr__(self) -> str:
        return f"MockModel({self.spec!r}, replies={len(self.replies)})"
