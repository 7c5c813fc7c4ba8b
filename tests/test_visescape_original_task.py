"""`visescape/original`: the authors' rooms as a task, with the paper's protocol (the original runner's
observation, reply reading, retries, hints, early stop and metrics). Played on our demo clone, or the demo
room's own id `visescape/original-demo`."""

from __future__ import annotations

import io
import json
import os
import re

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, Validity
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.original.demo import ROOM, WALKTHROUGH, write_demo_clone


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return write_demo_clone(tmp_path_factory.mktemp("visescape") / "clone")


def start(**options):
    """The demo room: from a clone written in the authors' layout (`source=`), else by its own id."""
    task = make_task("visescape/original" if "source" in options else "visescape/original-demo", **options)
    task.reset(task.instances(None, 0)[0])
    return task


FIRST_ACTIONS = ["turn_to_east", "turn_to_south", "turn_to_west", "inspect Chest", "inspect Door"]
UNREADABLE = "Let me think about this room.\nThe door looks locked."


def oracle_path():
    task = start()
    out = []
    while not task.done:
        out.append(task.oracle_action("player"))
        task.step(out[-1])
    return out


def test_the_oracle_plays_the_walkthrough_and_scores_as_the_authors(clone):
    task = start(source=str(clone))
    assert task.instance.id == ROOM and task.instance.optimal_steps == 18
    actions = []
    while not task.done:
        actions.append(task.oracle_action("player"))
        assert task.step(actions[-1]).validity == Validity.EFFECTIVE
    expected = [a for a, _, _ in WALKTHROUGH]
    assert actions == [f"<ANSWER>{a}</ANSWER>" if a == "4213" else a for a in expected]
    out = task.outcome()
    assert out.success and out.termination == "goal_reached" and out.steps == 18
    m = out.metrics
    assert m["gc"] == 1.0 and m["spl"] == 1.0 and m["paper_steps"] == 18 and m["locks_solved"] == 1
    assert m["essential_seen"] == 1.0 and m["repeated_action_ratio"] == 0.0


def test_each_view_is_the_original_image_file_unchanged(clone):
    task = start(source=str(clone))
    for action in ["turn_to_south", "inspect Panel"]:
        task.step(action)
    images = task.observe("player").images
    assert len(images) == 1
    assert (
        images[0].png
        == (clone / "assets" / ROOM / "image/object_view/Panel/Panel_default_with_Button.png").read_bytes()
    )


def test_the_observation_carries_what_the_original_prompt_carries():
    task = start()
    first = task.observe("player")
    assert "<Current Observation>NORTH side of room - " in first.text
    assert "Action Memory" not in first.text and "Inventory" not in first.text
    assert "['turn_to_east', 'turn_to_south', 'turn_to_west', 'inspect Chest', 'inspect Door']" in first.text
    for action in oracle_path()[:16]:
        result = task.step(action)
    obs = task.observe("player")
    text = obs.text
    assert (
        "<Action Memory>\nAt Panel, press Button\nAt Cupboard, open\nAt Cupboard, pick key_A\nAt Keylock_A, use key_A</Action Memory>"
        in text
    )
    recent = re.search(r"<Recent actions\(from oldest to latest\)>\n(.*)</Recent actions>", text, re.S).group(
        1
    )
    assert "turn_to" not in recent and len(recent.splitlines()) == 10
    assert "<Inventory>You hold nothing.</Inventory>" in text
    assert "<Your action before this turn>inspect Numberlock</Your action before this turn>" in text
    assert "'<ANSWER> [the answer]'" in text and "<ANSWER>your answer</ANSWER>" in text
    # no result text, no answer format, no state words
    assert "Last action result" not in text and "digits" not in text and "locked" not in text
    assert obs.data["takes_answer"] and obs.data["view"] == {
        "kind": "item",
        "name": "Numberlock",
        "location": "At Numberlock, ",
    }
    assert obs.data["objects"] == ["Numberlock"] and result.feedback == "Action taken: inspect Numberlock."


def test_replies_are_read_as_the_original_agents_read_them():
    task = start()
    for action in oracle_path()[:16]:
        task.step(action)
    # at a number lock, <ANSWER> is an answer; it is compared ignoring case and surrounding spaces
    wrong = task.step("[THINK] the picture... [ACTION] <ANSWER> 1234 </ANSWER>")
    assert wrong.validity == Validity.INEFFECTIVE and wrong.info["lock"] == {
        "id": "Numberlock",
        "correct": False,
    }
    assert task.observe("player").data["recent_actions"][-1] == "At Numberlock, try 1234"
    right = task.step("<ANSWER>4213")  # an unclosed tag: its first word
    assert right.info["lock"]["correct"] and task.game.rec_state["Door"] == "closed"
    # [ACTION]: the first line after the first marker, colons removed
    assert task.step("[ACTION]: open\nmore text").parsed == "open" and task.done


def test_unavailable_replies_are_retried_then_a_random_action_is_taken():
    task = start()
    before = task.state_digest()
    for _ in range(3):
        r = task.step("[ACTION] fly away")
        assert (
            r.validity == Validity.INVALID and r.reason == "unavailable" and "not available now" in r.feedback
        )
        assert task.state_digest() == before and task.steps == 0
    assert "not available now" in task.observe("player").text  # the retry message reaches the model
    r = task.step("nonsense")
    assert task.steps == 1 and r.info["fallback"] in FIRST_ACTIONS and r.info["fallback_after"] == "retries"
    spend = start(fallback="spend_step", retry_limit=0)
    r = spend.step("")
    assert r.validity == Validity.UNPARSEABLE and spend.steps == 1 and spend.state_digest() == before


def test_an_unreadable_reply_plays_the_fallback_at_once_except_at_a_lock_that_takes_an_answer():
    task = start()
    r = task.step(UNREADABLE)
    assert (
        task.steps == 1 and r.info["fallback"] in FIRST_ACTIONS and r.info["fallback_after"] == "unreadable"
    )
    at_lock = start()
    for action in oracle_path()[:16]:
        at_lock.step(action)
    assert at_lock.observe("player").data["takes_answer"]
    r = at_lock.step(UNREADABLE)  # the authors' agents ask again here (their isquiz())
    assert r.validity == Validity.UNPARSEABLE and at_lock.steps == 16 and "fallback" not in r.info
    asked = start(unreadable="ask_again")
    assert asked.step(UNREADABLE).validity == Validity.UNPARSEABLE and asked.steps == 0


NO_SOURCE_RUNS = [
    ["run", "visescape/original", "--agent", "random"],
    ["run", "visescape/original-hint", "--agent", "oracle"],
    ["reproduce", "visescape", "--agent", "random"],
    ["play", "visescape/original"],
]


@pytest.mark.parametrize("argv", NO_SOURCE_RUNS, ids=lambda a: " ".join(a[:2]))
def test_the_authors_ids_refuse_to_play_without_a_source(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("turn_to_east\n"))
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("playbench: error: the authors' VisEscape rooms")
    for named in (
        "--set source=PATH",
        "~/.cache/playbench/originals",
        "PLAYBENCH_ORIGINALS",
        "original-demo",
    ):
        assert named in err, named
    assert not (out / "episodes.jsonl").exists()  # nothing played, least of all the demo room


def test_the_demo_room_plays_by_its_own_id_and_takes_no_clone(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["run", "visescape/original-demo", "--agent", "oracle", "--out", str(out)]) == 0
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["task"] == "visescape/original-demo" and rec["instance_id"] == ROOM
    assert rec["success"] and rec["steps"] == 18
    assert make_task("visescape/original-demo").model_side() is pc.MODEL_SIDE
    capsys.readouterr()
    args = ["run", "visescape/original-demo", "--agent", "oracle", "--set", "source=/x", "--out", str(out)]
    assert main(args) == 2 and "--set source: no selected task has this option" in capsys.readouterr().err
    # the authors' ids keep the demo room's set for the checks (conformance, pinned digests) only
    assert [i.id for i in make_task("visescape/original").instances(None, 0)] == [ROOM]
    with pytest.raises(ConfigError, match="visescape/original-demo"):
        make_task("visescape/original").preflight()
    make_task("visescape/original-demo").preflight()


def test_hints_appear_after_30_stalled_steps_and_the_game_stops_after_100():
    task = start(hints=True)
    task.step("turn_to_south")  # the first step is never compared
    for k in range(31):
        assert task.observe("player").data["hint"] is None, k
        task.step("turn_to_south" if k % 2 else "turn_to_east")
    hint = task.observe("player").data["hint"]
    assert hint == "Press the Button on the Panel at the south wall"
    assert f"<Hint Message>\n{hint}</Hint Message>" in task.observe("player").text
    while not task.done:
        task.step("turn_to_east" if task.steps % 2 else "turn_to_west")
    assert task.outcome().termination == "no_progress" and task.steps == 101
    assert task.outcome().metrics["paper_steps"] == 300 and task.outcome().metrics["hcr"] == 0.0


def test_hint_completion_counts_hint_streaks_ended_by_progress():
    task = start(hints=True, hint_after=0)
    task.step("turn_to_west")
    task.step("turn_to_south")  # stalled once: a hint is due
    assert task.observe("player").data["hint"] == "Press the Button on the Panel at the south wall"
    task.step("inspect Panel")
    task.step("press Button")  # progress under the hint
    task.step("turn_to_east")  # no hint shown with this step
    metrics = (task.end("goal_reached"), task.outcome().metrics)[1]
    assert metrics["hcr"] == 1.0 and metrics["checkpoints_reached"] == 1 and metrics["hints_given"] == 1


def test_a_bad_source_is_a_one_line_error(tmp_path):
    with pytest.raises(ConfigError, match=r"does not exist; give --set source=PATH") as err:
        make_task("visescape/original", source=str(tmp_path / "missing")).instances(None, 0)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match=r"unknown room 'room7'"):
        make_task("visescape/original-demo", rooms="room7").instances(None, 0)
    assert (
        main(
            [
                "run",
                "visescape/original",
                "--agent",
                "oracle",
                "--set",
                f"source={tmp_path}",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )


def test_a_person_plays_an_original_room_at_the_terminal(clone, tmp_path, monkeypatch, capsys):
    typed = ["what is this", *oracle_path()]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in typed)))
    out = tmp_path / "play"
    assert main(["play", "visescape/original", "--set", f"source={clone}", "--out", str(out)]) == 0
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["success"] and rec["steps"] == 18 and rec["agent"] == "human"
    shown = capsys.readouterr().err
    assert shown.count(".png") >= 18


def test_a_person_plays_an_original_room_in_the_browser(clone, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from playbench.web.server import create_app

    with TestClient(create_app([str(tmp_path / "runs")])) as client:
        response = client.post(
            "/play/start",
            data={"task": "visescape/original", "seed": "0", "options": f"source={clone}"},
            follow_redirects=False,
        )
        assert response.status_code == 303, response.text
        sid, seat = re.match(r"/play/s/([^?]+)\?seat=(\w+)", response.headers["location"]).groups()
        for action in oracle_path():
            text = client.get(f"/play/s/{sid}/panel", params={"seat": seat}).text
            move = re.search(r'name=move value="(\d+)"', text).group(1)
            image = re.search(r'<img src="([^"]+)"', text).group(1)
            png = client.get(image).content
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            client.post(f"/play/s/{sid}/act", data={"seat": seat, "move": move, "action": action})
        text = client.get(f"/play/s/{sid}/panel", params={"seat": seat}).text
        assert 'data-testid="finished"' in text


def test_images_shown_are_png_bytes_of_the_clone(clone):
    task = start(source=str(clone))
    while not task.done:
        for part in task.observe("player").parts:
            if isinstance(part, ImagePart):
                assert part.png.startswith(b"\x89PNG")
        task.step(task.oracle_action("player"))


CLONE = os.environ.get("PLAYBENCH_VISESCAPE_CLONE")


@pytest.mark.skipif(not CLONE, reason="set PLAYBENCH_VISESCAPE_CLONE to a clone of pull-ups/VisEscape-demo")
def test_the_oracle_escapes_every_room_whose_walkthrough_is_valid():
    from pathlib import Path

    task = make_task("visescape/original", source=CLONE)
    instances = task.instances(None, 0)
    assert [i.id for i in instances] == [f"room{k}" for k in range(1, 21)]
    for inst in instances:
        task.reset(inst)
        while not task.done:
            action = task.oracle_action("player")
            if action is None:
                break
            for part in task.observe("player").parts:
                if isinstance(part, ImagePart):
                    assert part.png == task._clone.image_bytes(inst.room, task.game.image()), inst.id
            result = task.step(action)
            assert result.validity == Validity.EFFECTIVE or inst.id == "room19", (inst.id, action)
        if inst.id == "room19":  # its walkthrough types 37 where the lock's answer is 3778
            assert inst.optimal_steps is None and not task.done
            continue
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps, inst.id
        assert out.metrics["gc"] >= (0.9 if inst.id == "room20" else 1.0), (
            inst.id
        )  # room 20: the kiosk stays off
    assert Path(CLONE, "assets").is_dir()


@pytest.mark.skipif(not CLONE, reason="set PLAYBENCH_VISESCAPE_CLONE to a clone of pull-ups/VisEscape-demo")
def test_rooms_14_and_17_have_no_hint_for_their_number_lock():
    """Their hint tables lack `solved_NumberLock`: the authors' runner stops with a KeyError once that hint
    is due. Room 17's door opens with the lock, so it never is; in room 14 it is: we show no hint, play on."""
    for room in ("room14", "room17"):
        task = make_task("visescape/original", source=CLONE, rooms=room, hints=True, hint_after=0)
        task.reset(task.instances(None, 0)[0])
        while "solved_NumberLock" not in task.game.triggers:
            task.step(task.oracle_action("player"))
        assert (
            task.game.last_trigger() == "solved_NumberLock"
            and "solved_NumberLock" not in task.game.room.hints
        )
        if room == "room17":
            assert task.done and task.outcome().success
            continue
        task.step("turn_to_east")  # no progress: a hint is due, for the last trigger
        assert task._progress.due(True) and task.observe("player").data["hint"] is None and not task.done
