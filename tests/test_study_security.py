"""The study server's security suite (issue 31, item 5): what each test attacks is in its name and first
line. The study has one task of every kind the done-when study uses (iVISPAR's SGP, the numbered tile
puzzle, COMMA's wire module with a model expert), played to the end by real participants over HTTP."""

from __future__ import annotations

import json
import os
import re

import pytest

pytest.importorskip("fastapi", reason="the study server needs the 'web' extra")
from fastapi.routing import APIRoute  # noqa: E402
from test_study import make_study, participants, study_client  # noqa: E402

from playbench.core.registry import get_spec  # noqa: E402
from playbench.runner.reader import RunReader  # noqa: E402
from playbench.study import tokens  # noqa: E402
from playbench.study.auth import Limits  # noqa: E402

XSS = '<script>window.__pwned=1</script><img src=x onerror="alert(1)">'
PUBLIC = {"/p/{token}", "/static/{name}", "/robots.txt", "/admin/login"}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A study played to the end by three participants (one typed markup as a move), with the admin."""
    root = tmp_path_factory.mktemp("secure")
    study, links, admin = make_study(root, instances=2, per=2, people=3)
    client = study_client(study.dir)
    client.__enter__()
    people = participants(study, links, lambda name: client)
    for i, person in enumerate(people):
        client.cookies.clear()
        person.open_link()
        if i == 0:  # the first answer of the first game is markup (an unparseable move, recorded as typed)
            first = person.answers
            person.answers = lambda slot, first=first: (
                [XSS, *first(slot)] if slot.position == 0 else first(slot)
            )
        person.play_all()
    client.cookies.clear()
    yield study, links, admin, people, client
    client.__exit__(None, None, None)


def sign_in_admin(client, admin: str) -> None:
    page = client.get("/admin/login")
    csrf = re.search(r'name=csrf value="([^"]+)"', page.text).group(1)
    r = client.post("/admin/login", data={"csrf": csrf, "secret": admin})
    assert r.status_code == 200 and "admin" in r.text


def routes(app) -> list[tuple[str, str]]:
    """Every (method, path) the app serves (its included routers' routes, whatever FastAPI wraps them in)."""
    out = []
    stack = list(app.routes)
    while stack:
        r = stack.pop()
        if isinstance(r, APIRoute):
            out += [(m, r.path) for m in r.methods if m != "HEAD"]
        for inner in ("original_router", "routes"):
            found = getattr(r, inner, None)
            if found is not None and found is not r:
                stack += list(found.routes) if hasattr(found, "routes") and inner == "original_router" else []
                stack += list(found) if inner == "routes" and isinstance(found, list) else []
    return sorted(set(out))


def fill(path: str, sid: str) -> str:
    return (
        path.replace("{sid}", sid)
        .replace("{name}", "x.png")
        .replace("{token}", "A" * 32)
        .replace("{eid}", "x")
        .replace("{path:path}", "x.png")
    )


def test_every_route_but_the_public_ones_needs_its_credentials(world):
    """Auth bypass: every route without a cookie, with a participant's cookie on the admin's routes, with
    a forged cookie, and the normal web app's routes (which the study app does not have at all)."""
    study, links, admin, people, client = world
    app = client.app
    sid = next(iter(app.state.manager.sessions))
    seen = set()
    for method, path in routes(app):
        seen.add(path)
        url = fill(path, sid)
        for cookies in ({}, {"pb_study": "A" * 32}, {"pb_admin": "forged-" + "B" * 30}):
            client.cookies.clear()
            for k, v in cookies.items():
                client.cookies.set(k, v)
            r = client.request(method, url, data={"csrf": "x"})
            if path in PUBLIC:
                continue
            assert r.status_code in (401, 403, 429), (method, path, cookies, r.status_code)
        if path.startswith("/admin") and path not in PUBLIC:  # a participant is not the admin
            client.cookies.clear()
            client.cookies.set("pb_study", links["p01"])
            assert client.request(method, url, data={"csrf": "x"}).status_code == 401, (method, path)
        if not path.startswith("/admin") and path not in PUBLIC:  # nor is the admin a participant
            client.cookies.clear()
            client.cookies.set("pb_admin", admin)
            assert client.request(method, url, data={"csrf": "x"}).status_code == 401, (method, path)
    assert {"/", "/play/s/{sid}/act", "/admin", "/admin/episode/{eid}", "/admin/file/{path:path}"} <= seen
    client.cookies.clear()
    client.cookies.set("pb_study", links["p01"])
    for path in (
        "/play",
        "/play/new?task=toy/walk",
        "/run/x",
        "/compare",
        "/plot/x/0",
        "/docs",
        "/openapi.json",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post("/play/start", data={"task": "ivispar/sgp"}).status_code == 404
    client.cookies.clear()


def test_another_participants_game_is_not_found(world):
    """IDOR: p02 names p01's game id in every game route; the answer is the 404 of a missing game."""
    study, links, admin, people, client = world
    manager = client.app.state.manager
    from playbench.study.manager import owner

    theirs = [s for s in manager.sessions.values() if owner(s) == "p01"]
    assert theirs
    client.cookies.clear()
    client.cookies.set("pb_study", links["p02"])
    csrf = tokens.csrf_token(study.access["key"], tokens.digest(links["p02"]))
    for session in theirs:
        for url in (f"/play/s/{session.sid}/panel", f"/play/s/{session.sid}/wait?since=0",
                    f"/play/s/{session.sid}/image/abc.png"):  # fmt: skip
            r = client.get(url)
            assert r.status_code == 404 and session.sid not in r.text
        before = session.version
        r = client.post(f"/play/s/{session.sid}/act", data={"csrf": csrf, "quit": "1", "seat": "player"})
        assert r.status_code == 404 and session.version == before
    client.cookies.clear()


def leak_strings(study) -> dict[str, str]:
    """What must appear in no response: each instance whole, its id, its solution, the words that name
    an answer, and COMMA's expert side (the manual the solver must learn only by asking)."""
    out = {"optimal_steps": "optimal_steps", "solution": '"solution"', "oracle": "oracle"}
    for tid, ids in study.config.instances.items():
        task = get_spec(tid).make()
        for inst in task.instances(len(ids), study.config.seed):
            data = inst.model_dump(mode="json")
            out[f"{tid} {inst.id} json"] = json.dumps(data)
            out[f"{tid} {inst.id} id"] = inst.id
            if data.get("solution"):
                out[f"{tid} {inst.id} solution"] = ", ".join(data["solution"])
            if tid == "comma/wire":
                task.reset(inst)
                task.step("hello")
                expert = task.observe("expert")
                out["comma expert instructions"] = expert.instructions[:60]
                out["comma params"] = json.dumps(data["params"])
    return out


def test_no_solution_or_answer_in_any_response(world):
    """Solution leaks: every page, panel, poll answer and redirect body each participant received,
    searched for every instance (whole, its id, its solution), 'optimal_steps', 'oracle' and COMMA's
    expert side."""
    study, links, admin, people, client = world
    bodies = [text for person in people for text in person.seen]
    assert len(bodies) > 30 and any('data-testid="observation"' in b for b in bodies)
    for what, needle in leak_strings(study).items():
        hits = [b for b in bodies if needle in b]
        assert not hits, f"{what} appears in a response: {hits[0][:200]}"
    assert not any("data-instance" in b or "data-solution" in b or "data-optimal" in b for b in bodies)


def test_markup_typed_as_a_move_is_text_in_the_admin_and_replay_views(world):
    """Stored XSS: the markup p01 typed is in the records, and shows escaped on the admin's progress
    page and replay (and the CSP allows no inline script anywhere)."""
    study, links, admin, people, client = world
    records = RunReader(study.run_dir).records()
    assert any(
        XSS in (line.get("action") or "")
        for r in records
        for line in RunReader(study.run_dir).trajectory(r)[0]
    )
    client.cookies.clear()
    sign_in_admin(client, admin)
    dashboard = client.get("/admin").text
    replays = re.findall(r'href="(/admin/episode/[^"]+)"', dashboard)
    assert len(replays) == 6
    pages = [client.get(url) for url in replays]
    hit = [p for p in pages if "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in p.text]
    assert hit, "the typed markup is shown (escaped) in its replay"
    for p in [*pages, client.get("/admin")]:
        assert "<script>window.__pwned" not in p.text and 'onerror="alert' not in p.text
        assert "script-src 'self'" in p.headers["content-security-policy"]
    export = client.get("/admin/export/episodes.jsonl?pseudonyms=drop").text
    assert "human:p0" not in export and '"human"' in export
    client.cookies.clear()


def test_every_post_needs_its_senders_csrf_token(world, tmp_path):
    """CSRF: posts without a token, with another participant's token, from another site's page, and the
    admin sign-in without its cookie."""
    study, links, admin, people, client = world
    fresh, fresh_links, _ = make_study(tmp_path, instances=1, per=1, people=2, tasks=["ivispar/sgp"])
    with study_client(fresh.dir) as c:
        c.cookies.set("pb_study", fresh_links["p01"])
        other = tokens.csrf_token(fresh.access["key"], tokens.digest(fresh_links["p02"]))
        for data in ({}, {"csrf": ""}, {"csrf": other}, {"csrf": "0" * 64}):
            assert c.post("/consent", data=data).status_code == 403
        assert (
            "p01" not in (fresh.dir / "consent.jsonl").read_text()
            if (fresh.dir / "consent.jsonl").exists()
            else True
        )
        mine = tokens.csrf_token(fresh.access["key"], tokens.digest(fresh_links["p01"]))
        r = c.post("/consent", data={"csrf": mine}, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403
        assert c.post("/consent", data={"csrf": mine}).status_code == 200  # the real form works
        assert c.post("/start", data={}).status_code == 403
        c.cookies.clear()
        page = c.get("/admin/login")
        csrf = re.search(r'name=csrf value="([^"]+)"', page.text).group(1)
        c.cookies.clear()  # without the pre-login cookie the form's token is worth nothing
        assert c.post("/admin/login", data={"csrf": csrf, "secret": "x"}).status_code == 403


def test_no_path_leaves_the_trajectories_folder(world):
    """Traversal: the admin's file route (the only one that reads a path) with `..`, its encodings,
    absolute paths, a symlink to access.json; and the static route with a path."""
    study, links, admin, people, client = world
    client.cookies.clear()
    sign_in_admin(client, admin)
    link = study.run_dir / "trajectories" / "escape.png"
    os.symlink(study.dir / "access.json", link)
    for path in ("../../access.json", "..%2f..%2faccess.json", "%2e%2e/%2e%2e/study.json", "/etc/passwd",
                 "%2fetc%2fpasswd", "escape.png", "..\\..\\access.json", "x%00.png"):  # fmt: skip
        r = client.get(f"/admin/file/{path}")
        assert r.status_code == 404, path
        assert study.access["key"] not in r.text
    for path in ("/static/../study.json", "/static/%2e%2e%2fstudy.json", "/static/app.js%00"):
        assert client.get(path).status_code == 404
    assert client.get("/admin/episode/..%2f..%2faccess.json").status_code == 404
    link.unlink()
    client.cookies.clear()


def test_oversized_bodies_are_refused_before_any_route(world):
    """Request size: a 100 KiB move, a chunked body that grows past the limit, a bogus Content-Length."""
    study, links, admin, people, client = world
    client.cookies.clear()
    client.cookies.set("pb_study", links["p01"])
    r = client.post("/consent", data={"csrf": "x", "pad": "a" * 100_000})
    assert r.status_code == 413

    def chunks():
        for _ in range(40):
            yield b"a" * 4096

    r = client.post(
        "/consent", content=chunks(), headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 413
    r = client.post("/consent", content=b"x", headers={"Content-Length": "abc"})
    assert r.status_code in (400, 413)
    client.cookies.clear()


def test_token_guessing_is_slowed_and_blocked(tmp_path):
    """Token guessing: wrong links and wrong admin secrets from one address are blocked after a few, the
    right link then too (until the window passes); a flood of requests is answered 429; the lookup
    compares every stored digest in constant time."""
    study, links, admin = make_study(tmp_path, instances=1, per=1, people=2, tasks=["ivispar/sgp"])
    with study_client(study.dir, limits=Limits(rate=1000, burst=1000, failures=5)) as c:
        for _ in range(5):
            assert c.get(f"/p/{tokens.new_token()}").status_code == 404
        assert c.get(f"/p/{links['p01']}").status_code == 429
        assert c.get("/").status_code == 429
    with study_client(study.dir, limits=Limits(rate=1, burst=5)) as c:
        codes = [c.get("/robots.txt").status_code for _ in range(12)]
        assert codes[:5] == [200] * 5 and 429 in codes
    calls = []
    import hmac as real

    original = real.compare_digest
    try:
        tokens.hmac.compare_digest = lambda a, b: calls.append(1) or original(a, b)
        assert tokens.match(links["p01"], study.access["participants"]) == "p01"
        assert len(calls) == 2  # p01 matched first, p02 still compared
        calls.clear()
        assert tokens.match("short", study.access["participants"]) is None and not calls  # junk: no hashing
    finally:
        tokens.hmac.compare_digest = original


def test_headers_cookies_and_replaced_links(tmp_path):
    """Security headers on every kind of response; the link's cookie is HttpOnly, SameSite=Lax and
    Secure over https; a replaced link stops working at once."""
    from fastapi.testclient import TestClient

    from playbench.study.app import create_study_app
    from playbench.study.config import reissue

    study, links, admin = make_study(tmp_path, instances=1, per=1, people=2, tasks=["ivispar/sgp"])
    app = create_study_app(study.dir, allowed_hosts={"testserver"})
    with TestClient(app, base_url="https://testserver") as c:
        r = c.get(f"/p/{links['p01']}", follow_redirects=False)
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" in cookie
        for response in (r, c.get("/"), c.get("/nope"), c.get("/static/app.css"), c.get("/admin")):
            h = response.headers
            assert "frame-ancestors 'none'" in h["content-security-policy"] and h["x-frame-options"] == "DENY"
            assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "same-origin"
            assert h["strict-transport-security"].startswith("max-age=")
        assert c.get("/").headers["cache-control"] == "no-store"
        assert c.get("/", headers={"Host": "evil.example"}).status_code == 400  # DNS rebinding on loopback
        reissue(study, "p01")
        assert c.get("/").status_code == 401
