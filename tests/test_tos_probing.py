"""Belief probing and information gain, checked against what the authors' runs logged.

Fixtures: the authors' scene run05 (written in their format by `test_tos_scenes.write_scenes`) and
two recorded runs on it, `experiments/{gpt-5.2,gemini-3-pro-preview}/177ef6532828f8d7/text/active/
think/` in mll-lab-nu/Theory-of-Space: their `metrics.json` (`infogain_per_turn`) and
`exploration_turn_logs.json` (turns 1-3 of gpt-5.2: `possible_positions`, the model's global and
local maps with the `metrics`, `metrics_full`, `metric_agent` and `consistency` logged for them,
`unexplored_positions_by_room`, the fog probe's candidates, reply, scores and `symbolic_map`).
The values are copied as logged; positions are moved from their mask frame to the start frame
(the start is mask cell (2, 11)).
"""

from __future__ import annotations

import json
import math
import random

import pytest
from test_tos_replay import RUN05_GEMINI, RUN05_GPT52
from test_tos_scenes import write_scenes

from playbench.tasks.tos import probing as P
from playbench.tasks.tos.grammar import Turn, execute, parse_turn
from playbench.tasks.tos.scenes import load_scenes
from playbench.tasks.tos.solver import PositionSolver, Relation, Triple, observation_triples, query_triple
from playbench.tasks.tos.world import START, Pose, World, visible_items

START_CELL = (2, 11)  # run05: the agent's mask cell

# metrics.json of the two runs: information gain after every reply (the last one is Term())
INFOGAIN = {
    "gpt-5.2": [0.0, 0.31817848703432955, 0.31817848703432955, 0.38284909795289523, 0.47139045612223723,
                0.6143572257559413, 0.6143572257559413, 0.8738589533861316, 0.8738589533861316],
    "gemini-3-pro-preview": [0.0, 0.31817848703432955, 0.5499829335903418, 0.5499829335903418,
                             0.5499829335903418, 0.5627347456147738, 0.6470466667049984, 0.6470466667049984,
                             0.7043074520475208, 0.7590745299769575, 0.8778295525016309, 0.9266719640317482,
                             0.9266719640317482],
}  # fmt: skip
RUNS = {"gpt-5.2": RUN05_GPT52, "gemini-3-pro-preview": RUN05_GEMINI}

# gpt-5.2, turn 2 (start, facing east): the logged `possible_positions`
DOMAINS_T2 = {
    "shoes": {(4, -1)},
    "rubberduck": {(2, -1)},
    "alarmclock": {(2, 1)},
    "yellow door": {(5, -1), (6, -1)},
    "blue door": {
        (6, -4),
        (5, -5),
        (4, -3),
        (7, -3),
        (6, -5),
        (3, -3),
        (4, -4),
        (5, -3),
        (6, -3),
        (4, -2),
        (5, -4),
    },
}
# the model's probe replies after turn 1 and turn 2 (their `original_response`)
GLOBAL_T1 = 'THINK:\nNo objects in view.\n\nFINAL ANSWER:\n```json\n{\n    "agent": {"position": [0, 0], "facing": "north"}\n}\n```'
GLOBAL_T2 = (
    "THINK: Build a globally-referenced map.\nFINAL ANSWER:\n{\n"
    '  "agent": { "position": [0, 0], "facing": "east" },\n'
    '  "shoes": { "position": [5, -1], "facing": "west" },\n'
    '  "rubberduck": { "position": [3, -1], "facing": "north" },\n'
    '  "alarmclock": { "position": [3, 1], "facing": "west" },\n'
    '  "yellow door": { "position": [7, -1] },\n'
    '  "blue door": { "position": [6, -4] }\n}'
)
LOCAL_T2 = (
    'THINK: Use agent-centric integer coordinates.\nFINAL ANSWER:\n{\n  "origin": "agent",\n  "objects": {\n'
    '    "shoes": {"position": [2, 4], "facing": "-y"},\n    "rubberduck": {"position": [1, 3], "facing": "-x"},\n'
    '    "alarmclock": {"position": [-1, 3], "facing": "-y"},\n    "yellow door": {"position": [2, 5]},\n'
    '    "blue door": {"position": [6, 4]}\n  }\n}'
)
FOG_T1 = 'THINK: Initial FOV faced north.\nFINAL ANSWER: \n{\n  "unexplored": ["A", "F"]\n}'
FOG_T2 = (
    'THINK: All candidates lie west.\nFINAL ANSWER:\n{\n  "unexplored": ["A", "B", "C", "D", "E", "F"]\n}'
)
# the fog probe of turn 2 as logged (mask cells), and the map the model was shown
CANDIDATES_T2 = [(3, 10), (2, 8), (6, 13), (7, 12), (3, 9), (2, 10)]
CORRECT_T2 = [(3, 9), (2, 10), (2, 8)]
MAP_T2 = (
    "################\n#########......#\n#########......#\n##....C.#......#\n##.....D#......#\n##*.....#......#\n"
    "##FA....+......#\n##.E....########\n##B.....########\n######+#########\n#......#########\n"
    "#......#########\n#......#########\n#......#########\n#......#########\n#......#########\n################"
)
UNEXPLORED_T2 = {1: [(2, 8), (2, 9), (2, 10), (3, 8), (3, 9), (4, 8)]}  # room 2 not yet observed


def start_frame(cell: tuple[int, int]) -> tuple[int, int]:
    return cell[0] - START_CELL[0], cell[1] - START_CELL[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = write_scenes(tmp_path_factory.mktemp("scenes") / "3-room")
    return next(s.world for s in load_scenes(str(root)) if s.world.source == "run05")


def replay(world: World, run: list, turns: int | None = None) -> tuple[PositionSolver, list[float], Pose]:
    solver = PositionSolver.for_world(world)
    pose, observed, gains = START, frozenset(), []
    for answer, _ in run[:turns]:
        t = parse_turn(answer)
        assert isinstance(t, Turn)
        out = execute(world, pose, observed, t)
        pose, observed = out.pose, observed | set(out.seen)
        if out.observed_at is not None:
            solver.add(observation_triples(world, out.observed_at, visible_items(world, out.observed_at)))
        if out.query is not None:
            solver.add([query_triple(out.query["name"], out.query["x"], out.query["y"])])
        gains.append(solver.information_gain())
    return solver, gains, pose


@pytest.mark.parametrize("model", sorted(RUNS))
def test_information_gain_reproduces_the_logged_series(world: World, model: str) -> None:
    _, gains, _ = replay(world, RUNS[model])
    assert gains == pytest.approx(INFOGAIN[model], abs=1e-12)


def test_solver_domains_are_the_logged_possible_positions(world: World) -> None:
    solver, _, _ = replay(world, RUN05_GPT52, 2)
    for name, points in DOMAINS_T2.items():
        assert solver.points(name) == points, name
    assert solver.count("laptop") is None  # never named yet: no domain (counts as M)
    assert solver.consistent


def test_information_gain_hand_worked() -> None:
    """One object pinned by a Query on a 4 x 4 grid: log2(16/1) / (2 log2 16) for two objects."""
    s = PositionSolver(["a", "b"], 4)
    assert s.information_gain() == 0.0
    s.add([query_triple("a", 1, 2)])
    assert s.points("a") == {(1, 2)} and s.information_gain() == pytest.approx(0.5)
    # b is 'near, front' of a seen facing east: b - a = (1, 0) or (2, 0)
    s.add([Triple("b", "a", Relation("ego", "east", "front", "near"))])
    assert s.points("b") == {(2, 2), (3, 2)}
    assert s.information_gain() == pytest.approx((4 + 3) / 8)


def test_relations_hold_exactly_on_bin_edges() -> None:
    assert Relation("ego", "north", "front-right", "near").holds(1, 1)  # 45° is front-right
    assert Relation("ego", "north", "front-left", "near").holds(-1, 1)
    assert Relation("ego", "north", "front", "near").holds(0, 2)  # distance 2 is near
    assert not Relation("ego", "north", "front", "near").holds(0, 3)
    assert Relation("close", "east", "north", "near").holds(2, 0)  # facing east: east is "north"
    assert not Relation("close", "east", "north", "mid distance").holds(3, 0)  # close pairs are within 2
    assert Relation("exact", dx=3, dy=-1).holds(3, -1) and not Relation("exact", dx=3, dy=-1).holds(3, 0)


def test_map_scores_reproduce_the_logged_metrics(world: World) -> None:
    scale = P.position_scale(world)
    gates = {g.name for g in world.gates}
    # turn 1: nothing observed, the map holds the agent only; `metrics_full`
    t1 = P.read_global(P.extract_json(GLOBAL_T1), gates | {"agent"})
    s = P.compare(t1, P.truth_full(world, START), scale)
    assert (s.direction, s.facing, s.position) == pytest.approx((1 / 120, 1 / 12, 1 / 15))
    assert s.overall == pytest.approx(0.05277777777777778)
    # turn 2: facing east after Rotate(90), five items observed
    observed = {"shoes", "alarmclock", "blue door", "yellow door", "rubberduck"}
    agent = Pose(0, 0, "east")
    t2 = P.read_global(P.extract_json(GLOBAL_T2), observed | gates | {"agent"})
    logged = {  # metrics, metrics_full, metric_agent
        "observed": (0.7142857142857143, 1.0, 0.8665608261184282, 0.8602821801347141),
        "full": (0.125, 0.3333333333333333, 0.3466243304473713, 0.26831922126023483),
        "agent": (1.0, 1.0, 1.0, 1.0),
    }
    truths = {
        "observed": P.truth_observed(world, agent, observed),
        "full": P.truth_full(world, agent),
        "agent": P.truth_agent(agent),
    }
    for key, truth in truths.items():
        s = P.compare(t2, truth, scale)
        assert (s.direction, s.facing, s.position, s.overall) == pytest.approx(logged[key], abs=1e-12), key
    # the local map (positions in the agent's frame, -x/-y facings read with the true facing)
    visible = {it.name for it in visible_items(world, agent)}
    local = P.read_local(P.extract_json(LOCAL_T2), visible, "east")
    assert local is not None and local["rubberduck"].ori == (0, 1)  # -x facing east is north
    s = P.compare(local, P.truth_local(world, agent), scale)
    assert (s.direction, s.facing, s.position) == pytest.approx((0.4666666666666667, 1.0, 0.846698966574778))
    # their `consistency.local_vs_global`
    c = P.local_vs_global(local, t2, scale)
    assert (c.direction, c.facing, c.position, c.overall) == pytest.approx(
        (0.6, 1.0, 0.8066749643147416, 0.8022249881049138), abs=1e-12
    )


def test_unexplored_points_and_symbolic_map_reproduce_the_log(world: World) -> None:
    fog = P.Unexplored(world)
    for answer, _ in RUN05_GPT52[:2]:
        out = execute(world, START, frozenset(), parse_turn(answer))  # type: ignore[arg-type]
        fog.observe(out.observed_at)  # type: ignore[arg-type]
    for rid, cells in UNEXPLORED_T2.items():
        assert fog.unexplored[rid] == {start_frame(c) for c in cells}
    assert fog.visited == {1}
    cands = [start_frame(c) for c in CANDIDATES_T2]
    assert P.symbolic_map(world, Pose(0, 0, "east"), cands) == MAP_T2
    # their candidate rule: per observed room up to 3 unexplored and as many explored points
    got, correct = fog.candidates(random.Random(0), (0, 0))
    assert len(got) == 6 and len(correct) == 3 and set(correct) <= fog.unexplored[1]
    assert not set(got) - set(correct) & fog.unexplored[1]


def test_fog_probe_reading_and_scores() -> None:
    cands = [start_frame(c) for c in CANDIDATES_T2]
    correct = [start_frame(c) for c in CORRECT_T2]
    assert P.read_fog_labels(FOG_T2) == list("ABCDEF")
    assert P.fog_scores(list("ABCDEF"), cands, correct) == pytest.approx((0.5, 1.0, 2 / 3))
    # turn 1's logged probe: two right of three, none wrong
    t1_cands = [(3, 8), (3, 13), (4, 13), (2, 13), (7, 12), (7, 10)]
    t1_correct = [(7, 12), (7, 10), (3, 8)]
    assert P.fog_scores(P.read_fog_labels(FOG_T1), t1_cands, t1_correct) == pytest.approx((1.0, 2 / 3, 0.8))
    # free text: every standalone capital counts, letters past the candidates are ignored
    assert P.read_fog_labels("I think B and D.") == ["I", "B", "D"]
    assert P.fog_scores(["I", "B", "D"], t1_cands, t1_correct) == (0.0, 0.0, 0.0)
    assert P.fog_scores(P.read_fog_labels("no idea"), t1_cands, t1_correct) == (0.0, 0.0, 0.0)


def test_map_reading_follows_their_evaluator() -> None:
    nested = '{"objects": [{"name": "red_chair", "position": [1, 2], "facing": "E"}], "agent": {"position": [0, 0]}}'
    m = P.read_global(P.extract_json(nested), {"red chair", "agent"})
    assert m == {"agent": P.Placed(0.0, 0.0), "red chair": P.Placed(1.0, 2.0, (1, 0), True)}
    # a flat key with an underscore is not matched to a name with a space (their filter)
    assert P.read_global({"red_chair": {"position": [1, 2]}}, {"red chair"}) == {}
    # an unknown facing word counts as north; unobserved objects are dropped, doors are kept
    m = P.read_global({"lamp": {"position": [1, 1], "facing": "up"}, "sofa": {"position": [2, 2]}}, {"lamp"})
    assert m == {"lamp": P.Placed(1.0, 1.0, (0, 1), True)}
    assert P.extract_json("no map here") is None
    assert P.extract_json('a {"x": 1} then ```json\n{"a": {"position": [1, 1]}}\n```') == {
        "a": {"position": [1, 1]}
    }


def test_far_off_maps_score_nothing_and_empty_local_maps_are_consistent() -> None:
    truth = {"a": P.Placed(0, 1, (0, 1), True), "b": P.Placed(2, 1)}
    assert P.compare({"a": P.Placed(0, 1), "b": P.Placed(100, 1)}, truth, 5.0) is None
    assert P.compare(None, truth, 5.0) is None
    assert P.local_vs_global({}, {"agent": P.Placed(0, 0)}, 5.0) == P.Scores(1.0, 1.0, 1.0)
    assert P.local_vs_global({"a": P.Placed(0, 1)}, {"b": P.Placed(0, 1)}, 5.0) is None  # no agent
    assert P.local_vs_global(
        {"a": P.Placed(0, 1)}, {"agent": P.Placed(0, 0), "b": P.Placed(0, 1)}, 5.0
    ) == P.Scores(0.0, 0.0, 0.0)


def test_stability_hand_worked() -> None:
    """Two successive turns: `a` unseen in the later one moved away from the truth (0), `b` unseen
    stayed (1); `c` seen in the later turn is not counted; the facing of `b` went wrong (0)."""
    truth = {
        "a": P.Placed(0, 5),
        "b": P.Placed(3, 3, (0, 1), True),
        "c": P.Placed(1, 1),
        "agent": P.Placed(0, 0),
    }
    prev = P.TurnProbe(frozenset(), truth, probed=True)
    prev.global_map = {"a": P.Placed(0, 5), "b": P.Placed(3, 4, (0, 1), True), "c": P.Placed(9, 9)}
    curr = P.TurnProbe(frozenset({"c"}), truth, probed=True)
    curr.global_map = {"a": P.Placed(0, 7), "b": P.Placed(3, 4, (1, 0), True), "c": P.Placed(1, 1)}
    assert P.stability([prev, curr]) == ([0.5], [0.0])
    skipped = P.TurnProbe(frozenset(), truth)  # an invalid reply: no probe, nothing to compare
    assert P.stability([prev, skipped, curr]) == ([None, None], [None, None])
    m = P.episode_metrics([prev, curr])
    assert m["stability_position"] == 0.5 and m["stability_facing"] == 0.0 and m["uncertainty"] is None


def test_belief_correctness_and_inertia_hand_worked() -> None:
    """A sofa moved from (0, 5) to (8, 5): the new map puts it at (8, 4) (one off), the map at the
    end of the first exploration had it at (0, 5). Correctness exp(-1/L), inertia exp(-8.06/L)."""
    scale = 4.0
    truth = {"sofa": P.Placed(8, 5), "cup": P.Placed(1, 1, (0, -1), True)}
    old = {"sofa": {"position": [0, 5]}, "cup": {"position": [1, 1], "facing": "north"}}
    pred = P.read_global(
        {"sofa": {"position": [8, 4]}, "cup": {"position": [1, 1], "facing": "south"}}, truth
    )
    correct, inertia = P.score_changed("sofa", "position", pred, truth, old, scale)  # type: ignore[misc]
    assert correct == {"position": pytest.approx(math.exp(-1 / 4)), "facing": None}
    assert inertia == {"position": pytest.approx(math.exp(-math.sqrt(65) / 4)), "facing": None}
    correct, inertia = P.score_changed("cup", "orientation", pred, truth, old, scale)  # type: ignore[misc]
    assert correct == {"position": None, "facing": 1.0} and inertia == {"position": None, "facing": 0.0}
    assert P.score_changed("cup", "orientation", None, truth, old, scale) is None  # unreadable: skipped
    scores = P.BeliefScores(
        {"sofa": {"position": 0.5, "facing": None}, "cup": {"position": None, "facing": 1.0}},
        {"sofa": {"position": 0.25, "facing": None}, "cup": {"position": None, "facing": 0.0}},
    )
    assert P.belief_metrics(scores) == {
        "belief_correctness_position": 0.5,
        "belief_correctness_facing": 1.0,
        "belief_inertia_position": 0.25,
        "belief_inertia_facing": 0.0,
    }


def test_oracle_maps_score_one(world: World) -> None:
    agent = Pose(4, -4, "west")
    truth = P.truth_full(world, agent)
    reply = "FINAL ANSWER:\n" + json.dumps(P.map_json(truth))
    s = P.compare(P.read_global(P.extract_json(reply), set(truth)), truth, P.position_scale(world))
    assert s == P.Scores(1.0, 1.0, 1.0)
    local = P.truth_local(world, agent)
    as_local = {k: {"position": [round(v.x), round(v.y)]} for k, v in local.items()}
    got = P.read_local({"origin": "agent", "objects": as_local}, set(local), "west")
    assert got is not None and {k: (v.x, v.y) for k, v in got.items()} == {
        k: (v.x, v.y) for k, v in local.items()
    }


def test_prompts_carry_their_facts() -> None:
    g, fb, loc = P.global_prompt(), P.false_belief_prompt(), P.local_prompt()
    assert (
        "[0, 0] is your initial position" in g
        and '"agent"' in g
        and "only the objects you have observed" in g
    )
    assert "ALL objects and doors" in fb and "only the objects you have observed" not in fb
    assert '"origin": "agent"' in loc and "+y is straight ahead" in loc
    assert all("FINAL ANSWER: [the JSON only]" in p for p in (g, fb, loc))
    fog = P.fog_prompt(MAP_T2)
    assert MAP_T2 in fog and '"unexplored"' in fog and "`*` you" in fog
    assert "Blue dot" in P.fog_prompt(None)


def test_fog_image_is_a_png(world: World) -> None:
    png = P.fog_image(world, Pose(0, 0, "east"), [start_frame(c) for c in CANDIDATES_T2], 256)
    assert png.startswith(b"\x89PNG")


@pytest.mark.parametrize("facing", ["north", "east", "south", "west"])
def test_vectorised_offsets_agree_with_the_bin_functions(facing: str) -> None:
    from playbench.tasks.tos.solver import offset_mask
    from playbench.tasks.tos.world import CARDINAL_BINS, DISTANCE_BINS, EGO_BINS

    reach = 9
    relations = [Relation("ego", facing, e, d) for e in EGO_BINS for d in DISTANCE_BINS]
    relations += [Relation("close", facing, c, d) for c in CARDINAL_BINS for d in ("near", "same distance")]
    for rel in relations:
        mask = offset_mask(rel, reach)
        for dx in range(-reach, reach + 1):
            for dy in range(-reach, reach + 1):
                assert mask[dx + reach, dy + reach] == rel.holds(dx, dy), (rel, dx, dy)
