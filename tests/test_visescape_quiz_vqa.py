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
        assert out.termination == "goal_reached"


def test_wrong_answers_come_back_as_history_with_reasoning():
    task = make_task("visescape/quiz-vqa", reasoning=True, max_steps=3)
    task.reset(task.instances(1, 0)[0])
    r = task.step("[Think] maybe all zeros [Answer] 0000")
    assert r.validity == Validity.INEFFECTIVE
    text = task.observe("player").text
    assert "0000" in text and "maybe all zeros" in text and "[Think]" in text
    assert task.step("no idea").validity in (Validity.INEFFECTIVE, Validity.UNPARSEABLE)
    task.step("[Answer] 9999")
    task.step("[Answer] 8888")
    assert task.done and not task.outcome().success and not task.outcome().metrics["pass10"]
    assert task.outcome().termination == "step_cap"


def test_all_quizzes_option():
    assert len(make_task("visescape/quiz-vqa", quizzes="all").instances(None, 0)) == 28


def test_unreadable_replies_use_up_attempts_so_the_quiz_ends():
    task = make_task("visescape/quiz-vqa", max_steps=3, retry_limit=1)
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


def test_state_data_and_the_end_of_a_quiz():
    task = make_task("visescape/quiz-vqa", max_steps=2, retry_limit=0)
    task.reset(task.instances(1, 0)[0])
    answer = task.state()["answer"]
    digest = task.state_digest()
    result = task.step("")
    assert result.validity == Validity.UNPARSEABLE and result.info["attempt_spent"]
    assert task.state_digest() == digest and task.steps == 1  # the attempt is used up, nothing else changes
    obs = task.observe("player")
    assert obs.data["tried"] == [] and obs.data["attempts"] == 2 and obs.data["attempts_used"] == 1
    assert obs.data["answer_format"] in obs.text
    r = task.step(task.oracle_action("player"))
    assert r.feedback == "Correct." and task.done and task.outcome().termination == "goal_reached"
    assert task.state()["solved"] and task.step("1234").reason == "episode_over"
    assert task.oracle_action("player") is None
    again = make_task("visescape/quiz-vqa", max_steps=1)
    again.reset(again.instances(1, 0)[0])
    r = again.step("[Answer] 0000" if answer != "0000" else "[Answer] 1111")
    assert r.feedback.endswith("is wrong. No attempts left.") and again.outcome().termination == "step_cap"
    assert again.state()["tried"] and not again.state()["solved"]
