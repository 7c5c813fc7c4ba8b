"""Every registered task obeys the task protocol (DESIGN.md, Tests)."""

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playbench.core.registry import all_specs, make_task
from playbench.core.task import Task
from playbench.core.types import Observation, StepResult, Validity

SPECS = all_specs()
IDS = [s.id for s in SPECS]
SAMPLE = 6  # instances per task for the per-step checks; the oracle check uses the whole set


def make(spec) -> Task:
    return spec.make()


def snapshot(obs: Observation) -> tuple:
    return (obs.role, obs.text, tuple(i.png for i in obs.images), obs.instructions, tuple(obs.legal_actions))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_instances_are_seeded_and_round_trip_json(spec):
    task = make(spec)
    a = task.instances(SAMPLE, 7)
    b = make(spec).instances(SAMPLE, 7)
    assert [x.model_dump() for x in a] == [x.model_dump() for x in b]
    assert len({x.id for x in a}) == len(a) == SAMPLE
    assert [x.id for x in task.instances(SAMPLE, 8)] != [x.id for x in a] or [
        x.model_dump() for x in task.instances(SAMPLE, 8)
    ] != [x.model_dump() for x in a]
    # the first n of a bigger set are the same instances (a run with more episodes extends a smaller one)
    assert [x.model_dump() for x in task.instances(SAMPLE + 3, 7)[:SAMPLE]] == [x.model_dump() for x in a]
    for inst in a:
        again = task.load_instance(json.loads(json.dumps(inst.model_dump(mode="json"))))
        assert again == inst


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_observations_are_deterministic(spec):
    for inst in make(spec).instances(4, 0):
        t1, t2 = make(spec), make(spec)
        t1.reset(inst)
        t2.reset(inst)
        for _ in range(3):
            role = t1.current_role()
            o1, o2 = t1.observe(role), t2.observe(role)
            assert snapshot(o1) == snapshot(o2)
            if t1.done or not o1.legal_actions:
                break
            move = o1.legal_actions[0]
            assert t1.step(move).validity == t2.step(move).validity


@pytest.mark.parametrize(
    "spec", [s for s in SPECS if s.load_class().oracle_action is not Task.oracle_action], ids=lambda s: s.id
)
def test_oracle_solves_every_default_instance_in_optimal_steps(spec):
    task = make(spec)
    for inst in task.instances(None, 0):
        task.reset(inst)
        while not task.done:
            move = task.oracle_action(task.current_role())
            assert move is not None
            result = task.step(move)
            assert result.validity not in (Validity.INVALID, Validity.UNPARSEABLE), result.feedback
        out = task.outcome()
        assert out.success, inst.id
        assert out.steps == inst.optimal_steps, inst.id


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_random_legal_play_never_raises(spec):
    rng = random.Random(0)
    for inst in make(spec).instances(SAMPLE, 1):
        task = make(spec)
        task.reset(inst)
        while not task.done:
            obs = task.observe(task.current_role())
            action = rng.choice(obs.legal_actions) if obs.legal_actions else ""
            result = task.step(action)
            assert isinstance(result, StepResult) and result.feedback
        out = task.outcome()
        json.dumps(out.metrics)
        assert out.steps >= 0


def _state(task: Task) -> tuple:
    return snapshot(task.observe(task.current_role()))[:2]


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.one_of(
        st.text(max_size=200),
        st.sampled_from(["", "action:", "ACTION: move", "move", "\x00", "action: " * 50]),
    )
)
def test_fuzzed_actions_get_feedback_and_unparseable_ones_change_nothing(spec, text):
    task = make(spec)
    task.reset(task.instances(1, 0)[0])
    before = task.observe(task.current_role())
    result = task.step(text)
    assert isinstance(result, StepResult) and result.feedback.strip()
    if result.validity in (Validity.UNPARSEABLE, Validity.INVALID):
        after = task.observe(task.current_role())
        # the state part of the observation is unchanged (feedback and step counters may differ)
        assert [i.png for i in after.images if i.label == "goal"] == [
            i.png for i in before.images if i.label == "goal"
        ]
        assert after.legal_actions == before.legal_actions


def _first_observation_digest(task_id: str) -> str:
    task = make_task(task_id)
    task.reset(task.instances(3, 0)[2])
    obs = task.observe(task.current_role())
    digest = hashlib.sha256(obs.text.encode() + obs.instructions.encode())
    for image in obs.images:
        digest.update(image.png)
    return digest.hexdigest()


FRESH_SPECS = [s for s in SPECS if not s.id.startswith("toy/")]


@pytest.fixture(scope="module")
def fresh_process_digests() -> dict[str, str]:
    # one fresh interpreter (new GL context, new caches) for every task: a process per task costs
    # more than the check itself
    ids = [s.id for s in FRESH_SPECS]
    code = (
        "import json\nfrom test_conformance import _first_observation_digest as d\nout = {}\n"
        f"for i in {ids!r}:\n"
        "    try:\n        out[i] = d(i)\n"
        "    except Exception as exc:\n        out[i] = f'failed: {type(exc).__name__}: {exc}'\n"
        "print(json.dumps(out))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=Path(__file__).parent
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("spec", FRESH_SPECS, ids=lambda s: s.id)
def test_observations_are_identical_in_a_fresh_process(spec, fresh_process_digests):
    assert fresh_process_digests[spec.id] == _first_observation_digest(spec.id)
