"""Every registered task obeys the task protocol (DESIGN.md, Tests), checked with the conformance
check playbench ships (`playbench.testing.conformance`, `playbench check`)."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playbench.core.registry import all_specs, get_spec, make_task
from playbench.core.types import StepResult, Validity
from playbench.testing.conformance import Conformance, check_task

# the raw-protocol toy tasks (relay, consult) test the runner's handling of tasks outside the
# template; the walk task is on the template and is checked like a suite
SPECS = [s for s in all_specs() if not s.id.startswith("toy/") or s.id == "toy/walk"]
IDS = [s.id for s in SPECS]
CHECKS = ["instances", "order", "determinism", "state", "rejected_actions", "random_play"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_conformance(spec, check):
    getattr(Conformance(spec), f"check_{check}")()


@pytest.mark.parametrize("spec", [s for s in SPECS if s.load_class().has_oracle()], ids=lambda s: s.id)
def test_oracle_solves_every_default_instance_in_optimal_steps(spec):
    Conformance(spec).check_oracle()


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.one_of(
        st.text(max_size=200),
        st.sampled_from(["", "action:", "ACTION: move", "move", "\x00", "action: " * 50]),
    )
)
def test_fuzzed_actions_get_feedback_and_rejected_ones_change_no_state(spec, text):
    task = spec.make()
    task.reset(task.instances(1, 0)[0])
    before = task.state_digest()
    result = task.step(text)
    assert isinstance(result, StepResult) and result.feedback.strip()
    if result.validity in (Validity.UNPARSEABLE, Validity.INVALID):
        assert task.state_digest() == before


def test_the_check_catches_an_unparseable_action_that_changes_hidden_state():
    """A mutant of the walk task whose unreadable replies secretly move the walker: nothing it shows
    changes (same observation text before the next step), but its state does."""
    import toy

    class Sneaky(toy.WalkTask):
        def _on_parse_error(self, error):
            self.pos = (self.pos + 1) % self.config.length  # the hidden change
            return super()._on_parse_error(error)

    spec = get_spec("toy/walk")
    check = Conformance(spec)
    check.make = lambda: Sneaky(**spec.options)
    with pytest.raises(AssertionError, match="changed the game state"):
        check.check_rejected_actions()
    Conformance(spec).check_rejected_actions()  # the honest task passes the same check


def test_check_task_reports_every_check_and_a_crash_as_a_failure():
    import toy

    class Broken(toy.WalkTask):
        def state(self):
            raise ValueError("no state today")

    spec = get_spec("toy/walk")
    report = check_task(spec)
    assert report.passed and {r.name for r in report.results} >= {"state", "oracle", "random play"}
    conf = Conformance(spec)
    conf.make = lambda: Broken(**spec.options)
    with pytest.raises(ValueError, match="no state today"):
        conf.check_state()


def test_playbench_check_cli_passes_and_fails(capsys, monkeypatch):
    from playbench.cli import main

    assert main(["check", "toy/walk", "--sample", "2", "--fuzz", "5"]) == 0
    assert "every check passed" in capsys.readouterr().out
    # a raw-protocol task whose unreadable answers advance the game fails the shipped check
    assert main(["check", "toy/relay", "--sample", "2", "--fuzz", "5"]) == 1
    out = capsys.readouterr().out
    assert "FAIL toy/relay: state" in out and "1 task(s) failed" in out


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
