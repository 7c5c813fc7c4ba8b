"""COMMA's model side: greedy decoding (temperature 0) and 1024 output tokens for the solver and the
expert, the whole conversation in one message (history 0), PNG; the o-series and Gemini rules; the
judge seat (ours) declares nothing."""

from __future__ import annotations

import json

from playbench.cli import main
from playbench.core.model_side import resolve_settings
from playbench.core.registry import all_specs
from playbench.tasks.comma.model_side import COMMA_MODEL_SIDE
from playbench.testing.scripted_server import ScriptedServer

# The solver asks, the expert answers: no action is taken, so every turn is played to the limit.
REPLY = "Could you tell me what the manual says?"


def _run(out, model: str, base_url: str, *extra: str) -> int:
    argv = [
        "run", "comma/wire", "--agent", "llm", "--model", model, "--base-url", base_url,
        "--episodes", "1", "--set", "max_steps=2", "--out", str(out), *extra,
    ]  # fmt: skip
    return main(argv)


def _seats(out) -> dict:
    record = json.loads((out / "config.json").read_text())["model_side"]["comma/wire"]
    assert "multimodal_comms" in record["declared_by"] and "greedy" in record["declared_by"]
    return {role: seat["settings"] for role, seat in record["seats"].items()}


def test_every_comma_task_declares_its_model_side():
    for spec in all_specs():
        if spec.id.startswith("comma/"):
            assert spec.make().model_side() is COMMA_MODEL_SIDE, spec.id


def test_both_seats_send_temperature_zero_and_1024_tokens(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        assert _run(tmp_path / "a", "openai:gpt-4o", srv.base_url) == 0
        bodies = list(srv.requests)
    assert len(bodies) >= 3  # solver, expert, solver, ...
    for body in bodies:
        assert body["temperature"] == 0 and body["max_tokens"] == 1024
        assert "top_p" not in body and "max_completion_tokens" not in body
        assert [m["role"] for m in body["messages"]] == ["system", "user"]  # one message, no chat kept
    seats = _seats(tmp_path / "a")
    assert set(seats) == {"solver", "expert"}
    for settings in seats.values():
        assert settings["temperature"] == {"value": 0.0, "source": "paper"}
        assert settings["max_tokens"] == {"value": 1024, "source": "paper"}
        assert settings["history"] == {"value": 0, "source": "paper"}
        assert settings["image_format"] == {"value": "png", "source": "paper"}
    # the solver's screenshot goes as PNG, with no detail field
    urls = [
        p["image_url"]
        for body in bodies
        for m in body["messages"]
        if isinstance(m["content"], list)
        for p in m["content"]
        if p["type"] == "image_url"
    ]
    assert urls and all(u["url"].startswith("data:image/png;base64,") and "detail" not in u for u in urls)


def test_the_users_temperature_wins_in_both_seats(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        assert _run(tmp_path / "b", "openai:gpt-4o", srv.base_url, "--temperature", "0.3") == 0
        bodies = list(srv.requests)
    assert all(b["temperature"] == 0.3 and b["max_tokens"] == 1024 for b in bodies)
    for settings in _seats(tmp_path / "b").values():
        assert settings["temperature"] == {"value": 0.3, "source": "user"}
        assert settings["max_tokens"]["source"] == "paper"


def test_o_series_sends_the_whole_budget_and_no_sampling(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        assert _run(tmp_path / "c", "openai:o4-mini", srv.base_url) == 0
        bodies = list(srv.requests)
    for body in bodies:
        assert body["max_completion_tokens"] == 100_000 and "max_tokens" not in body
        assert "temperature" not in body and "top_p" not in body
    for settings in _seats(tmp_path / "c").values():
        assert settings["reasoning_tokens"] == {"value": 0, "source": "paper"}
        assert settings["temperature"]["source"] == "provider rule"
        assert settings["top_p"]["source"] == "provider rule"


def test_gemini_takes_top_p_one_and_seed_42(tmp_path):
    with ScriptedServer(REPLY, cycle=True) as srv:
        assert _run(tmp_path / "d", "openai:gemini-2.0-flash", srv.base_url) == 0
        bodies = list(srv.requests)
    assert all(
        (b["temperature"], b["top_p"], b["max_tokens"], b["seed"]) == (0, 1.0, 1024, 42) for b in bodies
    )


def test_the_judge_seat_is_not_declared():
    settings, _ = resolve_settings(COMMA_MODEL_SIDE, "judge", "openai:gpt-4o", {})
    assert all(s.source != "paper" for s in settings.values())
    settings, _ = resolve_settings(COMMA_MODEL_SIDE, "judge", "openai:o4-mini", {})
    assert settings["max_tokens"].value != 100_000
