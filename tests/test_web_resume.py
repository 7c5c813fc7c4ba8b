"""A game in the browser survives a server restart: every move is journalled in the run directory, a
new server offers the game and replays its moves, and the game is recorded exactly once (issue 20)."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("fastapi", reason="the web app needs the 'web' extra")
from fastapi.testclient import TestClient  # noqa: E402
from test_web_app import act, panel, start, your_turn  # noqa: E402

from playbench.web.server import create_app  # noqa: E402


def position(text: str) -> tuple[int, int]:
    return tuple(map(int, re.search(r"position (\d+), target (\d+)", text).groups()))


OPTIONS = {"task": "toy/walk", "instance": "walk-0-3", "options": "length=9\nmax_steps=20"}


def start_and_step_away(client):
    """A game started and one move made away from the goal (so it goes on): (sid, seat, move, panel)."""
    sid, seat = start(client, **OPTIONS)
    text = panel(client, sid, seat, your_turn)
    pos, target = position(text)
    away = "left" if target > pos else "right"
    assert act(client, sid, seat, away).json()["ok"]
    return sid, seat, away, panel(client, sid, seat, lambda t: "moved" in t)


def test_a_restarted_server_resumes_the_game_where_it_stopped(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    with TestClient(create_app([str(root)])) as first:
        sid, seat, away, text = start_and_step_away(first)
        moved = position(text)[0]
        journals = list(root.rglob(f"unfinished/{sid}.json"))
        assert len(journals) == 1 and json.loads(journals[0].read_text())["moves"] == [
            {"role": "player", "text": away}
        ]
    # the first server is gone (its game task cancelled); a new one starts on the same folder
    with TestClient(create_app([str(root)])) as second:
        assert f"/play/s/{sid}" in second.get("/play").text  # offered as a game in progress
        text = panel(second, sid, seat, your_turn)
        assert position(text)[0] == moved  # the journalled move was replayed, not asked again
        while 'data-testid="finished"' not in text:
            pos, target = position(text)
            assert act(second, sid, seat, "right" if target > pos else "left").json()["ok"]
            text = panel(second, sid, seat, lambda t: your_turn(t) and "moved" in t or "finished" in t)
        assert "Solved" in text
    runs = [p.parent for p in root.rglob("episodes.jsonl")]
    assert len(runs) == 1
    records = [json.loads(x) for x in (runs[0] / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 1 and records[0]["success"] and records[0]["instance_id"] == "walk-0-3"
    steps = [json.loads(x) for x in (runs[0] / records[0]["trajectory"]).read_text().splitlines()]
    assert steps[0]["action"] == away and len(steps) == records[0]["steps"]
    assert not list(root.rglob("unfinished/*.json"))  # recorded, so nothing is left to resume
    with TestClient(create_app([str(root)])) as third:
        assert f"/play/s/{sid}" not in third.get("/play").text


def test_a_journal_left_beside_its_recorded_episode_is_removed_not_offered(tmp_path):
    """A server killed after recording a game but before removing its journal: the next server sees the
    episode on record, offers nothing and removes the journal (it found this in the study load test)."""
    root = tmp_path / "runs"
    root.mkdir()
    with TestClient(create_app([str(root)])) as first:
        sid, seat, _, text = start_and_step_away(first)
        (journal,) = root.rglob(f"unfinished/{sid}.json")
        kept = journal.read_bytes()
        while 'data-testid="finished"' not in text:
            pos, target = position(text)
            assert act(first, sid, seat, "right" if target > pos else "left").json()["ok"]
            text = panel(first, sid, seat, lambda t: your_turn(t) and "moved" in t or "finished" in t)
    assert not journal.exists()
    journal.write_bytes(kept)  # as if the server had died between the record and the clean-up
    with TestClient(create_app([str(root)])) as second:
        assert f"/play/s/{sid}" not in second.get("/play").text
    assert not journal.exists()
    (run,) = [p.parent for p in root.rglob("episodes.jsonl")]
    assert len((run / "episodes.jsonl").read_text().splitlines()) == 1
