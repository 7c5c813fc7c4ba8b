"""VisEscape rooms as a playbench task (`visescape/room-01` ... `room-20`, `visescape/rooms`).

One episode is one trial in one room: the agent starts facing a wall, sees one view per turn (an
image, or the ground-truth caption with `--set observation=caption`), the last actions with their
results, its held items and the available actions, and answers with one action. The game ends on
escaping, at the step cap (300) or after 100 steps without reaching a new checkpoint. With
`--set hints=true` the next checkpoint's hint is shown after 30 steps without progress.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, Task, TaskConfig, derive_seed
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.tasks.visescape import metrics as vm
from playbench.tasks.visescape.engine import ANSWER_ACTION, ANSWER_RE, Engine, GameState, Outcome
from playbench.tasks.visescape.rooms import load_room, quiz_params, room_ids
from playbench.tasks.visescape.schema import Room
from playbench.tasks.visescape.validator import check_room, clues_read, shortest_path

INSTRUCTIONS = (
    "You are playing a room escape game. You stand inside a closed room with four walls (north, east, "
    "south, west); your goal is to get out. You see one view at a time: a whole wall, a close-up of a "
    'piece of furniture (reached with "inspect <object>" from its wall), or a close-up of an item '
    '("inspect <item>" from the furniture showing it). "turn_to_<direction>" shows another wall and '
    '"step_back" returns to the wider view. Furniture can be opened, pressed, moved and so on with the '
    'actions listed for it; "pick <item>" puts an item into your inventory and "use <item>" applies a '
    "held item to the furniture in front of you. Locks are opened by entering their answer at the lock's "
    "close-up as <ANSWER>your answer</ANSWER>; clues for a lock are somewhere else in the room. Nobody "
    "tells you what to do: explore, remember what you have seen and test your ideas."
)
REPLY_FORMAT = (
    "Think first, then act. Write your reasoning in a [THINK] section and then, in an [ACTION] section, "
    "only the chosen action (or <ANSWER>your answer</ANSWER>), nothing else."
)
FORMAT_WORDS = re.compile(r"^(?:\[?action\]?\s*[:\-]?\s*)", re.IGNORECASE)
ROOM_SET = "all"
ORACLE_STEPS: dict[str, int] = {}  # "room|variant" -> oracle steps of the validated room


class VisEscapeConfig(TaskConfig):
    rooms: list[str] = Field(default_factory=lambda: [ROOM_SET])
    room_file: str | None = None  # play a room file of your own instead of the shipped rooms
    observation: Literal["image", "caption"] = "image"
    hints: bool = False
    max_steps: int = Field(300, ge=1)
    patience: int = Field(100, ge=1)  # early stop after this many steps without a new checkpoint
    hint_after: int = Field(30, ge=1)
    history: int = Field(20, ge=0)  # recent actions (with their results) listed in each observation
    retry_limit: int = Field(3, ge=0)  # free retries after an unavailable action before a step is spent
    answer_candidates: int = Field(4, ge=1, le=20)  # random answers offered to the random baseline

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


class VisEscapeTask(Task):
    Config: ClassVar[type[TaskConfig]] = VisEscapeConfig
    InstanceModel: ClassVar[type[Instance]] = VisEscapeInstance
    instance_label: ClassVar[str] = "visescape"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: VisEscapeConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._engine: Engine | None = None

    # --- instances -----------------------------------------------------------------------------
    def instances(self, n: int | None, seed: int) -> list[Instance]:
        if n is not None and n < 0:
            raise ConfigError(f"the number of instances must be >= 0, got {n}")
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
        room = load_room(room_ref)
        params = quiz_params(room, variant)
        key = f"{room_ref}|{variant}"
        if key not in ORACLE_STEPS:  # validating a room takes a few breadth-first searches: once per process
            ORACLE_STEPS[key] = check_room(room, params).oracle_steps
        name = room.id if variant is None else f"{room.id}-v{variant}"
        return VisEscapeInstance(
            id=name, room=room_ref, variant=variant, quiz_params=params, optimal_steps=ORACLE_STEPS[key]
        )

    # --- episode -------------------------------------------------------------------------------
    def reset(self, instance: Instance) -> None:
        if not isinstance(instance, VisEscapeInstance):
            instance = self.load_instance(instance.model_dump())
        assert isinstance(instance, VisEscapeInstance)
        room = load_room(instance.room)
        params = instance.quiz_params or quiz_params(room, instance.variant)
        missing = [q.id for q in room.quizzes if q.id not in params]
        if missing:
            raise ConfigError(
                f"visescape instance {instance.id!r} lacks quiz parameters for {', '.join(missing)}"
            )
        self._inst = instance
        self._room: Room = room
        self._engine = Engine(room, params)
        from playbench.tasks.visescape.views import ViewMaker  # Pillow work only when observing

        self._views = ViewMaker(self._engine)
        self._state: GameState = self._engine.initial_state()
        self._steps = 0
        self._retries = 0
        self._invalid = 0
        self._last_progress = 0
        self._ended_by: str | None = None
        self._feedback = ""
        self._log: list[tuple[str, str]] = []  # (action, result) per counted step
        self._reached_at: dict[str, int] = {}
        self._hinted: set[str] = set()
        self._hints_shown = 0
        self._gc_curve: list[float] = []
        self._situations: Counter[tuple[GameState, str]] = Counter()
        self._wrong: dict[str, set[str]] = {}
        self._answers = 0
        self._read: frozenset[str] = clues_read(self._engine, self._state)  # quizzes whose clue was read
        self._plan: list[str] = []
        self._plan_states: list[tuple[GameState, frozenset[str]]] = []

    def _require(self) -> Engine:
        if self._engine is None:
            raise RuntimeError("call reset(instance) before playing")
        return self._engine

    @property
    def engine(self) -> Engine:
        return self._require()

    @property
    def state(self) -> GameState:
        return self._state

    @property
    def done(self) -> bool:
        self._require()
        return self._ended_by is not None

    # --- hints ---------------------------------------------------------------------------------
    def _stuck(self) -> int:
        return self._steps - self._last_progress

    def hint_text(self) -> str | None:
        """The next checkpoint's hint while hint mode is on and the agent is stuck, else None."""
        engine = self._require()
        if not self.config.hints or self._stuck() < self.config.hint_after:
            return None
        k = engine.next_checkpoint(self._state)
        if k is None:
            return None
        return self.format_hint(self._room.checkpoints[k].hint)

    def format_hint(self, hint: str) -> str:
        engine = self._require()

        def answer(m: re.Match[str]) -> str:
            lock = m.group(1)
            return engine.answer(lock) if lock in engine.lock_quiz else m.group(0)

        return re.sub(r"\{answer:([A-Za-z0-9_]+)\}", answer, hint)

    # --- acting --------------------------------------------------------------------------------
    def _read_action(self, text: str) -> str:
        """The action part of a reply: the first line after the last [ACTION] tag (an <ANSWER> tag that
        starts there is taken whole); without a tag, the last <ANSWER> tag of the reply, else its last
        non-empty line. An <ANSWER> quoted in the reasoning before [ACTION] is not the action."""
        parts = re.split(r"\[\s*action\s*\]", text, flags=re.IGNORECASE)
        if len(parts) > 1:
            tail = parts[-1].lstrip()
            first = tail.splitlines()[0].strip() if tail else ""
            m = ANSWER_RE.search(tail)
            if m is not None and m.start() < len(tail.splitlines()[0]):
                return f"<ANSWER>{m.group(1).strip()}</ANSWER>"
            if first:
                return FORMAT_WORDS.sub("", first).strip()
        answers = list(ANSWER_RE.finditer(text))
        if answers:
            return f"<ANSWER>{answers[-1].group(1).strip()}</ANSWER>"
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if not lines:
            return ""
        return FORMAT_WORDS.sub("", lines[-1]).strip()

    def step(self, action_text: str) -> StepResult:
        engine = self._require()
        if self.done:
            return StepResult(
                Validity.INVALID, "The game is over; no more actions are accepted.", reason="episode_over"
            )
        text = action_text if isinstance(action_text, str) else str(action_text)
        raw = self._read_action(text)
        available = engine.available(self._state)
        if raw.startswith("<ANSWER>"):
            if ANSWER_ACTION not in available:
                return self._reject(
                    raw, "not_at_lock", "There is no lock in front of you to answer; inspect a lock first."
                )
            if not ANSWER_RE.search(raw).group(1).strip():  # type: ignore[union-attr]
                return self._reject(
                    raw, "empty_answer", "The answer is empty; write it between <ANSWER> and </ANSWER>."
                )
            action = raw
        else:
            action = engine.canonical(raw) if raw else ""
            if not action or action not in available:
                if not action:
                    return self._reject(
                        "", "unparseable", "No action was found in the reply.", unparseable=True
                    )
                grammar = re.fullmatch(
                    r"(turn_to_\w+|step_back|(inspect|pick|use|press) \S+|[a-z][a-z0-9_]*)", action
                )
                return self._reject(action, "unavailable", None, unparseable=grammar is None)
        return self._play(action)

    def _reject(self, action: str, reason: str, words: str | None, unparseable: bool = False) -> StepResult:
        """An unavailable or unreadable action: the paper's retry (nothing changes); repeated ones cost a step."""
        engine = self._require()
        self._invalid += 1
        self._retries += 1
        shown = action if len(action) <= 60 else action[:57] + "..."
        if words is None:
            words = f"'{shown}' is not available right now."
        options = ", ".join(engine.available(self._state))
        feedback = (
            f"{words} Nothing changed. Choose one of the available actions: {options}. If you wanted to "
            f"'{shown or 'act'}', first take the actions that make it possible (go to the right wall or object)."
        )
        spent = self._retries > self.config.retry_limit
        if spent:  # a step is spent so that endless invalid replies still end the game
            self._retries = 0
            self._count_step(action or "(invalid)", feedback, self._state, [])
            feedback += " (Too many unavailable actions in a row: this one cost a step.)"
        self._feedback = feedback
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        return StepResult(
            validity, feedback, parsed=action or None, reason=reason, info={"step_spent": spent}
        )

    def _play(self, action: str) -> StepResult:
        engine = self._require()
        before = self._state
        if self.hint_text() is not None:
            k = engine.next_checkpoint(before)
            if k is not None:
                self._hinted.add(engine.checkpoints[k])
                self._hints_shown += 1
        outcome: Outcome = engine.apply(before, action)
        self._retries = 0
        self._situations[(before, action)] += 1
        if outcome.lock is not None:
            self._answers += 1
            if outcome.wrong_answer is not None:
                self._wrong.setdefault(outcome.lock, set()).add(outcome.wrong_answer)
        self._state = outcome.state
        self._read = self._read | clues_read(engine, outcome.state)
        feedback = outcome.feedback
        new_cps = [t for t in engine.checkpoints if t in outcome.state.triggers and t not in self._reached_at]
        self._count_step(action, feedback, before, new_cps)
        if self._ended_by == "escaped":
            feedback += " You escaped the room!"
        elif self._ended_by == "step_cap":
            feedback += f" The step limit of {self.config.max_steps} is reached; the game is over."
        elif self._ended_by == "no_progress":
            feedback += (
                f" No checkpoint was reached in the last {self.config.patience} steps; the game is over."
            )
        self._feedback = feedback
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info = {"checkpoints": new_cps, "step": self._steps}
        return StepResult(validity, feedback, parsed=action, info=info)

    def _count_step(self, action: str, feedback: str, before: GameState, new_cps: list[str]) -> None:
        engine = self._require()
        self._steps += 1
        for t in new_cps:
            self._reached_at[t] = self._steps
        if new_cps:
            self._last_progress = self._steps
        self._log.append((action, feedback))
        self._gc_curve.append(len(self._reached_at) / len(engine.checkpoints))
        if engine.cleared(self._state):
            self._ended_by = "escaped"
        elif self._steps >= self.config.max_steps:
            self._ended_by = "step_cap"
        elif self._stuck() >= self.config.patience:
            self._ended_by = "no_progress"

    # --- oracle --------------------------------------------------------------------------------
    def oracle_action(self, role: str) -> str | None:
        """The next move of a shortest escape that reads each clue before answering its lock."""
        engine = self._require()
        if self.done:
            return None
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

    # --- observing -----------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """The available actions, a lock's answer slot replaced by a few random answers."""
        engine = self._require()
        out: list[str] = []
        for a in engine.available(self._state):
            if a == ANSWER_ACTION:
                lock = engine.lock_in_view(self._state)
                assert lock is not None
                kind, params = engine.quiz_kind(lock)
                rng = random.Random(derive_seed("visescape-guess", self._inst.id, lock, self._steps))
                out += [
                    f"<ANSWER>{g}</ANSWER>" for g in kind.guesses(params, rng, self.config.answer_candidates)
                ]
            else:
                out.append(a)
        return out

    def held_text(self) -> str:
        engine = self._require()
        if not self._state.held:
            return "none"
        return ", ".join(f"{i} ({engine.items[i].words})" for i in sorted(self._state.held, key=str.lower))

    def observe(self, role: str) -> Observation:
        engine = self._require()
        if role != "player":
            raise ValueError(f"unknown role {role!r}; this task has only 'player'")
        parts: list[Part] = []
        window = self._log[-self.config.history :] if self.config.history else []
        if window:
            first = len(self._log) - len(window) + 1
            lines = "\n".join(f"{first + k}. {a} -> {r}" for k, (a, r) in enumerate(window))
            parts.append(TextPart(f"<Recent actions (oldest to latest)>\n{lines}\n</Recent actions>"))
        parts.append(TextPart(f"<Held items>{self.held_text()}</Held items>"))
        header = self._views.header(self._state)
        if self.config.observation == "caption":
            parts.append(
                TextPart(
                    f"<Current Observation>{header}: {self._views.caption(self._state)}</Current Observation>"
                )
            )
        else:
            parts.append(TextPart(f"<Current Observation>{header}</Current Observation>"))
            parts.append(ImagePart(self._views.image(self._state), label="view"))
        if self._feedback:
            parts.append(TextPart(f"<Last action result>{self._feedback}</Last action result>"))
        hint = self.hint_text()
        if hint:
            parts.append(TextPart(f"<Hint>{hint}</Hint>"))
        available = engine.available(self._state) if not self.done else []
        parts.append(TextPart(f"<Available actions>{', '.join(available)}</Available actions>"))
        lock = engine.lock_in_view(self._state)
        if lock is not None:
            kind, params = engine.quiz_kind(lock)
            parts.append(
                TextPart(
                    f"You are facing the lock {lock}. To enter an answer reply <ANSWER>your answer</ANSWER> "
                    f"({kind.answer_format(params)})."
                )
            )
        parts.append(TextPart(REPLY_FORMAT))
        return Observation(
            role=role,
            parts=parts,
            instructions=INSTRUCTIONS,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
        )

    def caption(self) -> str:
        """The ground-truth caption of the current view."""
        self._require()
        return self._views.caption(self._state)

    # --- results -------------------------------------------------------------------------------
    def outcome(self) -> EpisodeResult:
        engine = self._require()
        success = self._ended_by == "escaped"
        optimal = self._inst.optimal_steps or 0
        reached = len(self._reached_at)
        metrics: dict[str, Any] = {
            "room": self._room.id,
            "gc": reached / len(engine.checkpoints),
            "spl": (optimal / max(self._steps, optimal)) if success and self._steps else 0.0,
            "paper_steps": self._steps if success else self.config.max_steps,
            "checkpoints_reached": reached,
            "checkpoints_total": len(engine.checkpoints),
            "ended_by": self._ended_by or "unfinished",
            "invalid_actions": self._invalid,
            "answers": self._answers,
            "wrong_answers_distinct": sum(len(v) for v in self._wrong.values()),
            "wrong_answers_per_lock": vm.per_lock(self._wrong, list(engine.lock_quiz)),
            "locks_solved": sum(engine.solved(self._state, lock) for lock in engine.lock_quiz),
            "locks_total": len(engine.lock_quiz),
            "gc_curve": [round(x, 4) for x in self._gc_curve],
            "repeat_hist": vm.repeat_histogram(self._situations, self._steps),
            "repeated_action_ratio": vm.repeated_ratio(self._situations, self._steps),
            "hints": self.config.hints,
        }
        if self.config.hints:
            metrics["hcr"] = (len(self._hinted & set(self._reached_at)) / reached) if reached else 0.0
            metrics["hints_shown"] = self._hints_shown
        return EpisodeResult(success=success, steps=self._steps, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return vm.summarize(episodes)
