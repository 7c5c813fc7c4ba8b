"""visescape/quiz-vqa: one quiz per room, pass@1 / pass@10 with the history of wrong answers."""

from playbench.core.registry import make_task
from playbench.core.types import Validity


def test_one_quiz_per_room_and_oracle_passes_at_one():
    task = make_task("visescape/quiz-vqa")
    insts = task.instances(None, 0)
    assert len(insts) == 20 and len({i.room for i in insts}) == 20
    for inst in insts[:5]:
        task.reset(inst)
        obs = task.observe("player")
        assert len(obs.images) == 2 and "hint" in obs.text
        task.step(task.oracle_action("player"))
        out = task.outcome()
        assert out.success and out.metrics["pass1"] and out.metrics["pass10"]


def test_wrong_answers_come_back_as_history_with_reasoning():
    task = make_task("visescape/quiz-vqa", reasoning=True, attempts=3)
    task.reset(task.instances(1, 0)[0])
    r = task.step("[Think] maybe all zeros [Answer] 0000")
    assert r.validity == Validity.INEFFECTIVE
    text = task.observe("player").text
    assert "0000" in text and "maybe all zeros" in text and "[Think]" in text
    assert task.step("no idea").validity in (Validity.INEFFECTIVE, Validity.UNPARSEABLE)
    task.step("[Answer] 9999")
    task.step("[Answer] 8888")
    assert task.done and not task.outcome().success and not task.outcome().metrics["pass10"]


def test_all_quizzes_option():
    assert len(make_task("visescape/quiz-vqa", quizzes="all").instances(None, 0)) == 28


def test_unreadable_replies_use_up_attempts_so_the_quiz_ends():
    task = make_task("visescape/quiz-vqa", attempts=3, retry_limit=1)
    color_quiz = next(i for i in task.instances(None, 0) if i.kind == "color_order")
    task.reset(color_quiz)
    before = task.observe("player").legal_actions
    first = task.step("1234")  # digits cannot be read as colours: asked again, nothing changes
    assert first.validity == Validity.UNPARSEABLE and not first.info["attempt_spent"]
    assert task.observe("player").legal_actions == before and task.outcome().steps == 0
    assert "No answer could be read" in task.observe("player").text
    results = [task.step("1234") for _ in range(5)]
    assert all(r.validity == Validity.UNPARSEABLE for r in results)
    assert task.done and task.outcome().metrics["unreadable"] == 3 and task.outcome().steps == 3
