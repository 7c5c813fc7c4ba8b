"""A researcher's first week (issue 27): cost plans without keys, honest notices, the small traps."""

from __future__ import annotations

import pytest

from playbench.cli import main


def test_a_dry_run_plans_a_paid_run_without_an_api_key(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    argv = ["run", "toy/walk", "--agent", "llm", "--model", "openai:gpt-4o", "--episodes", "2"]
    assert main([*argv, "--out", str(tmp_path / "r"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "total: 2 episodes planned" in out and "model calls" in out
    assert not (tmp_path / "r").exists()  # nothing ran, nothing was written
    assert main([*argv, "--out", str(tmp_path / "r")]) == 2  # the real run still needs the key
    assert "OPENAI_API_KEY is not set" in capsys.readouterr().err


def test_a_dry_run_still_refuses_a_bad_model_spec(capsys, tmp_path):
    code = main(
        ["run", "toy/walk", "--agent", "llm", "--model", "opnai:gpt-4o", "--dry-run", "--out", str(tmp_path)]
    )
    assert code == 2 and "opnai" in capsys.readouterr().err


def test_reproduce_takes_dry_run_and_needs_no_key(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "repro"
    code = main(
        [
            "reproduce",
            "ivispar",
            "--model",
            "openai:gpt-4o",
            "--episodes",
            "2",
            "--out",
            str(out),
            "--dry-run",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "ivispar/sgp" in printed and "total:" in printed and "cost $" in printed
    assert not out.exists()


@pytest.mark.parametrize("trials", [1, 3])
def test_the_plan_says_instances_times_trials(tmp_path, capsys, trials):
    argv = ["run", "toy/walk", "--agent", "random", "--episodes", "2", "--trials", str(trials)]
    assert main([*argv, "--out", str(tmp_path / "r"), "--dry-run"]) == 0
    err = capsys.readouterr().err
    if trials > 1:
        assert "toy/walk: 2 instances × 3 trials = 6 episodes" in err
    else:
        assert "instances ×" not in err


def test_default_run_folders_are_named_by_what_ran_and_keep_every_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "toy/walk", "--agent", "random", "--episodes", "1"]) == 0
    assert main(["run", "toy/relay", "--agent", "random", "--episodes", "1"]) == 0
    assert main(["run", "toy/walk", "toy/relay", "--agent", "random", "--episodes", "1"]) == 0
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert runs == ["toy_relay-random-s0", "toy_walk-and-1-more-random-s0", "toy_walk-random-s0"]
    out = tmp_path / "runs" / "toy_walk-random-s0"
    assert main(["run", "toy/walk", "--agent", "random", "--episodes", "2", "--out", str(out)]) == 0
    import json

    history = [json.loads(line) for line in (out / "config_history.jsonl").read_text().splitlines()]
    assert [h["run"]["episodes"] for h in history] == [1, 2]
    assert json.loads((out / "config.json").read_text())["run"]["episodes"] == 2


def test_a_folder_with_another_tools_config_is_refused_and_left_alone(tmp_path, capsys):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "config.json").write_text('{"lr": 0.001, "epochs": 10}\n')
    code = main(["run", "toy/walk", "--agent", "random", "--episodes", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "was not written by playbench" in err and str(out / "config.json") in err
    assert (out / "config.json").read_text() == '{"lr": 0.001, "epochs": 10}\n'
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]  # nothing written there, not even a lock


def test_a_run_of_playbenchs_own_rooms_says_which_set_ran_and_how_to_run_the_papers(tmp_path, capsys):
    argv = ["run", "visescape/rooms", "--agent", "random", "--episodes", "1", "--out", str(tmp_path / "v")]
    assert main([*argv, "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert err.count("notice: visescape/rooms: playbench's own instances, not the paper's set") == 1
    assert "`playbench reproduce visescape`" in err and "playbench originals fetch" in err
    argv = ["run", "ivispar/sgp", "--agent", "random", "--episodes", "1", "--out", str(tmp_path / "i")]
    assert main([*argv, "--dry-run"]) == 0
    assert "not the paper's set" not in capsys.readouterr().err  # the paper's boards


@pytest.mark.parametrize("task", ["ivispar/sgp", "ivispar/stp"])
def test_instances_solutions_replay_as_printed(task, tmp_path, capsys):
    assert main(["instances", task, "-n", "3"]) == 0
    printed = capsys.readouterr().out
    assert '"solution"' in printed
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text(printed)
    out = tmp_path / "run"
    assert main(["run", task, "--agent", f"replay:{solutions}", "--episodes", "3", "--out", str(out)]) == 0
    import json

    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 3 and all(r["success"] and r["steps"] == r["optimal_steps"] for r in records)


def test_a_replay_line_without_actions_or_a_solution_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "start": 1}\n')
    assert main(["run", "toy/walk", "--agent", f"replay:{bad}", "--out", str(tmp_path / "r")]) == 2
    assert "line 1 needs an object with 'instance_id' and an 'actions' list" in capsys.readouterr().err


def test_progress_is_plain_lines_when_the_output_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYBENCH_PROGRESS_SECONDS", "0")
    assert (
        main(["run", "toy/walk", "--agent", "random", "--episodes", "3", "--out", str(tmp_path / "r")]) == 0
    )
    lines = [line for line in capsys.readouterr().err.splitlines() if " episodes (solved " in line]
    assert [line.split(": ", 1)[1].split(" episodes")[0] for line in lines] == ["1/3", "2/3", "3/3"]
    assert lines[-1].endswith("done") and "/s, " in lines[0]


def test_list_digests_is_cached_by_playbenchs_own_files(tmp_path, monkeypatch, capsys):
    import playbench.cli as cli

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["list", "--digests"]) == 0
    first = capsys.readouterr().out
    cached = list((tmp_path / "cache" / "playbench").glob("digests-*.json"))
    assert len(cached) == 1
    built = []
    from playbench.core import task as task_module

    real = task_module.Task.instances
    monkeypatch.setattr(
        task_module.Task, "instances", lambda self, n, seed: built.append(1) or real(self, n, seed)
    )
    assert main(["list", "--digests"]) == 0
    assert capsys.readouterr().out == first and built == []  # every set from the cache
    monkeypatch.setattr(cli, "_source_digest", lambda: "changed")  # a change to playbench's files
    assert main(["list", "--digests"]) == 0
    assert capsys.readouterr().out == first and built  # recomputed, the same table
    assert [p.name for p in (tmp_path / "cache" / "playbench").glob("digests-*.json")] == [
        "digests-changed.json"
    ]


def test_summary_json_is_valid_json_when_every_episode_errored(tmp_path):
    import json

    replies = tmp_path / "boom.jsonl"
    replies.write_text(
        '{"instance_id": "walk-0-0", "actions": ["boom"]}\n{"instance_id": "walk-0-1", "actions": ["boom"]}\n'
    )
    out = tmp_path / "r"
    argv = ["run", "toy/walk", "--agent", f"replay:{replies}", "--episodes", "2", "--set", "crash_on=boom"]
    main([*argv, "--out", str(out)])
    text = (out / "summary.json").read_text()

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    summary = json.loads(text, parse_constant=refuse)
    assert summary["errors"] == 2
    assert main(["report", str(out)]) == 0
    json.loads((out / "report.json").read_text(), parse_constant=refuse)


def test_report_on_two_runs_of_different_tasks_writes_comparisons_csv(tmp_path):
    for task in ("toy/walk", "toy/relay"):
        main(
            [
                "run",
                task,
                "--agent",
                "random",
                "--episodes",
                "2",
                "--out",
                str(tmp_path / task.replace("/", "_")),
            ]
        )
    out = tmp_path / "cmp"
    assert main(["report", str(tmp_path / "toy_walk"), str(tmp_path / "toy_relay"), "--out", str(out)]) == 0
    header = (out / "comparisons.csv").read_text().splitlines()
    assert header[0].startswith("task,a,b,shared") and len(header) == 1  # no shared instance: no pair


def test_report_on_a_garbage_episodes_file_warns_and_fails(tmp_path, capsys):
    run = tmp_path / "garbage"
    run.mkdir()
    (run / "episodes.jsonl").write_text("this is not json\n")
    assert main(["report", str(run)]) == 1
    err = capsys.readouterr().err
    assert "line 1 is not JSON and was skipped" in err and "no readable episode in" in err


def test_ivispar_plots_name_the_interval_the_readme_names():
    from pathlib import Path

    import playbench.tasks.ivispar.plots as plots

    source = Path(plots.__file__).read_text()
    assert "Student t" not in source and "percentile bootstrap for the mean deviation" in source


@pytest.mark.parametrize("width", [80, 100, 200])
def test_the_results_table_fits_the_terminal_without_folding_rows(tmp_path, width):
    import io

    from rich.console import Console

    from playbench.report.tables import load_run, print_table

    out = tmp_path / "r"
    main(["run", "ivispar/sgp", "--agent", "random", "--episodes", "4", "--out", str(out)])
    buffer = io.StringIO()
    print_table([load_run(out)], Console(file=buffer, width=width))
    lines = buffer.getvalue().splitlines()
    assert all(len(line) <= width for line in lines)
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == 1  # one task, one line: no cell folded onto a second line
    if width == 200:
        assert "in report.md" not in buffer.getvalue()
    else:
        assert "in report.md" in buffer.getvalue()


def test_reproduce_all_runs_every_preset_into_one_folder_and_one_scorecard(tmp_path, capsys):
    out = tmp_path / "all"
    argv = [
        "reproduce",
        "all",
        "--agent",
        "random",
        "--episodes",
        "1",
        "--trials",
        "1",
        "--set",
        "max_steps=6",
    ]
    assert main([*argv, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "skipped visescape: the authors' VisEscape rooms" in err  # no clone here: said, not fatal
    assert "not in the scorecard: visescape" in err
    from playbench.core.preset import preset_names

    ran = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert ran == sorted(n for n in preset_names() if n != "visescape")
    report = (out / "report.md").read_text()
    assert "## Fidelity" in report and "Beside the paper" in report
    for suite in ("ivispar", "comma", "mmescape", "tos"):
        assert f"| {suite} | {suite}/" in report  # every preset's run in the one scorecard
    assert (out / "report.html").stat().st_size > 1000
    assert main([*argv, "--out", str(out)]) == 0  # resumable: nothing left to run
    assert "(0 run now)" in capsys.readouterr().err


def test_reproduce_all_dry_run_plans_everything_without_a_key(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "all"
    assert main(["reproduce", "all", "--model", "openai:gpt-4o", "--out", str(out), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    total = [line for line in printed.splitlines() if line.startswith("total:")]
    assert len(total) == 1 and "cost $" in total[0] and not out.exists()
    for suite in ("ivispar", "comma", "mmescape", "tos-vision"):
        assert f"{out}/{suite}" in printed.replace("\n", "") or suite in printed


def test_reproduce_without_the_clone_says_the_set_is_generated_and_where_the_papers_is(tmp_path, capsys):
    out = tmp_path / "c"
    assert (
        main(["reproduce", "comma", "--agent", "random", "--episodes", "1", "--out", str(out), "--dry-run"])
        == 0
    )
    err = capsys.readouterr().err
    line = [ln for ln in err.splitlines() if "generated instances" in ln]
    assert (
        len(line) == 1
        and "comma/wire" in line[0]
        and "(multimodal_comms): `playbench originals fetch`" in line[0]
    )
    assert "not the paper's set; the paper's: `playbench reproduce" not in err  # we are reproducing


def test_a_sweep_dry_run_needs_no_key_and_a_command_line_set_reaches_only_tasks_that_have_it(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(
        "tasks: [toy/walk, toy/declared]\nagent: llm\nmodels: [openai:gpt-4o]\nepisodes: 1\n"
        "grid:\n  set:\n    toy/walk:max_steps: [3, 4]\n"
    )
    code = main(
        ["run", "--config", str(sweep), "--out", str(tmp_path / "s"), "--dry-run", "--set", "image_width=50"]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "total: 3 episodes planned" in printed.out  # walk twice (two values), declared once


def test_reproduce_help_names_its_own_default_out(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "runs/reproduce-<suite>-<agent>[-<model>]-s<seed>" in text
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "runs/<tasks>-<agent>[-<model>]-s<seed>" in " ".join(capsys.readouterr().out.split())
