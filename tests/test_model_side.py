"""The model side of the protocol: a task's declaration applied on every run, the user's values
winning, every setting's source on record; reasoning budgets; empty replies cut by the budget,
refusals and cut replies; model options checked before anything runs."""

from __future__ import annotations

import json

import pytest

from playbench.cli import main
from playbench.core.model_side import FamilyRule, ModelSide, resolve_settings
from playbench.runner.reader import RunReader
from playbench.testing.scripted_server import ScriptedReply, ScriptedServer


def _run(out, *args):
    return main(["run", "toy/declared", "--agent", "llm", "--episodes", "1", "--out", str(out), *args])


def _walk(out, *args):
    """An llm run of the plain walk (no declared model side)."""
    return main(
        [
            "run",
            "toy/walk",
            "--agent",
            "llm",
            "--model",
            "openai:m",
            "--episodes",
            "1",
            "--out",
            str(out),
            *args,
        ]
    )


def _config(out):
    return json.loads((out / "config.json").read_text())


def test_the_declaration_reaches_every_request_and_config_json_says_where_it_came_from(tmp_path):
    with ScriptedServer("right", cycle=True) as srv:
        assert _run(tmp_path / "a", "--model", "openai:gpt-4o", "--base-url", srv.base_url) == 0
        body = srv.requests[0]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 77
    seat = _config(tmp_path / "a")["model_side"]["toy/declared"]["seats"]["player"]
    assert seat["settings"]["temperature"] == {"value": 0.0, "source": "paper"}
    assert seat["settings"]["max_tokens"] == {"value": 77, "source": "paper"}
    assert seat["settings"]["history"]["source"] == "playbench default"
    assert seat["settings"]["top_p"] == {"value": None, "source": "provider default"}
    assert "top_p" not in body


def test_a_command_line_value_wins_and_says_so(tmp_path):
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "b",
            "--model",
            "openai:gpt-4o",
            "--base-url",
            srv.base_url,
            "--temperature",
            "0.7",
            "--max-tokens",
            "none",
        )
        body = srv.requests[0]
    assert code == 0 and body["temperature"] == 0.7 and "max_tokens" not in body
    settings = _config(tmp_path / "b")["model_side"]["toy/declared"]["seats"]["player"]["settings"]
    assert settings["temperature"] == {"value": 0.7, "source": "user"}
    assert settings["max_tokens"]["source"] == "user"


def test_family_rules_match_by_model_name_and_imply_task_options(tmp_path):
    with ScriptedServer("right", cycle=True) as srv:
        assert _run(tmp_path / "c", "--model", "openai:claude-like", "--base-url", srv.base_url) == 0
    config = _config(tmp_path / "c")
    record = config["model_side"]["toy/declared"]
    assert record["seats"]["player"]["settings"]["image_detail"]["value"] == "auto"  # the first rule wins
    assert record["seats"]["player"]["settings"]["top_p"]["value"] == 0.5
    assert record["task_options"] == {"image_width": 49}
    assert config["task_options_resolved"]["toy/declared"]["image_width"] == 49
    # the user's task option wins over the rule's
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "d",
            "--model",
            "openai:claude-like",
            "--base-url",
            srv.base_url,
            "--set",
            "image_width=30",
        )
    assert code == 0 and _config(tmp_path / "d")["task_options_resolved"]["toy/declared"]["image_width"] == 30


def test_resolve_settings_order():
    side = ModelSide(settings={"temperature": 0.0}, families=(FamilyRule("gpt", {"temperature": 0.5}),))
    settings, _ = resolve_settings(side, "player", "openai:gpt-4o", {})
    assert (settings["temperature"].value, settings["temperature"].source) == (0.5, "paper")
    settings, _ = resolve_settings(side, "player", "openai:other", {"temperature": 1.0})
    assert (settings["temperature"].value, settings["temperature"].source) == (1.0, "user")
    settings, _ = resolve_settings(None, "player", "openai:other", {})
    assert settings["max_tokens"].value == 1024 and settings["max_tokens"].source == "playbench default"
    with pytest.raises(ValueError, match="unknown model-side setting"):
        ModelSide(settings={"temprature": 0})


def test_provider_rules_drop_what_a_provider_cannot_take(tmp_path):
    # OpenAI's reasoning models take no temperature: the paper's is dropped and that is on record
    with ScriptedServer("right", cycle=True) as srv:
        assert _run(tmp_path / "e", "--model", "openai:gpt-5", "--base-url", srv.base_url) == 0
        body = srv.requests[0]
    assert "temperature" not in body and body["max_completion_tokens"] > 77
    temperature = _config(tmp_path / "e")["model_side"]["toy/declared"]["seats"]["player"]["settings"][
        "temperature"
    ]
    assert temperature["source"] == "provider rule" and "reasoning" in temperature["note"]
    # Anthropic's thinking takes temperature 1 only: the user's 0.2 with thinking is refused before anything runs
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "f",
            "--model",
            "anthropic:claude-x",
            "--base-url",
            srv.anthropic_base_url,
            "--reasoning-tokens",
            "2000",
            "--temperature",
            "0.2",
        )
        assert code == 2 and not srv.requests


def test_reasoning_effort_reaches_each_provider_in_its_own_terms(tmp_path):
    with ScriptedServer("right", cycle=True) as srv:
        assert (
            _run(
                tmp_path / "g",
                "--model",
                "openai:gpt-5",
                "--base-url",
                srv.base_url,
                "--reasoning-effort",
                "high",
            )
            == 0
        )
        assert srv.requests[0]["reasoning_effort"] == "high"
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "h",
            "--model",
            "anthropic:claude-x",
            "--base-url",
            srv.anthropic_base_url,
            "--reasoning-effort",
            "high",
        )
        body = srv.requests[0]
    assert code == 0 and body["thinking"]["type"] == "enabled"
    budget = body["thinking"]["budget_tokens"]
    assert budget >= 1024 and body["max_tokens"] == 77 + budget and "temperature" not in body
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "i",
            "--model",
            "anthropic:claude-x",
            "--base-url",
            srv.anthropic_base_url,
            "--reasoning-tokens",
            "3000",
            "--extra-body",
            '{"metadata": {"user_id": "u1"}}',
        )
        body = srv.requests[0]
    assert code == 0 and body["thinking"]["budget_tokens"] == 3000 and body["max_tokens"] == 3077
    assert body["metadata"] == {"user_id": "u1"}


def _replies(tmp_path, *replies):
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    return f"mock:{path}"


def test_empty_replies_cut_by_the_budget_error_the_episode_as_output_budget(tmp_path, capsys):
    model = _replies(
        tmp_path, {"reply": "", "finish_reason": "length", "reasoning_tokens": 1024, "output_tokens": 1024}
    )
    out = tmp_path / "budget"
    code = main(
        ["run", "ivispar/sgp", "--agent", "llm", "--model", model, "--episodes", "2", "--out", str(out)]
    )
    assert code == 1
    records = RunReader(out).records()
    assert len(records) == 2
    assert all(
        r["error_kind"] == "output_budget" and not r["success"] and r["termination"] == "error"
        for r in records
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scored"] == 0 and summary["error_kinds"] == {"output_budget": 2}
    err = capsys.readouterr().err
    assert "output_budget 2" in err and "--reasoning-tokens" in err
    # the call stays on record with its response and the error's kind
    calls = [json.loads(line) for line in (out / records[0]["calls"]).read_text().splitlines()]
    assert calls[0]["response"]["finish_reason"] == "length" and calls[0]["error_kind"] == "output_budget"


def test_cut_replies_with_text_go_to_the_task_and_are_counted(tmp_path, capsys):
    model = _replies(tmp_path, {"reply": "I think action: move", "finish_reason": "length"})
    out = tmp_path / "cut"
    code = main(
        [
            "run",
            "ivispar/sgp",
            "--agent",
            "llm",
            "--model",
            model,
            "--episodes",
            "1",
            "--out",
            str(out),
            "--set",
            "max_steps=3",
        ]
    )
    assert code == 0
    (record,) = RunReader(out).records()
    assert record["error"] is None and record["truncated_replies"] == 3
    assert json.loads((out / "summary.json").read_text())["truncated_replies"] == 3
    assert "cut by the output budget" in capsys.readouterr().err


@pytest.mark.parametrize(
    "reply", [ScriptedReply(text="", finish="filter"), ScriptedReply(text="I can't", finish="refusal")]
)
def test_refusals_are_their_own_error_kind(tmp_path, reply):
    with ScriptedServer(reply, cycle=True) as srv:
        out = tmp_path / "refused"
        code = _walk(out, "--base-url", srv.base_url)
    (record,) = RunReader(out).records()
    assert code == 1 and record["error_kind"] == "refusal" and "refused" in record["error"]


@pytest.mark.parametrize(
    "flags, word",
    [
        (["--history", "-1"], "history"),
        (["--temperature", "-5"], "temperature"),
        (["--top-p", "0"], "top_p"),
        (["--reasoning-tokens", "-3"], "reasoning_tokens"),
        (["--extra-body", "[1, 2]"], "extra_body"),
        (["--extra-body", "{bad"], "extra_body"),
        (["--agent-opt", "reasoning_effort=extreme"], "reasoning_effort"),
    ],
)
def test_every_model_option_is_checked_before_anything_runs(tmp_path, capsys, flags, word):
    out = tmp_path / "bad"
    code = _walk(out, "--base-url", "http://127.0.0.1:9/v1", *flags)
    err = capsys.readouterr().err
    assert code == 2 and word in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_agent_opt_takes_the_reasoning_options(tmp_path):
    with ScriptedServer("right", cycle=True) as srv:
        code = _run(
            tmp_path / "j",
            "--model",
            "openai:gpt-5",
            "--base-url",
            srv.base_url,
            "--agent-opt",
            "reasoning_effort=low",
        )
        assert code == 0 and srv.requests[0]["reasoning_effort"] == "low"


def test_a_server_that_refuses_images_fails_once_with_its_words_and_a_hint(tmp_path):
    from playbench.testing.scripted_server import ScriptedFailure

    def responder(body):
        if any(isinstance(m["content"], list) for m in body["messages"]):
            raise ScriptedFailure(500, 'can only concatenate str (not "list") to str')
        return "action: move"

    with ScriptedServer(responder) as srv:
        out = tmp_path / "text-only"
        code = main(
            [
                "run",
                "ivispar/sgp-2d",
                "--agent",
                "llm",
                "--model",
                "openai:smol",
                "--base-url",
                srv.base_url,
                "--episodes",
                "3",
                "--out",
                str(out),
                "--retry-delay",
                "0",
            ]
        )
        sent = len(srv.requests)
    records = RunReader(out).records()
    assert code == 1 and len(records) == 3 and sent == 1  # one request, not 6 tries in each of 3 episodes
    assert all(
        "can only concatenate str" in r["error"] and "--captioner-model" in r["error"] for r in records
    )


def test_the_report_and_the_web_run_page_show_the_model_side(tmp_path):
    from playbench.report.tables import load_run, to_markdown
    from playbench.web.render import config_block

    with ScriptedServer("right", cycle=True) as srv:
        assert (
            _run(tmp_path / "r", "--model", "openai:gpt-4o", "--base-url", srv.base_url, "--top-p", "0.9")
            == 0
        )
    run = load_run(str(tmp_path / "r"))
    md = to_markdown([run])
    assert "## Model side" in md
    line = next(x for x in md.splitlines() if x.startswith("| ") and "toy/declared" in x and "player" in x)
    assert (
        "temperature=0.0 (paper)" in line and "top_p=0.9 (user)" in line and "max_tokens=77 (paper)" in line
    )
    html = config_block(run)
    assert "model side: toy/declared (player, openai:gpt-4o)" in html and "top_p=0.9 (user)" in html


def test_model_flags_go_to_the_model_seat_when_the_other_is_not_a_model(tmp_path):
    with ScriptedServer("I explain the manual.", cycle=True) as srv:
        code = main(
            [
                "run",
                "comma/wire",
                "--agent",
                "random",
                "--expert-agent",
                "llm",
                "--expert-model",
                "openai:m",
                "--base-url",
                srv.base_url,
                "--max-tokens",
                "64",
                "--episodes",
                "1",
                "--set",
                "max_steps=2",
                "--out",
                str(tmp_path / "expert"),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0 and bodies and all(b["max_tokens"] == 64 for b in bodies)


def test_openrouter_is_a_named_openai_compatible_provider(tmp_path, monkeypatch):
    from playbench.core.errors import ConfigError
    from playbench.models import make_model

    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.delenv("OPENROUTER_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENROUTER_API_KEY"):
        make_model("openrouter:anthropic/claude-sonnet-4.5")
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-test-key")
    assert "openrouter.ai/api/v1" in make_model("openrouter:openai/gpt-4o").endpoint
    with ScriptedServer("right", cycle=True, require_key="or-test-key") as srv:
        code = _run(
            tmp_path / "or",
            "--model",
            "openrouter:anthropic/claude-sonnet-4.5",
            "--base-url",
            srv.base_url,
            "--reasoning-tokens",
            "2048",
        )
        body = srv.requests[0]
    assert code == 0 and body["model"] == "anthropic/claude-sonnet-4.5"
    assert body["reasoning"] == {"max_tokens": 2048} and body["max_completion_tokens"] == 77 + 2048


def test_the_dry_run_counts_a_declared_chat_window_including_all(tmp_path, capsys):
    from playbench.runner.sweep import estimate

    def planned(model):
        args = [
            "run",
            "toy/declared",
            "--agent",
            "llm",
            "--model",
            model,
            "--base-url",
            "http://127.0.0.1:9/v1",
        ]
        assert main([*args, "--episodes", "1", "--out", str(tmp_path / "dry"), "--dry-run", *extra]) == 0
        return capsys.readouterr().out

    extra = ["--history", "all"]
    assert "toy/declared" in planned("openai:gpt-4o")  # "all" (as MM-Escape declares for most models) plans
    from playbench.cli import build_parser, make_run_configs

    def input_tokens(history):
        ns = build_parser().parse_args(
            ["run", "toy/declared", "--agent", "llm", "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1",
             "--episodes", "1", "--out", str(tmp_path / "e"), "--history", history]
        )  # fmt: skip
        (config,) = make_run_configs(ns)
        return estimate(config)[0].input_tokens

    none, two, every = input_tokens("0"), input_tokens("2"), input_tokens("all")
    # 10 turns: alone 10 prompts; a window of 2: 1 + 2 + 3 * 8 = 27; every exchange: 1 + ... + 10 = 55
    assert (round(two / none * 10), round(every / none * 10)) == (27, 55)
