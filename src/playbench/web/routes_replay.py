"""Episode replay: one episode's record and a stepper over its steps."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from playbench.runner.reader import RunReader
from playbench.web import render
from playbench.web.library import NotFound, episode_id, read_trajectory
from playbench.web.state import Library

router = APIRouter()


@router.get("/run/{rid}/episode/{eid}", response_class=HTMLResponse)
def episode_page(rid: str, eid: str, library: Library) -> str:
    ref = library.get(rid)
    run = library.load(ref)
    record = run["by_id"].get(eid)
    if record is None:
        raise NotFound(f"run '{run['name']}' has no episode '{eid}'")
    steps, warnings = read_trajectory(ref.path, record)
    calls, call_warnings = RunReader(ref.path).calls(record)
    ids = [episode_id(r) for r in run["records"]]
    at = ids.index(eid)
    links = render.app_links()
    prev_href = links.episode(run, ids[at - 1]) if at > 0 else None
    next_href = links.episode(run, ids[at + 1]) if at + 1 < len(ids) else None
    body = (
        f'<p class="crumbs"><a href="/run/{quote(rid)}">{render.esc(run["name"])}</a> · episode {at + 1} of '
        f"{len(ids)}</p>"
        + render.episode_view(
            run, record, steps, links, prev_href, next_href, warnings + call_warnings, calls
        )
    )
    return render.layout(f"{record['task']} {record['instance_id']}", body, active="/")
