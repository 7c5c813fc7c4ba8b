"""MM-Escape metrics (escape rate, prop gain, grab success rate and ratio, distances), the
distance correlation of the summary, and the judge: story score and Table 15 consistency."""

import json

import numpy as np
import pytest
from test_mmescape_world import aim_pitch, room_instance

from playbench.core.registry import make_task
from playbench.core.types import Validity
from playbench.tasks.mmescape.scoring import distance_correlation, parse_consistency, parse_story_score
from playbench.tasks.mmescape.task import EscapeTask


def test_metrics_of_a_scripted_episode():
    task = EscapeTask(protocol="playbench", level="level-2")
    inst = room_instance("level-2").model_copy(update={"optimal_steps": 2, "optimal_distance": 4.2})
    task.reset(inst)
    p_key = aim_pitch(3.5, 0.435)
    replies = [
        '{"grab": true, "rationale": "the door?"}',  # the door is 7.5 m away: a failed grab
        json.dumps(
            {"move_forward": 1, "rotate_down": p_key, "grab": True, "rationale": "take the key on the table"}
        ),
        '{"rotate_right": 20}',
        json.dumps({"rotate_right": -20, "rotate_down": -p_key, "move_forward": 10, "jump": True}),
        json.dumps(
            {
                "rotate_down": aim_pitch(0.25, 1.0),
                "grab": True,
                "interactions": {"use_item_id": "key_1"},
                "rationale": "open the door with the key to leave",
            }
        ),
    ]
    results = [task.step(r) for r in replies]
    assert "too far away" in results[0].feedback and results[0].validity == Validity.INEFFECTIVE
    assert "picked up key_1" in results[1].feedback
    assert task.done
    out = task.outcome()
    m = out.metrics
    assert out.success and out.steps == 5 and m["escaped"]
    assert m["grab_attempts"] == 3 and m["grab_successes"] == 2
    assert m["grab_success_rate"] == pytest.approx(2 / 3) and m["grab_ratio"] == pytest.approx(3 / 5)
    assert m["prop_gain"] == 1.0 and m["prop_gain_with_exit"] == 1.0 and m["rooms_escaped"] == 1
    assert m["moving_distance"] == pytest.approx(1 + (6.5 - 0.28), abs=5e-3)
    assert m["optimal_distance"] == 4.2 and m["optimal_steps"] == 2
    assert m["steps_to_core_prop"] == 2 and m["steps_core_to_exit"] == 3
    json.dumps(m)


def test_prop_gain_counts_what_was_obtained_before_the_cap():
    task = EscapeTask(protocol="playbench", level="level-2", max_steps=3)
    task.reset(room_instance("level-2"))
    task.step(json.dumps({"move_forward": 1, "rotate_down": aim_pitch(3.5, 0.435), "grab": True}))
    task.step("{}")
    task.step("{}")
    out = task.outcome()
    # playbench's count (the key and the exit): half; the paper's (the props the exit needs: the key): all
    assert task.done and not out.success and out.metrics["prop_gain_with_exit"] == 0.5
    assert out.metrics["prop_gain"] == 1.0
    assert out.metrics["grab_success_rate"] == 1.0 and out.metrics["steps_core_to_exit"] is None


def test_no_grab_means_no_grab_success_rate():
    task = EscapeTask(protocol="playbench", level="level-2", max_steps=2)
    task.reset(room_instance("level-2"))
    task.step('{"rotate_right": 10}')
    task.step('{"rotate_right": 10}')
    m = task.outcome().metrics
    assert m["grab_success_rate"] is None and m["grab_ratio"] == 0.0 and m["prop_gain_with_exit"] == 0.0
    assert m["prop_gain"] == 0.0 and m["grab_success_rate_eval"] == 0.0


def test_summary_correlates_moving_and_optimal_distance():
    rows = [
        {
            "success": s,
            "metrics": {
                "moving_distance": mv,
                "optimal_distance": op,
                "scene": sc,
                "exit_visible_at_start": v,
            },
        }
        for s, mv, op, sc, v in [
            (True, 5.0, 4.0, "office", True),
            (True, 9.0, 8.0, "office", False),
            (False, 2.0, 1.0, "study", False),
            (True, 7.5, 6.0, "study", True),
        ]
    ]
    assert distance_correlation(rows)["pearson_r"] == pytest.approx(
        float(np.corrcoef([5, 9, 2, 7.5], [4, 8, 1, 6])[0, 1])
    )
    assert distance_correlation(rows[:2])["pearson_r"] is None
    summary = EscapeTask(protocol="playbench", level="level-1").summarize(rows)
    assert summary["distance_correlation"]["n"] == 4 and summary["distance_correlation_escaped"]["n"] == 3
    assert summary["escape_rate_by_scene"]["study"] == {"n": 2, "escape_rate": 0.5}
    assert summary["escape_rate_by_exit_visible"]["True"]["escape_rate"] == 1.0


@pytest.mark.parametrize(
    "text, verdict",
    [
        ('{"Consistency": 1}', 1),
        ('{"Consistency": "0"}', 0),
        ("Consistency: 0", 0),
        ("consistency = 1", 1),
        ("1", 1),
        ("The agent meant it. {'Consistency': 1}", 1),
        ("yes", None),
        ("Consistency: maybe", None),
    ],
)
def test_consistency_verdicts_are_parsed(text, verdict):
    assert parse_consistency(text) == verdict


@pytest.mark.parametrize(
    "text, score",
    [('{"score": 4}', 4.0), ("Score: 3.5", 3.5), ("2", 2.0), ('{"score": 7}', None), ("good story", None)],
)
def test_story_scores_are_parsed(text, score):
    assert parse_story_score(text) == score


def play_with_judge(replies_for_judge):
    task = make_task("mmescape/level-3-note-key", protocol="playbench", judge=True)
    assert task.roles == ("player", "judge")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    roles = []
    while not task.done:
        role = task.current_role()
        roles.append((role, task.phase))
        obs = task.observe(role)
        task.step(replies_for_judge(obs.text) if role == "judge" else task.oracle_action(role))
    return task, inst, roles


def test_debriefing_and_judging_follow_an_escape():
    task, inst, roles = play_with_judge(
        lambda text: '{"score": 4}' if "Recovered story" in text else '{"Consistency": 1}'
    )
    phases = [p for _, p in roles]
    assert phases.count("play") == inst.optimal_steps and phases.count("debrief") == 1
    assert [r for r, _ in roles if r == "judge"] == ["judge"] * 4  # the story and 3 interactions
    out = task.outcome()
    assert out.steps == inst.optimal_steps and out.success
    assert out.metrics["story_score"] == 4.0 and out.metrics["consistency_rate"] == 1.0
    assert out.metrics["judged_interactions"] == 3 and out.metrics["judge_unparseable"] == 0
    assert out.metrics["story_answered"]


def test_unreadable_verdicts_are_recorded_not_raised():
    task, _, _ = play_with_judge(lambda text: "I cannot decide." if "rationale:" in text else '{"score": 2}')
    m = task.outcome().metrics
    assert m["story_score"] == 2.0 and m["consistency_rate"] is None and m["judge_unparseable"] == 3


def test_the_judge_sees_the_rationale_and_the_response():
    task = make_task("mmescape/level-2", protocol="playbench", judge=True)
    task.reset(task.instances(1, 0)[0])
    while task.current_role() == "player":
        task.step(task.oracle_action("player"))
    obs = task.observe("judge")
    assert "rationale: I go for key_1 (key)." in obs.text and "response: You picked up key_1" in obs.text
    assert obs.legal_actions == ['{"Consistency": 1}', '{"Consistency": 0}']
