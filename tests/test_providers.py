"""The provider registry (built-ins, entry points, suggestions) and the in-process mock provider."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import textwrap
import time

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.types import ImagePart, TextPart
from playbench.models import (
    GenerationParams,
    Message,
    ModelError,
    get_provider,
    make_model,
    parse_spec,
    provider_entries,
    provider_names,
    register_provider,
)
from playbench.models.anthropic_provider import AnthropicModel
from playbench.models.mock import MockModel, estimate_tokens, load_replies
from playbench.models.openai_provider import OpenAIModel
from playbench.models.registry import ENTRY_POINT_GROUP, unregister_provider

PARAMS = GenerationParams()


def ask(model, text: str = "hello") -> object:
    return asyncio.run(model.generate([Message.text("user", text)], PARAMS))


# --- registry ---------------------------------------------------------------------------------


def test_builtin_providers_come_first_and_load_their_classes(monkeypatch):
    assert provider_names()[:3] == ["openai", "anthropic", "mock"]
    assert get_provider("openai").load() is OpenAIModel
    assert get_provider("anthropic").load() is AnthropicModel
    assert get_provider("mock").load() is MockModel
    entries = provider_entries()
    assert all(entries[n].origin == "built-in" for n in ("openai", "anthropic", "mock"))

    # a built-in name is resolved without reading every installed package's metadata
    def no_scan(**kwargs):
        raise AssertionError("entry points read")

    monkeypatch.setattr("playbench.models.registry.entry_points", no_scan)
    assert parse_spec("openai:gpt-4o") == ("openai", "gpt-4o") and get_provider("mock").name == "mock"
    assert entries["mock"].spec_form.startswith("mock:FILE") and entries["openai"].spec_form == "openai:MODEL"


@pytest.mark.parametrize(
    ("spec", "close"), [("opnai:gpt-4o", "'openai'"), ("antropic:claude", "'anthropic'")]
)
def test_unknown_provider_suggests_the_closest_name(spec, close):
    with pytest.raises(ConfigError) as err:
        make_model(spec, base_url="http://127.0.0.1:1/v1")
    message = str(err.value)
    assert f"did you mean {close}?" in message
    assert repr(spec.split(":")[0]) in message and "accepted: openai, anthropic, mock" in message
    assert len(message.splitlines()) == 1


def test_unknown_provider_without_a_close_name_lists_the_accepted_ones():
    with pytest.raises(ConfigError) as err:
        parse_spec("gemini:pro")
    assert "did you mean" not in str(err.value) and "accepted: openai, anthropic, mock" in str(err.value)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """An installed distribution `pbecho` declaring providers in the entry-point group."""

    def install(entry_points: str, module: str) -> None:
        dist = tmp_path / "pbecho-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pbecho\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{entry_points}\n")
        (tmp_path / "pbecho.py").write_text(textwrap.dedent(module))
        monkeypatch.syspath_prepend(str(tmp_path))

    yield install
    sys.modules.pop("pbecho", None)


ECHO = """
    from playbench.core.types import Usage
    from playbench.models.base import ChatModel, ModelResponse

    class EchoModel(ChatModel):
        provider = "echo"

        def __init__(self, model, **settings):
            super().__init__(model)
            self.settings = settings

        async def generate(self, messages, params):
            return ModelResponse(self.model + ":" + messages[-1].parts[0].text, Usage(calls=1))

    def not_a_model(model, **settings):
        return "just a string"
    """


def test_entry_point_provider_is_found_and_built_with_the_settings(plugin):
    plugin("echo = pbecho:EchoModel", ECHO)
    assert "echo" in provider_names() and provider_names()[:3] == ["openai", "anthropic", "mock"]
    entry = get_provider("echo")
    assert entry.origin == "pbecho" and entry.entry_point == "pbecho:EchoModel"
    model = make_model("echo:m1", concurrency=3, timeout=9.0)
    assert type(model).__name__ == "EchoModel" and model.spec == "echo:m1"
    assert model.settings["concurrency"] == 3 and model.settings["timeout"] == 9.0
    assert ask(model, "hi").text == "m1:hi"


def test_entry_point_provider_errors_name_the_provider(plugin):
    plugin("broken = pbecho_missing:Model\nstring = pbecho:not_a_model", ECHO)
    with pytest.raises(ConfigError, match="model provider 'broken'.*pbecho_missing"):
        make_model("broken:x")
    with pytest.raises(ConfigError, match="model provider 'string'.*not a ChatModel"):
        make_model("string:x")
    # a near miss of an installed name is suggested like a built-in one
    with pytest.raises(ConfigError, match="did you mean 'broken'"):
        make_model("brokn:x")


def test_entry_point_cannot_take_a_builtin_name(plugin):
    plugin("openai = pbecho:EchoModel", ECHO)
    with pytest.warns(UserWarning, match="ignoring model provider 'openai' from pbecho"):
        entries = provider_entries()
    assert entries["openai"].origin == "built-in" and get_provider("openai").load() is OpenAIModel


def test_register_provider_in_code(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "pbecho.py").write_text(textwrap.dedent(ECHO))
    try:
        register_provider("echo2", "pbecho:EchoModel", description="echoes")
        assert get_provider("echo2").origin == "registered"
        assert ask(make_model("echo2:x"), "y").text == "x:y"
        with pytest.raises(ValueError, match="already registered"):
            register_provider("echo2", "pbecho:EchoModel")
        with pytest.raises(ValueError, match="built in"):
            register_provider("mock", "pbecho:EchoModel")
        with pytest.raises(ValueError):
            register_provider("Has:Colon", "pbecho:EchoModel")
    finally:
        unregister_provider("echo2")
        sys.modules.pop("pbecho", None)
    assert "echo2" not in provider_names()


# --- the mock provider ------------------------------------------------------------------------


def test_text_file_replies_are_served_in_order_and_cycle(tmp_path):
    path = tmp_path / "replies.txt"
    path.write_text("first\n\nsecond line\nthird\n")  # the blank line is not a reply
    model = make_model(f"mock:{path}")
    assert isinstance(model, MockModel) and model.spec == f"mock:{path}"
    got = [ask(model).text for _ in range(7)]
    assert got == ["first", "second line", "third", "first", "second line", "third", "first"]
    assert model.calls == 7


def test_jsonl_replies_take_strings_and_objects_with_token_counts(tmp_path):
    path = tmp_path / "replies.jsonl"
    lines = [
        json.dumps("I think.\naction: up"),
        "",
        json.dumps({"reply": "action: left", "input_tokens": 120, "output_tokens": 7}),
        json.dumps({"reply": "", "output_tokens": 0}),
    ]
    path.write_text("\n".join(lines) + "\n")
    model = make_model(f"mock:{path}")
    first, second, third = (ask(model, "x" * 40) for _ in range(3))
    assert first.text == "I think.\naction: up"
    # estimated: one token per four characters, rounded up
    assert first.usage.input_tokens == 10 and first.usage.output_tokens == estimate_tokens(first.text) == 5
    assert (second.text, second.usage.input_tokens, second.usage.output_tokens) == ("action: left", 120, 7)
    assert (third.text, third.usage.input_tokens, third.usage.output_tokens) == ("", 10, 0)
    for r in (first, second, third):
        assert r.usage.calls == 1 and r.usage.cost == 0.0 and not r.cached


def test_usage_counts_text_of_every_message_but_no_images(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("ok\n")
    model = make_model(f"mock:{path}")
    messages = [
        Message.text("system", "a" * 8),
        Message("user", [TextPart("b" * 5), ImagePart(b"\x89PNG not really")]),
    ]
    reply = asyncio.run(model.generate(messages, PARAMS))
    assert reply.usage.input_tokens == 2 + 2 and reply.usage.output_tokens == 1


def test_replies_are_data_never_evaluated(tmp_path):
    path = tmp_path / "r.jsonl"
    code = "__import__('os').system('touch " + str(tmp_path / "pwned") + "')"
    path.write_text(json.dumps(code) + "\n" + json.dumps({"reply": "{{7*7}} ${7*7}"}) + "\n")
    model = make_model(f"mock:{path}")
    assert ask(model).text == code and ask(model).text == "{{7*7}} ${7*7}"
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("missing.txt", None, "does not exist"),
        ("empty.txt", "", "holds no replies"),
        ("blank.txt", "\n  \n", "holds no replies"),
        ("empty.jsonl", "\n", "holds no replies"),
        ("bad.jsonl", '"ok"\nnot json\n', "bad.jsonl:2: not valid JSON"),
        ("num.jsonl", "42\n", "num.jsonl:1: expected a JSON string or an object"),
        ("key.jsonl", '{"reply": "a", "output_token": 3}\n', "unknown key(s) output_token"),
        ("noreply.jsonl", '{"text": "a"}\n', "unknown key(s) text"),
        ("notstr.jsonl", '{"reply": 3}\n', "'reply' must be a string"),
        ("neg.jsonl", '{"reply": "a", "input_tokens": -1}\n', "'input_tokens' must be an integer >= 0"),
        ("latin.txt", b"caf\xe9\n", "cannot read reply file"),
    ],
)
def test_bad_reply_file_is_a_config_error_naming_the_path(tmp_path, name, content, needle):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError) as err:
        make_model(f"mock:{path}")
    message = str(err.value)
    assert needle in message and str(path) in message and len(message.splitlines()) == 1


def test_a_directory_is_not_a_reply_file(tmp_path):
    with pytest.raises(ConfigError, match=f"cannot read reply file '{tmp_path}'"):
        load_replies(tmp_path)


@pytest.mark.parametrize(
    ("query", "needle"),
    [
        ("delay=-1", "delay must be a number >= 0"),
        ("delay=soon", "delay must be a number"),
        ("jitter=2", "jitter must be a number between 0 and 1"),
        ("seed=1.5", "seed must be an integer"),
        ("latency=1", "unknown option(s) latency"),
        ("delay", "bad options"),
    ],
)
def test_bad_options(tmp_path, query, needle):
    path = tmp_path / "r.txt"
    path.write_text("a\n")
    with pytest.raises(ConfigError) as err:
        make_model(f"mock:{path}?{query}")
    assert needle in str(err.value)


def test_delay_simulates_latency_and_calls_overlap(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("a\nb\nc\nd\n")
    model = make_model(f"mock:{path}?delay=0.2&jitter=0.1&seed=3", concurrency=4)
    assert model.describe()["delay"] == 0.2 and model.describe()["jitter"] == 0.1

    async def four() -> list[str]:
        replies = await asyncio.gather(
            *(model.generate([Message.text("user", "q")], PARAMS) for _ in range(4))
        )
        return [r.text for r in replies]

    start = time.perf_counter()
    texts = asyncio.run(four())
    elapsed = time.perf_counter() - start
    assert texts == ["a", "b", "c", "d"]  # the order of the calls, whatever order the waits end in
    assert 0.18 <= elapsed < 0.8  # four concurrent waits of 0.18-0.22 s, not four in a row


def test_concurrency_cap_queues_waiting_calls(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("a\n")
    model = make_model(f"mock:{path}?delay=0.1", concurrency=1)

    async def three() -> None:
        await asyncio.gather(*(model.generate([Message.text("user", "q")], PARAMS) for _ in range(3)))

    start = time.perf_counter()
    asyncio.run(three())
    assert time.perf_counter() - start >= 0.29


def test_a_path_with_a_question_mark_that_exists_is_taken_whole(tmp_path):
    path = tmp_path / "what?.txt"
    path.write_text("yes\n")
    assert ask(make_model(f"mock:{path}")).text == "yes"


def test_no_messages_is_a_model_error_and_describe_names_the_file(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("a\nb\n")
    model = make_model(f"mock:{path}", base_url="http://ignored.invalid/v1", max_retries=0)
    with pytest.raises(ModelError, match="no messages"):
        asyncio.run(model.generate([], PARAMS))
    info = model.describe()
    assert info["provider"] == "mock" and info["path"] == str(path.resolve()) and info["replies"] == 2
    assert len(info["sha256"]) == 64 and "delay" not in info


# --- end to end -------------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch):
    def refuse(self, address):
        raise AssertionError(f"network use: connect to {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_cli_run_with_the_mock_provider_needs_no_network(tmp_path, no_network, monkeypatch):
    replies = tmp_path / "walk.jsonl"
    replies.write_text(
        json.dumps("I will go right.\naction: right") + "\n" + json.dumps("action: left") + "\n"
    )
    monkeypatch.chdir(tmp_path)  # a relative reply path is read from the working directory
    out = tmp_path / "run"
    argv = ["run", "toy/walk", "--agent", "llm", "--model", "mock:walk.jsonl", "--episodes", "3"]
    assert main([*argv, "--out", str(out), "--concurrency", "2"]) == 0
    recs = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(recs) == 3 and all(r["error"] is None for r in recs)
    for r in recs:
        assert r["model"] == "mock:walk.jsonl"
        assert r["usage"]["calls"] == r["steps"] and r["usage"]["input_tokens"] > 0
        assert r["usage"]["cost"] == 0.0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tasks"]["toy/walk"]["usage"]["calls"] == sum(r["steps"] for r in recs) > 0
    steps = [json.loads(x) for x in (out / recs[0]["trajectory"]).read_text().splitlines()]
    assert {s["raw_output"] for s in steps} <= {"I will go right.\naction: right", "action: left"}


def test_cli_names_a_missing_reply_file_in_one_line(tmp_path, capsys, no_network):
    missing = tmp_path / "nope.txt"
    code = main(
        ["run", "toy/walk", "--agent", "llm", "--model", f"mock:{missing}", "--out", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err
    assert (
        code == 2 and str(missing) in err and "does not exist" in err and len(err.strip().splitlines()) == 1
    )


# --- one module:Class loader ------------------------------------------------------------------


def test_agent_entries_load_through_the_one_loader():
    from playbench.agents.registry import AgentEntry

    assert AgentEntry("x", "toy:EchoAgent", "", False, ()).load_class().__name__ == "EchoAgent"
    with pytest.raises(ConfigError, match="agent 'x': cannot load entry point 'toy:Nope'"):
        AgentEntry("x", "toy:Nope", "", False, ()).load_class()
    with pytest.raises(ConfigError, match="agent 'x'.*not of the form"):
        AgentEntry("x", "toy.Nope", "", False, ()).load_class()


def test_suite_plots_load_through_the_one_loader(monkeypatch, capsys):
    import types

    from playbench.report import plots

    assert callable(plots._suite_plotter("ivispar")) and plots._suite_plotter("nosuch") is None
    monkeypatch.setitem(sys.modules, "playbench.tasks.ivispar.plots", types.ModuleType("empty"))
    monkeypatch.setattr(plots.importlib.util, "find_spec", lambda name: object())
    assert plots._suite_plotter("ivispar") is None
    assert "make_plots" in capsys.readouterr().err
