"""Token prices, so every run can report what it cost.

Prices are USD per million tokens, keyed by model name (`gpt-4o`) or by full spec
(`openai:gpt-4o`, which wins, so the same name served by a local server can be priced at 0).
A model without a price gets `cost=None`: an unknown cost is reported as unknown, never as free.

Batch APIs (`--batch`, `playbench.models.batch`): OpenAI's Batch API and Anthropic's Message Batches
both bill at half the standard price, input and output alike (`BATCH_DISCOUNT`). An entry may name
its batch prices explicitly (`{"input": x, "output": y, "batch_input": bx, "batch_output": by}`, both
or neither), which then win over the discount (`batch_price`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError

# Public list prices (USD per 1M input / output tokens, standard tier, no batch or prompt-cache
# discounts) as published by OpenAI, Anthropic and Google when this table was written (2025). Providers
# change them; override or extend with `--set prices=FILE` / `load_prices(path)` rather than
# trusting these for billing.
DEFAULT_PRICES: dict[str, dict[str, float]] = {
    # OpenAI
    "gpt-4o": {"input": 2.50, "output": 10.00},
    "gpt-4o-2024-05-13": {"input": 5.00, "output": 15.00},  # the first gpt-4o snapshot cost more
    "gpt-4o-mini": {"input": 0.15, "output": 0.60},
    "gpt-4.1": {"input": 2.00, "output": 8.00},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60},
    "gpt-4.1-nano": {"input": 0.10, "output": 0.40},
    "o3": {"input": 2.00, "output": 8.00},
    "o4-mini": {"input": 1.10, "output": 4.40},
    # Anthropic (dated snapshot names resolve to these through `_normalise`)
    "claude-3-haiku": {"input": 0.25, "output": 1.25},
    "claude-3-5-haiku": {"input": 0.80, "output": 4.00},
    "claude-haiku-4-5": {"input": 1.00, "output": 5.00},
    "claude-3-5-sonnet": {"input": 3.00, "output": 15.00},
    "claude-3-7-sonnet": {"input": 3.00, "output": 15.00},
    "claude-sonnet-4": {"input": 3.00, "output": 15.00},
    "claude-sonnet-4-5": {"input": 3.00, "output": 15.00},
    "claude-3-opus": {"input": 15.00, "output": 75.00},
    "claude-opus-4": {"input": 15.00, "output": 75.00},
    "claude-opus-4-1": {"input": 15.00, "output": 75.00},
    # Google, from https://ai.google.dev/gemini-api/docs/pricing (paid tier, text/image/video input,
    # prompts up to 200k tokens; the output price includes thinking tokens). Longer prompts cost
    # more on the Pro models (2.5 Pro 2.50/15.00, 3 Pro 4.00/18.00), which this flat table does not
    # model: a run with prompts past 200k tokens is underestimated.
    "gemini-2.5-pro": {"input": 1.25, "output": 10.00},
    "gemini-2.5-flash": {"input": 0.30, "output": 2.50},
    "gemini-3-pro-preview": {"input": 2.00, "output": 12.00},
}

# Batch APIs bill at this share of the standard price: OpenAI's Batch API and Anthropic's Message
# Batches both charge 50% of the standard input and output prices (their pricing pages, 2025).
BATCH_DISCOUNT = 0.5
# An entry's optional explicit batch prices (USD per million tokens), which win over the discount.
BATCH_KEYS = ("batch_input", "batch_output")

# Snapshot suffixes that do not change the price: -2024-08-06, -20241022, -latest.
_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def _normalise(model: str) -> str:
    return _SNAPSHOT.sub("", model)


def _parse_entry(name: object, value: object, source: str) -> dict[str, float]:
    if not isinstance(name, str) or not name:
        raise ConfigError(
            f"bad price entry in {source}: model names must be non-empty strings (got {name!r})"
        )
    keys = set(value) if isinstance(value, Mapping) else set()
    if not isinstance(value, Mapping) or keys not in ({"input", "output"}, {"input", "output", *BATCH_KEYS}):
        raise ConfigError(
            f'bad price for {name!r} in {source}: expected {{"input": x, "output": y}} '
            '(optionally with "batch_input" and "batch_output"; USD per million tokens), '
            f"got {value!r}"
        )
    out: dict[str, float] = {}
    for side in ("input", "output", *sorted(keys & set(BATCH_KEYS))):
        x = value[side]
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x) or x < 0:
            raise ConfigError(f"bad {side} price for {name!r} in {source}: {x!r} (need a number >= 0)")
        out[side] = float(x)
    return out


def parse_prices(table: Mapping[str, Any], source: str = "prices") -> dict[str, dict[str, float]]:
    """Validate a `{"model": {"input": x, "output": y}}` table (values may also be objects with
    `input`/`output` attributes) and return it as plain, JSON-serialisable dicts."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"bad price table in {source}: expected a JSON object, got {type(table).__name__}")
    out: dict[str, dict[str, float]] = {}
    for name, value in table.items():
        if not isinstance(value, Mapping) and hasattr(value, "input") and hasattr(value, "output"):
            value = {"input": value.input, "output": value.output}
        out[name] = _parse_entry(name, value, source)
    return out


def load_prices(path: str | PathLike[str] | None = None) -> dict[str, dict[str, float]]:
    """The built-in table, overridden and extended by the JSON file at `path` (if given)."""
    table = {k: dict(v) for k, v in DEFAULT_PRICES.items()}
    if path is None:
        return table
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"price file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read price file {str(p)!r}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"price file {str(p)!r} is not valid JSON: {exc}") from None
    table.update(parse_prices(raw, source=repr(str(p))))
    return table


def merge_prices(overrides: Mapping[str, Any] | None) -> dict[str, dict[str, float]]:
    """The built-in table with `overrides` (as given to `make_model(prices=...)`) on top."""
    table = {k: dict(v) for k, v in DEFAULT_PRICES.items()}
    if overrides:
        table.update(parse_prices(overrides))
    return table


def price_for(spec: str, model: str, table: Mapping[str, Mapping[str, float]]) -> dict[str, float] | None:
    """The price entry for a model: exact spec, then exact name, then the name without a snapshot suffix."""
    for key in (spec, model, _normalise(model)):
        if key in table:
            return dict(table[key])
    return None


def cost_of(
    price: Mapping[str, float] | None, input_tokens: int | None, output_tokens: int | None
) -> float | None:
    """USD for one call; None when the model has no price or the server reported no token counts."""
    if price is None or input_tokens is None or output_tokens is None:
        return None
    return (input_tokens * price["input"] + output_tokens * price["output"]) / 1_000_000


def batch_price(price: Mapping[str, float] | None) -> dict[str, float] | None:
    """The price a batch API's calls are charged at: the entry's explicit `batch_input` /
    `batch_output`, else BATCH_DISCOUNT of its standard prices; None for an unpriced model."""
    if price is None:
        return None
    return {
        "input": float(price.get("batch_input", price["input"] * BATCH_DISCOUNT)),
        "output": float(price.get("batch_output", price["output"] * BATCH_DISCOUNT)),
    }
