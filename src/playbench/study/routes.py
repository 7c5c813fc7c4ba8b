"""The participants' routes. `public`: the personal link (which signs the browser in), the static files
and robots.txt. `participant`: everything else, each route behind `auth.participant` (a router-wide
dependency, so no route can forget it) and every POST behind its CSRF check. A game is found by its id
only among the signed-in participant's own games (`StudyManager.owned`): another participant's game id
gets the same 404 as an id that does not exist."""

from __future__ import annotations

import asyncio
import contextlib
import time

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from playbench.core.errors import ConfigError
from playbench.study import pages
from playbench.study.auth import (
    PARTICIPANT_COOKIE,
    AccessCache,
    Denied,
    Participant,
    ParticipantForm,
    set_cookie,
)
from playbench.study.auth import (
    participant as require_participant,
)
from playbench.study.config import consented, record_consent
from playbench.study.manager import StudyManager
from playbench.web.library import NotFound
from playbench.web.play_session import PlaySession
from playbench.web.routes_files import STATIC
from playbench.web.routes_play import apply_move_form

WAIT_TIMEOUT_S = 20.0

public = APIRouter()
participant = APIRouter(dependencies=[Depends(require_participant)])


@public.get("/p/{token}")
def open_link(token: str, request: Request) -> Response:
    """A participant's link: remembered in an HttpOnly cookie, then off to the study (the token leaves
    the address bar at once)."""
    access: AccessCache = request.app.state.access
    if access.lookup(token) is None:
        raise Denied(404, "Unknown link", "This link is not valid (it may have been replaced).", failed=True)
    response = RedirectResponse("/", status_code=303)
    set_cookie(response, request, PARTICIPANT_COOKIE, token)
    return response


@public.get("/static/{name}")
def static(name: str, request: Request) -> Response:
    files = request.app.state.static_files
    if name not in files:
        raise NotFound("no such file")
    return Response(files[name], media_type=STATIC[name], headers={"Cache-Control": "no-cache"})


@public.get("/robots.txt")
def robots() -> Response:
    return Response("User-agent: *\nDisallow: /\n", media_type="text/plain")


def _manager(request: Request) -> StudyManager:
    return request.app.state.manager


@participant.get("/", response_class=HTMLResponse)
def home(request: Request, person: Participant) -> str:
    """Where a participant always is: consent first, then the current game, the next one, or thanks."""
    manager = _manager(request)
    config = manager.study.config
    if person.name not in consented(manager.study):
        return pages.consent_page(config, person.csrf)
    finished, slot = manager.progress(person.name)
    total = len(manager.slots(person.name))
    if slot is None:
        return pages.done_page(config, total)
    session = manager.session_of(person.name, slot)
    if session is None or session.status not in ("paused", "starting", "running"):
        return pages.next_page(config, finished, total, person.csrf)
    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        manager.resume(session)
    role = _role(session)
    return pages.game_page(config, session, role, finished, total, person.csrf, manager.deadline(session))


@participant.post("/consent")
def consent(request: Request, person: Participant, form: ParticipantForm) -> Response:
    manager = _manager(request)
    if person.name not in consented(manager.study):
        record_consent(manager.study, person.name)
    return RedirectResponse("/", status_code=303)


@participant.post("/start")
async def start(request: Request, person: Participant, form: ParticipantForm) -> Response:
    manager = _manager(request)
    if person.name not in consented(manager.study):
        raise ConfigError("please read and accept the consent page first")
    _, slot = manager.progress(person.name)
    if slot is not None:
        manager.start_slot(person.name, slot)
    return RedirectResponse("/", status_code=303)


def _game(request: Request, person: Participant, sid: str) -> PlaySession:
    manager = _manager(request)
    session = manager.owned(sid, person.name)
    if session is None and sid not in manager.sessions:
        # a page kept from before the game ended or the server restarted: say so, and how to go on
        raise Denied(409, "Game over", "This game is not going any more: reload the page to go on.")
    if session is None:
        raise NotFound("no game of yours has this id")
    if session.status == "paused":
        _manager(request).resume(session)
    return session


def _role(session: PlaySession) -> str:
    return next(role for role, seat in session.seats.items() if seat.human)


@participant.get("/play/s/{sid}/panel", response_class=HTMLResponse)
async def panel(sid: str, request: Request, person: Participant) -> str:
    session = _game(request, person, sid)
    return pages.panel_html(session, _role(session), person.csrf)


@participant.get("/play/s/{sid}/wait")
async def wait(sid: str, request: Request, person: Participant, since: int = -1) -> JSONResponse:
    session = _game(request, person, sid)
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    version = session.version
    while version == since and time.monotonic() < deadline:
        version = await session.wait(since, 0.5)
        if request.app.state.stopping() or await request.is_disconnected():
            break
    return JSONResponse({"version": version, "status": session.status})


@participant.post("/play/s/{sid}/act")
async def act(sid: str, request: Request, person: Participant, form: ParticipantForm) -> Response:
    session = _game(request, person, sid)
    role = _role(session)
    wants_json = "application/json" in request.headers.get("accept", "")
    message = apply_move_form(session, role, form)
    if wants_json:
        return JSONResponse(
            {"ok": message is None, "error": message}, status_code=200 if message is None else 409
        )
    if message is not None:
        return HTMLResponse(pages.error_page(409, "Not accepted", message), status_code=409)
    return RedirectResponse("/", status_code=303)


@participant.get("/play/s/{sid}/image/{name}")
def image(sid: str, name: str, request: Request, person: Participant) -> Response:
    session = _game(request, person, sid)
    data = session.images.get(name.removesuffix(".png"))
    if data is None:
        raise NotFound("no such image in this game")
    return Response(data, media_type="image/png", headers={"Cache-Control": "private, no-store"})
