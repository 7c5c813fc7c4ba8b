"""Report plots: the generic figure, the iVISPAR figures, skipping on missing data, never crashing."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from playbench.agents import AgentSpec
from playbench.report import plots
from playbench.report.plots import agent_label, slug, split_by_suite, write_plots
from playbench.report.tables import load_run
from playbench.runner.run import RunConfig, execute
from playbench.tasks.ivispar import plots as ivispar_plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
COUNTERS = (
    "actions_effective",
    "actions_ineffective",
    "actions_occupied",
    "actions_out_of_bounds",
    "actions_illegal",
)
INFERENCE = (
    "correct",
    "missed",
    "hallucinated",
    "coord_errors",
    "color_errors",
    "shape_errors",
    "format_errors",
)


def sgp_records(
    task: str, agent: str, model: str | None, seed: int, counters: bool = True
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for g in range(2, 6):
        for length in range(2, 6):
            solved = rng.random() < 0.5
            metrics: dict[str, Any] = {
                "num_geoms": g,
                "optimal_steps": length,
                "final_distance": 0 if solved else rng.randint(1, 9),
            }
            if counters:
                metrics.update({k: rng.randint(0, 5) for k in COUNTERS})
            out.append(
                {
                    "task": task,
                    "instance_id": f"g{g}-l{length}",
                    "trial": 0,
                    "agent": agent,
                    "model": model,
                    "success": solved,
                    "steps": length if solved else 20,
                    "optimal_steps": length,
                    "metrics": metrics,
                    "error": None,
                }
            )
    return out


def inference_records(agent: str, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(30):
        g = rng.randint(2, 8)
        metrics = {k: rng.randint(0, 3) for k in INFERENCE}
        metrics["num_geoms"] = g
        out.append(
            {
                "task": "ivispar/board-inference",
                "instance_id": f"b{i}",
                "trial": 0,
                "agent": agent,
                "model": None,
                "success": metrics["correct"] == g,
                "steps": 1,
                "optimal_steps": None,
                "metrics": metrics,
                "error": None,
            }
        )
    return out


def run_dict(
    name: str, records: list[dict[str, Any]], modalities: dict[str, str] | None = None
) -> dict[str, Any]:
    resolved = {task: {"modality": m} for task, m in (modalities or {}).items()}
    return {
        "path": f"/runs/{name}",
        "name": name,
        "config": {"task_options_resolved": resolved},
        "summary": {"tasks": {}, "episodes": len(records)},
        "records": records,
    }


def synthetic_runs() -> list[dict[str, Any]]:
    return [
        run_dict("text", sgp_records("ivispar/sgp", "random", None, 1), {"ivispar/sgp": "text"}),
        run_dict(
            "2d",
            sgp_records("ivispar/sgp-2d", "llm(openai:gpt-4o)", "openai:gpt-4o", 2),
            {"ivispar/sgp-2d": "2d"},
        ),
        # no config: the modality comes from the task id's suffix
        run_dict("3d", sgp_records("ivispar/sgp-3d", "random", None, 3)),
        run_dict("inf-2d", inference_records("llm(openai:gpt-4o)", 4), {"ivispar/board-inference": "2d"}),
        run_dict("inf-3d", inference_records("llm(openai:gpt-4o)", 5), {"ivispar/board-inference": "3d"}),
    ]


def assert_png(path: Path, min_bytes: int = 10_000) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, path
    assert len(data) > min_bytes, (path, len(data))


def names(paths: list[Path]) -> set[str]:
    return {p.name for p in paths}


# --- the iVISPAR figures ----------------------------------------------------------------------
def test_ivispar_figures_from_synthetic_runs(tmp_path: Path) -> None:
    paths = write_plots(synthetic_runs(), tmp_path)
    expected = {
        "ivispar_success_deviation.png",
        "ivispar_action_classes.png",
        "ivispar_heatmap_random_text.png",
        "ivispar_heatmap_random_3d.png",
        "ivispar_heatmap_llm-openai-gpt-4o_2d.png",
        "ivispar_board_inference.png",
        "ivispar_board_inference_geoms.png",
    }
    assert names(paths) == expected
    for path in paths:
        assert path.parent == tmp_path
        assert_png(path)


def test_real_run_through_the_runner(tmp_path: Path) -> None:
    out = tmp_path / "run"
    asyncio.run(execute(RunConfig(["ivispar/sgp"], {"*": AgentSpec("random")}, str(out), episodes=10)))
    run = load_run(out)
    paths = write_plots([run], tmp_path / "report")
    assert names(paths) == {
        "ivispar_success_deviation.png",
        "ivispar_action_classes.png",
        "ivispar_heatmap_random_text.png",
    }
    for path in paths:
        assert_png(path)


def test_output_is_byte_identical_for_the_same_data(tmp_path: Path) -> None:
    first = write_plots(synthetic_runs(), tmp_path / "a")
    second = write_plots(synthetic_runs(), tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
        assert b"matplotlib" not in a.read_bytes()  # no Software tag with a version in it


def test_modality_from_config_then_suffix_then_registry() -> None:
    run = run_dict("r", [], {"ivispar/sgp": "2d"})
    assert ivispar_plots.modality_of(run, "ivispar/sgp") == "2d"
    assert ivispar_plots.modality_of({}, "ivispar/sgp-3d") == "3d"
    assert ivispar_plots.modality_of({}, "ivispar/sgp") == "text"  # registered variant's kwargs
    assert ivispar_plots.modality_of({}, "ivispar/no-such-task") == ivispar_plots.UNKNOWN_MODALITY


# --- skipping figures without data ------------------------------------------------------------
def test_sgp_only_has_no_board_inference_figures(tmp_path: Path) -> None:
    paths = write_plots(synthetic_runs()[:1], tmp_path)
    assert not any("board_inference" in p.name for p in paths)
    assert "ivispar_success_deviation.png" in names(paths)


def test_inference_only_has_no_sgp_figures(tmp_path: Path) -> None:
    paths = write_plots(synthetic_runs()[3:], tmp_path)
    assert names(paths) == {"ivispar_board_inference.png", "ivispar_board_inference_geoms.png"}
    assert not (tmp_path / "ivispar_success_deviation.png").exists()


def test_missing_metrics_skip_their_figures(tmp_path: Path) -> None:
    records = sgp_records("ivispar/sgp", "random", None, 7, counters=False)
    for rec in records:  # an older run: neither the counters nor the complexity scales
        del rec["metrics"]["num_geoms"]
    paths = write_plots([run_dict("old", records)], tmp_path)
    assert names(paths) == {"ivispar_success_deviation.png"}


def test_success_only_records_draw_one_panel(tmp_path: Path) -> None:
    records = [
        {"task": "ivispar/sgp", "agent": "random", "model": None, "success": i % 3 == 0, "metrics": {}}
        for i in range(12)
    ]
    paths = write_plots([run_dict("bare", records)], tmp_path)
    assert names(paths) == {"ivispar_success_deviation.png"}
    assert_png(paths[0], 5_000)


def test_no_runs_or_no_records_write_nothing(tmp_path: Path) -> None:
    assert write_plots([], tmp_path / "x") == []
    assert write_plots([run_dict("empty", [])], tmp_path / "y") == []
    assert not (tmp_path / "x").exists()


# --- the generic figure and suite routing -----------------------------------------------------
def test_suite_without_plots_module_gets_generic_figure(tmp_path: Path) -> None:
    records = [
        {"task": f"toy/{t}", "agent": a, "model": None, "success": i % 2 == 0}
        for t in ("walk", "run")
        for a in ("random", "oracle")
        for i in range(5)
    ]
    paths = write_plots([run_dict("toy", records)], tmp_path)
    assert names(paths) == {"toy_success.png"}
    assert_png(paths[0])


def test_mixed_run_is_split_by_suite(tmp_path: Path) -> None:
    records = sgp_records("ivispar/sgp", "random", None, 1) + [
        {"task": "toy/walk", "agent": "random", "model": None, "success": True} for _ in range(4)
    ]
    split = split_by_suite([run_dict("mixed", records)])
    assert list(split) == ["ivispar", "toy"]
    assert all(r["task"].startswith("ivispar/") for r in split["ivispar"][0]["records"])
    paths = write_plots([run_dict("mixed", records)], tmp_path)
    assert "toy_success.png" in names(paths) and "ivispar_success_deviation.png" in names(paths)


def test_other_ivispar_tasks_get_the_generic_figure(tmp_path: Path) -> None:
    records = [
        {"task": "ivispar/stp", "agent": "random", "model": None, "success": i % 2 == 0} for i in range(6)
    ]
    paths = write_plots([run_dict("stp", records)], tmp_path)
    assert names(paths) == {"ivispar_success.png"}


# --- failures never crash the report ----------------------------------------------------------
def test_one_failing_figure_skips_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(rows: Any, out_dir: Path) -> list[Path]:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr(ivispar_plots, "plot_action_classes", boom)
    paths = write_plots(synthetic_runs(), tmp_path)
    assert "ivispar_action_classes.png" not in names(paths)
    assert "ivispar_success_deviation.png" in names(paths)
    assert "ivispar_board_inference.png" in names(paths)
    err = capsys.readouterr().err
    assert "action classes" in err and "synthetic failure" in err


def test_failing_suite_module_falls_back_to_generic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(runs: Any, out_dir: Path) -> list[Path]:
        raise ValueError("suite plots broke")

    monkeypatch.setattr(ivispar_plots, "make_plots", boom)
    paths = write_plots(synthetic_runs(), tmp_path)
    assert names(paths) == {"ivispar_success.png"}
    assert "suite plots broke" in capsys.readouterr().err


def test_garbage_metrics_do_not_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = sgp_records("ivispar/sgp", "random", None, 1)
    records[0]["metrics"] = {"num_geoms": "many", "final_distance": None, "actions_effective": [1]}
    records[1]["metrics"] = None
    records[2] = {"task": "ivispar/sgp", "agent": "random"}  # a torn record
    paths = write_plots([run_dict("bad", records)], tmp_path)
    assert "ivispar_success_deviation.png" in names(paths)
    for path in paths:
        assert_png(path)


def test_unwritable_output_warns_instead_of_raising(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    records = [{"task": "toy/walk", "agent": "random", "model": None, "success": True}]
    paths = write_plots([run_dict("toy", records)], blocker / "plots")
    assert paths == []
    assert "warning" in capsys.readouterr().err


# --- helpers ----------------------------------------------------------------------------------
def test_labels_and_slugs() -> None:
    assert agent_label({"agent": "llm(openai:gpt-4o)", "model": "openai:gpt-4o"}) == "llm(openai:gpt-4o)"
    assert agent_label({"agent": "memory", "model": "openai:gpt-4o"}) == "memory (openai:gpt-4o)"
    assert agent_label({"agent": "random", "model": None}) == "random"
    assert slug("llm(openai:gpt-4o)") == "llm-openai-gpt-4o"
    assert slug("///") == "unnamed"
    assert plots.order_labels(["random", "oracle", "llm(b)", "llm(a)", "human"]) == [
        "llm(a)",
        "llm(b)",
        "human",
        "random",
        "oracle",
    ]


def test_intervals() -> None:
    value, lo, hi = plots.proportion_ci([True, False, True, True])
    assert value == 0.75 and 0 < lo < value < hi < 1
    mean, lo, hi = plots.mean_ci([1.0, 2.0, 3.0])
    assert mean == 2.0 and lo < 2.0 < hi
    assert all(v != v for v in plots.mean_ci([]))  # NaNs for no data
