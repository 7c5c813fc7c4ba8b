"""COMMA on the episode template: state digests, terminations, structured observation data and step info."""

import pytest

from playbench.core.episode import EPISODE_OVER, ParseError
from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import StepResult, Validity
from playbench.tasks.comma.modules import NAMES
from playbench.tasks.comma.task import CommaTask


def started(module: str, index: int = 0, **options) -> CommaTask:
    task = make_task(f"comma/{module}", **options)
    assert isinstance(task, CommaTask)
    task.reset(task.instances(index + 1, 0)[index])
    return task


def goal_images(task: CommaTask) -> list[bytes]:
    obs = task.observe(task.current_role())
    return [i.png for i in obs.images if i.label == "goal"]


# --- state() ------------------------------------------------------------------------------------
class SecretWireCutter(CommaTask):
    """A mutant: an empty solver reply secretly cuts a wrong wire (no strike, no word about it)."""

    def _on_parse_error(self, error: ParseError) -> StepResult:
        wrong = next(i for i in range(len(self.module.cut)) if i + 1 != self.module.answer)
        self.module.cut[wrong] = True
        return super()._on_parse_error(error)


def test_state_digest_catches_an_empty_reply_that_secretly_cuts_a_wire():
    honest = started("wire")
    mutant = SecretWireCutter(module="wire")
    mutant.reset(honest.instance)
    for task in (honest, mutant):
        before = (task.state_digest(), goal_images(task), task.observe("solver").legal_actions)
        result = task.step("")
        assert result.validity == Validity.UNPARSEABLE
        after = (task.state_digest(), goal_images(task), task.observe("solver").legal_actions)
        # what the old check compared (goal images, legal actions) cannot tell the two apart
        assert after[1:] == before[1:]
        if task is honest:
            assert after[0] == before[0]
        else:
            assert after[0] != before[0] and any(task.module.cut)


@pytest.mark.parametrize("module", NAMES)
def test_unparseable_and_invalid_replies_leave_the_state_digest_unchanged(module):
    task = started(module)
    digest = task.state_digest()
    for text in ("", "   \n  "):
        assert task.step(text).validity == Validity.UNPARSEABLE
        assert task.state_digest() == digest
    unavailable = [a for a in task.module.action_vocabulary() if a not in task.module.actions()]
    if unavailable:
        result = task.step(unavailable[0])
        assert result.validity == Validity.INVALID and result.reason == "unavailable"
        assert task.state_digest() == digest


def test_state_holds_the_hidden_game_and_changes_with_effective_moves():
    task = started("keypad")
    state = task.state()
    assert state["module"] == "keypad" and state["mistakes"] == 0 and state["solved"] is False
    assert state["puzzle"]["progress"] == 0 and "order" in state["puzzle"]  # the hidden column order
    before = task.state_digest()
    task.step(task.module.oracle_actions(0)[0])
    assert task.state_digest() != before and task.state()["puzzle"]["progress"] == 1
    maze = started("maze")
    assert "to_target" not in maze.state()["puzzle"]  # a table derived from the layout
    assert maze.state()["puzzle"]["mouse"] == list(maze.module.mouse)
    # a message changes nothing in the game, only the conversation
    digest = maze.state_digest()
    maze.step("What do I do?")
    assert maze.state_digest() == digest


# --- the template: turns, terminations, refusal ------------------------------------------------
def test_only_solver_turns_count_and_the_cap_is_max_steps():
    task = started("keypad", max_steps=2)
    assert task.max_steps == 2
    task.step("describe please")
    task.step("(expert) tell me the symbols")
    assert task.steps == task.session.turns == 1 and not task.done
    result = task.step("still thinking")
    assert task.done and task.termination == "step_cap"
    assert result.feedback.endswith("The conversation limit (2 turns) is reached: the game is over.")
    assert task.current_role() == "solver"  # the last message is not answered: the game is over
    refused = task.step("press_top_left_button")
    assert refused.validity == Validity.INVALID and refused.reason == "episode_over"
    assert refused.feedback == EPISODE_OVER
    assert task.outcome().termination == "step_cap" and task.outcome().steps == 2


def test_every_end_has_its_termination_and_no_metric_names_it():
    won = started("keypad")
    result = won.step("\n".join(won.module.oracle_actions(0)))
    assert won.outcome().termination == "goal_reached" and result.feedback.endswith("The game is won.")
    struck = started("memory", mistake_limit=1)
    wrong = next(a for a in struck.module.actions() if a not in struck.module.oracle_actions(0))
    assert "The mistake limit (1) is reached" in struck.step(wrong).feedback
    assert struck.outcome().termination == "mistake_limit"
    timed = started("keypad", seconds_per_turn=200)  # 06:00-09:59 runs out within three turns
    while not timed.done:
        result = timed.step("let me look again")
        if not timed.done:
            timed.step("(expert) take your time")
    assert timed.outcome().termination == "time_limit" and timed.steps < 20
    assert result.feedback.endswith("The timer ran out: the game is over.")
    for task in (won, struck, timed):
        assert "ended_by" not in task.outcome().metrics


def test_roles_are_checked_and_judge_observation_waits_for_the_end():
    task = started("led", judge=True)
    with pytest.raises(ValueError, match="unknown role"):
        task.observe("referee")
    assert "nothing to judge yet" in task.observe("judge").text
    with pytest.raises(RuntimeError, match="call reset"):
        CommaTask(module="led").step("press_top_left_button")
    with pytest.raises(ConfigError, match="not played by this task"):
        task.reset({**started("wire").instance.model_dump(), "id": "w"})


# --- observation data and step info -------------------------------------------------------------
def test_observation_data_holds_each_seats_public_facts():
    task = started("button", mistake_limit=3)
    obs = task.observe("solver")
    data = obs.data
    assert data["module"] == "button" and data["title"] == "Button Puzzle"
    assert data["turn"] == 1 and data["turn_limit"] == 20 and data["mistakes"] == 0
    assert data["mistake_limit"] == 3 and data["seconds_per_turn"] == 7
    assert data["actions"] == obs.legal_actions and data["clock"] == task.instance.start_clock
    assert data["messages"] == {"solver": 0, "expert": 0} and data["waits"] is True
    task.step("What colour should I look for?")
    expert = task.observe("expert").data
    assert expert["turn"] == 1 and expert["module"] == "button" and expert["expert_word_limit"] is None
    assert "mistakes" not in expert and "actions" not in expert  # the expert never sees the module
    hidden = {"answer", "order", "held", "strip", "puzzle"}
    assert not hidden & set(data) and not hidden & set(expert)


def test_step_info_says_what_the_reply_did():
    task = started("keypad")
    order = task.module.oracle_actions(0)
    result = task.step(f"{order[1]}\n{order[0]}")  # a strike, then the reply goes on
    info = result.info
    assert info["reply"] == "actions" and info["executed"] == [order[1], order[0]] and info["strikes"] == 1
    assert info["skipped"] == 0 and info["waited"] == 0 and info["mistakes"] == 1 and info["solved"] is False
    assert info["turn"] == 1 and info["step"] == 1 and info["clock"] == task.instance.start_clock
    assert task.state()["puzzle"]["progress"] == 1
    expert = task.step("press the star")  # the expert answers every solver turn
    assert expert.info == {"reply": "message", "cut": False, "step": 1}
    assert task.step("").info["reply"] == "empty"
    assert task.step("").info["reply"] == "empty"  # the expert's empty answer
    message = task.step("help")
    assert message.info["reply"] == "message" and message.info["turn"] == 3
    stopping = started("keypad", stop_at_strike=True)  # ours: a strike ends the reply
    info = stopping.step(f"{order[1]}\n{order[0]}").info
    assert info["executed"] == [order[1]] and info["skipped"] == 1
    button = started("button")
    gone = button.step("release_button")
    assert gone.info["unavailable"] == ["release_button"] and gone.info["executed"] == []


# --- the judge phase ----------------------------------------------------------------------------
def test_the_judge_phase_labels_a_failed_episode_with_the_same_metrics():
    task = started("keypad", judge=True, max_steps=2)
    wrong = next(a for a in task.module.actions() if a not in task.module.oracle_actions(0)[:1])
    task.step(wrong)
    task.step("that was wrong")  # the expert
    task.step(wrong)  # the same strike in the same state (no key lit): a repetition loop
    assert task.judging and task.current_role() == "judge" and not task.done
    obs = task.observe("judge")
    assert (
        obs.data == {"judging": "failure_label"} and "Outcome: failed (turn limit) after 2 turns" in obs.text
    )
    assert obs.legal_actions == [
        "label: roleplay",
        "label: misinterpretation",
        "label: repetition loop",
        "label: miscommunication",
    ]
    assert task.oracle_action("judge") == "label: repetition loop"
    assert task.oracle_action("solver") is None  # the play is over
    assert task.step("Clearly a label: Repetition Loop").validity == Validity.EFFECTIVE and task.done
    metrics = task.outcome().metrics
    assert metrics["judge_label"] == "repetition loop" and metrics["judge_unparseable"] is False
    assert metrics["judge_repetition_loop"] is True and metrics["judge_roleplay"] is False
    assert task.outcome().termination == "step_cap"
    struck = started("keypad", judge=True, mistake_limit=1)
    struck.step(wrong)
    assert "Outcome: failed (mistake limit)" in struck.observe("judge").text
    assert struck.oracle_action("judge") == "label: miscommunication"
