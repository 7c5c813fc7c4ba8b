"""Price table, user overrides, and cost on real calls."""

from __future__ import annotations

import json

import pytest

from playbench.core.errors import ConfigError
from playbench.models import GenerationParams, Message, load_prices, make_model
from playbench.models.pricing import DEFAULT_PRICES, cost_of, price_for
from playbench.testing import ScriptedServer


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_builtin_prices_cover_well_known_models():
    for name in ("gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "claude-3-5-haiku"):
        assert name in DEFAULT_PRICES


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", (2.5, 10.0)),
        ("gpt-4o-2024-08-06", (2.5, 10.0)),
        ("gpt-4o-2024-05-13", (5.0, 15.0)),  # exact entry beats the snapshot rule
        ("gpt-4o-mini-2024-07-18", (0.15, 0.6)),
        ("claude-3-5-sonnet-20241022", (3.0, 15.0)),
        ("claude-3-5-haiku-latest", (0.8, 4.0)),
        ("llama3.2:3b", None),
    ],
)
def test_lookup(model, expected):
    price = price_for(f"x:{model}", model, DEFAULT_PRICES)
    assert (None if price is None else (price["input"], price["output"])) == expected


def test_cost_formula_and_unknowns():
    assert cost_of({"input": 2.0, "output": 10.0}, 1_000_000, 500_000) == pytest.approx(7.0)
    assert cost_of(None, 10, 10) is None
    assert cost_of({"input": 1.0, "output": 1.0}, None, 10) is None


def test_load_prices_overrides_and_extends(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps({"gpt-4o": {"input": 1, "output": 2}, "openai:qwen": {"input": 0, "output": 0}})
    )
    table = load_prices(path)
    assert table["gpt-4o"] == {"input": 1.0, "output": 2.0}
    assert table["openai:qwen"] == {"input": 0.0, "output": 0.0}
    assert table["gpt-4o-mini"] == DEFAULT_PRICES["gpt-4o-mini"]
    assert load_prices() == DEFAULT_PRICES
    json.dumps(table)  # goes into config.json as is


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "does not exist"),
        ("{nope", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"m": {"input": 1}}', "expected"),
        ('{"m": {"input": "1", "output": 2}}', "input price"),
        ('{"m": {"input": 1, "output": -2}}', "output price"),
    ],
)
def test_load_prices_errors_name_the_file(tmp_path, content, fragment):
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError) as err:
        load_prices(path)
    assert fragment in str(err.value) and "p.json" in str(err.value)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_cost_recorded_from_server_usage(provider):
    prices = {"scripted": {"input": 3.0, "output": 7.0}}
    with ScriptedServer("one two three four") as srv:
        url = srv.base_url if provider == "openai" else srv.anthropic_base_url
        model = make_model(f"{provider}:scripted", base_url=url, prices=prices)
        r = await model.generate([Message.text("user", "five words are in here")], GenerationParams())
        await model.aclose()
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.calls) == (5, 4, 1)
    assert r.usage.cost == pytest.approx((5 * 3.0 + 4 * 7.0) / 1e6)


async def test_spec_key_beats_model_key_and_unknown_model_has_no_cost():
    prices = {"gpt-4o": {"input": 100, "output": 100}, "openai:gpt-4o": {"input": 0, "output": 0}}
    with ScriptedServer("x", cycle=True) as srv:
        priced = make_model("openai:gpt-4o", base_url=srv.base_url, prices=prices)
        assert (await priced.generate([Message.text("user", "hi")], GenerationParams())).usage.cost == 0.0
        unknown = make_model("openai:my-finetune", base_url=srv.base_url)
        assert (await unknown.generate([Message.text("user", "hi")], GenerationParams())).usage.cost is None
        await priced.aclose()
        await unknown.aclose()
