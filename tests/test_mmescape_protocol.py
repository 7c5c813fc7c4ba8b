"""MM-Escape's default protocol is the original's (the paper where explicit, the authors' code
where not): the turn text, the reply handling (re-asked, never a step; five in a row end the game),
the grab rule (every chain prop in the view shown, within 4 m, several at once), the responses, the
context, the camera, the metrics, the story recovery. Driven by scripted replies."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image
from test_mmescape_world import room_instance

from playbench.core.registry import make_task
from playbench.core.types import ImagePart, Validity
from playbench.tasks.mmescape.actions import ParseError, RangeError, parse_original
from playbench.tasks.mmescape.engine import T_MOVED, T_NO_RESPONSE, T_NOTHING, T_TOO_FAR
from playbench.tasks.mmescape.task import EscapeTask


def paper_task(level: str = "level-2", **options) -> EscapeTask:
    return EscapeTask(level=level, **options)


def started(level: str = "level-2", start=(3.0, 2.5, 0.0, 0.0), spots=None, **options) -> EscapeTask:
    """The 6 x 9 m test room (door in the north wall at x = 3; north is -z in playbench, +z here is
    south), the first visible prop at `spots[0]`."""
    task = paper_task(level, **options)
    task.reset(room_instance(level, start=start, prop_spots=spots or [(3.0, 0.42, 1.2), (1.0, 0.0, 8.6)]))
    return task


def test_the_defaults_are_the_papers_protocol():
    cfg = make_task("mmescape/paper-level-2").config
    assert (cfg.protocol, cfg.grab, cfg.replies, cfg.max_retries, cfg.parser, cfg.prompts) == (
        "paper",
        "view",
        "retry",
        5,
        "original",
        "original",
    )
    assert (cfg.history, cfg.history_steps, cfg.image_width, cfg.image_height, cfg.fov) == (
        "chat",
        50,
        2048,
        1024,
        120.0,
    )
    assert (cfg.red_dot, cfg.visual_aids, cfg.hint, cfg.debrief) == ("square", False, "none", True)
    ours = make_task("mmescape/level-2", protocol="playbench").config
    assert (ours.grab, ours.replies, ours.parser, ours.prompts, ours.history) == (
        "centre",
        "step",
        "lenient",
        "playbench",
        "key",
    )
    assert (ours.image_width, ours.image_height, ours.fov, ours.red_dot, ours.visual_aids) == (
        512,
        512,
        60.0,
        "disc",
        True,
    )
    # any part can be chosen on its own
    mixed = make_task("mmescape/paper-level-2", grab="centre", image_size=640).config
    assert (
        mixed.grab == "centre"
        and mixed.replies == "retry"
        and (mixed.image_width, mixed.image_height) == (640, 640)
    )


def test_the_turn_text_and_the_system_prompt_carry_the_originals_facts():
    task = started()
    obs = task.observe("player")
    system = obs.instructions
    for fact in (
        "If a door is locked",
        "key or a password",
        "no clues on the ceiling",
        "red dot",
        '"use_item_id": str',
        "Every operation above is optional",
        "nothing but the JSON string",
    ):
        assert fact in system, fact
    # facts only playbench gives are not in the original's texts
    for extra in ("4 m", "4 metres", "within about", "89 degrees", "Turning and walking happen first"):
        assert extra not in system, extra
    text = obs.text
    # the first turn states, as the original's does, that nothing was interacted with
    assert text.startswith(
        "The picture shows the room where you start. You did not interact with any object in the last step.\n===\n"
    )
    assert "The items in your bag that you can use:\nYour bag is empty.\n===" in text
    assert "turn around with rotate_right" in text and '"rationale": str' in text
    assert "Step 1" not in text and "of at most" not in text  # no step counter
    # the view: 2048 x 1024 and a pure red 8 x 8 square on the centre pixel
    (view,) = obs.images
    img = np.asarray(Image.open(io.BytesIO(view.png)).convert("RGB"))
    assert img.shape == (1024, 2048, 3)
    assert (img[508:516, 1020:1028] == (255, 0, 0)).all()
    assert not (img[507, 1020:1028] == (255, 0, 0)).all() and not (img[508:516, 1028] == (255, 0, 0)).all()


def test_a_grab_reaches_every_prop_in_view_within_4_m_without_aiming():
    task = started()  # facing north: the key 1.3 m ahead on the floor-level table, the door 2.5 m ahead
    r = task.step('{"grab": true, "rationale": "take whatever is here"}')
    assert r.validity == Validity.EFFECTIVE and task.steps == 1
    assert r.feedback.startswith("After your last interaction you found:\n")
    assert "Interaction 1 triggered, and it returned: You got: - key_1 (key)" in r.feedback
    assert (
        "Interaction 2 triggered, and it returned: This door looks like the way out; it opens with a key."
        in r.feedback
    )
    assert r.info["grab_targets"] == ["key", "door"] and task.state()["bag"] == ["key_1"]
    r = task.step('{"grab": true, "interactions": {"use_item_id": "key_1"}, "rationale": "unlock the door"}')
    assert "You used key_1 and unlocked the door." in r.feedback and task.state()["escaped"]


def test_the_grab_uses_the_view_from_before_the_actions_motion():
    task = started(start=(3.0, 2.5, 180.0, 0.0))  # facing south: the key and the door behind
    r = task.step('{"grab": true, "rotate_right": 180, "rationale": "turn and take it"}')
    assert T_NOTHING in r.feedback and T_MOVED in r.feedback and task.state()["bag"] == []
    r = task.step('{"grab": true, "rotate_right": 180, "rationale": "take it, then turn away"}')
    assert "You got: - key_1" in r.feedback and task.state()["bag"] == ["key_1"]


def test_out_of_reach_rationale_less_and_answered_in_the_replys_order():
    task = started(start=(3.0, 7.5, 0.0, 0.0))  # the key 6.3 m ahead, in view but out of reach
    r = task.step('{"grab": true, "rationale": "is it there?"}')
    assert r.feedback == T_TOO_FAR and task.state()["bag"] == []
    r = task.step(
        '{"move_forward": 10, "grab": true, "rationale": "run and grab"}'
    )  # the table stops the move
    assert r.feedback.startswith(T_MOVED) and "in the way" not in r.feedback  # the original never says what
    task2 = started()
    r = task2.step('{"grab": true}')  # no rationale: the original's grab does nothing
    assert task2.state()["bag"] == [] and r.validity == Validity.INEFFECTIVE
    r = task2.step('{"grab": true, "read": "key_1", "rationale": "grab, then look at it"}')
    # the read's answer replaces what the grab said (their `desc = ...` on the read key)
    assert r.feedback.startswith("After your last interaction you found:\n- key_1 (key): a key that seems")
    assert "Interaction 1" not in r.feedback and task2.state()["bag"] == ["key_1"]
    assert task2.outcome().metrics["grab_attempts"] == 2  # the ignored grab is still an attempt


def test_a_read_of_the_exit_or_a_box_answers_as_that_object_from_anywhere():
    """The original's read goes through the grab's interaction (src/Game.py get_action ->
    src/BaseGame.py interaction), where the door and the boxes come before the bag check; it passes
    no key and no code, and nothing measures distance or view."""
    far = (3.0, 7.5, 180.0, 0.0)  # 7.5 m from the door, facing away from it
    one = started("level-1", start=far)
    r = one.step('{"read": "exit"}')
    assert r.feedback == "After your last interaction you found:\nYou found the exit door and got out!"
    assert one.state()["escaped"] and one.done and one.outcome().termination == "goal_reached"
    m = one.outcome().metrics
    assert m["grab_attempts"] == 0 and m["grab_successes"] == 0 and m["rooms_escaped"] == 1
    two = started(start=far)
    r = two.step('{"read": "exit", "rationale": "what is that door"}')
    assert r.feedback.startswith("After your last interaction you found:\nThis door looks like the way out;")
    assert "it opens with a key." in r.feedback and not two.state()["escaped"]
    spots = [(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)]
    three = started("level-3-note-key", start=far, spots=spots)
    r = three.step('{"read": "box_1"}')
    assert r.feedback == "After your last interaction you found:\nA box that seems to open with a password."
    assert three.state()["opened"] == [] and three.state()["bag"] == []
    # another item of the game: not in the bag; an id the game does not know: no response at all
    r = three.step('{"read": "note_1"}')
    assert "You do not have note_1 in your bag" in r.feedback
    assert three.step('{"read": "the door"}').feedback == T_NO_RESPONSE
    hinted = started("level-3-note-key", start=far, spots=spots, hint="original")
    assert "you need to find its password" in hinted.step('{"read": "box_1"}').feedback
    # read_scope=bag: the paper's definition of read (an item in the bag) for every id
    bag = started("level-1", start=far, read_scope="bag")
    r = bag.step('{"read": "exit"}')
    assert "You do not have exit in your bag" in r.feedback and not bag.state()["escaped"]
    bag3 = started("level-3-note-key", start=far, spots=spots, read_scope="bag")
    assert "You do not have box_1 in your bag" in bag3.step('{"read": "box_1"}').feedback
    # several rooms: `exit` is the exit of the room the player is in, as the original reloads its
    # game per room
    rooms = make_task("mmescape/multi-room", rooms="level-1,level-1")
    rooms.reset(rooms.instances(1, 0)[0])
    assert rooms.step('{"read": "exit"}').info["opened"] == ["exit:0"] and not rooms.state()["escaped"]
    assert rooms.step('{"read": "exit"}').info["opened"] == ["exit:1"] and rooms.state()["escaped"]


def test_an_unusable_reply_is_asked_again_without_a_step_and_five_end_the_game():
    task = started()
    before = task.observe("player")
    for n in range(1, 5):
        r = task.step("I will look around the room first.")
        assert r.validity == Validity.UNPARSEABLE and r.info["retry"] == n and task.steps == 0
        again = task.observe("player")
        assert again.text == before.text and [i.png for i in again.images] == [i.png for i in before.images]
    task.step('{"rotate_right": 30, "rationale": "look"}')  # a usable reply: a step, the count starts over
    assert task.steps == 1
    for _ in range(4):
        task.step('{"rotate_down": 120}')  # breaks the schema: asked again
        assert not task.done
    r = task.step('```json\n{"rationale": "go (left)"}\n```')  # their fence reader stops at "("
    assert r.validity == Validity.UNPARSEABLE and task.done
    out = task.outcome()
    assert out.termination == "mistake_limit" and not out.success and task.steps == 1
    # the paper's tables put such a game at the level's cap; the actions taken are their own metric
    assert out.steps == task.max_steps == 75 and out.metrics["steps_taken"] == 1
    assert out.metrics["grab_ratio"] == 0.0  # per action taken
    assert out.metrics["unparseable_actions"] == 5 and out.metrics["invalid_actions"] == 4
    # a game that ends otherwise scores the actions taken
    capped = started(max_steps=2)
    capped.step('{"rotate_right": 30, "rationale": "look"}')
    capped.step("not json")  # asked again: not a step
    capped.step('{"grab": true, "rationale": "what is here"}')
    out = capped.outcome()
    assert out.termination == "step_cap" and out.steps == out.metrics["steps_taken"] == 2
    assert out.metrics["grab_ratio"] == 0.5


def test_the_original_reply_reader():
    assert parse_original('{"grab": True, "rationale": "x"}').grab  # ": True" is read as JSON true
    a = parse_original('```json\n{"rotate_right": 200, "move_forward": 25, "extra": 1}\n```')
    assert a.rotate_right == 0 and a.move_forward == 25 and a.order == ("move_forward",)
    assert parse_original('Here is my action:\n\n{"jump": true}').jump
    assert parse_original('{"look_at": [0.5, 0.5], "rationale": "x"}').look_at is None  # the centre: skipped
    assert parse_original('{"grab": true, "interactions": {}}').use_item_id is None
    for bad, error in (
        ('Sure! {"grab": true}', ParseError),
        ("{}", RangeError),
        ('{"interactions": {"input": "1234"}}', RangeError),
        ('{"rotate_right": -181}', RangeError),
        ('{"grab": "yes"}', RangeError),
        ('{"look_at": [0.2, 1.3]}', RangeError),
        ("[1, 2]", ParseError),
    ):
        with pytest.raises(error):
            parse_original(bad)


def test_a_notes_password_is_named_when_it_is_picked_up():
    task = started("level-3-note-key", spots=[(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)])
    code = task._rules.items["password_1"].value
    r = task.step('{"grab": true, "rationale": "the note"}')
    assert f"- note_1 (paper): a paper with the numbers {code} written on it" in r.feedback
    assert "A box that seems to open with a password." in r.feedback  # the box is in reach too
    assert f"a paper with the numbers {code} written on it" in task.observe("player").text  # in the bag line
    r = task.step(json.dumps({"grab": True, "interactions": {"input": code}, "rationale": "open the box"}))
    assert "The password was right: the box is unlocked. Opening the box, you got:" in r.feedback
    assert (
        "- key_1 (key)" in r.feedback and "- note_2 (paper): a paper with a story written on it" in r.feedback
    )
    r = task.step('{"read": "note_2", "rationale": "what does it say"}')
    story = task._rules.items["note_2"].text
    assert f"Part 1 of the paper is a story: {story}" in r.feedback


def test_the_context_repeats_the_last_turns_or_leaves_them_to_the_agent():
    task = started(start=(3.0, 7.5, 0.0, 0.0), history="turns")
    for turn in (10, 20, 30):
        task.step(json.dumps({"rotate_right": turn, "rationale": f"turn {turn}"}))
    obs = task.observe("player")
    assert len(obs.images) == 4  # three earlier views and this one
    assert '[Your reply in turn 2]\n{"rotate_right": 20, "rationale": "turn 20"}' in obs.text
    assert obs.text.index("[Turn 1]") < obs.text.index("[Turn 3]") < obs.text.index("[The current turn]")
    # the current turn and two earlier ones
    short = started(start=(3.0, 7.5, 0.0, 0.0), history="turns", history_steps=3)
    for turn in (10, 20, 30):
        short.step(json.dumps({"rotate_right": turn, "rationale": "x"}))
    assert len(short.observe("player").images) == 3 and "[Turn 1]" not in short.observe("player").text
    chat = started(start=(3.0, 7.5, 0.0, 0.0))  # the default: the agent keeps the chat
    chat.step('{"rotate_right": 10}')
    parts = chat.observe("player").parts
    assert sum(isinstance(p, ImagePart) for p in parts) == 1 and "[Turn" not in chat.observe("player").text


def test_metrics_follow_the_papers_definitions():
    task = started("level-3-note-key", spots=[(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)], max_steps=3)
    task.step('{"rotate_right": 10, "rationale": "look"}')
    task.step('{"grab": true, "rationale": "the note"}')
    task.step('{"grab": true, "rationale": "the box, without the code"}')
    m = task.outcome().metrics
    # prop gain: of the props the exit needs (key_1 and note_1), the note was obtained
    # (playbench's count: 1 of note_1, box_1, key_1, note_2 and the exit)
    assert m["prop_gain"] == 0.5 and m["prop_gain_with_exit"] == pytest.approx(1 / 5)
    assert (
        m["grab_attempts"] == 2 and m["grab_success_rate"] == 0.5 and m["grab_ratio"] == pytest.approx(2 / 3)
    )
    # eval_rst.py: a failed run counts the keys and notes in its bag
    assert m["grab_success_rate_eval"] == 0.5
    idle = started(max_steps=1)
    idle.step('{"rotate_right": 10}')
    m = idle.outcome().metrics
    assert m["grab_success_rate"] == 0.0 and m["grab_ratio"] == 0.0  # the paper's tables average 0 here
    assert make_task("mmescape/paper-level-1").instances(1, 0)  # level 1 has no props:
    task1 = started("level-1", max_steps=1)
    task1.step('{"rotate_right": 10}')
    assert task1.outcome().metrics["prop_gain"] is None


def test_story_recovery_asks_the_originals_prompt_and_is_judged_against_the_levels_story():
    task = make_task("mmescape/paper-level-3-note-key", judge=True)
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    while task.phase == "play":
        task.step(task.oracle_action("player"))
    obs = task.observe("player")
    assert obs.text.rstrip().endswith("written on it") and "Step 3: the whole story" in obs.text
    assert "- note_2 (paper): a paper with a story written on it" in obs.text  # the bag follows the prompt
    task.step("It was a mansion with a curse.")
    level_story = inst.rooms[0].chain.story
    note = next(it for it in inst.rooms[0].chain.items if it.id == "note_2").text
    assert level_story and note and level_story != note
    question = task.observe("judge").text
    assert level_story in question and note not in question


def test_the_oracle_never_types_a_code_before_it_was_told_it():
    """A player learns a note's password only after it is named (original: on pickup; playbench:
    on reading the note), so the code is typed in a later action than the one that reveals it."""
    for options in ({"protocol": "playbench"}, {}):
        task = make_task("mmescape/level-3-note-key", **options)
        for inst in task.instances(6, 0):
            task.reset(inst)
            told_at = None
            step = 0
            while not task.done and task.phase == "play":
                action = json.loads(task.oracle_action("player"))
                step += 1
                if (action.get("interactions") or {}).get("input"):
                    assert told_at is not None and told_at < step, (inst.id, action)
                task.step(json.dumps(action))
                if told_at is None and "password_1" in task.state()["known"]:
                    told_at = step
            assert task.state()["escaped"]


def test_the_originals_hint_and_playbenchs_visual_aids_are_options():
    plain = started("level-3-note-key", spots=[(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)])
    hinted = started("level-3-note-key", spots=[(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)], hint="original")
    assert "Hints:" not in plain.observe("player").instructions
    assert "Hints: you have to get out through a door" in hinted.observe("player").instructions
    r = hinted.step('{"grab": true, "rationale": "note and box"}')
    assert "cannot open it yet: you need to find its password" in r.feedback
    r = plain.step('{"grab": true, "rationale": "note and box"}')
    assert "A box that seems to open with a password." in r.feedback and "need to find" not in r.feedback
    # the original's door and notes carry no EXIT sign, lock or legible writing; playbench's do
    decals = plain._world.parts(plain._state.visual())[1]
    assert not decals
    aided = started("level-3-note-key", spots=[(3.0, 0.42, 1.2), (4.5, 0.0, 1.0)], visual_aids=True)
    texts = {" ".join(d.lines) for d in aided._world.parts(aided._state.visual())[1]}
    assert "EXIT" in texts
