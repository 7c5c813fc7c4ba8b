"""A run whose model cannot be reached: every episode errored, no score, an error summary, exit 1."""

import json

from playbench.cli import main


def test_unreachable_server_reports_zero_scored_draws_nothing_and_exits_non_zero(tmp_path, capsys):
    out = tmp_path / "down"
    argv = ["run", "toy/walk", "--agent", "llm", "--model", "openai:s", "--episodes", "2", "--out", str(out)]
    argv += ["--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--timeout", "2"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "0 / 2" in captured.out  # the table: 0 scored / 2 errored
    assert "2 of 2 episodes ended with an error (0 scored)" in captured.err
    assert "cannot connect" in captured.err and "--max-error-rate" in captured.err
    summary = json.loads((out / "summary.json").read_text())
    entry = summary["tasks"]["toy/walk"]
    assert entry["scored"] == 0 and entry["errors"] == 2 and entry["success"]["n"] == 0
    assert entry["success"]["ci95"] is None

    report = tmp_path / "rep"
    assert main(["report", str(out), "--out", str(report)]) == 0
    assert not list(report.glob("*.png"))  # no score, so no figure draws one
    text = (report / "report.md").read_text()
    assert "| 0 / 2 | – |" in text and "cannot connect" in text

    # a tolerated share of errors exits 0, and resume runs the errored episodes again
    assert main([*argv, "--max-error-rate", "1"]) == 0
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 4


def test_max_error_rate_must_be_a_share(tmp_path, capsys):
    code = main(
        ["run", "toy/walk", "--agent", "random", "--max-error-rate", "2", "--out", str(tmp_path / "x")]
    )
    assert code == 2 and "--max-error-rate" in capsys.readouterr().err
