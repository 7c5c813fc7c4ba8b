"""`Task.progress()` for error maps in COMMA, MM-Escape and ToS (issue 30, item 4).

For every task with an oracle: the oracle's episode starts at the oracle's full distance, never moves
away from the goal, ends at distance 0 with fraction 1.0; asking never changes the state; play off the
oracle's path (random legal actions, wrong answers) gets a distance whenever the oracle has a way.
Instances: generated ones, the twins, and the paper sets (MM-Escape's shipped scenes; COMMA's and
ToS's in the authors' formats, written by the fixtures of their own tests).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from test_tos_scenes import write_scenes

from playbench.core.registry import make_task
from playbench.core.task import Task
from playbench.core.types import Progress
from playbench.tasks.comma.modules import NAMES as COMMA_MODULES
from playbench.tasks.mmescape.planner import _play_out


def asked(task: Task) -> Progress:
    """progress(), checked to leave the state alone."""
    before = task.state_digest()
    p = task.progress()
    assert task.state_digest() == before
    assert p is not None
    assert p.fraction is None or 0.0 <= p.fraction <= 1.0
    return p


def oracle_trace(task: Task, instance: Any, cap: int = 300) -> list[Progress]:
    """Progress after reset and after every step of the oracle's episode."""
    task.reset(instance)
    trace = [asked(task)]
    while not task.done:
        assert len(trace) <= cap
        task.step(task.oracle_action(task.current_role()) or "")
        trace.append(asked(task))
    assert task.outcome().success
    return trace


def check_oracle(task: Task, instance: Any, first: int) -> list[Progress]:
    trace = oracle_trace(task, instance)
    d = [p.distance for p in trace]
    assert None not in d, (instance.id, d)
    assert d[0] == first, (instance.id, d)
    assert all(b <= a for a, b in zip(d, d[1:], strict=False)), (instance.id, d)
    assert d[-1] == 0 and trace[-1].fraction == 1.0, (instance.id, trace[-1])
    return trace


def random_play(task: Task, instance: Any, steps: int, seed: int = 0) -> list[Progress]:
    rng = random.Random(seed)
    task.reset(instance)
    out = [asked(task)]
    for _ in range(steps):
        if task.done:
            break
        legal = task.observe(task.current_role()).legal_actions
        task.step(rng.choice(legal) if legal else "hello")
        out.append(asked(task))
    return out


# --- COMMA ------------------------------------------------------------------------------------
@pytest.mark.parametrize("module", COMMA_MODULES)
def test_comma_oracle_pair_counts_down_to_disarmed(module: str) -> None:
    """Distance: the pair's conversation turns (optimal_steps at the start), one less after each
    solver reply, the same after the expert's answer; fraction: the partial score, 1 when disarmed."""
    task = make_task(f"comma/{module}")
    for inst in task.instances(3, 0):
        trace = check_oracle(task, inst, inst.optimal_steps)
        # a solver reply takes one turn off; the expert's answer keeps the count
        solver_steps = sum(1 for a, b in zip(trace, trace[1:], strict=False) if b.distance == a.distance - 1)
        assert solver_steps == inst.optimal_steps


def test_comma_twins_count_down_too() -> None:
    task = make_task("comma/all", dataset="twin")
    for inst in task.instances(16, 3):
        check_oracle(task, inst, inst.optimal_steps)


@pytest.mark.parametrize("options", [{"expert_answers": "messages"}, {"turn_clock": True}])
def test_comma_protocol_options_count_down_too(options: dict) -> None:
    task = make_task("comma/all", **options)
    for inst in task.instances(10, 1):
        check_oracle(task, inst, inst.optimal_steps)


def test_comma_authors_puzzles_count_down_too(tmp_path: Path) -> None:
    """The authors' set (their `puzzles_final.json` format): wire, who and keypad puzzles."""
    entries = [
        {"SimpleWirePuzzle": {"n_wires": 3, "colors": ["blue", "blue", "red"]}},
        {"SimpleWirePuzzle": {"n_wires": 5, "colors": ["red", "yellow", "yellow", "black", "blue"]}},
        {
            "WhoPuzzle": {
                "display_text": "YES",
                "button_texts": ["READY", "FIRST", "NO", "BLANK", "WAIT", "LEFT"],
            }
        },
        {"KeyPadPuzzle": {"strip_num": 2, "image_nums": [0, 3, 5, 6]}},
        {"AtmPuzzle": {"PIN": "0000", "Balance": 1}},
    ]
    path = tmp_path / "puzzles_final.json"
    path.write_text(json.dumps(entries))
    for module in ("wire", "who", "keypad"):
        task = make_task(f"comma/{module}", puzzles=str(path))
        for inst in task.instances(None, 0):
            check_oracle(task, inst, inst.optimal_steps)


def test_comma_a_wrong_answer_costs_the_turn_of_asking_again() -> None:
    task = make_task("comma/wire")
    task.reset(task.instances(1, 0)[0])
    answer = task.module.answer
    wrong = 1 if answer != 1 else 2
    assert asked(task) == Progress(distance=2, fraction=0.0)
    task.step("What do you need to know?")  # asked: the expert answers next
    assert asked(task).distance == 1
    task.step(f"cut_wire_{wrong}")  # the expert names the wrong wire: the solver must ask again
    assert asked(task).distance == 2
    task.step(f"cut_wire_{wrong}")  # a strike; the (oracle) expert answers next
    assert asked(task).distance == 1
    task.step(f"cut_wire_{answer}")  # the right line: one turn to carry it out
    assert asked(task).distance == 1
    task.step(f"cut_wire_{answer}")
    assert task.done and asked(task) == Progress(distance=0, fraction=1.0)


def test_comma_partial_score_is_the_fraction_and_a_dead_timer_has_no_distance() -> None:
    task = make_task("comma/memory")
    task.reset(task.instances(1, 0)[0])
    while task.module.partial_score() == 0:
        task.step(task.oracle_action(task.current_role()) or "")
    p = asked(task)
    assert p.fraction == task.module.partial_score() == 0.2 and p.distance is not None
    task.session.waited = task.session.clock  # the timer at zero: no way to the goal
    assert asked(task).distance is None


def test_comma_random_play_keeps_a_distance() -> None:
    task = make_task("comma/all")
    for inst in task.instances(20, 0):
        trace = random_play(task, inst, 12)
        assert all(p.distance is not None for p in trace)


# --- MM-Escape --------------------------------------------------------------------------------
def test_mmescape_paper_scenes_count_down_to_the_escape() -> None:
    """Every public scene of the paper's four settings: the planner's remaining steps."""
    task = make_task("mmescape/paper")
    instances = task.instances(None, 0)
    assert len(instances) > 40
    for inst in instances:
        trace = check_oracle(task, inst, inst.optimal_steps)
        gains = [p.fraction for p in trace]
        assert all(b >= a for a, b in zip(gains, gains[1:], strict=False))


@pytest.mark.parametrize(
    ("task_id", "options", "n"),
    [
        ("mmescape/paper", {"dataset": "twin"}, 12),
        ("mmescape/paper-level-3.5", {}, 3),
        ("mmescape/paper-houses", {}, 2),
        ("mmescape/level-3-note-key", {}, 2),
        ("mmescape/multi-room", {}, 1),
        ("mmescape/paper-level-3-note-key", {"protocol": "playbench"}, 4),
    ],
)
def test_mmescape_twins_and_other_levels_count_down(task_id: str, options: dict, n: int) -> None:
    task = make_task(task_id, **options)
    for inst in task.instances(n, 0):
        check_oracle(task, inst, inst.optimal_steps)


def test_mmescape_fraction_is_the_prop_gain() -> None:
    """Level 3: the key props (the note, the key in the box) as `prop_gain`; level 1 has none."""
    task = make_task("mmescape/paper-level-3-key-note")
    inst = task.instances(1, 0)[0]
    trace = oracle_trace(task, inst)
    assert [p.fraction for p in trace][:4] == [0.0, 0.0, 0.5, 1.0]
    assert task.outcome().metrics["prop_gain"] == trace[-1].fraction == 1.0
    task = make_task("mmescape/paper-level-1")
    trace = oracle_trace(task, task.instances(1, 0)[0])
    assert [p.fraction for p in trace] == [0.0] * (len(trace) - 2) + [1.0, 1.0]  # escape, debriefing


def test_mmescape_walking_into_furniture_still_has_a_distance() -> None:
    """A player pressed against furniture (closer than the planner's margin, where its routes start
    nowhere) gets the planner's way after one recovery move: random walks keep a distance."""
    task = make_task("mmescape/paper-level-3-key-note")
    rng = random.Random(0)
    recovered = 0
    for inst in task.instances(3, 0):
        task.reset(inst)
        for _ in range(20):
            walk = {"rotate_right": rng.uniform(-180, 180), "move_forward": rng.uniform(0.5, 5)}
            task.step(json.dumps(walk))
            p = asked(task)
            assert p.distance is not None and p.distance >= 1
            recovered += _play_out(task._oracle_planner(), task._state, 200, {}) is None
    assert recovered  # the recovery move was needed (and found) somewhere


# --- ToS --------------------------------------------------------------------------------------
def test_tos_explore_counts_observe_turns_to_full_coverage() -> None:
    """Distance: Observe() turns left (optimal_steps less the Term() turn at the start); fraction:
    the coverage metric."""
    task = make_task("tos/explore")
    for inst in task.instances(6, 0):
        trace = check_oracle(task, inst, inst.optimal_steps - 1)
        assert trace[-1].fraction == task.outcome().metrics["coverage"] == 1.0
        assert [p.distance for p in trace] == [*range(inst.optimal_steps - 1, -1, -1), 0]


def test_tos_twins_and_the_authors_scenes_count_down(tmp_path: Path) -> None:
    scenes = write_scenes(tmp_path / "3-room")
    for options in ({"dataset": "twin"}, {"scenes": str(scenes)}, {"rooms": 4, "objects": 6}):
        task = make_task("tos/explore", **options)
        for inst in task.instances(3, 1):
            check_oracle(task, inst, inst.optimal_steps - 1)


def test_tos_cogmap_exploration_phase_and_answer() -> None:
    """Cogmap: the same through the belief probes (no step, no change) and the answer turn."""
    task = make_task("tos/cogmap")
    for inst in task.instances(2, 0):
        trace = check_oracle(task, inst, inst.optimal_steps - 2)
        assert trace[-1].fraction == 1.0
    passive = make_task("tos/cogmap", exploration="passive")
    passive.reset(passive.instances(1, 0)[0])
    assert passive.progress() is None


def test_tos_question_and_false_belief_tasks_define_none() -> None:
    for task_id in ("tos/pairwise-direction", "tos/false-belief"):
        task = make_task(task_id)
        task.reset(task.instances(1, 0)[0])
        assert task.progress() is None


def test_tos_random_play_keeps_a_distance_and_coverage_never_drops() -> None:
    task = make_task("tos/explore")
    for k, inst in enumerate(task.instances(8, 0)):
        trace = random_play(task, inst, 15, seed=k)
        assert None not in [p.distance for p in trace]
        f = [p.fraction for p in trace]
        assert all(b >= a for a, b in zip(f, f[1:], strict=False))


def test_tos_a_repeated_view_is_a_wasted_turn() -> None:
    task = make_task("tos/explore")
    inst = task.instances(1, 0)[0]
    task.reset(inst)
    task.step(task.oracle_action("player") or "")
    after = asked(task)
    task.step("Actions: [Observe()]")  # the same view again: nothing new
    assert asked(task) == after and after.distance == inst.optimal_steps - 2


def test_tos_leaving_the_start_too_early_raises_the_distance() -> None:
    """Moving away from the start before observing all it shows loses those views (no way back
    without Return()): the distance is the plan from here, so it can grow."""
    task = make_task("tos/explore")
    inst = task.instances(18, 0)[17]
    task.reset(inst)
    task.step("Actions: [Observe()]")
    assert asked(task).distance == 5
    task.step("Actions: [JumpTo(teddybear), Observe()]")  # nothing new in view here
    assert asked(task).distance == 6


# --- cost ---------------------------------------------------------------------------------------
def _random_reply(task: Task, rng: random.Random) -> str:
    if task.current_role() == "player" and type(task).__module__.endswith("mmescape.task"):
        # a random walk (as the random agent's moves), without rendering the observation
        return json.dumps({"rotate_right": rng.uniform(-180, 180), "move_forward": rng.uniform(0.5, 5)})
    legal = task.observe(task.current_role()).legal_actions
    return rng.choice(legal) if legal else "hello"


@pytest.mark.parametrize(
    ("task_id", "bound_ms"),
    [("comma/all", 20), ("mmescape/paper-level-3-key-note", 150), ("tos/explore", 20)],
)
def test_a_call_is_cheap(task_id: str, bound_ms: float) -> None:
    """Mean cost per call over random play (generous bounds; the READMEs state measured figures)."""
    task = make_task(task_id)
    total, calls = 0.0, 0
    rng = random.Random(5)
    for inst in task.instances(4, 0):
        task.reset(inst)
        for _ in range(10):
            if task.done:
                break
            task.step(_random_reply(task, rng))
            start = time.perf_counter()
            task.progress()
            total += time.perf_counter() - start
            calls += 1
    assert total / calls * 1000 < bound_ms
