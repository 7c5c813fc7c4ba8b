"""ResponseCache: keys, hits without HTTP, persistence across instances and processes."""

from __future__ import annotations

import asyncio
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from playbench.core.types import ImagePart, TextPart, Usage
from playbench.models import (
    GenerationParams,
    Message,
    ModelError,
    ModelResponse,
    ResponseCache,
    cache_key,
    make_model,
)
from playbench.testing import ScriptedServer

PNG = b"\x89PNG\r\n\x1a\nimage-one"
PARAMS = GenerationParams(temperature=0.0)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def msgs(text: str = "hello", png: bytes = PNG, label: str = "") -> list[Message]:
    return [Message.text("system", "rules"), Message("user", [TextPart(text), ImagePart(png, label=label)])]


def test_key_depends_on_spec_messages_images_and_params():
    base = cache_key("openai:m", msgs(), PARAMS)
    assert base == cache_key("openai:m", msgs(), GenerationParams(temperature=0.0))
    assert len(base) == 64
    assert base != cache_key("anthropic:m", msgs(), PARAMS)
    assert base != cache_key("openai:m", msgs(text="hello!"), PARAMS)
    assert base != cache_key("openai:m", msgs(png=PNG + b"x"), PARAMS)
    assert base != cache_key("openai:m", msgs(), GenerationParams(temperature=0.0, seed=1))
    assert base != cache_key("openai:m", msgs()[1:], PARAMS)
    # the label never reaches the model, so it does not split the cache
    assert base == cache_key("openai:m", msgs(label="board"), PARAMS)


def test_get_put_and_hit_shape(tmp_path):
    cache = ResponseCache(tmp_path / "sub" / "cache.sqlite")  # creates the folder
    assert cache.get("k") is None
    cache.put("k", "openai:m", ModelResponse("answer", Usage(10, 5, calls=1, cost=0.25)))
    hit = cache.get("k")
    assert hit == ModelResponse("answer", Usage(0, 0, calls=0, cost=0.0, cached_calls=1), cached=True)
    assert cache.get_original_usage("k") == Usage(10, 5, calls=1, cost=0.25)
    assert len(cache) == 1
    copy = pickle.loads(pickle.dumps(cache))
    assert copy.get("k").text == "answer"
    cache.close()
    copy.close()


def test_unknown_cost_round_trips(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", "openai:m", ModelResponse("a", Usage(1, 1, calls=1, cost=None)))
    assert cache.get_original_usage("k").cost is None
    assert cache.get("k").usage.cost == 0.0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_hit_avoids_http_and_survives_a_new_instance(tmp_path, provider):
    path = tmp_path / "cache.sqlite"
    with ScriptedServer(["first answer"]) as srv:
        url = srv.base_url if provider == "openai" else srv.anthropic_base_url
        model = make_model(f"{provider}:scripted", base_url=url, cache=ResponseCache(path))
        miss = await model.generate(msgs(), PARAMS)
        hit = await model.generate(msgs(), PARAMS)
        assert len(srv.requests) == 1
        assert miss.cached is False and miss.usage.calls == 1 and miss.usage.input_tokens > 0
        assert hit.text == "first answer" and hit.cached is True
        assert hit.usage == Usage(0, 0, calls=0, cost=0.0, cached_calls=1)

        again = make_model(f"{provider}:scripted", base_url=url, cache=ResponseCache(path))
        assert (await again.generate(msgs(), PARAMS)).text == "first answer"
        assert len(srv.requests) == 1
        await model.aclose()
        await again.aclose()


async def test_hit_survives_a_new_process(tmp_path):
    path = tmp_path / "cache.sqlite"
    with ScriptedServer(["stored"]) as srv:
        model = make_model("openai:m", base_url=srv.base_url, cache=ResponseCache(path))
        await model.generate(msgs(), PARAMS)
        await model.aclose()
        script = textwrap.dedent(
            f"""
            import asyncio
            from playbench.core.types import ImagePart, TextPart
            from playbench.models import GenerationParams, Message, ResponseCache, make_model
            msgs = [Message.text("system", "rules"), Message("user", [TextPart("hello"), ImagePart({PNG!r})])]
            model = make_model("openai:m", base_url={srv.base_url!r}, cache=ResponseCache({str(path)!r}))
            r = asyncio.run(model.generate(msgs, GenerationParams(temperature=0.0)))
            print(r.text, r.cached, r.usage.cached_calls)
            """
        )
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=os.environ
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["stored", "True", "1"]
        assert len(srv.requests) == 1


def test_several_processes_write_one_cache(tmp_path):
    path = tmp_path / "shared.sqlite"
    ResponseCache(path).close()
    script = textwrap.dedent(
        """
        import sys
        from playbench.core.types import Usage
        from playbench.models import ModelResponse, ResponseCache
        cache = ResponseCache(sys.argv[1])
        for i in range(100):
            cache.put(f"{sys.argv[2]}-{i}", "openai:m", ModelResponse(str(i), Usage(1, 1, calls=1, cost=0.0)))
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), f"w{n}"]) for n in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    cache = ResponseCache(path)
    assert len(cache) == 400
    assert cache.get("w3-99").text == "99"


async def test_concurrent_asyncio_use(tmp_path):
    with ScriptedServer(lambda body: "echo " + body["messages"][-1]["content"]) as srv:
        model = make_model("openai:m", base_url=srv.base_url, cache=ResponseCache(tmp_path / "c.sqlite"))
        prompts = [[Message.text("user", f"p{i}")] for i in range(20)]
        first = await asyncio.gather(*(model.generate(p, PARAMS) for p in prompts))
        second = await asyncio.gather(*(model.generate(p, PARAMS) for p in prompts))
        await model.aclose()
    assert [r.text for r in first] == [r.text for r in second] == [f"echo p{i}" for i in range(20)]
    assert all(r.cached for r in second) and not any(r.cached for r in first)
    assert len(srv.requests) == 20


async def test_failures_are_not_cached(tmp_path):
    with ScriptedServer(["good"], failures=[400]) as srv:
        model = make_model("openai:m", base_url=srv.base_url, cache=ResponseCache(tmp_path / "c.sqlite"))
        with pytest.raises(ModelError):
            await model.generate(msgs(), PARAMS)
        assert (await model.generate(msgs(), PARAMS)).text == "good"
        await model.aclose()
    assert len(srv.requests) == 2


async def test_no_answer_is_cached_and_finish_reasons_and_image_settings_count(tmp_path):
    from playbench.core.types import ImagePart, TextPart
    from playbench.models import GenerationParams, Message, ResponseCache, cache_key
    from playbench.models.cache import CachedModel
    from playbench.models.mock import MockModel

    replies = tmp_path / "r.jsonl"
    replies.write_text(
        '{"reply": "", "finish_reason": "length"}\n{"reply": "half an ans", "finish_reason": "length"}\n'
    )
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = CachedModel(MockModel(str(replies)), cache)
    messages = [Message.text("user", "x")]
    first = await model.generate(messages, GenerationParams())
    assert first.text == "" and len(cache) == 0  # an empty reply cut by its budget is never cached
    second = await model.generate(messages, GenerationParams())
    third = await model.generate(messages, GenerationParams())
    assert second.text == third.text == "half an ans" and third.cached and third.finish_reason == "length"
    png = ImagePart(b"\x89PNG fake")
    as_jpeg = ImagePart(b"\x89PNG fake", send_as="jpeg", detail="high")
    keys = {
        cache_key("m", [Message("user", [TextPart("x"), image])], GenerationParams())
        for image in (png, as_jpeg)
    }
    assert len(keys) == 2
