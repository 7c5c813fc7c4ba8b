"""Rules, step classification, observations and configuration of ivispar/sgp."""

from __future__ import annotations

import random

import pytest

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import TextPart, Validity
from playbench.tasks.ivispar.board import DIRECTIONS, get_board
from playbench.tasks.ivispar.schema import GeomSpec, SGPInstance
from playbench.tasks.ivispar.sgp import COUNTERS, SlidingGeomTask
from playbench.tasks.ivispar.solver import bfs_distances


def two_geom_instance() -> SGPInstance:
    # red cube a1 -> a2, blue sphere a2 -> b2: the sphere must step aside first
    return SGPInstance(
        id="two",
        board_size=[4, 4],
        geoms=[
            GeomSpec(color="red", shape="cube", start="a1", goal="a2"),
            GeomSpec(color="blue", shape="sphere", start="a2", goal="b2"),
        ],
    )


def coords(task: SlidingGeomTask) -> dict[str, str]:
    board = get_board(*task.instance.board_size)
    return {f"{c} {s}": board.coord(cell) for (c, s), cell in zip(task._keys, task.board_state, strict=True)}


# --- board geometry ---------------------------------------------------------------------------
def test_chess_coordinates_orientation():
    board = get_board(4, 3)
    assert board.coord(board.cell(0, 0)) == "a1"  # bottom-left
    assert board.coord(board.cell(3, 0)) == "d1"  # columns run left to right
    assert board.coord(board.cell(0, 2)) == "a3"  # rows run bottom to top
    a1 = board.parse_coord("a1")
    up, down, left, right = (board.neighbors[a1][DIRECTIONS.index(d)] for d in DIRECTIONS)
    assert board.coord(up) == "a2"
    assert board.coord(right) == "b1"
    assert down == -1 and left == -1
    for cell in range(board.cells):
        assert board.parse_coord(board.coord(cell)) == cell
    with pytest.raises(ValueError, match="not on the 4x3 board"):
        board.parse_coord("e1")
    with pytest.raises(ValueError):
        board.parse_coord("a4")


def test_move_directions_change_the_named_coordinate():
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    task.step("action: move blue sphere up")
    assert coords(task)["blue sphere"] == "a3"
    task.step("action: move blue sphere right")
    assert coords(task)["blue sphere"] == "b3"
    task.step("action: move blue sphere down")
    assert coords(task)["blue sphere"] == "b2"
    task.step("action: move blue sphere left")
    assert coords(task)["blue sphere"] == "a2"


# --- invalid moves ----------------------------------------------------------------------------
def test_occupied_destination_is_invalid_and_explained():
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    before = task.board_state
    res = task.step("action: move red cube up")
    assert res.validity is Validity.INVALID and res.reason == "occupied"
    assert "a2" in res.feedback and "blue sphere" in res.feedback
    assert task.board_state == before
    assert task.outcome().metrics["actions_occupied"] == 1


@pytest.mark.parametrize("direction", ["left", "down"])
def test_out_of_bounds_is_invalid_and_explained(direction):
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    before = task.board_state
    res = task.step(f"action: move red cube {direction}")
    assert res.validity is Validity.INVALID and res.reason == "out_of_bounds"
    assert "a1" in res.feedback and "leave the board" in res.feedback
    assert task.board_state == before
    assert task.outcome().metrics["actions_out_of_bounds"] == 1


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("move green cube up", "'green cube'"),
        ("move red sphere up", "'red sphere'"),
        ("move purple banana up", "no geom"),
    ],
)
def test_unknown_geom_moves_nothing_and_is_in_no_class_of_the_paper(command, named):
    # the original's simulator logs "<name> is not a valid object" and no class (TurnManager.cs)
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    before = task.board_state
    res = task.step(f"action: {command}")
    assert res.validity is Validity.INVALID and res.reason == "unknown_geom"
    assert res.parsed == command
    assert named in res.feedback and "blue sphere" not in res.feedback  # no list of the geoms
    assert task.board_state == before
    m = task.outcome().metrics
    assert m["actions_unclassified"] == 1 and sum(m[k] for k in COUNTERS) == 0
    assert task.outcome().steps == 1


def test_lenient_parser_counts_an_unknown_geom_as_illegal_and_lists_the_geoms():
    task = SlidingGeomTask(parser="lenient")
    task.reset(two_geom_instance())
    res = task.step("move green cube up")  # the lenient parser needs no "action:"
    assert res.validity is Validity.INVALID and res.reason == "unknown_geom"
    assert "red cube" in res.feedback and "blue sphere" in res.feedback
    assert task.outcome().metrics["actions_illegal"] == 1


def test_unparseable_counts_as_illegal_and_a_step():
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    res = task.step("I would like to think more")
    assert res.validity is Validity.UNPARSEABLE and res.parsed is None
    assert "action: move <object color> <object shape> <direction>" in res.feedback
    out = task.outcome()
    assert out.steps == 1 and out.metrics["actions_illegal"] == 1


# --- classification and metrics on a scripted episode ----------------------------------------
def test_scripted_episode_classification_and_regret():
    inst = two_geom_instance()
    task = SlidingGeomTask()
    task.reset(inst)
    board = inst.board()
    truth = bfs_distances(board, inst.goal_state())
    script = [
        ("move blue sphere up", Validity.INEFFECTIVE),
        ("move red cube left", Validity.INVALID),
        ("move blue sphere right", Validity.EFFECTIVE),
        ("move blue sphere down", Validity.EFFECTIVE),
        ("move red cube up", Validity.EFFECTIVE),
    ]
    states = [task.board_state]
    for action, expected in script:
        assert not task.done
        before = truth[task.board_state]
        res = task.step(f"Reasoning...\naction: {action}")
        assert res.validity is expected
        after = truth[task.board_state]
        if expected is Validity.EFFECTIVE:
            assert after == before - 1
        elif expected is Validity.INEFFECTIVE:
            assert after == before + 1
        states.append(task.board_state)
    assert task.done
    out = task.outcome()
    assert out.success and out.steps == len(script)
    m = out.metrics
    d0 = truth[states[0]]
    assert m["optimal_steps"] == d0 == 2
    assert m["final_distance"] == 0 and m["min_distance"] == 0
    # the distance left after d0 = 2 actions: after "up" (3) and the failed "left" (still 3)
    assert m["step_deviation"] == truth[states[2]] == 3
    assert m["regret"] == [truth[s] - (d0 - t) for t, s in enumerate(states)]
    assert m["regret"][0] == 0
    assert m["mean_regret"] == pytest.approx(sum(m["regret"]) / len(m["regret"]))
    counts = {v: sum(1 for _, e in script if e is v) for v in Validity}
    assert m["actions_effective"] == counts[Validity.EFFECTIVE]
    assert m["actions_ineffective"] == counts[Validity.INEFFECTIVE]
    assert m["actions_out_of_bounds"] == 1
    assert sum(m[k] for k in COUNTERS) == out.steps


def test_step_cap_counts_every_action_and_stops():
    task = SlidingGeomTask(max_steps=3)
    task.reset(two_geom_instance())
    for _ in range(3):
        task.step("nonsense")
    assert task.done
    out = task.outcome()
    assert not out.success and out.steps == 3
    d0 = out.metrics["optimal_steps"]
    assert out.metrics["final_distance"] == out.metrics["step_deviation"] == d0
    assert out.metrics["regret"] == [t for t in range(4)]
    res = task.step("action: move blue sphere right")
    assert res.validity is Validity.INVALID and res.reason == "episode_over"
    assert task.outcome().steps == 3


def test_valid_moves_are_always_effective_or_ineffective():
    task = make_task("ivispar/sgp", max_steps=40)
    rng = random.Random(3)
    for inst in task.instances(30, seed=5):
        task.reset(inst)
        truth_solver_d = task.distance
        while not task.done:
            obs = task.observe("player")
            res = task.step(rng.choice(obs.legal_actions))
            assert res.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE)
            delta = task.distance - truth_solver_d
            assert delta == (-1 if res.validity is Validity.EFFECTIVE else 1)
            truth_solver_d = task.distance


def test_legal_actions_are_exactly_the_state_changing_moves():
    task = make_task("ivispar/sgp")
    inst = task.instances(12, seed=1)[-1]
    task.reset(inst)
    legal = set(task.observe("player").legal_actions)
    for color, shape in task._keys:
        for d in DIRECTIONS:
            probe = SlidingGeomTask()
            probe.reset(inst)
            before = probe.board_state
            res = probe.step(f"action: move {color} {shape} {d}")
            changed = probe.board_state != before
            assert changed == (f"action: move {color} {shape} {d}" in legal)
            assert changed == (res.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE))


# --- oracle -------------------------------------------------------------------------------------
def test_oracle_solves_in_optimal_steps_and_replans():
    task = make_task("ivispar/sgp")
    for inst in task.instances(40, seed=2):
        task.reset(inst)
        while not task.done:
            res = task.step(task.oracle_action("player"))
            assert res.validity is Validity.EFFECTIVE
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps
        assert set(out.metrics["regret"]) == {0}
        assert task.oracle_action("player") is None

    # after a detour the oracle plans again from where the board is
    inst = task.instances(15, seed=2)[-1]
    task.reset(inst)
    bad = next(a for a in task.observe("player").legal_actions if task_ineffective(inst, a))
    task.step(bad)
    while not task.done:
        task.step(task.oracle_action("player"))
    assert task.outcome().success
    assert task.outcome().steps == inst.optimal_steps + 2


def task_ineffective(inst: SGPInstance, action: str) -> bool:
    probe = SlidingGeomTask()
    probe.reset(inst)
    return probe.step(action).validity is Validity.INEFFECTIVE


# --- observations -----------------------------------------------------------------------------
def conversation(obs) -> str:
    """The text of everything after the system prompt: the task's turns, then the step's message."""
    turns = [p.text for t in obs.turns or [] for p in t.parts if isinstance(p, TextPart)]
    return "\n".join([*turns, obs.text])


def listing_after(text: str, title: str) -> list[tuple[str, str, str]]:
    """The `<COORD> <color> <shape>` lines that follow the line `title` in an observation."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    out = []
    for line in lines[start:]:
        parts = line.split()
        if len(parts) != 3 or not parts[0][0].isupper() or not parts[0][1:].isdigit():
            break
        out.append((parts[0], parts[1], parts[2]))
    return out


def test_text_observation_shows_only_the_states_in_the_originals_layout():
    task = make_task("ivispar/sgp", past_window=2)
    inst = task.instances(30, seed=4)[-1]
    task.reset(inst)
    board = inst.board()
    obs = task.observe("player")
    assert "Previous state" not in obs.text and obs.feedback == ""
    goal = listing_after(obs.text, "The goal state is the first list of coordinates:")
    active = listing_after(obs.text, "The active state is the second list of coordinates:")
    for entries, key in ((goal, "goal"), (active, "start")):
        assert all(c[0].isupper() for c, _, _ in entries)  # upper-case coordinates, one per line
        cells = [board.parse_coord(c) for c, _, _ in entries]
        assert cells == sorted(cells, key=board.sort_key)  # column, then row (the paper's Figure 2)
        assert {(c.lower(), col, s) for c, col, s in entries} == {
            (getattr(g, key), g.color, g.shape) for g in inst.geoms
        }
    assert "current state" not in obs.text.lower().replace("current active", "")
    actions = ["hello", task.observe("player").legal_actions[0], "action: move red cube sideways"]
    for a in actions:
        task.step(a)
    obs = task.observe("player")
    assert [t.role for t in obs.turns] == ["user", "assistant", "user", "assistant"] and obs.feedback == ""
    assert conversation(obs).count("Previous state") == 2
    # the past actions as the original shows them: the command it cut out of the reply
    assert obs.turns[1].parts == [TextPart(f"Action taken in state 1: {actions[1].removeprefix('action: ')}")]
    assert obs.turns[3].parts == [TextPart("Action taken in state 2: move red cube sideways")]
    assert "Result" not in conversation(obs) and "of at most" not in conversation(obs)
    assert obs.step == 3
    task0 = make_task("ivispar/sgp", past_window=0)
    task0.reset(inst)
    task0.step("hello")
    assert task0.observe("player").turns == []


def test_after_an_illegal_move_the_default_observation_carries_no_verdict():
    inst = two_geom_instance()
    quiet, told = SlidingGeomTask(), SlidingGeomTask(move_results=True, step_counter=True)
    for task in (quiet, told):
        task.reset(inst)
    fixed = quiet.observe("player").parts[-1].text  # the step's constant text (the original's)
    for action in ("action: move red cube up", "action: move red cube left", "action: move blue cube up"):
        for task in (quiet, told):
            task.step(action)
        obs = quiet.observe("player")
        assert obs.feedback == "" and obs.parts[-1].text.endswith(fixed.split("## You are also given")[1])
        assert obs.parts == [TextPart(obs.parts[-1].text)]  # the step's text alone after the turns
        shown = "\n".join(p.text for t in obs.turns for p in t.parts if isinstance(p, TextPart))
        for word in ("occupied", "out of bounds", "blocked", "failed", "leave the board", "not a geom"):
            assert word not in shown, (action, word)
        extra = told.observe("player")
        # move_results: each result a user turn after its action; step_counter: a part after the step text
        results = [t.parts[0].text for t in extra.turns if t.parts[0].text.startswith("Result: ")]
        assert results and extra.feedback and extra.parts[-1].text.endswith(" of at most 20.")
        assert [t.role for t in extra.turns][:3] == ["user", "assistant", "user"]
    assert "occupied" in conversation(told.observe("player")) or "leave the board" in conversation(
        told.observe("player")
    )


def test_instructions_carry_the_originals_facts_and_extra_facts_adds_ours():
    task = make_task("ivispar/sgp")
    task.reset(task.instances(1, 0)[0])
    text = task.observe("player").instructions
    for word in [
        "4 by 4",
        "green, red, blue, yellow",
        "cube, sphere, pyramid, cylinder",
        "up, down, left or right",
    ]:
        assert word in text
    assert "move green cube down" in text and "action: <your action>" in text
    assert "bottom to top" not in text and "raises the row" not in text  # not the original's facts
    task = make_task(
        "ivispar/sgp",
        dataset="generated",
        board_size=[5, 3],
        colors=["red", "orange"],
        shapes=["cone", "prism"],
        extra_facts=True,
    )
    task.reset(task.instances(1, seed=0)[0])
    text = task.observe("player").instructions
    for word in ["red", "orange", "cone", "prism", "5 by 3", "A-E", "1-3", "raises the row"]:
        assert word in text
    text2d = make_task(
        "ivispar/sgp-2d", dataset="generated", colors=["red", "orange"], shapes=["cone", "prism"]
    )
    text2d.reset(text2d.instances(1, seed=0)[0])
    # in 2D the shapes are named by the glyphs the images show, as the original's 2D prompt does
    assert "Object shapes: diamond, rectangle" in text2d.observe("player").instructions


def test_observe_unknown_role_raises():
    task = SlidingGeomTask()
    task.reset(two_geom_instance())
    with pytest.raises(ValueError):
        task.observe("expert")


# --- configuration ------------------------------------------------------------------------------
def test_registered_variants():
    assert make_task("ivispar/sgp").config.modality == "text"
    assert make_task("ivispar/sgp-2d").config.modality == "2d"


@pytest.mark.parametrize(
    "options, words",
    [
        ({"shapes": ["cube", "torus"]}, ["torus", "cube, sphere"]),
        ({"colors": ["red", "magenta"]}, ["magenta"]),
        ({"num_geoms": 16}, ["num_geoms", "15"]),
        ({"num_geoms": 5, "colors": ["red"], "shapes": ["cube", "cone"]}, ["num_geoms", "2"]),
        ({"optimal_length": 0}, ["optimal_length"]),
        ({"num_geoms": 2, "optimal_length": 13}, ["optimal_length", "12"]),
        ({"board_size": [1, 4]}, ["board_size"]),
        ({"modality": "4d"}, ["modality"]),
        ({"colour": "red"}, ["colour", "accepted"]),
    ],
)
def test_bad_config_is_a_clear_config_error(options, words):
    with pytest.raises(ConfigError) as err:
        SlidingGeomTask(**options)
    for w in words:
        assert w in str(err.value)


def test_config_accepts_command_line_strings():
    task = SlidingGeomTask(dataset="generated", board_size="5x6", colors="red,Grey", shapes="square circle")
    assert task.config.board_size == [5, 6]
    assert task.config.colors == ["red", "gray"]
    assert task.config.shapes == ["cube", "sphere"]


def test_invalid_instances_are_rejected():
    task = SlidingGeomTask()
    good = two_geom_instance().model_dump()
    clash = {**good, "geoms": [dict(good["geoms"][0]), {**good["geoms"][1], "start": "a1"}]}
    with pytest.raises(ConfigError, match="share a start"):
        task.load_instance(clash)
    dup = {**good, "geoms": [good["geoms"][0], {**good["geoms"][1], "color": "red", "shape": "cube"}]}
    with pytest.raises(ConfigError, match="distinct"):
        task.load_instance(dup)
    off = {**good, "geoms": [good["geoms"][0], {**good["geoms"][1], "goal": "e2"}]}
    with pytest.raises(ConfigError, match="not on the 4x4 board"):
        task.load_instance(off)
    # one free cell: swapping two neighbours of a 15-puzzle is the classic unsolvable case
    board = get_board(4, 4)
    names = [
        (c, s) for c in ("red", "green", "blue", "yellow") for s in ("cube", "sphere", "pyramid", "cylinder")
    ]
    cells = list(range(15))
    goal = cells[:]
    goal[0], goal[1] = goal[1], goal[0]
    geoms = [
        {"color": c, "shape": s, "start": board.coord(a), "goal": board.coord(b)}
        for (c, s), a, b in zip(names, cells, goal, strict=False)
    ]
    with pytest.raises(ConfigError, match="cannot be reached"):
        task.load_instance({"id": "x", "geoms": geoms})
