"""`playbench reproduce SUITE`: a suite's paper preset run as an ordinary run, reported with the
paper's published rows beside the run's (report.md, paper.json, the HTML report, the web app)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.preset import get_preset, parse_preset
from playbench.report.paper import comparisons, format_cell


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reproduce") / "run"
    assert main(["reproduce", "ivispar", "--agent", "random", "--episodes", "3", "--out", str(out)]) == 0
    return out


def test_the_preset_holds_every_number_of_tables_2_to_5():
    preset = get_preset("ivispar")
    tables = {t.id: t for t in preset.tables}
    assert set(tables) == {"Table 2", "Table 3", "Table 4", "Table 5"}
    gpt = next(r for r in tables["Table 2"].rows if r.model == "GPT-4o")
    assert gpt.values["Completed episodes"]["2D"] == 37.33
    assert len(tables["Table 3"].rows) == 7
    assert len(tables["Table 2"].rows) == 8  # and the human baseline (3D completion, section 5 / Figure 4)
    cells = sum(len(v) for t in tables.values() for r in t.rows for v in r.values.values())
    assert cells == 7 * 3 * 4 + 7 * 5 * 4 + 2 * 4 * 7 * 4 + 1


def test_reproduce_applies_the_tasks_model_side_as_any_run(tmp_path):
    """The preset names tasks and tables only; the model side comes from each task's declaration."""
    replies = tmp_path / "r.txt"
    replies.write_text("action: move green cube up\n")
    out = tmp_path / "llm"
    code = main(["reproduce", "ivispar", "--model", f"mock:{replies}", "--episodes", "1", "--out", str(out)])
    assert code == 0
    config = json.loads((out / "config.json").read_text())
    seat = config["model_side"]["ivispar/sgp"]["seats"]["player"]["settings"]
    assert seat["max_tokens"] == {"value": 500, "source": "paper"}


def test_reproduce_writes_the_papers_rows_beside_the_runs(reproduced):
    config = json.loads((reproduced / "config.json").read_text())
    assert config["run"]["preset"] == "ivispar" and config["run"]["agents"]["*"]["name"] == "random"
    assert config["run"]["task_options"]["max_steps"] == 20
    report = (reproduced / "report.md").read_text()
    assert "## Beside the paper" in report and "### Table 2: Completed episodes (%)" in report
    gpt = next(line for line in report.splitlines() if line.startswith("| GPT-4o |"))
    assert "37.33" in gpt
    ours = next(line for line in report.splitlines() if line.startswith("| **random (this run"))
    assert ours.count("|") == 6  # model + Avg, 3D, 2D, Text
    beside = json.loads((reproduced / "paper.json").read_text())
    completed = next(c for c in beside if c["measure"] == "Completed episodes (%)")
    run_row = next(r for r in completed["rows"] if r["source"] == "run")
    summary = json.loads((reproduced / "summary.json").read_text())
    rate = summary["tasks"]["ivispar/sgp-2d"]["success"]["value"]
    assert math.isclose(run_row["values"][completed["columns"].index("2D")], 100 * rate)


def test_the_html_report_and_the_web_page_show_the_comparison(reproduced, tmp_path):
    html = tmp_path / "r.html"
    assert main(["report", str(reproduced), "--out", str(tmp_path / "rep"), "--html", str(html)]) == 0
    text = html.read_text()
    assert "Beside the paper" in text and "37.33" in text
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from playbench.web.library import run_id
    from playbench.web.server import create_app

    with TestClient(create_app([str(reproduced.parent)])) as client:
        page = client.get(f"/run/{run_id(reproduced.resolve())}")
    assert page.status_code == 200 and "Beside the paper" in page.text and "37.33" in page.text


def test_the_average_column_is_the_mean_of_the_runs_columns():
    preset = get_preset("ivispar")
    run = {
        "name": "fake",
        "records": [{"agent": "x"}],
        "summary": {
            "tasks": {
                t: {"task": t, "success": {"kind": "proportion", "n": 4, "value": v, "ci95": [0.0, 1.0]}}
                for t, v in (("ivispar/sgp-3d", 0.25), ("ivispar/sgp-2d", 0.5), ("ivispar/sgp", 0.0))
            }
        },
    }
    completed = next(c for c in comparisons(preset, [run]) if c.measure.startswith("Completed"))
    cells = completed.rows[-1].cells
    assert [c.value for c in cells] == [25.0, 25.0, 50.0, 0.0]
    assert format_cell(cells[2]) == "50.00 [0.00, 100.00]"


def test_bad_presets_and_unknown_suites_are_clear_errors(capsys):
    with pytest.raises(ConfigError, match="malformed"):
        parse_preset('{"suite": "x"}', "test.json")
    bad = get_preset("ivispar").model_dump()
    bad["tables"][0]["rows"][0]["values"]["Completed episodes"]["4D"] = 1.0
    with pytest.raises(ConfigError, match="4D"):
        parse_preset(json.dumps(bad), "test.json")
    assert main(["reproduce", "nosuch", "--agent", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ivispar" in err[0]


def test_a_preset_holds_no_model_side():
    text = json.dumps(
        {
            "suite": "x",
            "paper": "p",
            "source": "s",
            "run": {"tasks": ["toy/walk"], "agent_options": {"temperature": 0}},
            "tables": [],
        }
    )
    with pytest.raises(ConfigError, match="model side"):
        parse_preset(text, "test")
