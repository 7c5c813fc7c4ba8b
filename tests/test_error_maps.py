"""Error maps: recorded episodes replayed through `Task.progress()` (report/error_maps.py), their
aggregates and modality gaps (report/error_summary.py), the report's section and figures, and the
replay page's distance-to-goal line (web/render_progress.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from toy import ConsultTask, WalkTask

from playbench.agents import parse_agent
from playbench.cli import main
from playbench.core import registry
from playbench.core.registry import make_task
from playbench.core.types import Progress
from playbench.report import error_maps, error_summary
from playbench.report.plots import write_plots
from playbench.report.tables import load_run, to_markdown
from playbench.runner.reader import RunReader
from playbench.runner.run import RunConfig, execute
from playbench.web import render

OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _run(out: Path, tasks: list[str], agent: str, episodes: int = 1) -> dict:
    asyncio.run(execute(RunConfig(tasks, {"*": parse_agent(agent)}, str(out), episodes=episodes)))
    return load_run(out)


def _maps(run: dict) -> list[error_maps.EpisodeMap]:
    return [m for g in error_maps.run_groups([run]) for m in g.maps]


def _replay_run(tmp_path: Path, name: str, actions: list[str]) -> dict:
    """A one-episode ivispar/sgp run of the first instance playing `actions` (the replay agent)."""
    task = make_task("ivispar/sgp")
    instance = task.instances(1, 0)[0]
    script = tmp_path / f"{name}.jsonl"
    script.write_text(json.dumps({"instance_id": instance.id, "actions": actions}) + "\n")
    return _run(tmp_path / name, ["ivispar/sgp"], f"replay:{script}")


def _oracle_rest(task, prefix: list[str]) -> list[str]:
    """`prefix` then the oracle's moves to the goal, on a task reset to the first instance."""
    task.reset(task.instances(1, 0)[0])
    for action in prefix:
        task.step(action)
    out = list(prefix)
    while not task.done:
        move = task.oracle_action("player")
        out.append(move)
        task.step(move)
    return out


def _detour_actions() -> tuple[list[str], int]:
    """One optimal move, one legal move away from the goal, its reverse, then the oracle: (actions, d0)."""
    task = make_task("ivispar/sgp")
    instance = task.instances(1, 0)[0]
    task.reset(instance)
    first = task.oracle_action("player")
    task.step(first)
    d1 = task.progress().distance
    for away in task.legal_actions():
        probe = make_task("ivispar/sgp")
        probe.reset(instance)
        probe.step(first)
        probe.step(away)
        if probe.progress().distance == d1 + 1:
            words = away.split()
            back = " ".join([*words[:-1], OPPOSITE[words[-1]]])
            return _oracle_rest(make_task("ivispar/sgp"), [first, away, back]), d1 + 1
    raise AssertionError("no move away from the goal on the first board")


def test_the_oracle_goes_down_by_one_per_step_and_never_departs(tmp_path):
    run = _run(tmp_path / "oracle", ["ivispar/sgp"], "oracle", episodes=3)
    maps = _maps(run)
    assert len(maps) == 3
    for m in maps:
        d0 = m.start_distance
        assert d0 and [p.distance for p in m.points] == list(range(d0, -1, -1))
        assert m.first_departure is None and m.wasted_steps == 0 and m.final_distance == 0
        assert m.usable and not m.warnings
        assert [p.turn for p in m.points] == list(range(d0 + 1))


def test_a_detour_departs_at_its_turn_and_wastes_two_steps(tmp_path):
    actions, _ = _detour_actions()
    run = _replay_run(tmp_path, "detour", actions)
    (m,) = _maps(run)
    assert m.first_departure == {"turn": 2, "step": 2}
    assert m.wasted_steps == 2 and m.final_distance == 0 and m.usable
    d = [p.distance for p in m.points]
    assert d[2] == d[1] + 1 and d[3] == d[1]  # off the path, then back
    assert [p.departure for p in m.points].count(True) == 1


def test_invalid_and_unparseable_turns_are_wasted_but_not_departures(tmp_path):
    task = make_task("ivispar/sgp")
    actions = _oracle_rest(task, ["I am not sure what to do.", "action: move purple unicorn up"])
    run = _replay_run(tmp_path, "invalid", actions)
    (m,) = _maps(run)
    assert [p.validity for p in m.points[1:3]] == ["unparseable", "invalid"]
    assert not any(p.moved for p in m.points[1:3])
    assert m.first_departure is None and m.wasted_steps == 2 and m.final_distance == 0


def test_report_writes_the_section_the_plots_and_the_json(tmp_path):
    run_dir = tmp_path / "mixed"
    _run(run_dir, ["ivispar/sgp"], "random", episodes=3)
    out = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    assert "## Error maps" in text and "left every optimal path" in text
    section = text.split("## Error maps", 1)[1]
    assert "| ivispar/sgp · random" in section
    for name in ("error_distance_ivispar-sgp.png", "error_departures_ivispar-sgp.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "error_maps.json").read_text())
    assert data["groups"][0]["episodes"] == 3 and len(data["episodes"]) == 3
    assert {"left_optimal_path", "first_departure_step", "wasted_steps", "final_distance"} <= set(
        data["groups"][0]
    )
    assert not list(run_dir.glob("error_*"))  # reading a run never writes into it


def test_the_replay_page_draws_one_point_per_turn_and_marks_the_departure(tmp_path):
    actions, _ = _detour_actions()
    run = _replay_run(tmp_path, "page", actions)
    record = run["records"][0]
    steps, _ = RunReader(run["path"]).trajectory(record)
    page = render.episode_view(run, record, steps, render.app_links())
    svg = page.split('data-testid="progress-line"', 1)[1].split("</svg>", 1)[0]
    assert svg.count('<circle class="pt ') == len(steps) == record["turns"]
    assert svg.count(" departs") == 1 and 'class="departure"' in svg
    assert [f'data-goto="{i}"' in svg for i in range(1, len(steps) + 1)] == [True] * len(steps)
    assert "<script" not in svg and "style=" not in svg  # the CSP allows neither inline


def test_modality_gaps_pair_sgp_and_sgp_2d_by_instance(tmp_path):
    run = _run(tmp_path / "modal", ["ivispar/sgp", "ivispar/sgp-2d"], "random", episodes=4)
    groups = error_maps.run_groups([run])
    assert {g.modality for g in groups} == {"text", "2d"}
    (gap,) = error_summary.modality_gaps(groups)
    assert gap["shared"] == 4 and {gap["modality_a"], gap["modality_b"]} == {"text", "2d"}
    by_task = {g.task: {m.instance_id: m.final_distance for m in g.maps} for g in groups}
    a, b = by_task[gap["a"]], by_task[gap["b"]]
    expected = sum(a[i] - b[i] for i in a) / len(a)
    assert gap["final_distance"]["difference"] == pytest.approx(expected)
    assert gap["success"]["ci95"] is not None
    text = "\n".join(error_summary.to_markdown([run]))
    assert "### Modality gaps" in text and "ivispar/sgp-2d" in text


def test_an_old_run_without_the_newer_fields_still_maps(tmp_path):
    run = _run(tmp_path / "old", ["ivispar/sgp"], "random", episodes=2)
    before = [(m.first_departure, m.wasted_steps, m.final_distance) for m in _maps(run)]
    path = Path(run["path"])
    records = [json.loads(line) for line in (path / "episodes.jsonl").read_text().splitlines()]
    for record in records:
        for key in ("termination", "turns", "usage_breakdown", "usage_by_model", "error_kind", "calls"):
            record.pop(key, None)
        trajectory = path / record["trajectory"]
        lines = [json.loads(line) for line in trajectory.read_text().splitlines()]
        for i, line in enumerate(lines, 1):
            for key in ("turn", "info", "turns_before", "feedback_before", "calls", "rationale"):
                line.pop(key, None)
            line["step"] = i  # before turns were named, `step` was the line's position
        trajectory.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    config = json.loads((path / "config.json").read_text())
    config.pop("task_options_resolved", None)
    (path / "config.json").write_text(json.dumps(config))
    old = load_run(path)
    assert [(m.first_departure, m.wasted_steps, m.final_distance) for m in _maps(old)] == before
    assert "## Error maps" in to_markdown([old])


def test_a_disagreeing_replay_is_a_warning_naming_the_turn(tmp_path):
    run = _run(tmp_path / "tampered", ["ivispar/sgp"], "oracle")
    record = run["records"][0]
    trajectory = Path(run["path"]) / record["trajectory"]
    lines = [json.loads(line) for line in trajectory.read_text().splitlines()]
    lines[1]["validity"] = "invalid"
    trajectory.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (m,) = _maps(run)
    assert m.warnings == ["turn 2: replayed as effective, recorded as invalid"]
    assert not m.usable
    agg = error_summary.aggregate(error_maps.run_groups([run])[0])
    assert agg["diverged"] == 1 and agg["episodes"] == 0
    assert "replay disagreed" in "\n".join(error_summary.to_markdown([run]))


def test_a_run_that_cannot_be_planned_again_gets_a_note_not_an_error(tmp_path):
    run = _run(tmp_path / "unplanned", ["ivispar/sgp"], "oracle")
    run["config"] = {}
    record = run["records"][0]
    steps, _ = RunReader(run["path"]).trajectory(record)
    page = render.episode_view(run, record, steps, render.app_links())
    assert "No distance-to-goal line: the run has no readable config.json" in page


def test_the_cap_counts_the_episodes_it_skips(tmp_path):
    run = _run(tmp_path / "capped", ["ivispar/sgp"], "oracle", episodes=3)
    (group,) = error_maps.run_groups([run], limit=2)
    assert len(group.maps) == 2 and group.skipped == 1


def test_a_task_without_progress_gets_no_section_and_no_error(tmp_path, capsys):
    run = _run(tmp_path / "toy", ["toy/walk"], "random", episodes=2)
    assert error_maps.run_groups([run]) == [] and error_summary.to_data([run]) is None
    assert "## Error maps" not in to_markdown([run])
    paths = write_plots([run], tmp_path / "plots", error_maps=True)
    assert not [p for p in paths if p.name.startswith("error_")]
    record = run["records"][0]
    steps, _ = RunReader(run["path"]).trajectory(record)
    assert "progress-line" not in render.episode_view(run, record, steps, render.app_links())
    assert "warning" not in capsys.readouterr().err


def test_the_puzzles_report_their_distance_as_progress():
    for task_id in ("ivispar/sgp", "ivispar/sgp-3d", "ivispar/stp"):
        task = make_task(task_id)
        task.reset(task.instances(1, 0)[0])
        progress = task.progress()
        assert progress.distance == task.instance.optimal_steps and progress.fraction is None
    assert not error_maps.has_progress("ivispar/board-inference")


# --- the hook on other shapes of task: a fraction only, several seats with a judge -------------------


class FractionWalkTask(WalkTask):
    """The toy walk reporting only a progress fraction."""

    def progress(self):
        span = abs(self.instance.start - self.instance.target) or 1
        return Progress(fraction=1 - abs(self.pos - self.instance.target) / span)


class ConsultWithDistance(ConsultTask):
    """The toy expert/solver/judge task reporting the seats' moves left (judge turns are not moves)."""

    def progress(self):
        return Progress(distance=max(0, 2 - min(self.turn, 2)))


for _id, _cls in (("toy/walk-fraction", "FractionWalkTask"), ("toy/consult-distance", "ConsultWithDistance")):
    if _id not in registry._REGISTRY:
        registry.register(_id, f"{__name__}:{_cls}", description="test-only task", default=False)


def test_a_fraction_only_task_gets_its_curve_and_final_fraction(tmp_path):
    run = _run(tmp_path / "fraction", ["toy/walk-fraction"], "random", episodes=3)
    maps = _maps(run)
    assert len(maps) == 3 and all(m.usable for m in maps)
    for m in maps:
        assert all(p.distance is None and p.fraction is not None for p in m.points)
        assert m.first_departure is None and m.wasted_steps is None
    agg = error_summary.aggregate(error_maps.run_groups([run])[0])
    assert "final_fraction" in agg and "left_optimal_path" not in agg
    paths = write_plots([run], tmp_path / "plots", error_maps=True)
    assert {p.name for p in paths if p.name.startswith("error_")} == {"error_fraction_toy-walk-fraction.png"}
    record = run["records"][0]
    steps, _ = RunReader(run["path"]).trajectory(record)
    page = render.episode_view(run, record, steps, render.app_links())
    assert "progress after every turn" in page and page.count('<circle class="pt ') == len(steps)


def test_several_seats_and_a_judge_replay_as_the_runner_played_them(tmp_path):
    out = tmp_path / "consult"
    config = RunConfig(
        ["toy/consult-distance"],
        {"*": parse_agent("oracle")},
        str(out),
        episodes=2,
        task_options={"judge": True},
    )
    asyncio.run(execute(config))
    maps = _maps(load_run(out))
    assert len(maps) == 2
    for m in maps:
        assert m.usable, m.warnings
        assert [p.role for p in m.points] == [None, "expert", "solver", "judge"]
        assert [p.distance for p in m.points] == [2, 1, 0, 0] and not m.points[-1].moved
        assert m.first_departure is None
