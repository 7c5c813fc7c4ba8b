"""Question families: the authors' generators (properties over many draws), truths, and scoring.

The scoring table pairs answers with the score the authors' evaluation code gives them
(`tos_base/utils/eval_utilities.py`, the version the README's fidelity table names); the first
rows are scored answers from their recorded runs
(`experiments/gpt-5.2/177ef6532828f8d7/text/active/think/evaluation_turn_logs.json`,
`experiments/gemini-3-pro-preview/66b32ca3d0e68f66/text/active/think/evaluation_turn_logs.json`).
"""

import contextlib
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tos_world import two_rooms

from playbench.tasks.tos import evaluate as E
from playbench.tasks.tos import question_scoring as S
from playbench.tasks.tos import questions as Q
from playbench.tasks.tos.cogmap import last_json_object, score_cogmap, truth_map
from playbench.tasks.tos.world import Pose, bearing, rooms_at
from playbench.tasks.tos.worldgen import cached_world, generate_world

W = two_rooms()
WORLDS = [cached_world(3, 4, 0, i, 20)[0] for i in range(30)]


# --- the scoring table ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pred, truth, score",
    [
        ("north-west, near", "north east, mid distance", 0.0),  # their recorded run scored this 0.0
        # their recorded run on run03 (experiments/gemini-3-pro-preview/66b32ca3d0e68f66, question
        # a5560bd263efdb31) scored this 0.5: `west` does not match `north west` (the scoring version
        # we follow; another version of their file splits labels into words and would give 1.0)
        ("west, mid distance", "north west, mid distance", 0.5),
        ("north-west, mid distance", "west, mid distance", 0.5),
        ("north east, mid distance", "north east, mid distance", 1.0),
        ("north-east, mid distance", "north east, mid distance", 1.0),
        ("NE, mid", "north east, mid distance", 1.0),  # their alias table
        ("mid distance, north east", "north east, mid distance", 1.0),  # either order
        ("north east, far", "north east, mid distance", 0.5),  # one of two labels
        ("far, north east", "north east, mid distance", 0.5),
        ("Front Left,   Near", "front-left, near", 1.0),
        ("front slightly left, near", "front-slight-left, near", 1.0),
        ("front-left near", "front-left, near", 1.0),  # two words, no comma
        ("front-left, near (approx)", "front-left, near", 0.0),  # their parser reads the (...) group
        ("front", "front, near", 0.0),
    ],
)
def test_relation_scores_are_theirs(pred, truth, score):
    assert E.relation_score(pred, truth) == score


@pytest.mark.parametrize(
    "pred, score",
    [
        ("lamp, sofa, chair", 1.0),
        ("Lamp,  Sofa , CHAIR", 1.0),
        ("[lamp, sofa, chair]", 1.0),
        ("lamp, chair, sofa", 0.0),  # the exact order or nothing
        ("lamp, sofa", 0.0),
        ("", 0.0),
    ],
)
def test_rotation_order_is_all_or_nothing(pred, score):
    assert E.sequence_score(pred, ["lamp", "sofa", "chair"]) == score


def test_coordinate_scores_are_their_similarities():
    # view to location: exp(-error / |truth|); one cell off from (6, 3) scores about 0.86
    assert E.location_score("(6, 3)", (6, 3)) == 1.0
    assert E.location_score("(7, 3)", (6, 3)) == pytest.approx(math.exp(-1 / math.hypot(6, 3)))
    assert E.location_score("(7, 3)", (6, 3)) == pytest.approx(0.861, abs=1e-3)
    assert E.location_score("x = 7, y = 3", (6, 3)) == 0.0  # no `x, y` pair
    assert E.location_score("7, 3", (6, 3)) == pytest.approx(0.861, abs=1e-3)
    assert E.location_score("(0, 0)", (0, 0)) == 1.0 and E.location_score("(1, 0)", (0, 0)) == 0.0
    # allocentric map: (exp(-RMSE/L) + pair directions kept) / 2, the count must match
    truth = [(0, 2), (5, 1), (-3, -4)]
    length = math.sqrt((4 + 26 + 25) / 3)
    assert E.map_score("(0, 2); (5, 1); (-3, -4)", truth) == 1.0
    shifted = "(1, 2); (6, 1); (-2, -4)"  # every point one east: every pair keeps its bin
    assert E.map_score(shifted, truth) == pytest.approx((math.exp(-1 / length) + 1) / 2)
    assert E.map_score("(0, 2); (5, 1)", truth) == 0.0
    one_off = "(0, 2); (5, 1); (-3, -3)"
    rmse = math.sqrt(1 / 3)
    assert E.map_score(one_off, truth) == pytest.approx((math.exp(-rmse / length) + 1) / 2)


def test_false_belief_f1_overall_and_per_type():
    truth = [("pan", "orientation"), ("cap", "orientation"), ("vase", "position"), ("laptop", "position")]
    assert E.changes_f1(truth, truth)["f1"] == 1.0
    half = E.changes_f1([("pan", "orientation"), ("vase", "orientation")], truth)
    assert half["precision"] == 0.5 and half["recall"] == 0.25 and half["f1"] == pytest.approx(1 / 3)
    assert half["f1_orientation"] == pytest.approx(2 * (1 / 2) * (1 / 2) / 1)  # names pan, vase vs pan, cap
    assert half["f1_position"] == 0.0
    assert E.changes_f1([], truth)["f1"] == 0.0 and E.changes_f1([], [])["f1"] == 0.0


# --- truths and view-based scoring on the hand-made world ------------------------------------
def test_perspective_determine_accepts_the_name_or_a_matching_view():
    q = {"family": "perspective-determine", "anchor": "sofa", "answer": "sofa", "rooms": [1],
         "shown": [{"name": "lamp", "direction": "front", "distance": "near", "orientation": None}]}  # fmt: skip
    assert S.score(W, q, "FINAL ANSWER: sofa").score == 1.0
    assert S.score(W, q, "FINAL ANSWER: Sofa").score == 1.0
    assert S.score(W, q, "FINAL ANSWER: lamp").score == 0.0
    assert S.score(W, q, "FINAL ANSWER: sofa.").score == 0.0  # not a name of the scene
    # an object whose own view shows the lamp in front, near, counts too (theirs)
    other = {**q, "answer": "chair"}
    assert S.score(W, other, "FINAL ANSWER: sofa").score == 1.0


def test_view2action_accepts_any_moves_that_reach_the_same_view():
    q = {"family": "view2action", "plan": [["rotate", 90], ["jumpto", "red door"]], "x": 3, "y": 1,
         "facing": "east", "rooms": [1, 2],
         "shown": [{"name": "chair", "direction": "front", "distance": "near", "orientation": "facing backward"}]}  # fmt: skip
    assert S.score(W, q, "FINAL ANSWER: " + S.truth(W, q)).score == 1.0
    assert S.score(W, q, "FINAL ANSWER: Rotate(90), JumpTo(red door)").score == 1.0
    assert S.score(W, q, "FINAL ANSWER: JumpTo(red door)").score == 0.0  # not in view facing north
    assert S.score(W, q, "FINAL ANSWER: Actions: [Rotate(90), JumpTo(red door)]").score == 0.0  # their format
    assert S.score(W, q, "FINAL ANSWER: Rotate(90), JumpTo(red door), Observe()").score == 0.0


def test_extract_answer_prefers_final_answer():
    assert S.extract_answer("THINK: x\nFINAL ANSWER:\nnorth, near") == "north, near"
    assert S.extract_answer("blah\nAnswer: south, far") == "south, far"
    assert S.extract_answer("just this line") == "just this line"


# --- generators -------------------------------------------------------------------------------
def _qs(family, n=3):
    out = []
    for k, w in enumerate(WORLDS):
        for j in range(n):
            with contextlib.suppress(Q.QuestionError):
                out.append((w, Q.make_question(w, family, k * 10 + j)))
    return out


def test_mental_rotation_objects_are_30_degrees_apart_and_never_dead_ahead():
    for w, q in _qs("mental-rotation"):
        assert 3 <= len(q["answer"]) <= 5 and q["objects"] == sorted(q["answer"])
        angles = []
        for name in q["answer"]:
            o = next(o for o in w.objects if o.name == name)
            b = bearing(o.x, o.y) % 360
            a = b if q["direction"] == "clockwise" else (-b) % 360
            assert 1e-3 < a < 360 - 1e-3
            angles.append(a)
        assert angles == sorted(angles)


def test_rotation_separation_is_theirs():
    """Their greedy pick keeps every pair more than 30° apart (falling back to 15° only when it
    cannot); over our first worlds no answer holds two objects within 15°."""
    close = 0
    for w, q in _qs("mental-rotation"):
        objs = {o.name: o for o in w.objects}
        angs = [bearing(objs[n].x, objs[n].y) % 360 for n in q["answer"]]
        if any(abs(a - b) <= 15 for i, a in enumerate(angs) for b in angs[i + 1 :]):
            close += 1
    assert close == 0


def test_relations_stay_in_the_anchor_room_and_views_show_three_at_most():
    for w, q in _qs("perspective-taking"):
        a = next(o for o in w.objects if o.name == q["anchor"])
        t = next(o for o in w.objects if o.name == q["obj"])
        assert a.room == t.room and a.facing is not None
    for fam in ("perspective-determine", "view2action", "view2location"):
        for _w, q in _qs(fam):
            assert 1 <= len(q["shown"]) <= Q.MAX_SHOWN
    for w, q in _qs("location2view") + _qs("view2location"):
        assert (q["x"], q["y"]) not in {(o.x, o.y) for o in w.objects}
        room = min(rooms_at(w, q["x"], q["y"]))
        if room in rooms_at(w, 0, 0):
            assert q["origin"] is None
        else:  # a door of the pose's room is the origin
            assert q["origin"] in {g.name for g in w.gates if room in g.rooms}


def test_navigation_questions_jump_through_doors_and_describe_jumps():
    through = 0
    for w, q in _qs("action2view"):
        jumps = [a for k, a in q["plan"] if k == "jumpto"]
        assert len(jumps) == 2
        text = S.question_text(w, q)
        assert "JumpTo" not in text and "You jump to" in text
        through += any(g.name in jumps for g in w.gates)
    assert through > len(_qs("action2view")) / 3  # doors are picked six times in ten
    for _w, q in _qs("view2action"):
        assert sum(1 for k, _ in q["plan"] if k == "jumpto") == 3


def test_three_distinct_questions_per_scene():
    from playbench.core.registry import make_task

    task = make_task("tos/perspective-taking")
    insts = task.instances(9, 0)
    assert [i.id.rsplit("-", 1)[1] for i in insts[:3]] == ["q1", "q2", "q3"]
    for k in range(3):
        group = insts[3 * k : 3 * k + 3]
        assert len({i.world.model_dump_json() for i in group}) == 1
        assert len({json.dumps(i.question, sort_keys=True) for i in group}) == 3


def test_every_family_truth_scores_one():
    for fam in Q.FAMILIES:
        for w, q in _qs(fam, 1):
            s = S.score(w, q, "FINAL ANSWER: " + S.truth(w, q))
            assert s.score == 1.0 and s.correct and s.parsed, (fam, q)


def test_partial_credit_is_our_option():
    w = WORLDS[0]
    q = Q.make_question(w, "mental-rotation", 1)
    wrong = list(reversed(q["answer"]))
    assert S.score(w, q, "FINAL ANSWER: " + ", ".join(wrong)).score == 0.0
    partial = S.score(w, q, "FINAL ANSWER: " + ", ".join(wrong), partial_credit=True).score
    assert 0.0 <= partial < 1.0


@settings(max_examples=150, deadline=None)
@given(
    reply=st.one_of(
        st.text(max_size=120), st.from_regex(r"FINAL ANSWER: [\w\s,;()\-\[\]{}\":]{0,60}", fullmatch=True)
    )
)
def test_no_reply_makes_any_scorer_raise(reply):
    world = generate_world(3, 4, 5)
    for family in Q.FAMILIES:
        s = S.score(world, Q.make_question(world, family, 3), reply)
        assert 0.0 <= s.score <= 1.0 and (s.parsed or s.detail)
    m = score_cogmap(world, frozenset({o.name for o in world.objects}), Pose(0, 0, "north"), reply)
    assert 0.0 <= m["map_score"] <= 1.0


def test_answer_space_samples_read():
    rng = random.Random(0)
    for fam in Q.FAMILIES:
        for w, q in _qs(fam, 1)[:3]:
            samples = S.answer_space(w, q, rng)
            assert samples and all(s.startswith("FINAL ANSWER: ") for s in samples)


# --- cognitive map (unchanged scoring) --------------------------------------------------------
def test_cogmap_scoring():
    observed = frozenset({"lamp", "sofa", "red door"})
    agent = Pose(0, 0, "north")
    perfect = truth_map(W, frozenset({"lamp", "sofa", "chair", "plant", "red door"}), agent)
    m = score_cogmap(W, observed, agent, "Here: " + json.dumps(perfect))
    assert m["map_parsed"] and m["position_accuracy"] == 1 and m["direction_accuracy"] == 1
    assert m["facing_accuracy"] == 1 and m["agent_correct"]
    partial = score_cogmap(W, observed, agent, json.dumps(truth_map(W, observed, agent)))
    assert partial["position_accuracy"] == 3 / 5 and partial["observed_position_accuracy"] == 1.0
    assert not score_cogmap(W, observed, agent, "no json {here")["map_parsed"]
    assert last_json_object('a {"x": 1} b {"y": {"z": 2}}') == {"y": {"z": 2}}


def test_local_map_frame_accuracy_and_consistency():
    from playbench.tasks.tos.cogmap import local_truth_map, score_local, to_local

    agent = Pose(3, 1, "east")
    # facing east: +y is east, +x is south
    assert to_local(agent, 5, 1, "west") == ((0, 2), "-y")
    assert to_local(agent, 3, 0, "south") == ((1, 0), "+x")
    observed = frozenset({"chair", "plant", "red door", "lamp"})
    true_global = truth_map(W, observed, agent)
    true_local = local_truth_map(W, agent)
    assert set(true_local) == {"origin", "chair", "plant"}
    m = score_local(W, agent, true_global, true_local)
    assert m["local_position_accuracy"] == 1 and m["local_facing_accuracy"] == 1
    assert m["local_global_consistency"] == 1 and m["local_visible"] == 2
    assert score_local(W, agent, None, None)["local_global_consistency"] == 0.0


def test_position_accuracy_is_the_papers_similarity():
    from playbench.tasks.tos.cogmap import scene_scale

    everything = frozenset({"lamp", "sofa", "chair", "plant", "red door"})
    agent = Pose(0, 0, "north")
    truth = truth_map(W, everything, agent)
    scale = scene_scale(W)  # RMS norm of the five item positions
    assert scale == math.sqrt((4 + 8 + 26 + 45 + 10) / 5)
    shifted = {k: (v | {"position": [v["position"][0] + 1, v["position"][1]]}) for k, v in truth.items()}
    m = score_cogmap(W, everything, agent, json.dumps(shifted))
    assert m["position_accuracy"] == math.exp(-1 / scale) and m["position_exact"] == 0
