"""The iVISPAR tasks on the kernel's episode template: termination, state digests, observation
data, the refusal after the end, and ids pinned by their modality."""

import json

import pytest

from playbench.core.episode import EPISODE_OVER
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.termination import Termination
from playbench.core.types import TextPart, Turn, Validity
from playbench.tasks.ivispar.schema import SGPInstance
from playbench.tasks.ivispar.sgp import SlidingGeomTask
from playbench.tasks.ivispar.stp import SlidingTileTask
from playbench.tasks.ivispar.stp_schema import STPInstance

PUZZLES = ["ivispar/sgp", "ivispar/stp"]
# per task: replies that cannot be read, and moves that are read but break a rule
BAD = {
    "ivispar/sgp": ["", "hello", "move up", "move 3 left"],
    "ivispar/stp": ["", "hello", "move up", "move red cube up"],
}
ILLEGAL = {"ivispar/sgp": ["move purple banana up"], "ivispar/stp": ["move 99 left"]}


def started(task_id: str, index: int = 0, **options):
    task = make_task(task_id, **options)
    task.reset(task.instances(index + 1, 0)[index])
    return task


@pytest.mark.parametrize("task_id", PUZZLES)
def test_reaching_the_goal_ends_with_goal_reached(task_id):
    task = started(task_id)
    while not task.done:
        result = task.step(task.oracle_action("player"))
    assert result.feedback.endswith(" The goal state is reached.")
    assert task.termination == Termination.GOAL_REACHED
    assert task.outcome().termination == "goal_reached" and task.outcome().success


@pytest.mark.parametrize("task_id", PUZZLES)
def test_the_cap_ends_with_step_cap_and_says_so(task_id):
    task = started(task_id, max_steps=2)
    assert task.max_steps == 2
    task.step("")
    assert not task.done
    result = task.step("")
    assert result.feedback.endswith(" The limit of 2 moves is reached.")
    assert task.done and task.outcome().termination == "step_cap" and not task.outcome().success
    assert "ended_by" not in task.outcome().metrics
    assert task.oracle_action("player") is None


@pytest.mark.parametrize("task_id", [*PUZZLES, "ivispar/board-inference"])
def test_a_step_after_the_end_is_refused_with_the_kernel_wording(task_id):
    task = started(task_id, **({"image_size": 96} if task_id.endswith("inference") else {}))
    while not task.done:
        task.step(task.oracle_action("player"))
    steps, digest = task.steps, task.state_digest()
    result = task.step("anything")
    assert (result.validity, result.reason, result.feedback) == (
        Validity.INVALID,
        "episode_over",
        EPISODE_OVER,
    )
    assert task.steps == steps and task.state_digest() == digest


@pytest.mark.parametrize("task_id", PUZZLES)
def test_unreadable_and_illegal_moves_leave_the_state_digest_unchanged(task_id):
    task = started(task_id, 3)
    digest = task.state_digest()
    for text in BAD[task_id] + ILLEGAL[task_id]:
        result = task.step(text)
        assert result.validity in (Validity.UNPARSEABLE, Validity.INVALID), text
        assert task.state_digest() == digest, text
    task.step(task.oracle_action("player"))
    assert task.state_digest() != digest


def test_the_state_is_the_board_and_its_goal():
    task = started("ivispar/sgp")
    inst = task.instance
    assert task.state() == {
        "board": {g.name: g.start for g in inst.geoms},
        "goal": {g.name: g.goal for g in inst.geoms},
    }
    tiles = started("ivispar/stp")
    assert tiles.state()["board"] == tiles.instance.rows
    assert tiles.state()["goal"][-1][-1] == 0  # the blank ends bottom-right


@pytest.mark.parametrize("task_id", PUZZLES)
def test_observation_data_mirrors_the_states_shown(task_id):
    task = started(task_id, 2, past_window=1, move_results=True)
    first = task.observe("player").data
    assert first["current"] == task.state()["board"] and first["goal"] == task.state()["goal"]
    assert first["past"] == [] and first["max_steps"] == task.max_steps
    before = first["current"]
    task.step("hello")
    task.step(task.oracle_action("player"))
    obs = task.observe("player")
    json.dumps(obs.data)
    # the window holds the last step only: the state it started from, the move and its result
    [past] = obs.data["past"]
    assert past["state"] == before and past["action"].startswith("move ")  # shown as the command
    # the past state, the action taken in it and (move_results) its result, as turns before the step text
    assert [t.role for t in obs.turns] == ["user", "assistant", "user"]
    assert obs.turns[-1] == Turn("user", [TextPart(f"Result: {past['result']}")])
    assert obs.data["current"] == task.state()["board"]


def test_board_inference_ends_on_its_one_answer_read_or_not():
    task = started("ivispar/board-inference", image_size=96)
    digest = task.state_digest()
    result = task.step("I cannot tell.")
    assert result.validity is Validity.UNPARSEABLE and result.info["format_errors"] == 1
    # an unreadable answer reads no entry, so the state (board and answer) is unchanged
    assert task.state_digest() == digest
    assert task.done and task.outcome().termination == "goal_reached" and not task.outcome().success

    task = started("ivispar/board-inference", image_size=96)
    assert task.observe("player").data["answer"] == []
    answer = task.oracle_action("player")
    task.step(answer)
    assert task.state_digest() != digest and task.outcome().success
    assert task.observe("player").data["answer"] == [e.strip() for e in answer[len("Solution:") :].split(",")]


def test_a_loaded_instance_that_starts_solved_is_over_at_reset():
    geoms = [{"color": "red", "shape": "cube", "start": "a1", "goal": "a1"}]
    task = SlidingGeomTask()
    task.reset(SGPInstance(id="solved", geoms=geoms, optimal_steps=0))
    assert task.done and task.termination == Termination.GOAL_REACHED and task.outcome().success
    tiles = SlidingTileTask(board_size=[2, 2])
    tiles.reset(STPInstance(id="solved", board_size=[2, 2], rows=[[1, 2], [3, 0]]))
    assert tiles.done and tiles.outcome().steps == 0


@pytest.mark.parametrize(
    ("task_id", "modality", "instead"),
    [
        ("ivispar/sgp", "2d", "ivispar/sgp-2d"),
        ("ivispar/sgp-2d", "3d", "ivispar/sgp-3d"),
        ("ivispar/sgp-3d", "text", "ivispar/sgp"),
    ],
)
def test_the_modality_defines_each_geom_puzzle_id(task_id, modality, instead):
    with pytest.raises(ConfigError) as exc:
        make_task(task_id, modality=modality)
    assert f"run {instead} instead" in str(exc.value) and task_id in str(exc.value)
    assert make_task(instead).config.modality == modality


def test_single_id_tasks_keep_modality_as_an_option():
    assert make_task("ivispar/stp", modality="2d").config.modality == "2d"
    assert make_task("ivispar/board-inference", modality="3d").config.modality == "3d"
    # repeating an id's own value is allowed
    assert make_task("ivispar/sgp-2d", modality="2d").config.modality == "2d"
