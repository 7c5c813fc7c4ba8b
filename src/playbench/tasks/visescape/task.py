"""VisEscape rooms as a playbench task (`visescape/room-01` ... `room-20`, `visescape/rooms`).

One episode is one trial in one room: the agent starts facing a wall, sees one view per turn (an
image, or the ground-truth caption with `--set observation=caption`), the last actions with their
results, its held items and the available actions, and answers with one action. The game ends on
escaping (termination `goal_reached`), at the step cap (`step_cap`, `max_steps` = 300) or after 100
steps without reaching a new checkpoint (`no_progress`). With `--set hints=true` the next checkpoint's
hint is shown after 30 steps without progress.

`Observation.data` carries what the text shows as values (the view, held items, available actions,
recent actions, last result, hint, the lock in view); the paper's agents (`agents.py`) read it.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.tasks.visescape import metrics as vm
from playbench.tasks.visescape.engine import (
    ANSWER_ACTION,
    ANSWER_RE,
    Engine,
    GameState,
    Outcome,
    View,
    view_wall,
)
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
# what an action must look like to be an action at all (else it is unparseable, not merely unavailable)
ACTION_GRAMMAR = re.compile(r"(turn_to_\w+|step_back|(inspect|pick|use|press) \S+|[a-z][a-z0-9_]*)")


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


class VisEscapeTask(EpisodeTask):
    Config: ClassVar[type[TaskConfig]] = VisEscapeConfig
    InstanceModel: ClassVar[type[Instance]] = VisEscapeInstance
    instance_label: ClassVar[str] = "visescape"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: VisEscapeConfig

    @property
    def cache_instances(self) -> bool:  # type: ignore[override]
        # a user's room file may change between two calls in one process; the shipped rooms do not
        return self.config.room_file is None

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
        """One room (as authored, or a seeded variant), validated; `optimal_steps` is its oracle length."""
        room = load_room(room_ref)
        params = quiz_params(room, variant)
        name = room.id if variant is None else f"{room.id}-v{variant}"
        return VisEscapeInstance(
            id=name,
            room=room_ref,
            variant=variant,
            quiz_params=params,
            optimal_steps=check_room(room, params).oracle_steps,
        )

    # --- episode -------------------------------------------------------------------------------
    def _begin(self, instance: VisEscapeInstance) -> None:
        room = load_room(instance.room)
        params = instance.quiz_params or quiz_params(room, instance.variant)
        missing = [q.id for q in room.quizzes if q.id not in params]
        if missing:
            raise ConfigError(
                f"visescape instance {instance.id!r} lacks quiz parameters for {', '.join(missing)}"
            )
        self._room: Room = room
        self._engine = Engine(room, params)
        from playbench.tasks.visescape.views import ViewMaker  # Pillow work only when observing

        self._views = ViewMaker(self._engine)
        self._state: GameState = self._engine.initial_state()
        self._retries = 0
        self._invalid = 0
        self._last_progress = 0
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
    def _stuck(self) -> int:
        return self._steps - self._last_progress

    def hint_text(self) -> str | None:
        """The next checkpoint's hint while hint mode is on and the agent is stuck, else None."""
        engine = self.engine
        if not self.config.hints or self._stuck() < self.config.hint_after:
            return None
        k = engine.next_checkpoint(self._state)
        if k is None:
            return None
        return self.format_hint(self._room.checkpoints[k].hint)

    def format_hint(self, hint: str) -> str:
        engine = self.engine

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

    def _parse(self, text: str) -> str | ParseError:
        """The canonical action of a reply (an answer as `<ANSWER>...</ANSWER>`), whether available or not."""
        raw = self._read_action(text)
        if raw.startswith("<ANSWER>"):
            return raw
        action = self.engine.canonical(raw) if raw else ""
        if not action:
            return ParseError("No action was found in the reply.", reason="unparseable")
        if ACTION_GRAMMAR.fullmatch(action) is None:
            return ParseError(_unavailable(action), reason="unavailable", snippet=action)
        return action

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return self._reject(error.snippet, error.reason, error.message, unparseable=True)

    def _apply(self, action: str) -> StepResult:
        available = self.engine.available(self._state)
        if action.startswith("<ANSWER>"):
            if ANSWER_ACTION not in available:
                return self._reject(
                    action, "not_at_lock", "There is no lock in front of you to answer; inspect a lock first."
                )
            if not ANSWER_RE.search(action).group(1).strip():  # type: ignore[union-attr]
                return self._reject(
                    action, "empty_answer", "The answer is empty; write it between <ANSWER> and </ANSWER>."
                )
        elif action not in available:
            return self._reject(action, "unavailable", _unavailable(action))
        return self._play(action)

    def _reject(self, action: str, reason: str, words: str, unparseable: bool = False) -> StepResult:
        """An unavailable or unreadable action: the paper's retry (nothing changes); repeated ones cost a step."""
        self._invalid += 1
        self._retries += 1
        options = ", ".join(self.engine.available(self._state))
        feedback = (
            f"{words} Nothing changed. Choose one of the available actions: {options}. If you wanted to "
            f"'{_shown(action) or 'act'}', first take the actions that make it possible (go to the right wall or object)."
        )
        spent = self._retries > self.config.retry_limit
        if spent:  # a step is spent so that endless invalid replies still end the game
            self._retries = 0
            self._record_step(action or "(invalid)", feedback, [])
            feedback += " (Too many unavailable actions in a row: this one cost a step.)"
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        return StepResult(
            validity, feedback, parsed=action or None, reason=reason, info={"step_spent": spent}
        )

    def _play(self, action: str) -> StepResult:
        engine = self.engine
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
        new_cps = [t for t in engine.checkpoints if t in outcome.state.triggers and t not in self._reached_at]
        self._record_step(action, outcome.feedback, new_cps)
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info: dict[str, Any] = {
            "checkpoints": new_cps,
            "fired": outcome.fired,
            "view": _jsonable_view(self._state.view),
        }
        if outcome.lock is not None:
            info["lock"] = {"id": outcome.lock, "correct": outcome.wrong_answer is None}
        return StepResult(validity, outcome.feedback, parsed=action, info=info)

    def _record_step(self, action: str, feedback: str, new_cps: list[str]) -> None:
        """Bookkeeping of a step that counts; the template counts it right after `_apply`."""
        number = self._steps + 1
        for t in new_cps:
            self._reached_at[t] = number
        if new_cps:
            self._last_progress = number
        self._log.append((action, feedback))
        self._gc_curve.append(len(self._reached_at) / len(self.engine.checkpoints))

    def _counts_step(self, role: str, result: StepResult) -> bool:
        # every played action counts; a rejected one only once the free retries are used up
        played = result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE)
        return played or bool(result.info.get("step_spent"))

    def _check_end(self, result: StepResult) -> Termination | None:
        if self.engine.cleared(self._state):
            return Termination.GOAL_REACHED
        # at the last step the cap is the reason, as the paper counts a capped episode
        if self._steps < self.config.max_steps and self._stuck() >= self.config.patience:
            return Termination.NO_PROGRESS
        return None

    def _end_feedback(self, termination: Termination) -> str:
        if termination == Termination.GOAL_REACHED:
            return "You escaped the room!"
        if termination == Termination.STEP_CAP:
            return f"The step limit of {self.config.max_steps} is reached; the game is over."
        return f"No checkpoint was reached in the last {self.config.patience} steps; the game is over."

    def _after_step(self, role: str, result: StepResult) -> None:
        self._feedback = result.feedback  # shown as the last action's result in the next observation

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

    # --- observing -----------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """The available actions, a lock's answer slot replaced by a few random answers."""
        engine = self.engine
        out: list[str] = []
        for a in engine.available(self._state):
            if a == ANSWER_ACTION:
                lock = engine.lock_in_view(self._state)
                assert lock is not None
                kind, params = engine.quiz_kind(lock)
                # seeded by the actions played, so a rejected reply (even one that spends a step) keeps them
                played = sum(self._situations.values())
                rng = random.Random(derive_seed("visescape-guess", self.instance.id, lock, played))
                out += [
                    f"<ANSWER>{g}</ANSWER>" for g in kind.guesses(params, rng, self.config.answer_candidates)
                ]
            else:
                out.append(a)
        return out

    def _observe(self, role: str) -> Observation:
        engine = self.engine
        parts: list[Part] = []
        window = self._log[-self.config.history :] if self.config.history else []
        first = len(self._log) - len(window) + 1
        if window:
            lines = "\n".join(f"{first + k}. {a} -> {r}" for k, (a, r) in enumerate(window))
            parts.append(TextPart(f"<Recent actions (oldest to latest)>\n{lines}\n</Recent actions>"))
        held = [{"id": i, "name": engine.items[i].words} for i in sorted(self._state.held, key=str.lower)]
        held_text = ", ".join(f"{h['id']} ({h['name']})" for h in held) or "none"
        parts.append(TextPart(f"<Held items>{held_text}</Held items>"))
        header = self._views.header(self._state)
        caption = self._views.caption(self._state) if self.config.observation == "caption" else None
        if caption is not None:
            parts.append(TextPart(f"<Current Observation>{header}: {caption}</Current Observation>"))
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
        lock_data = None
        if lock is not None:
            kind, params = engine.quiz_kind(lock)
            lock_data = {"id": lock, "answer_format": kind.answer_format(params)}
            parts.append(
                TextPart(
                    f"You are facing the lock {lock}. To enter an answer reply <ANSWER>your answer</ANSWER> "
                    f"({lock_data['answer_format']})."
                )
            )
        parts.append(TextPart(REPLY_FORMAT))
        v = self._state.view
        data: dict[str, Any] = {
            "view": {
                "kind": {"wall": "wall", "rec": "receptacle", "item": "item"}[v[0]],
                "name": v[1],
                "wall": view_wall(v, self._room),
                "header": header,
            },
            "held": held,
            "available_actions": available,
            "recent_actions": [
                {"step": first + k, "action": a, "result": r} for k, (a, r) in enumerate(window)
            ],
            "last_result": self._feedback,
            "hint": hint or None,
            "lock": lock_data,
        }
        if caption is not None:
            data["caption"] = caption
        return Observation(
            role=role,
            parts=parts,
            instructions=INSTRUCTIONS,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
            data=data,
        )

    def caption(self) -> str:
        """The ground-truth caption of the current view."""
        self._require_episode()
        return self._views.caption(self._state)

    # --- results -------------------------------------------------------------------------------
    def _outcome(self) -> EpisodeResult:
        engine = self.engine
        success = self.termination == Termination.GOAL_REACHED
        optimal = self.instance.optimal_steps or 0
        reached = len(self._reached_at)
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


def _shown(action: str) -> str:
    """An action as quoted back in feedback (long ones cut)."""
    return action if len(action) <= 60 else action[:57] + "..."


def _unavailable(action: str) -> str:
    return f"'{_shown(action)}' is not available right now."


def _jsonable_view(view: View) -> list[Any]:
    """A view as JSON data: `["wall", dir]`, `["rec", id]` or `["item", id, parent view]`."""
    return [_jsonable_view(x) if isinstance(x, tuple) else x for x in view]
