"""report.md: the suites' own summaries (summary.json's task `extra`) come out as readable tables."""

import asyncio

from playbench.agents import AgentSpec
from playbench.report.tables import extra_markdown, load_run, to_markdown
from playbench.runner.run import RunConfig, execute


def test_extra_values_become_tables_lines_or_json():
    assert extra_markdown(0.123456) == ["0.1235"]
    assert extra_markdown([0.0, 0.5, None]) == ["0, 0.5, –"]
    assert extra_markdown({"n": 3, "SR": 50.0}) == ["|  | n | SR |", "|---|---|---|", "| value | 3 | 50 |"]
    by_row = extra_markdown({"wire": {"n": 2, "SR": 1.0}, "maze": {"n": 2, "PSR": 0.25}})
    assert by_row[0] == "|  | n | SR | PSR |" and by_row[2:] == [
        "| wire | 2 | 1 | – |",
        "| maze | 2 | – | 0.25 |",
    ]
    columns = extra_markdown({"k": [1, 2], "rate": [0.1, 0.2]})
    assert columns[0] == "| # | k | rate |" and columns[-1] == "| 2 | 2 | 0.2 |"
    rows = extra_markdown([{"a": "x|y"}, {"a": "z"}])
    assert rows[2] == "| 1 | x\\|y |"  # a pipe in a value does not split the cell
    ragged = extra_markdown({"k": [1, 2], "rate": [0.1]})
    assert ragged[0] == "```json" and '"rate": [0.1]' in ragged[1]
    long = extra_markdown({"nested": {"deep": {"deeper": list(range(2000))}}})
    assert long[1].endswith(" …") and len(long[1]) < 2100


def test_report_markdown_shows_a_comma_per_puzzle_table(tmp_path):
    out = tmp_path / "r"
    config = RunConfig(tasks=["comma/all"], agents={"*": AgentSpec("oracle")}, out=str(out), episodes=10)
    asyncio.run(execute(config))
    text = to_markdown([load_run(out)])
    section = text.split("## Task summaries", 1)[1]
    assert "### comma/all · oracle" in section and "**by_module**" in section
    table = section.split("**by_module**", 1)[1].split("**", 1)[0]
    puzzles = [line.split("|")[1].strip() for line in table.strip().splitlines()[2:]]
    assert sorted(puzzles) == sorted(
        ["button", "color", "dog", "keypad", "led", "maze", "memory", "password", "who", "wire"]
    )
    assert all("| 100 | 100 |" in line for line in table.strip().splitlines()[2:])  # SR and PSR of the oracle
