"""`visescape/original`: the authors' twenty rooms, played from a clone by the original's rules.

`--set source=PATH` names a clone of `pull-ups/VisEscape-demo` (`images=PATH` optionally the authors'
full-resolution images); instance ids are the clone's folder names (`room1` ... `room20`). Without a
source these ids refuse to be played (run, reproduce, play, the browser: one line naming `--set source=`
and the originals folder); only the checks, which need every id to have a default set (the conformance
check, the pinned instance digests), see the built-in demo room `room0` under them. The demo room is
played by its own id, `visescape/original-demo` (`DemoTask`).

Each turn shows what the original base agent's prompt shows (`protocol.py`): the action memory, the
last 10 non-turn actions, the view's image file unchanged, the inventory, the previous action, the
hint when due, the available actions and at a lock that takes a typed answer the <ANSWER> note. The
game gives no result text. Metrics are the authors' (`evaluation/get_score.py`): GC = triggers
reached / CLEAR_PROGRESS, SPL = ORACLE_STEPS / steps when escaped, steps = 300 when not.

Here: the options, instances, the episode's start, hints, the oracle and the results; reading and playing
a reply is mixed in from `stepping.py`, the turn's observation and offered actions from `observing.py`
(as in `visescape/task.py`, playbench's own rooms).
"""

from __future__ import annotations

import random
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
from playbench.core.types import EpisodeResult
from playbench.tasks.visescape import metrics as vm
from playbench.tasks.visescape import originals as om
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.original.clone import Clone, CloneError, demo_clone, open_clone
from playbench.tasks.visescape.original.engine import Game
from playbench.tasks.visescape.original.observing import Observing
from playbench.tasks.visescape.original.stepping import Stepping
from playbench.tasks.visescape.original_prompts import TheirPrompts, data_origin, task_prompts
from playbench.tasks.visescape.task_texts import OriginalTurns

ALL = "all"
# the one line `run`, `reproduce` and `play` print, exit 2, for the authors' ids without a source
NO_SOURCE = (
    "the authors' VisEscape rooms (visescape/original, visescape/original-hint) are not shipped with "
    "playbench: give --set source=PATH, a clone of github.com/pull-ups/VisEscape-demo (such as one in the "
    "originals folder, ~/.cache/playbench/originals or $PLAYBENCH_ORIGINALS); playbench's own demo room in "
    "their format is visescape/original-demo"
)


class RoomOptions(TextsOptions):
    """The options of every id that plays rooms in the authors' format."""

    rooms: list[str] = Field(default_factory=lambda: [ALL])
    hints: bool = False
    max_steps: int = Field(300, ge=1)
    patience: int = Field(100, ge=1)  # early stop after this many steps without a new trigger
    hint_after: int = Field(30, ge=0)  # a hint is due once more steps than this pass without progress
    history: int = Field(10, ge=0)  # recent (non-turn) actions listed each turn
    retry_limit: int = Field(3, ge=0)  # free retries after an unavailable reply (unreadable: below)
    # an unreadable reply away from a lock: the fallback at once, as the original agents after one call;
    # ask_again (ours): free retries as for an unavailable reply
    unreadable: pc.Unreadable = "fallback"
    # after the free retries: the original agents play the first action of their shuffled list
    # (random_action); spend_step counts a step that changes nothing instead
    fallback: pc.Fallback = "random_action"
    answer_candidates: int = Field(4, ge=1, le=20)  # random answers offered to the random baseline

    @field_validator("rooms", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value


class OriginalConfig(RoomOptions):
    # a clone of pull-ups/VisEscape-demo; needed to play (default: the originals folder's clone)
    source: str | None = None
    images: str | None = None  # a folder laid out as roomN/image/... (the authors' full-resolution images)
    # paper: the authors' rooms from the clone; twin: a fresh generated room per paper room, matched in
    # difficulty and played as our rooms are (`generated.py`; no clone needed)
    dataset: Literal["paper", "twin"] = "paper"


class OriginalInstance(Instance):
    room: str  # the clone's folder name
    spl_steps: int | None = None  # the authors' ORACLE_STEPS for the room (SPL's numerator)
    clear_progress: int | None = None  # the authors' CLEAR_PROGRESS (GC's denominator)


def load_clone(config: RoomOptions) -> Clone:
    """The clone `source` names; the built-in demo room for the demo id, or where no source is given
    (reached without one only by the checks: playing refuses first, see `OriginalTask.preflight`)."""
    source, images = getattr(config, "source", None), getattr(config, "images", None)
    if source is None:
        if images is not None:
            raise ConfigError("images= needs source= too (a clone of pull-ups/VisEscape-demo)")
        return demo_clone()
    try:
        return open_clone(source, images)
    except CloneError as exc:
        raise ConfigError(str(exc)) from None


def oracle_plan(clone: Clone, room: str) -> tuple[list[str], bool, list[str]]:
    """The authors' walkthrough as actions our task accepts: a typed answer becomes
    <ANSWER>...</ANSWER>; a turn the game does not offer (the walkthrough was recorded with an older
    room file) is left out. Returns (actions, escaped, images seen on the way)."""
    game = Game(clone.room(room))
    plan: list[str] = []
    images = [game.image()]
    for turn in clone.walkthrough(room):
        chosen = str(turn["chosen_action"])
        if chosen in game.available_actions():
            plan.append(chosen)
        elif game.accepts_answer():
            plan.append(f"<ANSWER>{chosen}</ANSWER>")
        else:
            continue
        game.handle_action(chosen)
        images.append(game.image())
        if game.cleared():
            return plan, True, images
    return plan, False, images


class OriginalTask(Stepping, Observing, pc.PaperEnding, EpisodeTask):
    Config: ClassVar[type[TaskConfig]] = OriginalConfig
    InstanceModel: ClassVar[type[Instance]] = OriginalInstance
    instance_label: ClassVar[str] = "visescape original"
    roles: ClassVar[tuple[str, ...]] = ("player",)
    needs_source: ClassVar[bool] = True  # the authors' rooms: no playing without a clone
    # `source` defaults to the clone in the originals folder; texts=original reads the agents' prompts there
    originals: ClassVar[OriginalsUse | None] = om.ORIGINAL_ROOMS

    config: RoomOptions

    def __new__(cls, config: TaskConfig | None = None, **options: Any) -> Any:
        """`dataset=twin` plays the twin of the authors' set (`visescape/generated`'s twin), not their rooms:
        the same protocol options, no clone. Any other value makes the task itself."""
        values = config.model_dump() if config is not None else options
        if values.get("dataset") == "twin":
            return twin_task(cls, values)
        return super().__new__(cls)

    @property
    def source(self) -> str | None:
        return getattr(self.config, "source", None)

    def preflight(self) -> None:
        """The authors' ids are not played without a clone (one line naming `--set source=`); the
        checks, which do not call this, see the built-in demo room under them."""
        if self.needs_source and self.source is None:
            raise ConfigError(NO_SOURCE)
        prompts = self._their_prompts()
        if prompts is not None:  # texts=original: every mapped text is read now, before any episode
            prompts.check()

    def _their_prompts(self) -> TheirPrompts | None:
        """The authors' prompts (texts=original), or None for ours; read once per task object."""
        if not hasattr(self, "_prompts_cache"):
            self._prompts_cache = task_prompts(self.config, type(self).originals)
        return self._prompts_cache

    def data_origin(self) -> str:
        """`original@<commit>` for the authors' rooms read from a clone; `ours` for the demo room."""
        return data_origin(self.source)

    def model_side(self) -> ModelSide:
        """The authors' agents' calls (`protocol.MODEL_SIDE`)."""
        return pc.MODEL_SIDE

    # --- instances -----------------------------------------------------------------------------
    def _room_names(self, clone: Clone) -> list[str]:
        known = clone.room_names()
        wanted: list[str] = []
        for name in self.config.rooms:
            if name == ALL:
                wanted += known
            elif name in known:
                wanted.append(name)
            else:
                where = self.source or "the built-in demo"
                raise ConfigError(
                    f"unknown room {name!r} in {where} (rooms there: {ALL}, {', '.join(known)})"
                )
        return list(dict.fromkeys(wanted))

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        clone = load_clone(self.config)
        names = self._room_names(clone)
        if seed != 0:  # other seeds visit the rooms in a seeded order
            random.Random(derive_seed("visescape-original-order", seed)).shuffle(names)
        total = len(names) if n is None else n
        out: list[Instance] = []
        for k in range(total):
            pass_no, name = k // len(names), names[k % len(names)]
            try:
                plan, escaped, _ = oracle_plan(clone, name)
                spl, clear = clone.oracle_steps(name), clone.clear_progress(name)
            except CloneError as exc:
                raise ConfigError(str(exc)) from None
            out.append(
                OriginalInstance(
                    # a longer set than the clone's rooms repeats them under distinct ids
                    id=name if pass_no == 0 else f"{name}-r{pass_no + 1}",
                    room=name,
                    optimal_steps=len(plan) if escaped else None,
                    spl_steps=spl,
                    clear_progress=clear,
                )
            )
        return out

    # --- episode -------------------------------------------------------------------------------
    def _begin(self, instance: OriginalInstance) -> None:
        self._clone = load_clone(self.config)
        try:
            room = self._clone.room(instance.room)
            self._plan, _, essential = oracle_plan(self._clone, instance.room)
        except CloneError as exc:
            raise ConfigError(str(exc)) from None
        self._game = Game(room)
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
        self._situations: Counter[tuple[str, str]] = Counter()
        self._essential = {e for e in essential if e}
        self._seen = {self._game.image()}
        self._essential_curve: list[float] = []
        self._gc_curve: list[float] = []
        self._answers = 0
        self._wrong: dict[str, set[str]] = {}
        self._plan_pos = 0

    @property
    def game(self) -> Game:
        self._require_episode()
        return self._game

    def state(self) -> dict[str, Any]:
        """The game's full state (views, receptacle states, items, inventory, triggers); not the logs."""
        return self._game.snapshot()

    # --- hints ---------------------------------------------------------------------------------
    def hint_text(self) -> str | None:
        """The hint due now: the room's hint for the last trigger, once more than `hint_after` steps
        passed without progress (hint mode only)."""
        if not self._progress.due(self.config.hints):
            return None
        return self._game.hint()

    # --- oracle --------------------------------------------------------------------------------
    def _oracle(self, role: str) -> str | None:
        """The authors' walkthrough (see `oracle_plan`), one action per step."""
        played = sum(self._situations.values())
        return self._plan[played] if played < len(self._plan) else None

    # --- results -------------------------------------------------------------------------------
    def _gc(self) -> float:
        total = self.instance.clear_progress or 0
        return len(self._game.triggers) / total if total else 0.0

    def _outcome(self) -> EpisodeResult:
        game, inst = self._game, self.instance
        success = self.termination == Termination.GOAL_REACHED
        quiz_locks = [n for n, it in game.room.items.items() if it.nonkey_lock]
        solved = [n for n in quiz_locks if f"solved_{n}" in game.triggers]
        progress = len(game.triggers)
        metrics: dict[str, Any] = {
            "room": inst.room,
            "gc": self._gc(),
            "spl": (inst.spl_steps / self._steps) if success and inst.spl_steps and self._steps else 0.0,
            "paper_steps": self._steps if success else self.config.max_steps,
            "checkpoints_reached": progress,
            "checkpoints_total": inst.clear_progress,
            "invalid_actions": self._invalid,
            "answers": self._answers,
            "wrong_answers_distinct": sum(len(v) for v in self._wrong.values()),
            "wrong_answers_per_lock": vm.per_lock(self._wrong, quiz_locks),
            "locks_solved": len(solved),
            "locks_total": len(quiz_locks),
            # Table 7's solved quiz ratio for this episode (the paper pools it over all locks)
            "quiz_solved_ratio": len(solved) / len(quiz_locks) if quiz_locks else 0.0,
            "gc_curve": [round(x, 4) for x in self._gc_curve],
            "essential_curve": [round(x, 4) for x in self._essential_curve[: vm.PROGRESS_STEPS]],
            "essential_seen": round(self._essential_curve[: vm.PROGRESS_STEPS][-1], 4)
            if self._essential_curve
            else 0.0,
            "repeat_hist": vm.repeat_histogram(self._situations, self._steps),
            "repeated_action_ratio": vm.repeated_ratio(self._situations, self._steps),
            "hints": self.config.hints,
        }
        if self.config.hints:
            metrics["hcr"] = self._progress.solved_hints() / progress if progress else 0.0
            metrics["hints_given"] = len(self._progress.given)
        return EpisodeResult(success=success, steps=self._steps, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return vm.summarize(episodes)

    def difficulty(self, instance: Instance) -> dict[str, Any] | None:
        """The authors' room's figures as shipped (`data/paper_difficulty.json`, computed from their clone at
        9f65b99 by `scripts/visescape_paper_figures.py`); None for a room not among them (the demo room)."""
        from playbench.tasks.visescape.generated import paper_figures

        room = getattr(self.coerce_instance(instance), "room", None)
        record = next((r for r in paper_figures() if r["id"] == room), None)
        return None if record is None else {k: v for k, v in record.items() if k != "id"}


class DemoConfig(RoomOptions):
    """`visescape/original-demo`: no source and no images (the room is built in)."""


class DemoTask(OriginalTask):
    """`visescape/original-demo`: playbench's own demo room `room0` in the authors' format (`demo.py`),
    played by the same rules and protocol as their rooms, for trying the task and the agents without a
    clone. It is not one of the authors' rooms: nothing it scores compares with the paper."""

    Config: ClassVar[type[TaskConfig]] = DemoConfig
    instance_label: ClassVar[str] = "visescape original demo"
    needs_source: ClassVar[bool] = False
    originals: ClassVar[OriginalsUse | None] = om.TEXTS_ONLY  # the prompts only: the room is ours


# the options of the authors' ids that mean nothing for generated rooms (checked before they are dropped)
_PAPER_ONLY = {"source": None, "images": None, "dataset": "twin"}


def twin_task(cls: type[OriginalTask], values: dict[str, Any]) -> Any:
    """The generated twin task with this id's protocol options (`hints` for `original-hint`)."""
    from playbench.tasks.visescape.generated import GeneratedTask

    # the id's own options are checked as usual (one message naming a bad one), then passed on as read
    values = cls.make_config(**values).model_dump()
    options = {k: v for k, v in values.items() if k not in _PAPER_ONLY}
    rooms = options.pop("rooms", [ALL])
    if rooms != [ALL]:
        options["twin_of"] = rooms  # rooms=room4 plays the twin of room4
    if values.get("images") is not None:
        raise ConfigError("images= names the authors' images; the twin (dataset=twin) draws its own")
    return GeneratedTask(dataset="twin", **options)
