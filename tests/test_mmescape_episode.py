"""MM-Escape on the episode template: ids fixed by their level, terminations, the debriefing
outside the step cap, `state()` and the structured observation and step facts."""

import json

import pytest
from test_mmescape_chain import ok_chain

from playbench.core.errors import ConfigError
from playbench.core.registry import get_spec, make_task
from playbench.core.termination import Termination
from playbench.core.types import Validity
from playbench.tasks.mmescape.task import EscapeTask


def test_the_level_defines_the_id():
    with pytest.raises(ConfigError, match="mmescape/level-2") as err:
        get_spec("mmescape/level-1").make(level="level-2")
    assert "level defines the task mmescape/level-1" in str(err.value)
    assert get_spec("mmescape/level-1").make(level="level-1").config.level == "level-1"
    assert get_spec("mmescape/multi-room").make(rooms="level-2").config.room_levels() == ["level-2"]


@pytest.fixture(scope="module")
def level2():
    task = make_task("mmescape/level-2", protocol="playbench", image_size=128)
    return task, task.instances(1, 0)[0]


def test_an_escape_is_goal_reached_and_the_cap_is_step_cap(level2):
    task, inst = level2
    task.reset(inst)
    while not task.done:
        task.step(task.oracle_action("player"))
    assert task.outcome().termination == Termination.GOAL_REACHED == "goal_reached"
    task.reset(inst)
    for _ in range(inst.max_steps - 1):
        task.step("{}")
    assert not task.done and task.outcome().termination == "unfinished"
    last = task.step('{"move_forward": 12}')  # an invalid action counts and can meet the cap
    assert last.validity == Validity.INVALID and last.feedback.endswith(
        "You have used all 75 steps without escaping."
    )
    assert task.done and task.outcome().termination == "step_cap" and task.outcome().steps == 75
    after = task.step("{}")
    assert (
        after.validity == Validity.INVALID and after.reason == "episode_over" and task.outcome().steps == 75
    )


def test_an_escape_on_the_last_step_still_gets_the_debriefing():
    inst = make_task("mmescape/level-3-note-key", protocol="playbench").instances(1, 0)[0]
    task = EscapeTask(
        protocol="playbench", level="level-3-note-key", max_steps=inst.optimal_steps, judge=True
    )
    task.reset(inst)
    for _ in range(inst.optimal_steps):
        task.step(task.oracle_action("player"))
    assert task.phase == "debrief" and task.current_role() == "player" and task.max_steps is None
    obs = task.observe("player")
    assert "piece together the story" in obs.text and obs.data["phase"] == "debrief"
    result = task.step(task.oracle_action("player"))
    assert result.info == {"phase": "debrief", "step": inst.optimal_steps}
    assert task.phase == "judge" and task.steps == inst.optimal_steps  # the debriefing is no step
    while not task.done:
        task.step(task.oracle_action("judge"))
    out = task.outcome()
    assert out.termination == "goal_reached" and out.steps == inst.optimal_steps
    assert out.metrics["story_score"] == 5.0 and out.metrics["story_answered"]


def test_state_covers_the_game_and_bad_actions_leave_it_unchanged(level2):
    task, inst = level2
    task.reset(inst)
    start = task.state()
    assert start["phase"] == "play" and start["bag"] == [] and not start["escaped"]
    assert set(start) == {
        "phase",
        "pose",
        "bag",
        "picked",
        "opened",
        "doors_open",
        "known",
        "escaped",
        "moved",
        "story_answered",
    }
    digest = task.state_digest()
    for bad in ("no idea", '{"rotate_right": 200}', '{"read": "note_1"}'):
        assert task.step(bad).validity in (Validity.INVALID, Validity.UNPARSEABLE)
        assert task.state_digest() == digest
    task.step('{"rotate_right": 10}')
    assert task.state()["pose"]["yaw"] != start["pose"]["yaw"] and task.state_digest() != digest
    while not task.done:
        task.step(task.oracle_action("player"))
    end = task.state()
    # the state's phase is the game's (play or debrief); that the episode is over is the template's
    assert task.phase == "over" and end["phase"] == "play"
    assert end["escaped"] and end["bag"] == ["key_1"] and end["doors_open"] == [0]
    json.dumps(end)


def test_observation_data_and_step_info(level2):
    task, inst = level2
    task.reset(inst)
    obs = task.observe("player")
    assert obs.data == {"phase": "play", "step": 0, "max_steps": 75, "bag": [], "rooms": 1}
    while "key_1" not in task.state()["bag"]:
        result = task.step(task.oracle_action("player"))
    assert result.info["obtained"] == ["key_1"] and result.info["grab_success"] and result.info["key_step"]
    assert result.info["bag"] == ["key_1"] and result.info["step"] == task.steps
    assert set(result.info["pose"]) == {"x", "z", "yaw", "pitch"}
    data = task.observe("player").data
    assert data["bag"] == [{"id": "key_1", "type": "key"}] and data["step"] == task.steps
    bad = task.step("hm")
    assert bad.info == {"phase": "play", "step": task.steps}


def test_a_chain_file_is_read_again_not_cached(tmp_path):
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(ok_chain()))
    task = make_task("mmescape/level-1", protocol="playbench", chain=str(path))
    first = task.instances(1, 0)[0]
    path.write_text(json.dumps(ok_chain(name="edited", description="an edited chain")))
    second = task.instances(1, 0)[0]
    assert first.id != second.id  # the id carries the chain's digest
