"""The study server (`playbench serve --study DIR`): its own FastAPI app, which includes none of the web
app's routers. The walls, outermost first:

- `BodyLimit` (ASGI): a request body over `MAX_BODY` bytes is answered 413 before a route reads it;
- `guard` (middleware): the host check on loopback, rate limits (per signed-in person; per client address
  for everything else; a client address that gave `FAILURES` wrong secrets within `FAILURE_WINDOW_S` is
  answered 429 until the window passes), the same-origin check of every POST, and the security headers
  (CSP without inline script, frame-ancestors 'none' / X-Frame-Options DENY, nosniff, Referrer-Policy same-origin,
  no-store, HSTS over https) on every response;
- the routers' own dependencies: `auth.participant` or `auth.admin` on every route but the public four
  (the link, the admin sign-in, the static files, robots.txt), and `auth.csrf` on every POST;
- errors as short pages (or JSON for the game's script) that never show a traceback.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from playbench.core.errors import PlaybenchError
from playbench.study import pages
from playbench.study.auth import AccessCache, Denied, Limits, RateLimiter
from playbench.study.config import Study, load_study
from playbench.study.manager import StudyManager
from playbench.web import render, routes_files
from playbench.web.library import NotFound
from playbench.web.safety import _host_name, _same_origin

MAX_BODY = 64 * 1024
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # not no-referrer: Chromium then sends "Origin: null" on forms
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}
PUBLIC_PREFIXES = ("/static/", "/p/", "/admin/login", "/robots.txt")


class BodyLimit:
    """Refuse a body larger than `limit` bytes: by its Content-Length at once, and a chunked one as soon
    as it grows past the limit (the route never sees either)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(send, self.limit)
            return
        # read the whole body first (it is small or refused), then hand it to the app as one message
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _too_large(send, self.limit)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as a server would

        await self.app(scope, replay, send)


async def _too_large(send: Send, limit: int) -> None:
    body = pages.error_page(413, "Too large", f"A request may carry at most {limit // 1024} KiB.").encode()
    headers = [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_study_app(
    study: str | Path | Study, allowed_hosts: set[str] | None = None, limits: Limits | None = None
) -> FastAPI:
    """The app of one study folder (checked now: its instances, its partner model)."""
    study = study if isinstance(study, Study) else load_study(study)
    manager = StudyManager(study)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await manager.aclose()

    app = FastAPI(title="playbench study", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.study = study
    app.state.manager = manager
    app.state.access = AccessCache(study)
    app.state.limiter = RateLimiter(limits or Limits())
    app.state.allowed_hosts = allowed_hosts
    app.state.static_files = {name: render.static_text(name) for name in routes_files.STATIC}
    app.state.stopping = lambda: False
    app.middleware("http")(guard)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_exception_handler(NotFound, _not_found)
    app.add_exception_handler(Denied, _denied)
    app.add_exception_handler(PlaybenchError, _playbench_error)
    app.add_exception_handler(Exception, _server_error)
    from playbench.study import admin, routes

    for router in (routes.public, routes.participant, admin.public, admin.router):
        app.include_router(router)
    app.add_middleware(BodyLimit)
    return app


async def guard(request: Request, call_next: Any) -> Response:
    state = request.app.state
    path = request.url.path
    client = request.client.host if request.client else "?"
    limiter: RateLimiter = state.limiter
    if state.allowed_hosts is not None and _host_name(request) not in state.allowed_hosts:
        response: Response = _page(
            request, 400, "Unknown host", "This server answers only to its own address."
        )
    elif request.method not in ("GET", "HEAD", "POST"):
        response = _page(request, 405, "Method not allowed", "This server takes GET and POST requests only.")
    elif request.method == "POST" and not _same_origin(request):
        response = _page(request, 403, "Refused", "Forms are accepted only from this study's own pages.")
    elif limiter.blocked(client):
        response = _page(request, 429, "Too many attempts", limiter.blocked_message(client))
    elif not path.startswith("/static/") and not limiter.allow(_subject(request) or f"ip:{client}"):
        response = _page(
            request, 429, "Too many requests", "Please slow down and try again in a few seconds."
        )
    else:
        response = await call_next(request)
    for key, value in HEADERS.items():
        response.headers.setdefault(key, value)
    if not path.startswith("/static/"):
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
    if request.url.scheme == "https":
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response


def _subject(request: Request) -> str | None:
    """The rate-limit key of a signed-in request: the person's (or admin's) digest, never the address, so
    that many participants behind one NAT or proxy do not share a budget."""
    access: AccessCache = request.app.state.access
    who = access.participant(request) or access.admin(request)
    return f"who:{who[1]}" if who else None


def _page(request: Request, status: int, title: str, message: str) -> Response:
    if request.url.path.endswith(("/wait", "/act")) or "application/json" in request.headers.get(
        "accept", ""
    ):
        return JSONResponse({"ok": False, "error": message}, status_code=status)
    return HTMLResponse(pages.error_page(status, title, message), status_code=status)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    message = exc.detail if isinstance(exc.detail, str) else "The request could not be served."
    if exc.status_code == 404:
        message = "There is nothing at this address."
    return _page(request, exc.status_code, "Error", message)


async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
    return _page(request, 400, "Bad request", "The request is malformed.")


async def _not_found(request: Request, exc: NotFound) -> Response:
    return _page(request, 404, "Not found", str(exc))


async def _denied(request: Request, exc: Denied) -> Response:
    if exc.failed:
        request.app.state.limiter.fail(request.client.host if request.client else "?")
    return _page(request, exc.status, exc.title, exc.message)


async def _playbench_error(request: Request, exc: PlaybenchError) -> Response:
    return _page(request, 400, "Cannot do that", str(exc))


async def _server_error(request: Request, exc: Exception) -> Response:
    return _page(request, 500, "Server error", f"Something went wrong ({type(exc).__name__}).")


def serve_study(study_dir: str, host: str, port: int, forwarded_allow_ips: str | None = None) -> None:
    """Run the study server until interrupted (one process: the games live in its memory and journals)."""
    import uvicorn

    app = create_study_app(study_dir, allowed_hosts=LOOPBACK_NAMES if host in LOOPBACK_NAMES else None)
    study: Study = app.state.study
    where = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    started = time.strftime("%H:%M:%S")
    print(
        f"playbench: {started} serving the study {study.dir} ({study.config.participants} participants) at {where}; "
        f"admin: {where}admin/login",
        flush=True,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            timeout_graceful_shutdown=3,
            proxy_headers=True,  # X-Forwarded-For/-Proto, trusted only from --forwarded-allow-ips
            forwarded_allow_ips=forwarded_allow_ips,  # None: uvicorn's default, 127.0.0.1
            server_header=False,
            limit_concurrency=1000,
        )
    )
    app.state.stopping = lambda: server.should_exit
    server.run()


__all__ = ["create_study_app", "serve_study"]
