"""The run directory has one writer at a time, bad paths are one-line refusals, damaged lines are
reported, and people's image folders do not outlive their episode (issue 20)."""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from playbench.cli import main

TESTS = Path(__file__).parent
CODE = (
    f"import sys; sys.path.insert(0, {str(TESTS)!r}); import conftest; from playbench.cli import main; "
    "sys.exit(main(sys.argv[1:]))"
)


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def walk_cmd(out: Path, episodes: int = 30) -> list[str]:
    return [
        sys.executable, "-c", CODE, "run", "toy/walk", "--agent", "random", "--episodes", str(episodes),
        "--out", str(out), "--set", "step_delay=0.04", "--set", "max_steps=6",
    ]  # fmt: skip


def test_a_second_writer_is_refused_and_the_first_finishes_cleanly(tmp_path):
    out = tmp_path / "shared"
    first = subprocess.Popen(walk_cmd(out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not (out / "episodes.jsonl").exists() and time.time() < deadline:
        time.sleep(0.02)
    second = subprocess.run(walk_cmd(out), capture_output=True, text=True, timeout=60)
    assert second.returncode == 2
    err = second.stderr.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and f"pid {first.pid}" in err[0]
    assert first.wait(timeout=120) == 0, first.stderr.read()
    keys = [(r["instance_id"], r["trial"]) for r in lines(out / "episodes.jsonl")]
    assert len(keys) == 30 and len(set(keys)) == 30


def test_a_damaged_line_is_reported_and_its_episode_runs_again(tmp_path, capsys):
    out = tmp_path / "damaged"
    args = ["run", "toy/walk", "--agent", "random", "--episodes", "4", "--out", str(out)]
    assert main(args) == 0
    raw = (out / "episodes.jsonl").read_text().splitlines()
    raw[1] = raw[1][: len(raw[1]) // 2]  # a line cut in the middle, not at the end
    (out / "episodes.jsonl").write_text("\n".join(raw) + "\n")
    capsys.readouterr()
    assert main(args) == 0
    warnings = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert len(warnings) == 1 and "episodes.jsonl line 2" in warnings[0] and str(out) in warnings[0]
    from playbench.runner.reader import RunReader

    assert len(RunReader(out).records()) == 4  # the damaged episode ran again


def _bad_paths(tmp: Path) -> dict[str, Path]:
    afile = tmp / "afile.txt"
    afile.write_text("not a directory\n")
    adir = tmp / "adir"
    adir.mkdir()
    return {"file": afile, "dir": adir, "missing": tmp / "missing.json", "under_file": afile / "x"}


RUN = ["run", "toy/walk", "--agent", "random", "--episodes", "1"]
# (command line with {file} {dir} {missing} {under_file} {run}, what the message must say)
CASES = [
    (RUN + ["--out", "{file}"], "is a file"),
    (RUN + ["--out", "{under_file}"], "is a file"),
    (RUN + ["--out", "{run}", "--cache", "{dir}"], "is a directory"),
    (RUN + ["--out", "{run}", "--cache", "{under_file}"], "is a file"),
    (RUN + ["--out", "{run}", "--prices", "{missing}"], "does not exist"),
    (RUN + ["--out", "{run}", "--prices", "{dir}"], "is a directory"),
    (["run", "toy/walk", "--agent", "replay:{missing}", "--out", "{run}"], "does not exist"),
    (["run", "toy/walk", "--agent", "replay:{dir}", "--out", "{run}"], "is a directory"),
    (["report", "{missing}"], "not a run directory"),
    (["report", "{existing_run}", "--out", "{file}"], "is a file"),
    (["report", "{existing_run}", "--html", "{dir}"], "is a directory"),
    (["report", "{existing_run}", "--html", "{under_file}"], "is a file"),
    (["play", "toy/walk", "--out", "{file}"], "is a file"),
    (["reproduce", "ivispar", "--agent", "random", "--out", "{file}"], "is a file"),
    # the suites' data paths
    (
        RUN[:1] + ["mmescape/level-1"] + RUN[2:] + ["--out", "{run}", "--set", "chain={missing}"],
        "no such file",
    ),
    (RUN[:1] + ["mmescape/level-1"] + RUN[2:] + ["--out", "{run}", "--set", "chain={dir}"], "cannot be read"),
    (
        RUN[:1] + ["visescape/original"] + RUN[2:] + ["--out", "{run}", "--set", "source={missing}"],
        "does not exist",
    ),
    (
        RUN[:1] + ["visescape/original"] + RUN[2:] + ["--out", "{run}", "--set", "source={file}"],
        "not a directory",
    ),
    (RUN[:1] + ["tos/explore"] + RUN[2:] + ["--out", "{run}", "--set", "scenes={missing}"], "not a folder"),
    (RUN[:1] + ["tos/explore"] + RUN[2:] + ["--out", "{run}", "--set", "scenes={file}"], "not a folder"),
]


@pytest.fixture(scope="module")
def existing_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("existing") / "run"
    assert main(["run", "toy/walk", "--agent", "random", "--episodes", "1", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("argv, expected", CASES, ids=[" ".join(c[0][:1] + c[0][-2:]) for c in CASES])
def test_bad_paths_are_one_line_refusals(argv, expected, tmp_path, existing_run, capsys):
    paths = {**_bad_paths(tmp_path), "run": tmp_path / "newrun", "existing_run": existing_run}
    before = sorted(p for p in tmp_path.rglob("*"))
    run_before = sorted(p for p in existing_run.rglob("*"))
    code = main([a.format(**{k: str(v) for k, v in paths.items()}) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and expected in err[0] and "Traceback" not in err[0]
    assert sorted(p for p in tmp_path.rglob("*")) == before  # nothing written
    assert sorted(p for p in existing_run.rglob("*")) == run_before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere, so no path is unwritable")
def test_unwritable_and_unreadable_paths(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    secret = tmp_path / "prices.json"
    secret.write_text("{}")
    os.chmod(locked, 0o500)
    os.chmod(secret, 0o000)
    try:
        assert main(RUN + ["--out", str(locked / "run")]) == 2
        assert "not writable" in capsys.readouterr().err
        assert main(RUN + ["--out", str(tmp_path / "r"), "--prices", str(secret)]) == 2
        assert "not readable" in capsys.readouterr().err
    finally:
        os.chmod(locked, 0o700)
        os.chmod(secret, 0o600)


def test_a_persons_image_folder_goes_with_the_episode(tmp_path, monkeypatch):
    made = set(Path(tempfile.gettempdir()).glob("playbench-human-*"))
    answers = iter(["action: move green cube up", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "ivispar/sgp-2d", "--out", str(tmp_path / "play")]) == 0
    assert set(Path(tempfile.gettempdir()).glob("playbench-human-*")) == made
    (rec,) = lines(tmp_path / "play" / "episodes.jsonl")
    assert rec["termination"] == "agent_stopped"


def test_episode_files_are_utf8_whole_files_whatever_the_locale(tmp_path):
    """The trajectory and calls files are UTF-8 (JSON lines with ensure_ascii=False), written through
    a temporary file that is renamed into place; a rewrite (an episode run again) replaces the old file."""
    from playbench.runner.episode import EpisodeOutput
    from playbench.runner.store import write_episode_files

    text = "Wähle den Würfel: ◆ → 東"
    record = {"trajectory": "trajectories/e.jsonl", "calls": "trajectories/e.calls.jsonl"}
    (tmp_path / "trajectories").mkdir()
    (tmp_path / "trajectories" / "e.jsonl").write_bytes(
        b"an older, longer file from an earlier attempt\n" * 50
    )
    out = EpisodeOutput(
        record,
        calls=[json.dumps({"call": 1, "text": text}, ensure_ascii=False)],
        step_lines=[json.dumps({"turn": n, "observation": text}, ensure_ascii=False) for n in (1, 2)],
    )
    write_episode_files(tmp_path, out)
    steps = (tmp_path / "trajectories" / "e.jsonl").read_bytes()
    assert steps.decode("utf-8").splitlines() == out.step_lines
    assert [json.loads(x)["observation"] for x in steps.decode("utf-8").splitlines()] == [text, text]
    calls = (tmp_path / "trajectories" / "e.calls.jsonl").read_bytes().decode("utf-8")
    assert json.loads(calls)["text"] == text
    assert sorted(p.name for p in (tmp_path / "trajectories").iterdir()) == ["e.calls.jsonl", "e.jsonl"]
