"""VisEscape rooms of our own as a playbench task (`visescape/room-01` ... `room-20`, `visescape/rooms`).

Twenty rooms designed for playbench in VisEscape's style (not the paper's rooms: those are
`visescape/original`, read from the authors' clone). One episode is one trial in one room, played by
the paper's protocol as the authors' runner plays it (`protocol.py`): each turn shows the action
memory, the last 10 non-turn actions, the view (an unlabelled picture), the inventory, the previous
action, the hint when due and the available actions; the game gives no result text. The game ends on
escaping (`goal_reached`), at 300 steps (`step_cap`) or after 100 steps without a new trigger
(`no_progress`). Our additions are options, off by default: `labels`, `feedback`, `answer_format`,
`answer_matching=normalised`, `carry_clues`, `lenient_actions`, `observation=caption`.

`Observation.data` carries the same facts as values; the paper's agents (`agents.py`) read it.

Here: the options, instances, the episode's start, hints, the oracle and the results; reading and playing
a reply is mixed in from `stepping.py`, the turn's observation and offered actions from `observing.py`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from playbench.core.episode import EpisodeTask
from playbench.core.errors import ConfigError
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import TextsOptions
from playbench.core.originals import OriginalsUse
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, Progress
from playbench.tasks.visescape import metrics as vm
from playbench.tasks.visescape import originals as om
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.engine import Engine, GameState
from playbench.tasks.visescape.observing import Observing
from playbench.tasks.visescape.original_prompts import TheirPrompts, task_prompts
from playbench.tasks.visescape.rooms import as_played, load_room, quiz_params, room_ids
from playbench.tasks.visescape.schema import Room
from playbench.tasks.visescape.stepping import Stepping, _jsonable_view
from playbench.tasks.visescape.task_texts import OriginalTurns
from playbench.tasks.visescape.validator import check_room, clues_read, shortest_path

ROOM_SET = "all"


class VisEscapeConfig(TextsOptions):
    rooms: list[str] = Field(default_factory=lambda: [ROOM_SET])
    room_file: str | None = None  # play a room file of your own instead of the shipped rooms
    observation: Literal["image", "caption"] = "image"  # caption: our ground-truth caption instead
    hints: bool = False
    max_steps: int = Field(300, ge=1)
    patience: int = Field(100, ge=1)  # early stop after this many steps without a new trigger
    hint_after: int = Field(30, ge=0)  # a hint is due once more steps than this pass without progress
    history: int = Field(10, ge=0)  # recent (non-turn) actions listed each turn, as the original runner
    retry_limit: int = Field(3, ge=0)  # free retries after an unavailable reply (unreadable: below)
    # an unreadable reply away from a lock: the fallback at once, as the original agents after one call;
    # ask_again (ours): free retries as for an unavailable reply
    unreadable: pc.Unreadable = "fallback"
    # after the free retries the original agents take the first action of their shuffled list
    fallback: pc.Fallback = "random_action"
    answer_candidates: int = Field(4, ge=1, le=20)  # random answers offered to the random baseline
    # --- our extensions, off by default (the original shows and does none of this) ---
    labels: bool = False  # name tags on objects and a title bar naming the view and its state
    feedback: bool = False  # each action's result in words ("You open the desk; it is now open.")
    answer_format: bool = False  # a lock says what its answer looks like ("4 digits, e.g. ...")
    answer_matching: Literal["exact", "normalised"] = "exact"  # normalised: any spelling of the answer
    carry_clues: bool = False  # clue items may be picked up and looked at again from any view
    lenient_actions: bool = False  # forgiving action spelling ("turn to the north wall")

    @field_validator("rooms", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("rooms")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        known = room_ids()
        bad = [v for v in value if v != ROOM_SET and v not in known]
        if bad:
            raise ValueError(f"unknown room(s) {', '.join(bad)}; known: {ROOM_SET}, {', '.join(known)}")
        if not value:
            raise ValueError("give at least one room")
        return value

    def room_list(self) -> list[str]:
        if self.room_file:
            return [self.room_file]
        out: list[str] = []
        for v in self.rooms:
            out += room_ids() if v == ROOM_SET else [v]
        return list(dict.fromkeys(out))


class VisEscapeInstance(Instance):
    room: str  # a shipped room id, or the path given as room_file
    variant: int | None = None  # None: the room as authored; else quizzes redrawn from this seed
    quiz_params: dict[str, dict[str, Any]] = Field(default_factory=dict)


def _variant_seed(seed: int, pass_no: int, room: str) -> int:
    return derive_seed("visescape-variant", seed, pass_no, room) % 10**9


class VisEscapeTask(Stepping, Observing, pc.PaperEnding, EpisodeTask):
    Config: ClassVar[type[TaskConfig]] = VisEscapeConfig
    InstanceModel: ClassVar[type[Instance]] = VisEscapeInstance
    instance_label: ClassVar[str] = "visescape"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: VisEscapeConfig
    # the authors' texts (the base agent's prompts) apply to our rooms too: the prompt is the original
    # agent's whatever the room; the rooms themselves are ours
    originals: ClassVar[OriginalsUse | None] = om.TEXTS_ONLY

    def preflight(self) -> None:
        """With texts=original, every text of the clone's map is read now (a missing one names its file
        and symbol before the first episode)."""
        prompts = self._their_prompts()
        if prompts is not None:
            prompts.check()

    def _their_prompts(self) -> TheirPrompts | None:
        """The authors' prompts (texts=original), or None for ours; read once per task object."""
        if not hasattr(self, "_prompts_cache"):
            self._prompts_cache = task_prompts(self.config, type(self).originals)
        return self._prompts_cache

    @property
    def cache_instances(self) -> bool:  # type: ignore[override]
        # a user's room file may change between two calls in one process; the shipped rooms do not
        return self.config.room_file is None

    def model_side(self) -> ModelSide:
        """The authors' agents' calls (`protocol.MODEL_SIDE`): our rooms are played as theirs are."""
        return pc.MODEL_SIDE

    # --- instances -----------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        rooms = self.config.room_list()
        if seed != 0:  # other seeds visit the rooms in a seeded order
            rooms = list(rooms)
            random.Random(derive_seed("visescape-order", seed)).shuffle(rooms)
        total = len(rooms) if n is None else n
        out: list[Instance] = []
        for idx in range(total):
            pass_no, k = divmod(idx, len(rooms))
            out.append(
                self.make_instance(rooms[k], None if pass_no == 0 else _variant_seed(seed, pass_no, rooms[k]))
            )
        return out

    def make_instance(self, room_ref: str, variant: int | None) -> VisEscapeInstance:
        """One room (as authored, or a seeded variant), validated as played; `optimal_steps` is its oracle length."""
        room = self._as_played(load_room(room_ref))
        params = quiz_params(room, variant)
        name = room.id if variant is None else f"{room.id}-v{variant}"
        return VisEscapeInstance(
            id=name,
            room=room_ref,
            variant=variant,
            quiz_params=params,
            optimal_steps=check_room(room, params, carry_clues=self.config.carry_clues).oracle_steps,
        )

    def _as_played(self, room: Room) -> Room:
        return as_played(room, self.config.carry_clues)

    # --- episode -------------------------------------------------------------------------------
    def _room_and_params(self, instance: VisEscapeInstance) -> tuple[Room, dict[str, dict[str, Any]]]:
        """The room an instance plays (as played) and its quiz parameters; generated rooms carry theirs."""
        room = self._as_played(load_room(instance.room))
        return room, instance.quiz_params or quiz_params(room, instance.variant)

    def _begin(self, instance: VisEscapeInstance) -> None:
        room, params = self._room_and_params(instance)
        missing = [q.id for q in room.quizzes if q.id not in params]
        if missing:
            raise ConfigError(
                f"visescape instance {instance.id!r} lacks quiz parameters for {', '.join(missing)}"
            )
        self._room: Room = room
        self._engine = Engine(
            room, params, carry_clues=self.config.carry_clues, answer_matching=self.config.answer_matching
        )
        from playbench.tasks.visescape.views import ViewMaker  # Pillow work only when observing

        self._views = ViewMaker(self._engine, labels=self.config.labels)
        self._state: GameState = self._engine.initial_state()
        self._log = pc.ActionLog()
        self._progress = pc.Progress(hint_after=self.config.hint_after)
        self._retries = 0
        self._invalid = 0
        self._rejection = ""  # the retry message shown with the next observation
        self._rejected: str | None = (
            None  # texts=original: "" an unreadable reply, else the unavailable action
        )
        prompts = self._their_prompts()
        self._turns = OriginalTurns(prompts) if prompts is not None else None
        self._feedback = ""  # the last result in words (shown only with the `feedback` option)
        self._reached_at: dict[str, int] = {}  # checkpoint -> step, in the order reached
        self._gc_curve: list[float] = []
        self._seen_scenes: list[Any] = [self._views.render_key(self._state)]
        self._situations: Counter[tuple[GameState, str]] = Counter()
        self._wrong: dict[str, set[str]] = {}
        self._answers = 0
        self._read: frozenset[str] = clues_read(self._engine, self._state)  # quizzes whose clue was read
        self._plan: list[str] = []
        self._plan_states: list[tuple[GameState, frozenset[str]]] = []

    @property
    def engine(self) -> Engine:
        """The rules of the room being played."""
        self._require_episode()
        return self._engine

    @property
    def game_state(self) -> GameState:
        """The current state of the room (view, receptacle states, inventory, triggers)."""
        self._require_episode()
        return self._state

    def state(self) -> dict[str, Any]:
        """The room's full state: view, receptacle states, inventory, items taken, triggers, locks (with
        their answers). Not the step count, the action log, the feedback or the hint bookkeeping."""
        engine, s = self.engine, self._state
        return {
            "view": _jsonable_view(s.view),
            "receptacles": {r.id: engine.rec_state(s, r.id) for r in self._room.receptacles},
            "held": sorted(s.held),
            "gone": sorted(s.gone),
            "triggers": sorted(s.triggers),
            "locks": {
                lock: {"solved": engine.solved(s, lock), "answer": engine.answer(lock)}
                for lock in engine.lock_quiz
            },
        }

    # --- hints ---------------------------------------------------------------------------------
    def hint_text(self) -> str | None:
        """The hint due now (hint mode, after more than `hint_after` steps without a new trigger): as the
        original keys its hints by the last trigger reached, the hint of the checkpoint that follows the
        checkpoint reached last (the first checkpoint's hint before any)."""
        if not self._progress.due(self.config.hints):
            return None
        checkpoints = self._room.checkpoints
        if not self._reached_at:
            k = 0
        else:
            last = max(
                self._reached_at, key=lambda t: (self._reached_at[t], self.engine.checkpoints.index(t))
            )
            k = self.engine.checkpoints.index(last) + 1
        if k >= len(checkpoints):
            return None
        return self.format_hint(checkpoints[k].hint)

    def format_hint(self, hint: str) -> str:
        engine = self.engine

        def answer(m: re.Match[str]) -> str:
            lock = m.group(1)
            return engine.answer(lock) if lock in engine.lock_quiz else m.group(0)

        return re.sub(r"\{answer:([A-Za-z0-9_]+)\}", answer, hint)

    # --- oracle --------------------------------------------------------------------------------
    def _oracle(self, role: str) -> str | None:
        """The next move of a shortest escape that reads each clue before answering its lock."""
        engine = self.engine
        here = (self._state, self._read)
        if not (self._plan_states and self._plan_states[0] == here):
            path, _ = shortest_path(engine, self._state, read=self._read)
            if path is None:
                return None
            self._plan, self._plan_states = list(path), []
            state, read = here
            for a in path:
                self._plan_states.append((state, read))
                state = engine.apply(state, a).state
                read = read | clues_read(engine, state)
        self._plan_states.pop(0)
        return self._plan.pop(0)

    def progress(self) -> Progress:
        """Error maps (report/error_maps.py): the shortest escape from here, reading each clue before
        answering its lock (the oracle's count), and the goal completion (GC: checkpoints reached)."""
        engine = self.engine
        if self.termination == Termination.GOAL_REACHED or self._cleared():
            distance: int | None = 0
        else:
            path, _ = shortest_path(engine, self._state, read=self._read)
            distance = None if path is None else len(path)
        return Progress(distance=distance, fraction=len(self._reached_at) / len(engine.checkpoints))

    # --- results -------------------------------------------------------------------------------
    def _essential(self) -> set[Any]:
        """The scenes of the oracle's path (the paper's Figure 8 "essential observations")."""
        engine = self.engine
        state = engine.initial_state()
        path, _ = shortest_path(engine, state, read=clues_read(engine, state))
        keys = {self._views.render_key(state)}
        for action in path or []:
            state = engine.apply(state, action).state
            keys.add(self._views.render_key(state))
        return keys

    def _outcome(self) -> EpisodeResult:
        engine = self.engine
        success = self.termination == Termination.GOAL_REACHED
        optimal = self.instance.optimal_steps or 0
        reached = len(self._reached_at)
        essential = self._essential()
        seen: set[Any] = set()
        curve = []
        for k, key in enumerate(self._seen_scenes[: vm.PROGRESS_STEPS + 1]):
            seen.add(key)
            if k:
                curve.append(round(len(seen & essential) / len(essential), 4))
        locks = list(engine.lock_quiz)
        solved = sum(engine.solved(self._state, lock) for lock in locks)
        metrics: dict[str, Any] = {
            "room": self._room.id,
            "gc": reached / len(engine.checkpoints),
            "spl": (optimal / max(self._steps, optimal)) if success and self._steps else 0.0,
            "paper_steps": self._steps if success else self.config.max_steps,
            "checkpoints_reached": reached,
            "checkpoints_total": len(engine.checkpoints),
            "invalid_actions": self._invalid,
            "answers": self._answers,
            "wrong_answers_distinct": sum(len(v) for v in self._wrong.values()),
            "wrong_answers_per_lock": vm.per_lock(self._wrong, locks),
            "locks_solved": solved,
            "locks_total": len(locks),
            "quiz_solved_ratio": solved / len(locks) if locks else 0.0,
            "gc_curve": [round(x, 4) for x in self._gc_curve],
            "essential_curve": curve,
            "essential_seen": curve[-1] if curve else 0.0,
            "repeat_hist": vm.repeat_histogram(self._situations, self._steps),
            "repeated_action_ratio": vm.repeated_ratio(self._situations, self._steps),
            "hints": self.config.hints,
        }
        if self.config.hints:
            metrics["hcr"] = self._progress.solved_hints() / reached if reached else 0.0
            metrics["hints_given"] = len(self._progress.given)
        return EpisodeResult(success=success, steps=self._steps, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return vm.summarize(episodes)

    def difficulty(self, instance: Instance) -> dict[str, Any]:
        """The room's difficulty figures (`difficulty.py`): the twin's statistics, here for our own rooms."""
        from playbench.tasks.visescape.difficulty import room_difficulty

        inst = self.coerce_instance(instance)
        assert isinstance(inst, VisEscapeInstance)
        room, params = self._room_and_params(inst)
        return room_difficulty(room, params, carry_clues=self.config.carry_clues)
