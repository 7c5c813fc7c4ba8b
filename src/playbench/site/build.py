"""`playbench report DIR... --site OUT`: a static leaderboard site.

Layout of OUT (every link relative, so the folder works from file://, on GitHub Pages or from any
folder of any web server):

    index.html                the scorecard: every task × run cell, suites, models, runs, fidelity
    suites/<suite>.html       one page per suite: its tasks' results, the paper's published tables
    models/<agent-model>.html one page per agent (and model) across tasks
    runs/<run>.html           one page per run: its configuration and every episode
    episodes/<run>/<key>.html one page per episode: the replay, as the web app shows it
    img/<digest>.png          every step image once, named by the digest of its bytes
    assets/                   the stylesheets and scripts (nothing is loaded from elsewhere)
    report.md, report.csv     the report's own tables, for download
    .playbench-site           marks the folder as a site of ours (a rebuild may replace it)
    .nojekyll                 tells GitHub Pages to serve the files as they are

The site is built in a temporary folder beside OUT and renamed into place, so a rebuild replaces the
old site whole, and a failed build leaves the old one untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from playbench import __version__
from playbench.core.errors import ConfigError
from playbench.core.preset import get_preset, preset_names
from playbench.report import compare
from playbench.report.tables import to_csv, to_markdown
from playbench.runner.reader import RunReader, resolve_inside
from playbench.site import content
from playbench.site.content import SiteRun, model_label, suite_of
from playbench.site.pages import page, section
from playbench.web import render
from playbench.web.library import episode_id

MARKER = ".playbench-site"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# render.py's replay names a step image in `data-src`, for its script to load when the turn is shown;
# here the images are plain files, so the page names them in `src`, loaded lazily by the browser itself
# (a hidden turn's images wait until it is shown), and the replay shows its images without the script
_DEFERRED_IMAGE = re.compile(r'<img data-src="([^"]+)"')


def check_site_dir(path: str | Path, others: tuple[str | Path, ...] = ()) -> Path:
    """OUT for `--site`: new, empty, or a site this builder wrote (which a rebuild replaces). Anything
    else is refused before anything is written: a rebuild must never delete files that are not ours.
    `others` are folders the same command reads or writes (the runs, the report's --out)."""
    out = Path(path).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--site '{path}' is a file; give a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise ConfigError(
            f"--site '{path}' exists and is not a playbench site (no {MARKER} file in it); "
            "give a new or empty folder, so that nothing of yours is replaced"
        )
    resolved = out.resolve()
    for other in others:
        where = Path(other).expanduser().resolve()
        if where == resolved or where.is_relative_to(resolved):
            raise ConfigError(f"--site '{path}' would replace '{other}', which this command reads or writes")
    parent = resolved.parent
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--site '{path}': '{parent}' is not writable")
    return out


def _slug(text: str, taken: set[str]) -> str:
    """A file-name-safe, unique stem for `text` (a digest tells apart names that clean to the same)."""
    base = _SAFE.sub("-", text).strip("-.")[:60] or "x"
    stem = base
    if stem in taken:
        stem = f"{base}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    n = 2
    while stem in taken:
        stem, n = f"{base}-{n}", n + 1
    taken.add(stem)
    return stem


class _Images:
    """Step images copied into `img/` once each, named by the digest of their bytes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.by_source: dict[Path, str] = {}
        self.written = 0

    def name(self, run_path: Path, file: str) -> str | None:
        source = resolve_inside(run_path / "trajectories", file)
        if source is None or source.suffix.lower() != ".png":
            return None
        if source not in self.by_source:
            data = source.read_bytes()
            name = f"{hashlib.sha1(data).hexdigest()[:20]}.png"
            target = self.root / "img" / name
            if not target.exists():
                target.parent.mkdir(exist_ok=True)
                target.write_bytes(data)
                self.written += 1
            self.by_source[source] = name
        return self.by_source[source]


class SiteBuilder:
    def __init__(self, runs: list[dict[str, Any]], root: Path) -> None:
        self.root = root
        taken: set[str] = set()
        self.runs = [SiteRun(run, _slug(str(run["name"]), taken)) for run in runs]
        for site_run in self.runs:
            site_run.entries = list(site_run.run["summary"].get("tasks", {}).values())
        entries = [e for r in self.runs for e in r.entries]
        self.suites = sorted({suite_of(e["task"]) for e in entries})
        suites_taken: set[str] = set()
        self.suite_pages = {s: _slug(s, suites_taken) for s in self.suites}
        models_taken: set[str] = set()
        self.models = {
            label: _slug(label, models_taken)
            for label in sorted({model_label(e.get("agent"), e.get("model")) for e in entries})
        }
        self.grid = compare.matrix([r.run for r in self.runs])
        self.pairs = compare.paired([r.run for r in self.runs]) if len(self.runs) > 1 else []
        self.metrics = content.metric_table(self.runs)
        self.images = _Images(root)
        self.presets = self._presets_by_suite()

    @staticmethod
    def _presets_by_suite() -> dict[str, list[str]]:
        """Each suite's paper presets (a preset belongs to the suites of the tasks it runs)."""
        out: dict[str, list[str]] = {}
        for name in preset_names():
            try:
                preset = get_preset(name)
            except ConfigError:
                continue
            for suite in sorted({suite_of(t) for t in preset.run.tasks}):
                out.setdefault(suite, []).append(name)
        return out

    def links(self, depth: int) -> content.Links:
        up = "../" * depth
        return content.Links(
            suite=lambda s: f"{up}suites/{self.suite_pages[s]}.html",
            model=lambda label: f"{up}models/{self.models[label]}.html",
            run=lambda r: f"{up}runs/{r.page}.html",
        )

    def write(self, rel: str, html: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")

    # ------------------------------------------------------------------------------- pages
    def build(self) -> None:
        self._assets()
        self.write("index.html", self._index())
        for suite in self.suites:
            self.write(f"suites/{self.suite_pages[suite]}.html", self._suite(suite))
        for label, stem in self.models.items():
            self.write(f"models/{stem}.html", self._model(label))
        for site_run in self.runs:
            self._run(site_run)
        plain = [r.run for r in self.runs]
        (self.root / "report.md").write_text(to_markdown(plain), encoding="utf-8")
        (self.root / "report.csv").write_text(to_csv(plain), encoding="utf-8")
        (self.root / ".nojekyll").write_text("")
        marker = {"generator": "playbench report --site", "playbench": __version__, "runs": len(self.runs)}
        (self.root / MARKER).write_text(json.dumps(marker) + "\n")

    def _assets(self) -> None:
        assets = self.root / "assets"
        assets.mkdir(parents=True)
        (assets / "replay.css").write_text(render.static_text("app.css"), encoding="utf-8")
        (assets / "replay.js").write_text(render.static_text("app.js"), encoding="utf-8")
        for name in ("site.css", "site.js"):
            text = (resources.files("playbench.site") / "assets" / name).read_text(encoding="utf-8")
            (assets / name).write_text(text, encoding="utf-8")

    def _index(self) -> str:
        links = self.links(0)
        episodes = sum(len(r.run["records"]) for r in self.runs)
        suites = [
            [
                content.link_cell(s, links.suite(s)),
                content.text_cell(
                    ", ".join(
                        sorted({e["task"] for r in self.runs for e in r.entries if suite_of(e["task"]) == s})
                    )
                ),
                content.text_cell(", ".join(self.presets.get(s, [])) or "–"),
            ]
            for s in self.suites
        ]
        models = []
        for label in self.models:
            mine = [
                e
                for r in self.runs
                for e in r.entries
                if model_label(e.get("agent"), e.get("model")) == label
            ]
            models.append(
                [
                    content.link_cell(label, links.model(label)),
                    content.text_cell(len({e["task"] for e in mine}), len({e["task"] for e in mine})),
                    content.text_cell(sum(e["episodes"] for e in mine), sum(e["episodes"] for e in mine)),
                ]
            )
        body = (
            "<h1>Scorecard</h1>"
            f'<p class="muted">{len(self.runs)} run(s), {episodes} episodes, {len(self.suites)} suite(s). '
            "Errored episodes are missing, not failed: every score is over the scored episodes. Success "
            "carries a Wilson 95% interval with the instance as the unit (several trials of an instance are "
            'averaged first). The same tables as <a href="report.md">report.md</a> '
            '(<a href="report.csv">report.csv</a>).</p>'
            + content.scorecard(self.runs, self.grid, links)
            + section(
                "Suites",
                content.sortable_table("suites", ["suite", "tasks", "paper presets"], suites),
                "suites",
            )
            + section(
                "Models and agents",
                content.sortable_table("models", ["agent · model", "tasks", "episodes"], models),
                "models",
            )
            + section("Every run and task", content.headline(self.runs, links), "results")
            + section("Fidelity", content.fidelity(self.runs, links), "fidelity")
            + section("Runs", self._runs_table(links), "runs")
        )
        return page("Scorecard", body, 0)

    def _runs_table(self, links: content.Links) -> str:
        rows = []
        for r in self.runs:
            summary = r.run["summary"]
            rows.append(
                [
                    content.link_cell(r.name, links.run(r)),
                    content.text_cell(", ".join(r.labels())),
                    content.text_cell(", ".join(sorted({e["task"] for e in r.entries}))),
                    content.text_cell(summary.get("episodes", 0), summary.get("episodes", 0)),
                    content.text_cell(summary.get("errors", 0), summary.get("errors", 0)),
                ]
            )
        return content.sortable_table("runs", ["run", "agent · model", "tasks", "episodes", "errored"], rows)

    def _suite(self, suite: str) -> str:
        links = self.links(1)
        tasks = {e["task"] for r in self.runs for e in r.entries if suite_of(e["task"]) == suite}
        papers = "".join(
            section(f"Beside the paper: {name}", content.paper_tables(name, get_preset(name), self.runs))
            for name in self.presets.get(suite, [])
        )
        papers_cited = sorted({get_preset(name).paper for name in self.presets.get(suite, [])})
        body = (
            f"<h1>Suite {render.esc(suite)}</h1>"
            + "".join(f'<p class="muted">Paper: {render.esc(paper)}</p>' for paper in papers_cited)
            + section("Scorecard", content.scorecard(self.runs, self.grid, links, tasks))
            + section("Every run and task", content.headline(self.runs, links, lambda e: e["task"] in tasks))
            + section("Fidelity", content.fidelity(self.runs, links, tasks))
            + papers
            + (section("Paired comparisons", content.paired_table(self.pairs, tasks)) if self.pairs else "")
            + section("All metrics", content.all_metrics(self.metrics, lambda row: row["task"] in tasks))
        )
        return page(f"Suite {suite}", body, 1, [("Scorecard", "index.html"), (suite, None)])

    def _model(self, label: str) -> str:
        links = self.links(1)

        def mine(entry: dict[str, Any]) -> bool:
            return model_label(entry.get("agent"), entry.get("model")) == label

        tasks = {e["task"] for r in self.runs for e in r.entries if mine(e)}
        usage = [
            {**u, "group": f"{r.name} · {e['task']}"}
            for r in self.runs
            for e in r.entries
            if mine(e)
            for u in e.get("usage_breakdown") or []
        ]
        body = (
            f"<h1>{render.esc(label)}</h1>"
            + section("Every task it played", content.headline(self.runs, links, mine))
            + section(
                "Fidelity",
                content.fidelity([r for r in self.runs if any(mine(e) for e in r.entries)], links, tasks),
            )
            + (
                section(
                    "Usage per seat and model",
                    render.usage_table(usage, "calls, tokens and cost", "run · task"),
                )
                if usage
                else ""
            )
            + section(
                "All metrics",
                content.all_metrics(
                    self.metrics, lambda row: model_label(row["agent"], row["model"]) == label
                ),
            )
        )
        return page(label, body, 1, [("Scorecard", "index.html"), (label, None)])

    def _run(self, site_run: SiteRun) -> None:
        run_path = Path(site_run.run["path"])
        # render.py shows a run's `path`: the site shows its name, not a folder of the machine it was built on
        view = {**site_run.run, "path": site_run.name}
        stems: dict[str, str] = {}
        taken: set[str] = set()
        for record in site_run.run["records"]:
            stems[episode_id(record)] = _slug(episode_id(record), taken)

        def image(run: dict[str, Any], file: str) -> str:
            name = self.images.name(run_path, file)
            return f"../../img/{name}" if name else ""

        episode_links = render.Links(
            run=lambda run: f"../../runs/{site_run.page}.html",
            episode=lambda run, eid: f"{stems[eid]}.html" if eid in stems else None,
            image=image,
        )
        list_links = render.Links(
            run=lambda run: f"{site_run.page}.html",
            episode=lambda run, eid: (
                f"../episodes/{site_run.page}/{stems[eid]}.html" if eid in stems else None
            ),
            image=lambda run, file: "",
        )
        links = self.links(1)
        body = (
            f"<h1>Run {render.esc(site_run.name)}</h1>"
            + render.warnings_block(site_run.run.get("warnings") or [])
            + content.headline([site_run], links)
            + render.config_block(view)
            + "<h2>Episodes</h2>"
            + render.episodes_table(view, list_links)
        )
        self.write(
            f"runs/{site_run.page}.html",
            page(f"Run {site_run.name}", body, 1, [("Scorecard", "index.html"), (site_run.name, None)]),
        )
        reader = RunReader(run_path)
        records = site_run.run["records"]
        for at, record in enumerate(records):
            eid = episode_id(record)
            steps, warnings = reader.trajectory(record)
            calls, call_warnings = reader.calls(record)
            prev_href = episode_links.episode(view, episode_id(records[at - 1])) if at > 0 else None
            next_href = (
                episode_links.episode(view, episode_id(records[at + 1])) if at + 1 < len(records) else None
            )
            replay = render.episode_view(
                view, record, steps, episode_links, prev_href, next_href, warnings + call_warnings, calls
            )
            replay = _DEFERRED_IMAGE.sub(r'<img loading="lazy" src="\1"', replay)
            suite = suite_of(record["task"])
            crumbs = [
                ("Scorecard", "index.html"),
                # a run whose summary could not be computed has episodes but no suite page
                (suite, f"suites/{self.suite_pages[suite]}.html" if suite in self.suite_pages else None),
                (site_run.name, f"runs/{site_run.page}.html"),
                (f"episode {at + 1} of {len(records)}", None),
            ]
            self.write(
                f"episodes/{site_run.page}/{stems[eid]}.html",
                page(f"{record['task']} · {record['instance_id']}", replay, 2, crumbs),
            )


def build_site(runs: list[dict[str, Any]], out: str | Path) -> Path:
    """Write the site for `runs` (as `report.tables.load_run` returns them) to `out`, replacing a site
    this function wrote there before; returns `out`."""
    given = Path(out).expanduser()
    target = check_site_dir(out, tuple(r["path"] for r in runs)).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    try:
        SiteBuilder(runs, building).build()
        building.chmod(0o755)  # mkdtemp makes it private; a site is for reading
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    if not target.exists():
        building.rename(target)
        return given
    # the old site moves aside first (a rename cannot replace a non-empty folder), and comes back if
    # the new one cannot take its place
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    target.rename(old / "site")
    try:
        building.rename(target)
    except OSError:
        (old / "site").rename(target)
        old.rmdir()
        shutil.rmtree(building, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return given
