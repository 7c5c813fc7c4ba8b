"""Files served as they are: the app's own CSS and script, a run's images and files (through
`RunLibrary.file`, the one gate to disk) and the cached plots."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from playbench.web.library import NotFound, media_type
from playbench.web.state import Library, Plots, StaticFiles

STATIC = {"app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}

router = APIRouter()


@router.get("/static/{name}")
def static(name: str, static_files: StaticFiles) -> Response:
    if name not in static_files:
        raise NotFound("no such static file")
    return Response(static_files[name], media_type=STATIC[name], headers={"Cache-Control": "no-cache"})


@router.get("/run/{rid}/file/{path:path}")
def run_file(rid: str, path: str, library: Library) -> Response:
    ref = library.get(rid)
    target = library.file(ref, path)
    return FileResponse(target, media_type=media_type(target), headers={"Cache-Control": "max-age=3600"})


@router.get("/plot/{token}/{index}")
def plot_file(token: str, index: int, plots: Plots) -> Response:
    data = plots.get(token, index)
    if data is None:
        raise NotFound("this figure is no longer cached; reload the page")
    return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=3600"})
