"""`visescape/generated`: rooms built from a seed, escapable by construction, played like the hand-made rooms."""

from __future__ import annotations

import pytest

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.task import derive_seed, instance_set_digest
from playbench.core.termination import Termination
from playbench.tasks.visescape.difficulty import STATISTICS
from playbench.tasks.visescape.generated import generated_room
from playbench.tasks.visescape.generator import Shape, build_room
from playbench.tasks.visescape.rooms import as_played
from playbench.tasks.visescape.twin_check import play_oracle
from playbench.tasks.visescape.validator import check_room


@pytest.fixture(scope="module")
def task():
    return make_task("visescape/generated")


def test_the_oracle_escapes_a_hundred_generated_rooms_in_optimal_steps(task) -> None:
    instances = task.instances(100, 7)
    assert len({i.id for i in instances}) == 100
    for inst in instances:
        assert play_oracle(task, inst) == (True, inst.optimal_steps), inst.id


@pytest.mark.slow
def test_the_oracle_escapes_a_thousand_generated_rooms_in_optimal_steps(task) -> None:
    """The issue's done-when (about 30 s here; `scripts/visescape_generated_1000.py` prints the same)."""
    failures = [i.id for i in task.instances(1000, 0) if play_oracle(task, i) != (True, i.optimal_steps)]
    assert failures == []


def test_generated_rooms_pass_every_authoring_rule_of_the_hand_made_rooms() -> None:
    """The validator's full check (clues apart from their locks, no lock or checkpoint can be skipped,
    checkpoints in the oracle's order) agrees with the generator's oracle length."""
    for k in range(15):
        room, params, figures = generated_room(f"g{k}", derive_seed("test-generated", k))
        report = check_room(as_played(room), params)
        assert report.oracle_steps == figures["optimal_steps"]
        assert report.checkpoints == figures["hint_stalls"]


def test_a_room_is_built_to_its_shape() -> None:
    import random

    shape = Shape(receptacles=7, items=6, quizzes=2, gates=6, pickups=3)
    for seed in range(5):
        room, params = build_room("x", shape, random.Random(seed))
        assert len(room.receptacles) == 7
        assert sum(1 for i in room.items if i.kind != "lock") == 6
        assert len(room.quizzes) == 2 and set(params) == {q.id for q in room.quizzes}
        walls = [r.wall for r in room.receptacles]
        assert set(walls) == {"north", "east", "south", "west"}


def test_a_shape_that_cannot_be_built_is_one_clear_error() -> None:
    import random

    with pytest.raises(ValueError, match="3 pickups and 2 quizzes need as many gates; chain depth is 4"):
        build_room("x", Shape(receptacles=6, items=5, quizzes=2, gates=4, pickups=3), random.Random(0))


def test_instances_are_deterministic_and_seeds_differ(task) -> None:
    a, b = task.instances(5, 3), make_task("visescape/generated").instances(5, 3)
    assert instance_set_digest(a) == instance_set_digest(b)
    assert instance_set_digest(a) != instance_set_digest(task.instances(5, 4))
    for inst in a:
        assert set(task.difficulty(inst)) == set(STATISTICS)


def _stall(task_id: str) -> tuple[int, str, int, str, str]:
    """A player who only turns: (the step its first hint shows, the termination, the steps, the hint, the
    first checkpoint's hint as the room words it)."""
    task = make_task(task_id, hints=True)
    task.reset(task.instances(1, 0)[0])
    hints = []
    while not task.done:
        obs = task.observe("player")
        hints.append(obs.data["hint"])
        task.step(next(a for a in obs.data["available_actions"] if a.startswith("turn_to_")))
    first = next(k for k, h in enumerate(hints) if h)
    expected = task.format_hint(task._room.checkpoints[0].hint)
    return first, str(task.termination), task.outcome().steps, hints[first], expected


def test_hints_and_the_early_stop_work_on_a_generated_room_as_on_a_hand_made_one() -> None:
    first, termination, steps, hint, expected = _stall("visescape/generated")
    assert hint == expected
    assert (first, termination, steps) == _stall("visescape/room-01")[:3]
    assert termination == str(Termination.NO_PROGRESS)


def test_a_generated_room_is_drawn_by_the_suite_renderer(task) -> None:
    inst = task.instances(1, 1)[0]
    task.reset(inst)
    images = set()
    while not task.done:
        obs = task.observe("player")
        images.add(obs.data["scene"])
        task.step(task.oracle_action("player"))
    assert len(images) >= 10  # every view of the walk is a picture of its own


def test_bad_options_are_one_clear_message() -> None:
    with pytest.raises(ConfigError, match="dataset"):
        make_task("visescape/generated", dataset="paper")
    with pytest.raises(ConfigError, match="rooms"):
        make_task("visescape/generated", rooms=["room-01"])
    with pytest.raises(ConfigError, match="unknown paper room"):
        make_task("visescape/generated", dataset="twin", twin_of=["room99"]).instances(None, 0)
