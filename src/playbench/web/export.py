"""`playbench report DIR... --html FILE`: the results, plots and replays in one self-contained file.

The file needs no server and no network: styles, the script, plots and step images are embedded
(images as base64, each stored once however many steps show it). Replays are included episode by
episode, in the order of the runs' episode lists, until `REPLAY_BUDGET_BYTES` is used up; an
episode past the budget is still listed with its outcome, and `playbench serve` replays it.
The file carries a Content Security Policy that lets only its own script run (by hash), so a
model's output inside it cannot execute even if it were not escaped.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import tempfile
from pathlib import Path
from typing import Any

from playbench.runner.reader import RunReader
from playbench.web import render
from playbench.web.library import episode_id, read_trajectory, record_sort_key, resolve_inside

REPLAY_BUDGET_BYTES = 24_000_000


def write_html(runs: list[dict[str, Any]], path: str) -> None:
    """Write the report for `runs` (as `report.tables.load_run` returns them) to `path`."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_html(runs), encoding="utf-8")


def _prepared(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    prepared = []
    for i, run in enumerate(runs):
        records = list(run.get("records") or [])
        with contextlib.suppress(KeyError, TypeError, ValueError):  # odd records keep the file's order
            records.sort(key=record_sort_key)
        prepared.append(
            {
                **run,
                "rid": f"r{i}",
                "records": records,
                "by_id": {episode_id(r): r for r in records},
                "warnings": list(run.get("warnings") or []),
            }
        )
    return prepared


class _Images:
    """Step images embedded once each, keyed by the digest of their bytes."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.size = 0

    def reference(self, run: dict[str, Any], file: str, pending: dict[str, str]) -> str:
        path = resolve_inside(Path(run["path"]) / "trajectories", file)
        if path is None or path.suffix.lower() != ".png":
            return ""
        png = path.read_bytes()
        digest = hashlib.sha1(png).hexdigest()[:20]
        if digest not in self.data and digest not in pending:
            pending[digest] = base64.b64encode(png).decode("ascii")
        return f"img:{digest}"


def build_html(runs: list[dict[str, Any]], budget: int = REPLAY_BUDGET_BYTES) -> str:
    runs = _prepared(runs)
    images = _Images()
    included: dict[str, set[str]] = {run["rid"]: set() for run in runs}
    views: list[
        tuple[dict[str, Any], str, dict[str, Any], list[dict[str, Any]], list[str], list[dict[str, Any]]]
    ] = []
    used = 0
    skipped = 0
    for run in runs:
        for record in run["records"]:
            steps, warnings = read_trajectory(Path(run["path"]), record)
            calls, call_warnings = RunReader(Path(run["path"])).calls(record)
            warnings += call_warnings
            pending: dict[str, str] = {}
            size = sum(len(str(s)) for s in steps) + sum(len(str(c)) for c in calls)
            for step in steps:
                earlier = step.get("turns_before") if isinstance(step.get("turns_before"), list) else []
                shown = list(step.get("images") or []) + [
                    image for turn in earlier if isinstance(turn, dict) for image in turn.get("images") or []
                ]
                for image in shown:
                    if isinstance(image, dict) and isinstance(image.get("file"), str):
                        images.reference(run, image["file"], pending)
            for call in calls:
                for message in (call.get("request") or {}).get("messages") or []:
                    for part in message.get("content") or [] if isinstance(message, dict) else []:
                        if isinstance(part, dict) and isinstance(part.get("file"), str):
                            images.reference(run, part["file"], pending)
            size += sum(len(v) for v in pending.values())
            if used + size > budget:
                skipped += 1
                continue
            used += size
            images.data.update(pending)
            eid = episode_id(record)
            included[run["rid"]].add(eid)
            views.append((run, eid, record, steps, warnings, calls))

    def episode_link(run: dict[str, Any], eid: str) -> str | None:
        return f"#ep-{run['rid']}-{eid}" if eid in included[run["rid"]] else None

    links = render.Links(
        run=lambda run: f"#run-{run['rid']}",
        episode=episode_link,
        image=lambda run, file: images.reference(run, file, images.data),
    )

    pages = []
    for run, eid, record, steps, warnings, calls in views:
        order = [episode_id(r) for r in run["records"] if episode_id(r) in included[run["rid"]]]
        at = order.index(eid)
        prev_href = episode_link(run, order[at - 1]) if at > 0 else None
        next_href = episode_link(run, order[at + 1]) if at + 1 < len(order) else None
        pages.append(
            f'<section class="episode-page" id="ep-{run["rid"]}-{eid}" hidden>'
            f'<p class="crumbs"><a href="#run-{run["rid"]}">&larr; {render.esc(run["name"])}</a> · episode '
            f"{at + 1} of {len(order)}</p>"
            + render.episode_view(run, record, steps, links, prev_href, next_href, warnings, calls)
            + "</section>"
        )

    plot_list = _plots(runs)
    names = ", ".join(r["name"] for r in runs)
    note = (
        f'<p class="warnings">{skipped} episode(s) are listed without their replay: the file keeps replays '
        f"under {budget // 1_000_000} MB. <code>playbench serve --runs DIR</code> replays every episode.</p>"
        if skipped
        else ""
    )
    run_sections = "".join(
        f'<section id="run-{run["rid"]}"><h2>Run {render.esc(run["name"])}</h2>'
        f"{render.warnings_block(run['warnings'])}{render.config_block(run)}{render.episodes_table(run, links)}"
        "</section>"
        for run in runs
    )
    side_by_side = (
        f"<h2>Episodes side by side</h2>{render.instances_side_by_side(runs, links)}" if len(runs) > 1 else ""
    )
    results = (
        f'<section id="results"><h1>playbench report</h1><p class="muted">{render.esc(names)}</p>{note}'
        f"<h2>Results</h2>{render.headline_table(runs, links)}{render.matrix_block(runs)}{render.paper_block(runs)}"
        f"{'<h2>Plots</h2>' if plot_list else ''}{render.plots_block(plot_list)}"
        f"<h2>{'Metrics side by side' if len(runs) > 1 else 'All metrics'}</h2>{render.metrics_side_by_side(runs)}"
        f"{render.usage_block(runs)}"
        f"{side_by_side}{run_sections}</section>"
    )
    css = render.static_text("app.css")
    js = render.static_text("app.js")
    csp = (
        "default-src 'none'; img-src data:; "
        f"style-src '{_sha256(css)}'; script-src '{_sha256(js)}'; base-uri 'none'; form-action 'none'"
    )
    generated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{render.esc(csp)}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>playbench report · {render.esc(names)}</title><style>{css}</style></head>"
        f"<body data-export><header class=top><span class=brand>playbench report</span>"
        f'<span class="muted">written {render.esc(generated)}</span></header><main>{results}{"".join(pages)}</main>'
        f'<script type="application/json" id="pb-images">{render.json_for_script(images.data)}</script>'
        f"<script>{js}</script></body></html>\n"
    )


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _plots(runs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    from playbench.report.plots import write_plots

    if not any(r["records"] for r in runs):
        return []
    plain = [{k: r[k] for k in ("path", "name", "config", "summary", "records") if k in r} for r in runs]
    with tempfile.TemporaryDirectory(prefix="playbench-export-") as tmp:
        paths = write_plots(plain, tmp)
        return [
            (p.stem, "data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii"))
            for p in paths
            if p.suffix == ".png"
        ]
