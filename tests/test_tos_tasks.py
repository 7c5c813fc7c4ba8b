"""Theory of Space tasks: the oracle solves every task in exactly optimal_steps, random play is safe."""

import random

import pytest

from playbench.core.errors import ConfigError
from playbench.core.registry import all_specs, make_task
from playbench.core.types import Validity
from playbench.tasks.tos.answers import QuestionTask
from playbench.tasks.tos.feedback import OURS

TOS = [s.id for s in all_specs() if s.id.startswith("tos/")]
QUESTION_TASKS = [t for t in TOS if t not in ("tos/explore", "tos/cogmap", "tos/false-belief")]


def play_oracle(task, inst):
    task.reset(inst)
    while not task.done:
        result = task.step(task.oracle_action("player"))
        assert result.validity not in (Validity.INVALID, Validity.UNPARSEABLE), result.feedback
    return task.outcome()


def test_twelve_tasks_are_registered():
    assert len(TOS) == 12 and len(QUESTION_TASKS) == 9


@pytest.mark.parametrize("task_id", TOS)
def test_oracle_solves_in_optimal_steps(task_id):
    task = make_task(task_id)
    for inst in task.instances(4, 3):
        out = play_oracle(task, inst)
        assert out.success and out.steps == inst.optimal_steps, inst.id
        if task_id != "tos/false-belief":
            assert out.metrics["coverage"] == 1.0 and out.metrics["cost"] == out.metrics["oracle_cost"]


@pytest.mark.parametrize("task_id", [*QUESTION_TASKS, "tos/cogmap"])
def test_passive_mode_gives_the_log_and_asks_at_once(task_id):
    task = make_task(task_id, exploration="passive")
    for inst in task.instances(3, 0):
        assert inst.optimal_steps == 1
        task.reset(inst)
        obs = task.observe("player")
        assert "log of an exploration" in obs.text and "Step 1: Actions: [" in obs.text
        assert "Exploration is over" in obs.text
        out = play_oracle(task, inst)
        assert out.success and out.steps == 1 and out.metrics["passive"] is True


@pytest.mark.parametrize("task_id", TOS)
def test_random_legal_play_never_raises_and_stays_near_chance(task_id):
    rng = random.Random(0)
    task = make_task(task_id)
    wins = 0
    for inst in task.instances(8, 1):
        task.reset(inst)
        while not task.done:
            obs = task.observe("player")
            assert obs.legal_actions
            result = task.step(rng.choice(obs.legal_actions))
            assert result.feedback
        wins += task.outcome().success
    assert wins <= 4


def test_unparseable_answer_is_recorded_as_wrong():
    task = make_task("tos/pairwise-direction", exploration="passive")
    task.reset(task.instances(1, 0)[0])
    result = task.step("I am not sure at all.")
    assert result.validity == Validity.UNPARSEABLE and task.done
    out = task.outcome()
    assert not out.success and out.metrics["answer_parsed"] is False and out.metrics["score"] == 0.0


def test_false_belief_second_phase_and_scoring():
    task = make_task("tos/false-belief", probe=False)
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    task.step("Actions: [Observe()]")
    task.step("Actions: [Term()]")
    obs = task.observe("player")
    assert "have been changed" in obs.text and "Term(changes=" in obs.text
    assert "4 objects" in obs.text and "at most 15 steps" in obs.text  # theirs: 4 changes, 15 steps
    assert task.step("Actions: [Term()]").reason == "unknown_action"
    first = inst.changes[0]
    task.step(f'Actions: [Term(changes="{first.name}: {first.kind}")]')
    out = task.outcome()
    assert task.done and out.metrics["precision"] == 1.0 and out.metrics["recall"] == 0.25 and not out.success
    assert out.steps == 4
    kinds = sorted(c.kind for c in inst.changes)
    assert kinds == ["orientation", "orientation", "position", "position"]


def test_config_errors_are_clear():
    with pytest.raises(ConfigError, match="unknown question family"):
        QuestionTask(family="nonsense")
    with pytest.raises(ConfigError, match="exploration"):
        make_task("tos/cogmap", exploration="sideways")


@pytest.mark.parametrize("image_questions", [False, True])
def test_vision_observations_carry_legend_views_and_question_view(image_questions):
    task = make_task(
        "tos/perspective-determine", modality="vision", image_size=160, image_questions=image_questions
    )
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    first = task.observe("player")
    assert [i.label for i in first.images] == ["example", "legend"]
    while not task.done:
        obs = task.observe("player")
        task.step(task.oracle_action("player"))
    labels = [i.label for i in obs.images]
    assert labels[:2] == ["example", "legend"]
    assert (labels[-1] == "question-view") == image_questions  # theirs: the view is quoted as text
    assert sum(label.startswith("view-") for label in labels) == inst.optimal_steps - 2
    assert all(i.png.startswith(b"\x89PNG") for i in obs.images)
    assert OURS.observe_text("<image>") in obs.text and "• " not in obs.text.split("Question:")[0]
    assert task.outcome().success


def test_cogmap_with_local_map_asks_for_both_and_scores_consistency():
    task = make_task("tos/cogmap", local_map=True, exploration="passive")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    assert '"origin": "agent"' in task.observe("player").text
    out = play_oracle(task, inst)
    assert out.success and out.metrics["local_global_consistency"] == 1.0
    task.reset(inst)
    global_only = task.oracle_action("player").splitlines()[0]
    task.step(global_only)
    out = task.outcome()
    assert not out.success and out.metrics["map_score"] == 1.0 and out.metrics["local_parsed"] is False


def test_agent_is_told_the_rooms_and_object_names_in_the_papers_default_setting():
    task = make_task("tos/explore")
    inst = task.instances(1, 0)[0]
    world = inst.world
    # the paper's main setting: three connected 6 x 6 rooms with four objects each
    assert len(world.rooms) == 3 and len(world.objects) == 12
    assert all(r.x1 - r.x0 + 1 == 6 and r.y1 - r.y0 + 1 == 6 for r in world.rooms)
    task.reset(inst)
    text = task.observe("player").instructions
    # theirs: the rooms, the start room, the objects numbered in the scene's order, the doors
    listing = ", ".join(f"{k}: {o.name}" for k, o in enumerate(world.objects, start=1))
    assert "3 rooms joined by doors: room 1, room 2, room 3. You start in room 1, facing north." in text
    assert f"Objects: {listing}" in text
    assert "Doors: " + ", ".join(g.name for g in world.gates) in text


def test_vision_legend_text_of_a_single_room_world_says_there_is_no_door():
    task = make_task("tos/explore", modality="vision", rooms=1, objects=2, image_size=96)
    task.reset(task.instances(1, 0)[0])
    text = task.observe("player").text
    assert "Doors: none (a single room)." in text and "Doors: ." not in text


@pytest.mark.parametrize("task_id", TOS)
def test_every_active_exploration_starts_by_telling_the_start_pose(task_id):
    """The agent starts at the origin facing north; every task must say so before the first step
    (the allocentric answers and the cognitive map depend on it)."""
    task = make_task(task_id)
    task.reset(task.instances(1, 0)[0])
    assert "You are at your starting position, facing north." in task.observe("player").text


def test_vision_instructions_name_the_answer_bins_without_pointing_to_an_unseen_text_version():
    task = make_task("tos/location2view", modality="vision", image_size=96)
    task.reset(task.instances(1, 0)[0])
    text = task.observe("player").instructions
    assert "text version" not in text
    assert "name them with these bins" in text and "(0°, 22.5°] front-slight-right" in text


def test_passive_scout_logs_sweep_every_room():
    """SCOUT (the authors' sweep proxy; their vision runs' log): four views at the start, three from
    each door it enters, until every object is seen; about nine steps (the paper: about 9)."""
    from playbench.tasks.tos.proxies import scout_turns
    from playbench.tasks.tos.worldgen import cached_world

    lengths = []
    for i in range(30):
        world, _ = cached_world(3, 4, 0, i, 20)
        turns = scout_turns(world)
        assert (
            turns[:4] == ["Actions: [Observe()]"] + ["Actions: [Rotate(90), Observe()]"] * 3 or len(turns) < 6
        )
        assert turns[-1] == "Actions: [Term()]"
        lengths.append(len(turns) - 1)
    assert 8 <= sum(lengths) / len(lengths) <= 10
    task = make_task("tos/mental-rotation", exploration="passive", passive_log="scout")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    text = task.observe("player").text
    assert "Step 1: Actions: [Observe()]" in text and "Step 4: Actions: [Rotate(90), Observe()]" in text
    oracle = make_task("tos/mental-rotation", exploration="passive", passive_log="oracle")
    oracle.reset(inst)
    assert oracle.observe("player").text != text
