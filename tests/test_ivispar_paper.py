"""The paper's protocol (the default): its 300 boards, how the original reads a reply, and its
step deviation. The original's config format is tested with small fixtures written here (the
tests never need the authors' repository)."""

from __future__ import annotations

import json
import re
from collections import Counter
from statistics import fmean

import pytest

from playbench.cli import main
from playbench.core.errors import ConfigError
from playbench.core.metrics import aggregate_metrics
from playbench.core.registry import make_task
from playbench.core.task import instance_set_digest
from playbench.core.types import ImagePart, TextPart, Turn, Validity
from playbench.tasks.ivispar import prompts
from playbench.tasks.ivispar.board import manhattan_sum
from playbench.tasks.ivispar.paper_data import (
    build,
    convert_config,
    coordinate,
    paper_boards,
    paper_random_moves,
    write,
)
from playbench.tasks.ivispar.paper_parse import decode, extract_command
from playbench.tasks.ivispar.puzzle import NO_ACTION_NOTE
from playbench.tasks.ivispar.schema import GeomSpec, SGPInstance
from playbench.tasks.ivispar.sgp import COUNTERS, SlidingGeomTask
from playbench.tasks.ivispar.solver import Solver


def landmark(nr: int, body: str, color: str, start: list[int], goal: list[int]) -> dict:
    return {"geom_nr": nr, "body": body, "color": color, "start_coordinate": start, "goal_coordinate": goal}


def config(name: str, c1: int, landmarks: list[dict], shortest: list[str], random_moves: list[str]) -> dict:
    """A board in the original's format (`Data/Configs/Main/config_ICML_*.json`)."""
    return {
        "config_instance_id": name,
        "experiment_type": "SlidingGeomPuzzle",
        "complexity_c1": c1,
        "complexity_c2": 0,
        "grid_size": 4,
        "landmarks": landmarks,
        "use_rendering": True,
        "shortest_move_sequence": ["start", *shortest],
        "random_valid_move_sequence": ["start", *random_moves],
        "random_invalid_move_sequence": ["start"],
    }


# Three boards written for these tests: two cells of the paper's grid (2 geoms / length 2, 3 geoms /
# length 4), the first in two instances.
FIXTURES = [
    config(
        "ICML_b_4_g_3_c1_4_c2_0_i_1",
        4,
        [
            landmark(2, "cube", "red", [0, 0], [0, 2]),
            landmark(1, "sphere", "blue", [3, 3], [2, 3]),
            landmark(3, "pyramid", "yellow", [1, 1], [1, 0]),
        ],
        ["move red cube up", "move red cube up", "move blue sphere left", "move yellow pyramid down"],
        ["move red cube right"] * 3 + ["move red cube left"] * 30,
    ),
    config(
        "ICML_b_4_g_2_c1_2_c2_0_i_2",
        2,
        [landmark(1, "cylinder", "green", [2, 2], [1, 2]), landmark(2, "sphere", "blue", [1, 0], [0, 0])],
        ["move green cylinder left", "move blue sphere left"],
        ["move blue sphere up"],
    ),
    config(
        "ICML_b_4_g_2_c1_2_c2_0_i_1",
        2,
        [landmark(1, "cube", "green", [0, 3], [1, 3]), landmark(2, "pyramid", "red", [3, 0], [3, 1])],
        ["Move Green Cube Right", "move red pyramid up"],
        [],
    ),
]


# --- the original's config format -------------------------------------------------------------
def test_coordinates_are_column_then_row_from_zero():
    assert coordinate([0, 0]) == "a1" and coordinate([3, 0]) == "d1" and coordinate([1, 2]) == "b3"
    with pytest.raises(ValueError):
        coordinate([0.5, 1])


def test_a_config_converts_into_our_instance():
    inst, random_moves = convert_config(FIXTURES[0])
    assert inst.id == "ICML_b_4_g_3_c1_4_c2_0_i_1" and inst.rep == 0 and inst.board_size == [4, 4]
    # geoms in the original's geom_nr order
    assert [(g.color, g.shape, g.start, g.goal) for g in inst.geoms] == [
        ("blue", "sphere", "d4", "c4"),
        ("red", "cube", "a1", "a3"),
        ("yellow", "pyramid", "b2", "b1"),
    ]
    assert inst.optimal_steps == 4 and inst.num_geoms == 3 and inst.interference == 0
    assert inst.solution == FIXTURES[0]["shortest_move_sequence"][1:]
    assert random_moves == FIXTURES[0]["random_valid_move_sequence"][1:21]  # the cap's 20 moves
    assert convert_config(FIXTURES[2])[0].solution == ["move green cube right", "move red pyramid up"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"complexity_c1": 5}, "disagree"),
        ({"config_instance_id": "SGP_b_4_g_3"}, "ICML config name"),
        ({"shortest_move_sequence": ["move red cube up"]}, "start"),
    ],
)
def test_a_config_that_is_not_what_it_says_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        convert_config({**FIXTURES[0], **change})


def test_a_wrong_optimal_length_is_caught_by_our_solver():
    wrong = json.loads(json.dumps(FIXTURES[1]))
    wrong["config_instance_id"] = "ICML_b_4_g_2_c1_4_c2_0_i_2"
    wrong["complexity_c1"] = 4
    wrong["shortest_move_sequence"] += ["move blue sphere right", "move blue sphere left"]
    with pytest.raises(ValueError, match="solver finds distance 2"):
        convert_config(wrong)


def test_build_orders_the_boards_and_writes_one_per_line(tmp_path):
    content = build(FIXTURES)
    # rep-major, then the cell order of the generated set: (2 geoms, 2) before (3 geoms, 4)
    assert [b["id"] for b in content["boards"]] == [
        "ICML_b_4_g_2_c1_2_c2_0_i_1",
        "ICML_b_4_g_3_c1_4_c2_0_i_1",
        "ICML_b_4_g_2_c1_2_c2_0_i_2",
    ]
    assert set(content["random_moves"]) == {b["id"] for b in content["boards"]}
    out = tmp_path / "boards.json"
    write(content, out)
    assert json.loads(out.read_text()) == content
    assert sum(1 for line in out.read_text().splitlines() if line.startswith('    {"id"')) == 3
    with pytest.raises(ValueError, match="share"):
        build([FIXTURES[0], FIXTURES[0]])


# --- the shipped set -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def boards() -> list[SGPInstance]:
    return paper_boards()


def test_the_shipped_set_is_the_papers_300_boards(boards):
    assert len(boards) == 300 and len({b.id for b in boards}) == 300
    cells = Counter((b.num_geoms, b.optimal_steps) for b in boards)
    assert set(cells) == {(g, n) for g in range(2, 12) for n in range(2, 12)} and set(cells.values()) == {3}
    for b in boards:
        g, c1, i = map(int, re.fullmatch(r"ICML_b_4_g_(\d+)_c1_(\d+)_c2_0_i_(\d)", b.id).groups())
        assert (g, c1, i - 1) == (b.num_geoms, b.optimal_steps, b.rep)
        board, start, goal = b.board(), b.start_state(), b.goal_state()
        assert Solver(board, goal).distance(start) == b.optimal_steps == manhattan_sum(board, start, goal)
        assert b.solution is not None and len(b.solution) == b.optimal_steps  # validated to replay
        assert {g.color for g in b.geoms} <= {"green", "red", "blue", "yellow"}
        assert {g.shape for g in b.geoms} <= {"cube", "sphere", "pyramid", "cylinder"}


def test_the_default_set_of_every_task_is_the_paper_set_in_the_documented_order(boards):
    assert [b.rep for b in boards] == [r for r in range(3) for _ in range(100)]
    first = boards[:10]
    assert {b.num_geoms for b in first} == set(range(2, 12)) == {b.optimal_steps for b in first}
    assert fmean(b.num_geoms for b in boards[:20]) == 6.5  # every 10 boards hold 2..11 geoms
    for task_id in ("ivispar/sgp", "ivispar/sgp-2d", "ivispar/sgp-3d"):
        assert make_task(task_id).instances(None, 7) == boards  # the seed plays no part
    inference = make_task("ivispar/board-inference-3d").instances(None, 0)
    assert [i.id for i in inference] == [b.id for b in boards]
    assert all(i.optimal_length == b.optimal_steps for i, b in zip(inference, boards, strict=True))


def test_playbench_instances_prints_the_paper_boards(boards, capsys):
    assert main(["instances", "ivispar/sgp", "-n", "300"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert printed == [b.model_dump(mode="json") for b in boards]


def test_filters_and_limits_of_the_paper_set():
    five = make_task("ivispar/sgp", num_geoms=5).instances(None, 0)
    assert len(five) == 30 and {b.num_geoms for b in five} == {5}
    assert len(make_task("ivispar/sgp", num_geoms=5, optimal_length=7).instances(None, 0)) == 3
    with pytest.raises(ConfigError, match="has 300 boards, 301 were asked"):
        make_task("ivispar/sgp").instances(301, 0)
    with pytest.raises(ConfigError, match="no board with 12 geoms"):
        make_task("ivispar/sgp", num_geoms=12).instances(None, 0)
    for options in ({"board_size": "5x5"}, {"interference": 2}):
        with pytest.raises(ConfigError, match="dataset=generated"):
            make_task("ivispar/sgp", **options)
    with pytest.raises(ConfigError, match="dataset=generated"):
        make_task("ivispar/board-inference", board_size="5x5")


def test_dataset_generated_is_the_seeded_generator_unchanged():
    generated = make_task("ivispar/sgp", dataset="generated").instances(None, 0)
    # the digest the generated default set had when it was the default (tests/data history)
    assert instance_set_digest(generated) == "1118a67eaf881f9d"
    assert generated[0].id.startswith("sgp-g02-l02-r0-")


# --- how the original reads a reply ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "command"),
    [
        ("action: move red cube up", "move red cube up"),
        ("I think so.\nAction: Move the red cube right", "move the red cube right"),
        ("**Action:** move red cube up", "move red cube up"),
        ("## action: move red cube up.", "move red cube up"),
        ("action:\nmove red cube up", "move red cube up"),  # a line break is a space
        ("action: move blue sphere left ... action: move red cube up!", "move red cube up"),  # the last
        ("action: move red cube up\nThat frees b3.", "move red cube up that frees b3"),  # all of the rest
        ("action: move green circle down", "move green sphere down"),  # 2D glyphs become shapes
        ("action: move the squareish thing up", "move the cubeish thing up"),  # even inside words
    ],
)
def test_the_command_is_everything_after_the_last_action_move(reply, command):
    assert extract_command(reply) == command


@pytest.mark.parametrize(
    "reply",
    [
        "move red cube up",  # no action:
        "action:move red cube up",  # no space after the colon
        "action:  move red cube up",  # two spaces
        "action: `move red cube up`",  # a backtick before move
        "action: red cube up",
        "action: move",  # nothing after "move "
        "",
    ],
)
def test_replies_without_action_move_are_illegal_commands(reply):
    assert extract_command(reply) is None
    task = SlidingGeomTask()
    task.reset(paper_boards()[0])
    result = task.step(reply)
    assert result.validity is Validity.UNPARSEABLE and task.outcome().metrics["actions_illegal"] == 1


@pytest.mark.parametrize(
    ("command", "color", "shape", "direction", "repetition"),
    [
        ("move red cube up", "red", "cube", "up", 1),
        ("move the red cube upwards", "red", "cube", "up", 1),
        ("move red cube up then left", "red", "cube", "left", 1),  # left is looked for first
        ("move blue sphere next to the cube down", "the", "cube", "down", 1),  # cube before sphere
        ("move red cubes up", "", "cube", "up", 1),  # the shape only inside a word: no colour
        ("move red cube up 2", "red", "cube", "up", 2),
        ("move red cube up to b3", "red", "cube", "up", 3),  # a coordinate's digit repeats the move
        ("move red cube up one tile", "red", "cube", "up", 1),
        ("move red cube up twice or three times", "red", "cube", "up", 3),
        ("move red cube up 0", "red", "cube", "up", 0),
        ("move red cube", "red", "cube", "", 1),
        ("move red cube up 99999999999", "red", "cube", "up", None),  # beyond the simulator's int
    ],
)
def test_the_simulator_decodes_a_command(command, color, shape, direction, repetition):
    got = decode(command)
    assert (got.color, got.shape, got.direction, got.repetition) == (color, shape, direction, repetition)


def two_geoms() -> SGPInstance:
    # red cube a1 -> a3, blue sphere d1 -> c1
    return SGPInstance(
        id="two",
        geoms=[
            GeomSpec(color="red", shape="cube", start="a1", goal="a3"),
            GeomSpec(color="blue", shape="sphere", start="d1", goal="c1"),
        ],
    )


def played(*replies: str, **options) -> SlidingGeomTask:
    task = SlidingGeomTask(**options)
    task.reset(two_geoms())
    for reply in replies:
        task.step(reply)
    return task


def test_a_repeated_command_moves_again_and_counts_each_failure():
    task = played("action: move red cube up 2")  # a1 -> a3 in one step: one effective step
    assert task.board_state[0] == task.instance.board().parse_coord("a3") and task.steps == 1
    m = task.outcome().metrics
    assert m["actions_effective"] == 1 and m["actions_ineffective"] == 0
    task = played("action: move red cube up to a5")  # 5 times: 3 moves, then 2 out of bounds
    m = task.outcome().metrics
    assert task.board_state[0] == task.instance.board().parse_coord("a4")  # distance 3 -> 2
    assert m["actions_effective"] == 1 and m["actions_out_of_bounds"] == 2 and task.steps == 1
    task = played("action: move red cube up 4", "action: move red cube down 2")  # 3 -> 2, then 2 -> 2
    m = task.outcome().metrics
    assert m["actions_effective"] == 1 and m["actions_ineffective"] == 0  # the original counts neither
    task = played("action: move blue sphere right 3")  # blocked at once: 3 out of bounds, no move
    assert task.outcome().metrics["actions_out_of_bounds"] == 3


def test_commands_that_name_no_geom_or_no_direction_are_in_no_class():
    task = played(
        "action: move green cube up",  # not on the board
        "action: move red cube",  # no direction
        "action: move red cube up 0",  # repeated zero times
        "action: move the banana up",
    )
    m = task.outcome().metrics
    assert m["actions_unclassified"] == 4 and sum(m[k] for k in COUNTERS) == 0 and task.steps == 4
    assert [r for r in task._counts] == [*COUNTERS, "actions_unclassified"]


def test_step_deviation_is_the_distance_after_as_many_actions_as_the_optimal_path():
    # optimal 3; the agent wastes two actions, then plays the solution: distance 2 after 3 actions
    task = played(
        "nonsense",
        "action: move red cube left",
        "action: move red cube up",
        "action: move red cube up",
        "action: move blue sphere left",
    )
    m = task.outcome().metrics
    assert task.outcome().success and m["optimal_steps"] == 3
    assert m["step_deviation"] == 2 and m["final_distance"] == 0 and m["min_distance"] == 0
    # an episode of fewer than L actions has none, as the original's spl_value: solved in two
    # replies by a repeated move ...
    early = played("action: move red cube up 2", "action: move blue sphere left")
    out = early.outcome()
    assert out.success and out.steps == 2 and out.metrics["optimal_steps"] == 3
    assert out.metrics["step_deviation"] is None and out.metrics["final_distance"] == 0
    # ... or cut by a cap below L
    short = played("action: move red cube up", "nonsense", max_steps=2)
    assert short.done and short.outcome().metrics["step_deviation"] is None
    assert short.outcome().metrics["final_distance"] == 2
    # exactly L actions: the distance after them
    exact = played("action: move red cube up 2", "nonsense", "nonsense")
    assert exact.outcome().metrics["step_deviation"] == 1


def test_episodes_without_a_step_deviation_are_left_out_of_the_means_and_counted():
    def record(*replies: str) -> dict:
        out = played(*replies, max_steps=3).outcome()
        return {"success": out.success, "steps": out.steps, "metrics": out.metrics}

    episodes = [
        record("action: move red cube up 2", "action: move blue sphere left"),  # solved early: none
        record("nonsense", "nonsense", "nonsense"),  # 3 after 3 actions
        record("action: move red cube up", "nonsense", "nonsense"),  # 2 after 3 actions
    ]
    assert [e["metrics"]["step_deviation"] for e in episodes] == [None, 3, 2]
    summary = SlidingGeomTask().summarize(episodes)
    assert summary["episodes_without_step_deviation"] == 1
    (cell,) = summary["by_cell"]
    assert cell["n"] == 3 and cell["mean_step_deviation"] == 2.5  # (3 + 2) / 2, not (0 + 3 + 2) / 3
    assert cell["mean_final_distance"] == pytest.approx(5 / 3)
    alone = SlidingGeomTask().summarize(episodes[:1])
    assert alone["episodes_without_step_deviation"] == 1
    assert alone["by_cell"][0]["mean_step_deviation"] is None
    # the generic aggregate (summary.json, the preset's Table 2) takes the same mean over n = 2
    stat = aggregate_metrics([e["metrics"] for e in episodes])["step_deviation"]
    assert stat["n"] == 2 and stat["value"] == 2.5


def test_the_oracle_has_no_deviation_and_the_originals_random_sequences_have_the_audited_one(boards):
    task = SlidingGeomTask()
    for board in boards[::10]:
        task.reset(board)
        while not task.done:
            task.step(task.oracle_action("player"))
        assert task.outcome().metrics["step_deviation"] == 0
    # the original's random baseline replayed its stored random sequences under the 20-action cap
    moves = paper_random_moves()
    deviations = []
    for board in boards:
        task.reset(board)
        for move in moves[board.id]:
            if task.done:
                break
            assert task.step(f"action: {move}").validity is not Validity.INVALID
        deviations.append(task.outcome().metrics["step_deviation"])
    assert fmean(deviations) == pytest.approx(7.5, abs=0.01)


def _played(task_id: str, **options):
    """A paper board after an unreadable reply and one oracle move; (task, the move as shown)."""
    task = make_task(task_id, image_size=96, **options)
    task.reset(paper_boards()[3])
    task.step("no idea")
    move = task.oracle_action("player")
    task.step(move)
    return task, move.removeprefix("action: ")


def test_vision_observations_are_the_originals_chat_in_our_words():
    """texts=ours sends GPT4Agent's conversation: each past image a user turn, the action taken in it an
    assistant turn, the goal and the active image two user turns, the step text the last user message."""
    task, move = _played("ivispar/sgp-2d")
    obs = task.observe("player")
    first, second = task._history[-2][0], task._history[-1][0]  # the states the two actions started from
    assert obs.turns == [
        Turn("user", [ImagePart(task.image(first, "past"), label="past")]),
        Turn("assistant", [TextPart(f"Action taken: {NO_ACTION_NOTE}")]),  # our note (no command read)
        Turn("user", [ImagePart(task.image(second, "past"), label="past")]),
        Turn("assistant", [TextPart(f"Action taken: {move}")]),
        Turn("user", [ImagePart(task.image(task._goal, "goal"), label="goal")]),
        Turn("user", [ImagePart(task.image(task.board_state, "current"), label="current")]),
    ]
    assert obs.parts == [TextPart(prompts.vision_block())]
    assert "labelled active on a blue background" in obs.text


def test_text_observations_are_the_originals_chat_in_our_words():
    """In text, each past state a user turn and the action taken an assistant turn, numbered from 1 over
    the window at every call; the step text (goal and active states) the last user message."""
    task, move = _played("ivispar/sgp")
    first, second = task._history[-2][0], task._history[-1][0]
    obs = task.observe("player")
    assert obs.turns == [
        Turn("user", [TextPart(f"Previous state 1:\n{task.listing(first)}")]),
        Turn("assistant", [TextPart(f"Action taken in state 1: {NO_ACTION_NOTE}")]),
        Turn("user", [TextPart(f"Previous state 2:\n{task.listing(second)}")]),
        Turn("assistant", [TextPart(f"Action taken in state 2: {move}")]),
    ]
    assert obs.parts == [
        TextPart(prompts.text_block(task.listing(task._goal), task.listing(task.board_state)))
    ]
    task.step(task.oracle_action("player"))  # the window moves on and is numbered from 1 again
    later = task.observe("player")
    assert [t.parts[0].text.split(":")[0] for t in later.turns] == [
        "Previous state 1",
        "Action taken in state 1",
        "Previous state 2",
        "Action taken in state 2",
    ]
    assert later.turns[1].parts == [TextPart(f"Action taken in state 1: {move}")]
    assert "(no valid action found)" not in "".join(p.text for t in obs.turns for p in t.parts)


def test_conversation_packed_puts_everything_in_one_user_message():
    """Our option conversation=packed: no turns; the past, the goal and the active state in one message,
    in the original's order (the form of earlier versions of this suite)."""
    task, move = _played("ivispar/sgp-2d", conversation="packed")
    obs = task.observe("player")
    assert obs.turns is None
    kinds = [getattr(p, "label", None) or p.text.split(":")[0].split("\n")[0] for p in obs.parts]
    assert kinds == [
        "past",
        "Your action there",
        "past",
        "Your action there",
        "goal",
        "current",
        "## The images",
    ]
    assert obs.parts[1].text == f"Your action there: {NO_ACTION_NOTE}"
    assert obs.parts[3].text == f"Your action there: {move}"
    text, _ = _played("ivispar/sgp", conversation="packed")
    shown = text.observe("player")
    assert shown.turns is None
    assert f"Your action in state 1: {NO_ACTION_NOTE}\n" in shown.text
