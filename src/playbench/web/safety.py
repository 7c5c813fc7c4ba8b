"""The app-wide walls of the safety model: the host and same-origin checks, the security headers on
every response, and errors answered as short pages (or JSON) that never show a stack trace."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from playbench.core.errors import PlaybenchError
from playbench.web import render
from playbench.web.library import NotFound

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


def install(app: FastAPI) -> None:
    """Add the guard middleware and the error handlers; the allowed hosts come from `app.state`."""
    app.middleware("http")(guard)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    app.add_exception_handler(NotFound, not_found)
    app.add_exception_handler(PlaybenchError, playbench_error)
    app.add_exception_handler(Exception, server_error)


async def guard(request: Request, call_next: Any) -> Response:
    allowed_hosts = request.app.state.allowed_hosts
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
    """JSON for the long poll and for callers asking for JSON (the play page's script), else a page."""
    if request.url.path.endswith("/wait") or "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"error": message}, status_code=status)
    return HTMLResponse(render.error_page(status, title, message), status_code=status)


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    titles = {404: "Not found", 405: "Method not allowed", 400: "Bad request"}
    message = exc.detail if isinstance(exc.detail, str) else "The request could not be served."
    if exc.status_code == 404 and message == "Not Found":
        message = "There is nothing at this address."
    return error_response(request, exc.status_code, titles.get(exc.status_code, "Error"), message)


async def bad_request(request: Request, exc: RequestValidationError) -> Response:
    problems = "; ".join(
        f"{'.'.join(str(x) for x in e.get('loc', [])[1:]) or 'request'}: {e.get('msg')}" for e in exc.errors()
    )
    return error_response(request, 400, "Bad request", problems or "the request is malformed")


async def not_found(request: Request, exc: NotFound) -> Response:
    return error_response(request, 404, "Not found", str(exc))


async def playbench_error(request: Request, exc: PlaybenchError) -> Response:
    return error_response(request, 400, "Cannot do that", str(exc))


async def server_error(request: Request, exc: Exception) -> Response:
    # Starlette re-raises the exception after this page is sent, so the server logs its traceback
    return error_response(
        request,
        500,
        "Server error",
        f"Something went wrong while making this page ({type(exc).__name__}); the server's log has the details.",
    )


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
