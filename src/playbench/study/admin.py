"""The admin's routes: sign-in (public, CSRF by double submit, wrong secrets counted per address),
progress per participant and per instance, downloads, and the replay of any recorded episode (the web
app's escaped replay view). Every other route is behind `auth.admin`."""

from __future__ import annotations

import csv
import io
import json
import secrets
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from playbench.export.tables import drop_pseudonym
from playbench.runner.reader import RunReader, resolve_inside
from playbench.study import pages, tokens
from playbench.study.auth import (
    ADMIN_COOKIE,
    PRE_COOKIE,
    AccessCache,
    Admin,
    AdminForm,
    Denied,
    read_form,
    set_cookie,
)
from playbench.study.auth import (
    admin as require_admin,
)
from playbench.study.config import consented
from playbench.study.manager import LIVE, StudyManager, owner, session_key, slot_key
from playbench.web import render
from playbench.web.library import NotFound, episode_id, media_type

public = APIRouter()
router = APIRouter(dependencies=[Depends(require_admin)])


def _pre_csrf(request: Request, nonce: str) -> str:
    access: AccessCache = request.app.state.access
    return tokens.csrf_token(access.key(), f"pre|{nonce}")


@public.get("/admin/login", response_class=HTMLResponse)
def login_page(request: Request) -> Response:
    nonce = secrets.token_urlsafe(16)
    response = HTMLResponse(pages.admin_login_page(_pre_csrf(request, nonce)))
    set_cookie(response, request, PRE_COOKIE, nonce, days=1 / 24)
    return response


@public.post("/admin/login")
async def login(request: Request) -> Response:
    form = await read_form(request)
    nonce = request.cookies.get(PRE_COOKIE) or ""
    if not nonce or not tokens.csrf_ok(request.app.state.access.key(), f"pre|{nonce}", form.get("csrf")):
        raise Denied(403, "Refused", "The sign-in form is out of date; reload it.")
    secret = form.get("secret", "")
    access: AccessCache = request.app.state.access
    if access.check_admin(secret) is None:
        raise Denied(403, "Wrong secret", "That is not the admin secret of this study.", failed=True)
    response = RedirectResponse("/admin", status_code=303)
    set_cookie(response, request, ADMIN_COOKIE, secret, days=1)
    response.delete_cookie(PRE_COOKIE, path="/")
    return response


@router.post("/admin/logout")
def logout(form: AdminForm) -> Response:
    response = RedirectResponse("/admin/login", status_code=303)
    response.delete_cookie(ADMIN_COOKIE, path="/")
    return response


def _manager(request: Request) -> StudyManager:
    return request.app.state.manager


def _records(manager: StudyManager) -> list[dict[str, Any]]:
    return RunReader(manager.study.run_dir).records()


def progress(manager: StudyManager) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per participant and per instance: planned, finished, in progress; with each record's index."""
    study = manager.study
    agreed = consented(study)
    live = {session_key(s): s for s in manager.sessions.values() if s.status in LIVE}
    records = _records(manager)
    index = {(r["task"], str(r["instance_id"]), int(r["trial"])): i for i, r in enumerate(records)}
    people = []
    for plan in study.config.plans:
        finished = sum(slot_key(s) in index for s in plan.slots)
        now = next((live[slot_key(s)] for s in plan.slots if slot_key(s) in live), None)
        current = f"{now.setup.task_id} · {len(now.moves)} moves" if now is not None else "–"
        last = max(
            [now.updated] if now is not None else [],
            default=None,
        )
        people.append(
            {
                "pseudonym": plan.pseudonym,
                "consented": agreed.get(plan.pseudonym, ""),
                "finished": finished,
                "total": len(plan.slots),
                "current": current,
                "last": last,
            }
        )
    units: dict[tuple[str, str], dict[str, Any]] = {}
    for plan in study.config.plans:
        for s in plan.slots:
            unit = units.setdefault(
                (s.task, s.instance_id),
                {
                    "task": s.task,
                    "instance_id": s.instance_id,
                    "planned": 0,
                    "finished": 0,
                    "in_progress": 0,
                    "episodes": [],
                },
            )
            unit["planned"] += 1
            key = slot_key(s)
            if key in index:
                unit["finished"] += 1
                label = f"{plan.pseudonym}{'' if records[index[key]].get('success') else ' ✗'}"
                unit["episodes"].append(pages.replay_link(episode_id(records[index[key]]), label))
            elif key in live and owner(live[key]) == plan.pseudonym:
                unit["in_progress"] += 1
    return people, list(units.values())


@router.get("/admin", response_class=HTMLResponse)
def dashboard(request: Request, person: Admin) -> str:
    manager = _manager(request)
    people, units = progress(manager)
    return pages.admin_page(manager.study.config, people, units, person.csrf)


@router.get("/admin/export/episodes.jsonl")
def export_episodes(request: Request, pseudonyms: str = "keep") -> Response:
    if pseudonyms not in ("keep", "drop"):
        raise Denied(400, "Bad request", f"pseudonyms must be keep or drop (got {pseudonyms!r})")
    records = _records(_manager(request))
    if pseudonyms == "drop":
        records = [drop_pseudonym(r) for r in records]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    name = "episodes.jsonl" if pseudonyms == "keep" else "episodes-anonymous.jsonl"
    return Response(
        text,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/admin/export/progress.csv")
def export_progress(request: Request) -> Response:
    people, _ = progress(_manager(request))
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["participant", "consented", "finished", "total", "now"])
    for p in people:
        writer.writerow([p["pseudonym"], p["consented"], p["finished"], p["total"], p["current"]])
    return Response(
        buffer.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="progress.csv"'},
    )


@router.get("/admin/episode/{eid}", response_class=HTMLResponse)
def replay(eid: str, request: Request) -> str:
    """A recorded episode, named by its id among the run's records (never a path)."""
    manager = _manager(request)
    reader = RunReader(manager.study.run_dir)
    run = reader.load()
    records = run["records"]
    ids = [episode_id(r) for r in records]
    if eid not in ids:
        raise NotFound("no recorded episode has this id")
    index = ids.index(eid)
    record = records[index]
    steps, warnings = reader.trajectory(record)
    calls, more = reader.calls(record)
    links = render.Links(
        run=lambda _run: "/admin",
        episode=lambda _run, _eid: None,
        image=lambda _run, file: f"/admin/file/{quote(file)}",
    )
    prev_href = f"/admin/episode/{quote(ids[index - 1])}" if index > 0 else None
    next_href = f"/admin/episode/{quote(ids[index + 1])}" if index + 1 < len(records) else None
    body = '<p class="crumbs"><a href="/admin">admin</a></p>' + render.episode_view(
        run, record, steps, links, prev_href, next_href, warnings + more, calls
    )
    return pages.layout(f"{record['task']} · episode {index + 1}", body, who="admin")


@router.get("/admin/file/{path:path}")
def trajectory_file(path: str, request: Request) -> Response:
    """An image of a replay: only a file inside the run's trajectories folder (`resolve_inside` refuses
    absolute paths, `..`, backslashes, NUL bytes and symlinks leading out)."""
    base = _manager(request).study.run_dir / "trajectories"
    target = resolve_inside(base, path)
    if target is None or media_type(target) is None or target.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise NotFound("no such image")
    return FileResponse(target, media_type=media_type(target), headers={"Cache-Control": "private, no-store"})
