"""playbench tasks as Inspect AI tasks: the same episodes, through Inspect's real model API and log."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatCompletionChoice,
    ChatMessageAssistant,
    ChatMessageUser,
    ContentImage,
    ContentReasoning,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)

from playbench.agents import parse_agent  # noqa: E402
from playbench.core.registry import all_specs, make_task  # noqa: E402
from playbench.core.task import derive_seed  # noqa: E402
from playbench.inspect_eval import inspect_task_name, playbench_task  # noqa: E402
from playbench.inspect_eval.adapter import (  # noqa: E402
    spec_for,
    to_generate_config,
    to_inspect_messages,
    to_model_response,
)
from playbench.inspect_eval.registry import TASK_IDS  # noqa: E402
from playbench.inspect_eval.setup import PlaybenchInspectError  # noqa: E402
from playbench.models.base import GenerationParams, Message, reply_error  # noqa: E402
from playbench.runner.model_pool import ModelSettings  # noqa: E402
from playbench.runner.reader import RunReader  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.testing.scripted_server import (  # noqa: E402
    ScriptedReply,
    ScriptedServer,
    message_text,
)

REPO = Path(__file__).resolve().parents[1]
INSPECT = REPO / ".venv" / "bin" / "inspect"


def reply(text: str) -> ModelOutput:
    """A mockllm reply with its usage given, so Inspect does not count tokens with tiktoken (whose
    encoding it would download)."""
    out = ModelOutput.from_content("mockllm/model", text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=len(text.split()), total_tokens=10)
    return out


def by_instance(records: list[dict]) -> dict[str, dict]:
    return {r["instance_id"]: r for r in records}


def outcome(record: dict) -> tuple:
    return (record["success"], record["steps"], record["termination"], record["error_kind"])


def run_playbench(out: Path, agent, episodes: int, trials: int = 1, **kwargs) -> list[dict]:
    config = RunConfig(
        tasks=["ivispar/sgp"], agents={"*": agent}, out=str(out), episodes=episodes, trials=trials, **kwargs
    )
    asyncio.run(execute(config, argv=["test"]))
    return RunReader(out).records()


# --- the done-when: same replies, same per-instance result ------------------------------------
def scripted_replies() -> list:
    """Replies for the first four instances of ivispar/sgp (seed 0) with max_steps 5: the first and third
    solved by their printed solutions, the second answered with prose until its step cap, the fourth an
    empty reply cut by its output budget."""
    task = make_task("ivispar/sgp")
    instances = task.instances(4, 0)
    solve = [type(task).solution_reply(move) for move in instances[0].solution]
    solve_third = [type(task).solution_reply(move) for move in instances[2].solution]
    return [
        *solve,
        *["I am not sure where to go."] * 5,
        *solve_third,
        ScriptedReply(text="", finish="length"),
    ]


def test_inspect_eval_matches_playbench_run_with_the_same_replies(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-scripted")
    options = {"max_steps": 5}
    with ScriptedServer(scripted_replies()) as native:
        agent = parse_agent("llm", "openai:gpt-4o")
        settings = ModelSettings(base_url=native.base_url, max_retries=0)
        expected = run_playbench(
            tmp_path / "native", agent, 4, task_options=options, models=settings, concurrency=1
        )
        native_requests = native.requests
    with ScriptedServer(scripted_replies()) as served:
        # Inspect's own OpenAI provider (chat completions) against the same scripted server
        [log] = inspect_eval(
            "playbench/ivispar_sgp",
            model="openai/gpt-4o",
            model_base_url=served.base_url,
            model_args={"responses_api": False},
            task_args={"episodes": 4, "out": str(tmp_path / "via-inspect"), **options},
            max_samples=1,
            max_retries=0,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
        inspect_requests = served.requests
    assert log.status == "success", log.error

    # the run exercises a solved, an unsolved and an errored episode (from playbench's own run)
    assert {outcome(r)[0] for r in expected} == {True, False}
    assert [r["error_kind"] for r in expected].count("output_budget") == 1

    # per instance: the same success, steps, termination and error kind, in the Inspect log
    log = read_eval_log(log.location)
    samples = {s.id: s for s in log.samples}
    assert set(samples) == {r["instance_id"] for r in expected}
    for instance_id, record in by_instance(expected).items():
        sample = samples[instance_id]
        via = sample.metadata["playbench_record"]
        assert outcome(via) == outcome(record), instance_id
        score = sample.scores["playbench_scorer"]
        assert score.value == ("C" if record["success"] else "I")
        assert score.metadata["error_kind"] == record["error_kind"]
        assert score.metadata["metrics"]["final_distance"] == record["metrics"]["final_distance"]
        native_steps, _ = RunReader(tmp_path / "native").trajectory(record)
        steps = sample.store["playbench_steps"]
        assert [(s["action"], s["validity"]) for s in steps] == [
            (s["action"], s["validity"]) for s in native_steps
        ]
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(sum(r["success"] for r in expected) / len(expected))
    assert metrics["errors"].value == 1

    # the model saw exactly what playbench's own OpenAI provider sent: texts, sampling, cap
    assert len(inspect_requests) == len(native_requests)
    for ours, theirs in zip(inspect_requests, native_requests, strict=True):
        assert [(m["role"], message_text(m)) for m in ours["messages"]] == [
            (m["role"], message_text(m)) for m in theirs["messages"]
        ]
        assert ours.get("temperature") == theirs.get("temperature") == 0.5  # iVISPAR's GPT-4 text rule
        cap = ours.get("max_tokens", ours.get("max_completion_tokens"))
        assert cap == theirs["max_tokens"] == 500

    # -T out=DIR: an ordinary run directory with the same records, which `playbench report` reads
    written = by_instance(RunReader(tmp_path / "via-inspect").records())
    assert {k: outcome(v) for k, v in written.items()} == {r["instance_id"]: outcome(r) for r in expected}
    config = json.loads((tmp_path / "via-inspect" / "config.json").read_text())
    assert config["model_side"]["ivispar/sgp"]["seats"]["player"]["settings"]["temperature"] == {
        "value": 0.5,
        "source": "paper",
    }
    assert config["fidelity"] == json.loads((tmp_path / "native" / "config.json").read_text())["fidelity"]
    # ... and holds one experiment: another agent into it is refused before anything runs
    with pytest.raises(PlaybenchInspectError, match="different agent"):
        playbench_task(
            "ivispar/sgp", episodes=4, agent="random", out=str(tmp_path / "via-inspect"), **options
        )
    from playbench.cli import main

    assert main(["report", str(tmp_path / "via-inspect"), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").exists()


def test_epochs_are_trials_with_the_runs_episode_seeds(tmp_path):
    """The random agent draws from the episode's seed, derive_seed(seed, trial): epoch k must replay
    playbench's trial k-1 move for move."""
    expected = run_playbench(
        tmp_path / "native", parse_agent("random"), 2, trials=2, seed=3, task_options={"max_steps": 6}
    )
    [log] = inspect_eval(
        playbench_task("ivispar/sgp", seed=3, episodes=2, trials=2, agent="random", max_steps=6),
        model="mockllm/model",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 4
    reader = RunReader(tmp_path / "native")
    native = {(r["instance_id"], r["trial"]): r for r in expected}
    for sample in log.samples:
        record = sample.metadata["playbench_record"]
        assert record["trial"] == sample.epoch - 1 and record["seed"] == 3
        theirs = native[(sample.id, record["trial"])]
        steps, _ = reader.trajectory(theirs)
        assert [s["action"] for s in sample.store["playbench_steps"]] == [s["action"] for s in steps]
    # the two trials of an instance are different episodes (different seeds), as in the run
    assert derive_seed(3, 0) != derive_seed(3, 1)


# --- images, eval-wide settings, the generic task ------------------------------------------------------
def test_images_reach_inspect_as_images_and_eval_settings_are_the_users(tmp_path):
    seen: list = []

    def answer(messages, tools, tool_choice, config):
        seen.append((messages, config))
        return reply("action: move green cylinder left")

    model = get_model("mockllm/model", custom_outputs=answer)
    [log] = inspect_eval(
        "playbench/task",
        task_args={
            "task": "ivispar/sgp-2d",
            "episodes": 1,
            "max_steps": 2,
            "agent_opts": {"image_format": "jpeg", "image_detail": "low"},
        },
        model=model,
        temperature=0.25,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    messages, config = seen[0]
    images = [
        c for m in messages if isinstance(m.content, list) for c in m.content if isinstance(c, ContentImage)
    ]
    assert images and all(i.image.startswith("data:image/jpeg;base64,") and i.detail == "low" for i in images)
    assert base64.b64decode(images[-1].image.split(",", 1)[1])[:3] == b"\xff\xd8\xff"  # a JPEG
    # exactly the first observation's images, as the task draws them, encoded as JPEG for the wire
    from dataclasses import replace

    from playbench.models.images import data_uri

    task = make_task("ivispar/sgp-2d", max_steps=2)
    task.reset(task.instances(1, 0)[0])
    drawn = [data_uri(replace(p, send_as="jpeg")) for p in task.observe("player").all_images]
    assert [i.image for i in images] == drawn
    # `inspect eval --temperature 0.25` is the user's setting: sent, and recorded as the user's
    assert config.temperature == 0.25 and config.max_tokens == 500
    sample = log.samples[0]
    settings = sample.metadata["playbench_model_side"]["seats"]["player"]["settings"]
    assert settings["temperature"] == {"value": 0.25, "source": "user"}
    assert sample.metadata["playbench_record"]["model"] == "mockllm:model"


def test_every_task_id_is_an_inspect_task():
    ids = {spec.id for spec in all_specs()}
    assert set(TASK_IDS.values()) == ids
    assert TASK_IDS["ivispar_sgp_2d"] == "ivispar/sgp-2d"
    assert inspect_task_name("ivispar/board-inference.x") == "ivispar_board_inference_x"
    from inspect_ai._util.registry import registry_lookup

    for name in TASK_IDS:
        assert registry_lookup("task", f"playbench/{name}") is not None, name


# --- bad input: one message naming the value ------------------------------------------------------------
def test_bad_task_and_options_are_named():
    with pytest.raises(PlaybenchInspectError, match="unknown task 'ivispar/sgpp'"):
        playbench_task("ivispar/sgpp")
    with pytest.raises(PlaybenchInspectError, match=r"-T bogus.*accepted: .*max_steps"):
        playbench_task("ivispar/sgp", bogus=1)
    with pytest.raises(PlaybenchInspectError, match="option 'max_steps'"):
        playbench_task("ivispar/sgp", max_steps=0)
    with pytest.raises(PlaybenchInspectError, match="-T episodes must be at least 1"):
        playbench_task("ivispar/sgp", episodes=0)
    with pytest.raises(PlaybenchInspectError, match="-T trials"):
        playbench_task("ivispar/sgp", trials=0)
    with pytest.raises(PlaybenchInspectError, match="unknown agent 'nobody'"):
        playbench_task("ivispar/sgp", agent="nobody")
    with pytest.raises(PlaybenchInspectError, match="human"):
        playbench_task("ivispar/sgp", agent="human")
    with pytest.raises(PlaybenchInspectError, match="temperature must be"):
        playbench_task("ivispar/sgp", agent_opts={"temperature": "hot"})


def test_cli_bad_option_is_one_message_without_traceback(tmp_path):
    result = subprocess.run(
        [str(INSPECT), "eval", "playbench/ivispar_sgp", "--model", "mockllm/model", "-T", "bogus=1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "-T bogus: no selected task has this option" in output
    assert "Traceback" not in output


def test_without_inspect_the_package_names_the_extra():
    code = (
        "import sys; sys.modules['inspect_ai'] = None\n"
        "try:\n    import playbench.inspect_eval\nexcept ImportError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install 'playbench[inspect]'" in result.stdout, result.stderr


# --- the adapter's conversions --------------------------------------------------------------------------
def test_generation_params_become_generate_config():
    params = GenerationParams(temperature=0.5, top_p=0.9, max_tokens=500, seed=7, extra_body={"top_k": 50})
    config = to_generate_config("openai", "gpt-4o", params)
    assert (config.temperature, config.top_p, config.max_tokens, config.seed) == (0.5, 0.9, 500, 7)
    assert config.extra_body == {"top_k": 50} and config.reasoning_effort is None
    # a reasoning model's output budget is the answer cap plus its reasoning budget, as playbench sends it
    reasoning = GenerationParams(max_tokens=500, reasoning_effort="high", reasoning_tokens=2000)
    config = to_generate_config("anthropic", "claude-sonnet-4-5", reasoning)
    assert (config.max_tokens, config.reasoning_effort, config.reasoning_tokens) == (2500, "high", 2000)
    from playbench.models.openai_provider import DEFAULT_REASONING_ALLOWANCE

    assert to_generate_config("openai", "o3", GenerationParams(max_tokens=100)).max_tokens == (
        100 + DEFAULT_REASONING_ALLOWANCE
    )
    assert to_generate_config("mockllm", "model", GenerationParams(max_tokens=None)).max_tokens is None


def test_messages_and_outputs_convert_both_ways():
    from playbench.core.types import ImagePart, TextPart

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
    )
    msgs = to_inspect_messages(
        [
            Message.text("system", "rules"),
            Message("user", [TextPart("a"), TextPart("b")]),
            Message("user", [TextPart("look"), ImagePart(png, detail="high")]),
        ]
    )
    assert msgs[0].role == "system" and msgs[1].content == "a\nb"
    assert isinstance(msgs[2], ChatMessageUser) and isinstance(msgs[2].content[1], ContentImage)
    assert msgs[2].content[1].image == "data:image/png;base64," + base64.b64encode(png).decode()
    assert msgs[2].content[1].detail == "high"
    assert spec_for("openai-api/deepseek/deepseek-chat") == "openai-api:deepseek/deepseek-chat"

    def output(content, stop_reason="stop", usage=None) -> ModelOutput:
        message = ChatMessageAssistant(content=content)
        return ModelOutput(
            model="m", choices=[ChatCompletionChoice(message=message, stop_reason=stop_reason)], usage=usage
        )

    usage = ModelUsage(input_tokens=12, output_tokens=30, total_tokens=42, reasoning_tokens=20)
    thought = output([ContentReasoning(reasoning="think"), ContentText(text="action: x")], usage=usage)
    response = to_model_response(thought, None, free=True)
    assert (response.text, response.reasoning, response.reasoning_tokens) == ("action: x", "think", 20)
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.cost) == (12, 30, 0.0)
    # an empty reply cut by its budget and a refusal are playbench's errors of those kinds
    assert reply_error(to_model_response(output("", "max_tokens"), None, True), "s").kind == "output_budget"
    assert reply_error(to_model_response(output("", "content_filter"), None, True), "s").kind == "refusal"
    refused = output([ContentText(text="I can't help with that.", refusal=True)])
    assert reply_error(to_model_response(refused, None, True), "s").kind == "refusal"
    assert reply_error(to_model_response(output("action: y", "max_tokens"), None, True), "s") is None


def test_a_failing_model_is_the_episodes_error_not_a_crash(tmp_path):
    [log] = inspect_eval(
        playbench_task("ivispar/sgp", episodes=1),
        model=get_model("mockllm/model", custom_outputs=[reply("action: move red cube up")]),  # then runs out
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    record = log.samples[0].metadata["playbench_record"]
    assert record["termination"] == "error" and record["error_kind"] == "model_call"
    assert "custom_outputs ran out" in record["error"] and record["turns"] == 1
    assert log.samples[0].scores["playbench_scorer"].value == "I"


def test_a_suite_agent_plays_through_inspect(tmp_path):
    calls: list = []

    def answer(messages, tools, tool_choice, config):
        calls.append(messages)
        return reply("I look around.")

    [log] = inspect_eval(
        playbench_task("visescape/room-01", episodes=1, agent="visescape-base", max_steps=2),
        model=get_model("mockllm/model", custom_outputs=answer),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    record = log.samples[0].metadata["playbench_record"]
    assert record["agent"] == "visescape-base(mockllm:model)" and record["error"] is None
    assert record["usage"]["calls"] == len(calls) >= 1


@pytest.fixture(autouse=True)
def _no_inspect_env(monkeypatch):
    # a developer's own Inspect defaults must not change what these tests run
    for name in [n for n in os.environ if n.startswith("INSPECT_EVAL_")]:
        monkeypatch.delenv(name)
