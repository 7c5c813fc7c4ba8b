"""Model settings as plain data, and the per-process pool that shares one client per model spec."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from playbench.models.base import ChatModel


@dataclass
class ModelSettings:
    base_url: str | None = None
    concurrency: int = 8
    max_retries: int = 5
    retry_base_delay: float = 1.0
    timeout: float = 120.0
    prices: dict[str, Any] = field(default_factory=dict)
    cache_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ModelPool:
    """One ChatModel per spec per process, so the per-model concurrency cap holds across episodes."""

    def __init__(self, settings: ModelSettings | None = None) -> None:
        self.settings = settings or ModelSettings()
        self._models: dict[str, ChatModel] = {}
        self._cache = None

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
            )
        return self._models[spec]

    def describe(self) -> dict[str, Any]:
        return {spec: model.describe() for spec, model in self._models.items()}

    async def aclose(self) -> None:
        for model in self._models.values():
            await model.aclose()
        self._models.clear()
