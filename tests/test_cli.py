import json
import subprocess
import sys
from pathlib import Path

import pytest

from playbench.cli import main

TESTS = Path(__file__).parent


def usage_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["run", "nosuch/task", "--agent", "random"], "unknown task 'nosuch/task'"),
        (["run", "toy/walk", "--agent", "bogus"], "unknown agent 'bogus'"),
        (["run", "toy/walk", "--agent", "llm"], "needs --model"),
        (["run", "toy/walk", "--agent", "replay"], "needs a file"),
        (["run", "toy/walk", "--agent", "replay:/no/such/file.jsonl"], "does not exist"),
        (["run", "toy/walk", "--agent", "random", "--set", "length"], "key=value"),
        (["run", "toy/walk", "--agent", "random", "--set", "length=big"], "length"),
        (["run", "toy/walk", "--agent", "random", "--set", "nosuch=1"], "no selected task has this option"),
        (["run", "toy/walk", "--agent", "random", "--trials", "0"], "--trials"),
        (["run", "toy/walk", "--agent", "random", "--executor", "warp"], "unknown executor 'warp'"),
        (["run", "toy/walk", "--agent", "llm", "--model", "nospec"], "nospec"),
        (["run", "toy/walk", "--agent", "random", "--model", "openai:x"], "only used by model-driven agents"),
        (["run", "toy/walk", "--agent", "human", "--concurrency", "2"], "one episode at a time"),
        (["report", "/no/such/dir"], "not a run directory"),
        (["instances", "toy/walk", "--set", "lenght=3"], "unknown option 'lenght'"),
    ],
)
def test_usage_errors_are_one_line_exit_2(capsys, tmp_path, argv, needle):
    if argv[0] == "run":
        argv = [*argv, "--out", str(tmp_path / "o")]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1


def test_argparse_errors_are_one_line(capsys):
    err = usage_error(capsys, ["run"])
    assert err.startswith("playbench: error:") and len(err.strip().splitlines()) == 1


def test_missing_openai_key_is_reported(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code = main(["run", "toy/walk", "--agent", "llm", "--model", "openai:gpt-4o", "--out", str(tmp_path)])
    assert code == 2 and "OPENAI_API_KEY" in capsys.readouterr().err


def test_instances_prints_jsonl(capsys):
    assert main(["instances", "toy/walk", "-n", "3", "--seed", "2"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == ["walk-2-0", "walk-2-1", "walk-2-2"]


def test_list_shows_tasks_agents_providers(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for needle in (
        "ivispar/sgp",
        "toy/walk",
        "random",
        "oracle",
        "replay:FILE",
        "openai:MODEL",
        "anthropic:MODEL",
        "google:MODEL",
        "openrouter:VENDOR/MODEL",
    ):
        assert needle in out
    # each remote provider names the variable its key comes from
    for provider, key in (
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
    ):
        line = next(x for x in out.splitlines() if x.strip().startswith(f"{provider}:"))
        assert f"${key}" in line


def test_run_then_report_writes_tables(capsys, tmp_path):
    out = tmp_path / "r"
    assert main(["run", "toy/walk", "--agent", "oracle", "--episodes", "3", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "toy/walk" in printed and "100.0%" in printed
    md = (out / "report.md").read_text()
    assert "| toy/walk |" in md and "final_distance" in md
    csv_lines = (out / "report.csv").read_text().splitlines()
    assert csv_lines[0].startswith("run,task,agent,model,metric")
    assert any(",success," in line for line in csv_lines)


def test_play_reads_a_human_from_stdin(tmp_path):
    out = tmp_path / "play"
    code = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r}); import conftest; from playbench.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    # walk-0-0 starts at 3 with target 4 (see tests/toy.py); a bad line first, then the move
    inst = json.loads(
        subprocess.run(
            [sys.executable, "-c", code, "instances", "toy/walk", "-n", "1"], capture_output=True, text=True
        ).stdout
    )
    move = "right" if inst["target"] > inst["start"] else "left"
    steps = abs(inst["target"] - inst["start"])
    feed = "jump\n" + (move + "\n") * steps
    done = subprocess.run(
        [sys.executable, "-c", code, "play", "toy/walk", "--out", str(out)],
        input=feed,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (rec,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert rec["agent"] == "human" and rec["success"] and rec["steps"] == steps + 1
    assert "is not left or right" in done.stderr
