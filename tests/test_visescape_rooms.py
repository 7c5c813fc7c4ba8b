"""The twenty shipped rooms: valid, escapable by the oracle in exactly its steps, Table 1 statistics."""

import random
from statistics import fmean

import pytest

from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.visescape.quizzes import QUIZ_KINDS
from playbench.tasks.visescape.rooms import as_played, load_room, quiz_params, room_ids
from playbench.tasks.visescape.task import VisEscapeTask
from playbench.tasks.visescape.validator import check_room

# paper Table 1 / §2: averages per room
PAPER = {"receptacles": 5.9, "items": 5.1, "quizzes": 1.4, "checkpoints": 8.4, "oracle_steps": 27.2}


@pytest.fixture(scope="module")
def reports():
    """Each room as played by the paper's protocol (clues stay in place; turn_to from every view)."""
    return {rid: check_room(as_played(load_room(rid)), quiz_params(load_room(rid))) for rid in room_ids()}


def test_rooms_also_validate_with_carried_clues():
    for rid in room_ids():
        room = load_room(rid)
        report = check_room(as_played(room, carry_clues=True), quiz_params(room), carry_clues=True)
        assert report.checkpoints == len(room.checkpoints), rid


def test_twenty_rooms_ship_and_register():
    assert room_ids() == [f"room-{k:02d}" for k in range(1, 21)]
    for rid in room_ids():
        task = make_task(f"visescape/{rid}")
        assert [i.id for i in task.instances(None, 0)] == [rid]
    assert len(make_task("visescape/rooms").instances(None, 0)) == 20


def test_room_averages_match_the_paper_within_15_percent(reports):
    stats = [r.stats() for r in reports.values()]
    for key, target in PAPER.items():
        mean = fmean(s[key] for s in stats)
        assert abs(mean - target) <= 0.15 * target, f"{key}: {mean:.2f} vs paper {target}"


def test_every_room_has_an_associative_visual_quiz():
    for rid in room_ids():
        room = load_room(rid)
        assert room.quizzes, rid
        for quiz in room.quizzes:
            assert quiz.kind in QUIZ_KINDS
            lock_home = room.location(quiz.lock).id
            clue_home = (
                quiz.clue if quiz.clue in {r.id for r in room.receptacles} else room.location(quiz.clue).id
            )
            assert clue_home != lock_home, (rid, quiz.id)


def test_lock_view_alone_does_not_reveal_the_answer():
    # the lock caption (what the lock shows) never contains the answer's values
    for rid in room_ids():
        room = load_room(rid)
        params = quiz_params(room)
        for quiz in room.quizzes:
            kind = QUIZ_KINDS[quiz.kind]
            answer = kind.answer(params[quiz.id])
            lock_words = kind.lock_caption(params[quiz.id])
            if kind.answer_type in ("digits", "letters"):
                assert answer not in lock_words.replace(" ", ""), (rid, quiz.id)
            else:
                assert answer not in lock_words, (rid, quiz.id)


def test_oracle_escapes_every_room_in_exactly_its_oracle_steps(reports):
    task = make_task("visescape/rooms")
    for inst in task.instances(None, 0):
        task.reset(inst)
        while not task.done:
            result = task.step(task.oracle_action("player"))
            assert result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE), result.feedback
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps == reports[inst.id].oracle_steps, inst.id
        assert out.metrics["gc"] == 1.0 and out.metrics["spl"] == 1.0


def test_seeded_variants_redraw_quizzes_and_stay_escapable():
    task = VisEscapeTask(rooms=["room-05"])
    insts = task.instances(3, 11)
    assert insts[0].id == "room-05" and insts[1].id != insts[2].id
    assert insts[1].quiz_params != insts[0].quiz_params
    for inst in insts:
        task.reset(inst)
        while not task.done:
            task.step(task.oracle_action("player"))
        assert task.outcome().success and task.outcome().steps == inst.optimal_steps


def test_random_agent_almost_never_escapes():
    task = make_task("visescape/rooms")
    rng = random.Random(5)
    wins = 0
    for inst in task.instances(None, 0):
        task.reset(inst)
        while not task.done:
            task.step(rng.choice(task.legal_actions()))
        wins += task.outcome().success
    assert wins <= 1


def test_oracle_reads_every_clue_up_close_before_answering_its_lock(reports):
    from playbench.tasks.visescape.engine import Engine
    from playbench.tasks.visescape.validator import clues_read

    for rid, report in reports.items():
        room = as_played(load_room(rid))
        engine = Engine(room, quiz_params(room))
        state = engine.initial_state()
        read = set(clues_read(engine, state))
        answered = []
        for action in report.oracle_path:
            if action.startswith("<ANSWER>"):
                quiz = engine.lock_quiz[engine.lock_in_view(state)]
                assert quiz.id in read, (rid, quiz.id)
                answered.append(quiz.id)
            state = engine.apply(state, action).state
            read |= clues_read(engine, state)
        assert sorted(answered) == sorted(q.id for q in room.quizzes), rid


def test_clue_and_lock_stand_on_different_walls():
    for rid in room_ids():
        room = load_room(rid)
        for quiz in room.quizzes:
            clue_wall = (
                room.receptacle(quiz.clue).wall
                if quiz.clue in {r.id for r in room.receptacles}
                else room.location(quiz.clue).wall
            )
            assert clue_wall != room.location(quiz.lock).wall, (rid, quiz.id)
