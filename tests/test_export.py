"""`playbench export`: run directories as Parquet tables or a Hugging Face DatasetDict, and
`playbench.results.load_export`, which must give back exactly the frames `results.load` gives for the
original directories (a run with images, a two-seat COMMA run, an llm run with calls, a sweep)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
datasets = pytest.importorskip("datasets")

from playbench import results  # noqa: E402
from playbench.cli import main  # noqa: E402
from playbench.core.errors import ConfigError  # noqa: E402
from playbench.export import build, load_export, read_manifest, read_table  # noqa: E402
from playbench.export.loader import call_line, turn_line  # noqa: E402
from playbench.export.tables import CALL_FIELDS, TURN_FIELDS, split_line  # noqa: E402
from playbench.runner.reader import RunReader, find_runs  # noqa: E402

KINDS = ("images", "comma", "llm", "sweep")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Four small run directories (made once for the module): iVISPAR 2D boards with their images,
    COMMA with two seats, an llm run on a mock model (calls with images and repeated texts), a sweep."""
    base = tmp_path_factory.mktemp("runs")
    replies = base / "replies.txt"
    replies.write_text("action: move blue sphere left\nI would say action: move red cube up\n")
    good, bad = base / "good.txt", base / "bad.txt"
    good.write_text("action: right\naction: left\n")
    bad.write_text("no idea\n")
    sweep = base / "sweep.yaml"
    sweep.write_text(
        f"out: {base / 'sweep'}\ntasks: [toy/walk]\nagent: llm\nmodels: [mock:{good}, mock:{bad}]\n"
        "episodes: 2\nset: {length: 5}\ngrid:\n  set: {max_steps: [3, 6]}\n"
    )
    commands = {
        "images": ["ivispar/sgp-2d", "--agent", "random", "--episodes", "2", "--set", "max_steps=3"],
        "comma": ["comma/button", "--agent", "random", "--episodes", "2"],
        "llm": ["ivispar/sgp-2d", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "2"]
        + ["--set", "max_steps=4", "--history", "2"],
    }
    out = {}
    for kind, argv in commands.items():
        out[kind] = base / kind
        assert main(["run", *argv, "--out", str(out[kind])]) == 0
    assert main(["run", "--config", str(sweep)]) == 0
    out["sweep"] = base / "sweep"
    return out


def expected(*dirs: Path, steps: bool = True, calls: bool = True) -> results.Results:
    """What `results.load` gives for the DIRs: one DIR's frames, or several DIRs' concatenated."""
    frames = [results.load(d, steps=steps, calls=calls) for d in dirs]
    if len(frames) == 1:
        return frames[0]
    return results.Results(*(pd.concat([f[i] for f in frames], ignore_index=True) for i in range(3)))


def assert_same(got: results.Results, want: results.Results) -> None:
    for name in ("episodes", "steps", "calls"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(want, name), check_exact=True)


def test_the_fixture_runs_hold_what_the_tests_need(runs):
    episodes, steps, calls = expected(*(runs[k] for k in KINDS))
    assert set(steps[steps.run == "comma"]["role"]) == {"solver", "expert"}
    assert len(calls[calls.run == "llm"]) == len(steps[steps.run == "llm"]) > 0
    assert "cell" in episodes and episodes["cell"].nunique() == 4
    # the llm run's calls file writes long repeated texts once (the export must put them back)
    assert any("repeat_of" in p.read_text() for p in (runs["llm"] / "trajectories").glob("*.calls.jsonl"))
    assert list((runs["images"] / "trajectories").glob("*/*.png"))


@pytest.mark.parametrize("kind", KINDS)
def test_parquet_export_of_each_kind_loads_back_as_results_load(runs, tmp_path, kind):
    out = tmp_path / "export"
    assert main(["export", str(runs[kind]), "--format", "parquet", "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} >= {
        "episodes.parquet",
        "turns.parquet",
        "calls.parquet",
        "manifest.json",
    }
    assert_same(results.load_export(out), expected(runs[kind]))
    assert_same(
        results.load_export(out, steps=False, calls=False), expected(runs[kind], steps=False, calls=False)
    )


@pytest.mark.parametrize("images", ["bytes", "files", "none"])
def test_hf_export_of_all_kinds_round_trips_through_datasets_and_results(runs, tmp_path, images):
    out = tmp_path / "hf"
    dirs = [str(runs[k]) for k in KINDS]
    assert main(["export", *dirs, "--format", "hf", "--out", str(out), "--images", images]) == 0
    assert_same(results.load_export(out), expected(*(runs[k] for k in KINDS)))

    data = datasets.load_from_disk(str(out))
    want = expected(*(runs[k] for k in KINDS))
    assert set(data) == {"episodes", "turns", "calls"} | ({"images"} if images != "none" else set())
    assert (data["episodes"].num_rows, data["turns"].num_rows, data["calls"].num_rows) == tuple(
        map(len, want)
    )
    provenance = json.loads(data["turns"].info.description)
    assert provenance["runs"]["comma"]["config"] == RunReader(runs["comma"]).config()
    assert provenance["images"] == images

    turns = data["turns"]
    with_image = next(i for i, row in enumerate(turns["images"]) if row)
    ref = turns[with_image]["images"][0]
    png = runs[turns[with_image]["run"]] / "trajectories" / ref["file"]
    if images == "bytes":  # the datasets Image feature: a PIL image of the PNG on file
        from PIL import Image

        assert ref["image"].size == Image.open(png).size
        stored = data["images"].data.table.to_pylist()
        assert {r["file"] for r in stored} >= {ref["file"]}
        assert next(r for r in stored if r["file"] == ref["file"])["image"]["bytes"] == png.read_bytes()
    elif images == "files":
        assert (out / ref["path"]).read_bytes() == png.read_bytes()
        assert not Path(ref["path"]).is_absolute()
    else:
        assert set(ref) == {"file", "label"}
        assert not (out / "images").exists()


def test_parquet_bytes_images_and_metadata(runs, tmp_path):
    out = tmp_path / "export"
    dirs = [str(runs["images"]), str(runs["llm"])]
    assert main(["export", *dirs, "--format", "parquet", "--out", str(out), "--images", "bytes"]) == 0
    for table in ("episodes", "turns", "calls", "images"):
        provenance = json.loads(pq.read_schema(out / f"{table}.parquet").metadata[b"playbench"])
        config = RunReader(runs["llm"]).config()
        assert provenance["runs"]["llm"]["config"] == config
        assert provenance["sources"] == [{"dir": d, "runs": [Path(d).name]} for d in dirs]
    episodes = read_table(out, "episodes", read_manifest(out))
    stamp = RunReader(runs["images"]).config()["fidelity"]["ivispar/sgp-2d"]
    assert json.loads(episodes[0]["fidelity"]) == stamp
    # every PNG the trajectories and calls name is in the images table, once, byte for byte
    images = pq.read_table(out / "images.parquet").to_pylist()
    on_disk = {
        (run, p.relative_to(runs[run] / "trajectories").as_posix()): p.read_bytes()
        for run in ("images", "llm")
        for p in (runs[run] / "trajectories").glob("*/*.png")
    }
    assert {(r["run"], r["file"]): r["image"] for r in images} == on_disk
    assert_same(results.load_export(out), expected(runs["images"], runs["llm"]))


def test_calls_hold_full_texts_and_lines_come_back_exactly(runs, tmp_path):
    out = tmp_path / "export"
    assert (
        main(["export", str(runs["llm"]), str(runs["comma"]), "--format", "parquet", "--out", str(out)]) == 0
    )
    manifest = read_manifest(out)
    call_rows = read_table(out, "calls", manifest)
    assert "repeat_of" not in "".join(r["messages"] for r in call_rows)
    turn_rows = read_table(out, "turns", manifest)
    for name in ("llm", "comma"):
        reader = RunReader(runs[name])
        # a field a line lacks (`error` of a turn that did not crash) reads back as null
        want_turns = [
            {**dict.fromkeys(n for n, _ in TURN_FIELDS), **line}
            for rec in reader.records()
            for line in reader.trajectory(rec)[0]
        ]
        want_calls = [
            {**dict.fromkeys(n for n, _ in CALL_FIELDS), **call}
            for rec in reader.records()
            for call in reader.calls(rec)[0]
        ]
        assert [turn_line(r) for r in turn_rows if r["run"] == name] == want_turns
        assert [call_line(r) for r in call_rows if r["run"] == name] == want_calls
    agents = {(r["role"], r["agent"]) for r in turn_rows if r["run"] == "comma"}
    assert agents == {("solver", "random"), ("expert", "random")}  # each seat's agent, for a later filter


def test_odd_fields_survive_in_extra():
    line = {"turn": 2, "step": 1.0, "role": "player", "images": [{"file": "a.png"}], "traceback": "boom"}
    row, extra = split_line(line, TURN_FIELDS)
    assert row["step"] is None and extra == {"step": 1.0, "images": [{"file": "a.png"}], "traceback": "boom"}
    back = turn_line({**row, "extra": json.dumps(extra)})
    assert {k: v for k, v in back.items() if v is not None} == line


def test_bad_input_is_one_line_and_exit_2(runs, tmp_path, capsys):
    out = tmp_path / "export"
    cases = [
        ([str(tmp_path / "missing")], "parquet", "does not exist"),
        ([str(tmp_path)], "parquet", "is not a run directory"),
        ([str(runs["comma"])], "csv", "unknown export format 'csv'"),
        ([str(runs["comma"]), str(runs["comma"])], "parquet", "two runs are named 'comma'"),
    ]
    for dirs, fmt, needle in cases:
        assert main(["export", *dirs, "--format", fmt, "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and len(err.splitlines()) == 1, err
    assert main(["export", str(runs["comma"]), "--format", "hf", "--out", str(out), "--images", "raw"]) == 2
    assert "unknown --images mode 'raw'" in capsys.readouterr().err
    assert not out.exists()

    # an existing non-empty --out: refused; --force replaces an earlier export, and nothing else
    assert main(["export", str(runs["comma"]), "--format", "parquet", "--out", str(out)]) == 0
    assert main(["export", str(runs["images"]), "--format", "parquet", "--out", str(out)]) == 2
    assert "exists and is not empty (--force" in capsys.readouterr().err
    assert main(["export", str(runs["images"]), "--format", "hf", "--out", str(out), "--force"]) == 0
    assert_same(results.load_export(out), expected(runs["images"]))
    assert (
        main(["export", str(runs["images"]), "--format", "hf", "--out", str(runs["comma"]), "--force"]) == 2
    )
    assert "not a playbench export" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary folder left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["export", str(runs["comma"]), "--format", "parquet", "--out", str(empty)]) == 0

    with pytest.raises(ConfigError, match="not a playbench export"):
        results.load_export(runs["comma"])
    with pytest.raises(ConfigError, match="does not exist"):
        load_export(tmp_path / "nowhere")


def test_a_failed_export_writes_nothing_and_keeps_the_earlier_one(runs, tmp_path, monkeypatch):
    out = tmp_path / "export"
    assert main(["export", str(runs["comma"]), "--format", "parquet", "--out", str(out)]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    calls = {"n": 0}
    original = build.ExportWriter.add

    def fail_on_second(self, rows):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return original(self, rows)

    monkeypatch.setattr(build.ExportWriter, "add", fail_on_second)
    with pytest.raises(OSError, match="disk full"):
        build.export_runs([str(runs["images"])], out, fmt="hf", force=True)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    calls["n"] = 0
    with pytest.raises(OSError):
        build.export_runs([str(runs["images"])], tmp_path / "new", fmt="parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_damaged_lines_are_skipped_with_a_warning(runs, tmp_path, capsys):
    run = tmp_path / "damaged"
    shutil.copytree(runs["llm"], run)
    with (run / "episodes.jsonl").open("a") as f:
        f.write("{not json\n")
    trajectory = next((run / "trajectories").glob("*__t0.jsonl"))
    trajectory.write_text(trajectory.read_text() + "garbage\n")
    out = tmp_path / "export"
    assert main(["export", str(run), "--format", "parquet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "is not JSON and was skipped" in err and "trajectory line" in err
    assert_same(results.load_export(out), expected(run))
    assert read_manifest(out)["warnings"]["damaged"]

    (run / "episodes.jsonl").write_text("{broken\n")
    assert main(["export", str(run), "--format", "parquet", "--out", str(tmp_path / "e2")]) == 1
    assert "no readable episode" in capsys.readouterr().err


def test_a_sweep_folder_and_its_parent_name_runs_as_results_load_does(runs, tmp_path):
    out = tmp_path / "export"
    assert main(["export", str(runs["sweep"].parent), "--format", "parquet", "--out", str(out)]) == 0
    want = expected(runs["sweep"].parent)
    assert_same(results.load_export(out), want)
    names = {p.relative_to(runs["sweep"].parent).as_posix() for p in find_runs(runs["sweep"].parent)}
    assert set(want.episodes["run"]) == names and any("/" in n for n in names)
    manifest = read_manifest(out)
    assert {r: (out / "images" / r).is_dir() for r in ("images", "llm")} == {"images": True, "llm": True}
    assert manifest["tables"]["episodes"]["rows"] == len(want.episodes)


def test_a_run_without_its_image_files_exports_references_and_says_so_once(runs, tmp_path, capsys):
    run = tmp_path / "no-images"
    shutil.copytree(runs["comma"], run)  # the solver's turns show the module as an image
    for folder in (run / "trajectories").iterdir():
        if folder.is_dir():
            shutil.rmtree(folder)
    out = tmp_path / "export"
    assert main(["export", str(run), "--format", "parquet", "--out", str(out), "--images", "bytes"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "--no-images" in warnings[0]
    assert pq.read_table(out / "images.parquet").num_rows == 0
    refs = [ref for row in read_table(out, "turns", read_manifest(out)) for ref in row["images"] or []]
    assert refs and all(ref["image"] is None for ref in refs)
    assert_same(results.load_export(out), expected(run))
