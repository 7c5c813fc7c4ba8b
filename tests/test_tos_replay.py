"""Replaying recorded runs of the authors through playbench reproduces what their environment logged.

The runs (mll-lab-nu/Theory-of-Space at 3bea1f09): `experiments/gpt-5.2/177ef6532828f8d7/text/active/think/`
and the same folder of gemini-3-pro-preview, both on `room_data/3-room/run05` (their
`history_state.json` names the scene; written here as a fixture in their scene format by
`test_tos_scenes.write_scenes`); and `experiments/gemini-3-pro-preview/66b32ca3d0e68f66/text/active/think/`
on `run03`, with a failed JumpTo and a false-belief phase, written as a fixture in their recorded-run
layout (`write_recorded_run`) and replayed from it. `messages.json` holds the model's replies and the
environment's answers, `false_belief_turn_logs.json` the second exploration, `metrics.json` the action
counts, costs, information gain and false-belief scores. We send the replies' final answers and
compare every observation text and the totals.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_tos_scenes import RUN03_AGENT, RUN03_OBJECTS, RUN05_AGENT, RUN05_OBJECTS, write_run03, write_scenes

from playbench.core.registry import make_task
from playbench.tasks.tos.exploration import run_number
from playbench.tasks.tos.feedback import OURS, Feedback
from playbench.tasks.tos.prompts import STEPS_LEFT, TASK_FINISHED

# Their messages are written with placeholders for the sentences around the facts (`render` fills
# them with the words in use): <rot D>, <jump NAME>, <jumpfail NAME|REASON>, <failed> (the Observe()
# that replaces the rest of a failed turn), <observe> (the Observe() result; its entries run to the
# message's end, closed by the template's period), <nothing>, <note> (the close-pair note).
NOTE = "<note>"


def render(text: str, words: Feedback = OURS) -> str:
    """A logged message with its placeholders (see above) filled with `words`."""
    head, mark, body = text.partition("<observe>")
    view = ""
    if mark:
        assert body.endswith("."), body
        answer = body[:-1].replace("<nothing>", words.nothing)
        entries, note, pairs = answer.partition("\n<note>\n")
        view = words.observe_text(entries + (words.pairs_text(pairs) if note else ""))
        if head.endswith("<failed>"):
            head, view = head.removesuffix("<failed>"), words.failed_move_text(view)
    head = re.sub(r"<rot (-?\d+)>", lambda m: words.rotated_text(int(m.group(1))), head)
    head = re.sub(r"<jump ([^>]+)>", lambda m: words.jumped_text(m.group(1)), head)
    head = re.sub(
        r"<jumpfail ([^|]+)\|(\w+)>", lambda m: words.jump_failed_text(m.group(1), m.group(2)), head
    )
    assert "<" not in head, head
    return head + view


# (the reply's final answer, the environment's observation up to its steps-left line)
RUN05_GPT52 = [
    ("Actions: [Observe()]", "<observe><nothing>."),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• shoes: front-slight-right, slightly far, facing backward\n"
        "• rubberduck: front-right, mid distance, facing left\n"
        "• alarmclock: front-left, mid distance, facing backward\n"
        "• yellow door: front-slight-right, slightly far, on front wall\n"
        "• blue door: front-right, slightly far, on right wall\n"
        f"{NOTE}\n"
        "• shoes is north, near to rubberduck\n"
        "• shoes is south, near to yellow door\n"
        "• rubberduck is east, near to alarmclock.",
    ),
    (
        "Actions: [JumpTo(blue door), Observe()]",
        "<jump blue door> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• shoppingcart: front, slightly far, facing forward\n"
        "• red chair: front-right, mid distance, facing forward.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• bike: front-left, mid distance, facing backward\n"
        "• pan: front-slight-right, slightly far, facing forward\n"
        "• desklamp: front-left, slightly far, facing left.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• shoes: front, mid distance, facing left\n"
        "• rubberduck: front-left, mid distance, facing forward\n"
        "• alarmclock: front-slight-left, slightly far, facing left\n"
        "• yellow door: front-right, mid distance, on right wall\n"
        f"{NOTE}\n"
        "• shoes is east, near to rubberduck\n"
        "• shoes is west, near to yellow door\n"
        "• rubberduck is south, near to alarmclock.",
    ),
    (
        "Actions: [JumpTo(yellow door), Observe()]",
        "<jump yellow door> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• laptop: front-left, slightly far, facing forward\n"
        "• airplane: front-left, slightly far, facing right\n"
        "• backpack: front-slight-left, slightly far, facing left\n"
        "• books: front, mid distance\n"
        f"{NOTE}\n"
        "• laptop is south, near to backpack\n"
        "• laptop is west, near to books\n"
        "• airplane is west, near to backpack.",
    ),
    ("Actions: [Term()]", None),
]
# metrics.json of the run
RUN05_GPT52_METRICS = {"action_cost": 8, "move": 2, "rotate": 5, "observe": 8, "query": 0, "steps": 9}

# experiments/gemini-3-pro-preview/177ef6532828f8d7/text/active/think (the same scene, run05)
ROOM2 = (
    "• laptop: front-left, slightly far, facing forward\n"
    "• airplane: front-left, slightly far, facing right\n"
    "• backpack: front-slight-left, slightly far, facing left\n"
    "• books: front, mid distance\n"
    f"{NOTE}\n"
    "• laptop is south, near to backpack\n"
    "• laptop is west, near to books\n"
    "• airplane is west, near to backpack."
)
RUN05_GEMINI = [
    ("Actions: [Observe()]", "<observe><nothing>."),
    RUN05_GPT52[1],
    ("Actions: [JumpTo(yellow door), Observe()]", "<jump yellow door> <observe>\n" + ROOM2),
    (
        "Actions: [JumpTo(books), Rotate(90), Observe()]",
        "<jump books> <rot 90> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n• yellow door: front, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(yellow door), Rotate(-90), Observe()]",
        "<jump yellow door> <rot -90> <observe>\n• blue door: front-right, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(blue door), Observe()]",
        "<jump blue door> " + RUN05_GPT52[3][1].split("> ", 1)[1],
    ),
    (
        "Actions: [JumpTo(shoppingcart), Rotate(-90), Observe()]",
        "<jump shoppingcart> <rot -90> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(180), Observe()]",
        "<rot 180> <observe>\n"
        "• red chair: front-right, mid distance, facing left\n"
        "• desklamp: front-slight-right, slightly far, facing left.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• bike: front-left, slightly far, facing right\n"
        "• red chair: front-left, mid distance, facing backward\n"
        "• blue door: front, slightly far, on front wall\n"
        f"{NOTE}\n"
        "• bike is north, near to red chair.",
    ),
    (
        "Actions: [JumpTo(blue door), Observe()]",
        "<jump blue door> " + RUN05_GPT52[5][1].split("> ", 1)[1],
    ),
    (
        "Actions: [Rotate(-90), Observe()]",
        "<rot -90> " + RUN05_GPT52[4][1].split("> ", 1)[1],
    ),
    ("Actions: [Term()]", None),
]
RUN05_GEMINI_METRICS = {"action_cost": 12, "move": 6, "rotate": 8, "observe": 12, "query": 0, "steps": 13}
RUNS = {
    "gpt-5.2": (RUN05_GPT52, RUN05_GPT52_METRICS, {"x": 6, "y": -1, "facing": "east"}),
    "gemini-3-pro-preview": (RUN05_GEMINI, RUN05_GEMINI_METRICS, {"x": 4, "y": -4, "facing": "west"}),
}


@pytest.fixture
def scenes(tmp_path: Path) -> Path:
    return write_scenes(tmp_path / "3-room")


@pytest.mark.parametrize("model", sorted(RUNS))
def test_replay_reproduces_the_logged_observations_and_costs(scenes: Path, model: str) -> None:
    run, want, end = RUNS[model]
    task = make_task("tos/explore", scenes=str(scenes))
    inst = next(i for i in task.instances(None, 0) if i.id.endswith("run05"))
    task.reset(inst)
    for k, (answer, logged) in enumerate(run, start=1):
        # their replies are `THINK: ...` then `FINAL ANSWER:` and the action list
        result = task.step(f"THINK:\n(reasoning)\nFINAL ANSWER:\n{answer}")
        if logged is None:
            assert task.done and result.feedback == TASK_FINISHED  # the exploration ended here
            break
        text, steps_left = result.feedback.rsplit("\n", 1)
        assert text == render(logged), f"turn {k}"
        assert steps_left == STEPS_LEFT.format(left=20 - k)  # (texts=ours: our words, their count)
    m = task.outcome().metrics
    assert m["cost"] == want["action_cost"] and m["exploration_steps"] == want["steps"]
    assert (m["move_actions"], m["rotate_actions"], m["observe_actions"], m["query_actions"]) == (
        want["move"],
        want["rotate"],
        want["observe"],
        want["query"],
    )
    assert m["coverage"] == 1.0 and m["invalid_actions"] == 0
    # gpt-5.2's history_state.json: the agent ended on the yellow door facing east
    assert task.state()["pose"] == end


def test_replayed_observations_are_the_prompts_a_model_gets(scenes: Path) -> None:
    """The same texts reach a model: the exploration log in the next observation quotes them."""
    task = make_task("tos/explore", scenes=str(scenes))
    inst = next(i for i in task.instances(None, 0) if i.id.endswith("run05"))
    task.reset(inst)
    task.step("FINAL ANSWER:\nActions: [Rotate(90), Observe()]")
    text = task.observe("player").text
    assert render(RUN05_GPT52[1][1]) in text and STEPS_LEFT.format(left=19) in text


# --- recorded runs in the authors' layout ---------------------------------------------------
# `experiments/<model>/<hash>/text/active/think/`: `history_state.json` (the scene folder as
# `image_dir`, the run seed, the agent's pose at the end of the exploration), `messages.json` (the
# exploration chat: each reply, then the environment's answer), `false_belief_turn_logs.json` (one
# entry per reply of the second exploration: the environment's message before it, the parsed reply,
# and the changed room), `metrics.json`. The fixtures carry the facts of their runs; their prompt
# texts and the model's reasoning are left out (placeholders in brackets).
RUN03_DIR = "experiments/gemini-3-pro-preview/66b32ca3d0e68f66/text/active/think"
FAILED_JUMP = "<jumpfail yellow door|not_visible> "
INSTEAD = "<failed>"
RUN03_EXPLORATION = [  # (the reply's action list, the environment's answer up to its steps-left line)
    (
        "Actions: [Observe()]",
        "<observe>\n"
        "• teddybear: front-right, mid distance, facing right\n"
        "• bike: front-slight-right, slightly far, facing right\n"
        "• vase: front-left, mid distance\n"
        f"{NOTE}\n"
        "• teddybear is south, near to bike.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• television: front, mid distance, facing right\n"
        "• green door: front-left, slightly far, on front wall.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• vase: front-right, mid distance\n"
        "• yellow door: front, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(yellow door), Observe()]",
        "<jump yellow door> <observe>\n"
        "• chair: front, near, facing left\n"
        "• desklamp: front-right, slightly far, facing forward\n"
        "• plant: front-slight-right, slightly far\n"
        f"{NOTE}\n"
        "• desklamp is south, near to plant.",
    ),
    (
        "Actions: [JumpTo(chair), Observe()]",
        "<jump chair> <observe>\n"
        "• desklamp: front-right, mid distance, facing forward\n"
        "• plant: front-right, slightly far\n"
        f"{NOTE}\n"
        "• desklamp is south, near to plant.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• desklamp: front-left, mid distance, facing left\n"
        "• basket: front, mid distance.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n• yellow door: front, near, on front wall.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe><nothing>.",
    ),
    # facing south at the chair the yellow door is behind the agent's left shoulder: the jump fails
    # and an Observe() runs in its place
    (
        "Actions: [JumpTo(yellow door), Observe()]",
        FAILED_JUMP + INSTEAD + "<observe><nothing>.",
    ),
    (
        "Actions: [Rotate(-90), JumpTo(yellow door), Observe()]",
        "<rot -90> <jump yellow door> <observe>\n"
        "• television: front, slightly far, facing right\n"
        "• teddybear: front-left, slightly far, facing forward\n"
        "• bike: front-left, slightly far, facing forward\n"
        "• green door: front-left, slightly far, on front wall\n"
        f"{NOTE}\n"
        "• teddybear is east, near to bike.",
    ),
    (
        "Actions: [JumpTo(green door), Observe()]",
        "<jump green door> <observe>\n"
        "• shoppingcart: front-right, slightly far, facing right\n"
        "• scooter: front-slight-right, mid distance, facing forward\n"
        "• shoes: front-right, slightly far, facing forward\n"
        "• shelf: front-slight-left, slightly far\n"
        f"{NOTE}\n"
        "• shoppingcart is east, near to scooter\n"
        "• shoppingcart is south, near to shoes.",
    ),
    (
        "Actions: [JumpTo(scooter), Observe()]",
        "<jump scooter> <observe>\n"
        "• shoes: front-right, mid distance, facing forward\n"
        "• shelf: front-left, mid distance.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• shoppingcart: front, near, facing forward\n"
        "• shoes: front-left, mid distance, facing left\n"
        f"{NOTE}\n"
        "• shoppingcart is east, near to shoes.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n• green door: front-slight-right, mid distance, on front wall.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n• shelf: front-right, mid distance.",
    ),
    ("Actions: [Term()]", None),  # the exploration ends here (their message: the task-finished text)
]
RUN03_FALSE_BELIEF = [  # the second exploration in the changed scene, the same way
    (
        "Actions: [Observe()]",
        "<observe>\n"
        "• teddybear: front-right, mid distance, facing right\n"
        "• vase: front-left, mid distance\n"
        "• plant: front-slight-left, slightly far.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• television: front, mid distance, facing left\n"
        "• green door: front-left, slightly far, on front wall.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe><nothing>.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• vase: front-right, mid distance\n"
        "• yellow door: front, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(yellow door), Observe()]",
        "<jump yellow door> <observe>\n"
        "• chair: front, near, facing left\n"
        "• desklamp: front-right, slightly far, facing right.",
    ),
    (
        "Actions: [JumpTo(chair), Observe()]",
        "<jump chair> <observe>\n• desklamp: front-right, mid distance, facing right.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "<rot 90> <observe>\n"
        "• desklamp: front-left, mid distance, facing forward\n"
        "• basket: front, mid distance.",
    ),
    (
        "Actions: [Rotate(90), JumpTo(yellow door), Observe()]",
        "<rot 90> <jump yellow door> <observe>\n"
        "• television: front, slightly far, facing left\n"
        "• teddybear: front-left, slightly far, facing forward\n"
        "• green door: front-left, slightly far, on front wall.",
    ),
    (
        "Actions: [JumpTo(green door), Observe()]",
        "<jump green door> <observe>\n"
        "• shoppingcart: front-right, slightly far, facing right\n"
        "• scooter: front-slight-right, mid distance, facing forward\n"
        "• bike: front-right, slightly far, facing forward\n"
        "• shoes: front-right, slightly far, facing forward\n"
        "• shelf: front-slight-left, slightly far\n"
        f"{NOTE}\n"
        "• shoppingcart is east, near to scooter\n"
        "• shoppingcart is south west, near to bike\n"
        "• shoppingcart is south, near to shoes\n"
        "• bike is south east, near to shoes.",
    ),
    (
        'Actions: [Term(changes="television: orientation, bike: position, plant: position, desklamp: orientation")]',
        None,
    ),
]
# the changed scene of their second exploration (`false_belief_log.room_state`): cell and facing
RUN03_CHANGED = {"television": ((13, 2), (0, 1)), "desklamp": ((3, 4), (0, 1)), "bike": ((18, 1), (1, 0)),
                 "plant": ((9, 6), (1, 0))}  # fmt: skip
RUN03_METRICS = {
    "n_exploration_steps": 17,
    "action_counts": {"move": 5, "rotate": 10, "return": 0, "observe": 16, "term": 1, "forced_term": 0, "query": 0},
    "action_cost": 16,
    "infogain_per_turn": [
        0.18557479639863161, 0.29271765354148876, 0.29271765354148876, 0.3688310188338312, 0.5497210213686918,
        0.5497210213686918, 0.6145017645092641, 0.6145017645092641, 0.6145017645092641, 0.6145017645092641,
        0.6341986342080087, 0.8578062902843581, 0.8738237062998991, 0.8831932940274412, 0.8831932940274412,
        0.8878780878912121, 0.8878780878912121,
    ],
    "action_fail_ratio": 0.058823529411764705,
    "valid_action_ratio": 1.0,
    "false_belief_steps": 10,
    "false_belief_f1": 1.0,
    "false_belief_f1_position": 1.0,
    "false_belief_f1_facing": 1.0,
    "false_belief_action_cost": 9,
    "false_belief_action_cost_after_seen": 0,
}  # fmt: skip
# experiments/gpt-5.2/177ef6532828f8d7/text/active/think/false_belief_turn_logs.json: run05 changed
RUN05_DIR = "experiments/gpt-5.2/177ef6532828f8d7/text/active/think"
RUN05_CHANGED = {"airplane": ((5, 8), (0, -1)), "pan": ((2, 8), (1, 0)), "alarmclock": ((3, 1), (-1, 0)),
                 "red chair": ((4, 4), (-1, 0))}  # fmt: skip
FACING_VECTORS = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
ROT_FACING = {0: "north", 90: "east", 180: "south", 270: "west"}


def _room_state(objects: list, changed: dict) -> dict:
    """Their `room_state` of a scene's objects (mask cells, facing vectors), `changed` applied."""
    out = []
    for k, (name, cell, rot, oriented) in enumerate(objects):
        pos, ori = changed.get(name, (cell, FACING_VECTORS[ROT_FACING[rot]]))
        out.append(
            {
                "name": name,
                "pos": list(pos),
                "ori": list(ori),
                "label": str(k + 1),
                "has_orientation": oriented,
            }
        )
    return {"name": "room_from_json", "objects": out}


def _answer(text: str | None, left: int) -> str:
    """The environment's message in their logs' shape: the answer, the steps-left line, the format
    footer (here bracketed placeholders, not their words); after Term() only the task-finished text."""
    return "[task finished]" if text is None else f"{text}\n[steps left: {left}]\n[format reminder]"


def write_recorded_run(root: Path, folder: str, scene: str, seed: int, agent: dict, exploration: list | None,
                       false_belief: list | None, room_state: dict | None, metrics: dict | None) -> Path:  # fmt: skip
    """One recorded run in the authors' layout under `root/folder` (see the comment above)."""
    run = root / folder
    run.mkdir(parents=True, exist_ok=True)
    history = {"image_dir": f"room_data/3-room/{scene}", "seed": seed, "agent_dict": agent}
    (run / "history_state.json").write_text(json.dumps(history))
    if exploration is not None:
        messages = [
            {"role": "system", "content": "[system prompt]"},
            {"role": "user", "content": "[task prompt]"},
        ]
        for k, (reply, answer) in enumerate(exploration, start=1):
            messages.append({"role": "assistant", "content": f"THINK:\n[reasoning]\nFINAL ANSWER:\n{reply}"})
            last = k == len(exploration)
            messages.append({"role": "user", "content": _answer(None if last else answer, 20 - k)})
        (run / "messages.json").write_text(json.dumps(messages))
    if false_belief is not None or room_state is not None:
        turns, before = [], "[false-belief instructions]"
        for k, (reply, answer) in enumerate(false_belief or [("Actions: [Observe()]", "")], start=1):
            fb_log = {"step": k, "room_state": room_state}
            turns.append({"turn_number": len(exploration or []) + k, "user_message": before,
                          "assistant_parsed_message": reply, "is_exploration_phase": False,
                          "false_belief_log": fb_log})  # fmt: skip
            before = _answer(answer, 15 - k)
        (run / "false_belief_turn_logs.json").write_text(json.dumps(turns))
    if metrics is not None:
        (run / "metrics.json").write_text(json.dumps({"exploration": metrics}))
    return run


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A clone's layout: `room_data/3-room/run03, run05` and the recorded runs on them."""
    scenes = write_run03(write_scenes(tmp_path / "room_data" / "3-room"))
    write_recorded_run(tmp_path, RUN03_DIR, "run03", 3,
                       {"pos": [17.0, 4.0], "ori": [0, 1], "init_pos": [10.0, 2.0], "init_ori": [0, 1]},
                       RUN03_EXPLORATION, RUN03_FALSE_BELIEF, _room_state(RUN03_OBJECTS, RUN03_CHANGED),
                       RUN03_METRICS)  # fmt: skip
    write_recorded_run(tmp_path, RUN05_DIR, "run05", 5,
                       {"pos": [8.0, 10.0], "ori": [1, 0], "init_pos": [2.0, 11.0], "init_ori": [0, 1]},
                       None, None, _room_state(RUN05_OBJECTS, RUN05_CHANGED), None)  # fmt: skip
    assert scenes.is_dir()
    return tmp_path


def _split(message: str) -> tuple[str | None, int | None]:
    """A fixture's environment message: the answer and the steps left ((None, None) after Term)."""
    m = re.search(r"\n\[steps left: (\d+)\]", message)
    return (message[: m.start()], int(m.group(1))) if m else (None, None)


def _expected(text: str | None, left: int | None) -> str:
    """What playbench answers (texts=ours): the result and our steps-left line, or our end text."""
    return TASK_FINISHED if text is None else f"{render(text)}\n{STEPS_LEFT.format(left=left)}"


def _answers(task: Any) -> None:
    """Answer the belief probes a step queued (any reply; they never change the world)."""
    while task.phase == "probe":
        task.step("FINAL ANSWER:\n{}")


def test_recorded_run_with_a_failed_jump_and_false_belief_replays_exactly(recorded: Path) -> None:
    """Their gemini-3-pro-preview run on run03: a failed JumpTo (an Observe() runs in its place), the
    false-belief changes their environment made (our port of their change rule, seeded with the run
    number 3), the second exploration in the changed scene, every message, and metrics.json."""
    run = recorded / RUN03_DIR
    history = json.loads((run / "history_state.json").read_text())
    task = make_task("tos/false-belief", scenes=str(recorded / history["image_dir"]))
    (inst,) = task.instances(None, 0)
    task.reset(inst)
    messages = json.loads((run / "messages.json").read_text())
    pairs = list(zip(messages[2::2], messages[3::2], strict=True))
    end_pose = None
    for k, (reply, logged) in enumerate(pairs, start=1):
        assert reply["role"] == "assistant" and logged["role"] == "user"
        end_pose = task.state()["pose"]
        result = task.step(reply["content"])
        text, left = _split(logged["content"])
        assert result.feedback == _expected(text, left), f"turn {k}"
        assert (text is None) == (k == len(pairs))  # the exploration ended at the recorded step
        if k == 10:
            assert result.info["failed"] and result.info["cost"] == 1  # the substituted Observe() is paid
        _answers(task)
    # history_state.json: where the exploration ended (their grid cells, relative to the start)
    agent = history["agent_dict"]
    dx, dy = (agent["pos"][i] - agent["init_pos"][i] for i in (0, 1))
    facing = next(f for f, v in FACING_VECTORS.items() if list(v) == agent["ori"])
    assert end_pose == {"x": dx, "y": dy, "facing": facing}
    # the changed scene: their change rule, seeded with the run number, made these four changes
    fb_turns = json.loads((run / "false_belief_turn_logs.json").read_text())
    assert _logged_changes(fb_turns[0]["false_belief_log"]["room_state"], RUN03_OBJECTS, RUN03_AGENT) == {
        (c.name, c.kind, c.x, c.y, c.facing if c.kind == "orientation" else None) for c in inst.changes
    }
    for k, turn in enumerate(fb_turns):
        result = task.step("FINAL ANSWER:\n" + turn["assistant_parsed_message"])
        text, left = _split(fb_turns[k + 1]["user_message"]) if k + 1 < len(fb_turns) else (None, None)
        assert result.feedback == _expected(text, left), f"false-belief turn {k + 1}"
        _answers(task)
    assert task.done
    want = json.loads((run / "metrics.json").read_text())["exploration"]
    m = task.outcome().metrics
    counts = want["action_counts"]
    assert (m["move_actions"], m["rotate_actions"], m["observe_actions"], m["query_actions"]) == (
        counts["move"],
        counts["rotate"],
        counts["observe"],
        counts["query"],
    )
    assert m["exploration_steps"] == want["n_exploration_steps"] and m["cost"] == want["action_cost"]
    assert m["failed_turns"] / m["exploration_steps"] == pytest.approx(want["action_fail_ratio"])
    assert m["valid_action_ratio"] == want["valid_action_ratio"]
    assert m["information_gain_per_turn"] == pytest.approx(want["infogain_per_turn"], abs=1e-12)
    assert m["second_exploration_steps"] == want["false_belief_steps"]
    assert (m["f1"], m["f1_position"], m["f1_orientation"]) == (
        want["false_belief_f1"],
        want["false_belief_f1_position"],
        want["false_belief_f1_facing"],
    )
    assert m["second_exploration_cost"] == want["false_belief_action_cost"]
    assert m["cost_after_changes_seen"] == want["false_belief_action_cost_after_seen"]


def _logged_changes(room_state: dict, objects: list, agent: tuple[int, int]) -> set[tuple]:
    """What their changed `room_state` differs in from the scene: moves (new point, start frame) and turns."""
    before = {name: (cell, FACING_VECTORS[ROT_FACING[rot]]) for name, cell, rot, _ in objects}
    out = set()
    for o in room_state["objects"]:
        cell, ori = before[o["name"]]
        if tuple(o["pos"]) != tuple(cell):
            out.add((o["name"], "position", o["pos"][0] - agent[0], o["pos"][1] - agent[1], None))
        elif tuple(o["ori"]) != tuple(ori):
            facing = next(f for f, v in FACING_VECTORS.items() if v == tuple(o["ori"]))
            out.add((o["name"], "orientation", cell[0] - agent[0], cell[1] - agent[1], facing))
    return out


@pytest.mark.parametrize(("folder", "objects", "agent"), [(RUN03_DIR, RUN03_OBJECTS, RUN03_AGENT),
                                                          (RUN05_DIR, RUN05_OBJECTS, RUN05_AGENT)],
                         ids=["run03", "run05"])  # fmt: skip
def test_change_rule_gives_the_changes_of_their_recorded_runs(recorded: Path, folder: str, objects: list,
                                                              agent: tuple[int, int]) -> None:  # fmt: skip
    """Their environment changes a scene at run time (`ObjectModifier`, seeded with the run number):
    the changed rooms their false-belief logs hold are what our port makes, on run03 and run05 (and
    run00's `falsebelief_exp.json`, `test_tos_scenes`)."""
    run = recorded / folder
    history = json.loads((run / "history_state.json").read_text())
    room_state = json.loads((run / "false_belief_turn_logs.json").read_text())[0]["false_belief_log"][
        "room_state"
    ]
    task = make_task("tos/false-belief", scenes=str(recorded / history["image_dir"]))
    (inst,) = task.instances(None, 0)
    assert run_number(inst.world.source) == history["seed"]
    made = {(c.name, c.kind, c.x, c.y, c.facing if c.kind == "orientation" else None) for c in inst.changes}
    assert made == _logged_changes(room_state, objects, agent)
    assert sorted(c.kind for c in inst.changes) == ["orientation", "orientation", "position", "position"]
