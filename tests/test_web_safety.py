"""The web app's safety model: only files inside the served run directories, escaped model output,
refused cross-site posts, and error pages instead of stack traces."""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
from fastapi.testclient import TestClient  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.runner.episode import EpisodeOutput, key_filename  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.runner.store import RunStore  # noqa: E402
from playbench.web import render  # noqa: E402
from playbench.web.export import build_html  # noqa: E402
from playbench.web.library import resolve_inside  # noqa: E402
from playbench.web.server import create_app  # noqa: E402

SCRIPT = "<script>alert('pwned')</script>"
SECRET = "top secret outside the runs"


def hostile_episode(store: RunStore) -> None:
    """An episode whose every free-text field carries markup, and an image reference that points out."""
    key = ("toy/walk", f"x{SCRIPT}", 0)
    stem = key_filename(key)
    step = {
        "step": 1,
        "role": "player",
        "observation": f"obs {SCRIPT}",
        "images": [{"file": "../../../secret.txt", "label": SCRIPT}],
        "feedback_before": "",
        "raw_output": f'{SCRIPT}<img src=x onerror="alert(1)">',
        "action": SCRIPT,
        "parsed": SCRIPT,
        "validity": 'unparseable" onmouseover="alert(1)',
        "reason": SCRIPT,
        "feedback": SCRIPT,
        "usage": {},
    }
    record = {
        "task": "toy/walk",
        "instance_id": key[1],
        "seed": 0,
        "trial": 0,
        "agent": f"llm({SCRIPT})",
        "model": SCRIPT,
        "roles": {"player": SCRIPT},
        "success": False,
        "steps": 1,
        "optimal_steps": None,
        "metrics": {SCRIPT: 1},
        "error": None,
        "termination": SCRIPT,
        "usage": {},
        "duration_s": 0.1,
        "trajectory": f"trajectories/{stem}.jsonl",
    }
    store.write(EpisodeOutput(record=record, steps=[step]))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("web-safety")
    root = base / "runs"
    (base / "secret.txt").write_text(SECRET)
    outside = base / "outside"
    outside.mkdir()
    (outside / "leak.png").write_bytes(b"\x89PNG secret image outside")
    config = RunConfig(
        tasks=["toy/walk"], agents={"*": AgentSpec("oracle")}, out=str(root / "good"), episodes=1
    )
    asyncio.run(execute(config))
    store = RunStore(root / "hostile")
    hostile_episode(store)
    store.close()
    # a trajectory path in a record that points out of the run
    with open(root / "hostile" / "episodes.jsonl", "a") as fh:
        rec = json.loads((root / "good" / "episodes.jsonl").read_text().splitlines()[0])
        rec.update(instance_id="escape", trajectory="../../secret.txt")
        fh.write(json.dumps(rec) + "\n")
        fh.write("this line is not JSON\n")
    good = root / "good"
    os.symlink(base / "secret.txt", good / "trajectories" / "link.png")
    os.symlink(outside, good / "trajectories" / "linked-dir")
    (good / "notes.py").write_text("print('not served')")
    # a whole run directory outside the root, linked in: it must not be discovered
    foreign = base / "foreign"
    asyncio.run(
        execute(
            RunConfig(tasks=["toy/walk"], agents={"*": AgentSpec("random")}, out=str(foreign), episodes=1)
        )
    )
    os.symlink(foreign, root / "linked-run")
    return {"base": base, "root": root}


@pytest.fixture(scope="module")
def client(world):
    with TestClient(create_app([str(world["root"])]), raise_server_exceptions=False) as c:
        yield c


def run_ids(client) -> dict[str, str]:
    page = client.get("/").text
    return {
        label.rsplit("/", 1)[-1]: rid for rid, label in re.findall(r'/run/([0-9a-f]{12})">([^<]+)<', page)
    }


def assert_error_page(response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert "<!doctype html>" in response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    assert SECRET not in response.text


def test_resolve_inside_refuses_every_way_out(world):
    run = world["root"] / "good"
    inside = next((run / "trajectories").glob("*.jsonl"))
    assert resolve_inside(run, f"trajectories/{inside.name}") == inside.resolve()
    for bad in (
        "../secret.txt",
        "../../secret.txt",
        "trajectories/../../secret.txt",
        "/etc/passwd",
        str(world["base"] / "secret.txt"),
        "trajectories\\..\\..\\secret.txt",
        "C:/Windows/win.ini",
        "trajectories/link.png",  # a symlink to a file outside
        "trajectories/linked-dir/leak.png",  # through a symlinked folder
        "episodes.jsonl\x00.png",
        "",
        ".",
        "trajectories",  # a directory, not a file
    ):
        assert resolve_inside(run, bad) is None, bad


@pytest.mark.parametrize(
    "path",
    [
        "%2e%2e/%2e%2e/secret.txt",
        "..%2f..%2fsecret.txt",
        "%2E%2E%2F%2E%2E%2Fsecret.txt",
        "%252e%252e/%252e%252e/secret.txt",
        "trajectories/%2e%2e/%2e%2e/%2e%2e/secret.txt",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "trajectories/link.png",
        "trajectories/linked-dir/leak.png",
        "notes.py",
        "trajectories",
    ],
)
def test_file_route_serves_nothing_outside_the_run(client, world, path):
    rid = run_ids(client)["good"]
    response = client.get(f"/run/{rid}/file/{path}")
    assert_error_page(response, 404)
    assert b"secret image" not in response.content


def test_file_route_serves_run_files(client):
    rid = run_ids(client)["good"]
    response = client.get(f"/run/{rid}/file/episodes.jsonl")
    assert response.status_code == 200 and response.text.startswith("{")
    assert response.headers["x-content-type-options"] == "nosniff"


def test_linked_run_outside_the_root_is_not_served(client):
    labels = run_ids(client)
    assert set(labels) == {"good", "hostile"}
    assert_error_page(client.get("/run/000000000000"), 404)
    assert_error_page(client.get("/run/..%2f..%2fsecret.txt"), 404)


def test_model_output_is_escaped_everywhere(client):
    ids = run_ids(client)
    rid = ids["hostile"]
    run_page = client.get(f"/run/{rid}")
    assert run_page.status_code == 200
    episode_link = re.search(r'href="(/run/[0-9a-f]+/episode/[^"]*x_script_[^"]*)"', run_page.text).group(1)
    pages = [
        client.get("/"),
        run_page,
        client.get(episode_link),
        client.get("/compare", params=[("run", ids["good"]), ("run", rid)]),
    ]
    for page in pages:
        assert page.status_code == 200
        assert "<script>alert" not in page.text
        assert 'onerror="alert' not in page.text and 'onmouseover="alert' not in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
    episode = pages[2].text
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in episode
    assert "v-other" in episode  # an unknown validity never becomes a class name or attribute
    assert "not JSON" in run_page.text  # the malformed line is reported, not fatal


def test_a_trajectory_path_in_a_record_cannot_leave_the_run(client):
    rid = run_ids(client)["hostile"]
    run_page = client.get(f"/run/{rid}").text
    link = re.search(r'href="(/run/[0-9a-f]+/episode/toy__walk__escape__t0)"', run_page).group(1)
    page = client.get(link)
    assert page.status_code == 200
    assert SECRET not in page.text
    assert "is not in the run directory" in page.text


def test_export_escapes_and_allows_only_its_own_script(world):
    from playbench.report.tables import load_run

    html = build_html([load_run(world["root"] / "hostile")])
    assert "<script>alert" not in html
    scripts = re.findall(r"<script([^>]*)>", html)
    assert scripts == [' type="application/json" id="pb-images"', ""]
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "default-src &#x27;none&#x27;" in csp and "unsafe-inline" not in csp
    assert SECRET not in html


def test_errors_are_pages_not_stack_traces(client, monkeypatch):
    assert_error_page(client.get("/no/such/page"), 404)
    assert_error_page(client.get("/play/new", params={"task": "toy/walk", "seed": "abc"}), 400)
    unknown = client.get("/play/new", params={"task": "nope/nothing"})
    assert_error_page(unknown, 400)
    assert "unknown task" in unknown.text
    assert_error_page(client.get("/play/s/not-a-game"), 404)
    assert_error_page(client.post("/"), 405)

    def explode(*args, **kwargs):
        raise RuntimeError("internal detail that must not be shown")

    monkeypatch.setattr(render, "episodes_table", explode)
    rid = run_ids(client)["good"]
    crashed = client.get(f"/run/{rid}")
    assert_error_page(crashed, 500)
    assert "internal detail" not in crashed.text and "RuntimeError" in crashed.text


def test_cross_site_posts_are_refused(client):
    form = {"task": "toy/walk", "seed": "0", "options": ""}
    refused = client.post("/play/start", data=form, headers={"Origin": "http://evil.example"})
    assert_error_page(refused, 403)
    refused = client.post("/play/start", data=form, headers={"Origin": "null"})
    assert refused.status_code == 403
    accepted = client.post(
        "/play/start", data=form, headers={"Origin": "http://testserver"}, follow_redirects=False
    )
    assert accepted.status_code == 303


def test_play_forms_cannot_name_files(client):
    form = {
        "task": "toy/relay",
        "seed": "0",
        "options": "",
        "seat": "listener",
        "partner": "replay:/etc/passwd",
    }
    response = client.post("/play/start", data=form)
    assert response.status_code == 400
    assert "is not offered here" in response.text
    bad_image = client.get("/play/s/x/image/..%2f..%2fsecret.txt")
    assert_error_page(bad_image, 404)


def test_a_loopback_server_answers_only_to_loopback_names(world):
    app = create_app([str(world["root"])], allowed_hosts={"127.0.0.1", "localhost", "::1"})
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        assert local.get("/").status_code == 200
    with TestClient(app, base_url="http://[::1]:8000") as local6:
        assert local6.get("/").status_code == 200
    with TestClient(app, base_url="http://rebound.example:8000") as rebound:
        response = rebound.get("/")
        assert_error_page(response, 400)
        assert "good" not in response.text
