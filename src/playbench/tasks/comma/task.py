"""The COMMA conversation: a solver who sees a puzzle module and an expert who holds its manual.

Turns (AEC), as the authors' game loop (`main.py` of pschwendy/multimodal_comms): the solver speaks
first; each solver reply is one conversation turn, and the expert answers after every solver turn
that did not end the game (`expert_answers="messages"`, ours, answers only replies without actions).
Every line of a solver reply that contains an action's name (case-insensitive; the first of the
module's actions in its own order) executes it, line after line, also after a strike; the solver is
told only whether each action was a mistake (`rich_feedback`, ours, says why). The timer of the
real-time modules runs a fixed number of seconds per conversation turn, and a reply may let it run
further before an action (`wait_N_seconds`; `turn_clock`, ours, forbids that). The episode ends when
the module is disarmed (goal_reached), after `max_steps` turns (step_cap), at `mistake_limit`
strikes (mistake_limit), or when the clock reaches zero (time_limit); with `judge=true` a judge then
labels a failed episode. Any module driven through `PuzzleModule` plays the same way; `comma/all`
deals instances of all ten. The episode template (`EpisodeTask`) runs the turn order, counts the
solver's turns and applies the cap; `Session` holds the rules, shared with the instance generator.

The phases live in modules of their own: `config.py` (options, instances), `instances.py` (the
generated set and the authors'), `replies.py` and `session.py` (reading replies, the rules),
`views.py` and `original_views.py` (what each seat receives), `failure_judge.py` and `summaries.py`
(the judge's label, the metrics).
"""

from __future__ import annotations

from typing import Any, ClassVar

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.judge import JUDGE_ROLE, JudgeQuestion
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import texts_source
from playbench.core.originals import OriginalsUse
from playbench.core.task import Instance, TaskConfig
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, Observation, Progress, StepResult, TextPart
from playbench.render.draw2d import to_png
from playbench.tasks.comma import failure_judge, paper_set, prompts, summaries, views
from playbench.tasks.comma.config import CommaConfig, CommaInstance
from playbench.tasks.comma.failure_judge import parse_judge_label
from playbench.tasks.comma.instances import instance_for, make_instance
from playbench.tasks.comma.model_side import COMMA_MODEL_SIDE
from playbench.tasks.comma.module import PuzzleModule
from playbench.tasks.comma.modules import NAMES, module_class
from playbench.tasks.comma.originals import USE
from playbench.tasks.comma.replies import ExpertReply, SolverReply, cut_words, find_action
from playbench.tasks.comma.session import Session
from playbench.tasks.comma.texts import OriginalWords
from playbench.tasks.comma.twin import difficulty as twin_difficulty
from playbench.tasks.comma.twin import paper_records, twin_instance

# what other modules (and tests) import from here
__all__ = [
    "CommaConfig",
    "CommaInstance",
    "CommaTask",
    "Session",
    "cut_words",
    "find_action",
    "make_instance",
    "parse_judge_label",
]


class CommaTask(EpisodeTask):
    """One COMMA puzzle (or all ten) as a solver/expert conversation. The ids fix `module`."""

    Config: ClassVar[type[TaskConfig]] = CommaConfig
    InstanceModel: ClassVar[type[Instance]] = CommaInstance
    instance_label: ClassVar[str] = "comma"
    # texts from the authors' clone (texts=original), and their puzzle set as the `puzzles` default
    originals: ClassVar[OriginalsUse | None] = USE
    config: CommaConfig

    @property
    def words(self) -> OriginalWords | None:
        """The authors' words (texts=original), read from the clone once; None: ours."""
        if not hasattr(self, "_words"):
            source = texts_source(self.config, USE)
            self._words = OriginalWords.read(source) if source is not None else None
        return self._words

    def preflight(self) -> None:
        """Read every text of the original the seats will get, and the puzzle set, before playing."""
        _ = self.words
        if self.config.puzzles is not None:
            paper_set.read_set(self.config.puzzles)

    def data_origin(self) -> str:
        """`original@<commit>` for the puzzles of the authors' set, `generated` for ours."""
        from_set = [n for n in self.module_names if n in paper_set.PAPER_MODULES]
        if self.config.dataset == "twin" or self.config.puzzles is None or not from_set:
            return "generated"
        stamp = paper_set.set_stamp(self.config.puzzles)
        rest = [n for n in self.module_names if n not in paper_set.PAPER_MODULES]
        return stamp if not rest else f"{stamp} ({len(from_set)} puzzles), generated ({', '.join(rest)})"

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("solver", "expert", JUDGE_ROLE) if self.config.judge else ("solver", "expert")

    def model_side(self) -> ModelSide:
        """The authors' generation settings for the solver and the expert (`model_side.py`)."""
        return COMMA_MODEL_SIDE

    @property
    def module_names(self) -> tuple[str, ...]:
        return NAMES if self.config.module == "all" else (self.config.module,)

    # --- instances -------------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        if self.config.dataset == "twin":
            return self._twin_instances(n, seed)
        names = self.module_names
        # round robin over the modules, so any prefix of comma/all covers them evenly
        if n is not None:
            return [instance_for(names[i % len(names)], seed, i // len(names), self.config) for i in range(n)]
        sizes = {name: self._set_size(name) for name in names}
        return [
            instance_for(name, seed, k, self.config)
            for k in range(max(sizes.values()))
            for name in names
            if k < sizes[name]
        ]

    def _twin_instances(self, n: int | None, seed: int) -> list[Instance]:
        """One twin per paper puzzle, in the paper set's order (`twin.py`); comma/all twins the eight
        puzzles the authors' set holds (button and dog have no paper puzzles to twin)."""
        names = tuple(m for m in self.module_names if m in paper_set.PAPER_MODULES) or self.module_names
        if n is not None:
            return [
                twin_instance(names[i % len(names)], i // len(names), seed, self.config) for i in range(n)
            ]
        sizes = {name: min(self.config.instances_per_module, len(paper_records(name))) for name in names}
        return [
            twin_instance(name, k, seed, self.config)
            for k in range(max(sizes.values()))
            for name in names
            if k < sizes[name]
        ]

    def difficulty(self, instance: Instance) -> dict[str, Any]:
        """The puzzle's difficulty parameters and the oracle pair's turns (`twin.py`, README "Twins")."""
        puzzle = self.coerce_instance(instance)
        assert isinstance(puzzle, CommaInstance)
        return twin_difficulty(puzzle)

    def _set_size(self, name: str) -> int:
        """Instances of `name` in the default set: `instances_per_module`, at most the authors' set's."""
        size = self.config.instances_per_module
        if self.config.puzzles is not None and name in paper_set.PAPER_MODULES:
            size = min(size, paper_set.set_size(self.config.puzzles, name))
        return size

    def load_instance(self, data: dict[str, Any]) -> Instance:
        instance = super().load_instance(data)
        assert isinstance(instance, CommaInstance)
        if instance.module not in self.module_names:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: module '{instance.module}' is not played by this task"
            )
        return instance

    # --- the game --------------------------------------------------------------------------------
    def _begin(self, instance: CommaInstance) -> None:
        cls = module_class(instance.module)
        try:
            module = cls(instance.params)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: bad {instance.module} parameters ({exc})"
            ) from None
        module.options = {
            "mark_cut_wires": self.config.mark_cut_wires,
            "keypad_lights": self.config.keypad_lights,
        }
        self.session = Session(module, instance.start_clock, self.config, self.words)
        self._awaiting_expert = False  # the solver's last reply was a message the expert answers
        self.last_feedback = ""  # what the solver's last reply did, shown at its next turn
        self._render_cache: tuple[tuple[int, int], bytes] | None = None
        self._manual_png: bytes | None = None

    @property
    def module(self) -> PuzzleModule:
        return self.session.module

    def state(self) -> dict[str, Any]:
        """The module's whole state (wires cut, keys lit, stage, mouse, button held, ...), the
        strikes, whether it is disarmed and the seconds waited with wait lines. The clock itself is
        left out on purpose: it is `start_clock - turns * seconds_per_turn - waited`, and the turn
        count is the template's step counter; every reply uses a turn, also an empty one or one
        naming only unavailable actions, so with the clock no reply could leave the state unchanged."""
        s = self.session
        return {
            "module": self.instance.module,
            "start_clock": s.start_clock,
            "waited": s.waited,
            "mistakes": s.mistakes,
            "solved": self.module.solved,
            "puzzle": self.module.state(),
        }

    def _acting_role(self) -> str:
        return "expert" if self._awaiting_expert else "solver"

    def _parse(self, text: str) -> SolverReply | ExpertReply | ParseError:
        if self._acting_role() == "expert":
            return self.session.read_expert(text)
        return self.session.read_solver(text)

    def _apply(self, parsed: SolverReply | ExpertReply) -> StepResult:
        if isinstance(parsed, ExpertReply):
            return self.session.expert_turn(parsed)
        return self.session.solver_turn(parsed)

    def _on_parse_error(self, error: ParseError) -> StepResult:
        # an empty reply is still a reply: the solver's uses its turn, the expert's is recorded
        if self._acting_role() == "expert":
            return self.session.expert_turn(error)
        return self.session.solver_turn(error)

    def _counts_step(self, role: str, result: StepResult) -> bool:
        return role == "solver"  # a conversation turn is one solver reply (with the expert's answer)

    def _check_end(self, result: StepResult) -> Termination | None:
        return self.session.ending()  # the template applies the turn limit (`max_steps`) itself

    def _end_feedback(self, termination: Termination) -> str:
        return {
            Termination.GOAL_REACHED: "The game is won.",
            Termination.MISTAKE_LIMIT: f"The mistake limit ({self.config.mistake_limit}) is reached: the game is over.",
            Termination.TIME_LIMIT: "The timer ran out: the game is over.",
            Termination.STEP_CAP: f"The conversation limit ({self.config.max_steps} turns) is reached: the game is over.",
        }[termination]

    def _after_step(self, role: str, result: StepResult) -> None:
        if role == "solver":
            self._awaiting_expert = self.termination is None and self.session.expert_answers(result)
            self.last_feedback = result.feedback
        else:
            self._awaiting_expert = False

    # --- observations ----------------------------------------------------------------------------
    def _observe(self, role: str) -> Observation:
        if role == "solver":
            return views.solver_observation(self)
        if role == "expert":
            return views.expert_observation(self)
        return Observation(
            role=JUDGE_ROLE,
            parts=[TextPart("The game is still being played; there is nothing to judge yet.")],
            instructions=prompts.JUDGE,
            step=self.session.turns,
        )

    def module_png(self) -> bytes:
        """The module's picture now (cached while the clock and the module stay the same)."""
        key = (self.session.clock, self.session.version)
        if self._render_cache is None or self._render_cache[0] != key:
            self._render_cache = (key, to_png(self.module.render(float(self.session.clock))))
        return self._render_cache[1]

    def manual_png(self) -> bytes | None:
        """The manual page the expert gets as a picture (the keypad's columns), unless text-only."""
        if self.config.expert_manual != "image":
            return None
        if self._manual_png is None:
            page = self.module.manual_image()
            self._manual_png = b"" if page is None else to_png(page)
        return self._manual_png or None

    def expert_manual_text(self) -> str:
        """The manual text in the expert's instructions (beside the page when it gets the picture)."""
        if self.manual_png() is not None:
            return self.module.manual_beside_image()
        return self.module.manual()

    # --- the judge, the oracles and the outcome ---------------------------------------------------
    def _judge_questions(self) -> list[JudgeQuestion]:
        return failure_judge.judge_questions(self)

    def _oracle(self, role: str) -> str | None:
        if role == "solver":
            return self.session.oracle_solver_text()
        if role == "expert":
            return self.session.oracle_expert_text()
        return None

    def progress(self) -> Progress:
        """For error maps (README "Progress (error maps)"): `distance`, the conversation turns the
        oracle pair needs from the current puzzle and conversation (`Session.oracle_distance`; 0 once
        disarmed, None once the timer has run out); `fraction`, the module's partial score as the
        paper scores it (1.0 once disarmed; 0/1 on the one-step puzzles). Changes nothing."""
        self._require_episode()
        module = self.module
        fraction = 1.0 if module.solved else float(module.partial_score())
        expert_next = self.termination is None and self._awaiting_expert
        return Progress(distance=self.session.oracle_distance(expert_next), fraction=fraction)

    def _outcome(self) -> EpisodeResult:
        s = self.session
        metrics = summaries.episode_metrics(self.instance.module, s, self.config.max_steps)
        metrics.update(failure_judge.judge_metrics(self.judge))
        return EpisodeResult(success=self.module.solved, steps=s.turns, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return summaries.summarize(episodes, self.config.max_steps)
