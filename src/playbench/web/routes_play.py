"""Live play: the task list, a game's setup form, and a running game's page, panel, long poll,
moves and images."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.registry import TaskSpec, all_specs, get_spec, parse_assignments
from playbench.web import play_pages, render
from playbench.web.library import NotFound
from playbench.web.play import PlayManager, instance_choices, prepare, task_info
from playbench.web.play_session import PlaySession
from playbench.web.state import Manager, TaskInfos

MAX_FORM_BYTES = 256 * 1024
WAIT_TIMEOUT_S = 20.0

router = APIRouter()


@router.get("/play", response_class=HTMLResponse)
def play_index(manager: Manager, task_infos: TaskInfos, discarded: str | None = None) -> str:
    # a task's roles and defaults do not change while the server runs
    infos = [
        task_infos.get(spec.id) or task_infos.setdefault(spec.id, task_info(spec)) for spec in all_specs()
    ]
    gone = manager.get(discarded) if discarded else None
    note = gone if gone is not None and gone.status == "discarded" else None
    return render.layout("Play", play_pages.tasks_page_body(infos, manager.active(), note), active="/play")


@router.get("/play/new", response_class=HTMLResponse)
def play_setup(task: str, seed: int = 0, options: str = "") -> str:
    spec = get_spec(task)
    return _setup_page(spec, seed, options, None, {})


def _setup_page(
    spec: TaskSpec, seed: int, options_raw: str, error: str | None, chosen: dict[str, str]
) -> str:
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


@router.post("/play/start")
async def play_start(request: Request, manager: Manager) -> Response:
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
        return HTMLResponse(_setup_page(spec, seed, form.get("options", ""), str(exc), form), status_code=400)
    session = manager.start(setup, spec, instance)
    return RedirectResponse(play_pages.session_url(session, setup.human_roles[0]), status_code=303)


@router.get("/play/s/{sid}", response_class=HTMLResponse)
async def play_game(sid: str, manager: Manager, seat: str | None = None) -> str:
    session = _session(manager, sid)
    role = _join(session, seat)
    return render.layout(
        f"Playing {session.setup.task_id}", play_pages.game_page_body(session, role), "/play"
    )


@router.get("/play/s/{sid}/panel", response_class=HTMLResponse)
async def play_panel(sid: str, manager: Manager, seat: str | None = None) -> str:
    session = _session(manager, sid)
    role = _join(session, seat)
    return play_pages.panel_html(session, role)


@router.get("/play/s/{sid}/wait")
async def play_wait(
    request: Request, sid: str, manager: Manager, since: int = -1, seat: str | None = None
) -> JSONResponse:
    """Long poll: answers when the game changed, or after a while with the same version. It looks
    up every half second whether the browser left or the server is stopping, so neither waits."""
    session = _session(manager, sid)
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    version = session.version
    while version == since and time.monotonic() < deadline:
        version = await session.wait(since, 0.5)
        if request.app.state.stopping() or await request.is_disconnected():
            break
    return JSONResponse({"version": version, "status": session.status})


def apply_move_form(session: Any, role: str, form: Any) -> str | None:
    """A move form's effect on the game (quit, or the move's text in form or JSON controls), shared by the
    web app and the study server; the reason it was not accepted, or None."""
    try:
        if form.get("quit"):
            session.quit(role)
            return None
        if form.get("controls") == "json":
            text = json_action(form)
        else:
            text = form["action"] if "action" in form else form.get("action_text", "")
        try:
            move = int(form.get("move", ""))
        except ValueError:
            raise ConfigError("the move number is missing; reload the page") from None
        session.submit(role, move, text)
    except ConfigError as exc:
        return str(exc)
    return None


@router.post("/play/s/{sid}/act")
async def play_act(sid: str, request: Request, manager: Manager) -> Response:
    session = _session(manager, sid)
    form = await read_form(request)
    role = _seat(session, form.get("seat"))
    wants_json = "application/json" in request.headers.get("accept", "")
    message = apply_move_form(session, role, form)
    if wants_json:
        return JSONResponse(
            {"ok": message is None, "error": message}, status_code=200 if message is None else 409
        )
    if message is not None:
        page = render.layout("Playing", play_pages.game_page_body(session, role, message), "/play")
        return HTMLResponse(page, status_code=409)
    return RedirectResponse(play_pages.session_url(session, role), status_code=303)


@router.get("/play/s/{sid}/discard", response_class=HTMLResponse)
def play_discard_page(sid: str, manager: Manager) -> str:
    """The confirmation page of discarding a game (the play page's button asks in a dialog instead)."""
    session = _in_progress(manager, sid)
    return render.layout("Discard a game", play_pages.discard_page_body(session), "/play")


@router.post("/play/s/{sid}/discard")
async def play_discard(sid: str, request: Request, manager: Manager) -> Response:
    """Discard a game in progress: with `confirm=yes` it ends unrecorded and its journal is removed
    (see `PlayManager.discard`); without it the confirmation page is shown and nothing changes."""
    session = _in_progress(manager, sid)
    form = await read_form(request)
    wants_json = "application/json" in request.headers.get("accept", "")
    if form.get("confirm") != "yes":
        if wants_json:
            return JSONResponse(
                {"ok": False, "error": "send confirm=yes to discard the game"}, status_code=409
            )
        page = render.layout("Discard a game", play_pages.discard_page_body(session), "/play")
        return HTMLResponse(page, status_code=409)
    manager.discard(session.sid)
    if wants_json:
        return JSONResponse({"ok": True})
    return RedirectResponse(render.url("/play", discarded=session.sid), status_code=303)


def _in_progress(manager: PlayManager, sid: str) -> PlaySession:
    """A game of this server that is still in progress (without resuming it, unlike `_session`)."""
    session = manager.get(sid)
    if session is None or session.status not in ("paused", "starting", "running"):
        raise NotFound("no game in progress has this id (it may have finished or been discarded)")
    return session


@router.get("/play/s/{sid}/image/{name}")
def play_image(sid: str, name: str, manager: Manager) -> Response:
    session = _session(manager, sid)
    digest = name.removesuffix(".png")
    data = session.images.get(digest)
    if data is None:
        raise NotFound("no such image in this game")
    return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=86400"})


def _session(manager: PlayManager, sid: str) -> PlaySession:
    session = manager.get(sid)
    if session is None:
        raise NotFound("this game is not running on this server (it may have been started before a restart)")
    if session.status == "paused":
        with contextlib.suppress(RuntimeError):  # resumed from a request served on the event loop
            asyncio.get_running_loop()
            manager.resume(session)
    return session


def _join(session: PlaySession, seat: str | None) -> str:
    """The seat a page is shown for, marked as taken the first time a page shows it."""
    role = _seat(session, seat)
    if not session.seats[role].joined:
        session.seats[role].joined = True
        session.changed()  # the other seat's page stops asking for someone to take this one
    return role


def _seat(session: PlaySession, seat: str | None) -> str:
    humans = [r for r, s in session.seats.items() if s.human]
    role = seat or humans[0]
    if role not in humans:
        raise NotFound(f"'{role}' is not a seat you can take in this game (human seats: {', '.join(humans)})")
    return role


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


JSON_NUMBERS = ("move_forward", "rotate_right", "rotate_down")


def _number(form: dict[str, str], key: str) -> float | int | None:
    text = form.get(key, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{key} must be a number (got {text!r})") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{key} must be a finite number (got {text!r})")
    return int(value) if value.is_integer() else value


def json_action(form: dict[str, str]) -> str:
    """The JSON action MM-Escape's controls stand for, exactly as a model would write it: the movements
    given, `jump`, `look_at` [x, y] from the click on the view, `grab` with its `interactions`, `read`
    and `rationale`. The task judges it as it judges a model's reply (ranges included)."""
    action: dict[str, Any] = {}
    for key in JSON_NUMBERS:
        value = _number(form, key)
        if value:
            action[key] = value
    if form.get("jump"):
        action["jump"] = True
    x, y = _number(form, "look_x"), _number(form, "look_y")
    if x is not None and y is not None:
        action["look_at"] = [round(float(x), 3), round(float(y), 3)]
    if form.get("grab"):
        action["grab"] = True
        interactions = {k: form[k].strip() for k in ("use_item_id", "input") if form.get(k, "").strip()}
        if interactions:
            action["interactions"] = interactions
    for key in ("read", "rationale"):
        if form.get(key, "").strip():
            action[key] = form[key].strip()
    if not action:
        raise ConfigError(
            "set a control (turn, look, walk, jump, look at a point, grab or read) before sending"
        )
    return json.dumps(action)


def parse_options(text: str) -> dict[str, Any]:
    """`key=value` lines (or `;`-separated) as `--set` would read them."""
    items = [line.strip() for line in text.replace(";", "\n").splitlines() if line.strip()]
    return parse_assignments(items)
