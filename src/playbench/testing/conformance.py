"""The task-protocol conformance check, shipped so any suite author can run it (PettingZoo's
`api_test` idea): `check_task("suite/name")` or `playbench check suite/name`.

It plays the task itself, with no model, and checks what every playbench task promises
(docs/DESIGN.md, "Tasks"):

- instances: seeded, unique ids, a longer set extends a shorter one, JSON round trip;
- order: playing before `reset` is a clear error, not a crash deep inside the task;
- observations and step verdicts are the same for two fresh tasks on the same instance;
- `state()` is defined and JSON-able;
- unparseable and rule-illegal actions (a fixed list of awkward strings plus seeded random text)
  always get feedback and never change `state_digest()`, at the start and later in an episode;
- random legal play never raises and ends with a `termination` from the vocabulary;
- a step after the end is refused and changes nothing;
- the oracle, where there is one, solves every default instance in exactly `optimal_steps`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from playbench.core.errors import PlaybenchError
from playbench.core.registry import TaskSpec, get_spec
from playbench.core.task import Task
from playbench.core.termination import TERMINATIONS
from playbench.core.types import Observation, StepResult, Validity

# Replies a model really sends when it goes wrong, and the edges of the text a parser meets.
AWKWARD_REPLIES = (
    "",
    " ",
    "\n",
    "\x00",
    "action:",
    "ACTION: move",
    "move",
    "action: " * 50,
    "{",
    '{"move_forward": "far"}',
    "<ANSWER></ANSWER>",
    "label:",
    "JumpTo()",
    "Rotate(45)",
    "🙂" * 20,
    "a" * 5000,
    "None",
    "null",
    "[]",
)
REJECTED = (Validity.UNPARSEABLE, Validity.INVALID)


@dataclass
class CheckResult:
    name: str
    passed: bool
    message: str = ""
    seconds: float = 0.0


@dataclass
class TaskReport:
    task_id: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if not r.passed]


class ConformanceError(AssertionError):
    """A check that failed; its message names the instance, the action and what went wrong."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _snapshot(obs: Observation) -> tuple:
    return (obs.role, obs.text, tuple(i.png for i in obs.images), obs.instructions, tuple(obs.legal_actions))


def _random_text(rng: random.Random) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789:_-(){}[]<>/\"',.\n\t→é漢"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 120)))


class Conformance:
    """The checks for one registered task; each method raises ConformanceError on a failure."""

    def __init__(self, spec: TaskSpec, sample: int = 6, fuzz: int = 40, seed: int = 0) -> None:
        self.spec = spec
        self.sample = sample
        self.fuzz = fuzz
        self.seed = seed

    def make(self) -> Task:
        return self.spec.make()

    def started(self, instance: Any) -> Task:
        task = self.make()
        task.reset(instance)
        return task

    # --- the checks --------------------------------------------------------------------------
    def check_instances(self) -> None:
        task = self.make()
        a = task.instances(self.sample, 7)
        b = self.make().instances(self.sample, 7)
        dump = [x.model_dump() for x in a]
        _require(dump == [x.model_dump() for x in b], "two tasks give different instances for one seed")
        _require(len(a) == self.sample, f"instances({self.sample}, 7) gave {len(a)} instances")
        _require(len({x.id for x in a}) == len(a), "instance ids repeat within one set")
        longer = task.instances(self.sample + 3, 7)[: self.sample]
        _require([x.model_dump() for x in longer] == dump, "a longer set does not start with the shorter one")
        for inst in a:
            again = task.load_instance(json.loads(json.dumps(inst.model_dump(mode="json"))))
            _require(again == inst, f"instance {inst.id} does not survive a JSON round trip")

    def check_order(self) -> None:
        for call in (lambda t: t.step("x"), lambda t: t.observe(t.roles[0]), lambda t: t.outcome()):
            try:
                call(self.make())
            except (RuntimeError, PlaybenchError):
                continue
            except Exception as exc:
                raise ConformanceError(
                    f"playing before reset() raised {type(exc).__name__}: {exc} "
                    "(expected a RuntimeError saying to call reset first)"
                ) from None
            raise ConformanceError("playing before reset() was accepted")

    def check_determinism(self) -> None:
        for inst in self.make().instances(min(self.sample, 4), 0):
            t1, t2 = self.started(inst), self.started(inst)
            for _ in range(3):
                role = t1.current_role()
                o1, o2 = t1.observe(role), t2.observe(role)
                _require(_snapshot(o1) == _snapshot(o2), f"{inst.id}: two fresh tasks observe differently")
                if t1.done or not o1.legal_actions:
                    break
                move = o1.legal_actions[0]
                _require(
                    t1.step(move).validity == t2.step(move).validity,
                    f"{inst.id}: the same move {move!r} is judged differently",
                )

    def check_state(self) -> None:
        task = self.started(self.make().instances(1, 0)[0])
        state = task.state()
        _require(state is not None, "state() is not defined, so no check can see hidden state")
        try:
            json.dumps(state, default=str)
        except (TypeError, ValueError) as exc:
            raise ConformanceError(f"state() is not JSON-able: {exc}") from None
        _require(task.state_digest() == task.state_digest(), "state_digest() is not stable")

    @staticmethod
    def _last_step_before_cap(task: Task) -> bool:
        """The next step reaches the step cap: a rejected action may then rightly end the episode
        or a phase (rejected actions count as steps in the papers), so it proves nothing here."""
        cap, steps = getattr(task, "max_steps", None), getattr(task, "steps", None)
        return cap is not None and steps is not None and steps + 1 >= cap

    def _rejected_changes_nothing(self, task: Task, text: str, where: str) -> None:
        if task.done or self._last_step_before_cap(task):
            return
        before = task.state_digest()
        role = task.current_role()
        legal = task.observe(role).legal_actions
        result = task.step(text)
        _require(
            isinstance(result, StepResult) and bool(result.feedback.strip()),
            f"{where}: {text[:40]!r} got no feedback",
        )
        if result.validity in REJECTED:
            _require(
                task.state_digest() == before,
                f"{where}: the {result.validity} action {text[:40]!r} changed the game state",
            )
            if not task.done and task.current_role() == role:
                _require(
                    task.observe(role).legal_actions == legal,
                    f"{where}: the {result.validity} action {text[:40]!r} changed the legal actions",
                )

    def _fuzz_texts(self) -> Iterator[str]:
        rng = random.Random(self.seed)
        yield from AWKWARD_REPLIES
        for _ in range(self.fuzz):
            yield _random_text(rng)

    def check_rejected_actions(self) -> None:
        inst = self.make().instances(1, 0)[0]
        for text in self._fuzz_texts():
            self._rejected_changes_nothing(self.started(inst), text, f"{inst.id} at the start")
        # later in the episode too: after a few legal moves the state has more to lose
        task = self.started(inst)
        for _ in range(3):
            if task.done:
                break
            legal = task.observe(task.current_role()).legal_actions
            task.step(legal[0] if legal else "")
        for text in AWKWARD_REPLIES:
            self._rejected_changes_nothing(task, text, f"{inst.id} after three steps")

    def check_random_play(self) -> None:
        rng = random.Random(self.seed)
        for inst in self.make().instances(self.sample, 1):
            task = self.started(inst)
            while not task.done:
                obs = task.observe(task.current_role())
                result = task.step(rng.choice(obs.legal_actions) if obs.legal_actions else "")
                _require(isinstance(result, StepResult) and bool(result.feedback), f"{inst.id}: no feedback")
            out = task.outcome()
            json.dumps(out.metrics)
            _require(out.steps >= 0, f"{inst.id}: negative step count")
            _require(
                out.termination in TERMINATIONS,
                f"{inst.id}: termination {out.termination!r} is not one of {', '.join(TERMINATIONS)}",
            )
            before = task.state_digest() if task.state() is not None else None
            late = task.step("x")
            _require(
                late.validity == Validity.INVALID, f"{inst.id}: a step after the end was {late.validity}"
            )
            if before is not None:
                _require(task.state_digest() == before, f"{inst.id}: a step after the end changed the state")

    def check_oracle(self) -> None:
        task = self.make()
        for inst in task.instances(None, 0):
            task.reset(inst)
            while not task.done:
                move = task.oracle_action(task.current_role())
                _require(move is not None, f"{inst.id}: the oracle has no move before the end")
                result = task.step(move)
                _require(
                    result.validity not in REJECTED,
                    f"{inst.id}: the oracle's move {move!r} was {result.validity}: {result.feedback}",
                )
            out = task.outcome()
            _require(out.success, f"{inst.id}: the oracle did not succeed")
            _require(
                out.steps == inst.optimal_steps,
                f"{inst.id}: the oracle took {out.steps} steps, optimal_steps is {inst.optimal_steps}",
            )

    def checks(self) -> list[tuple[str, Callable[[], None]]]:
        out = [
            ("instances", self.check_instances),
            ("order", self.check_order),
            ("determinism", self.check_determinism),
            ("state", self.check_state),
            ("rejected actions change nothing", self.check_rejected_actions),
            ("random play", self.check_random_play),
        ]
        if self.spec.load_class().has_oracle():
            out.append(("oracle", self.check_oracle))
        return out


def check_task(task: str | TaskSpec, sample: int = 6, fuzz: int = 40, seed: int = 0) -> TaskReport:
    """Run every check on one registered task; a check's failure never stops the others."""
    spec = get_spec(task) if isinstance(task, str) else task
    report = TaskReport(spec.id)
    for name, check in Conformance(spec, sample, fuzz, seed).checks():
        started = time.perf_counter()
        try:
            check()
            result = CheckResult(name, True)
        except ConformanceError as exc:
            result = CheckResult(name, False, str(exc))
        except Exception as exc:  # a crash inside the task is a failure of the check, reported
            result = CheckResult(name, False, f"raised {type(exc).__name__}: {exc}")
        result.seconds = round(time.perf_counter() - started, 3)
        report.results.append(result)
    return report
