"""Fit and finish of the web app over HTTP (issue 27, item 11): games in progress show when they were
started and last played and can be discarded (the server removes only its own journal file), every
page counts trials from 1, and a comparison shows a titled dash for a metric a run does not have."""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
from fastapi.testclient import TestClient  # noqa: E402
from test_web_app import act, panel, start, your_turn  # noqa: E402

from playbench.agents import AgentSpec  # noqa: E402
from playbench.runner.episode import EpisodeOutput, key_filename  # noqa: E402
from playbench.runner.run import RunConfig, execute  # noqa: E402
from playbench.runner.store import RunStore  # noqa: E402
from playbench.web import render  # noqa: E402
from playbench.web.server import create_app  # noqa: E402

WALK = {"task": "toy/walk", "instance": "walk-0-3", "options": "length=9\nmax_steps=20"}


def position(text: str) -> tuple[int, int]:
    return tuple(map(int, re.search(r"position (\d+), target (\d+)", text).groups()))


def play_to_the_end(client, sid: str, seat: str) -> str:
    text = panel(client, sid, seat, your_turn)
    while 'data-testid="finished"' not in text:
        pos, target = position(text)
        assert act(client, sid, seat, "right" if target > pos else "left").json()["ok"]
        text = panel(client, sid, seat, lambda t: your_turn(t) and "moved" in t or "finished" in t)
    return text


def one_move_away(client, sid: str, seat: str) -> None:
    """A move away from the goal, so the game goes on (and its journal holds one move)."""
    pos, target = position(panel(client, sid, seat, your_turn))
    assert act(client, sid, seat, "left" if target > pos else "right").json()["ok"]
    panel(client, sid, seat, lambda t: "moved" in t)


def game_item(page: str, sid: str) -> str:
    match = re.search(rf'<li data-game="{re.escape(sid)}">(.*?)</li>', page)
    assert match, f"game {sid} is not listed"
    return match.group(1)


# ------------------------------------------------------------------------------ games in progress
def test_an_abandoned_game_shows_its_times_and_can_be_discarded(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    with TestClient(create_app([str(root)])) as first:
        done_sid, seat = start(first, **WALK)
        assert "Solved" in play_to_the_end(first, done_sid, seat)  # trial 0 is recorded
        sid, seat = start(first, **WALK)  # trial 1: one move, then the server stops
        one_move_away(first, sid, seat)
    (journal,) = root.rglob(f"unfinished/{sid}.json")
    run_dir = journal.parent.parent
    episodes = (run_dir / "episodes.jsonl").read_bytes()
    assert len(episodes.splitlines()) == 1

    with TestClient(create_app([str(root)])) as second:
        item = game_item(second.get("/play").text, sid)
        # when it was started and last played, as a date and a time (with the full moment in datetime=)
        started, last = re.findall(r'<time datetime="([^"]+)">(\d{4}-\d\d-\d\d \d\d:\d\d)</time>', item)
        assert started[0].startswith(started[1][:10]) and "last move" in item and "1 move" in item
        assert "trial 2" in item  # the second game of the instance (trial 1 in the records)
        assert f'action="/play/s/{sid}/discard"' in item and "data-confirm=" in item

        # without confirm=yes nothing happens: the server asks instead
        asked = second.post(f"/play/s/{sid}/discard", data={"confirm": ""}, follow_redirects=False)
        assert asked.status_code == 409 and 'name=confirm value="yes"' in asked.text
        assert second.get(f"/play/s/{sid}/discard").status_code == 200
        assert journal.exists()
        # a post from another site is refused before it gets here
        forged = second.post(
            f"/play/s/{sid}/discard", data={"confirm": "yes"}, headers={"Origin": "http://evil.example"}
        )
        assert forged.status_code == 403 and journal.exists()

        done = second.post(f"/play/s/{sid}/discard", data={"confirm": "yes"}, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == f"/play?discarded={sid}"
        assert not journal.exists() and not journal.parent.exists()  # the emptied folder goes too
        assert (run_dir / "episodes.jsonl").read_bytes() == episodes  # the finished game stays
        page = second.get(done.headers["location"]).text
        assert 'data-testid="discarded"' in page and f'data-game="{sid}"' not in page
        assert 'data-testid="discarded"' in second.get(f"/play/s/{sid}/panel").text
        assert second.post(f"/play/s/{sid}/discard", data={"confirm": "yes"}).status_code == 404

        # the discarded game's trial was never recorded, so the next game takes it
        again, seat = start(second, **WALK)
        assert 'data-testid="trial">trial 2</span>' in second.get(f"/play/s/{again}").text
        assert "Solved" in play_to_the_end(second, again, seat)
    records = [json.loads(x) for x in (run_dir / "episodes.jsonl").read_text().splitlines()]
    assert [r["trial"] for r in records] == [0, 1]
    with TestClient(create_app([str(root)])) as third:
        assert f"/play/s/{sid}" not in third.get("/play").text


def test_a_running_game_can_be_discarded_and_records_nothing(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    with TestClient(create_app([str(root)])) as client:
        sid, seat = start(client, **WALK)
        one_move_away(client, sid, seat)
        (journal,) = root.rglob(f"unfinished/{sid}.json")
        answer = client.post(
            f"/play/s/{sid}/discard", data={"confirm": "yes"}, headers={"Accept": "application/json"}
        )
        assert answer.json() == {"ok": True}
        assert 'data-testid="discarded"' in panel(client, sid, seat, lambda t: "discarded" in t)
        late = client.post(
            f"/play/s/{sid}/act",
            data={"seat": seat, "move": "1", "action": "right"},
            headers={"Accept": "application/json"},
        )
        assert late.status_code == 409  # the game is over: no move is taken
        assert not journal.exists()
        assert f'data-game="{sid}"' not in client.get("/play").text
    recorded = journal.parent.parent / "episodes.jsonl"
    assert not recorded.exists() or not recorded.read_text().strip()  # nothing was recorded


def test_discarding_touches_only_the_servers_own_journals(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    with TestClient(create_app([str(root)])) as first:
        sid, seat = start(first, **WALK)
        one_move_away(first, sid, seat)
    (journal,) = root.rglob(f"unfinished/{sid}.json")
    data = json.loads(journal.read_text())
    # a journal that is a symlink to a file elsewhere, and a run folder linked in from elsewhere
    precious = outside / "precious.json"
    precious.write_text(json.dumps({**data, "sid": "linked"}))
    os.symlink(precious, journal.parent / "linked.json")
    (outside / "run" / "unfinished").mkdir(parents=True)
    (outside / "run" / "unfinished" / "elsewhere.json").write_text(json.dumps({**data, "sid": "elsewhere"}))
    os.symlink(outside / "run", journal.parent.parent.parent / "linked-run")
    with TestClient(create_app([str(root)])) as client:
        page = client.get("/play").text
        assert f'data-game="{sid}"' in page
        assert 'data-game="linked"' not in page and 'data-game="elsewhere"' not in page  # not offered
        for forged in ("linked", "elsewhere", "../outside/precious", "..%2F..%2Fprecious", sid + ".json"):
            answer = client.post(f"/play/s/{forged}/discard", data={"confirm": "yes"})
            assert answer.status_code == 404, forged
        assert client.post(f"/play/s/{sid}/discard", data={"confirm": "yes"}).status_code == 200
    assert not journal.exists()
    assert precious.exists() and (journal.parent / "linked.json").is_symlink()
    assert (outside / "run" / "unfinished" / "elsewhere.json").exists()


# ------------------------------------------------------------------------------ one trial numbering
def test_trial_text_counts_from_one():
    assert render.trial_number(0) == "1" and render.trial_number("2") == "3"
    assert render.trial_number(None) == "–"
    assert render.trial_text(0) == "trial 1"
    assert render.trial_text(1, 3) == "trial 2 of 3"
    assert render.trial_text(4, 3) == "trial 5"  # more trials than the configuration asked for
    web = {"config": {"source": "web", "run": {"trials": 1}}}
    assert render.run_trials(web) is None
    assert render.run_trials({"config": {"run": {"trials": 3}}}) == 3


@pytest.fixture(scope="module")
def two_trials(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("web-trials") / "runs"
    for agent in ("oracle", "random"):
        config = RunConfig(
            tasks=["toy/walk"], agents={"*": AgentSpec(agent)}, out=str(base / agent), episodes=1, trials=2
        )
        asyncio.run(execute(config))
    return base


def test_every_page_counts_trials_from_one(two_trials):
    records = [json.loads(x) for x in (two_trials / "oracle" / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["trial"] for r in records) == [0, 1]  # the records count from 0
    with TestClient(create_app([str(two_trials)])) as client:
        home = client.get("/").text
        ids = {
            label.rsplit("/", 1)[-1]: rid for rid, label in re.findall(r'/run/([0-9a-f]{12})">([^<]+)<', home)
        }
        run = client.get(f"/run/{ids['oracle']}").text
        # the episode list: trial column 1 and 2, its heading saying how the records count
        trial_cells = re.findall(r'<td data-v="(\d)">(\d)</td><td data-v="oracle">', run)
        assert sorted(trial_cells) == [("0", "1"), ("1", "2")]
        assert 'title="trials are counted from 1 here' in run
        # the replay of the record with trial 0 says trial 1 of 2, and names the stored number
        link = re.search(r'href="(/run/[0-9a-f]+/episode/toy__walk__[^"]+__t0)"', run).group(1)
        replay = client.get(link).text
        assert re.search(r'data-testid="episode-title">toy/walk · [^<]+ · trial 1 of 2</h2>', replay)
        assert "<dt>trial</dt><dd>1 of 2 (trial 0 in episodes.jsonl, which counts from 0)</dd>" in replay
        # the comparison's episodes side by side
        compare = client.get("/compare", params=[("run", ids["oracle"]), ("run", ids["random"])]).text
        side = compare.split('<table class="side-by-side">')[1].split("</table>")[0]
        assert re.findall(r"<tr><td>[^<]+</td><td>(\d)</td>", side) == ["1", "2"]
        # the play page of a first game
        sid, _ = start(client, task="toy/walk", instance="walk-0-0")
        assert 'data-testid="trial">trial 1</span>' in client.get(f"/play/s/{sid}").text


# ------------------------------------------------------------------------------ compare: missing metrics
def metric_run(path: Path, metrics: dict) -> None:
    store = RunStore(path)
    for i in range(2):
        key = ("toy/walk", f"walk-{i}", 0)
        record = {
            "task": "toy/walk",
            "instance_id": key[1],
            "seed": 0,
            "trial": 0,
            "agent": "random",
            "model": None,
            "roles": {"player": "random"},
            "success": bool(i),
            "steps": 3,
            "optimal_steps": 2,
            "metrics": metrics,
            "error": None,
            "termination": "goal_reached",
            "usage": {},
            "duration_s": 0.1,
            "trajectory": f"trajectories/{key_filename(key)}.jsonl",
        }
        store.write(EpisodeOutput(record=record, steps=[], images={}))
    store.close()


def test_a_missing_metric_is_a_titled_dash_never_an_empty_cell(tmp_path):
    root = tmp_path / "runs"
    metric_run(root / "with", {"final_distance": 1, "only_here": 0.5})
    metric_run(root / "without", {"final_distance": 2})
    with TestClient(create_app([str(root)])) as client:
        home = client.get("/").text
        rids = re.findall(r'name=run value="([0-9a-f]{12})"', home)
        page = client.get("/compare", params=[("run", r) for r in rids]).text
    row = re.search(r"<tr><th scope=row>only_here</th>(.*?)</tr>", page).group(1)
    assert '<td class="missing" title="runs/without · random has no metric \'only_here\'">–</td>' in (
        html.unescape(row)
    )
    assert "0.5" in row
    assert not re.search(r"<td[^>]*>\s*</td>", page)  # no empty cell anywhere on the page
