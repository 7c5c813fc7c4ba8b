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
from playbench.runner.run import RunConfig, execute
from playbench.tasks.comma.modules import NAMES
from playbench.tasks.comma.modules.keypad import POSITIONS
from playbench.tasks.comma.summaries import summarize, turn_curve
from playbench.tasks.comma.task import WAIT_MESSAGE, CommaTask, cut_words, find_action, parse_judge_label
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
def test_action_lines_match_case_insensitively_with_word_boundaries():
    names = ["cut_wire_1", "cut_wire_12", "press_top_left_button"]
    assert find_action("I will CUT_WIRE_1 now", names) == "cut_wire_1"
    assert find_action("cut_wire_12", names) == "cut_wire_12"
    assert find_action("cut_wire_123", names) is None
    assert find_action("please press the top left button", names) is None


def test_a_reply_without_action_names_is_a_message_and_the_expert_answers():
    task = started("keypad")
    obs = task.observe("solver")
    assert [p.label for p in obs.images] == ["module"] and obs.legal_actions == [
        f"press_{p}_button" for p in POSITIONS
    ]
    result = task.step("I see four symbols: a star, a lollipop, a C with a dot and an omega.")
    assert result.validity == Validity.EFFECTIVE and task.current_role() == "expert"
    expert = task.observe("expert")
    assert not expert.images and "Column 1 (top to bottom)" in expert.instructions
    assert "lollipop" in expert.text and "press_top_left_button" not in expert.text
    task.step("Press the lollipop first.")
    assert (
        task.current_role() == "solver" and "Expert: Press the lollipop first." in task.observe("solver").text
    )
    assert task.session.turns == 1


def test_action_lines_execute_in_order_and_stop_at_a_strike():
    task = started("keypad")
    order = task.module.oracle_actions(0)
    wrong = next(a for a in order[1:])
    result = task.step(f"Here goes:\n{wrong.upper()}\n{order[0]}")
    assert result.validity == Validity.INEFFECTIVE and task.session.mistakes == 1
    assert "not carried out" in result.feedback and task.module.progress == 0
    assert task.current_role() == "solver"  # acting is not a message: the expert does not speak
    result = task.step(";".join(order))  # a terminal user may separate actions with ';'
    assert task.module.solved and task.done and "won" in result.feedback


def test_a_line_naming_two_actions_runs_the_first_and_says_so():
    task = started("keypad")
    first, second = task.module.oracle_actions(0)[:2]
    result = task.step(f"{first} and then {second}")
    assert task.module.progress == 1 and task.session.actions_executed == 1
    assert "only the first action named on a line is carried out" in result.feedback
    assert f"({first}; not {second})" in result.feedback
    assert "One action per line" in task.observe("solver").text  # the transcript keeps the note
    plain = started("keypad")
    assert "One action per line" not in plain.step(first).feedback


def test_unavailable_action_is_invalid_and_changes_nothing():
    task = started("button")
    result = task.step("release_button")
    assert result.validity == Validity.INVALID and result.reason == "unavailable"
    assert not task.module.held and task.session.mistakes == 0


def test_empty_reply_uses_the_turn_and_an_empty_expert_reply_is_recorded():
    task = started("led")
    assert task.step("   ").validity == Validity.UNPARSEABLE and task.session.turns == 1
    task.step("What should I do?")
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


def test_turn_limit_and_mistake_limit_end_the_episode():
    task = started("keypad", max_steps=3)
    for _ in range(3):
        task.step("hmm, let me think")
        if not task.done:
            task.step("describe the symbols please")
    assert task.done and task.outcome().termination == "step_cap"
    assert "ended_by" not in task.outcome().metrics
    assert task.outcome().metrics["conversation_length"] == 3
    task = started("memory", mistake_limit=2)
    wrong = next(a for a in task.module.actions() if a not in task.module.oracle_actions(0))
    task.step(wrong)
    task.step(wrong)
    assert task.done and task.outcome().termination == "mistake_limit"
    assert "after 2 mistakes" in task.observe("solver").instructions


def test_expert_word_limit_cuts_messages():
    assert cut_words("one two\nthree four", 3) == "one two\nthree [cut at 3 words]"
    task = started("led", expert_word_limit=2)
    task.step("help")
    task.step("press the top left button")
    assert "press the [cut at 2 words]" in task.observe("solver").text
    assert "within 2 words" in task.observe("expert").instructions


def test_repetition_loop_is_a_repeated_incorrect_state_action_pair():
    task = started("memory")
    wrong = next(a for a in task.module.actions() if a not in task.module.oracle_actions(0))
    task.step(wrong)
    assert task.outcome().metrics["repetition_loop"] is False
    task.step(wrong)  # the reset brought back the same stage-1 state
    metrics = task.outcome().metrics
    assert metrics["repetition_loop"] is True and metrics["repeated_mistakes"] == 1


def test_repetition_loops_are_found_on_the_real_time_puzzles_too():
    # the countdown never shows the same time twice: the state keeps only what the rules read of it
    task = task_with("button")
    task.reset(next(i for i in task.instances(40, 0) if i.params["button_color"] in ("yellow", "blue")))
    task.step("tap_button")  # a hold-button tapped: a strike, whatever the time
    task.step("I tapped it, what now?")
    task.step("(expert) hold it")
    task.step("tap_button")  # the same mistake in the same situation, two turns later
    metrics = task.outcome().metrics
    assert metrics["mistakes"] == 2 and metrics["repetition_loop"] is True

    task = task_with("dog")
    task.reset(next(i for i in task.instances(20, 0) if i.params["dogs"] != i.start_clock % 10))
    task.step("submit")  # turn 1: the wrong last digit
    task.step("submit")  # turn 2: another wrong digit (7 s later), another situation
    assert task.outcome().metrics["mistakes"] == 2 and task.outcome().metrics["repetition_loop"] is False
    for _ in range(8):
        task.step("How many dogs do you need?")
        task.step("(expert) wait")
    task.step("submit")  # turn 11: 70 s after turn 1, the same last digit again
    metrics = task.outcome().metrics
    assert metrics["mistakes"] == 3 and metrics["repetition_loop"] is True


def test_turn_limit_curves_are_flat_metrics_and_aggregate():
    task = started("led")
    wrong = next(a for a in task.module.actions() if a not in task.module.oracle_actions(0))
    task.step(wrong)
    while not task.done:
        task.step(task.oracle_action("solver"))
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


def test_realtime_oracle_waits_by_messaging_and_the_oracle_expert_instructs():
    task = task_with("button")
    instance = next(i for i in task.instances(60, 0) if i.optimal_steps > 2)
    task.reset(instance)
    task.step(task.oracle_action("solver"))  # hold
    assert task.oracle_action("solver") == WAIT_MESSAGE
    task.step(WAIT_MESSAGE)
    assert task.current_role() == "expert" and "release when the timer shows" in task.oracle_action("expert")


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
    solved.step(solved.oracle_action("solver"))
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
    The expert parses the manual's columns out of its system prompt and answers the description.
    """

    def respond(request: dict) -> str:
        system, user = system_text(request), last_user_text(request)
        if "You are the EXPERT" in system:
            described = re.findall(r"symbols: (.+?)\.", user)[-1].split(", ")
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
        if "Expert:" not in user:
            listing = ", ".join(f"{p.replace('_', ' ')} {s}" for p, s in zip(POSITIONS, symbols, strict=True))
            return f"My keypad symbols: {listing}."
        advice = user.rsplit("Expert:", 1)[1]
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
        ]  # fmt: skip
        assert main(argv) == 0
        models = [r["model"] for r in srv.requests]
    rec = records(out)[0]
    assert rec["error"] is None and rec["success"], rec
    assert rec["metrics"]["conversation_length"] == 3 and rec["metrics"]["mistakes"] == 0
    assert models == ["solver", "solver", "expert", "solver"]
    steps = [json.loads(x) for x in (out / rec["trajectory"]).read_text().splitlines()]
    assert [s["validity"] for s in steps] == ["unparseable", "effective", "effective", "effective"]
    assert (
        steps[2]["role"] == "expert"
        and steps[2]["images"] == []
        and "My keypad symbols" in steps[2]["observation"]
    )


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
        raw = task.module.manual()
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
    # one terminal line is one reply; ';' separates the action lines within it
    return "".join(reply.replace("\n", ";") + "\n" for reply in replies)


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


@pytest.mark.parametrize("module", [m for m in NAMES if m not in REALTIME])
def test_a_person_in_the_expert_seat_talks_a_model_solver_through_the_puzzle(module, tmp_path, monkeypatch):
    """The model solver asks, then carries out whatever action lines the expert's last message holds;
    the person at the terminal answers each question with the next step read off the manual (here:
    the oracle's step, computed beforehand)."""
    _, acted = oracle_solver_replies(module)
    monkeypatch.setattr("sys.stdin", io.StringIO(terminal_lines(acted)))

    def solver(request: dict) -> str:
        conversation = last_user_text(request).split("Conversation so far:", 1)[-1]
        conversation = conversation.split("\nYour reply:", 1)[0]
        entries = re.split(r"^\[turn \d+\] ", conversation, flags=re.MULTILINE)
        last = entries[-1] if len(entries) > 1 else ""
        if last.startswith("Expert:"):
            return last.removeprefix("Expert:").strip().replace(";", "\n")
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
    assert rec["metrics"]["expert_messages"] == len(acted) and rec["metrics"]["mistakes"] == 0
