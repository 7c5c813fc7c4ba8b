"""Replaying a recorded run of the authors through playbench reproduces what their environment logged.

The run: `experiments/gpt-5.2/177ef6532828f8d7/text/active/think/` in mll-lab-nu/Theory-of-Space
(`history_state.json` names its scene, `room_data/3-room/run05`; written here as a fixture in their
scene format by `test_tos_scenes.write_scenes`). `messages.json` holds the model's replies and the
environment's answers; `metrics.json` its action counts and cost. We send the replies' final
answers and compare every observation text and the totals.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tos_scenes import write_scenes

from playbench.core.registry import make_task

NOTE = 'Assume your current facing direction is called "north":'
# (the reply's final answer, the environment's observation up to its steps-left line)
RUN05_GPT52 = [
    ("Actions: [Observe()]", "You observe: No objects in field of view.."),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
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
        "You jumped to blue door. You observe: No objects in field of view..",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
        "• shoppingcart: front, slightly far, facing forward\n"
        "• red chair: front-right, mid distance, facing forward.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
        "• bike: front-left, mid distance, facing backward\n"
        "• pan: front-slight-right, slightly far, facing forward\n"
        "• desklamp: front-left, slightly far, facing left.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
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
        "You jumped to yellow door. You observe: No objects in field of view..",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
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
    ("Actions: [Observe()]", "You observe: No objects in field of view.."),
    RUN05_GPT52[1],
    ("Actions: [JumpTo(yellow door), Observe()]", "You jumped to yellow door. You observe: \n" + ROOM2),
    (
        "Actions: [JumpTo(books), Rotate(90), Observe()]",
        "You jumped to books. You rotated clockwise 90°. You observe: No objects in field of view..",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n• yellow door: front, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(yellow door), Rotate(-90), Observe()]",
        "You jumped to yellow door. You rotated counterclockwise 90°. You observe: \n"
        "• blue door: front-right, mid distance, on front wall.",
    ),
    (
        "Actions: [JumpTo(blue door), Observe()]",
        "You jumped to blue door. " + RUN05_GPT52[3][1].split(". ", 1)[1],
    ),
    (
        "Actions: [JumpTo(shoppingcart), Rotate(-90), Observe()]",
        "You jumped to shoppingcart. You rotated counterclockwise 90°. You observe: No objects in field of view..",
    ),
    (
        "Actions: [Rotate(180), Observe()]",
        "You rotated clockwise 180°. You observe: \n"
        "• red chair: front-right, mid distance, facing left\n"
        "• desklamp: front-slight-right, slightly far, facing left.",
    ),
    (
        "Actions: [Rotate(90), Observe()]",
        "You rotated clockwise 90°. You observe: \n"
        "• bike: front-left, slightly far, facing right\n"
        "• red chair: front-left, mid distance, facing backward\n"
        "• blue door: front, slightly far, on front wall\n"
        f"{NOTE}\n"
        "• bike is north, near to red chair.",
    ),
    (
        "Actions: [JumpTo(blue door), Observe()]",
        "You jumped to blue door. " + RUN05_GPT52[5][1].split(". ", 1)[1],
    ),
    (
        "Actions: [Rotate(-90), Observe()]",
        "You rotated counterclockwise 90°. " + RUN05_GPT52[4][1].split(". ", 1)[1],
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
            assert task.done and result.feedback == "Task finished."
            break
        text, steps_left = result.feedback.rsplit("\n", 1)
        assert text == logged, f"turn {k}"
        assert steps_left == f"You have a maximum of {20 - k} exploration steps left."
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
    assert RUN05_GPT52[1][1] in text and "You have a maximum of 19 exploration steps left." in text
