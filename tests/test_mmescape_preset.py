"""The MM-Escape paper preset (`playbench reproduce mmescape`): the paper's settings, every number of
its results tables as printed, measures that read metrics the tasks produce, and the reproduce run
with the paper's rows beside it. Also a person playing a paper scene in the browser."""

from __future__ import annotations

import json
import re

import pytest

from playbench.cli import main
from playbench.core.preset import get_preset
from playbench.core.registry import make_task
from playbench.report.paper import comparisons


@pytest.fixture(scope="module")
def preset():
    return get_preset("mmescape")


def test_the_run_block_holds_the_papers_settings(preset):
    run = preset.run
    assert run.tasks == [
        "mmescape/paper-level-1",
        "mmescape/paper-level-2",
        "mmescape/paper-level-3-note-key",
        "mmescape/paper-level-3-key-note",
    ]
    # the original's chat, temperature and the rest are the tasks' own model side (model_side.py)
    assert run.task_options == {} and run.agent_options == {}
    assert "pass --set image_width" not in preset.notes
    assert run.episodes is None and run.trials == 1 and run.agent == "llm"


def test_every_number_of_the_tables_as_printed(preset):
    tables = {t.id: t for t in preset.tables}
    assert list(tables) == [
        "Table 1",
        "Table 1 (Difficulty-3)",
        "Table 1 (AVG ER)",
        "Table 3",
        "Table 8",
        "Table 9",
        "Table 10",
        "Table 11",
        "Table 6",
    ]
    cells = sum(len(v) for t in preset.tables for r in t.rows for v in r.values.values())
    # Table 1: 9 rows x (4 + 5 + 5 + 1); Table 3: 5 x 14; Tables 8-11: 5 + 30 + 20 + 2
    # Table 6 (appendix B): 11 scenes x 4 measures x 4 settings (key-note scene 0 null)
    assert cells == 9 * 15 + 5 * 14 + 5 + 30 + 20 + 2 + 11 * 4 * 4
    row = {r.model: r.values for r in tables["Table 1"].rows}
    assert [r.model for r in tables["Table 1"].rows][:2] == ["Human", "GPT-4o"]
    assert row["GPT-4o"]["ER"] == {"Difficulty-1": 100.0, "Difficulty-2": 72.73}
    assert row["GPT-4o"]["Prop"] == {"Difficulty-2": 81.82}  # Difficulty-1 has no props
    assert row["Gemini-1.5-pro"]["Grab SR"]["Difficulty-2"] == 14.89
    assert row["GLM-4v Flash"]["Steps"] == {"Difficulty-1": 50.0, "Difficulty-2": 75.0}  # the step caps
    d3 = {r.model: r.values for r in tables["Table 1 (Difficulty-3)"].rows}
    assert d3["GPT-4o"]["ER"] == {"Difficulty-3": 71.36} and d3["Human"]["Steps"] == {"Difficulty-3": 21.45}
    avg = {r.model: r.values["ER"]["AVG ER"] for r in tables["Table 1 (AVG ER)"].rows}
    assert avg["GPT-4o"] == 81.36 and avg["Qwen-VL-Max"] == 9.09
    t3 = {r.model: r.values for r in tables["Table 3"].rows}
    assert t3["Llama-3.2-11b-vision"]["Grab Ratio"]["Difficulty-2 & Difficulty-2"] == 0.19
    t9 = {r.model: r.values for r in tables["Table 9"].rows}
    assert t9["Gemini-1.5-pro"]["Grab SR"] == {"note-key": 16.06, "key-note": 4.79}
    assert t9["Claude 3.5 Sonnet"]["Prop"] == {"note-key": 40.91, "key-note": 68.75}
    t10 = {r.model: r.values for r in tables["Table 10"].rows}
    assert t10["o1"]["Steps"] == {"Difficulty-2": 43.56} and t10["Claude 3.7"]["GSR"] == {
        "Difficulty-2": 38.99
    }
    assert {r.model: r.values["Correlation"]["Correlation"] for r in tables["Table 8"].rows}["Qwen"] == -0.48
    assert {r.model: r.values["Average Score"]["Average Score"] for r in tables["Table 11"].rows} == {
        "GPT-4o": 0.33,
        "Gemini-1.5-pro": 0.44,
    }


def test_table_1s_difficulty_3_is_the_mean_of_table_9s_settings(preset):
    t9 = {r.model: r.values for r in preset.tables[5].rows}
    d3 = {r.model: r.values for r in preset.tables[1].rows}
    for model in ("GPT-4o", "Gemini-1.5-pro"):
        mean = (t9[model]["ER"]["note-key"] + t9[model]["ER"]["key-note"]) / 2
        assert d3[model]["ER"]["Difficulty-3"] == pytest.approx(mean, abs=0.006)
    # a run's Difficulty-3 cell is the mean of its two settings, as the paper's
    run = {
        "name": "fake",
        "records": [{"agent": "x"}],
        "summary": {
            "tasks": {
                t: {"task": t, "success": {"n": 10, "value": v, "ci95": [v, v]}}
                for t, v in (
                    ("mmescape/paper-level-3-note-key", 0.8),
                    ("mmescape/paper-level-3-key-note", 0.5),
                )
            }
        },
    }
    er = next(
        c for c in comparisons(preset, [run]) if c.table == "Table 1 (Difficulty-3)" and c.measure == "ER (%)"
    )
    assert [c.value for c in er.rows[-1].cells] == pytest.approx([80.0, 50.0, 65.0])


def test_every_measure_reads_a_metric_the_tasks_produce(preset):
    produced = {}
    for task_id in preset.run.tasks:
        task = make_task(task_id)
        task.reset(task.instances(1, 0)[0])
        while not task.done:
            task.step(task.oracle_action("player"))
        produced[task_id] = task.outcome().metrics
    for table in preset.tables:
        for measure in table.measures:
            for condition in table.conditions:
                task = measure.task_for(condition)
                if task is None or measure.metric in ("success", "steps"):
                    continue
                name = measure.metric.removeprefix("metrics.")
                assert name in produced[task], (table.id, measure.name, condition.name)


def test_reproduce_runs_the_paper_scenes_and_reports_the_papers_rows(tmp_path):
    out = tmp_path / "run"
    argv = ["reproduce", "mmescape", "--agent", "random", "--episodes", "1", "--out", str(out)]
    # a quick look: two steps per scene and a small view
    assert main([*argv, "--set", "max_steps=2", "--set", "image_size=128"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["run"]["preset"] == "mmescape"
    # the tasks' defaults: the paper protocol, its real chat (history=chat)
    assert all("history" not in options for options in config["task_options_resolved"].values())
    report = (out / "report.md").read_text()
    assert "## Beside the paper" in report and "### Table 9: ER (%)" in report
    gpt = next(line for line in report.splitlines() if line.startswith("| GPT-4o |"))
    assert "100.00" in gpt and "72.73" in gpt
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["instance_id"] for r in records) == [
        "level1-1",
        "level2-1",
        "level3_key_first-1",
        "level3_note_first-1",
    ]


def test_a_person_plays_a_paper_scene_in_the_browser(tmp_path):
    pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
    from fastapi.testclient import TestClient

    from playbench.web.server import create_app

    twin = make_task("mmescape/paper-level-1")
    inst = twin.instances(1, 0)[0]
    twin.reset(inst)
    moves = []
    while twin.phase == "play":
        move = twin.oracle_action("player")
        moves.append(move)
        twin.step(move)
    root = tmp_path / "runs"
    root.mkdir()
    with TestClient(create_app([str(root)])) as client:
        response = client.post(
            "/play/start",
            data={"task": "mmescape/paper-level-1", "instance": inst.id, "seed": "0", "options": ""},
            follow_redirects=False,
        )
        assert response.status_code == 303, response.text
        sid, seat = re.match(r"/play/s/([^?]+)\?seat=(\w+)", response.headers["location"]).groups()

        def my_turn() -> str:
            for _ in range(60):
                text = client.get(f"/play/s/{sid}/panel", params={"seat": seat}).text
                if "name=move value=" in text or 'data-testid="finished"' in text:
                    return text
                since = int(re.search(r'data-version="(\d+)"', text).group(1))
                client.get(f"/play/s/{sid}/wait", params={"since": since, "seat": seat})
            raise AssertionError("never the player's turn")

        def send(text: str) -> str:
            panel = my_turn()
            version = re.search(r"name=move value=\"(\d+)\"", panel).group(1)
            reply = client.post(
                f"/play/s/{sid}/act",
                data={"seat": seat, "move": version, "action": text},
                headers={"Accept": "application/json"},
            )
            assert reply.json() == {"ok": True, "error": None}
            return panel

        for move in moves:
            assert f"/play/s/{sid}/image/" in send(move)  # the view is on the page
        assert "Step 3: the whole story" in send("An underground research institute.")  # the story recovery
        assert 'data-testid="finished"' in my_turn()
    played = next(p for p in (root / "web-play").iterdir() if p.name.startswith("mmescape__paper-level-1"))
    record = json.loads((played / "episodes.jsonl").read_text().splitlines()[0])
    assert record["agent"] == "human" and record["success"] and record["steps"] == inst.optimal_steps
