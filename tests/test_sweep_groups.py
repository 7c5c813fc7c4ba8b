"""A sweep's grid multiplies only the tasks an axis can change: a task option scoped to one task
(`task/id:key`) or one that only some tasks have makes no new cells for the others, which run once in
cells of their own (named by the values that apply to them); the dry run counts each run once."""

import json
from pathlib import Path

import pytest

from playbench.cli import main
from playbench.runner import sweep as sweeps
from playbench.runner.reader import RunReader


def replies(tmp_path: Path) -> str:
    good = tmp_path / "good.txt"
    good.write_text("action: right\naction: left\n")
    return f"mock:{good}"


def write(tmp_path: Path, grid: str, models: str = "", seeds: str = "[0]", extra: str = "") -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(
        f"out: {tmp_path / 'sweep'}\ntasks: [toy/walk, toy/declared]\n"
        f"models: [{models or replies(tmp_path)}]\nseeds: {seeds}\nepisodes: 2\nset: {{length: 5}}\n"
        f"grid:\n{grid}\n{extra}"
    )
    return path


def task_runs(plan: sweeps.Sweep) -> list[tuple[str, str]]:
    return [(task, cell.name) for cell in plan.cells for task in cell.tasks]


def dry_total(capsys, path: Path) -> str:
    capsys.readouterr()
    assert main(["run", "--config", str(path), "--dry-run"]) == 0
    return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("total:"))


def test_a_scoped_option_makes_n_plus_one_task_runs(tmp_path, capsys):
    path = write(tmp_path, '  set: {"toy/walk:max_steps": [3, 6, 9]}')
    plan = sweeps.load(path)
    runs = task_runs(plan)
    assert len(runs) == 3 + 1  # not 2 × 3
    assert sorted(t for t, _ in runs) == ["toy/declared"] + ["toy/walk"] * 3
    walk = [c for c in plan.cells if c.tasks == ["toy/walk"]]
    (declared,) = [c for c in plan.cells if c.tasks == ["toy/declared"]]
    assert [c.name.split("__")[1:] for c in walk] == [
        ["max_steps=3", "s0"],
        ["max_steps=6", "s0"],
        ["max_steps=9", "s0"],
    ]
    assert declared.name.split("__")[1:] == ["s0"] and declared.grid == {}
    assert dry_total(capsys, path).startswith("total: 8 episodes planned, 8 to run")  # 4 task-runs × 2

    # it runs: each cell holds only its own tasks, with the values that apply
    assert main(["run", "--config", str(path)]) == 0
    folder = tmp_path / "sweep"
    for cell in plan.cells:
        records = RunReader(folder / cell.name).records()
        assert sorted({r["task"] for r in records}) == cell.tasks and len(records) == 2
        config = json.loads((folder / cell.name / "config.json").read_text())
        resolved = config["task_options_resolved"]
        assert set(resolved) == set(cell.tasks) and all(o["length"] == 5 for o in resolved.values())
        if cell.grid:
            assert resolved["toy/walk"]["max_steps"] == cell.grid["set:toy/walk:max_steps"]
    saved = json.loads((folder / "sweep.json").read_text())["cells"]
    assert [c["tasks"] for c in saved] == [c.tasks for c in plan.cells]
    # the same file again: every cell is found, nothing to run; the report reads the sweep
    assert "8 episodes planned, 0 to run" in dry_total(capsys, path)
    assert main(["report", str(folder)]) == 0
    assert "tasks × models" in capsys.readouterr().out


def test_dry_run_counts_each_task_options_model_seed_once(tmp_path, capsys):
    other = tmp_path / "other.txt"
    other.write_text("no idea\n")
    path = write(
        tmp_path,
        '  set: {"toy/walk:max_steps": [3, 6]}\n  agent_opts: {history: [0, 1]}',
        models=f"{replies(tmp_path)}, mock:{other}",
        seeds="[0, 1]",
    )
    plan = sweeps.load(path)
    keys = [
        (
            task,
            json.dumps(c.grid.get("set:toy/walk:max_steps")),
            c.grid["agent_opts:history"],
            c.model,
            c.seed,
        )
        for c in plan.cells
        for task in c.tasks
    ]
    assert len(keys) == len(set(keys))
    # walk: 2 models × 2 seeds × 2 max_steps × 2 history; declared: 2 × 2 × 2 (not 32 task-runs)
    assert len(keys) == 16 + 8 and len(plan.cells) == 24
    assert dry_total(capsys, path).startswith("total: 48 episodes planned, 48 to run")
    assert {c.name.split("__", 1)[1] for c in plan.cells if c.tasks == ["toy/declared"]} == {
        "history=0__s0",
        "history=0__s1",
        "history=1__s0",
        "history=1__s1",
    }


def test_an_option_only_some_tasks_have_does_not_multiply_the_others(tmp_path, capsys):
    path = write(tmp_path, "  set: {image_width: [32, 48]}")  # only toy/declared has image_width
    plan = sweeps.load(path)
    assert sorted(t for t, _ in task_runs(plan)) == ["toy/declared", "toy/declared", "toy/walk"]
    assert dry_total(capsys, path).startswith("total: 6 episodes planned")


def test_a_value_that_changes_every_task_still_multiplies(tmp_path, capsys):
    path = write(tmp_path, "  set: {max_steps: [3, 6]}\n  agent_opts: {history: [0, 1]}")
    plan = sweeps.load(path)
    # one group: the plain grid, its cells named and built as before (tasks in the shared options)
    assert len(plan.cells) == 4 and all(c.tasks == ["toy/walk", "toy/declared"] for c in plan.cells)
    assert plan.argv[:2] == ["toy/walk", "toy/declared"] and not plan.split
    assert [c.name.split("__", 1)[1] for c in plan.cells] == [
        "max_steps=3__history=0__s0",
        "max_steps=3__history=1__s0",
        "max_steps=6__history=0__s0",
        "max_steps=6__history=1__s0",
    ]
    assert plan.cells[0].argv[:2] == ["--seed", "0"]
    assert dry_total(capsys, path).startswith("total: 16 episodes planned")  # 2 tasks × 4 cells × 2


def test_cells_that_did_not_change_are_resumed(tmp_path, capsys):
    """A sweep run before the split kept every task in every cell: the cells of the tasks the axis
    changes keep their names and options, so their episodes are found."""
    good = replies(tmp_path)
    path = write(tmp_path, '  set: {"toy/walk:max_steps": [3, 6]}', models=good)
    plan = sweeps.load(path)
    (old,) = [c for c in plan.cells if c.grid.get("set:toy/walk:max_steps") == 3]
    # the old layout: both tasks in the cell, the same options
    argv = ["run", "toy/walk", "toy/declared", "--agent", "llm", "--model", good, "--episodes", "2"]
    argv += [
        "--set",
        "length=5",
        "--set",
        "toy/walk:max_steps=3",
        "--out",
        str(tmp_path / "sweep" / old.name),
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["run", "--config", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "6 episodes planned, 4 to run" in out  # walk at max_steps=3 is on record


def test_axes_with_one_key_on_two_tasks_are_named_by_task(tmp_path, capsys):
    path = write(tmp_path, '  set: {"toy/walk:max_steps": [3, 6], "toy/declared:max_steps": [3, 6]}')
    plan = sweeps.load(path)
    names = sorted(c.name.split("__", 1)[1] for c in plan.cells)
    assert names == [
        "toy_declared.max_steps=3__s0",
        "toy_declared.max_steps=6__s0",
        "toy_walk.max_steps=3__s0",
        "toy_walk.max_steps=6__s0",
    ]
    assert dry_total(capsys, path).startswith("total: 8 episodes planned")


def test_command_line_sets_go_to_the_cells_that_take_them(tmp_path):
    path = write(tmp_path, '  set: {"toy/walk:max_steps": [3]}', extra="set: {length: 5, image_width: 40}\n")
    plan = sweeps.load(path)
    walk, declared = plan.cells
    assert walk.tasks == ["toy/walk"] and declared.tasks == ["toy/declared"]
    # image_width is toy/declared's alone: not in the shared options, in its cell's (before the command
    # line's, which win over the file's)
    assert "image_width=40" not in plan.argv and "length=5" in plan.argv
    extra = ["--set", "image_width=50", "--set=length=7"]
    tokens = plan.cell_argv(declared, extra)
    assert tokens[0] == "toy/declared"
    assert tokens.index("image_width=40") < tokens.index("image_width=50") < tokens.index("--seed")
    assert plan.cell_argv(walk, extra) == [
        "toy/walk",
        *plan.argv,
        "--set=length=7",
        *walk.argv[1:],
    ]


@pytest.mark.parametrize(
    ("grid", "needle"),
    [
        ("  set: {bogus: [1, 2]}", "grid.set 'bogus': no task of the sweep has this option"),
        ('  set: {"toy/walk:image_width": [1, 2]}', "toy/walk has no option 'image_width'"),
        ('  set: {"toy/relay:max_steps": [1]}', "task 'toy/relay' is not one of the sweep's tasks"),
    ],
)
def test_a_bad_axis_is_one_clear_error(tmp_path, capsys, grid, needle):
    path = write(tmp_path, grid)
    assert main(["run", "--config", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "sweep.yaml" in err[0]


def test_the_readme_example_has_no_duplicate_cells(tmp_path):
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    section = readme[readme.index("### Sweeps") :]
    block = section[
        section.index("```yaml") + len("```yaml") : section.index("```", section.index("```yaml") + 7)
    ]
    path = tmp_path / "readme.yaml"
    path.write_text(block)
    plan = sweeps.load(path)
    runs = [
        (task, c.model, c.seed, json.dumps(c.grid, sort_keys=True)) for c in plan.cells for task in c.tasks
    ]
    assert len(runs) == len(set(runs)) == 16 + 8  # ivispar/sgp: 2 models × 2 seeds × 2 × 2; comma/button: × 2
    assert all(c.grid.keys() == {"agent_opts:history"} for c in plan.cells if c.tasks == ["comma/button"])
