"""Model providers by name: the built-in ones and those that installed packages declare.

A provider is a factory called as `factory(model, base_url=..., concurrency=..., max_retries=...,
retry_base_delay=..., timeout=..., prices=...)` that returns a `ChatModel`; `model` is what follows
`provider:` in the spec. A factory takes every one of these keywords (`**settings` for those it has
no use for). A package adds one by declaring an entry point in the `playbench.providers` group:

    [project.entry-points."playbench.providers"]
    gemini = "my_package.gemini:GeminiModel"

after which `--model gemini:NAME` works. Built-in names cannot be taken over by an entry point.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.loading import load_object

ENTRY_POINT_GROUP = "playbench.providers"

# The name is what precedes the first colon of a spec, so it cannot hold one.
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")

ProviderFactory = Callable[..., Any]


@dataclass(frozen=True)
class ProviderEntry:
    name: str
    entry_point: str  # "package.module:factory"
    description: str = ""
    usage: str = ""  # how a spec for it is written, e.g. "mock:FILE[?delay=SECONDS]"
    origin: str = "built-in"  # or the distribution whose entry point declared it
    key_env: str = ""  # the environment variable its API key is read from ("" for none, or unknown)

    @property
    def spec_form(self) -> str:
        return self.usage or f"{self.name}:MODEL"

    def load(self) -> ProviderFactory:
        factory = load_object(self.entry_point, f"model provider '{self.name}'")
        if not callable(factory):
            raise ConfigError(
                f"model provider '{self.name}': entry point '{self.entry_point}' is not a class or function"
            )
        return factory


BUILTIN_PROVIDERS: tuple[ProviderEntry, ...] = (
    ProviderEntry(
        "openai",
        "playbench.models.openai_provider:OpenAIModel",
        "OpenAI chat completions, or any compatible server (--base-url: vLLM, SGLang, Ollama...)",
        key_env="OPENAI_API_KEY",
    ),
    ProviderEntry(
        "anthropic",
        "playbench.models.anthropic_provider:AnthropicModel",
        "Anthropic messages API, or a compatible server (--base-url)",
        key_env="ANTHROPIC_API_KEY",
    ),
    ProviderEntry(
        "mock",
        "playbench.models.mock:MockModel",
        "replies read from a file, in order and cycling (one per line, or JSONL); no network, cost 0",
        "mock:FILE[?delay=SECONDS&jitter=FRACTION]",
    ),
    ProviderEntry(
        "google",
        "playbench.models.google_provider:GoogleModel",
        "Google Gemini API (generateContent) through google-genai; GOOGLE_API_KEY is read when GEMINI_API_KEY is unset",
        key_env="GEMINI_API_KEY",
    ),
    ProviderEntry(
        "openrouter",
        "playbench.models.openai_provider:OpenRouterModel",
        "OpenRouter's OpenAI-compatible API: any vendor's model as VENDOR/MODEL",
        "openrouter:VENDOR/MODEL",
        key_env="OPENROUTER_API_KEY",
    ),
)

# Providers registered in code, for a plugin that is not installed as a package (and for tests).
_REGISTERED: dict[str, ProviderEntry] = {}


def register_provider(
    name: str,
    entry_point: str,
    description: str = "",
    usage: str = "",
    *,
    replace: bool = False,
    key_env: str = "",
) -> ProviderEntry:
    """Register a provider in this process; `entry_point` is "package.module:factory", `key_env` the
    variable its key is read from (for listings; the factory reads it itself)."""
    if not PROVIDER_NAME.match(name):
        raise ValueError(f"provider name '{name}' must be lowercase letters, digits, '_' or '-'")
    if any(b.name == name for b in BUILTIN_PROVIDERS):
        raise ValueError(f"provider '{name}' is built in")
    if name in _REGISTERED and not replace:
        raise ValueError(f"provider '{name}' is already registered")
    entry = ProviderEntry(name, entry_point, description, usage, origin="registered", key_env=key_env)
    _REGISTERED[name] = entry
    return entry


def unregister_provider(name: str) -> None:
    _REGISTERED.pop(name, None)


def _installed() -> list[ProviderEntry]:
    out = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        origin = ep.dist.name if ep.dist is not None else "an installed package"
        if not PROVIDER_NAME.match(ep.name):
            warnings.warn(
                f"ignoring model provider '{ep.name}' from {origin}: a provider name is lowercase "
                "letters, digits, '_' or '-'",
                stacklevel=3,
            )
            continue
        # module:attr without any "[extras]" part; load_object reports a value of the wrong form
        target = f"{ep.module}:{ep.attr}" if ep.attr else ep.value
        out.append(ProviderEntry(ep.name, target, origin=origin))
    return sorted(out, key=lambda e: e.name)


def provider_entries() -> dict[str, ProviderEntry]:
    """Every provider by name: the built-ins first, then registered ones, then installed ones.

    Entry points are read on every call (it is cheap next to building a model), so a package
    installed while the process runs is seen and a test can fake one.
    """
    out = {e.name: e for e in BUILTIN_PROVIDERS}
    for entry in [*_REGISTERED.values(), *_installed()]:
        if entry.name in out:
            if entry.origin != out[entry.name].origin:
                warnings.warn(
                    f"ignoring model provider '{entry.name}' from {entry.origin}: the name is already "
                    f"taken by {out[entry.name].origin}",
                    stacklevel=2,
                )
            continue
        out[entry.name] = entry
    return out


def provider_names() -> list[str]:
    return list(provider_entries())


def get_provider(name: str, spec: str | None = None) -> ProviderEntry:
    """The provider called `name`; a ConfigError suggesting the closest names if there is none."""
    # A built-in or registered name is answered without reading the installed packages' metadata,
    # a one-off cost (tens of ms) that a run on a built-in provider has no reason to pay.
    for entry in BUILTIN_PROVIDERS:
        if entry.name == name:
            return entry
    if name in _REGISTERED:
        return _REGISTERED[name]
    entries = provider_entries()
    if name in entries:
        return entries[name]
    known = list(entries)
    close = difflib.get_close_matches(name.lower(), known, n=2, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    where = f" in spec {spec!r}" if spec is not None else ""
    raise ConfigError(f"unknown model provider {name!r}{where}{hint} (accepted: {', '.join(known)})")
