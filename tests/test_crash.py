"""Kill a run with SIGKILL at random moments, resume each time: the end state equals an uninterrupted run."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
CODE = (
    f"import sys; sys.path.insert(0, {str(TESTS)!r}); import conftest; from playbench.cli import main; "
    "sys.exit(main(sys.argv[1:]))"
)
VOLATILE = {"duration_s"}


def command(out: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        CODE,
        "run",
        "toy/walk",
        "--agent",
        "random",
        "--episodes",
        "30",
        "--seed",
        "5",
        "--out",
        str(out),
        "--set",
        "step_delay=0.004",
        "--set",
        "max_steps=8",
        "--concurrency",
        "4",
    ]


def records(out: Path) -> dict:
    recs = {}
    for line in (out / "episodes.jsonl").read_text().splitlines():
        rec = json.loads(line)
        recs[(rec["task"], rec["instance_id"], rec["trial"])] = {
            k: v for k, v in rec.items() if k not in VOLATILE
        }
    return recs


def trajectories(out: Path) -> dict:
    return {p.name: p.read_text() for p in sorted((out / "trajectories").glob("*.jsonl"))}


@pytest.mark.slow
def test_repeated_sigkill_and_resume_matches_an_uninterrupted_run(tmp_path):
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    subprocess.run(command(clean), check=True, capture_output=True, timeout=120)

    rng = random.Random(11)
    kills = 0
    for _ in range(6):
        proc = subprocess.Popen(
            command(killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        time.sleep(rng.uniform(0.3, 1.2))  # imports take part of this, so some kills land before any episode
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 3
    path = killed / "episodes.jsonl"
    if path.exists():  # what a machine crash mid-write would leave; a SIGKILL cannot tear a single write
        with path.open("a") as fh:
            fh.write('{"task": "toy/walk", "instance_id": "walk-5-2')
    done = subprocess.run(command(killed), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    lines = path.read_text().splitlines()
    assert len(lines) == len(set(lines)) == 30  # every episode exactly once, the torn line gone
    assert records(killed) == records(clean)
    assert trajectories(killed) == trajectories(clean)
    summary = {
        k: json.loads((d / "summary.json").read_text())["tasks"] for k, d in (("a", clean), ("b", killed))
    }
    assert summary["a"] == summary["b"]
