"""The COMMA conversation task: registration, turn protocol, limits, metrics, judge, agents, LLM path."""

import asyncio
import io
import json
import re

import pytest

from playbench.agents import AgentSpec
from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.registry import all_specs, make_task
from playbench.core.types import Validity
from playbench.render.draw2d import to_png
from playbench.runner.run import RunConfig, execute
from playbench.tasks.comma.modules import NAMES
from playbench.tasks.comma.modules.keypad import ACTION_ORDER, POSITIONS
from playbench.tasks.comma.summaries import summarize, turn_curve
from playbench.tasks.comma.task import CommaTask, cut_words, find_action, parse_judge_label
from playbench.testing.scripted_server import ScriptedServer, last_user_text, system_text

MINE = ("button", "color", "keypad", "led", "memory")


def task_with(module: str, **options) -> CommaTask:
    task = make_task(f"comma/{module}", **options)
    assert isinstance(task, CommaTask)
    return task


def started(module: str, index: int = 0, **options) -> CommaTask:
    task = task_with(module, **options)
    task.reset(task.instances(index + 1, 0)[index])
    return task


def records(out) -> list[dict]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]


# --- registration and instances -------------------------------------------------------------------
def test_every_puzzle_and_all_are_registered():
    ids = {s.id for s in all_specs() if s.id.startswith("comma/")}
    assert ids == {f"comma/{n}" for n in NAMES} | {"comma/all"}


def test_all_deals_the_modules_round_robin_with_stable_ids():
    task = task_with("all", instances_per_module=2)
    keypad_only = [i for i in task.instances(None, 0) if i.module == "keypad"]
    assert [i.id for i in keypad_only] == ["keypad-0000", "keypad-0001"]
    assert keypad_only[1] == task_with("keypad").instances(2, 0)[1]  # the same instance in both tasks
    first = task_with("all").instances(10, 0)
    assert [i.module for i in first] == list(NAMES)


def test_default_set_has_100_instances_per_puzzle_with_variety():
    instances = task_with("keypad").instances(None, 0)
    assert len(instances) == 100
    assert len({json.dumps(i.params, sort_keys=True) for i in instances}) == 100


def test_bad_options_and_instances_are_clear_errors():
    with pytest.raises(ConfigError, match="max_steps"):
        task_with("keypad", max_steps=0)
    with pytest.raises(ConfigError, match=r"unknown option 'max_turns'.*max_steps"):  # renamed, no alias
        task_with("keypad", max_turns=5)
    with pytest.raises(ConfigError, match="module"):
        make_task("comma/all", module="bomb")
    task = task_with("keypad")
    with pytest.raises(ConfigError, match="not played by this task"):
        task.load_instance({**task_with("led").instances(1, 0)[0].model_dump(), "id": "x"})


def test_the_module_is_fixed_by_the_task_id_and_cannot_be_swapped_with_set(tmp_path, capsys):
    # `--set module=all` on comma/wire used to play button, dog, ... instances recorded as comma/wire
    with pytest.raises(ConfigError, match=r"module defines the task comma/wire.*run comma/all instead"):
        make_task("comma/wire", module="all")
    with pytest.raises(ConfigError, match=r"module defines the task comma/all.*run comma/led instead"):
        make_task("comma/all", module="led")
    with pytest.raises(ConfigError, match=r"module=\"wire\".*comma/button.*run comma/wire instead"):
        make_task("comma/button", module="wire")
    assert make_task("comma/led", module="led").module_names == ("led",)  # naming its own is fine
    # one class behind every id: the registry, not a class per id, pins the module
    assert {s.entry_point for s in all_specs() if s.id.startswith("comma/")} == {
        "playbench.tasks.comma.task:CommaTask"
    }
    assert main(["instances", "comma/wire", "-n", "1", "--set", "module=all"]) == 2
    argv = ["run", "comma/button", "--agent", "random", "--episodes", "1", "--out", str(tmp_path / "r")]
    assert main([*argv, "--set", "module=wire"]) == 2
    assert "run comma/wire instead" in capsys.readouterr().err and not (tmp_path / "r").exists()


# --- the turn protocol ------------------------------------------------------------------------------
def test_a_line_carries_out_the_first_of_the_modules_actions_it_names():
    # as the authors' execute_action: a name counts anywhere in the line, in any case, and a line
    # naming several carries out the one that comes first in the module's own list
    names = ["cut_wire_1", "cut_wire_2", "press_top_left_button"]
    assert find_action("I will CUT_WIRE_1 now", names) == "cut_wire_1"
    assert find_action("cut_wire_2, no wait, cut_wire_1", names) == "cut_wire_1"
    assert find_action("recut_wire_2x", names) == "cut_wire_2"
    assert find_action("please press the top left button", names) is None


def test_the_expert_answers_every_solver_turn_and_gets_the_keypad_page_as_a_picture():
    task = started("keypad")
    obs = task.observe("solver")
    assert [p.label for p in obs.images] == ["module"] and obs.legal_actions == [
        f"press_{p}_button" for p in ACTION_ORDER
    ]
    result = task.step("I see four symbols: a star, a lollipop, a C with a dot and an omega.")
    assert result.validity == Validity.EFFECTIVE and task.current_role() == "expert"
    expert = task.observe("expert")
    assert [i.label for i in expert.images] == ["manual"] and expert.data["manual_image"] is True
    assert "Column 1 (top to bottom)" not in expert.instructions and "in the picture" in expert.instructions
    assert "lollipop" in expert.text and "press_top_left_button" not in expert.text
    task.step("Press the lollipop first.")
    assert (
        task.current_role() == "solver" and "EXPERT: Press the lollipop first." in task.observe("solver").text
    )
    acted = task.step(task.module.oracle_actions(0)[0])  # a reply that acts is answered too
    assert acted.info["reply"] == "actions" and task.current_role() == "expert"
    assert task.session.turns == 2
    text = started("keypad", expert_manual="text")  # ours: the columns described in words
    text.step("hello")
    assert (
        not text.observe("expert").images
        and "Column 1 (top to bottom)" in text.observe("expert").instructions
    )
    quiet = started("keypad", expert_answers="messages")  # ours: only replies without actions
    quiet.step(quiet.module.oracle_actions(0)[0])
    assert quiet.current_role() == "solver"
    quiet.step("what next?")
    assert quiet.current_role() == "expert"


def test_action_lines_execute_in_order_and_go_on_after_a_strike():
    task = started("keypad")
    order = task.module.oracle_actions(0)
    wrong = order[1]
    result = task.step(f"Here goes:\n{wrong.upper()}\n{order[0]}")
    assert result.validity == Validity.EFFECTIVE and task.session.mistakes == 1
    assert task.module.progress == 1 and "not carried out" not in result.feedback
    assert result.feedback == f"{wrong}: That action was a mistake.\n{order[0]}: The action was carried out."
    task.step("go on")  # the expert
    result = task.step("\\n".join(order[1:]))  # a terminal user separates lines with a typed \n
    assert task.module.solved and task.done and "won" in result.feedback
    stopping = started("keypad", stop_at_strike=True)  # ours: a strike ends the reply
    result = stopping.step(f"{wrong}\n{order[0]}")
    assert stopping.module.progress == 0 and "not carried out" in result.feedback


def test_a_line_naming_two_actions_runs_the_first_of_the_module_and_rich_feedback_says_so():
    task = started("keypad")
    first, second = task.module.oracle_actions(0)[:2]
    vocabulary = task.module.action_vocabulary()
    earlier = min(first, second, key=vocabulary.index)
    result = task.step(f"{second} and then {first}")
    assert task.session.actions_executed == 1 and result.info["executed"] == [earlier]
    assert "One action per line" not in result.feedback  # the original says nothing about it
    rich = started("keypad", rich_feedback=True)
    result = rich.step(f"{second} and then {first}")
    assert "only the first action named on a line is carried out" in result.feedback
    later = second if earlier == first else first
    assert f"({earlier}; not {later})" in result.feedback
    assert "One action per line" in rich.observe("solver").text  # the transcript keeps the note


def a_strike(module: str) -> tuple[int, str]:
    """An instance and a reply whose last line is a strike there."""
    for index in range(60):
        replies = list(started(module, index).module.actions())
        if module == "button":
            replies.append("hold_button\nrelease_button")
        for reply in replies:
            trial = started(module, index)
            trial.step(reply)
            if trial.session.mistakes:
                return index, reply
    raise AssertionError(f"no strike found on {module}")


@pytest.mark.parametrize("module", NAMES)
def test_default_feedback_says_only_mistake_or_done_and_rich_feedback_gives_the_reason(module):
    index, reply = a_strike(module)
    result = started(module, index).step(reply)
    *before, last = result.feedback.split("\n")
    action = reply.split("\n")[-1]
    assert last == f"{action}: That action was a mistake."  # no rule named, as the original
    assert all(line.endswith(": The action was carried out.") for line in before)
    rich = started(module, index, rich_feedback=True).step(reply)
    assert "Strike" in rich.feedback and rich.feedback != result.feedback


def test_unavailable_action_is_invalid_and_changes_nothing():
    task = started("button")
    result = task.step("release_button")
    assert result.validity == Validity.INVALID and result.reason == "unavailable"
    assert not task.module.held and task.session.mistakes == 0


def test_empty_reply_uses_the_turn_and_an_empty_expert_reply_is_recorded():
    task = started("led")
    assert task.step("   ").validity == Validity.UNPARSEABLE and task.session.turns == 1
    assert task.current_role() == "expert"
    assert task.step("").validity == Validity.UNPARSEABLE
    assert "(no reply)" in task.observe("solver").text


def test_the_clock_runs_down_per_conversation_turn_and_is_drawn():
    task = started("button", seconds_per_turn=9)
    start = task.instance.start_clock
    before = task.observe("solver").images[0].png
    task.step("Hello expert")
    assert task.session.clock == start - 9
    task.step("Hi")  # the expert's reply is part of the same turn
    assert task.session.clock == start - 9
    assert task.observe("solver").images[0].png != before


def test_a_wait_line_lets_the_timer_run_inside_the_turn_on_the_real_time_puzzles():
    task = started("dog")
    start = task.instance.start_clock
    assert "wait_N_seconds" in task.observe("solver").instructions
    result = task.step("wait_3_seconds")
    assert result.info["waited"] == 3 and result.validity == Validity.EFFECTIVE
    assert task.session.clock == start - 7 - 3 and task.state()["waited"] == 3
    task.step("ok")
    wait = (task.session.clock - task.module.dogs) % 10
    task.step(f"wait_{wait}_seconds\nsubmit" if wait else "submit")
    assert task.module.solved and task.session.mistakes == 0
    assert started("dog").step("wait_99_seconds").validity == Validity.INVALID  # waits are 1-59 s
    assert "wait_N_seconds" not in started("wire").observe("solver").instructions
    assert started("wire").step("wait_3_seconds").info["reply"] == "message"  # no timer to wait for
    clocked = started("dog", turn_clock=True)  # ours: time passes only with turns
    assert "wait_N_seconds" not in clocked.observe("solver").instructions
    assert clocked.step("wait_3_seconds").info["reply"] == "message"


def test_default_button_instances_are_all_yellow():
    instances = task_with("button").instances(None, 0)
    assert len(instances) == 100 and {i.params["button_color"] for i in instances} == {"yellow"}
    assert {i.params["strip_color"] for i in instances} == {"red", "white", "yellow", "blue", "green"}
    task = started("button")
    assert task.observe("solver").legal_actions == ["hold_button"]
    every = task_with("button", button_colors="all").instances(None, 0)  # ours: four colours
    assert {i.params["button_color"] for i in every} == {"red", "blue", "yellow", "white"}


def test_turn_limit_and_mistake_limit_end_the_episode():
    task = started("keypad", max_steps=3)
    for _ in range(3):
        task.step("hmm, let me think")
        if not task.done:
            task.step("describe the symbols please")
    assert task.done and task.outcome().termination == "step_cap"
    assert "ended_by" not in task.outcome().metrics
    assert task.outcome().metrics["conversation_length"] == 3
    task = started("keypad", mistake_limit=2, solver_hints=True)
    wrong = task.module.oracle_actions(0)[1]
    result = task.step(f"{wrong}\n{wrong}\n{task.module.oracle_actions(0)[0]}")
    assert task.done and task.outcome().termination == "mistake_limit"
    assert result.info["skipped"] == 1 and task.module.progress == 0  # the limit stops the reply
    assert "after 2 mistakes" in task.observe("solver").instructions
    assert "after 2 mistakes" not in started("keypad", mistake_limit=2).observe("solver").instructions


def test_expert_word_limit_cuts_messages():
    assert cut_words("one two\nthree four", 3) == "one two\nthree [cut at 3 words]"
    task = started("led", expert_word_limit=2)
    task.step("help")
    task.step("press the top left button")
    assert "press the [cut at 2 words]" in task.observe("solver").text
    assert "within 2 words" in task.observe("expert").instructions


def test_messages_are_never_cut_and_message_chars_cuts_and_says_so():
    long = "Left to right the symbols are " + "a star, " * 400  # 3,230 characters
    task = started("keypad")
    solver = task.step(long)
    expert = task.step("Describe it again: " + "slowly " * 400)
    assert solver.info["cut"] is False and expert.info["cut"] is False
    assert long.strip() in task.observe("expert").text  # the whole message, as the authors' loop
    assert (
        "slowly " * 399 in task.observe("solver").text and "[message cut]" not in task.observe("solver").text
    )
    cut = started("keypad", message_chars=2000)  # ours: a cut, and the step info says so
    assert cut.step(long).info["cut"] is True
    assert long.strip()[:2000] + " [message cut]" in cut.observe("expert").text
    assert long.strip() not in cut.observe("expert").text
    assert cut.step("short answer").info["cut"] is False
    assert cut.step("fine").info["cut"] is False


def test_transcripts_are_plain_solver_and_expert_lines_and_solver_hints_number_the_turns():
    task = started("wire")
    task.step("I see four wires. What now?")
    task.step("Cut the second wire.")
    task.step("cut_wire_1")
    expert_view = task.session.transcript("expert")
    assert expert_view == (
        "SOLVER: I see four wires. What now?\n\nEXPERT: Cut the second wire.\n\nSOLVER: cut_wire_1"
    )
    solver_view = task.session.transcript("solver")
    assert solver_view.startswith("SOLVER: I see four wires. What now?\n\nEXPERT: Cut the second wire.")
    assert "\n\nSOLVER: cut_wire_1\n\nENVIRONMENT: cut_wire_1: " in solver_view  # its own results only
    assert "[turn" not in task.observe("solver").text + task.observe("expert").text
    hinted = started("wire", solver_hints=True)  # ours: turn numbers in the solver's copy
    hinted.step("I see four wires. What now?")
    hinted.step("Cut the second wire.")
    assert "[turn 1] You: I see four wires." in hinted.observe("solver").text
    assert "[turn 1] Expert: Cut the second wire." in hinted.observe("solver").text
    assert hinted.session.transcript("expert") == expert_view.split("\n\nSOLVER: cut_wire_1")[0]


@pytest.mark.parametrize("module", ["dog", "password"])
def test_a_question_naming_submit_carries_it_out_as_the_authors_matching_does(module):
    task = started(module)
    result = task.step("Should I submit now?")
    assert result.info["reply"] == "actions" and result.info["executed"] == ["submit"]


def test_keypad_lights_is_an_option_and_the_default_picture_shows_no_press():
    for lights in (False, True):
        task = started("keypad", keypad_lights=lights)
        clock = task.session.clock  # the same clock before and after, so only a key could differ
        before = to_png(task.module.render(clock))
        assert not task.step(task.module.oracle_actions(0)[0]).info["strikes"]
        assert (to_png(task.module.render(clock)) != before) is lights
        assert ("Lit keys" in task.module.describe(clock)) is lights


def test_repetition_loop_is_a_repeated_incorrect_state_action_pair():
    task = started("keypad")
    wrong = task.module.oracle_actions(0)[1]
    task.step(wrong)
    assert task.outcome().metrics["repetition_loop"] is False
    task.step("(expert) try again")
    task.step(wrong)  # no key lit, as before: the same state
    metrics = task.outcome().metrics
    assert metrics["repetition_loop"] is True and metrics["repeated_mistakes"] == 1


def turn(task: CommaTask, solver_text: str, expert_text: str = "(expert) go on") -> None:
    """One conversation turn: the solver's reply and, unless the game ended, the expert's answer."""
    task.step(solver_text)
    if not task.done:
        task.step(expert_text)


def test_repetition_loops_are_found_on_the_real_time_puzzles_too():
    # the countdown never shows the same time twice: the state keeps only what the rules read of it
    task = task_with("button", button_colors="all")
    task.reset(next(i for i in task.instances(40, 0) if i.params["button_color"] in ("yellow", "blue")))
    turn(task, "tap_button")  # a hold-button tapped: a strike, whatever the time
    turn(task, "I tapped it, what now?")
    turn(task, "tap_button")  # the same mistake in the same situation, two turns later
    metrics = task.outcome().metrics
    assert metrics["mistakes"] == 2 and metrics["repetition_loop"] is True

    task = task_with("dog")
    task.reset(next(i for i in task.instances(20, 0) if i.params["dogs"] != i.start_clock % 10))
    turn(task, "submit")  # turn 1: the wrong last digit
    turn(task, "submit")  # turn 2: another wrong digit (7 s later), another situation
    assert task.outcome().metrics["mistakes"] == 2 and task.outcome().metrics["repetition_loop"] is False
    for _ in range(8):
        turn(task, "How many dogs do you need?", "(expert) wait")
    task.step("submit")  # turn 11: 70 s after turn 1, the same last digit again
    metrics = task.outcome().metrics
    assert metrics["mistakes"] == 3 and metrics["repetition_loop"] is True


def test_turn_limit_curves_are_flat_metrics_and_aggregate():
    task = started("led")
    wrong = next(a for a in task.module.actions() if a not in task.module.oracle_actions(0))
    task.step(wrong)
    while not task.done:
        task.step(task.oracle_action(task.current_role()))
    metrics = task.outcome().metrics
    n = task.session.turns
    assert metrics["success_at_01"] is False and metrics[f"success_at_{n:02d}"] is True
    assert metrics["mistakes_at_01"] == 1 and metrics["mistakes_at_20"] == 1
    assert all(isinstance(v, (bool, int, float, str)) for v in metrics.values())
    curve = turn_curve([{"success": True, "metrics": metrics}])
    assert curve["k"] == list(range(1, 21)) and curve["success_rate"][-1] == 1.0
    summary = summarize([{"success": True, "instance_id": "led-0000", "metrics": metrics}])
    assert summary["by_module"]["led"]["PSR"] == 100.0 and summary["overall"]["AM"] == 1.0


def test_overall_averages_across_puzzles_as_the_papers_overall_column():
    def episode(module: str, success: bool, mistakes: int) -> dict:
        metrics = {"module": module, "partial_score": float(success), "mistakes": mistakes}
        return {"success": success, "metrics": metrics | {"conversation_length": 1 if success else 20}}

    # an uneven set (e.g. --episodes 3 of comma/all): two wires solved, one memory failed
    overall = summarize([episode("wire", True, 0), episode("wire", True, 0), episode("memory", False, 6)])
    assert overall["overall"]["SR"] == 50.0 and overall["overall"]["PSR"] == 50.0
    assert overall["overall"]["AM"] == 3.0 and overall["overall"]["ACL"] == 10.5
    assert overall["overall"]["n"] == 3 and overall["overall"]["puzzles"] == 2


@pytest.mark.parametrize("module", MINE)
def test_oracle_pair_needs_exactly_optimal_steps(module):
    task = task_with(module)
    for instance in task.instances(25, 3):
        task.reset(instance)
        while not task.done:
            task.step(task.oracle_action(task.current_role()))
        assert task.outcome().success and task.session.turns == instance.optimal_steps


def test_the_oracle_solver_describes_and_asks_then_does_what_the_expert_says():
    task = started("wire")
    first = task.oracle_action("solver")
    assert "wires, from top to bottom" in first and "cut wire 1" in first and "cut_wire" not in first
    assert task.step(first).info["reply"] == "message"  # a description never names an action
    task.step("cut wire 2\\nCut_Wire_3.")  # a person's answer: exact action lines, any spelling
    assert task.oracle_action("solver") == "cut_wire_2\ncut_wire_3"
    task.step("I am not sure; describe it again")
    task.reset(task.instance)
    task.step(task.oracle_action("solver"))
    task.step("no idea, sorry")  # an answer without action lines: the oracle solver asks again
    assert task.oracle_action("solver").endswith("Tell me one action per line.")


def test_realtime_oracle_waits_inside_its_turn_or_by_messaging_with_the_turn_clock():
    for module in ("button", "dog"):
        instances = task_with(module).instances(40, 0)
        assert {i.optimal_steps for i in instances} == {2}  # describe, act: no turn spent waiting
    task = task_with("button")
    task.reset(task.instances(1, 0)[0])
    task.step(task.oracle_action("solver"))  # the description
    task.step(task.oracle_action("expert"))
    answer = task.oracle_action("solver")
    assert re.fullmatch(r"hold_button\n(wait_\d+_seconds\n)?release_button", answer)
    clocked = task_with("button", turn_clock=True)  # ours: the old clock, waiting costs turns
    instance = next(i for i in clocked.instances(60, 0) if i.optimal_steps > 3)
    clocked.reset(instance)
    clocked.step(clocked.oracle_action("solver"))  # the description
    clocked.step(clocked.oracle_action("expert"))  # hold now
    clocked.step(clocked.oracle_action("solver"))
    instruction = clocked.oracle_action("expert")
    assert "release when the timer shows" in instruction and "Not yet" in instruction
    assert clocked.session.lines_named_in(instruction) == []  # so the solver waits a turn


# --- judge ------------------------------------------------------------------------------------------
def test_judge_labels_failed_episodes_and_unparseable_verdicts_are_recorded():
    assert parse_judge_label("Reasoning... label: Repetition Loop") == "repetition loop"
    assert parse_judge_label("It was clearly miscommunication.") == "miscommunication"
    assert parse_judge_label("roleplay or misinterpretation?") is None
    assert parse_judge_label("label: Role-play") == parse_judge_label("label: role play") == "roleplay"
    task = started("keypad", judge=True, max_steps=1)
    assert task.roles == ("solver", "expert", "judge")
    task.step("what now?")
    assert task.current_role() == "judge" and not task.done
    obs = task.observe("judge")
    assert "true state before this turn" in obs.text and "label:" in obs.instructions
    assert task.step("no idea").validity == Validity.UNPARSEABLE and task.done
    metrics = task.outcome().metrics
    assert metrics["judge_label"] == "unparseable" and metrics["judge_unparseable"] is True
    solved = started("keypad", judge=True)
    solved.step("\n".join(solved.module.oracle_actions(0)))
    assert solved.done and "judge_label" not in solved.outcome().metrics


# --- agents through the runner -------------------------------------------------------------------
def test_random_solver_with_oracle_expert_and_oracle_pair_through_the_runner(tmp_path):
    out = tmp_path / "r"
    config = RunConfig(
        tasks=["comma/led"],
        agents={"solver": AgentSpec("random"), "expert": AgentSpec("oracle")},
        out=str(out),
        episodes=4,
    )
    summary = asyncio.run(execute(config))
    recs = records(out)
    assert len(recs) == 4 and all(r["error"] is None for r in recs)
    assert all(r["metrics"]["solver_messages"] == 0 for r in recs)  # the random solver only acts
    extra = summary["tasks"]["comma/led"]["extra"]
    assert set(extra) >= {"overall", "by_module", "turn_limit_curve"}
    out2 = tmp_path / "o"
    assert main(["run", "comma/all", "--agent", "oracle", "--episodes", "10", "--out", str(out2)]) == 0
    assert all(r["success"] and r["steps"] == r["optimal_steps"] for r in records(out2))


# --- the LLM path ---------------------------------------------------------------------------------
def keypad_players(symbols: list[str]):
    """A scripted 'solver model' and 'expert model' that read only their prompts.

    The solver first sends a malformed (empty) reply, then describes the symbols (a vision model would
    read them off the image; the script is told them), then types the action names the expert gave.
    The expert parses the manual's columns out of its system prompt (the text-only manual) and
    answers the description, or asks for one.
    """

    def respond(request: dict) -> str:
        system, user = system_text(request), last_user_text(request)
        if "You are the EXPERT" in system:
            found = re.findall(r"symbols: (.+?)\.", user)
            if not found:
                return "Please describe the four symbols."
            described = found[-1].split(", ")
            columns = re.findall(r"Column \d \(top to bottom\):\n((?:  .*\n?)+)", system)
            for column in columns:
                listed = [line.split(". ", 1)[1].split("  -")[0] for line in column.strip().splitlines()]
                if all(s.split(" ")[-1] in listed for s in described):
                    ordered = sorted(described, key=lambda s: listed.index(s.split(" ")[-1]))
                    return "Press in this order:\n" + "\n".join(
                        f"press_{s.rsplit(' ', 1)[0].replace(' ', '_')}_button" for s in ordered
                    )
            return "I could not find those symbols; describe them again."
        assert "You are the SOLVER" in system
        assert any(p["type"] == "image_url" for p in request["messages"][-1]["content"])
        if "(nothing has been said yet)" in user:
            return ""  # malformed: an empty reply
        if "My keypad symbols" not in user:
            listing = ", ".join(f"{p.replace('_', ' ')} {s}" for p, s in zip(POSITIONS, symbols, strict=True))
            return f"My keypad symbols: {listing}."
        advice = user.rsplit("EXPERT:", 1)[1]
        return "\n".join(re.findall(r"press_\w+_button", advice))

    return respond


def test_solver_and_expert_llms_talk_over_the_real_sdk(tmp_path):
    task = task_with("keypad")
    symbols = task.instances(1, 0)[0].params["symbols"]
    out = tmp_path / "llm"
    with ScriptedServer(keypad_players(symbols)) as srv:
        argv = [
            "run", "comma/keypad", "--agent", "llm", "--model", "openai:solver", "--expert-agent", "llm",
            "--expert-model", "openai:expert", "--base-url", srv.base_url, "--episodes", "1", "--out", str(out),
            "--set", "expert_manual=text",
        ]  # fmt: skip
        assert main(argv) == 0
        models = [r["model"] for r in srv.requests]
    rec = records(out)[0]
    assert rec["error"] is None and rec["success"], rec
    assert rec["metrics"]["conversation_length"] == 3 and rec["metrics"]["mistakes"] == 0
    assert models == ["solver", "expert", "solver", "expert", "solver"]  # the expert answers every turn
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert [s["validity"] for s in steps] == [
        "unparseable",
        "effective",
        "effective",
        "effective",
        "effective",
    ]
    assert steps[3]["role"] == "expert" and steps[3]["images"] == []
    assert "My keypad symbols" in steps[3]["observation"]


def test_an_expert_model_answers_a_reply_that_acts_and_its_manual_page_is_in_the_run_files(tmp_path):
    """The authors' loop: the expert speaks after every solver turn, actions or not. The expert's
    instructions (with the manual) and its manual page (a picture) are auditable from the run files."""
    expert_requests: list[dict] = []

    def respond(request: dict) -> str:
        if "You are the EXPERT" in system_text(request):
            expert_requests.append(request)
            return "Noted."
        return "press_top_left_button"  # the solver acts every turn and never asks

    out = tmp_path / "acts"
    with ScriptedServer(respond) as srv:
        argv = [
            "run", "comma/keypad", "--agent", "llm", "--model", "openai:solver", "--expert-agent", "llm",
            "--expert-model", "openai:expert", "--base-url", srv.base_url, "--episodes", "1",
            "--set", "max_steps=3", "--out", str(out),
        ]  # fmt: skip
        assert main(argv) == 0
        models = [r["model"] for r in srv.requests]
    rec = records(out)[0]
    assert rec["error"] is None and not rec["success"]
    assert models[:4] == ["solver", "expert", "solver", "expert"]
    assert "press_top_left_button" in last_user_text(expert_requests[0])  # it sees the acting reply
    assert any(p["type"] == "image_url" for p in expert_requests[0]["messages"][-1]["content"])
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    expert = next(s for s in steps if s["role"] == "expert")
    assert "MANUAL - Keypad Puzzle" in expert["instructions"] and "in the picture" in expert["instructions"]
    assert [i["label"] for i in expert["images"]] == ["manual"]
    assert (out / rec["trajectory"]).parent.joinpath(expert["images"][0]["file"]).is_file()
    solver = next(s for s in steps if s["role"] == "solver")
    assert "You are the SOLVER" in solver["instructions"]


def test_judge_model_through_the_cli_labels_failures_and_records_unparseable_verdicts(tmp_path):
    verdicts = iter(["The solver pressed at random.\nlabel: Misinterpretation", "I cannot tell."])
    judge_requests: list[dict] = []

    def respond(request: dict) -> str:
        judge_requests.append(request)  # only the judge talks: the random pair never asks a model
        return next(verdicts)

    out = tmp_path / "judged"
    with ScriptedServer(respond) as srv:
        argv = [
            "run", "comma/password", "--agent", "random", "--judge-model", "openai:judge",
            "--base-url", srv.base_url, "--episodes", "2", "--out", str(out), "--no-images",
        ]  # fmt: skip
        assert main(argv) == 0
    recs = records(out)
    assert [r["success"] for r in recs] == [False, False]  # a random password never comes out
    assert [r["metrics"]["judge_label"] for r in recs] == ["misinterpretation", "unparseable"]
    assert recs[0]["metrics"]["judge_misinterpretation"] is True and recs[1]["metrics"]["judge_unparseable"]
    system, user = system_text(judge_requests[0]), last_user_text(judge_requests[0])
    for label in (
        "roleplay",
        "misinterpretation",
        "repetition loop",
        "miscommunication",
        "label: <category>",
    ):
        assert label in system
    assert "Manual the expert held" in user and "true state before this turn" in user
    assert "Outcome: failed (turn limit) after 20 turns" in user
    summary = json.loads((out / "summary.json").read_text())
    counts = summary["tasks"]["comma/password"]["extra"]["judge_labels"]
    assert counts == {"misinterpretation": 1, "unparseable": 1}


def test_instances_do_not_depend_on_the_runs_turn_or_mistake_limit():
    default = task_with("color").instances(6, 0)
    assert task_with("color", max_steps=3, mistake_limit=1).instances(6, 0) == default
    assert all(i.optimal_steps > 3 for i in default)  # the oracle pair needs more than the short run
    task = started("color", max_steps=3)
    while not task.done:
        task.step(task.oracle_action(task.current_role()))
    assert task.outcome().termination == "step_cap"


def test_manuals_reach_the_expert_as_paragraphs_with_lists_kept():
    for name in NAMES:
        task = started(name)
        manual = task.observe("expert").instructions.split("MANUAL - ", 1)[1]
        raw = task.expert_manual_text()
        assert manual.split() == f"{task.module.title} {raw}".split()  # same words, nothing lost
        assert not re.search(r"[a-z,]\n[a-z(]", manual), name  # no sentence broken across lines
        items = [line.strip() for line in raw.splitlines() if re.match(r"\s*(- |\| |\d+\. )", line)]
        assert all(any(line.strip().startswith(item) for line in manual.splitlines()) for item in items), name


# --- report figures -----------------------------------------------------------------------------------
def test_report_draws_figure5_psr_and_failure_modes_per_solver_expert_pairing(tmp_path):
    from PIL import Image

    from playbench.tasks.comma.plots import pairing_label

    runs = tmp_path / "runs"
    base = ["--episodes", "2", "--no-images"]
    assert main(["run", "comma/led", "comma/maze", "--agent", "random", "--out", str(runs / "r"), *base]) == 0
    judged = ["--set", "judge=true", "--expert-agent", "oracle", "--out", str(runs / "j")]
    assert main(["run", "comma/maze", "--agent", "random", *judged, *base]) == 0
    assert main(["run", "comma/led", "--agent", "oracle", "--out", str(runs / "o"), *base]) == 0
    report = tmp_path / "report"
    assert main(["report", str(runs / "r"), str(runs / "j"), str(runs / "o"), "--out", str(report)]) == 0
    for name in ("comma_turn_limit.png", "comma_psr_by_puzzle.png", "comma_failure_modes.png"):
        with Image.open(report / name) as image:
            assert image.width > 600 and image.height > 300
    judged_rec = records(runs / "j")[0]
    assert judged_rec["roles"]["judge"] == "random"  # --agent fills the judge seat: a random label
    assert judged_rec["metrics"]["judge_label"] in (
        "roleplay",
        "misinterpretation",
        "repetition loop",
        "miscommunication",
    )
    assert pairing_label(judged_rec) == "random / oracle"  # the judge seat is not part of the pairing
    assert pairing_label(records(runs / "r")[0]) == "random"


# --- a person at the terminal, in either seat ------------------------------------------------------
REALTIME = ("button", "dog")


def oracle_solver_replies(module: str) -> tuple[list[str], list[str]]:
    """Instance 0 played by the oracle pair in process: every solver reply, and those that acted."""
    task = started(module)
    replies: list[str] = []
    acted: list[str] = []
    while not task.done:
        role = task.current_role()
        text = task.oracle_action(role)
        assert text is not None
        result = task.step(text)
        if role == "solver":
            replies.append(text)
            if result.parsed != "message":
                acted.append(text)
    return replies, acted


def terminal_lines(replies: list[str]) -> str:
    # one terminal line is one reply; a typed \n separates its lines (as the authors' human agent)
    return "".join(reply.replace("\n", "\\n") + "\n" for reply in replies)


@pytest.mark.parametrize("module", NAMES)
def test_a_person_in_the_solver_seat_defuses_every_puzzle_with_the_oracle_expert(
    module, tmp_path, monkeypatch
):
    replies, _ = oracle_solver_replies(module)
    monkeypatch.setattr("sys.stdin", io.StringIO(terminal_lines(replies)))
    out = tmp_path / "play"
    argv = ["play", f"comma/{module}", "--seat", "solver", "--partner", "oracle", "--out", str(out)]
    assert main(argv) == 0
    rec = records(out)[0]
    assert rec["roles"] == {"solver": "human", "expert": "oracle"}
    assert rec["success"] and rec["steps"] == rec["optimal_steps"], rec


def expert_answers(module: str) -> list[str]:
    """Instance 0 played in process as the test below plays it: the model solver asks first, then
    carries out whatever the expert's last message says; the expert (a person) answers every turn
    with the next step, here the oracle's lines for the moment the solver will act."""
    task = started(module)
    answers: list[str] = []
    task.step("What do I do next?")
    while not task.done:
        text = task.session.oracle_actions_text()
        answers.append(text)
        task.step(text)
        task.step(text)
    return answers


@pytest.mark.parametrize("module", NAMES)
def test_a_person_in_the_expert_seat_talks_a_model_solver_through_the_puzzle(module, tmp_path, monkeypatch):
    """The person in the expert seat has a real turn after every solver turn, on every puzzle (also
    the real-time ones, where the oracle solver used to act alone); the model solver asks, then
    carries out whatever action lines the expert's last message holds."""
    answers = expert_answers(module)
    monkeypatch.setattr("sys.stdin", io.StringIO(terminal_lines(answers)))

    def solver(request: dict) -> str:
        conversation = last_user_text(request).split("Conversation so far:", 1)[-1]
        conversation = conversation.split("\nYour reply:", 1)[0]
        entries = re.split(r"^(?=(?:SOLVER|EXPERT|ENVIRONMENT): )", conversation, flags=re.MULTILINE)
        last = entries[-1]
        if last.startswith("EXPERT:"):
            return last.removeprefix("EXPERT:").strip()
        return "What do I do next?"

    out = tmp_path / "play"
    with ScriptedServer(solver) as srv:
        argv = [
            "play", f"comma/{module}", "--seat", "expert", "--partner", "llm",
            "--partner-model", f"openai:solver@{srv.base_url}", "--out", str(out),
        ]  # fmt: skip
        assert main(argv) == 0
    rec = records(out)[0]
    assert rec["roles"]["expert"] == "human" and rec["roles"]["solver"].startswith("llm(openai:solver@")
    assert rec["error"] is None and rec["success"], rec
    assert rec["metrics"]["expert_messages"] == len(answers) and rec["metrics"]["mistakes"] == 0


def oracle_partner_answers(module: str) -> list[str]:
    """Instance 0 with the oracle solver: the expert's answers a person gives (the right lines)."""
    task = started(module)
    answers: list[str] = []
    while not task.done:
        if task.current_role() == "expert":
            answers.append(task.session.oracle_actions_text())
            task.step(answers[-1])
        else:
            task.step(task.oracle_action("solver"))
    return answers


@pytest.mark.parametrize("module", NAMES)
def test_a_person_in_the_expert_seat_with_the_oracle_solver_plays_every_puzzle(module, tmp_path, monkeypatch):
    """`play --seat expert --partner oracle`: the oracle solver describes the module and asks, so the
    person has a real turn on every puzzle, and it carries out the lines the person answers."""
    answers = oracle_partner_answers(module)
    assert answers  # at least one real turn
    monkeypatch.setattr("sys.stdin", io.StringIO(terminal_lines(answers)))
    out = tmp_path / "play"
    argv = ["play", f"comma/{module}", "--seat", "expert", "--partner", "oracle", "--out", str(out)]
    assert main(argv) == 0
    rec = records(out)[0]
    assert rec["roles"] == {"solver": "oracle", "expert": "human"}
    assert rec["success"] and rec["metrics"]["expert_messages"] == len(answers), rec
