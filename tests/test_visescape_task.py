"""Rules of play: views, object actions, locks, retries, early stop, hints, captions, rendering."""

import io
import json

import pytest

from playbench.cli import main
from playbench.core.types import Validity
from playbench.tasks.visescape.task import VisEscapeTask
from playbench.testing.scripted_server import ScriptedServer, last_user_text


def room01(**options) -> VisEscapeTask:
    task = VisEscapeTask(rooms=["room-01"], **options)
    task.reset(task.instances(1, 0)[0])
    return task


def play(task: VisEscapeTask, *actions: str):
    return [task.step(a) for a in actions]


def test_views_and_available_actions():
    task = room01()
    obs = task.observe("player")
    assert "<Current Observation>north side of room - wall view</Current Observation>" in obs.text
    assert obs.legal_actions == ["turn_to_east", "turn_to_south", "turn_to_west", "inspect door"]
    play(task, "turn_to_west", "inspect safe")
    assert task.engine.available(task.game_state) == ["step_back", "open", "inspect safe_lock"]
    r = task.step("open")
    assert r.validity == Validity.INEFFECTIVE and "safe is locked" in r.feedback


def test_lock_answers_and_brute_force_count():
    task = room01()
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    answer = task.engine.answer("safe_lock")
    assert any(a.startswith("<ANSWER>") for a in task.legal_actions())
    wrong = "0000" if answer != "0000" else "1111"
    assert task.step(f"<ANSWER>{wrong}</ANSWER>").validity == Validity.INEFFECTIVE
    task.step(f"[THINK] same again [ACTION] <ANSWER>{wrong}</ANSWER>")
    r = task.step(f"[THINK] the discs match the dots\n[ACTION]\n<ANSWER>{' '.join(answer)}</ANSWER>")
    assert r.validity == Validity.EFFECTIVE and "solved_safe_lock" in r.info["checkpoints"]
    assert task.engine.rec_state(task.game_state, "safe") == "closed"  # the auto transition fired
    out = task.outcome()
    assert out.metrics["wrong_answers_distinct"] == 1 and out.metrics["answers"] == 3
    assert out.metrics["locks_solved"] == 1


def test_answer_quoted_in_the_reasoning_is_not_the_action():
    """Only the [ACTION] section acts: an <ANSWER> tag quoted while thinking is neither entered nor
    allowed to replace the answer written after [ACTION]."""
    task = room01()
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    answer = task.engine.answer("safe_lock")
    r = task.step("[THINK] I tried <ANSWER>0000</ANSWER> before; let me check the clue.\n[ACTION]\nstep_back")
    assert r.parsed == "step_back" and task.outcome().metrics["answers"] == 0
    task.step("inspect safe_lock")
    r = task.step(f"[THINK] The format is <ANSWER>your answer</ANSWER>.\n[ACTION]\n<ANSWER>{answer}</ANSWER>")
    assert r.validity == Validity.EFFECTIVE and "solved_safe_lock" in r.info["checkpoints"]
    assert task.outcome().metrics["wrong_answers_distinct"] == 0


def test_use_pick_and_inventory():
    task = room01()
    play(task, "turn_to_east", "inspect desk", "open", "pick key_A")
    assert "key_A (small brass key)" in task.observe("player").text
    play(task, "step_back", "turn_to_south", "inspect wardrobe")
    r = task.step("use key_A")
    assert r.validity == Validity.EFFECTIVE and r.info["checkpoints"] == ["unlocked_wardrobe"]
    assert "key_A" not in task.game_state.held  # consumed


def test_unavailable_actions_get_retry_feedback_and_cost_a_step_when_repeated():
    task = room01(retry_limit=2)
    r = task.step("inspect safe")
    assert r.validity == Validity.INVALID and r.reason == "unavailable"
    assert "not available right now" in r.feedback and "turn_to_west" in r.feedback
    assert task.outcome().steps == 0
    task.step("dance wildly!")
    r = task.step("inspect safe")
    assert r.info["step_spent"] and task.outcome().steps == 1
    assert task.step("").validity == Validity.UNPARSEABLE


def test_early_stop_after_patience_without_progress():
    task = room01(patience=10)
    for _ in range(10):
        task.step("turn_to_east")
        task.step("turn_to_north") if not task.done else None
    assert task.done and task.outcome().termination == "no_progress"
    assert "ended_by" not in task.outcome().metrics
    assert task.outcome().metrics["paper_steps"] == 300 and not task.outcome().success


def test_hint_after_30_steps_and_hcr():
    task = room01(hints=True)
    for _ in range(14):
        play(task, "turn_to_south", "turn_to_north")
    task.step("turn_to_south")
    assert "<Hint>" not in task.observe("player").text  # 29 steps without progress
    task.step("turn_to_east")
    hint = task.observe("player").text
    assert "<Hint>Open the desk at the east wall and pick up the key inside.</Hint>" in hint
    play(task, "inspect desk", "open", "pick key_A")
    out = task.outcome()
    assert out.metrics["hcr"] == 1.0 and out.metrics["hints_shown"] >= 1


def test_hint_reveals_lock_answer():
    task = room01(hints=True)
    text = task.format_hint(task._room.checkpoints[3].hint)
    assert task.engine.answer("safe_lock") in text


def test_caption_mode_and_images_follow_state():
    task = room01(observation="caption")
    obs = task.observe("player")
    assert not obs.images and '"door" (a brown door, locked)' in obs.text
    image_task = room01()
    play(image_task, "turn_to_east", "inspect desk")
    closed = image_task.observe("player").images[0].png
    image_task.step("open")
    opened = image_task.observe("player").images[0].png
    assert closed != opened and opened[:8] == b"\x89PNG\r\n\x1a\n"
    assert "key_A" in image_task.caption()


def test_every_state_change_on_the_oracle_path_changes_the_view():
    task = room01()
    previous = task.observe("player").images[0].png
    while not task.done:
        result = task.step(task.oracle_action("player"))
        png = task.observe("player").images[0].png
        if result.validity == Validity.EFFECTIVE:
            assert png != previous, result.parsed
        previous = png


def test_llm_agent_plays_through_scripted_server(tmp_path):
    def reply(request: dict) -> str:
        text = last_user_text(request)
        options = text.split("<Available actions>")[1].split("</Available actions>")[0].split(", ")
        return f"[THINK] I will explore.\n[ACTION] {options[0]}"

    out = tmp_path / "run"
    with ScriptedServer(reply) as srv:
        code = main(
            [
                "run",
                "visescape/room-01",
                "--agent",
                "llm",
                "--model",
                "openai:scripted",
                "--base-url",
                srv.base_url,
                "--set",
                "max_steps=6",
                "--out",
                str(out),
            ]
        )
        bodies = list(srv.requests)
    assert code == 0 and len(bodies) == 6
    parts = bodies[0]["messages"][-1]["content"]
    assert any(p["type"] == "image_url" for p in parts)
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["steps"] == 6 and rec["termination"] == "step_cap"


def test_wall_views_fill_the_picture():
    # furniture is drawn large enough to recognise: each wall's furniture spans most of the width or
    # the tallest piece reaches most of the way from the floor to the ceiling line
    from dataclasses import replace

    from playbench.tasks.visescape.rooms import room_ids
    from playbench.tasks.visescape.schema import DIRECTIONS
    from playbench.tasks.visescape.views import CEILING_Y, FLOOR_Y, ViewMaker, W

    for rid in room_ids():
        task = VisEscapeTask(rooms=[rid])
        task.reset(task.instances(1, 0)[0])
        views = ViewMaker(task.engine)
        for wall in DIRECTIONS:
            scale, layout = views.wall_layout(replace(task.game_state, view=("wall", wall)), wall)
            if not layout:
                continue
            width = sum(box[2] - box[0] for _, box in layout)
            tallest = max(box[3] - box[1] for _, box in layout)
            assert width >= 0.33 * W or tallest >= 0.7 * (FLOOR_Y - CEILING_Y), (rid, wall, scale)
            assert all(box[0] >= 0 and box[2] <= W for _, box in layout), (rid, wall)


def test_every_state_change_shows_on_its_wall_and_close_up():
    # rooms with screws, sockets, switched-on clocks, sealed chests, lamp-lit paintings and drawers
    from dataclasses import replace

    from playbench.tasks.visescape.views import ViewMaker

    for rid in ("room-02", "room-04", "room-05", "room-13", "room-14"):
        task = VisEscapeTask(rooms=[rid])
        task.reset(task.instances(1, 0)[0])
        engine, views = task.engine, ViewMaker(task.engine)
        before = task.game_state
        while not task.done:
            task.step(task.oracle_action("player"))
            after = task.game_state
            for r in engine.room.receptacles:
                shown = [i.id for i in engine.visible_items(after, r.id)]
                if engine.rec_state(after, r.id) == engine.rec_state(before, r.id) and shown == [
                    i.id for i in engine.visible_items(before, r.id)
                ]:
                    continue
                for view in (("wall", r.wall), ("rec", r.id)):
                    if engine.holds(r.visible, before) and engine.holds(r.visible, after):
                        old = views.image(replace(before, view=view))
                        assert views.image(replace(after, view=view)) != old, (rid, r.id, view)
            before = after


def test_multi_part_states_read_as_words():
    task = VisEscapeTask(rooms=["room-02"])
    task.reset(task.instances(1, 0)[0])
    play(task, "inspect drawers")
    r = task.step("open_top_drawer")
    assert "top drawer open, bottom drawer closed" in r.feedback
    assert "top drawer open, bottom drawer closed" in task.caption()


def test_a_person_escapes_room_01_at_the_terminal(tmp_path, monkeypatch, capsys):
    twin = room01()
    path: list[str] = []
    while not twin.done:
        action = twin.oracle_action(twin.current_role())
        path.append(action)
        twin.step(action)
    typed = ["dance with the lamp", *path]  # a slip first: retry feedback, not a crash
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in typed)))
    out = tmp_path / "play"
    assert main(["play", "visescape/room-01", "--out", str(out)]) == 0
    rec = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert rec["agent"] == "human" and rec["success"] and rec["termination"] == "goal_reached"
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert steps[0]["validity"] == "invalid" and [s["action"] for s in steps[1:]] == path
    shown = capsys.readouterr().err
    assert shown.count(".png") >= len(path)  # every view saved to a file whose path is printed
    assert "dance with the lamp" in steps[0]["action"] and steps[0]["feedback"]


# --- the episode template: terminations, state, data, ids ------------------------------------------------


def test_terminations_and_the_end_of_the_episode():
    task = room01()
    while not task.done:
        task.step(task.oracle_action("player"))
    assert task.outcome().termination == "goal_reached" and task.outcome().success
    r = task.step("turn_to_east")
    assert (
        r.validity == Validity.INVALID and r.reason == "episode_over" and task.oracle_action("player") is None
    )
    capped = room01(max_steps=3)
    play(capped, "turn_to_east", "turn_to_north", "turn_to_east")
    assert capped.done and capped.outcome().termination == "step_cap"
    assert capped.outcome().metrics["paper_steps"] == 3 and "ended_by" not in capped.outcome().metrics
    # when a step reaches the cap and the patience at once, the cap ends it (as the paper counts steps)
    both = room01(max_steps=4, patience=4)
    play(both, *["turn_to_east", "turn_to_north"] * 2)
    assert both.outcome().termination == "step_cap"


def test_a_spent_invalid_step_that_ends_the_game_says_so():
    task = room01(max_steps=2, retry_limit=0)
    task.step("turn_to_east")
    r = task.step("dance")
    assert r.info["step_spent"] and task.done and task.outcome().termination == "step_cap"
    assert r.feedback.endswith("this one cost a step.) The step limit of 2 is reached; the game is over.")


def test_state_covers_the_room_and_ignores_failed_actions():
    task = room01(retry_limit=0)
    state = task.state()
    assert state["view"] == ["wall", "north"] and state["receptacles"]["door"] == "locked"
    assert state["locks"]["safe_lock"] == {"solved": False, "answer": task.engine.answer("safe_lock")}
    digest = task.state_digest()
    for reply in ("", "dance", "inspect safe", "<ANSWER>1</ANSWER>", "[ACTION]"):
        result = task.step(reply)
        assert result.validity in (Validity.INVALID, Validity.UNPARSEABLE)
        assert task.state_digest() == digest, reply  # even when the failed reply spent a step
    assert task.steps == 5
    play(task, "turn_to_east", "inspect desk", "open", "pick key_A")
    state = task.state()
    assert state["held"] == ["key_A"] and state["gone"] == ["key_A"] and "picked_key_A" in state["triggers"]
    assert state["receptacles"]["desk"] == "open" and state["view"] == ["rec", "desk"]
    task.step("inspect key_A")
    assert task.state()["view"] == ["item", "key_A", ["rec", "desk"]]


def test_observation_data_holds_what_the_text_shows():
    task = room01(hints=True, hint_after=1)
    data = task.observe("player").data
    assert data["view"] == {
        "kind": "wall",
        "name": "north",
        "wall": "north",
        "header": "north side of room - wall view",
    }
    assert (
        data["held"] == [] and data["hint"] is None and data["lock"] is None and data["recent_actions"] == []
    )
    assert data["available_actions"] == ["turn_to_east", "turn_to_south", "turn_to_west", "inspect door"]
    assert "caption" not in data  # image mode: the ground-truth caption is not public
    play(
        task,
        "turn_to_east",
        "inspect desk",
        "open",
        "pick key_A",
        "step_back",
        "turn_to_west",
        "inspect safe",
    )
    task.step("inspect safe_lock")
    obs = task.observe("player")
    data = obs.data
    assert (
        data["view"]["kind"] == "item"
        and data["view"]["name"] == "safe_lock"
        and data["view"]["wall"] == "west"
    )
    assert f"<Current Observation>{data['view']['header']}</Current Observation>" in obs.text
    assert data["held"] == [{"id": "key_A", "name": "small brass key"}]
    assert data["lock"] == {"id": "safe_lock", "answer_format": "4 digits, e.g. <ANSWER>1234</ANSWER>"}
    assert data["available_actions"] == ["step_back", "<ANSWER>your answer</ANSWER>"]
    assert (
        f"<Hint>{data['hint']}</Hint>" in obs.text
        and f"<Last action result>{data['last_result']}" in obs.text
    )
    assert data["recent_actions"][-1] == {
        "step": 8,
        "action": "inspect safe_lock",
        "result": "You take a close look at safe_lock.",
    }
    caption = room01(observation="caption").observe("player")
    assert caption.data["caption"] in caption.text


def test_room_ids_are_fixed():
    from playbench.core.errors import ConfigError
    from playbench.core.registry import get_spec

    spec = get_spec("visescape/room-01")
    with pytest.raises(ConfigError, match="run visescape/room-02 instead"):
        spec.make(rooms="room-02")
    with pytest.raises(ConfigError, match="visescape/room-01 takes no room_file"):
        spec.make(room_file="my-room.json")
    assert spec.make(rooms="room-01").config.room_list() == ["room-01"]
    assert get_spec("visescape/rooms").make(rooms="room-03").config.room_list() == ["room-03"]
    assert main(["run", "visescape/room-01", "--agent", "oracle", "--set", "rooms=room-02"]) == 2


def test_a_room_file_is_read_afresh(tmp_path):
    from playbench.tasks.visescape.rooms import load_room

    data = load_room("room-01").model_dump(by_alias=True, exclude_none=True)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({**data, "id": "mine"}))
    task = VisEscapeTask(room_file=str(path))
    assert not task.cache_instances and [i.id for i in task.instances(None, 0)] == ["mine"]
    path.write_text(json.dumps({**data, "id": "mine-2"}))
    assert [i.id for i in task.instances(None, 0)] == ["mine-2"]
    assert VisEscapeTask().cache_instances
