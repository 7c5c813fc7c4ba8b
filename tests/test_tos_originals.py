"""Theory of Space with the authors' clone in the originals folder (`tasks/tos/originals.py`, `texts.py`).

The fixture clone is written here in their layout (`vagen/env/spatial/Base/tos_base/...`, their
symbols, `room_data/3-room/runNN`) with OUR OWN sentences: the tests prove what is read from where
and how it is filled, never the authors' words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tos_replay import RUN05_GPT52, render
from test_tos_scenes import write_scenes

from playbench.core.errors import ConfigError
from playbench.core.originals import get_repo, resolve_options, status
from playbench.core.types import TextPart
from playbench.tasks.tos.exploration import ExploreTask
from playbench.tasks.tos.false_belief import FalseBeliefTask
from playbench.tasks.tos.originals import (
    ACTIONS,
    COMMIT,
    EXPLORATION,
    FALSE_BELIEF,
    NAME,
    PROMPTER,
    SCENES,
    UTILS,
)

PROMPTER_SRC = """\
from ..utils.utils import THINK_LABEL, ANSWER_LABEL


class PromptManager:
    @staticmethod
    def system_prompt() -> str:
        return f"Reply in two parts:\\n{THINK_LABEL} reasoning\\n{ANSWER_LABEL} answer"

    def invalid_action_message(self) -> str:
        return "Unusable reply: end with one final action."

    def steps_left_message(self, remaining_steps: int) -> str:
        return f"Turns remaining: {remaining_steps}."

    def task_finished_message(self) -> str:
        return "All done"

    def get_format_footer(self, is_exploration: bool) -> str:
        # which hint
        if is_exploration:
            answer_hint = "Actions: [ ... ]"
        else:
            if self._is_internvl_model():
                answer_hint = "[a letter]"
            else:
                answer_hint = "[the answer]"
        if self.enable_think:
            think = "[plan the next move]" if is_exploration else "[think about it]"
            return f"Use this layout:\\n{THINK_LABEL}\\n{think}\\n{ANSWER_LABEL}\\n{answer_hint}"
        return f"Use this layout:\\n{ANSWER_LABEL}\\n{answer_hint}"
"""

UTILS_SRC = 'THINK_LABEL = "REASON:"\nANSWER_LABEL = "ANSWER:"\n'
FB_SRC = (
    'FALSE_BELIEF_INSTRUCTION = """\\\n{n_changes} things changed; {max_steps} turns to find them.\n"""\n'
)

# their action classes and exploration manager, our sentences (the symbols of `RESULT_TEXTS`)
ACTIONS_SRC = """\
class MoveAction(BaseAction):
    def success_message(self, **kwargs) -> str:
        extra = kwargs.get('extra')
        return f"At {self.target} now." + (f" {extra}" if extra else "")

    def error_message(self, error_type: str) -> str:
        errors = {"not_found": "unknown thing", "not_visible": "out of sight", "not_observed": "never seen"}
        return f"No jump to {self.target}: {errors.get(error_type, 'execution failed')}."


class RotateAction(BaseAction):
    def success_message(self, **kwargs) -> str:
        if self.degrees == 0:
            return "Turned 0 deg."
        direction = 'right-wise' if self.degrees > 0 else 'left-wise'
        return f"Turned {direction} {abs(self.degrees)} deg."

    def error_message(self, error_type: str) -> str:
        return f"Bad angle {self.degrees}; use one of {self.VALID_DEGREES}."


class ObserveBase(BaseAction):
    def success_message(self, **kwargs) -> str:
        return f"Seen: {kwargs.get('answer', 'nothing')}!"


class ObserveAction(ObserveBase):
    def execute(self, room, agent, **kwargs):
        if not visible_objects:
            answer = "Empty view."
            return answer
        final_answer = pairwise_answer
        if local_answer:
            final_answer += (
                f"\\nNear pairs, your facing as north:\\n{local_answer}"
            )
        return final_answer


class TermAction(BaseAction):
    def success_message(self, **kwargs) -> str:
        return "Stopped."


class QueryBase(BaseAction):
    def error_message(self, error_type: str) -> str:
        return f"Query refused: {error_type}"


class QueryAction(QueryBase):
    def success_message(self, **kwargs) -> str:
        return f"Location of {self.obj}: {kwargs.get('answer','unknown')}"

    def execute(self, room, agent, **kwargs):
        if self.obj != 'initial_pos' and (not room.has_object(self.obj)):
            return ActionResult(False, self.get_feedback(False, "no such thing"), str(self), 'query', {})
        observed_items = set(kwargs.get('observed_items', []))
        if observed_items is not None and self.obj != 'initial_pos' and self.obj not in observed_items:
            return ActionResult(False, self.get_feedback(False, "not seen yet"), str(self), 'query', {})
"""
EXPLORATION_SRC = """\
class ExplorationManager:
    def execute_action_sequence(self, action_sequence):
        \"\"\"Run the moves, then the final action.\"\"\"
        for action in action_sequence.motion_actions:
            if not result.success:
                obs_result = self._execute_and_update(ObserveAction())
                obs_result.message = f"Rest dropped, looked instead: {obs_result.message}"
                return action_results
"""

SYSTEM = "Reply in two parts:\nREASON: reasoning\nANSWER: answer"
FOOTER = "Use this layout:\nREASON:\n[plan the next move]\nANSWER:\nActions: [ ... ]"


def write_clone(root: Path, drop: str | None = None) -> Path:
    """A clone of theirs in the originals folder `root`, at the pinned commit."""
    clone = root / NAME
    files = {PROMPTER: PROMPTER_SRC, UTILS: UTILS_SRC, FALSE_BELIEF: FB_SRC, "vagen/env/spatial/env.py": "\n",
             ACTIONS: ACTIONS_SRC, EXPLORATION: EXPLORATION_SRC}  # fmt: skip
    for rel, text in files.items():
        if rel == drop:
            continue
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text(text)
    write_scenes(clone / SCENES)
    (clone / ".git").mkdir()
    (clone / ".git" / "HEAD").write_text(COMMIT + "\n")
    return clone


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "originals"
    path = write_clone(root)
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(root))
    return path


def _task(cls, **options):
    options, _ = resolve_options(cls.originals, options)
    task = cls(**options)
    task.preflight()
    return task


def test_registered_repository_and_status(clone: Path) -> None:
    repo = get_repo(NAME)
    assert repo.commit == COMMIT and repo.sparse and SCENES in repo.needs
    row = next(r for r in status(clone.parent) if r.repo.name == NAME)
    assert row.ok, (row.missing, row.text_errors)


def test_texts_and_scenes_default_to_the_clone(clone: Path) -> None:
    options, notices = resolve_options(ExploreTask.originals, {})
    assert options["texts"] == "original" and not notices
    assert Path(options["scenes"]) == clone / SCENES
    task = _task(ExploreTask)
    assert task.data_origin() == f"original@{COMMIT[:7]}"
    assert [i.id for i in task.instances(None, 0)] == ["tos-explore-run00", "tos-explore-run05"]


def test_first_observations_carry_their_texts_filled(clone: Path) -> None:
    task = _task(ExploreTask)
    task.reset(task.instances(1, 0)[0])
    obs = task.observe("player")
    assert obs.instructions == SYSTEM
    assert isinstance(obs.parts[0], TextPart) and obs.parts[0].text.startswith("You reason about space")
    assert obs.parts[-1].text == FOOTER
    step = task.step("FINAL ANSWER:\nActions: [Observe()]")
    assert step.feedback.endswith("\nTurns remaining: 19.")
    obs = task.observe("player")
    assert obs.parts[-1].text == FOOTER and "Turns remaining: 19." in obs.text
    bad = task.step("no actions here")  # theirs: the invalid message and a newline, no steps-left line
    assert bad.feedback == "Unusable reply: end with one final action.\n"
    done = task.step("FINAL ANSWER:\nActions: [Term()]")
    assert done.feedback == "All done" and task.done


def test_false_belief_instruction_is_theirs_filled(clone: Path) -> None:
    task = _task(FalseBeliefTask)
    task.reset(task.instances(1, 0)[0])
    task.step("FINAL ANSWER:\nActions: [Term()]")
    while task.phase == "probe":
        task.step("FINAL ANSWER:\n{}")
    texts = [p.text for p in task.observe("player").parts if isinstance(p, TextPart)]
    assert "4 things changed; 15 turns to find them.\n" in texts and texts[-1] == FOOTER


def test_a_text_the_clone_lacks_names_file_and_symbol(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "originals"
    write_clone(root)
    (root / NAME / PROMPTER).write_text(PROMPTER_SRC.replace("def task_finished_message", "def other"))
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(root))
    with pytest.raises(ConfigError, match=r"prompter\.py: PromptManager\.task_finished_message:return"):
        _task(ExploreTask)


def test_missing_file_is_an_error_too(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "originals"
    write_clone(root, drop=FALSE_BELIEF)
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(root))
    with pytest.raises(ConfigError, match=r"false_belief_prompts\.py: FALSE_BELIEF_INSTRUCTION"):
        _task(FalseBeliefTask)


def test_without_a_clone_texts_are_ours_with_one_notice() -> None:
    options, notices = resolve_options(ExploreTask.originals, {})
    assert options["texts"] == "ours" and len(notices) == 1 and options.get("scenes") is None
    task = _task(ExploreTask)
    assert task.data_origin() == "generated"
    task.reset(task.instances(1, 0)[0])
    obs = task.observe("player")
    assert obs.instructions.startswith("You reason about space") and "Step 1 of 20" in obs.parts[-1].text


def test_texts_ours_with_a_clone_keeps_our_words(clone: Path) -> None:
    task = _task(ExploreTask, texts="ours")
    task.reset(task.instances(1, 0)[0])
    assert task.observe("player").instructions.startswith("You reason about space")
    assert task.data_origin() == f"original@{COMMIT[:7]}"  # the scenes still come from the clone


def test_fidelity_stamp_in_config_after_a_small_run(clone: Path, tmp_path: Path) -> None:
    from playbench.cli import main

    out = tmp_path / "run"
    code = main(["run", "tos/explore", "--agent", "oracle", "--episodes", "1", "--out", str(out)])
    assert code in (0, None)
    stamp = json.loads((out / "config.json").read_text())["fidelity"]["tos/explore"]
    assert stamp["texts"] == f"original@{COMMIT[:7]}" and stamp["data"] == f"original@{COMMIT[:7]}"


def test_the_exploration_is_their_chat(clone: Path) -> None:
    """System, the first message, then each raw reply and the environment's answer + "\\n" + footer;
    an invalid reply's answer has no steps-left line; the joined text is what the wire carries."""
    task = _task(ExploreTask)
    task.reset(task.instances(1, 0)[0])
    first = task.observe("player")
    assert first.turns == [] and first.text.endswith("\n" + FOOTER)
    replies = ["REASON:\nlook\nANSWER:\nActions: [Observe()]", "ANSWER:\nActions: [Rotate(90)]"]
    results = [task.step(r).feedback for r in replies]
    obs = task.observe("player")
    assert [t.role for t in obs.turns] == ["user", "assistant", "user", "assistant"]
    texts = ["\n".join(p.text for p in t.parts) for t in obs.turns]
    assert texts[0] == first.text and texts[1] == replies[0] and texts[3] == replies[1]
    assert texts[2] == results[0] + "\n" + FOOTER and results[0].endswith("\nTurns remaining: 19.")
    assert obs.text == "Unusable reply: end with one final action.\n\n" + FOOTER
    assert task.step("ANSWER:\nActions: [Term()]").feedback == "All done" and task.done


def test_conversation_log_keeps_our_packed_observation(clone: Path) -> None:
    task = _task(ExploreTask, conversation="log")
    task.reset(task.instances(1, 0)[0])
    task.step("ANSWER:\nActions: [Observe()]")
    obs = task.observe("player")
    assert obs.turns is None and "Step 1: Actions: [Observe()]" in obs.text and obs.parts[-1].text == FOOTER


def _run05(**options):
    task = _task(ExploreTask, **options)
    task.reset(next(i for i in task.instances(None, 0) if i.id.endswith("run05")))
    return task


def test_turn_results_are_their_sentences_filled(clone: Path) -> None:
    """Observe(), Rotate, JumpTo, the close-pair note and an empty view: their methods' sentences
    around our entries, in their order and layout (the recorded run05 turns, placeholders filled)."""
    task = _run05()
    words = task.texts.feedback
    assert (
        words.original
        and words.nothing == "Empty view."
        and words.rotated_text(-90) == "Turned left-wise 90 deg."
    )
    first = task.step("ANSWER:\nActions: [Observe()]").feedback
    assert first == "Seen: Empty view.!\nTurns remaining: 19."
    second = task.step("ANSWER:\nActions: [Rotate(90), Observe()]").feedback
    assert second.startswith("Turned right-wise 90 deg. Seen: \n• shoes: front-slight-right, slightly far, ")
    assert "\nNear pairs, your facing as north:\n• shoes is north, near to rubberduck" in second
    assert second == render(RUN05_GPT52[1][1], words) + "\nTurns remaining: 18."
    third = task.step("ANSWER:\nActions: [JumpTo(blue door), Observe()]").feedback
    assert third == render(RUN05_GPT52[2][1], words) + "\nTurns remaining: 17."
    assert third.startswith("At blue door now. Seen: Empty view.!")


def test_failed_moves_and_queries_are_their_sentences(clone: Path) -> None:
    task = _run05()
    out = task.step("ANSWER:\nActions: [JumpTo(piano), Observe()]").feedback
    assert (
        out
        == "No jump to piano: unknown thing. Rest dropped, looked instead: Seen: Empty view.!\nTurns remaining: 19."
    )
    assert task.step("ANSWER:\nActions: [Query(shoes)]").feedback.startswith("Query refused: not seen yet\n")
    assert task.step("ANSWER:\nActions: [Query(piano)]").feedback.startswith("Query refused: no such thing\n")
    task.step("ANSWER:\nActions: [Rotate(90), Observe()]")
    assert task.step("ANSWER:\nActions: [Query(shoes)]").feedback.startswith("Location of shoes: (")
    assert task.texts.feedback.rotate_failed_text(45, [0, 90]) == "Bad angle 45; use one of [0, 90]."


def test_texts_ours_keeps_our_result_sentences(clone: Path) -> None:
    task = _run05(texts="ours")
    assert task.step("ANSWER:\nActions: [Rotate(90), Observe()]").feedback.startswith(render("<rot 90> "))
    assert not task.texts.feedback.original


def test_a_result_sentence_the_clone_lacks_names_file_and_symbol(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "originals"
    write_clone(root)
    (root / NAME / EXPLORATION).write_text(EXPLORATION_SRC.replace("obs_result.message =", "shown ="))
    monkeypatch.setenv("PLAYBENCH_ORIGINALS", str(root))
    with pytest.raises(
        ConfigError, match=r"exploration_manager\.py: ExplorationManager\.execute_action_sequence:message"
    ):
        _task(ExploreTask)
