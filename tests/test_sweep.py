"""Sweeps from a YAML or TOML file: a grid over models, seeds, task and agent options, a dry run,
a resumable run, and `playbench report` on the sweep folder (tasks × models, paired comparisons)."""

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.runner.reader import RunReader


def write_replies(tmp_path: Path) -> tuple[str, str]:
    good = tmp_path / "good.txt"
    good.write_text("action: right\naction: left\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("no idea\n")
    return f"mock:{good}", f"mock:{bad}"


def sweep_yaml(tmp_path: Path, episodes: int = 2) -> Path:
    good, bad = write_replies(tmp_path)
    path = tmp_path / "sweep.yaml"
    path.write_text(
        f"""
out: {tmp_path / "sweep"}
tasks: [toy/walk]
agent: llm
models: [{good}, {bad}]
seeds: [0]
episodes: {episodes}
set: {{length: 5}}
grid:
  set: {{max_steps: [3, 6]}}
concurrency: 3
"""
    )
    return path


def cell_dirs(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if (p / "episodes.jsonl").exists())


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path, capsys):
    path = sweep_yaml(tmp_path)
    assert main(["run", "--config", str(path), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "4 cell(s)" in captured.err and "dry run" in captured.out
    assert "total: 8 episodes planned, 8 to run" in captured.out
    assert "model calls" in captured.out and "cost $0.00" in captured.out
    assert not (tmp_path / "sweep").exists()


def test_a_sweep_runs_resumes_and_reports_tasks_by_models(tmp_path, capsys):
    path = sweep_yaml(tmp_path)
    assert main(["run", "--config", str(path)]) == 0
    folder = tmp_path / "sweep"
    cells = cell_dirs(folder)
    assert len(cells) == 4 and all(c.endswith("__s0") for c in cells)
    assert any("max_steps=3" in c for c in cells) and any("max_steps=6" in c for c in cells)
    plan = json.loads((folder / "sweep.json").read_text())
    assert sorted(c["name"] for c in plan["cells"]) == cells
    for cell in plan["cells"]:
        records = RunReader(folder / cell["name"]).records()
        assert len(records) == 2
        assert {r["model"] for r in records} == {cell["model"]}
        config = json.loads((folder / cell["name"] / "config.json").read_text())
        assert config["task_options_resolved"]["toy/walk"]["max_steps"] == cell["grid"]["set:max_steps"]
        assert config["task_options_resolved"]["toy/walk"]["length"] == 5
    capsys.readouterr()

    # the same file again runs nothing; a larger episode count runs only the new episodes
    assert main(["run", "--config", str(path)]) == 0
    for cell in cells:
        assert len((folder / cell / "episodes.jsonl").read_text().splitlines()) == 2
    sweep_yaml(tmp_path, episodes=3)
    assert main(["run", "--config", str(path), "--dry-run"]) == 0
    assert "4 to run" in capsys.readouterr().out
    assert main(["run", "--config", str(path)]) == 0
    for cell in cells:
        assert len((folder / cell / "episodes.jsonl").read_text().splitlines()) == 3
    capsys.readouterr()

    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "tasks × models" in out and "paired over shared scored instances" in out
    text = (folder / "report.md").read_text()
    assert "## Tasks × models" in text and "## Paired comparisons over shared instances" in text
    header = next(line for line in text.splitlines() if line.startswith("| task | mock_"))
    assert all(c in header for c in cells)
    rows = (folder / "comparisons.csv").read_text().splitlines()
    assert rows[0].startswith("task,a,b,shared") and len(rows) == 1 + 6  # 4 cells: 6 pairs
    pairs = [r.split(",") for r in rows[1:]]
    good_vs_bad = [r for r in pairs if ("good" in r[1]) != ("good" in r[2])]
    assert len(good_vs_bad) == 4 and all(r[3] == "3" for r in good_vs_bad)  # 3 shared instances


def test_results_load_knows_the_cells(tmp_path):
    pytest.importorskip("pandas")
    from playbench import results

    path = sweep_yaml(tmp_path)
    assert main(["run", "--config", str(path)]) == 0
    episodes = results.load(tmp_path / "sweep", steps=False, calls=False).episodes
    assert len(episodes) == 8 and episodes["cell"].nunique() == 4
    assert sorted(episodes["grid.set:max_steps"].unique()) == [3, 6]


def test_toml_works_the_same(tmp_path, capsys):
    good, _ = write_replies(tmp_path)
    path = tmp_path / "sweep.toml"
    path.write_text(
        f'out = "{tmp_path / "t"}"\ntasks = ["toy/walk"]\nmodel = "{good}"\nseeds = [0, 1]\nepisodes = 1\n'
        "[grid.agent_opts]\nhistory = [0, 1]\n"
    )
    assert main(["run", "--config", str(path)]) == 0
    assert len(cell_dirs(tmp_path / "t")) == 4
    assert any("history=1__s1" in c for c in cell_dirs(tmp_path / "t"))


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("tasks: [toy/walk]\nbogus: 1\n", "unknown key(s) bogus"),
        ("tasks: [toy/walk\n", "not valid YAML"),
        ("models: [mock:x]\n", "'tasks' must list task ids"),
        ("tasks: [toy/walk]\ngrid: {episodes: [1, 2]}\n", "not axes"),
        ("tasks: [toy/walk]\ngrid: {set: {max_steps: 3}}\n", "non-empty list"),
        ("tasks: [toy/walk]\nseeds: [a]\n", "whole numbers"),
        ("- just\n- a list\n", "must hold a mapping"),
    ],
)
def test_bad_sweep_files_are_one_line_errors(tmp_path, capsys, content, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    assert main(["run", "--config", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "bad.yaml" in err[0]


def test_config_conflicts(tmp_path, capsys):
    path = sweep_yaml(tmp_path)
    assert main(["run", "toy/walk", "--config", str(path)]) == 2
    assert "tasks come from the sweep file" in capsys.readouterr().err
    assert main(["run", "--config", str(path), "--model", "mock:x"]) == 2
    assert "--model cannot be added" in capsys.readouterr().err
    assert main(["run", "--config", str(tmp_path / "missing.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["run", "--agent", "random"])
    assert exc.value.code == 2 and "TASK (or --config FILE)" in capsys.readouterr().err


def test_a_model_sweep_folder_reports_too(tmp_path, capsys):
    good, bad = write_replies(tmp_path)
    out = tmp_path / "msweep"
    argv = [
        "run",
        "toy/walk",
        "--agent",
        "llm",
        "--model",
        good,
        "--model",
        bad,
        "--episodes",
        "2",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "tasks × models" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "nothing-here")]) == 2
