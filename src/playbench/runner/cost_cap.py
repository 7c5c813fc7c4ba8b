"""`--max-cost USD`: a run (or a sweep) stops spending at a limit.

Two checks, both against what this command has spent so far (every priced model call of every seat,
judges included, as it comes back):

- **Starting an episode**: an episode starts only if the spent, plus the estimated cost of the episodes
  in flight, plus its own estimate stay within the limit. An episode's estimate is the mean cost of its
  task's finished episodes (this run directory's records, earlier commands included), before any the
  dry run's upper bound (`runner/sweep.estimate`); when that bound alone exceeds what is left, episodes
  start one at a time (none other in flight) and the call check below keeps the limit.
- **Sending a model call**: a call is sent only if the spent, plus the calls in flight, plus its own
  upper bound (its prompt's tokens, estimated as the dry run does, and the largest output this model
  has given so far, else its output cap) stay within the limit. Otherwise its episode is **abandoned**:
  not recorded, so a resume plays it again. Reservations keep concurrent calls from overshooting together.

So the spending stops at or under the limit as long as no call costs more than its upper bound. A model
without a price cannot be capped: the run is refused before it starts.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any

from playbench.core.types import ImagePart, TextPart
from playbench.models.base import ChatModel, GenerationParams, Message, ModelResponse


class CostCapReached(BaseException):  # noqa: N818 - a stop signal, like asyncio.CancelledError
    """Raised inside an episode whose next model call would pass `--max-cost`.

    A BaseException, so that no agent's or task's `except Exception` turns it into a recorded error:
    the executor catches it and leaves the episode unrecorded (abandoned, played again on resume)."""


def _image_tokens(png: bytes) -> int:
    from playbench.runner.sweep import _size, image_tokens

    return image_tokens(*_size(png))


def prompt_tokens(messages: list[Message]) -> int:
    """An estimate of a request's input tokens: four characters a token, images as OpenAI counts them."""
    chars, images = 0, 0
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                chars += len(part.text)
            elif isinstance(part, ImagePart):
                images += _image_tokens(part.png)
    return math.ceil(chars / 4) + images


@dataclass
class CostCap:
    """The meter and the two checks; one per command (a sweep's cells share it)."""

    limit: float
    # per task (as `(run directory, task id)`): the estimated cost of one episode before any of it has
    # finished (the dry run's bound), and the costs of its finished episodes on record (earlier commands
    # included), whose mean replaces the bound
    bounds: dict[Any, float] = field(default_factory=dict)
    finished_costs: dict[Any, list[float]] = field(default_factory=dict)
    spent: float = 0.0
    in_flight: dict[Any, float] = field(default_factory=dict)  # episode key -> its estimate
    reserved: float = 0.0  # upper bounds of the calls in flight
    largest_output: dict[str, int] = field(default_factory=dict)  # model spec -> tokens
    started: int = 0
    not_started: int = 0
    abandoned: int = 0
    finished: int = 0
    _changed: asyncio.Condition | None = field(default=None, repr=False)  # an episode in flight ended

    def episode_estimate(self, task_id: Any) -> float:
        costs = self.finished_costs.get(task_id)
        if costs:
            return sum(costs) / len(costs)
        return self.bounds.get(task_id, 0.0)

    def try_start(self, key: Any, task_id: Any) -> bool | None:
        """Whether the episode `key` of `task_id` may start: True (it now counts as in flight), None (not
        yet: wait for an episode in flight to finish, then ask again), False (never, in this command)."""
        estimate = self.episode_estimate(task_id)
        committed = self.spent + sum(self.in_flight.values())
        if committed + estimate > self.limit + 1e-12:
            if self.in_flight:
                return None  # the finished ones' real costs may leave room
            # nothing in flight and an estimate bigger than what is left (an upper bound before any
            # episode finished): it starts alone, the call check keeping the limit
            if self.spent >= self.limit or self.episode_measured(task_id):
                self.not_started += 1
                return False
        self.in_flight[key] = estimate
        self.started += 1
        return True

    def episode_measured(self, task_id: Any) -> bool:
        return bool(self.finished_costs.get(task_id))

    async def start(self, key: Any, task_id: Any) -> bool:
        """Wait until the episode may start (True) or never will in this command (False)."""
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            while True:
                verdict = self.try_start(key, task_id)
                if verdict is not None:
                    return verdict
                await self._changed.wait()

    async def end(self, key: Any, task_id: Any, cost: float | None, abandoned: bool = False) -> None:
        self.episode_done(key, task_id, cost, abandoned)
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    def episode_done(self, key: Any, task_id: Any, cost: float | None, abandoned: bool = False) -> None:
        self.in_flight.pop(key, None)
        if abandoned:
            self.abandoned += 1
            return
        self.finished += 1
        if cost is not None:
            self.finished_costs.setdefault(task_id, []).append(cost)

    def call_bound(self, model: ChatModel, messages: list[Message], params: GenerationParams) -> float:
        price = price_of(model)
        if not price:
            return 0.0
        output = self.largest_output.get(model.spec)
        if output is None:
            output = params.max_tokens or 1024
            output += params.reasoning_tokens or 0
        return (prompt_tokens(messages) * price["input"] + output * price["output"]) / 1e6

    def reserve(self, bound: float) -> bool:
        if self.spent + self.reserved + bound > self.limit + 1e-12:
            return False
        self.reserved += bound
        return True

    def settle(self, spec: str, bound: float, response: ModelResponse | None) -> None:
        self.reserved = max(0.0, self.reserved - bound)
        if response is None:
            return
        self.spent += response.usage.cost or 0.0
        if not response.cached:
            previous = self.largest_output.get(spec, 0)
            self.largest_output[spec] = max(previous, response.usage.output_tokens)

    @property
    def stopped(self) -> bool:
        return self.not_started > 0 or self.abandoned > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "spent": round(self.spent, 8),
            "started": self.started,
            "finished": self.finished,
            "not_started": self.not_started,
            "abandoned": self.abandoned,
            "stopped": self.stopped,
        }


def price_of(model: ChatModel) -> dict[str, float] | None:
    """The price a model's calls are charged at, through any wrappers (cache, provider budget)."""
    seen = 0
    while model is not None and seen < 8:
        price = getattr(model, "price", None)
        if price:
            return price
        model, seen = getattr(model, "inner", None), seen + 1
    return None


class CostMetered(ChatModel):
    """A model whose every call passes the cap's call check and adds its cost to the meter."""

    def __init__(self, inner: ChatModel, cap: CostCap) -> None:
        super().__init__(inner.model)
        self.provider = inner.provider
        self.inner, self.cap = inner, cap

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        bound = self.cap.call_bound(self.inner, messages, params)
        if not self.cap.reserve(bound):
            raise CostCapReached(self.spec)
        response = None
        try:
            response = await self.inner.generate(messages, params)
            return response
        finally:
            self.cap.settle(self.spec, bound, response)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def aclose(self) -> None:
        await self.inner.aclose()


def prepare(cap: CostCap, config: Any, records: list[dict[str, Any]]) -> None:
    """Fill the cap's estimates for one run (a RunConfig and its directory's records); refuses a run
    whose models have no price, since their spending could not be counted."""
    from playbench.agents import AgentSpec
    from playbench.core.errors import ConfigError
    from playbench.runner.sweep import _price, estimate

    for spec in config.agents.values():
        # the seat's model and the models it calls besides (a captioner)
        specs = [spec.model] + [
            v
            for k, v in spec.options.items()
            if (k == "captioner" or k.endswith("model")) and isinstance(v, str)
        ]
        for model in filter(None, specs):
            if not isinstance(spec, AgentSpec) or model.startswith("mock:"):  # mock calls cost nothing
                continue
            if _price(model, config) is None:
                raise ConfigError(
                    f"--max-cost: {model} has no price, so its spending cannot be counted "
                    "(give one with --prices FILE)"
                )
    scope = str(config.out)
    for e in estimate(config):
        if e.to_run and e.cost is not None:
            cap.bounds[(scope, e.task)] = e.cost / e.to_run
    for record in records:
        cost = (record.get("usage") or {}).get("cost")
        if record.get("error") is None and isinstance(cost, int | float):
            cap.finished_costs.setdefault((scope, record["task"]), []).append(float(cost))
