"""The Theory of Space episode machine and its exploration phase, on the kernel's `EpisodeTask` template.

Every tos task shares one machine (`TosTask`); its modules add the phases after or around the
exploration:

    explore (active only) --Term() or max_steps--> answer (questions, cogmap: `answers.py`)
                                               \\-> fb: the world changes, explore again
                                                     (max_steps_second), Term(changes=...)
                                                     (`false_belief.py`)
    belief probes between exploration replies (cogmap, false belief: `probes.py`)

One reply is one step (a probe reply is not). Exploration replies follow the authors' grammar and
run as their environment runs them (`grammar.py`): an invalid reply does nothing (their 0.5 reward
penalty is reported apart from the exploration cost); a turn whose move fails stops there and
observes. An active exploration is sent as the authors' real chat (`conversation=chat`: every earlier
exchange kept as `Observation.turns`, the raw replies as assistant turns); the answer turn, the belief
probes, the false-belief second exploration and `conversation=log` carry the exploration log packed
into one observation (the agent's own, or in passive mode a scripted explorer's).

Worlds come from the default generator (the authors' scene layout), our earlier generator
(`--set layout=grid`), or the authors' scene files (`--set scenes=PATH`, read at run time).
`ExploreTask` (`tos/explore`) is the exploration alone.

The machine is split along its phases: `instances.py` (the options, the instance model and the
instances), `stepping.py` (a reply run, the log, the end of a phase, the passive log), `observing.py`
(what the agent is shown: the chat, the packed log, the images, the sample replies) and `scoring.py`
(information gain, the exploration's metrics); `TosTask` mixes them in, holds the episode's state and
the hooks the phases around the exploration override.
"""

from __future__ import annotations

from typing import Any, ClassVar

from playbench.core.episode import EpisodeTask
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import texts_source
from playbench.core.originals import OriginalsUse
from playbench.core.task import Instance, TaskConfig
from playbench.core.termination import Termination
from playbench.core.types import Part, Progress, StepResult
from playbench.core.types import Turn as ChatTurn
from playbench.tasks.tos import probing, prompts
from playbench.tasks.tos.instances import InstancesMixin, TosConfig, TosInstance, oracle_poses, run_number
from playbench.tasks.tos.model_side import TOS_MODEL_SIDE
from playbench.tasks.tos.observing import ObservingMixin
from playbench.tasks.tos.oracle_plan import plan_observations, plan_turns
from playbench.tasks.tos.originals import NAME as ORIGINAL_REPO
from playbench.tasks.tos.originals import SCENES as ORIGINAL_SCENES
from playbench.tasks.tos.scoring import ScoringMixin
from playbench.tasks.tos.solver import PositionSolver
from playbench.tasks.tos.stepping import LogEntry, Reply, SteppingMixin
from playbench.tasks.tos.texts import TosTexts
from playbench.tasks.tos.world import START, World

# the names other modules import from here (their homes: instances.py, stepping.py)
__all__ = [
    "COUNT_KEYS",
    "TASK_FINISHED",
    "ExploreTask",
    "LogEntry",
    "Reply",
    "TosConfig",
    "TosInstance",
    "TosTask",
    "oracle_poses",
    "run_number",
]

COUNT_KEYS = ("move", "rotate", "return", "observe", "query", "term")
# the answer to any Term(), the false-belief Term(changes="...") too (texts=ours; `texts.py`)
TASK_FINISHED = prompts.TASK_FINISHED


class TosTask(InstancesMixin, SteppingMixin, ObservingMixin, ScoringMixin, EpisodeTask):
    """One exploration episode machine for every Theory of Space task (see the module docstring)."""

    Config: ClassVar[type[TaskConfig]] = TosConfig
    InstanceModel: ClassVar[type[Instance]] = TosInstance
    instance_label: ClassVar[str] = "tos"
    KIND: ClassVar[str] = "explore"
    # the authors' clone (`originals.py`): their texts, and their example scenes as the default set
    originals: ClassVar[OriginalsUse | None] = OriginalsUse(
        repo=ORIGINAL_REPO, data={"scenes": ORIGINAL_SCENES}
    )
    config: TosConfig
    _instance: TosInstance | None
    _tos_texts: TosTexts | None = None

    # --- texts and model side --------------------------------------------------------------
    @property
    def texts(self) -> TosTexts:
        """The words this task sends: the authors' from their clone (`texts=original`) or ours."""
        if self._tos_texts is None:
            assert self.originals is not None
            source = texts_source(self.config, self.originals)
            self._tos_texts = TosTexts.ours() if source is None else TosTexts.original_from(source)
        return self._tos_texts

    def preflight(self) -> None:
        """Read every text of the map now: a text the clone lacks fails before the first episode."""
        super().preflight()
        self._tos_texts = None
        _ = self.texts

    def model_side(self) -> ModelSide:
        """The authors' generation settings per model (`model_side.py`), for every task and phase:
        exploration, answer, belief probes."""
        return TOS_MODEL_SIDE

    # --- episode ---------------------------------------------------------------------------
    @property
    def passive(self) -> bool:
        return getattr(self.config, "exploration", "active") == "passive"

    def _begin(self, instance: TosInstance) -> None:
        self._worlds = [instance.world]
        self._version = 0
        self._pose = START
        self._observed: frozenset[str] = frozenset()
        self._phase_steps = 0
        self._counts = dict.fromkeys(COUNT_KEYS, 0)
        self._invalid = 0
        self._unparseable = 0
        self._failed_turns = 0
        self._cost = 0.0
        self._phase1_cost = 0.0
        self._phase1_counts: dict[str, int] | None = None
        self._phase1_steps = 0
        self._replies = 0
        self._log: list[LogEntry] = []
        # the exploration as a real chat (`conversation=chat`): the earlier exchanges, the message
        # of the current turn (built when first shown, then after every exploration reply)
        self._chat: list[ChatTurn] = []
        self._chat_user: list[Part] | None = None
        self._raw = ""
        self._fb_log_start: int | None = None
        self._feedback = ""
        self._terminated_by_agent = False
        self._phase1_observed: frozenset[str] | None = None  # what the first exploration saw, once over
        self._answer: dict[str, Any] = {}
        self._images: dict[Any, bytes] = {}
        self._changed_seen: set[str] = set()
        self._all_changed_seen_cost: float | None = None
        # information gain (the authors' per-turn measure, `solver.py`) and what the uncertainty
        # probe needs of the exploration (`probing.py`)
        self._solver: PositionSolver | None = None
        self._gains: list[float] = []
        self._unexplored = probing.Unexplored(instance.world)
        self._last_visible: frozenset[str] = frozenset()
        # belief probes (`probes.py`): replies between exploration steps that are not steps
        self._probes: list[str] = []  # belief probes still to be answered for the current turn
        self._probe_replies = 0
        self._pending_end: Termination | None = None  # an end that waits for the last turn's probes
        self._phase1_pose = START
        allow = self.config.return_action
        self._plan_turns = plan_turns(
            instance.world, oracle_poses(instance.world, allow_return=allow), allow_return=allow
        )
        self._plan_index = 0
        self._progress_memo: dict[tuple[frozenset[str], bool], int | None] = {}  # `_exploration_progress`
        self._instructions = prompts.instructions(
            instance.world, self.config.modality, instance.budget, return_action=allow
        )
        if self.texts.original:  # their system message; our rules open the observation instead
            self._rules = self._instructions
            self._instructions = self.texts.system or ""
        else:
            self._rules = ""
        if self.passive:
            self._play_oracle_log()
            self._phase = self._after_exploration()
        else:
            self._phase = "explore"
        self._cap = self._phase_ends_at(0)

    @property
    def world(self) -> World:
        return self._worlds[self._version]

    @property
    def phase(self) -> str:
        """`explore`, `answer`, `fb` (false belief's second exploration), `probe` (a belief probe
        between turns) or `done`."""
        self._require_episode()
        return "probe" if self._probes else self._phase

    def _after_exploration(self) -> str:
        return "done"

    def _phase_cap(self) -> int:
        """The current exploration's step cap."""
        inst = self.instance
        if self._phase == "fb":
            return inst.fb_budget or inst.budget
        return inst.budget

    def _phase_ends_at(self, steps_before: int) -> int:
        """The episode's step count at which the current phase, begun after `steps_before` steps,
        ends at the latest: its cap, or the one answer turn."""
        return steps_before + (1 if self._phase == "answer" else self._phase_cap())

    def _step_cap(self) -> int | None:
        """The current phase's cap counted in episode steps (the kernel counts every reply of the
        episode); tos ends the phase itself at that step, before the template's cap would. Probe
        replies are not steps: while probes are pending there is no cap to reach."""
        return None if self._probes or self._pending_end else self._cap

    def _counts_step(self, role: str, result: StepResult) -> bool:
        return result.info.get("phase") != "probe"

    def _check_end(self, result: StepResult) -> Termination | None:
        """An exploration that ended at its cap waits for its last turn's probes, then ends."""
        if result.info.get("phase") == "probe" and not self._probes and self._pending_end is not None:
            return self._pending_end
        return None

    # --- the hooks of the phases around the exploration ------------------------------------
    def _probes_after_cap(self) -> bool:
        """Whether a turn that ends the episode at its cap is still probed before the end."""
        return False

    def _track_changed(self, seen: list[str]) -> None:
        """After an Observe() of the second exploration (false belief): what it saw again."""

    def _on_exploration_end(self) -> None:
        """Hook for the false-belief task."""

    def _after_turn(self, phase_before: str, result: StepResult, newly_changed: set[str]) -> None:
        """After a valid exploration reply: queue this turn's belief probes (none by default)."""

    def _probe_step(self, text: str) -> StepResult:
        """A reply to a belief probe (`probes.py`)."""
        raise RuntimeError("this task asks no belief probes")

    def _probe_prompt(self, kind: str) -> list[Part]:
        raise RuntimeError("this task asks no belief probes")

    def _probe_truth(self, kind: str) -> str:
        raise RuntimeError("this task asks no belief probes")

    def _probe_samples(self, kind: str) -> list[str]:
        raise RuntimeError("this task asks no belief probes")

    def _probe_context(self) -> list[Part]:
        """What a probe shows between the first exploration's log and its question."""
        return []

    def _answer_step(self, text: str) -> StepResult:
        """The reply of the answer turn (`answers.py`)."""
        raise RuntimeError("this task has no answer turn")

    # --- state -----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What the rules change: the phase, the world in play (false belief's changes once applied),
        the agent's pose, what it has observed, and the answer given. Not the cost, counters, log or
        feedback: an invalid reply changes only those (and at a phase's cap, the phase)."""
        inst = self.instance
        return {
            "phase": self._phase,
            "world_changes": [c.model_dump(mode="json") for c in inst.changes or []] if self._version else [],
            "pose": {"x": self._pose.x, "y": self._pose.y, "facing": self._pose.facing},
            "observed": sorted(self._observed),
            "first_exploration_observed": (
                None if self._phase1_observed is None else sorted(self._phase1_observed)
            ),
            "terminated_by_agent": self._terminated_by_agent,
            "answer": self._answer,
            "probes": list(self._probes),
            "probe_replies": self._probe_replies,
        }

    # --- oracle ----------------------------------------------------------------------------
    def _oracle(self, role: str) -> str | None:
        if self._probes:
            return self._probe_truth(self._probes[0])
        if self._phase == "answer":
            return self._oracle_answer()
        if self._plan_index < len(self._plan_turns):
            return self._plan_turns[self._plan_index]
        return self._oracle_term()

    def _oracle_term(self) -> str:
        return "Actions: [Term()]"

    def _oracle_answer(self) -> str:
        raise RuntimeError("this task has no answer turn")

    # --- progress (error maps) ---------------------------------------------------------------
    def _exploration_progress(self) -> Progress:
        """The first exploration's progress (README "Progress (error maps)"): `fraction`, its
        coverage as the metric `coverage` counts it (objects observed / objects); `distance`, the
        oracle's Observe() turns still needed to see every object from what has been observed and
        where the agent stands (`plan_observations` continued from here: moves are free, so a turn
        is one Observe; 0 once every object is seen; None where no plan of 60 turns covers them).
        After the exploration both stay at its final values. Changes nothing."""
        self._require_episode()
        world = self._worlds[0]
        seen = self._observed if self._phase1_observed is None else self._phase1_observed
        home = (self._pose.x, self._pose.y) == (0, 0)
        key = (frozenset(seen), home)
        if key not in self._progress_memo:
            try:
                rest: int | None = len(
                    plan_observations(
                        world, limit=60, allow_return=self.config.return_action, seen=key[0], home=home
                    )
                )
            except ValueError:
                rest = None
            self._progress_memo[key] = rest
        return Progress(distance=self._progress_memo[key], fraction=self._coverage(seen))


class ExploreTask(TosTask):
    """`tos/explore`: observe every object within the step cap at the lowest cost."""

    def progress(self) -> Progress:
        """Coverage and the oracle's remaining Observe() turns (`_exploration_progress`)."""
        return self._exploration_progress()
