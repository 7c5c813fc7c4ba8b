"""Board-state inference (iVISPAR auxiliary task): reading replies, Hungarian scoring, the task."""

from __future__ import annotations

import io
import itertools
import random
from statistics import fmean

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.ivispar import sgp
from playbench.tasks.ivispar.board import get_board
from playbench.tasks.ivispar.inference import (
    ERROR_KEYS,
    RANDOM_LISTINGS,
    BoardInferenceInstance,
    BoardInferenceTask,
    example_listing,
)
from playbench.tasks.ivispar.inference_scoring import (
    FORMAT_KINDS,
    Triplet,
    matchable,
    parse_solution,
    score_board,
)
from playbench.tasks.ivispar.schema import SGPConfig, SGPInstance

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BOARD = get_board(4, 4)
COLORS = ["green", "red", "blue", "yellow"]
SHAPES = ["cube", "sphere", "pyramid", "cylinder"]


def parse(reply: str):
    return parse_solution(reply, BOARD, COLORS, SHAPES)


def T(text: str) -> Triplet:
    return Triplet(*text.split())


@pytest.fixture(scope="module")
def task() -> BoardInferenceTask:
    t = BoardInferenceTask()
    return t


@pytest.fixture(scope="module")
def default_set(task):
    return task.instances(None, 0)


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "Solution: a1 red cube, c3 blue sphere",
        "solution: A1 Red Cube, C3 Blue Sphere",
        "I see two geoms.\nSOLUTION: a1 red cube, c3 blue sphere",
        "**Solution:** a1 red cube, c3 blue sphere.",
        "**Solution**: `a1 red cube`, `c3 blue sphere`",
        "Solution:\n- a1 red cube\n- c3 blue sphere\n",
        "Solution:\n1. a1 red cube\n2. c3 blue sphere",
        "Solution: a1 red cube; c3 blue sphere",
        "Solution: <a1> <red> <cube>, 'c3 blue sphere'",
        "Solution: a1 red square, c3 blue circle",  # 2D glyph names
        "Solution: a01 red cube, c3 blue sphere,",  # leading zero, trailing comma
        "Draft Solution: d4 green cone\nFinal Solution: a1 red cube, c3 blue sphere",  # last one wins
        "Solution: a1 red cube, c3 blue sphere\n```",
    ],
)
def test_accepted_replies(reply):
    parsed = parse(reply)
    assert parsed.found
    assert parsed.triplets == [T("a1 red cube"), T("c3 blue sphere")]
    assert parsed.issues == []
    assert parsed.text == "Solution: a1 red cube, c3 blue sphere"


# The paper's systematic formatting errors (appendix A.6.1), written for these tests.
@pytest.mark.parametrize(
    "element, kind",
    [
        ("a4 empty", "empty_cell"),  # E1
        ("c3 blank", "empty_cell"),
        ("b1 no object", "empty_cell"),
        ("a1 none none", "empty_cell"),
        ("c1 none pyramid", "missing_attribute"),  # E2
        ("b2 sphere", "missing_attribute"),
        ("d2 yellow", "missing_attribute"),
        ("b2 black cone", "unknown_attribute"),  # E3: real names, not this episode's vocabulary
        ("b3 red block", "unknown_attribute"),
        ("b4 cylinder yellow", "reversed_order"),  # E4
        ("d4 blue and red cube", "multiple_attributes"),  # E5
        ("d1 multicoloured cube", "multiple_attributes"),
        ("a2 a3 green pyramid", "multiple_attributes"),
        ("f4 yellow pyramid", "out_of_bounds"),  # E6
        ("c5 green pyramid", "out_of_bounds"),
        ("d2 blue cylinder summary a4 yellow cylinder b4 blue sphere", "not_a_triplet"),  # E7
        ("d3 green sphere https://user-images.example.com/f45e3211.png", "not_a_triplet"),
        ("obj in objectsitems if obj none output", "not_a_triplet"),
        ("we will create the solution", "not_a_triplet"),
        ("green sphere a3", "not_a_triplet"),
    ],
)
def test_paper_format_errors_count_one_per_element(element, kind):
    parsed = parse(f"Solution: a1 red cube, {element}, c3 blue sphere")
    assert parsed.triplets == [T("a1 red cube"), T("c3 blue sphere")]
    assert [i.kind for i in parsed.issues] == [kind]
    assert kind in FORMAT_KINDS


def test_no_solution_is_one_format_error_e8(task, default_set):
    parsed = parse("a1 red cube, c3 blue sphere")
    assert not parsed.found and [i.kind for i in parsed.issues] == ["no_solution"]
    task.reset(default_set[0])
    result = task.step("The board has a red cube at a1.")
    assert result.validity is Validity.UNPARSEABLE and result.reason == "format"
    assert "Solution:" in result.feedback
    m = task.outcome().metrics
    assert (m["format_errors"], m["predicted"], m["missed"], m["correct"]) == (1, 0, m["num_geoms"], 0)
    assert not task.outcome().success


def test_empty_or_unreadable_solution_is_unparseable(task, default_set):
    assert [i.kind for i in parse("Solution:").issues] == ["empty_solution"]
    assert [i.kind for i in parse("Solution: ,,\n").issues] == ["empty_solution"]
    task.reset(default_set[0])
    result = task.step("Solution: a4 empty, b1 empty")
    assert result.validity is Validity.UNPARSEABLE
    assert task.outcome().metrics["format_errors"] == 2


def test_resolution_is_not_solution():
    assert not parse("Resolution: a1 red cube").found


def test_bigger_boards_have_more_coordinates():
    board = get_board(5, 12)
    parsed = parse_solution("Solution: e12 red cube, f1 red cube, a13 red cube", board, COLORS, SHAPES)
    assert parsed.triplets == [T("e12 red cube")]
    assert [i.kind for i in parsed.issues] == ["out_of_bounds", "out_of_bounds"]


# --- scoring -------------------------------------------------------------------------------

TRUTH = [T("a1 red cube"), T("b2 blue sphere"), T("c3 green pyramid")]


def counts(score) -> dict:
    return {k: v for k, v in score.metrics().items() if k not in ("accuracy",)}


def test_exact_listing_in_any_order():
    s = score_board(TRUTH, list(reversed(TRUTH)))
    assert (s.correct, s.missed, s.hallucinated, s.mismatched) == (3, 0, 0, 0)
    assert s.success and s.accuracy == 1.0


def test_swapped_coordinates_are_coordinate_errors():
    # red cube and blue sphere exchange tiles: each prediction shares nothing with the geom on its
    # tile, so it can only be the same geom misplaced
    s = score_board(TRUTH, [T("b2 red cube"), T("a1 blue sphere"), T("c3 green pyramid")])
    assert (s.correct, s.coord_errors, s.color_errors, s.shape_errors) == (1, 2, 0, 0)
    assert (s.missed, s.hallucinated, s.mismatched) == (0, 0, 2)
    assert not s.success


def test_colour_mix_up_keeps_the_tiles():
    s = score_board(TRUTH, [T("a1 blue cube"), T("b2 red sphere"), T("c3 green pyramid")])
    assert (s.correct, s.coord_errors, s.color_errors, s.shape_errors) == (1, 0, 2, 0)


def test_equal_explanations_prefer_the_geom_on_the_same_tile():
    # swapped shapes or swapped tiles explain this equally well (two mistakes either way);
    # the tie-break pairs predictions with the geom on their tile
    truth = [T("a1 red cube"), T("a2 red sphere")]
    s = score_board(truth, [T("a1 red sphere"), T("a2 red cube")])
    assert (s.shape_errors, s.coord_errors, s.color_errors) == (2, 0, 0)
    s = score_board([T("a1 red cube"), T("c4 red sphere")], [T("a1 red sphere")])
    assert (s.shape_errors, s.coord_errors, s.missed) == (1, 0, 1)


def test_fewer_mismatches_beat_the_tie_break():
    # shifted one row up: two coordinate errors beat one shape error plus a coordinate+shape error
    s = score_board([T("a1 red cube"), T("a2 red sphere")], [T("a2 red cube"), T("a3 red sphere")])
    assert (s.coord_errors, s.shape_errors, s.correct) == (2, 0, 0)


def test_hallucinated_extra_prediction():
    s = score_board(TRUTH, [*TRUTH, T("d4 yellow cylinder")])
    assert (s.correct, s.hallucinated, s.missed) == (3, 1, 0)
    assert not s.success
    # an extra that shares attributes is still hallucinated when every geom is already read exactly
    s = score_board(TRUTH, [*TRUTH, T("d4 red sphere")])
    assert (s.correct, s.hallucinated, s.mismatched) == (3, 1, 0)


def test_missed_geom():
    s = score_board(TRUTH, TRUTH[:2])
    assert (s.correct, s.missed, s.hallucinated) == (2, 1, 0)
    assert s.accuracy == pytest.approx(2 / 3)


def test_pairs_sharing_neither_colour_nor_shape_are_missed_and_hallucinated():
    s = score_board([T("a1 red cube")], [T("a1 blue sphere")])
    assert (s.missed, s.hallucinated, s.mismatched, s.coord_errors) == (1, 1, 0, 0)
    assert not matchable(T("a1 red cube"), T("a1 blue sphere"))


def test_leftover_geoms_sharing_an_attribute_are_paired():
    # two mistakes in one pair (2) cost less than a missed plus a hallucinated geom (2.5)
    s = score_board([T("a1 red cube")], [T("c3 red sphere")])
    assert (s.missed, s.hallucinated, s.mismatched, s.coord_errors, s.shape_errors) == (0, 0, 1, 1, 1)


def test_one_close_pair_beats_two_far_ones():
    # a1 red cube <-> a1 red sphere (1 mistake) + 1 missed + 1 hallucinated = 3.5 beats
    # pairing both: a1 red sphere <-> b2 blue sphere and c3 green cube <-> a1 red cube (4 mistakes)
    s = score_board([T("a1 red cube"), T("b2 blue sphere")], [T("a1 red sphere"), T("c3 green cube")])
    assert (s.missed, s.hallucinated, s.mismatched, s.shape_errors, s.coord_errors) == (1, 1, 1, 1, 0)


def test_exact_matches_are_never_broken_up():
    # pairing everything would need a1 red cube <-> c3 green cube and a1 <-> b1 red sphere:
    # two pairs with two mistakes each; keeping the exact match is better
    truth = [T("a1 red cube"), T("b1 red sphere")]
    s = score_board(truth, [T("a1 red cube"), T("c3 green cube")])
    assert (s.correct, s.missed, s.hallucinated, s.mismatched) == (1, 1, 1, 0)


def test_duplicates():
    # the same geom listed twice: one copy is correct, the other is an extra prediction
    s = score_board([T("a1 red cube")], [T("a1 red cube"), T("a1 red cube")])
    assert (s.correct, s.hallucinated) == (1, 1) and not s.success
    # ...which is paired with a leftover geom if they share an attribute
    s = score_board([T("a1 red cube"), T("b2 red sphere")], [T("a1 red cube"), T("a1 red cube")])
    assert (s.correct, s.mismatched, s.coord_errors, s.shape_errors, s.hallucinated) == (1, 1, 1, 1, 0)


def test_empty_sides():
    s = score_board(TRUTH, [])
    assert (s.missed, s.hallucinated, s.correct) == (3, 0, 0)
    s = score_board(TRUTH, [], format_errors=2)
    assert s.format_errors == 2 and not s.success


def _brute_force(truth, predicted) -> tuple[int, int]:
    """Best (4*mismatches + 5*unmatched, coordinate mismatches) over all partial matchings."""
    best = None
    m = len(predicted)
    options = [[None, *[j for j in range(m) if matchable(t, predicted[j])]] for t in truth]
    for choice in itertools.product(*options):
        used = [j for j in choice if j is not None]
        if len(used) != len(set(used)):
            continue
        mism = coord = 0
        for i, j in enumerate(choice):
            if j is None:
                continue
            t, p = truth[i], predicted[j]
            mism += (t.coord != p.coord) + (t.color != p.color) + (t.shape != p.shape)
            coord += t.coord != p.coord
        unmatched = len(truth) - len(used) + m - len(used)
        value = (4 * mism + 5 * unmatched, coord)
        best = value if best is None or value < best else best
    assert best is not None
    return best


_coords = st.sampled_from(["a1", "a2", "b1", "b2", "c3"])
_triplets = st.builds(
    Triplet, _coords, st.sampled_from(["red", "blue", "green"]), st.sampled_from(["cube", "sphere"])
)


@settings(max_examples=150, deadline=None)
@given(
    truth=st.lists(_triplets, max_size=4, unique_by=(lambda t: t.coord, lambda t: (t.color, t.shape))),
    predicted=st.lists(_triplets, max_size=4),
)
def test_hungarian_matching_is_optimal_and_consistent(truth, predicted):
    s = score_board(truth, predicted)
    mism = s.coord_errors + s.color_errors + s.shape_errors
    assert (4 * mism + 5 * (s.missed + s.hallucinated), s.coord_errors) == _brute_force(truth, predicted)
    assert s.correct + s.missed + s.mismatched == len(truth)
    assert s.correct + s.mismatched + s.hallucinated == len(predicted)
    # every exact match is counted: correct is the multiset intersection
    assert s.correct == sum(min(truth.count(t), predicted.count(t)) for t in set(truth))
    assert all(matchable(t, p) for t, p in s.pairs)


# --- the task ------------------------------------------------------------------------------


def test_registered_and_default_set_matches_the_puzzle_boards(task, default_set):
    assert isinstance(make_task("ivispar/board-inference"), BoardInferenceTask)
    puzzles = sgp.SlidingGeomTask().instances(None, 0)
    assert len(default_set) == 300
    for inst, puzzle in zip(default_set, puzzles, strict=True):
        assert isinstance(inst, BoardInferenceInstance)
        assert inst.id == puzzle.id and inst.optimal_steps == 1
        assert inst.optimal_length == puzzle.optimal_steps
        assert inst.geoms == puzzle.geoms and inst.solution == puzzle.solution
    assert default_set[7].puzzle() == puzzles[7]


def test_instances_round_trip_and_convert(task, default_set):
    inst = default_set[42]
    assert task.load_instance(inst.model_dump(mode="json")) == inst
    puzzle = inst.puzzle()
    assert isinstance(puzzle, SGPInstance)
    assert BoardInferenceInstance.from_puzzle(puzzle) == inst
    task.reset(puzzle)  # a puzzle instance is accepted as is
    assert task.oracle_action("player") is not None
    with pytest.raises(ConfigError):
        task.load_instance({**inst.model_dump(), "optimal_steps": 3})
    with pytest.raises(ConfigError, match="share"):
        bad = inst.model_dump()
        bad["geoms"][1]["start"] = bad["geoms"][0]["start"]
        task.load_instance(bad)


def test_oracle_reads_every_default_board_in_one_step(task, default_set):
    for inst in default_set:
        task.reset(inst)
        answer = task.oracle_action("player")
        assert answer is not None and answer.startswith("Solution: ")
        result = task.step(answer)
        assert result.validity is Validity.EFFECTIVE
        out = task.outcome()
        assert out.success and out.steps == inst.optimal_steps == 1, inst.id
        assert out.metrics["correct"] == out.metrics["num_geoms"] == len(inst.geoms)
        assert task.done and task.oracle_action("player") is None
        assert task.step(answer).reason == "episode_over"


def test_random_listings_are_a_weak_seeded_baseline(task, default_set):
    rng = random.Random(0)
    correct = []
    for inst in default_set[:60]:
        task.reset(inst)
        listings = task.legal_actions()
        assert len(listings) == RANDOM_LISTINGS
        for line in listings:
            parsed = parse_solution(line, get_board(*inst.board_size), COLORS, SHAPES)
            assert len(parsed.triplets) == len(inst.geoms) and not parsed.issues
            assert len({t.coord for t in parsed.triplets}) == len(inst.geoms)
        result = task.step(rng.choice(listings))
        assert result.feedback
        out = task.outcome()
        assert out.metrics["predicted"] == out.metrics["num_geoms"]
        correct.append(out.metrics["accuracy"])
        assert task.legal_actions() == listings  # the board never changes
    assert fmean(correct) < 0.2


def test_listings_depend_only_on_the_instance(default_set):
    a, b = BoardInferenceTask(), BoardInferenceTask()
    a.reset(default_set[3])
    b.reset(default_set[3])
    assert a.legal_actions() == b.legal_actions()
    b.reset(default_set[4])
    assert a.legal_actions() != b.legal_actions()


def test_observation_is_one_png_of_the_start_board(default_set):
    task = BoardInferenceTask(image_size=160)
    inst = default_set[9]
    task.reset(inst)
    obs = task.observe("player")
    assert [im.label for im in obs.images] == ["current"]
    png = obs.images[0].png
    assert png.startswith(PNG_MAGIC)
    assert Image.open(io.BytesIO(png)).size == (160, 120)  # 4:3, as the original's images
    # the same picture the puzzle shows as its current state at the start
    puzzle_task = sgp.SlidingGeomTask(modality="2d", image_size=160)
    puzzle_task.reset(inst.puzzle())
    assert png == puzzle_task.image(puzzle_task.board_state, "current")
    assert obs.text == "The board:" and "Solution:" in obs.instructions
    assert obs.step == 0 and obs.feedback == ""
    with pytest.raises(ValueError):
        task.observe("expert")


def test_instructions_state_the_board_vocabulary_and_format(default_set):
    task = BoardInferenceTask(
        dataset="generated",
        board_size="5x4",
        colors="red,blue",
        shapes="cube,cone,prism",
        num_geoms=3,
        extra_facts=True,
    )
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    text = task.observe("player").instructions
    for needle in (
        "5 by 4",
        "a-e",
        "1-4",
        "bottom to top",
        "Colours: red, blue",
        "Shapes: cube, cone, prism",
        "<coordinate> <object_color> <object_shape>",
        "', '",
        "empty squares",
        "a cone as a diamond",  # ours (extra_facts), not the paper's
    ):
        assert needle in text, needle
    example = example_listing(get_board(5, 4), ["red", "blue"], ["cube", "cone", "prism"])
    assert example in text
    parsed = parse_solution(example, get_board(5, 4), ["red", "blue"], ["cube", "cone", "prism"])
    assert len(parsed.triplets) == 4 and not parsed.issues
    assert len({(t.color, t.shape) for t in parsed.triplets}) == 4
    paper = BoardInferenceTask()
    paper.reset(paper.instances(1, 0)[0])
    text = paper.observe("player").instructions
    assert "as a circle" not in text and "only the last" not in text
    # the paper's own example answer (appendix A.1.1)
    assert "Solution: a3 green sphere, d1 blue cylinder, b4 yellow cube, c2 red pyramid" in text


@pytest.mark.parametrize("size", [(2, 2), (3, 2), (4, 4), (6, 5)])
def test_example_is_valid_on_every_board(size):
    board = get_board(*size)
    for colors, shapes in ((["red"], ["cube", "sphere"]), (COLORS, SHAPES), (["red", "blue"], ["cube"])):
        parsed = parse_solution(example_listing(board, colors, shapes), board, colors, shapes)
        assert parsed.triplets and not parsed.issues
        assert len({t.coord for t in parsed.triplets}) == len(parsed.triplets) < board.cells


def test_three_d_needs_a_registered_renderer(monkeypatch, default_set):
    monkeypatch.delitem(sgp.STATE_RENDERERS, "3d", raising=False)
    task = BoardInferenceTask(modality="3d")  # building and playing blind is fine
    task.reset(default_set[0])
    with pytest.raises(ConfigError, match="3d"):
        task.observe("player")
    seen = {}

    def fake(board, pieces, kind, config):
        seen.update(kind=kind, config=config, pieces=pieces)
        return PNG_MAGIC + b"3d"

    monkeypatch.setitem(sgp.STATE_RENDERERS, "3d", fake)
    obs = task.observe("player")
    assert obs.images[0].png == PNG_MAGIC + b"3d"
    assert seen["kind"] == "current" and isinstance(seen["config"], SGPConfig)
    assert seen["config"].modality == "3d" and len(seen["pieces"]) == len(default_set[0].geoms)
    assert "seen from above" not in obs.instructions


@pytest.mark.parametrize(
    "options, message",
    [
        ({"modality": "text"}, "modality"),
        ({"past_window": 2}, "unknown option 'past_window'"),
        ({"colors": "red,mauve"}, "mauve"),
        ({"board_size": "1x4"}, "board"),
        ({"board_size": "2x2", "num_geoms": 4}, "num_geoms"),
        ({"num_geoms": 2, "optimal_length": 99}, "optimal_length"),
    ],
)
def test_bad_options_are_config_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        BoardInferenceTask(**options)


def test_options_match_the_puzzle_task():
    task = BoardInferenceTask(
        dataset="generated", board_size="5x5", num_geoms=4, optimal_length=3, colors="red blue"
    )
    insts = task.instances(3, 5)
    puzzles = sgp.SlidingGeomTask(
        dataset="generated", board_size="5x5", num_geoms=4, optimal_length=3, colors="red blue"
    ).instances(3, 5)
    assert [i.id for i in insts] == [p.id for p in puzzles]
    assert all(i.num_geoms == 4 and i.optimal_length == 3 for i in insts)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.one_of(
        st.text(max_size=300),
        st.lists(
            st.sampled_from(
                [
                    "a1",
                    "d4",
                    "e9",
                    "red",
                    "blue",
                    "cube",
                    "sphere",
                    "none",
                    "empty",
                    ",",
                    ", ",
                    "\n",
                    ";",
                    "Solution:",
                    "solution :",
                    "**",
                    "-",
                    "1.",
                    " ",
                    "and",
                    "z0",
                    "a03",
                    "\x00",
                ]
            ),
            max_size=30,
        ).map("".join),
    )
)
def test_fuzzed_replies_never_raise_and_get_feedback(default_set, text):
    task = BoardInferenceTask()
    task.reset(default_set[17])
    result = task.step(text)
    assert result.feedback.strip()
    m = task.outcome().metrics
    assert m["correct"] + m["missed"] + m["mismatched"] == m["num_geoms"]
    assert m["correct"] + m["mismatched"] + m["hallucinated"] == m["predicted"]
    assert (result.validity is Validity.EFFECTIVE) == (m["predicted"] > 0)
    if result.validity is Validity.UNPARSEABLE:
        assert m["format_errors"] >= 1


def test_summarize_means_and_by_num_geoms(task, default_set):
    records = []
    for k, inst in enumerate(default_set[:20]):
        task.reset(inst)
        answer = task.oracle_action("player") if k % 2 == 0 else "no idea"
        task.step(answer)
        out = task.outcome()
        records.append({"success": out.success, "metrics": out.metrics})
    summary = task.summarize(records)
    assert list(summary["errors_per_episode"]) == list(ERROR_KEYS)
    assert summary["errors_per_episode"]["format_errors"] == pytest.approx(0.5)
    total = sum(r["metrics"]["num_geoms"] for r in records)
    solved = sum(r["metrics"]["num_geoms"] for r in records[::2])
    assert summary["pooled_accuracy"] == pytest.approx(solved / total)
    rows = summary["by_num_geoms"]
    assert [r["num_geoms"] for r in rows] == sorted({r["metrics"]["num_geoms"] for r in records})
    assert sum(r["n"] for r in rows) == 20
    for r in rows:
        assert r["correct"] + r["missed"] == pytest.approx(r["num_geoms"])
    assert task.summarize([]) == {} and task.summarize([{"metrics": None}]) == {}
