"""`playbench report DIR... --site OUT`: the static leaderboard site (issue 28, item 5).

Real runs (random and oracle agents, an llm run with a mock model whose replies carry HTML, and a
paper preset run made by `playbench reproduce`) reported with `--out X --site S`; the site's tables
are parsed and compared cell by cell with report.md's, and every page, link and image is checked.
"""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from playbench.cli import main
from playbench.report.tables import load_run
from playbench.site import MARKER, build_site

INJECTION = "<script>window.__pwned = 1</script><img src=x onerror=alert(1)>"


# ----------------------------------------------------------------------------------- parsing
class Page(HTMLParser):
    """A page's tables (by id, and in order), its links and images, every tag and its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []  # {"id", "head": [...], "rows": [[...]], "title"}
        self.stack: list[dict] = []
        self.cell: list[str] | None = None
        self.in_head = False
        self.tags: list[tuple[str, dict]] = []
        self.heading: list[str] | None = None
        self.last_heading = ""
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "table":
            self.stack.append(
                {"id": attributes.get("id"), "head": [], "rows": [], "title": self.last_heading, "row": None}
            )
        elif tag == "thead" and self.stack:
            self.in_head = True
        elif tag == "tr" and self.stack and not self.in_head:
            self.stack[-1]["row"] = []
        elif tag in ("td", "th") and self.stack:
            self.cell = []
        elif tag in ("h1", "h2", "h3"):
            self.heading = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.stack and self.cell is not None:
            text = " ".join("".join(self.cell).replace("\u00a0", " ").split())
            table = self.stack[-1]
            (table["head"] if self.in_head else table["row"]).append(text)
            self.cell = None
        elif tag == "thead":
            self.in_head = False
        elif tag == "tr" and self.stack and self.stack[-1]["row"] is not None:
            self.stack[-1]["rows"].append(self.stack[-1]["row"])
            self.stack[-1]["row"] = None
        elif tag == "table" and self.stack:
            self.tables.append(self.stack.pop())
        elif tag in ("h1", "h2", "h3") and self.heading is not None:
            self.last_heading = " ".join("".join(self.heading).split())
            self.heading = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.heading is not None:
            self.heading.append(data)
        self.text.append(data)

    def table(self, table_id: str) -> dict:
        (found,) = [t for t in self.tables if t["id"] == table_id]
        return found


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def markdown_tables(text: str) -> list[tuple[str, list[list[str]]]]:
    """Every Markdown table of report.md as (the heading above it, rows including the header row)."""
    out, heading, rows = [], "", []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(re.fullmatch(r"-+", c) for c in cells):
                rows.append(cells)
            continue
        if rows:
            out.append((heading, rows))
            rows = []
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
    return out


def md_table(tables, heading: str) -> list[list[str]]:
    (found,) = [rows for title, rows in tables if title == heading]
    return found


# ----------------------------------------------------------------------------------- the runs
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    replies = root / "replies.jsonl"
    replies.write_text(
        json.dumps(f"I think {INJECTION}\naction: move green cube up")
        + "\n"
        + json.dumps("action: none")
        + "\n"
    )
    runs = {
        "random": ["run", "ivispar/sgp-2d", "--agent", "random", "--episodes", "3"],
        "oracle": ["run", "ivispar/sgp-2d", "--agent", "oracle", "--episodes", "3"],
        "mock": ["run", "ivispar/sgp-2d", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "2"],
        "preset": ["reproduce", "comma", "--agent", "random", "--episodes", "1"],
    }
    for name, argv in runs.items():
        assert main([*argv, "--out", str(root / name)]) == 0, name
    dirs = [str(root / name) for name in runs]
    assert main(["report", *dirs, "--out", str(root / "report"), "--site", str(root / "site")]) == 0
    return root, dirs


def site_of(built) -> Path:
    return built[0] / "site"


def html_files(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# ----------------------------------------------------------------------------------- tables
def test_the_scorecard_and_the_headline_table_are_report_mds(built):
    root, dirs = built
    md = markdown_tables((root / "report" / "report.md").read_text())
    index = parse(site_of(built) / "index.html")

    headline = md[0][1]  # the first table of report.md is its headline
    table = index.table("headline")
    assert table["head"] == headline[0]
    assert table["rows"] == headline[1:]
    assert len(table["rows"]) == 3 + 10  # three ivispar runs, ten COMMA puzzles

    grid = md_table(md, "Tasks × models")
    scorecard = index.table("scorecard")
    assert [h.split(" (")[0] for h in scorecard["head"][2:]] == grid[0][1:]
    assert [row[1:] for row in scorecard["rows"]] == grid[1:]
    # each cell holds the success rate, its interval and the counts: e.g. "0.0% [0.0, 56.1] (3 / 0)"
    cells = [c for row in scorecard["rows"] for c in row[2:] if c != "–"]
    assert cells and all(
        re.fullmatch(r"\d+\.\d% (\[\d+\.\d, \d+\.\d\]|\(n < 2\)) \(\d+ / \d+\)", c) for c in cells
    )
    # the success cells match summary.json's numbers
    for directory in dirs:
        run = load_run(directory)
        for entry in run["summary"]["tasks"].values():
            (row,) = [r for r in table["rows"] if r[0] == run["name"] and r[1] == entry["task"]]
            assert row[5].startswith(f"{100 * entry['success']['value']:.1f}%")
            assert row[4] == f"{entry['scored']} / {entry['errors']}"


def test_suite_pages_hold_the_paper_tables_paired_comparisons_and_metrics_of_report_md(built):
    root, _ = built
    text = (root / "report" / "report.md").read_text()
    md = markdown_tables(text)
    site = site_of(built)
    suites = {p.stem: parse(p) for p in sorted((site / "suites").glob("*.html"))}
    assert set(suites) == {"comma", "ivispar"}

    # Beside the paper: the preset run (comma) beside the paper's rows, as report.md
    papers = [(title, rows) for title, rows in md if title.startswith("Table ")]
    assert papers
    comma_tables = [t for t in suites["comma"].tables if (t["id"] or "").startswith("paper-comma-")]
    assert len(comma_tables) == len(papers)
    for (title, rows), table in zip(papers, comma_tables, strict=True):
        assert table["title"] == title
        assert table["head"] == [rows[0][0], "source", *rows[0][1:]]
        expected = [[r[0].strip("*"), *r[1:]] for r in rows[1:]]
        assert [[r[0], *r[2:]] for r in table["rows"]] == expected
        assert any(r[1] == "run" for r in table["rows"]) and any(r[1] == "paper" for r in table["rows"])
    # ivispar's runs were not made with its preset: the paper's rows stand alone
    ivispar_papers = [t for t in suites["ivispar"].tables if (t["id"] or "").startswith("paper-ivispar-")]
    assert ivispar_papers and all(r[1] == "paper" for t in ivispar_papers for r in t["rows"])

    # paired comparisons: every pair of report.md, on its suite's page
    paired = md_table(md, "Paired comparisons over shared instances")
    site_pairs = [
        r for page in suites.values() for t in page.tables if t["id"] == "paired" for r in t["rows"]
    ]
    assert sorted(site_pairs) == sorted(paired[1:])
    assert any(r[0] == "ivispar/sgp-2d" and r[6] != "–" for r in site_pairs)

    # all metrics: every group of report.md with the same rows
    groups = {title: rows for title, rows in md if rows[0] == ["metric", "n", "value", "95% interval"]}
    site_groups = {}
    for page in suites.values():
        for t in page.tables:
            if t["head"] == ["metric", "n", "value", "95% interval"]:
                site_groups[t["title"]] = t["rows"]
    assert set(site_groups) == set(groups)
    for title, rows in groups.items():
        assert site_groups[title] == rows[1:], title


def test_model_pages_list_every_task_the_agent_played(built):
    site = site_of(built)
    index = parse(site / "index.html")
    headline = index.table("headline")["rows"]
    pages = sorted((site / "models").glob("*.html"))
    assert len(pages) == len(index.table("models")["rows"]) == 3  # random, oracle, the mock model
    seen = []
    for path in pages:
        rows = parse(path).table("headline")["rows"]
        assert len({r[2] for r in rows}) == 1  # one agent per page
        seen += rows
    assert sorted(seen) == sorted(headline)


def test_fidelity_stamps_are_shown_per_task(built):
    _, dirs = built
    rows = parse(site_of(built) / "index.html").table("fidelity-all")["rows"]
    for directory in dirs:
        config = json.loads((Path(directory) / "config.json").read_text())
        for task, stamp in config["fidelity"].items():
            assert [Path(directory).name, task, stamp["texts"], stamp["data"], stamp["model_side"]] in rows


# ----------------------------------------------------------------------------------- pages
def test_every_episode_has_a_replay_page_with_its_images_written_once(built):
    _, dirs = built
    site = site_of(built)
    records = {Path(d).name: load_run(d)["records"] for d in dirs}
    for name, recs in records.items():
        pages = sorted((site / "episodes" / name).glob("*.html"))
        assert len(pages) == len(recs), name
    # every image of every run, once, named by its bytes; shared images (the oracle's and the random
    # agent's first views of an instance are the same) are written once
    pngs = [p for d in dirs for p in (Path(d) / "trajectories").rglob("*.png")]
    digests = {hashlib.sha1(p.read_bytes()).hexdigest()[:20] for p in pngs}
    written = sorted((site / "img").iterdir())
    assert {p.stem for p in written} == digests
    assert len(written) < len(pngs)
    assert sum(p.stat().st_size for p in written) < sum(p.stat().st_size for p in pngs)
    # a replay names its images as files (no embedded copies), each of which exists
    page = parse(sorted((site / "episodes" / "random").glob("*.html"))[0])
    sources = [a["src"] for tag, a in page.tags if tag == "img" and a.get("src", "").startswith("../")]
    assert sources and all((site / "episodes" / "random" / s).resolve().is_file() for s in sources)
    assert not any("base64" in p.read_text() for p in html_files(site))


def test_links_are_relative_and_lead_to_files_of_the_site(built):
    site = site_of(built).resolve()
    checked = 0
    for path in html_files(site):
        for _tag, attributes in parse(path).tags:
            for key in ("href", "src"):
                value = attributes.get(key)
                if not value or value.startswith("#") or value == "data:,":
                    continue
                parts = urlsplit(value)
                assert not parts.scheme and not parts.netloc and not value.startswith("/"), (path, value)
                target = (path.parent / unquote(parts.path)).resolve()
                assert target.is_relative_to(site) and target.is_file(), (path, value)
                checked += 1
    assert checked > 100
    assert (site / "index.html").is_file() and (site / ".nojekyll").is_file() and (site / MARKER).is_file()


def test_model_output_is_data_never_markup(built):
    site = site_of(built)
    replays = sorted((site / "episodes" / "mock").glob("*.html"))
    text = replays[0].read_text()
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in text
    assert "<script>window.__pwned" not in text
    for path in html_files(site):
        page = parse(path)
        metas = [
            a for tag, a in page.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"
        ]
        assert len(metas) == 1 and "script-src 'self'" in metas[0]["content"]
        assert "'unsafe-inline'" not in metas[0]["content"]
        for tag, attributes in page.tags:
            assert not [k for k in attributes if k.startswith("on")], (path, tag, attributes)
            assert "style" not in attributes and tag != "style", (path, tag)
            if tag == "script":  # only the site's own files, no inline script
                assert re.fullmatch(r"(\.\./)*assets/(replay|site)\.js", attributes.get("src") or ""), path


# ----------------------------------------------------------------------------------- rebuilds
def test_a_rebuild_replaces_the_site_whole(built, tmp_path):
    _, dirs = built
    site = tmp_path / "pages"
    build_site([load_run(d) for d in dirs], site)
    assert (site / "episodes" / "preset").is_dir()
    (site / "stale.html").write_text("left over")
    assert main(["report", dirs[0], dirs[1], "--out", str(tmp_path / "rep"), "--site", str(site)]) == 0
    assert not (site / "stale.html").exists() and not (site / "episodes" / "preset").exists()
    assert sorted(p.name for p in (site / "episodes").iterdir()) == ["oracle", "random"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pages", "rep"]  # no temporary folder left


def test_a_folder_that_is_not_a_site_is_refused_untouched(built, tmp_path, capsys):
    _, dirs = built
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    out = tmp_path / "rep"
    assert main(["report", dirs[0], "--out", str(out), "--site", str(mine)]) == 2
    err = capsys.readouterr().err
    assert str(mine) in err and "not a playbench site" in err and "Traceback" not in err
    assert sorted(p.name for p in mine.iterdir()) == ["thesis.tex"] and not out.exists()
    # a file, and a run directory itself, are refused too
    assert main(["report", dirs[0], "--out", str(out), "--site", str(mine / "thesis.tex")]) == 2
    assert main(["report", dirs[0], "--out", str(out), "--site", dirs[0]]) == 2
    assert (Path(dirs[0]) / "episodes.jsonl").is_file()
    # an empty folder is fine
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", dirs[0], "--out", str(out), "--site", str(empty)]) == 0
    assert (empty / "index.html").is_file()
