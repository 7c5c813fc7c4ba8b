"""Model backends behind one chat interface; `make_model("provider:model")` builds one.

Providers are looked up by name in `playbench.models.registry`: `openai`, `anthropic`, `mock` and any
an installed package declares in the `playbench.providers` entry-point group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playbench.core.errors import ConfigError
from playbench.models.base import (
    ChatModel,
    GenerationParams,
    Message,
    ModelError,
    ModelResponse,
    call_purpose,
)
from playbench.models.cache import CachedModel, ResponseCache, cache_key
from playbench.models.pricing import DEFAULT_PRICES, load_prices
from playbench.models.registry import (
    ProviderEntry,
    get_provider,
    provider_entries,
    provider_names,
    register_provider,
)
from playbench.models.remote import RemoteChatModel

__all__ = [
    "DEFAULT_PRICES",
    "CachedModel",
    "ChatModel",
    "GenerationParams",
    "Message",
    "ModelError",
    "ModelResponse",
    "ProviderEntry",
    "RemoteChatModel",
    "ResponseCache",
    "cache_key",
    "call_purpose",
    "get_provider",
    "load_prices",
    "make_model",
    "parse_spec",
    "provider_entries",
    "provider_names",
    "register_provider",
]


def __getattr__(name: str) -> Any:
    # `PROVIDERS` was a fixed list; it is now computed, since installed packages can add providers.
    if name == "PROVIDERS":
        return provider_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_spec(spec: str) -> tuple[str, str]:
    """`provider:model` -> (provider, model). Only the first colon splits, because model names
    may contain colons themselves (Ollama's `llama3.2:3b`)."""
    entry, model = _resolve(spec)
    return entry.name, model


def _resolve(spec: str) -> tuple[ProviderEntry, str]:
    if not isinstance(spec, str) or ":" not in spec:
        accepted = ", ".join(provider_names())
        raise ConfigError(
            f"bad model spec {spec!r}: expected PROVIDER:MODEL, e.g. openai:gpt-4o (providers: {accepted})"
        )
    provider, model = (s.strip() for s in spec.split(":", 1))
    entry = get_provider(provider, spec)  # unknown: a ConfigError suggesting the closest names
    if not model:
        raise ConfigError(f"bad model spec {spec!r}: the model name after {provider + ':'!r} is empty")
    return entry, model


def split_server(spec: str) -> tuple[str, str | None]:
    """`openai:qwen2-vl@http://gpu1:8000/v1` -> (`openai:qwen2-vl`, the URL): a server per model,
    so two locally served models (a captioner and its reasoner, say) can be paired in one run."""
    if isinstance(spec, str):
        for marker in ("@http://", "@https://"):
            head, found, tail = spec.rpartition(marker)
            if found:
                return head, marker[1:] + tail
    return spec, None


def make_model(
    spec: str,
    *,
    base_url: str | None = None,
    concurrency: int = 8,
    max_retries: int = 5,
    retry_base_delay: float = 1.0,
    timeout: float = 120.0,
    prices: Mapping[str, Any] | None = None,
    cache: ResponseCache | None = None,
    transport: str | None = None,
) -> ChatModel:
    """The model behind `spec`, with retries, a concurrency cap, pricing and (optionally) a cache.

    Raises ConfigError for a malformed spec, an unknown provider, a bad setting or a missing key
    (or, for `mock:FILE`, a missing or empty reply file).
    `prices` overrides and extends the built-in price table (see `load_prices`).
    `transport` ("lean" or "sdk"; None: $PLAYBENCH_TRANSPORT, else lean where the provider has it)
    is passed to the provider only when given, so a provider that predates the setting still works.
    """
    spec, own_url = split_server(spec)
    base_url = own_url or base_url
    entry, model = _resolve(spec)
    # Loaded only now, so that `import playbench.models` does not pay for every provider's SDK.
    extra: dict[str, Any] = {} if transport is None else {"transport": transport}
    chat = entry.load()(
        model,
        base_url=base_url,
        concurrency=concurrency,
        max_retries=max_retries,
        retry_base_delay=retry_base_delay,
        timeout=timeout,
        prices=prices,
        **extra,
    )
    if not isinstance(chat, ChatModel):
        raise ConfigError(
            f"model provider '{entry.name}' ({entry.entry_point}) made a {type(chat).__name__}, not a ChatModel"
        )
    if cache is not None:
        chat = CachedModel(chat, cache)
    return chat
