"""`playbench probe contamination`: the paper set beside its fresh twin, paired instance by instance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.registry import make_task
from playbench.core.twins import twin_id
from playbench.report.contamination import paired_gap, verdict

N = 12


def _replay_file(tmp_path: Path) -> Path:
    """An agent that 'remembers' the published boards: their printed solutions, and nothing for a twin."""
    task = make_task("ivispar/sgp")
    lines = []
    for inst in task.instances(N, 0):
        moves = [task.solution_reply(m) for m in inst.solution]  # type: ignore[attr-defined]
        lines.append(json.dumps({"instance_id": inst.id, "actions": moves}))
        # a twin is new to it: it repeats a move that is never legal
        lines.append(
            json.dumps({"instance_id": twin_id(inst.id, 0), "actions": ["action: move purple cube up"]})
        )
    path = tmp_path / "remembered.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_memorised_paper_set_shows_a_gap_and_a_careful_verdict(tmp_path: Path, capsys) -> None:
    out = tmp_path / "probe"
    replay = _replay_file(tmp_path)
    code = main(
        [
            "probe",
            "contamination",
            "ivispar",
            "--agent",
            f"replay:{replay}",
            "--episodes",
            str(N),
            "--set",
            "ivispar/sgp:max_steps=20",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    probe = json.loads((out / "probe.json").read_text())
    sgp = next(row for row in probe["tasks"] if row["task"] == "ivispar/sgp")
    assert sgp["pairs"] == N and sgp["paper_success"] == 100.0 and sgp["twin_success"] == 0.0
    assert sgp["ci95"][0] > 0
    assert "evidence, not proof" in probe["verdict"]
    # the report of the probe's runs shows the probe beside the suite
    assert main(["report", str(out / "paper"), str(out / "twin"), "--out", str(tmp_path / "rep")]) == 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## Contamination probes" in report and "evidence, not proof" in report


def test_a_scripted_model_runs_the_probe_end_to_end(tmp_path: Path) -> None:
    replies = tmp_path / "replies.txt"
    replies.write_text("action: move purple cube up\n")
    out = tmp_path / "p"
    code = main(
        [
            "probe",
            "contamination",
            "ivispar",
            "--model",
            f"mock:{replies}",
            "--episodes",
            "3",
            "--set",
            "max_steps=2",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    probe = json.loads((out / "probe.json").read_text())
    assert probe["model"] == f"mock:{replies}" and probe["all"]["pairs"] == 3 * len(probe["tasks"])
    twin_ids = (
        {
            json.loads(x)["instance_id"]
            for x in (out / "twin" / "ivispar_sgp" / "episodes.jsonl").read_text().splitlines()
        }
        if (out / "twin" / "ivispar_sgp").exists()
        else None
    )
    assert twin_ids is None or all(".twin-s0" in i for i in twin_ids)


def test_pairs_average_trials_and_leave_errors_out() -> None:
    paper = [
        {"task": "t", "instance_id": "a", "success": True, "error": None},
        {"task": "t", "instance_id": "a", "success": False, "error": None},
        {"task": "t", "instance_id": "b", "success": True, "error": "boom"},
    ]
    twin = [
        {"task": "t", "instance_id": twin_id("a", 0), "success": False, "error": None},
        {"task": "t", "instance_id": twin_id("b", 0), "success": False, "error": None},
    ]
    result = paired_gap(paper, twin)
    assert result["all"]["pairs"] == 1 and result["all"]["gap_pts"] == pytest.approx(50.0)
    assert result["unpaired_twin"] == 1
    assert "too few pairs" in result["verdict"]


@pytest.mark.parametrize(
    ("ci", "words"),
    [
        ((5.0, 20.0), "evidence, not proof"),
        ((-20.0, -5.0), "better on the fresh twins"),
        ((-5.0, 5.0), "no gap"),
    ],
)
def test_the_verdict_never_overclaims(ci: tuple[float, float], words: str) -> None:
    row = {"pairs": 40, "paper_success": 50.0, "twin_success": 40.0, "gap_pts": sum(ci) / 2, "ci95": list(ci)}
    sentence = verdict(row)
    assert words in sentence
    assert "proves" not in sentence and "memorised the" not in sentence


def test_a_suite_without_twins_or_preset_is_one_message(tmp_path: Path, capsys) -> None:
    assert main(["probe", "contamination", "nope", "--agent", "random", "--out", str(tmp_path / "x")]) == 2
    assert "no paper preset named 'nope'" in capsys.readouterr().err
