"""Browsing results: the runs list, one run's page and runs compared side by side."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from playbench.web import render
from playbench.web.state import Library, Plots

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(library: Library) -> str:
    refs = library.scan(force=True)
    roots = "".join(f"<li><code>{render.esc(r)}</code></li>" for r in library.roots)
    if not refs:
        body = (
            "<h1>Runs</h1><p>No run directories (folders with <code>episodes.jsonl</code>) were found under:</p>"
            f"<ul>{roots}</ul><p>Run <code>playbench run …</code>, or <a href=/play>play a task</a> here.</p>"
        )
        return render.layout("Runs", body, active="/")
    rows = []
    for ref in refs:
        run = library.load(ref)
        records = run["records"]
        tasks = sorted({r["task"] for r in records})
        agents = sorted({str(r.get("agent")) for r in records})
        models = sorted({str(r["model"]) for r in records if r.get("model")})
        scored = [r for r in records if not r.get("error")]
        solved = sum(1 for r in scored if r.get("success"))
        rate = f"{100 * solved / len(scored):.0f}%" if scored else "–"  # errored episodes are not failures
        rows.append(
            f'<tr><td><input type=checkbox name=run value="{render.esc(ref.rid)}" aria-label="compare"></td>'
            f'<td><a href="/run/{quote(ref.rid)}">{render.esc(ref.label)}</a></td>'
            f"<td>{render.esc(_list(tasks))}</td><td>{render.esc(_list(agents))}</td>"
            f"<td>{render.esc(_list(models) or '–')}</td><td>{len(scored)} / {len(records) - len(scored)}</td>"
            f"<td>{rate}</td></tr>"
        )
    body = (
        "<h1>Runs</h1>"
        f'<p class="muted">Served directories:</p><ul class="roots">{roots}</ul>'
        '<form method=get action="/compare" class="runs"><div class=scroll><table class="runs">'
        "<thead><tr><th></th><th>run</th><th>tasks</th><th>agents</th><th>models</th><th>scored / errored</th>"
        f"<th>solved (of scored)</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<button type=submit class="primary" data-testid="compare">Compare the selected runs</button></form>'
    )
    return render.layout("Runs", body, active="/")


@router.get("/run/{rid}", response_class=HTMLResponse)
def run_page(rid: str, library: Library, plots: Plots) -> str:
    run = library.load(library.get(rid))
    links = render.app_links()
    token, figures = plots.figures([run]) if run["records"] else ("", [])
    plot_list = [(name, f"/plot/{token}/{i}") for i, (name, _) in enumerate(figures)]
    body = (
        f"<h1>{render.esc(run['name'])}</h1>{render.warnings_block(run['warnings'])}{render.config_block(run)}"
        f"<h2>Results</h2>{render.headline_table([run], links)}{render.paper_block([run])}"
        f"{'<h2>Plots</h2>' if plot_list else ''}{render.plots_block(plot_list)}"
        f"<h2>All metrics</h2>{render.metrics_side_by_side([run])}{render.usage_block([run])}"
        f"<h2>Episodes</h2>{render.episodes_table(run, links)}"
    )
    return render.layout(run["name"], body, active="/")


@router.get("/compare", response_class=HTMLResponse)
def compare(request: Request, library: Library, plots: Plots) -> str:
    rids = list(dict.fromkeys(request.query_params.getlist("run")))
    if len(rids) < 2:
        body = (
            "<h1>Compare runs</h1><p>Select two or more runs on the <a href=/>runs page</a> and press "
            "<em>Compare the selected runs</em>.</p>"
        )
        return render.layout("Compare", body, active="/")
    runs = [library.load(library.get(rid)) for rid in rids]
    links = render.app_links()
    token, figures = plots.figures(runs) if any(r["records"] for r in runs) else ("", [])
    plot_list = [(name, f"/plot/{token}/{i}") for i, (name, _) in enumerate(figures)]
    names = ", ".join(r["name"] for r in runs)
    body = (
        f"<h1>Compare {len(runs)} runs</h1><p class=muted>{render.esc(names)}</p>"
        + "".join(render.warnings_block(f"{r['name']}: {w}" for w in r["warnings"]) for r in runs)
        + f"<h2>Results</h2>{render.headline_table(runs, links)}{render.matrix_block(runs)}{render.paper_block(runs)}"
        f"{'<h2>Plots</h2>' if plot_list else ''}{render.plots_block(plot_list)}"
        f"<h2>Metrics side by side</h2>{render.metrics_side_by_side(runs)}{render.usage_block(runs)}"
        f"<h2>Episodes side by side</h2>{render.instances_side_by_side(runs, links)}"
    )
    return render.layout("Compare", body, active="/")


def _list(items: list[str], n: int = 4) -> str:
    return ", ".join(items[:n]) + (f" (+{len(items) - n})" if len(items) > n else "")
