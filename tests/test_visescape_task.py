"""Rules of play: views, object actions, locks, retries, early stop, hints, captions, rendering."""

import io
import json
import re

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
    assert "<Current Observation>NORTH side of room - " in obs.text and len(obs.images) == 1
    assert obs.legal_actions == ["turn_to_east", "turn_to_south", "turn_to_west", "inspect door"]
    play(task, "turn_to_west", "inspect safe")
    # turn_to works from every view, as in the original game
    assert task.engine.available(task.game_state) == [
        "turn_to_north",
        "turn_to_east",
        "turn_to_south",
        "step_back",
        "open",
        "inspect safe_lock",
    ]
    r = task.step("open")
    assert r.validity == Validity.INEFFECTIVE and r.feedback == "Action taken: open."  # no result text
    # our `feedback` option tells the result in words
    assert (
        "safe is locked" in play(room01(feedback=True), "turn_to_west", "inspect safe", "open")[-1].feedback
    )
    task.step("turn_to_east")
    assert task.game_state.view == ("wall", "east")


def test_lock_answers_and_brute_force_count():
    task = room01()
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    answer = task.engine.answer("safe_lock")
    assert any(a.startswith("<ANSWER>") for a in task.legal_actions())
    wrong = "0000" if answer != "0000" else "1111"
    assert task.step(f"<ANSWER>{wrong}</ANSWER>").validity == Validity.INEFFECTIVE
    task.step(f"[THINK] same again [ACTION] <ANSWER>{wrong}</ANSWER>")
    # answers are compared as the original does: the answer string, not a normalised spelling
    assert task.step(f"<ANSWER>{' '.join(answer)}</ANSWER>").info["lock"]["correct"] is False
    r = task.step(f"[THINK] the discs match the dots\n[ACTION]\n<ANSWER> {answer} </ANSWER>")
    assert r.validity == Validity.EFFECTIVE and "solved_safe_lock" in r.info["checkpoints"]
    assert task.engine.rec_state(task.game_state, "safe") == "closed"  # the auto transition fired
    out = task.outcome()
    assert out.metrics["wrong_answers_distinct"] == 2 and out.metrics["answers"] == 4
    assert out.metrics["locks_solved"] == 1 and out.metrics["quiz_solved_ratio"] == 1.0
    lenient = room01(answer_matching="normalised")
    play(lenient, "turn_to_west", "inspect safe", "inspect safe_lock")
    assert lenient.step(f"<ANSWER>{' '.join(answer)}</ANSWER>").info["lock"]["correct"]


def test_an_answer_is_read_as_the_original_agents_read_it():
    """At a lock, a reply holding <ANSWER> is the answer (as the original agents read it); elsewhere
    an <ANSWER> is not an action."""
    task = room01()
    r = task.step("[ACTION] <ANSWER>0000</ANSWER>")
    assert (
        r.validity == Validity.INVALID
        and r.reason == "unavailable"
        and task.outcome().metrics["answers"] == 0
    )
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    answer = task.engine.answer("safe_lock")
    r = task.step(f"[THINK] The clue says <ANSWER>{answer}</ANSWER>.\n[ACTION]\nstep_back")
    assert r.info["lock"]["correct"]  # the first <ANSWER> of the reply is taken, as by the original agents


def test_use_pick_and_inventory():
    task = room01()
    play(task, "turn_to_east", "inspect desk", "open", "pick key_A")
    assert "<Inventory>You hold key_A.</Inventory>" in task.observe("player").text
    play(task, "step_back", "turn_to_south", "inspect wardrobe")
    r = task.step("use key_A")
    assert r.validity == Validity.EFFECTIVE and r.info["checkpoints"] == ["unlocked_wardrobe"]
    assert "key_A" not in task.game_state.held  # consumed


def test_clues_stay_in_place_unless_carry_clues():
    task = room01()
    play(
        task,
        "turn_to_east",
        "inspect desk",
        "open",
        "pick key_A",
        "turn_to_south",
        "inspect wardrobe",
        "use key_A",
        "open",
    )
    assert "pick note" not in task.engine.available(task.game_state)
    assert "picked_note" not in task.engine.checkpoints
    carried = room01(carry_clues=True)
    play(
        carried,
        "turn_to_east",
        "inspect desk",
        "open",
        "pick key_A",
        "turn_to_south",
        "inspect wardrobe",
        "use key_A",
        "open",
    )
    assert (
        "pick note" in carried.engine.available(carried.game_state)
        and "picked_note" in carried.engine.checkpoints
    )
    carried.step("pick note")
    carried.step("turn_to_west")
    assert "inspect note" in carried.engine.available(carried.game_state)  # re-read from anywhere


def test_unavailable_actions_get_retry_feedback_then_a_random_action():
    task = room01(retry_limit=2)
    r = task.step("inspect safe")
    assert r.validity == Validity.INVALID and r.reason == "unavailable"
    assert "not available now" in r.feedback and "turn_to_west" in r.feedback
    assert task.outcome().steps == 0
    task.step("dance wildly!")
    r = task.step("inspect safe")
    assert r.info["fallback"] in WALL_ACTIONS and r.info["fallback_after"] == "retries"
    assert task.outcome().steps == 1
    spend = room01(retry_limit=0, fallback="spend_step")
    assert spend.step("dance").info["step_spent"] and spend.steps == 1


WALL_ACTIONS = ["turn_to_east", "turn_to_south", "turn_to_west", "inspect door"]
UNREADABLE = "I am not sure yet.\nLet me look around the room first."  # no [ACTION], no action up front


def test_an_unreadable_reply_away_from_a_lock_plays_a_random_action_at_once():
    """The authors' agents end the turn after that one call with the first action of their shuffled list."""
    task = room01()
    r = task.step(UNREADABLE)
    assert task.steps == 1 and r.info["fallback"] in WALL_ACTIONS and r.info["fallback_after"] == "unreadable"
    assert r.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE) and "No action was found" in r.feedback
    assert task.observe("player").data["rejected"] is None
    assert task.step("").info["fallback_after"] == "unreadable" and task.steps == 2  # an empty reply too
    # at a lock that takes a typed answer they ask again: a free retry
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    assert task.observe("player").data["takes_answer"]
    r = task.step(UNREADABLE)
    assert r.validity == Validity.UNPARSEABLE and task.steps == 5 and "fallback" not in r.info
    # and so after an unavailable [ACTION] reply of the same turn
    fresh = room01()
    assert fresh.step("[ACTION] fly away").reason == "unavailable"
    assert fresh.step(UNREADABLE).validity == Validity.UNPARSEABLE and fresh.steps == 0
    # ours: a one-line reply is read as the action it names (people type bare actions): unavailable, retried
    assert room01().step("dance with the lamp").reason == "unavailable"


def test_unreadable_ask_again_keeps_the_free_retries():
    task = room01(unreadable="ask_again", retry_limit=2)
    for _ in range(2):
        assert task.step(UNREADABLE).validity == Validity.UNPARSEABLE and task.steps == 0
    r = task.step(UNREADABLE)
    assert task.steps == 1 and r.info["fallback"] in WALL_ACTIONS and r.info["fallback_after"] == "retries"
    spend = room01(fallback="spend_step")
    r = spend.step(UNREADABLE)
    assert r.info["step_spent"] and r.info["fallback_after"] == "unreadable" and spend.steps == 1
    assert r.feedback.endswith("(No action was found: this reply cost a step.)")


def test_the_fallback_is_drawn_from_the_episode_seed():
    def fallback(episode_seed):
        task = VisEscapeTask(rooms=["room-01"])
        task.episode_seed = episode_seed
        task.reset(task.instances(1, 0)[0])
        return task.step(UNREADABLE).info["fallback"]

    draws = [fallback(seed) for seed in range(12)]
    assert len(set(draws)) > 1  # not the room and step alone
    assert fallback(5) == draws[5]  # the same episode seed, the same action


def test_trials_of_one_instance_draw_their_own_fallbacks(tmp_path):
    """The runner gives each episode its seed (run seed and trial), so trials differ and reruns repeat."""
    from playbench.cli import main
    from playbench.runner.reader import RunReader

    replies = tmp_path / "r.txt"
    replies.write_text("I am not sure what to do.\n")

    def run(out):
        args = ["run", "visescape/room-01", "--agent", "llm", "--model", f"mock:{replies}", "--episodes", "1"]
        assert main([*args, "--trials", "6", "--set", "max_steps=4", "--out", str(out)]) == 0
        reader = RunReader(out)
        records = sorted(reader.records(), key=lambda r: r["trial"])
        return [tuple(s["info"].get("fallback") for s in reader.trajectory(r)[0]) for r in records]

    first = run(tmp_path / "a")
    assert len(set(first)) > 1 and run(tmp_path / "b") == first


def test_early_stop_after_patience_without_progress():
    task = room01(patience=10)
    for _ in range(10):
        task.step("turn_to_east")
        task.step("turn_to_north") if not task.done else None
    assert task.done and task.outcome().termination == "no_progress" and task.steps == 11
    assert "ended_by" not in task.outcome().metrics
    assert task.outcome().metrics["paper_steps"] == 300 and not task.outcome().success


def test_hint_after_30_stalled_steps_and_hcr():
    task = room01(hints=True)
    task.step("turn_to_south")  # the first step is never compared
    for _ in range(15):
        play(task, "turn_to_north", "turn_to_south")
    assert "<Hint Message>" not in task.observe("player").text  # 30 stalled steps: not more than 30
    task.step("turn_to_east")
    hint = task.observe("player").text
    assert "<Hint Message>\nOpen the desk at the east wall and pick up the key inside.</Hint Message>" in hint
    play(task, "inspect desk", "open", "pick key_A", "step_back")
    out = task.outcome()
    assert out.metrics["hcr"] == 1.0 and out.metrics["hints_given"] == 1


def test_hint_reveals_lock_answer():
    task = room01(hints=True)
    k = next(k for k, c in enumerate(task._room.checkpoints) if "{answer:" in c.hint)
    text = task.format_hint(task._room.checkpoints[k].hint)
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


def test_images_carry_no_name_tags_or_state_words_unless_labels():
    from playbench.tasks.visescape.views import ViewMaker

    task = room01()
    play(task, "turn_to_west", "inspect safe")
    plain = ViewMaker(task.engine).receptacle_image(task.game_state, "safe")
    labelled = ViewMaker(task.engine, labels=True).receptacle_image(task.game_state, "safe")
    assert plain.crop((0, 0, 640, 26)).getcolors() != labelled.crop((0, 0, 640, 26)).getcolors()
    assert len(plain.crop((0, 0, 640, 26)).getcolors(10000)) == 1  # no title bar: plain wall colour
    assert room01(labels=True).observe("player").images[0].png != room01().observe("player").images[0].png


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
        options = re.findall(r"'([^']+)'", text.rsplit("these actions:", 1)[1])
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
    task = VisEscapeTask(rooms=["room-02"], feedback=True)
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
    task = room01(max_steps=2, retry_limit=0, fallback="spend_step")
    task.step("turn_to_east")
    r = task.step("dance")
    assert r.info["step_spent"] and task.done and task.outcome().termination == "step_cap"
    assert r.feedback.endswith("this reply cost a step.) The step limit of 2 is reached; the game is over.")


def test_state_covers_the_room_and_ignores_failed_actions():
    task = room01(retry_limit=0, fallback="spend_step")
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
    play(task, "turn_to_west", "inspect safe", "inspect safe_lock")
    assert task.state()["view"] == ["item", "safe_lock", ["rec", "safe"]]


def test_observation_data_holds_what_the_text_shows():
    task = room01(hints=True, hint_after=0)
    data = task.observe("player").data
    assert data["view"] == {"kind": "wall", "name": "north", "location": "At NORTH side of room, "}
    assert data["direction"] == "NORTH" and data["objects"] == ["door"]
    assert (
        data["inventory"] == []
        and data["hint"] is None
        and data["lock"] is None
        and data["recent_actions"] == []
    )
    assert data["available_actions"] == ["turn_to_east", "turn_to_south", "turn_to_west", "inspect door"]
    assert "caption" not in data and "last_result" not in data  # image mode: no ground truth, no result text
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
    assert data["view"] == {"kind": "item", "name": "safe_lock", "location": "At safe_lock, "}
    assert data["direction"] == "WEST" and data["takes_answer"] and data["inventory"] == ["key_A"]
    assert data["lock"] == {"id": "safe_lock", "answer_format": None}  # the format only with answer_format
    assert data["available_actions"] == ["turn_to_north", "turn_to_east", "turn_to_south", "step_back"]
    assert f"<Hint Message>\n{data['hint']}</Hint Message>" in obs.text
    assert (
        data["recent_actions"][-1] == "inspect safe_lock" and data["previous_action"] == "inspect safe_lock"
    )
    assert data["salient_actions"] == [
        {"step": 3, "action": "At desk, open"},
        {"step": 4, "action": "At desk, pick key_A"},
    ]
    assert "<Action Memory>\nAt desk, open\nAt desk, pick key_A</Action Memory>" in obs.text
    shown = room01(answer_format=True)
    play(shown, "turn_to_west", "inspect safe", "inspect safe_lock")
    assert "4 digits" in shown.observe("player").text
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
