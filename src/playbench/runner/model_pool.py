"""Model settings as plain data, and the per-process pool that shares one client per model spec."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from typing import Any

from playbench.models.base import ChatModel, GenerationParams, Message, ModelResponse


@dataclass
class ModelSettings:
    base_url: str | None = None
    concurrency: int = 8
    max_retries: int = 5
    retry_base_delay: float = 1.0
    timeout: float = 120.0
    prices: dict[str, Any] = field(default_factory=dict)
    cache_path: str | None = None
    # "lean" / "sdk" for OpenAI-compatible providers; None: lean for a --base-url server, the SDK for the
    # provider's own API (models/remote.py)
    transport: str | None = None
    batch_dir: str | None = None  # --batch: the run directory whose batches.jsonl records the batches

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _ProviderGated(ChatModel):
    """A model whose calls also take a slot of a budget shared by every model of its provider."""

    def __init__(self, inner: ChatModel, gates: dict[str, asyncio.Semaphore], size: int) -> None:
        super().__init__(inner.model)
        self.provider = inner.provider
        self.inner, self.gates, self.size = inner, gates, size

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        gate = self.gates.get(self.provider)
        if gate is None:  # created lazily so it belongs to the running event loop
            gate = self.gates[self.provider] = asyncio.Semaphore(self.size)
        async with gate:
            return await self.inner.generate(messages, params)

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "provider_budget": self.size}

    async def aclose(self) -> None:
        await self.inner.aclose()


class ModelPool:
    """One ChatModel per spec per process, so the per-model concurrency cap holds across episodes.

    With `share_provider_budget`, every model of one provider also shares one budget of
    `settings.concurrency` requests in flight (a sweep over several models of one API or server).
    """

    def __init__(
        self,
        settings: ModelSettings | None = None,
        share_provider_budget: bool = False,
        cost_cap: Any = None,
    ) -> None:
        self.settings = settings or ModelSettings()
        self.cost_cap = cost_cap  # a runner.cost_cap.CostCap: every call is metered and checked
        self._models: dict[str, ChatModel] = {}
        self._cache = None
        self.share_provider_budget = share_provider_budget
        self._gates: dict[str, asyncio.Semaphore] = {}
        if self.settings.batch_dir:  # --batch: every model's calls go through its provider's batch API
            from playbench.models.batch import wrap_pool

            wrap_pool(self, self.settings.batch_dir)

    def get(self, spec: str) -> ChatModel:
        if spec not in self._models:
            from playbench.models import ResponseCache, make_model

            s = self.settings
            if s.cache_path and self._cache is None:
                self._cache = ResponseCache(s.cache_path)
            self._models[spec] = make_model(
                spec,
                base_url=s.base_url,
                concurrency=s.concurrency,
                max_retries=s.max_retries,
                retry_base_delay=s.retry_base_delay,
                timeout=s.timeout,
                prices=s.prices or None,
                cache=self._cache,
                transport=s.transport,
            )
            if self.cost_cap is not None:
                from playbench.runner.cost_cap import CostMetered

                self._models[spec] = CostMetered(self._models[spec], self.cost_cap)
            if self.share_provider_budget:
                self._models[spec] = _ProviderGated(self._models[spec], self._gates, s.concurrency)
        return self._models[spec]

    def describe(self) -> dict[str, Any]:
        return {spec: model.describe() for spec, model in self._models.items()}

    async def aclose(self) -> None:
        for model in self._models.values():
            await model.aclose()
        self._models.clear()
