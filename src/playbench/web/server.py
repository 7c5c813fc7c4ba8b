"""The FastAPI app behind `playbench serve`: runs, replays, results, comparisons and live play.

Safety model (see README.md): files are served only from the run directories found under the
`--runs` roots, through `library.resolve_inside`; every page is escaped HTML under a Content
Security Policy that allows no inline script; cross-site form posts are refused; any error gives
an HTML page with a short message and never a stack trace.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.registry import all_specs, get_spec, parse_assignments
from playbench.web import play_pages, render
from playbench.web.library import NotFound, RunLibrary, episode_id, read_trajectory
from playbench.web.play import PlayManager, instance_choices, prepare, task_info

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
MAX_FORM_BYTES = 256 * 1024
WAIT_TIMEOUT_S = 20.0
MAX_PLOT_SETS = 32
STATIC = {"app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}


class PlotCache:
    """Figures from `report.plots.write_plots`, made once per set of runs and their contents.

    matplotlib's style context changes global state, so figures are drawn one set at a time.
    """

    def __init__(self) -> None:
        self._sets: dict[str, list[tuple[str, bytes]]] = {}
        self._lock = threading.Lock()

    def figures(self, runs: list[dict[str, Any]]) -> tuple[str, list[tuple[str, bytes]]]:
        from playbench.report.plots import write_plots

        stamp = "|".join(f"{r['path']}:{len(r['records'])}:{hash_records(r['records'])}" for r in runs)
        token = hashlib.sha1(stamp.encode()).hexdigest()[:16]
        with self._lock:
            if token not in self._sets:
                with tempfile.TemporaryDirectory(prefix="playbench-plots-") as tmp:
                    paths = write_plots([_plain_run(r) for r in runs], tmp)
                    figures = [(p.stem, p.read_bytes()) for p in paths if p.suffix == ".png"]
                if len(self._sets) >= MAX_PLOT_SETS:
                    self._sets.pop(next(iter(self._sets)))
                self._sets[token] = figures
            return token, self._sets[token]

    def get(self, token: str, index: int) -> bytes | None:
        figures = self._sets.get(token)
        if figures is None or not 0 <= index < len(figures):
            return None
        return figures[index][1]


def hash_records(records: list[dict[str, Any]]) -> str:
    h = hashlib.sha1()
    for r in records:
        h.update(
            f"{r.get('task')}|{r.get('instance_id')}|{r.get('trial')}|{r.get('success')}|{r.get('steps')};".encode()
        )
    return h.hexdigest()[:12]


def _plain_run(run: dict[str, Any]) -> dict[str, Any]:
    return {k: run[k] for k in ("path", "name", "config", "summary", "records")}


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
    plots = PlotCache()
    task_infos: dict[str, Any] = {}
    static_files = {name: render.static_text(name) for name in STATIC}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await manager.aclose()

    app = FastAPI(title="playbench", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.library = library
    app.state.manager = manager
    app.state.allowed_hosts = allowed_hosts
    app.state.stopping = lambda: False  # serve() points this at uvicorn's exit flag

    # ------------------------------------------------------------------ safety: headers, errors
    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        if allowed_hosts is not None and _host_name(request) not in allowed_hosts:
            response: Response = HTMLResponse(
                render.error_page(
                    400, "Unknown host", "This server answers only to the address it was started on."
                ),
                status_code=400,
            )
        elif request.method not in ("GET", "HEAD") and not _same_origin(request):
            response = HTMLResponse(
                render.error_page(403, "Refused", "Form posts are accepted only from this app's own pages."),
                status_code=403,
            )
        else:
            response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    def error_response(request: Request, status: int, title: str, message: str) -> Response:
        if request.url.path.endswith("/wait") or "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"error": message}, status_code=status)
        return HTMLResponse(render.error_page(status, title, message), status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        titles = {404: "Not found", 405: "Method not allowed", 400: "Bad request"}
        message = exc.detail if isinstance(exc.detail, str) else "The request could not be served."
        if exc.status_code == 404 and message == "Not Found":
            message = "There is nothing at this address."
        return error_response(request, exc.status_code, titles.get(exc.status_code, "Error"), message)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e.get('loc', [])[1:]) or 'request'}: {e.get('msg')}"
            for e in exc.errors()
        )
        return error_response(request, 400, "Bad request", problems or "the request is malformed")

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> Response:
        return error_response(request, 404, "Not found", str(exc))

    @app.exception_handler(PlaybenchError)
    async def playbench_error(request: Request, exc: PlaybenchError) -> Response:
        return error_response(request, 400, "Cannot do that", str(exc))

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        # Starlette re-raises the exception after this page is sent, so the server logs its traceback
        return error_response(
            request,
            500,
            "Server error",
            f"Something went wrong while making this page ({type(exc).__name__}); the server's log has the details.",
        )

    # ------------------------------------------------------------------------------- static
    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in static_files:
            raise NotFound("no such static file")
        return Response(static_files[name], media_type=STATIC[name], headers={"Cache-Control": "no-cache"})

    # ------------------------------------------------------------------------------- runs
    @app.get("/", response_class=HTMLResponse)
    def home() -> str:
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
            solved = sum(1 for r in records if r.get("success"))
            rate = f"{100 * solved / len(records):.0f}%" if records else "–"
            rows.append(
                f'<tr><td><input type=checkbox name=run value="{render.esc(ref.rid)}" aria-label="compare"></td>'
                f'<td><a href="/run/{quote(ref.rid)}">{render.esc(ref.label)}</a></td>'
                f"<td>{render.esc(_list(tasks))}</td><td>{render.esc(_list(agents))}</td>"
                f"<td>{render.esc(_list(models) or '–')}</td><td>{len(records)}</td><td>{rate}</td></tr>"
            )
        body = (
            "<h1>Runs</h1>"
            f'<p class="muted">Served directories:</p><ul class="roots">{roots}</ul>'
            '<form method=get action="/compare" class="runs"><div class=scroll><table class="runs">'
            "<thead><tr><th></th><th>run</th><th>tasks</th><th>agents</th><th>models</th><th>episodes</th>"
            f"<th>solved</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            '<button type=submit class="primary" data-testid="compare">Compare the selected runs</button></form>'
        )
        return render.layout("Runs", body, active="/")

    @app.get("/run/{rid}", response_class=HTMLResponse)
    def run_page(rid: str) -> str:
        run = library.load(library.get(rid))
        links = render.app_links()
        token, figures = plots.figures([run]) if run["records"] else ("", [])
        plot_list = [(name, f"/plot/{token}/{i}") for i, (name, _) in enumerate(figures)]
        body = (
            f"<h1>{render.esc(run['name'])}</h1>{render.warnings_block(run['warnings'])}{render.config_block(run)}"
            f"<h2>Results</h2>{render.headline_table([run], links)}"
            f"{'<h2>Plots</h2>' if plot_list else ''}{render.plots_block(plot_list)}"
            f"<h2>All metrics</h2>{render.metrics_side_by_side([run])}"
            f"<h2>Episodes</h2>{render.episodes_table(run, links)}"
        )
        return render.layout(run["name"], body, active="/")

    @app.get("/run/{rid}/episode/{eid}", response_class=HTMLResponse)
    def episode_page(rid: str, eid: str) -> str:
        ref = library.get(rid)
        run = library.load(ref)
        record = run["by_id"].get(eid)
        if record is None:
            raise NotFound(f"run '{run['name']}' has no episode '{eid}'")
        steps, warnings = read_trajectory(ref.path, record)
        ids = [episode_id(r) for r in run["records"]]
        at = ids.index(eid)
        links = render.app_links()
        prev_href = links.episode(run, ids[at - 1]) if at > 0 else None
        next_href = links.episode(run, ids[at + 1]) if at + 1 < len(ids) else None
        body = (
            f'<p class="crumbs"><a href="/run/{quote(rid)}">{render.esc(run["name"])}</a> · episode {at + 1} of '
            f"{len(ids)}</p>" + render.episode_view(run, record, steps, links, prev_href, next_href, warnings)
        )
        return render.layout(f"{record['task']} {record['instance_id']}", body, active="/")

    @app.get("/run/{rid}/file/{path:path}")
    def run_file(rid: str, path: str) -> Response:
        ref = library.get(rid)
        target = library.file(ref, path)
        from playbench.web.library import media_type

        return FileResponse(target, media_type=media_type(target), headers={"Cache-Control": "max-age=3600"})

    @app.get("/plot/{token}/{index}")
    def plot_file(token: str, index: int) -> Response:
        data = plots.get(token, index)
        if data is None:
            raise NotFound("this figure is no longer cached; reload the page")
        return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    @app.get("/compare", response_class=HTMLResponse)
    def compare(request: Request) -> str:
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
            + f"<h2>Results</h2>{render.headline_table(runs, links)}"
            f"{'<h2>Plots</h2>' if plot_list else ''}{render.plots_block(plot_list)}"
            f"<h2>Metrics side by side</h2>{render.metrics_side_by_side(runs)}"
            f"<h2>Episodes side by side</h2>{render.instances_side_by_side(runs, links)}"
        )
        return render.layout("Compare", body, active="/")

    # ------------------------------------------------------------------------------- play
    @app.get("/play", response_class=HTMLResponse)
    def play_index() -> str:
        # a task's roles and defaults do not change while the server runs
        infos = [
            task_infos.get(spec.id) or task_infos.setdefault(spec.id, task_info(spec)) for spec in all_specs()
        ]
        return render.layout("Play", play_pages.tasks_page_body(infos, manager.active()), active="/play")

    @app.get("/play/new", response_class=HTMLResponse)
    def play_setup(task: str, seed: int = 0, options: str = "") -> str:
        spec = get_spec(task)
        return _setup_page(spec, seed, options, None, {})

    def _setup_page(spec: Any, seed: int, options_raw: str, error: str | None, chosen: dict[str, str]) -> str:
        info = task_info(spec)
        options: dict[str, Any] = {}
        instances = []
        try:
            options = parse_options(options_raw)
            info = task_info(spec, options)
            if info.error:
                raise ConfigError(info.error)
            instances = instance_choices(spec.make(**options), seed)
        except PlaybenchError as exc:
            error = error or str(exc)
        return render.layout(
            f"Play {spec.id}",
            play_pages.setup_page_body(info, seed, options, instances, error, chosen),
            active="/play",
        )

    @app.post("/play/start")
    async def play_start(request: Request) -> Response:
        form = await read_form(request)
        task_id = form.get("task", "")
        spec = get_spec(task_id)
        try:
            seed = int(form.get("seed", "0") or 0)
        except ValueError:
            raise ConfigError(f"seed must be a whole number (got {form.get('seed')!r})") from None
        try:
            options = parse_options(form.get("options", ""))
            # off the event loop: building a task's instance set can take a second, and games are running
            setup, spec, _, instance = await asyncio.to_thread(
                prepare,
                task_id,
                options,
                seed,
                form.get("instance") or None,
                form.get("seat") or None,
                form.get("partner") or None,
                form.get("partner_model") or None,
            )
        except PlaybenchError as exc:
            return HTMLResponse(
                _setup_page(spec, seed, form.get("options", ""), str(exc), form), status_code=400
            )
        session = manager.start(setup, spec, instance)
        return RedirectResponse(play_pages.session_url(session, setup.human_roles[0]), status_code=303)

    def _session(sid: str) -> Any:
        session = manager.get(sid)
        if session is None:
            raise NotFound(
                "this game is not running on this server (it may have been started before a restart)"
            )
        return session

    def _join(session: Any, seat: str | None) -> str:
        """The seat a page is shown for, marked as taken the first time a page shows it."""
        role = _seat(session, seat)
        if not session.seats[role].joined:
            session.seats[role].joined = True
            session.changed()  # the other seat's page stops asking for someone to take this one
        return role

    def _seat(session: Any, seat: str | None) -> str:
        humans = [r for r, s in session.seats.items() if s.human]
        role = seat or humans[0]
        if role not in humans:
            raise NotFound(
                f"'{role}' is not a seat you can take in this game (human seats: {', '.join(humans)})"
            )
        return role

    @app.get("/play/s/{sid}", response_class=HTMLResponse)
    async def play_game(sid: str, seat: str | None = None) -> str:
        session = _session(sid)
        role = _join(session, seat)
        return render.layout(
            f"Playing {session.setup.task_id}", play_pages.game_page_body(session, role), "/play"
        )

    @app.get("/play/s/{sid}/panel", response_class=HTMLResponse)
    async def play_panel(sid: str, seat: str | None = None) -> str:
        session = _session(sid)
        role = _join(session, seat)
        return play_pages.panel_html(session, role)

    @app.get("/play/s/{sid}/wait")
    async def play_wait(request: Request, sid: str, since: int = -1, seat: str | None = None) -> JSONResponse:
        """Long poll: answers when the game changed, or after a while with the same version. It looks
        up every half second whether the browser left or the server is stopping, so neither waits."""
        session = _session(sid)
        deadline = time.monotonic() + WAIT_TIMEOUT_S
        version = session.version
        while version == since and time.monotonic() < deadline:
            version = await session.wait(since, 0.5)
            if app.state.stopping() or await request.is_disconnected():
                break
        return JSONResponse({"version": version, "status": session.status})

    @app.post("/play/s/{sid}/act")
    async def play_act(sid: str, request: Request) -> Response:
        session = _session(sid)
        form = await read_form(request)
        role = _seat(session, form.get("seat"))
        wants_json = "application/json" in request.headers.get("accept", "")
        message = None
        try:
            if form.get("quit"):
                session.quit(role)
            else:
                text = form["action"] if "action" in form else form.get("action_text", "")
                try:
                    move = int(form.get("move", ""))
                except ValueError:
                    raise ConfigError("the move number is missing; reload the page") from None
                session.submit(role, move, text)
        except ConfigError as exc:
            message = str(exc)
        if wants_json:
            return JSONResponse(
                {"ok": message is None, "error": message}, status_code=200 if message is None else 409
            )
        if message is not None:
            page = render.layout("Playing", play_pages.game_page_body(session, role, message), "/play")
            return HTMLResponse(page, status_code=409)
        return RedirectResponse(play_pages.session_url(session, role), status_code=303)

    @app.get("/play/s/{sid}/image/{name}")
    def play_image(sid: str, name: str) -> Response:
        session = _session(sid)
        digest = name.removesuffix(".png")
        data = session.images.get(digest)
        if data is None:
            raise NotFound("no such image in this game")
        return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    return app


def _list(items: list[str], n: int = 4) -> str:
    return ", ".join(items[:n]) + (f" (+{len(items) - n})" if len(items) > n else "")


LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}


def _host_name(request: Request) -> str:
    """The Host header without its port (and without the brackets of an IPv6 address)."""
    host = request.headers.get("host", "")
    return (urlsplit(f"//{host}").hostname or "").lower()


def _same_origin(request: Request) -> bool:
    """A browser names the page a post comes from; only this app's own pages may post."""
    origin = request.headers.get("origin")
    if origin is None:  # not a browser form (curl, tests); nothing cross-site to fear
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


async def read_form(request: Request) -> dict[str, str]:
    """A URL-encoded form as a dict (the first value of each field), without python-multipart."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise ConfigError(f"the form is larger than {MAX_FORM_BYTES // 1024} KiB")
    ctype = request.headers.get("content-type", "")
    if body and "application/x-www-form-urlencoded" not in ctype:
        raise ConfigError("forms must be sent URL-encoded")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=200)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"the form could not be read: {exc}") from None
    return {key: values[0] for key, values in parsed.items()}


def parse_options(text: str) -> dict[str, Any]:
    """`key=value` lines (or `;`-separated) as `--set` would read them."""
    items = [line.strip() for line in text.replace(";", "\n").splitlines() if line.strip()]
    return parse_assignments(items)


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
