"""Question families: ground truth on a hand-made world, answer parsing (also malformed), scoring."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tos_world import two_rooms

from playbench.tasks.tos import questions as Q
from playbench.tasks.tos.cogmap import Change, changes_f1, last_json_object, score_cogmap, truth_map
from playbench.tasks.tos.world import Pose, cached_world

W = two_rooms()


def test_truths_on_the_hand_made_world():
    assert (
        Q.truth(W, {"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}) == "east, slightly far"
    )
    assert Q.truth(W, {"family": "perspective-taking", "anchor": "sofa", "obj": "lamp"}) == "front, near"
    assert Q.truth(
        W, {"family": "action2view", "actions": ["JumpTo(lamp)", "Rotate(90)"], "target": "plant"}
    ) == ("front-slight-left, slightly far")
    assert Q.truth(W, {"family": "allocentric-map", "objects": ["lamp", "chair"]}) == "(0, 2); (5, 1)"
    names = ["sofa", "chair", "lamp", "plant"]
    assert Q.truth(W, {"family": "mental-rotation", "objects": names, "direction": "clockwise"}) == (
        "lamp, plant, chair, sofa"
    )
    assert Q.truth(W, {"family": "mental-rotation", "objects": names, "direction": "counterclockwise"}) == (
        "lamp, sofa, chair, plant"
    )
    assert Q.truth(W, {"family": "location2view", "x": 1, "y": 0, "facing": "west", "target": "sofa"}) == (
        "front-right, mid distance"
    )


@pytest.mark.parametrize(
    "reply, parsed, correct",
    [
        ("Answer: east, slightly far", True, True),
        ("The chair is east.\nanswer: EAST , Slightly_Far.", True, True),
        ("Answer: **east, slightly far**", True, True),
        ("east, slightly far", True, True),  # no marker: the last line
        ("Answer: east, far", True, False),
        ("Answer: north-east, slightly far", True, False),
        ("Answer: east", False, False),
        ("Answer: eastish, slightly far", False, False),
        ("Answer: east, close", False, False),
        ("Answer:", False, False),
        ("", False, False),
    ],
)
def test_relation_answers_parse_and_score(reply, parsed, correct):
    s = Q.score(W, {"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}, reply)
    assert (s.parsed, s.correct) == (parsed, correct)
    if parsed and not correct:
        assert s.score == 0.5
    if not parsed:
        assert s.score == 0.0 and s.detail


def test_ego_answers_accept_spacing_variants_and_reject_cardinals():
    q = {"family": "perspective-taking", "anchor": "sofa", "obj": "lamp"}
    assert Q.score(W, q, "Answer: Front , near").correct
    assert not Q.score(W, q, "Answer: east, near").parsed


def test_coordinate_lists_score_per_object():
    q = {"family": "allocentric-map", "objects": ["lamp", "chair", "sofa"]}
    assert Q.score(W, q, "Answer: (0, 2); (5, 1); (-2, 2)").correct
    half = Q.score(W, q, "Answer: (0, 2); (5, 0); (-2, 2)")
    assert half.parsed and not half.correct and half.score == pytest.approx(2 / 3)
    assert Q.score(W, q, "Answer: (0, 2)").score == pytest.approx(1 / 3)
    assert not Q.score(W, q, "Answer: lamp is at zero two").parsed


def test_names_orders_and_locations():
    assert Q.score(W, {"family": "perspective-determine", "anchor": "sofa"}, "Answer: Sofa.").correct
    wrong = Q.score(W, {"family": "perspective-determine", "anchor": "sofa"}, "Answer: piano")
    assert not wrong.parsed and "not an object" in wrong.detail
    q = {"family": "mental-rotation", "objects": ["sofa", "chair", "lamp", "plant"], "direction": "clockwise"}
    assert Q.score(W, q, "Answer: lamp, plant, chair, sofa").correct
    assert Q.score(W, q, "Answer: lamp, chair, plant, sofa").score == 0.5
    v2l = {"family": "view2location", "x": 3, "y": 1, "facing": "east"}
    assert Q.score(W, v2l, "Answer: (3, 1)").correct
    assert not Q.score(W, v2l, "Answer: (0, 0)").correct
    assert not Q.score(W, v2l, "Answer: (3, 1), (4, 1)").parsed


def test_view2action_accepts_any_sequence_reaching_the_same_view():
    q = {
        "family": "view2action",
        "actions": ["Rotate(90)", "JumpTo(red door)"],
        "x": 3,
        "y": 1,
        "facing": "east",
    }
    assert Q.score(W, q, "Answer: Rotate(90), JumpTo(red door)").correct
    assert Q.score(W, q, "Answer: Rotate(-270), JumpTo(red_door), Rotate(0)").correct
    assert Q.score(W, q, "Actions: [Rotate(90), JumpTo(red door)]").correct  # a bracketed list is read
    # well-formed but not executable (the door is out of view facing north): read, and wrong
    invalid = Q.score(W, q, "Answer: JumpTo(red door)")
    assert invalid.parsed and not invalid.correct and "not visible" in invalid.detail
    assert not Q.score(W, q, "Answer: Rotate(45), JumpTo(red door)").correct
    assert not Q.score(W, q, "Answer: Rotate(90), Observe()").parsed  # not a move action
    assert not Q.score(W, q, "Answer: north, near").parsed
    assert not Q.score(W, q, "Answer: Rotate(90)").correct


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Answer: NE, slightly far", "north-east, slightly far"),
        ("Answer: east, slightly far", "east, slightly far"),
        ("Answer: E, slightly-far", "east, slightly far"),
        ("Answer: slightly far, east", "east, slightly far"),  # the two vocabularies are disjoint
        ("Answer: north east, medium", "north-east, mid distance"),
        ("Answer: near, far", None),
        ("Answer: east, east", None),
    ],
)
def test_relation_spellings(reply, expected):
    s = Q.score(W, {"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}, reply)
    if expected is None:
        assert not s.parsed and s.score == 0.0
    else:
        assert s.parsed and s.detail == expected
    ego = Q.parse_relation("left front, mid", "ego")
    assert ego == ("front-left", "mid distance")
    assert Q.parse_relation("slightly front right, same", "ego") == ("front-slight-right", "same distance")


def test_coordinate_spellings_and_rotation_names():
    alloc = {"family": "allocentric-map", "objects": ["lamp", "chair"]}
    assert Q.score(W, alloc, "Answer: 0, 2; 5, 1").correct  # parentheses are optional
    assert Q.score(W, alloc, "Answer: (0.0, 2.0); (5, 1)").correct
    half = Q.score(W, alloc, "Answer: (0, 2); (5.5, 1)")
    assert half.parsed and half.score == 0.5 and not half.correct
    v2l = {"family": "view2location", "x": 3, "y": 1, "facing": "east"}
    assert Q.score(W, v2l, "Answer: 3, 1").correct
    assert not Q.score(W, v2l, "Answer: (3.5, 1)").correct
    rot = {"family": "mental-rotation", "objects": ["sofa", "chair", "lamp"], "direction": "clockwise"}
    assert Q.score(W, rot, "Answer: lamp, chair, sofa").correct
    assert not Q.score(W, rot, "Answer: ???").parsed  # names none of the listed objects
    partly = Q.score(W, rot, "Answer: lamp, vase, sofa")  # an unknown name is a wrong position
    assert partly.parsed and partly.score == 2 / 3


def test_generated_questions_have_consistent_truths():
    world, _ = cached_world(3, 3, 0, 5, 20)
    for family in Q.FAMILIES:
        q = Q.make_question(world, family, 11)
        assert q == Q.make_question(world, family, 11)
        assert Q.score(world, q, "Answer: " + Q.truth(world, q)).correct, (family, q)
        assert family.split("-")[0] in Q.question_text(
            world, q
        ).lower() or "Answer format" in Q.question_text(world, q)
        samples = Q.answer_space(world, q, random.Random(0))
        assert samples and all(s.startswith("Answer: ") for s in samples)


def test_cogmap_scoring_and_false_belief_f1():
    observed = frozenset({"lamp", "sofa", "red door"})
    agent = Pose(0, 0, "north")
    perfect = truth_map(W, frozenset({"lamp", "sofa", "chair", "plant", "red door"}), agent)
    import json

    m = score_cogmap(W, observed, agent, "Here: " + json.dumps(perfect))
    assert m["map_parsed"] and m["position_accuracy"] == 1 and m["direction_accuracy"] == 1
    assert m["facing_accuracy"] == 1 and m["agent_correct"]
    partial = score_cogmap(W, observed, agent, json.dumps(truth_map(W, observed, agent)))
    assert partial["position_accuracy"] == 3 / 5 and partial["observed_position_accuracy"] == 1.0
    assert not score_cogmap(W, observed, agent, "no json {here")["map_parsed"]
    assert last_json_object('a {"x": 1} b {"y": {"z": 2}}') == {"y": {"z": 2}}
    changes = [
        Change(name="lamp", kind="position", x=1, y=1),
        Change(name="sofa", kind="orientation", x=-2, y=2),
    ]
    assert changes_f1([("lamp", "position"), ("sofa", "orientation")], changes)["f1"] == 1.0
    half = changes_f1([("lamp", "position"), ("sofa", "position")], changes)
    assert half["precision"] == 0.5 and half["recall"] == 0.5 and half["f1"] == 0.5
    assert changes_f1([], changes)["f1"] == 0.0


def test_local_map_frame_accuracy_and_consistency():
    from playbench.tasks.tos.cogmap import local_truth_map, score_local, to_local

    agent = Pose(3, 1, "east")
    # facing east: +y is east, +x is south
    assert to_local(agent, 5, 1, "west") == ((0, 2), "-y")
    assert to_local(agent, 3, 0, "south") == ((1, 0), "+x")
    observed = frozenset({"chair", "plant", "red door", "lamp"})
    true_global = truth_map(W, observed, agent)
    true_local = local_truth_map(W, agent)
    # the local map holds only what is in view now: from the doorway facing east, chair and plant
    assert set(true_local) == {"origin", "chair", "plant"}
    m = score_local(W, agent, true_global, true_local)
    assert m["local_position_accuracy"] == 1 and m["local_facing_accuracy"] == 1
    assert m["local_global_consistency"] == 1 and m["local_visible"] == 2
    # a global map that believes the agent faces north, with a local map consistent with that belief
    wrong_pose = Pose(3, 1, "north")
    believed_global = truth_map(W, observed, wrong_pose)
    believed_local: dict = {"origin": "agent"}
    for name in ("chair", "plant"):
        entry = true_global[name]
        (lx, ly), lf = to_local(wrong_pose, *entry["position"], entry.get("facing"))
        believed_local[name] = {"position": [lx, ly]} | ({"facing": lf} if lf else {})
    m = score_local(W, agent, believed_global, believed_local)
    assert m["local_global_consistency"] == 1 and m["local_position_accuracy"] == 0
    # dropping one local entry makes that item inconsistent
    del believed_local["plant"]
    assert score_local(W, agent, believed_global, believed_local)["local_global_consistency"] == 1 / 2
    assert score_local(W, agent, None, None)["local_global_consistency"] == 0.0
    # an empty view with an empty local map is vacuously right
    empty = score_local(
        W, Pose(0, 0, "south"), truth_map(W, observed, Pose(0, 0, "south")), {"origin": "agent"}
    )
    assert empty["local_position_accuracy"] == 1 and empty["local_global_consistency"] == 1


def test_position_accuracy_is_the_papers_similarity():
    import json
    import math

    from playbench.tasks.tos.cogmap import scene_scale

    everything = frozenset({"lamp", "sofa", "chair", "plant", "red door"})
    agent = Pose(0, 0, "north")
    truth = truth_map(W, everything, agent)
    scale = scene_scale(W)  # RMS norm of the five item positions
    assert scale == math.sqrt((4 + 8 + 26 + 45 + 10) / 5)
    # every item one unit off: K/N = 1, RMSE = 1
    shifted = {k: (v | {"position": [v["position"][0] + 1, v["position"][1]]}) for k, v in truth.items()}
    m = score_cogmap(W, everything, agent, json.dumps(shifted))
    assert m["position_accuracy"] == math.exp(-1 / scale) and m["position_exact"] == 0
    # two of five items, both exact: K/N = 2/5
    two = {k: truth[k] for k in ("agent", "lamp", "chair")}
    m = score_cogmap(W, everything, agent, json.dumps(two))
    assert m["position_accuracy"] == 2 / 5 and m["position_exact"] == 2 / 5


@settings(max_examples=150, deadline=None)
@given(
    reply=st.one_of(
        st.text(max_size=120), st.from_regex(r"Answer: [\w\s,;()\-\[\]{}\":]{0,60}", fullmatch=True)
    )
)
def test_no_reply_makes_any_scorer_raise(reply):
    world, _ = cached_world(3, 3, 0, 1, 20)
    for family in Q.FAMILIES:
        s = Q.score(world, Q.make_question(world, family, 3), reply)
        assert 0.0 <= s.score <= 1.0 and (s.parsed or s.detail)
    m = score_cogmap(world, frozenset({o.name for o in world.objects}), Pose(0, 0, "north"), reply)
    assert 0.0 <= m["map_score"] <= 1.0


def test_coordinate_similarity_of_the_coordinate_families():
    import math

    want = [(0, 2), (5, 1)]
    assert Q.coordinate_similarity([(0, 2), (5, 1)], want) == 1.0
    scale = math.sqrt((4 + 26) / 2)
    # both one unit east: positions exp(-1/L), both pair directions kept
    assert Q.coordinate_similarity([(1, 2), (6, 1)], want) == (math.exp(-1 / scale) + 1) / 2
    # one of two answered, exactly: K/N = 1/2, no pair can be judged
    assert Q.coordinate_similarity([(0, 2)], want) == (0.5 + 0) / 2
    alloc = {"family": "allocentric-map", "objects": ["lamp", "chair"]}
    assert Q.score(W, alloc, "Answer: (0, 2); (5, 1)").similarity == 1.0
    v2l = {"family": "view2location", "x": 3, "y": 1, "facing": "east"}
    assert Q.score(W, v2l, "Answer: (3, 1)").similarity == 1.0
    assert Q.score(W, v2l, "Answer: (0, 0)").similarity == 0.0  # another view: no credit


def test_question_views_keep_the_frame_of_close_pair_relations():
    """Facing west, the sofa (truly west of the lamp) is "north" of it in the view's own frame; the
    question must say so, or the relation reads as a map direction."""
    frame = 'close pairs (your current facing direction called "north"): sofa is north of lamp, near'
    for family in ("view2location", "view2action"):
        q = {"family": family, "x": 3, "y": 1, "facing": "west", "actions": ["Rotate(-90)"]}
        assert frame in Q.question_text(W, q)
    assert Q._view_text(W, Pose(3, 1, "west")).startswith("sofa: front-slight-right, slightly far")
    assert Q._view_text(W, Pose(0, 0, "east")) == "red door: front-slight-left, mid distance, on front wall"


@pytest.mark.parametrize(
    "q, reply, parsed, correct",
    [
        # the answer formats are written with <placeholders> and lists are often bracketed
        ({"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}, "Answer: <east>, <slightly far>",
         True, True),
        ({"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}, "Answer: (east, slightly far)",
         True, True),
        ({"family": "location2view", "x": 1, "y": 0, "facing": "west", "target": "sofa"},
         "Answer: [front-right, mid distance]", True, True),
        ({"family": "perspective-determine", "anchor": "sofa"}, "Answer: <sofa>", True, True),
        ({"family": "mental-rotation", "objects": ["sofa", "chair", "lamp"], "direction": "clockwise"},
         "Answer: [lamp, chair, sofa]", True, True),
        ({"family": "mental-rotation", "objects": ["sofa", "chair", "lamp"], "direction": "clockwise"},
         'Answer: "lamp", "chair", "sofa"', True, True),
        # two moves missing their comma are not one JumpTo of "lamp) Rotate(90": unreadable
        ({"family": "view2action", "x": 0, "y": 2, "facing": "east", "actions": []},
         "Answer: JumpTo(lamp) Rotate(90)", False, False),
        ({"family": "view2action", "x": 0, "y": 2, "facing": "east", "actions": []},
         "Answer: [JumpTo(lamp), Rotate(90)]", True, True),
        # a list written one item per line, and names with an article
        ({"family": "mental-rotation", "objects": ["sofa", "chair", "lamp"], "direction": "clockwise"},
         "Turning right I meet them in turn.\nAnswer:\n1. lamp\n2. chair\n3. sofa", True, True),
        ({"family": "mental-rotation", "objects": ["sofa", "chair", "lamp"], "direction": "clockwise"},
         "Answer:\n- the lamp\n- the chair\n- the sofa\nDone.", True, True),
        ({"family": "perspective-determine", "anchor": "sofa"}, "Answer: The sofa.", True, True),
        ({"family": "pairwise-direction", "obj": "chair", "anchor": "lamp"}, "Answer:\n1. east, slightly far",
         True, True),
    ],
)  # fmt: skip
def test_wrapped_and_run_together_answers(q, reply, parsed, correct):
    s = Q.score(W, q, reply)
    assert (s.parsed, s.correct) == (parsed, correct), s
