"""make_model: specs, keys, base URLs, settings, describe()."""

from __future__ import annotations

import json

import pytest

from playbench.core.errors import ConfigError
from playbench.models import PROVIDERS, ResponseCache, make_model, provider_names
from playbench.models.anthropic_provider import AnthropicModel
from playbench.models.cache import CachedModel
from playbench.models.openai_provider import OpenAIModel
from playbench.models.remote import PLACEHOLDER_KEY

ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN")
SECRET = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def test_providers_list():
    # the built-ins first; PROVIDERS stays importable and now includes installed providers too
    assert provider_names()[:3] == ["openai", "anthropic", "mock"]
    assert provider_names() == PROVIDERS


@pytest.mark.parametrize("spec", ["gpt-4o", "", "openai"])
def test_spec_without_provider(spec):
    with pytest.raises(ConfigError) as err:
        make_model(spec, base_url="http://127.0.0.1:1/v1")
    message = str(err.value)
    assert repr(spec) in message and "PROVIDER:MODEL" in message and "openai, anthropic" in message


def test_unknown_provider_names_it_and_the_accepted_ones():
    with pytest.raises(ConfigError) as err:
        make_model("gemini:pro", base_url="http://127.0.0.1:1/v1")
    assert "'gemini'" in str(err.value) and "accepted: openai, anthropic" in str(err.value)


def test_empty_model_name():
    with pytest.raises(ConfigError, match="empty"):
        make_model("openai:  ", base_url="http://127.0.0.1:1/v1")


def test_model_names_may_contain_colons():
    model = make_model("openai:llama3.2:3b", base_url="http://127.0.0.1:1/v1")
    assert model.model == "llama3.2:3b" and model.spec == "openai:llama3.2:3b"


@pytest.mark.parametrize(
    ("spec", "env", "server"),
    [
        ("openai:gpt-4o", "OPENAI_API_KEY", "OpenAI-compatible"),
        ("anthropic:claude-x", "ANTHROPIC_API_KEY", "Anthropic-compatible"),
    ],
)
def test_missing_key_without_base_url_is_a_config_error(spec, env, server):
    with pytest.raises(ConfigError) as err:
        make_model(spec)
    assert str(err.value) == (f"{env} is not set; export it, or point --base-url at a local {server} server")


def test_empty_key_counts_as_missing(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        make_model("openai:gpt-4o")


def test_key_without_base_url_uses_the_sdk_default(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    for spec in ("openai:gpt-4o", "anthropic:claude-3-5-haiku-latest"):
        model = make_model(spec)
        assert "base_url" not in model.describe()
        assert model.base_url is None


def test_custom_base_url_without_key_uses_a_placeholder():
    model = make_model("openai:qwen", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, OpenAIModel)
    assert model._api_key == PLACEHOLDER_KEY
    model = make_model("anthropic:claude-x", base_url="http://127.0.0.1:9")
    assert isinstance(model, AnthropicModel)
    assert model._api_key == PLACEHOLDER_KEY


def test_base_url_from_env_and_argument_precedence(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:7000/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:7001")
    assert make_model("openai:m").describe()["base_url"] == "http://127.0.0.1:7000/v1"
    assert make_model("anthropic:m").describe()["base_url"] == "http://127.0.0.1:7001"
    assert make_model("openai:m", base_url="http://127.0.0.1:8000/v1").describe()["base_url"] == (
        "http://127.0.0.1:8000/v1"
    )


@pytest.mark.parametrize("url", ["localhost:8000", "ftp://host/v1", "http://"])
def test_bad_base_url(url):
    with pytest.raises(ConfigError, match="bad base URL"):
        make_model("openai:m", base_url=url)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"max_retries": -1}, "max_retries"),
        ({"retry_base_delay": -1.0}, "delays"),
        ({"timeout": 0}, "timeout"),
        ({"prices": {"m": {"input": -1, "output": 1}}}, "price"),
    ],
)
def test_bad_settings(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        make_model("openai:m", base_url="http://127.0.0.1:9/v1", **kwargs)


def test_describe_has_settings_and_never_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    model = make_model(
        "openai:gpt-4o", base_url="http://127.0.0.1:9/v1", concurrency=3, max_retries=2, retry_base_delay=0.5
    )
    info = model.describe()
    assert info["spec"] == "openai:gpt-4o"
    assert info["base_url"] == "http://127.0.0.1:9/v1"
    assert (info["concurrency"], info["max_retries"], info["retry_base_delay"]) == (3, 2, 0.5)
    assert info["price"] == {"input": 2.5, "output": 10.0}
    text = json.dumps(info) + repr(model)
    assert SECRET not in text


def test_describe_strips_credentials_from_base_url():
    model = make_model("openai:m", base_url="http://user:hunter2@127.0.0.1:9/v1")
    assert model.describe()["base_url"] == "http://127.0.0.1:9/v1"
    assert "hunter2" not in repr(model)


def test_cache_is_wired_for_every_provider(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    for spec, url in (("openai:m", "http://127.0.0.1:9/v1"), ("anthropic:m", "http://127.0.0.1:9")):
        model = make_model(spec, base_url=url, cache=cache)
        assert isinstance(model, CachedModel)
        assert model.spec == spec and model.provider == spec.split(":")[0]
        assert model.describe()["cache"] == str(tmp_path / "c.sqlite")
        assert model.describe()["base_url"] == url


async def test_empty_base_url_variable_means_the_sdk_default(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "")
    for spec, default in (
        ("openai:gpt-4o", "https://api.openai.com/v1"),
        ("anthropic:claude-x", "https://api.anthropic.com"),
    ):
        model = make_model(spec)
        assert "base_url" not in model.describe()
        client = model._make_client()  # no request is made
        assert str(client.base_url).rstrip("/") == default
        await client.close()
