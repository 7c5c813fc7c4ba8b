"""The episode template every built-in suite follows (clemcore's `step` template, Gymnasium's
order enforcing and time limit): one place for the rules every game shares.

`EpisodeTask.step` runs: refuse if the episode is over → `_parse` → `_apply` (or `_on_parse_error`)
→ count the step → `_check_end` → the `max_steps` cap → `_after_step`. Ending starts the judge
phase when the task has questions for a judge. Subclasses write only their game:

    _begin(instance)         set up the game for a validated instance
    _parse(text)             a parsed action, or a ParseError (never raises on model output)
    _apply(parsed)           change the state, return the StepResult (call `end(...)` to stop)
    _observe(role)           the role's observation
    _outcome()               success, steps and metrics (the template adds `termination`)
    state()                  the game state as data (for `state_digest` and the conformance check)

and, where the game needs them, the hooks below (`_check_end`, `_counts_step`, `_step_cap`, ...).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

from playbench.core.judge import JUDGE_ROLE, JudgePhase, JudgeQuestion
from playbench.core.task import Instance, Task
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, Observation, StepResult, Validity

RESET_FIRST = "call reset(instance) before playing"
EPISODE_OVER = "The episode is over; no more actions are accepted."


@dataclass(frozen=True)
class ParseError:
    """A reply that holds no readable action. `message` is shown to the agent; `reason` is recorded."""

    message: str
    reason: str = "format"
    snippet: str = ""  # the part of the reply that was read, if any


class EpisodeTask(Task):
    """A task built on the template; see the module docstring."""

    _instance: Instance | None = None

    # --- the episode ---------------------------------------------------------------------------
    def reset(self, instance: Instance | dict[str, Any]) -> None:
        inst = self.coerce_instance(instance)
        self._instance = inst
        self._steps = 0
        self._termination: Termination | None = None
        self._judge: JudgePhase | None = None
        self._begin(inst)

    @property
    def instance(self) -> Any:
        """The instance being played (of the task's own instance model)."""
        return self._require_episode()

    def _require_episode(self) -> Any:
        if self._instance is None:
            raise RuntimeError(RESET_FIRST)
        return self._instance

    @property
    def steps(self) -> int:
        """Steps counted toward the cap so far."""
        self._require_episode()
        return self._steps

    @property
    def termination(self) -> Termination | None:
        return self._termination

    @property
    def max_steps(self) -> int | None:
        """This episode's step cap (None: no cap)."""
        self._require_episode()
        return self._step_cap()

    @property
    def judge(self) -> JudgePhase | None:
        """The judge phase, once the episode has ended and there was something to judge."""
        return self._judge

    @property
    def judging(self) -> bool:
        return self._judge is not None and self._judge.pending

    @property
    def done(self) -> bool:
        self._require_episode()
        return self._termination is not None and not self.judging

    def current_role(self) -> str:
        self._require_episode()
        return JUDGE_ROLE if self.judging else self._acting_role()

    def observe(self, role: str) -> Observation:
        self._require_episode()
        if role == JUDGE_ROLE and JUDGE_ROLE in self.roles:
            if self._judge is not None:
                return self._judge.observe(self._steps)
        elif role not in self.roles:
            raise ValueError(f"unknown role {role!r} (this task's roles: {', '.join(self.roles)})")
        return self._observe(role)

    def step(self, action_text: str) -> StepResult:
        self._require_episode()
        if self.done:
            return StepResult(Validity.INVALID, EPISODE_OVER, reason="episode_over")
        text = action_text if isinstance(action_text, str) else str(action_text)
        if self.judging:
            assert self._judge is not None
            return self._judge.step(text)
        role = self.current_role()
        parsed = self._parse(text)
        result = self._on_parse_error(parsed) if isinstance(parsed, ParseError) else self._apply(parsed)
        if self._counts_step(role, result):
            self._steps += 1
        if self._termination is None:
            ending = self._check_end(result)
            cap = self._step_cap()
            if ending is None and cap is not None and self._steps >= cap:
                ending = Termination.STEP_CAP
            if ending is not None:
                note = self._end_feedback(ending)
                if note:
                    result.feedback = f"{result.feedback} {note}".strip()
                self.end(ending)
        result.info.setdefault("step", self._steps)
        self._after_step(role, result)
        return result

    def end(self, termination: Termination) -> None:
        """End the play (once); the judge phase starts if there is anything to judge."""
        if self._termination is not None:
            return
        self._termination = Termination(termination)
        questions = self._judge_questions() if JUDGE_ROLE in self.roles else []
        self._judge = JudgePhase(questions) if questions else None

    def oracle_action(self, role: str) -> str | None:
        self._require_episode()
        if self.done:
            return None
        if self.judging:
            return self._judge.oracle_action() if role == JUDGE_ROLE and self._judge else None
        return self._oracle(role)

    @classmethod
    def has_oracle(cls) -> bool:
        return cls._oracle is not EpisodeTask._oracle or cls.oracle_action is not EpisodeTask.oracle_action

    def outcome(self) -> EpisodeResult:
        self._require_episode()
        result = self._outcome()
        result.termination = str(self._termination or Termination.UNFINISHED)
        return result

    # --- what a game provides ------------------------------------------------------------------
    @abstractmethod
    def _begin(self, instance: Any) -> None: ...

    @abstractmethod
    def _parse(self, text: str) -> Any | ParseError: ...

    @abstractmethod
    def _apply(self, parsed: Any) -> StepResult: ...

    @abstractmethod
    def _observe(self, role: str) -> Observation: ...

    @abstractmethod
    def _outcome(self) -> EpisodeResult: ...

    # --- hooks with defaults -------------------------------------------------------------------
    def _acting_role(self) -> str:
        """Whose turn it is while the game runs."""
        return self.roles[0]

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return StepResult(Validity.UNPARSEABLE, error.message, reason=error.reason)

    def _counts_step(self, role: str, result: StepResult) -> bool:
        """Whether this step counts toward the cap (every step by default)."""
        return True

    def _check_end(self, result: StepResult) -> Termination | None:
        """After a step: the reason the game is over now (goal, mistakes, ...), or None."""
        return None

    def _step_cap(self) -> int | None:
        return getattr(self.config, "max_steps", None)

    def _end_feedback(self, termination: Termination) -> str:
        """A sentence appended to the last step's feedback when the step ended the episode."""
        return ""

    def _after_step(self, role: str, result: StepResult) -> None:
        """Bookkeeping once the step is judged and counted (histories, feedback shown next)."""

    def _judge_questions(self) -> list[JudgeQuestion]:
        """What the judge seat is asked once the play has ended (nothing by default)."""
        return []

    def _oracle(self, role: str) -> str | None:
        """The optimal next action while the game runs; tasks with an oracle define it."""
        return None
