"""The FastAPI app behind `playbench serve`: runs, replays, results, comparisons and live play.

Safety model (see README.md): files are served only from the run directories found under the
`--runs` roots, through `library.resolve_inside`; every page is escaped HTML under a Content
Security Policy that allows no inline script; cross-site form posts are refused; any error gives
an HTML page with a short message and never a stack trace.

The routes live in one router per concern (`routes_runs`: the runs list, a run, comparisons;
`routes_replay`: episode replay; `routes_files`: static files, run files and plots; `routes_play`:
live play); the walls of the safety model in `safety`. `create_app` puts what they share on
`app.state`, which they read through the dependencies in `state`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from playbench.web import render, routes_files, routes_play, routes_replay, routes_runs, safety
from playbench.web.library import RunLibrary
from playbench.web.play import PlayManager
from playbench.web.plot_cache import PlotCache

LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}


def create_app(
    run_dirs: list[str], idle_timeout: float | None = None, allowed_hosts: set[str] | None = None
) -> FastAPI:
    """The app over `run_dirs`; browser games are recorded under `run_dirs[0]/web-play/`.

    `allowed_hosts`: the host names a request may be addressed to (None: any). A server on this
    machine only accepts its loopback names, so a web page whose domain is re-pointed at
    127.0.0.1 (DNS rebinding) cannot read the runs through the visitor's browser.
    """
    library = RunLibrary(run_dirs)
    manager = PlayManager(library.roots[0], **({"idle_timeout": idle_timeout} if idle_timeout else {}))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await manager.aclose()

    app = FastAPI(title="playbench", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.library = library
    app.state.manager = manager
    app.state.plots = PlotCache()
    app.state.task_infos = {}
    app.state.static_files = {name: render.static_text(name) for name in routes_files.STATIC}
    app.state.allowed_hosts = allowed_hosts
    app.state.stopping = lambda: False  # serve() points this at uvicorn's exit flag
    safety.install(app)
    for module in (routes_files, routes_runs, routes_replay, routes_play):
        app.include_router(module.router)
    return app


def serve(run_dirs: list[str], host: str, port: int) -> None:
    """Run the app until interrupted (`playbench serve`)."""
    import uvicorn

    app = create_app(run_dirs, allowed_hosts=LOOPBACK_NAMES if host in LOOPBACK_NAMES else None)
    where = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    print(f"playbench: serving {', '.join(str(r) for r in app.state.library.roots)} at {where}", flush=True)
    if host not in LOOPBACK_NAMES:
        print(
            f"playbench: warning: listening on {host}: anyone who can reach this port can read these runs and play",
            flush=True,
        )
    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)
    )
    app.state.stopping = lambda: server.should_exit
    server.run()


__all__ = ["create_app", "serve"]
