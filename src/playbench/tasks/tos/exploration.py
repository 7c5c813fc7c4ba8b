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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import TextsOptions, texts_source
from playbench.core.originals import OriginalsUse, find_clone
from playbench.core.task import Instance, TaskConfig
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.core.types import Turn as ChatTurn
from playbench.tasks.tos import probing, prompts
from playbench.tasks.tos.cogmap import Change
from playbench.tasks.tos.grammar import INVALID_PENALTY, Invalid, Outcome, Turn, execute, parse_turn
from playbench.tasks.tos.model_side import TOS_MODEL_SIDE
from playbench.tasks.tos.originals import NAME as ORIGINAL_REPO
from playbench.tasks.tos.originals import SCENES as ORIGINAL_SCENES
from playbench.tasks.tos.proxies import scout_turns, strategist_turns
from playbench.tasks.tos.scenes import Scene, load_scenes
from playbench.tasks.tos.solver import PositionSolver, observation_triples, query_triple
from playbench.tasks.tos.texts import TosTexts
from playbench.tasks.tos.world import (
    START,
    Pose,
    World,
    cached_world,
    in_fov,
    items_of,
    plan_observations,
    plan_turns,
    rooms_at,
    turn,
    visible_items,
)

COUNT_KEYS = ("move", "rotate", "return", "observe", "query", "term")
# the answer to any Term(), the false-belief Term(changes="...") too (texts=ours; `texts.py`)
TASK_FINISHED = prompts.TASK_FINISHED


def oracle_poses(world: World, known: frozenset[str] = frozenset(), allow_return: bool = False) -> list[Pose]:
    """The oracle explorer's Observe poses (empty for a loaded world no plan of 60 turns covers)."""
    try:
        return plan_observations(world, limit=60, known=known, allow_return=allow_return)
    except ValueError:
        return []


@lru_cache(maxsize=8)
def _scenes(path: str) -> tuple[Scene, ...]:
    return tuple(load_scenes(path))


def run_number(source: str | None) -> int | None:
    """The run number of an authors' scene folder (`run05` -> 5): their environment's seed."""
    m = re.search(r"(\d+)$", source or "")
    return int(m.group(1)) if m else None


class TosConfig(TextsOptions):
    modality: Literal["text", "vision"] = "text"
    # defaults: the paper's main setting, three connected 6 x 6 rooms with four objects each
    rooms: int = Field(3, ge=1, le=4, description="rooms per world")
    objects: int = Field(4, ge=1, le=6, description="objects per room")
    room_size: int = Field(6, ge=3, le=10, description="interior side of every room, in grid points")
    max_steps: int = Field(20, ge=2, le=200, description="step cap of the exploration (one reply = one step)")
    default_set: int = Field(100, ge=1, le=10_000, description="worlds in the default set")
    image_size: int = Field(384, ge=96, le=1024, description="side of a (square) first-person view (vision)")
    scenes: str | None = Field(
        None,
        description="a folder of the authors' scenes (runNN/meta_data.json); default with their clone: "
        f"its {ORIGINAL_SCENES}",
    )
    layout: Literal["tos", "grid"] = "tos"  # grid: our earlier generator
    return_action: bool = False  # ours: allow Return() (back to the start, facing north)
    invalid_cost: float = Field(
        0.0, ge=0.0, le=10.0, description="exploration cost of an invalid reply (ours: 0.5)"
    )
    # chat: the authors' conversation (a real chat keeping every earlier exchange of the exploration,
    # the raw replies as assistant turns); log: ours, the exploration log packed into each observation
    conversation: Literal["chat", "log"] = "chat"


class TosInstance(Instance):
    """One world (and question or changes). The caps keep the field names the published sets were
    written with (`budget`: the exploration's `max_steps`; `fb_budget`: the second exploration's
    `max_steps_second`)."""

    world: World
    budget: int = 20
    question: dict[str, Any] | None = None
    changes: list[Change] | None = None
    fb_budget: int | None = None
    image_ids: dict[str, str] | None = None  # an authors' scene: the id of each object's images


@dataclass
class LogEntry:
    step: int
    action: str
    feedback: str
    view: tuple[int, Pose] | None = None  # (world version, pose) of an Observe, for its image


@dataclass(frozen=True)
class Reply:
    """A reply read for the current phase: the exploration turn it makes, or the answer text."""

    text: str
    turn: Turn | None = None  # None on the answer turn and on a probe
    probe: bool = False  # a reply to a belief probe (see `probing.py`)


def _shown(text: str) -> str:
    """What the log shows of a rejected reply: its last line."""
    return text.strip().splitlines()[-1][:120] if text.strip() else "(empty reply)"


class TosTask(EpisodeTask):
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

    # --- texts and data origin -------------------------------------------------------------
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

    def data_origin(self) -> str:
        """`generated` (our generator), or the authors' scenes: `original@<commit>` when read from
        their clone, `original (PATH)` from a folder outside it."""
        if not self.config.scenes:
            return "generated"
        assert self.originals is not None
        clone = find_clone(self.originals.repo, self.config.originals)
        scenes = Path(self.config.scenes).expanduser().resolve()
        if clone is not None and scenes.is_relative_to(clone.path.expanduser().resolve()):
            return clone.stamp
        return f"original ({self.config.scenes})"

    def model_side(self) -> ModelSide:
        """The authors' generation settings per model (`model_side.py`), for every task and phase:
        exploration, answer, belief probes."""
        return TOS_MODEL_SIDE

    # --- instances -------------------------------------------------------------------------
    @property
    def passive(self) -> bool:
        return getattr(self.config, "exploration", "active") == "passive"

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        if self.config.scenes:
            out = self._scene_instances()
            return out if n is None else out[:n]
        total = self.config.default_set if n is None else n
        return [self._make_instance(seed, i) for i in range(total)]

    def _loaded(self) -> tuple[Scene, ...]:
        return _scenes(str(Path(self.config.scenes or "").expanduser().resolve()))

    def _scene_instances(self) -> list[Instance]:
        out: list[Instance] = []
        for scene in self._loaded():
            out.extend(self._from_scene(scene))
        return out

    def _from_scene(self, scene: Scene) -> list[Instance]:
        plan = oracle_poses(scene.world, allow_return=self.config.return_action)
        return [
            TosInstance(
                id=f"tos-{self.KIND}-{scene.world.source}",
                optimal_steps=self._optimal(tuple(plan)),
                world=scene.world,
                budget=self.config.max_steps,
                image_ids=scene.image_ids,
            )
        ]

    def _world(self, seed: int, key: int | str) -> tuple[World, tuple[Pose, ...]]:
        c = self.config
        try:
            return cached_world(
                c.rooms, c.objects, seed, key, c.max_steps, c.room_size, c.layout, c.return_action
            )
        except ValueError as exc:
            raise ConfigError(f"{exc}; raise max_steps or lower rooms/objects") from None

    def _instance_id(self, seed: int, index: int) -> str:
        c = self.config
        size = "" if c.room_size == 6 else f"z{c.room_size}"
        grid = "g" if c.layout == "grid" else ""
        return f"tos-{self.KIND}-r{c.rooms}o{c.objects}{size}{grid}-s{seed}-{index:04d}"

    def _optimal(self, plan: tuple[Pose, ...]) -> int:
        """Optimal steps: the plan's Observe turns and Term()."""
        return len(plan) + 1

    def _make_instance(self, seed: int, index: int) -> TosInstance:
        world, plan = self._world(seed, index)
        return TosInstance(
            id=self._instance_id(seed, index),
            optimal_steps=self._optimal(plan),
            world=world,
            budget=self.config.max_steps,
        )

    # --- episode ---------------------------------------------------------------------------
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

    def _play_oracle_log(self) -> None:
        """Passive mode: a scripted explorer's turns (SCOUT, or the oracle's plan), executed, become
        the given exploration log."""
        turns = self._plan_turns
        log = getattr(self.config, "passive_log", "oracle")
        if log is None:
            log = "scout" if self.config.modality == "vision" else "strategist"
        if log in ("scout", "strategist"):
            proxy = scout_turns(self.world) if log == "scout" else strategist_turns(self.world)
            turns = [t for t in proxy if t != "Actions: [Term()]"]
        for k, text in enumerate(turns, start=1):
            t = parse_turn(text, allow_return=self.config.return_action)
            assert isinstance(t, Turn), text
            out = execute(self.world, self._pose, self._observed, t, self.texts.feedback)
            self._pose = out.pose
            self._observed |= set(out.seen)
            view = (0, out.observed_at) if out.observed_at else None
            self._log.append(LogEntry(k, t.canonical, self._result_text(out), view))
        self._log.append(LogEntry(len(turns) + 1, "Actions: [Term()]", self.texts.feedback.terminated))
        self._phase1_observed = self._observed

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

    # --- stepping --------------------------------------------------------------------------
    def _parse(self, text: str) -> Reply | ParseError:
        self._raw = text  # the reply as sent: the assistant turn of the chat
        if self._probes:  # any reply answers a probe (an unreadable one scores nothing, as theirs)
            return Reply(text, probe=True)
        if self._phase == "answer":
            return Reply(text)
        t = parse_turn(text, fb_phase=self._phase == "fb", allow_return=self.config.return_action)
        if isinstance(t, Invalid):
            return ParseError(t.message, t.reason, _shown(text))
        return Reply(text, t)

    def _apply(self, parsed: Reply) -> StepResult:
        if parsed.probe:
            return self._probe_step(parsed.text)
        if parsed.turn is None:
            return self._answer_step(parsed.text)
        phase_before = self._phase
        changed_before = set(self._changed_seen)
        result = self._explore_step(parsed.turn)
        self._after_turn(phase_before, result, self._changed_seen - changed_before)
        return result

    def _on_parse_error(self, error: ParseError) -> StepResult:
        """An invalid reply: nothing happens; it uses a step (and, with `invalid_cost`, costs)."""
        self._phase_steps += 1
        self._replies += 1
        self._cost += self.config.invalid_cost
        unparseable = error.reason in ("action_list", "empty")
        if unparseable:
            self._unparseable += 1
        else:
            self._invalid += 1
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        info = {"phase": self._phase, "rule": error.reason, "cost": self.config.invalid_cost}
        # theirs (`env.py`): the invalid-action message and a newline, and no steps-left line (their
        # invalid branch skips it; the format footer follows); ours names the broken rule
        message = error.message if self.texts.invalid_action is None else self.texts.invalid_action + "\n"
        result = StepResult(validity, message, reason=error.reason, info=info)
        return self._logged(result, error.snippet or "(no action list)", None, steps_left=False)

    def _result_text(self, out: Outcome) -> str:
        """The turn's messages as the environment writes them (an image placeholder in vision)."""
        if self.config.modality != "vision" or out.view_message is None:
            return out.text
        words = self.texts.feedback
        view = words.observe_text("<image>")
        messages = list(out.messages)
        messages[out.view_message] = words.failed_move_text(view) if out.failed else view
        return " ".join(messages)

    def _explore_step(self, t: Turn) -> StepResult:
        fb_phase = self._phase == "fb"
        out = execute(self.world, self._pose, self._observed, t, self.texts.feedback)
        self._phase_steps += 1
        self._replies += 1
        self._pose = out.pose
        self._cost += out.cost
        for k, v in out.counts.items():
            self._counts[k] = self._counts.get(k, 0) + v
        if out.failed:
            self._failed_turns += 1
        pose = {"x": out.pose.x, "y": out.pose.y, "facing": out.pose.facing}
        info: dict[str, Any] = {"phase": self._phase, "action": t.final[0], "cost": out.cost, "pose": pose}
        if out.failed:
            info["failed"] = out.failed
        new = [n for n in out.seen if n not in self._observed]
        self._observed |= set(out.seen)
        if not fb_phase and not self.passive:
            info["information_gain"] = self._track_information(out)
        if out.observed_at is not None:
            info["newly_observed"] = sorted(new)
            self._plan_index += 1
            if fb_phase:
                self._track_changed(out.seen)
        if out.query is not None:
            info["target"] = out.query["name"]
        useful = bool(new) or out.query is not None or out.terminated or (fb_phase and out.observed_at)
        validity = Validity.EFFECTIVE if useful else Validity.INEFFECTIVE
        feedback = self._result_text(out)
        view = (self._version, out.observed_at) if out.observed_at is not None else None
        if out.terminated:
            self._terminated_by_agent = True
            result = StepResult(validity, feedback, parsed=t.canonical, info=info)
            if fb_phase:
                reported = sorted({lab for c in out.changes or [] for lab in c.labels()})
                self._answer = {"changes": reported, "changes_text": out.changes_text}
                info["changes"] = [list(c) for c in reported]
                # the change list is this task's answer: its episode reached its end
                return self._end_phase(result, self.texts.task_finished, Termination.GOAL_REACHED)
            self._log.append(LogEntry(self._phase_steps, t.canonical, feedback))
            return self._end_phase(result, self.texts.task_finished, Termination.AGENT_ENDED)
        result = StepResult(validity, feedback, parsed=t.canonical, info=info)
        return self._logged(result, t.canonical, view)

    def _track_changed(self, seen: list[str]) -> None:
        """After an Observe() of the second exploration (false belief): what it saw again."""

    def _logged(
        self, result: StepResult, shown: str, view: tuple[int, Pose] | None, steps_left: bool = True
    ) -> StepResult:
        """Log an exploration step; at the phase's cap the phase (or the episode) ends."""
        cap = self._phase_cap()
        left = cap - self._phase_steps
        if steps_left:
            result.feedback += "\n" + self.texts.steps_left(left)
        if left <= 0:
            result.feedback += " The exploration is over."
            self._log.append(LogEntry(self._phase_steps, shown, result.feedback, view))
            return self._end_phase(result, result.feedback, Termination.STEP_CAP)
        self._log.append(LogEntry(self._phase_steps, shown, result.feedback, view))
        self._feedback = result.feedback
        return result

    def _end_phase(self, result: StepResult, feedback: str, termination: Termination) -> StepResult:
        """End the current exploration; the episode ends too when no phase follows it."""
        result.info["phase_ended"] = self._phase
        if self._phase == "explore":
            self._phase1_observed = self._observed
            self._phase = self._after_exploration()
            self._on_exploration_end()
        else:
            self._phase = "done"
        self._feedback = result.feedback = feedback
        if self._phase == "done":
            if termination == Termination.STEP_CAP and self._probes_after_cap():
                self._pending_end = termination  # the capped turn is probed first (`_check_end`)
            else:
                self.end(termination)
        else:  # the template counts this step after `_apply`: the next phase starts after it
            self._cap = self._phase_ends_at(self._steps + 1)
        return result

    def _on_exploration_end(self) -> None:
        """Hook for the false-belief task."""

    def _after_step(self, role: str, result: StepResult) -> None:
        result.info["total_cost"] = self._cost
        if self._chatting() and result.info.get("phase") == "explore":
            # theirs (`env.py`): the reply, then the environment's answer as the next user message
            self._chat += [
                ChatTurn("user", self._chat_user or []),
                ChatTurn("assistant", [TextPart(self._raw)]),
            ]
            self._chat_user = self._turn_message(result)

    # --- the exploration as a chat (the authors' conversation) ------------------------------
    def _chatting(self) -> bool:
        """Whether this episode's own exploration is sent as a real chat (`conversation=chat`)."""
        return self.config.conversation == "chat" and not self.passive

    def _opening_message(self) -> list[Part]:
        """The first user message: theirs opens with the task prompt (here our rules: their body is
        not read yet) and closes with the format footer; ours: the start, then the status line."""
        if self.texts.original:
            return [TextPart(self._rules), *self._intro_parts(), TextPart(self._status())]
        return [*self._intro_parts(), TextPart(self._exploration_header()), TextPart(self._status())]

    def _turn_message(self, result: StepResult) -> list[Part]:
        """The user message after an exploration reply: its result (the steps-left line included),
        then the footer (theirs) or status line (ours); after the end of the exploration the
        result alone (theirs: the task-finished text)."""
        text = result.feedback
        entry = self._log[-1] if self._log else None
        parts: list[Part] = [TextPart(text)]
        vision = self.config.modality == "vision" and entry is not None and entry.view is not None
        if vision and "<image>" in text:  # their placeholder: the view goes where the text names it
            assert entry is not None and entry.view is not None
            before, after = text.split("<image>", 1)
            parts = [TextPart(before), ImagePart(self._image(*entry.view), label=f"view-{entry.step}")]
            parts += [TextPart(after)] if after else []
        if self._phase == "explore" and not self.done:
            parts.append(TextPart(self._status()))
        return parts

    # --- information gain, and the hooks of the phases around the exploration ----------------
    def _probes_after_cap(self) -> bool:
        """Whether a turn that ends the episode at its cap is still probed before the end."""
        return False

    def _track_information(self, out: Outcome) -> float:
        """The first exploration's information gain after this turn (their `information_gain`),
        and what the uncertainty probe needs: the points seen so far and the last view."""
        if self._solver is None:
            self._solver = PositionSolver.for_world(self.world)
        if out.observed_at is not None:
            seen = visible_items(self.world, out.observed_at)
            self._solver.add(observation_triples(self.world, out.observed_at, seen))
            self._unexplored.observe(out.observed_at)
            self._last_visible = frozenset(it.name for it in seen)
        if out.query is not None and out.query["name"] != "initial_pos":
            self._solver.add([query_triple(out.query["name"], out.query["x"], out.query["y"])])
        gain = self._solver.information_gain()
        self._gains.append(gain)
        return gain

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

    # --- observing -------------------------------------------------------------------------
    def _scene_image(self, version: int, pose: Pose) -> bytes | None:
        """The authors' own image of this view when the scene folder has it (vision)."""
        ids = self.instance.image_ids
        folder = self._scene_folder()
        if not ids or folder is None or pose.facing not in ("north", "east", "south", "west"):
            return None
        world = self._worlds[version]
        if (pose.x, pose.y) == (0, 0):
            cam = "agent"
        else:
            name = next((i.name for i in items_of(world) if (i.x, i.y) == (pose.x, pose.y)), None)
            cam = ids.get(name or "", "")
        suffix = "_fbexp" if version else ""
        path = folder / f"{cam}_facing_{pose.facing}{suffix}.png"
        if not cam or not path.is_file():
            return None
        from PIL import Image

        from playbench.render.gl3d import encode_png

        with Image.open(path) as img:
            size = self.config.image_size
            return encode_png(img.convert("RGB").resize((size, size)))

    def _scene_folder(self) -> Path | None:
        if not self.config.scenes:
            return None
        base = Path(self.config.scenes).expanduser()
        source = self.instance.world.source
        if (base / "meta_data.json").is_file():
            return base
        return base / source if source else None

    def _image(self, version: int, pose: Pose) -> bytes:
        key = ("view", version, pose)
        png = self._images.get(key)
        if png is None:
            png = self._scene_image(version, pose)
            if png is None:
                from playbench.tasks.tos.render3d import render_view

                png = render_view(self._worlds[version], pose, self.config.image_size)
            self._images[key] = png
        return png

    def _legend(self) -> bytes:
        png = self._images.get("legend")
        if png is None:
            from playbench.tasks.tos.render3d import render_legend

            png = self._images["legend"] = render_legend(self._worlds[0])
        return png

    def _log_parts(self, entries: list[LogEntry], header: str) -> list[Part]:
        parts: list[Part] = []
        lines = [header] if header else []
        vision = self.config.modality == "vision"
        for e in entries:
            lines.append(f"Step {e.step}: {e.action}\n{e.feedback}")
            if vision and e.view is not None:
                parts.append(TextPart("\n".join(lines)))
                parts.append(ImagePart(self._image(*e.view), label=f"view-{e.step}"))
                lines = []
        if lines:
            parts.append(TextPart("\n".join(lines)))
        return parts

    def _intro_parts(self) -> list[Part]:
        if self.config.modality != "vision":
            return []
        from playbench.tasks.tos.render3d import render_example

        example = self._images.get("example")
        if example is None:
            example = self._images["example"] = render_example(self.config.image_size)
        names = [o.name for o in self._worlds[0].objects]  # the legend's order: the scene's
        listing = "; ".join(f"{k}. {n}" for k, n in enumerate(names, start=1))
        return [
            TextPart(
                "An example of an observation: the blue cylinder is 1 unit straight ahead, the red one 2 "
                "units straight ahead, the yellow one 2 units away at 45° to your front-left, the green one "
                "3 units away at 22.5° to your front-slight-right:"
            ),
            ImagePart(example, label="example"),
            TextPart(
                f"Object legend (tile numbers match this list): {listing}. Doors: "
                + (", ".join(g.name for g in self._worlds[0].gates) or "none (a single room)")
                + "."
            ),  # fmt: skip
            ImagePart(self._legend(), label="legend"),
        ]

    def _exploration_header(self) -> str:
        if self.passive:
            return (
                "Here is the log of an exploration of this environment, which started at your starting "
                "position facing north:"
            )
        return "Your exploration so far:" if self._log else "You are at your starting position, facing north."

    def _phase_prompt(self) -> list[Part]:
        if self._phase == "explore":
            return [TextPart(self._status())]
        return []

    def _status(self) -> str:
        if self.texts.footer is not None:  # theirs: the format footer closes every exploration turn
            return self.texts.footer
        return (
            f"Step {self._phase_steps + 1} of {self._phase_cap()}. Total cost so far: {self._cost:g}. "
            "Reply with your actions, ending with `FINAL ANSWER:` and a line `Actions: [ ... ]`."
        )

    def _observe(self, role: str) -> Observation:
        if self._chatting() and self._phase == "explore" and not self._probes and not self.done:
            if self._chat_user is None:
                self._chat_user = self._opening_message()
            return Observation(
                role=role,
                parts=list(self._chat_user),
                instructions=self._instructions,
                legal_actions=self.legal_actions(),
                feedback=self._feedback,
                step=self._steps,
                data=self._public_data(),
                turns=list(self._chat),
            )
        phase1 = self._log if self._fb_log_start is None else self._log[: self._fb_log_start]
        if self._probes:  # a belief probe: the exploration so far, then the probe's question
            prompt = self._probe_context() + self._probe_prompt(self._probes[0])
        else:
            prompt = self._phase_prompt()
        rules = [TextPart(self._rules)] if self._rules else []
        parts = rules + self._intro_parts() + self._log_parts(phase1, self._exploration_header()) + prompt
        return Observation(
            role=role,
            parts=parts,
            instructions=self._instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
            data=self._public_data(),
        )

    def _public_data(self) -> dict[str, Any]:
        """The observation's public facts. Not the exact coordinates: in text they come only from
        Query, and the cognitive map scores the agent for tracking them itself; where it stands is
        named by the object or door it jumped to."""
        exploring = self._phase in ("explore", "fb") and not self._probes
        return {
            "phase": self.phase,
            "probe": self._probes[0] if self._probes else None,
            "step": self._phase_steps,
            "max_steps": self._phase_cap() if exploring else None,
            "cost": self._cost,
            "position": self._position_name(),
            "facing": self._pose.facing,
            "observed": sorted(self._observed),
        }

    def _position_name(self) -> str | None:
        """`start`, or the object or door the agent stands on (moves end only at those points)."""
        if (self._pose.x, self._pose.y) == (START.x, START.y):
            return "start"
        return next(
            (i.name for i in items_of(self.world) if (i.x, i.y) == (self._pose.x, self._pose.y)), None
        )

    def legal_actions(self) -> list[str]:
        """A sample of grammatical replies (what the random baseline picks from)."""
        if self._probes:
            return self._probe_samples(self._probes[0])
        if self._phase == "answer":
            return self._answer_samples()
        acts = ["Actions: [Observe()]"] + [f"Actions: [Rotate({d}), Observe()]" for d in (90, -90, 180)]
        here = rooms_at(self.world, self._pose.x, self._pose.y)
        for it in items_of(self.world):
            if (
                it.name not in self._observed
                or not (it.rooms & here)
                or (it.x, it.y) == (self._pose.x, self._pose.y)
            ):
                continue
            for d in (0, 90, -90, 180):
                facing = turn(self._pose.facing, d)
                if in_fov(Pose(self._pose.x, self._pose.y, facing), it.x, it.y):
                    rot = f"Rotate({d}), " if d else ""
                    acts.append(f"Actions: [{rot}JumpTo({it.name}), Observe()]")
                    break
        if self.config.return_action and self._pose != START:
            acts.append("Actions: [Return(), Observe()]")
        queryable = sorted(o.name for o in self.world.objects if o.name in self._observed)
        if queryable:
            acts.append(f"Actions: [Query({queryable[0]})]")
        acts += self._term_samples()
        return acts

    def _term_samples(self) -> list[str]:
        return ["Actions: [Term()]"]

    def _answer_samples(self) -> list[str]:
        return []

    # --- results ---------------------------------------------------------------------------
    def _exploration_metrics(self) -> dict[str, Any]:
        world = self._worlds[0]
        objs = {o.name for o in world.objects}
        gates = {g.name for g in world.gates}
        seen = self._observed if self._phase1_observed is None else self._phase1_observed
        counts = self._phase1_counts or self._counts
        turns = self._phase_steps if self._phase1_counts is None else self._phase1_steps
        replies = self._replies
        return {
            "coverage": len(seen & objs) / len(objs),
            "gate_coverage": len(seen & gates) / len(gates) if gates else 1.0,
            "all_observed": objs <= seen,
            "cost": self._phase1_cost if self._phase1_counts is not None else self._cost,
            "oracle_cost": float(len(oracle_poses(world, allow_return=self.config.return_action))),
            "exploration_steps": turns,
            "observe_actions": counts["observe"],
            "query_actions": counts["query"],
            "move_actions": counts["move"],
            "rotate_actions": counts["rotate"],
            "invalid_actions": self._invalid,
            "unparseable_actions": self._unparseable,
            "failed_turns": self._failed_turns,
            # the authors' reward penalty for invalid replies, reported apart from the cost
            "invalid_penalty": INVALID_PENALTY * (self._invalid + self._unparseable),
            "valid_action_ratio": 1.0 - (self._invalid + self._unparseable) / replies if replies else 1.0,
            "terminated_by_agent": self._terminated_by_agent,
            # theirs: the solver's information gain after the last valid reply, and after each one
            "information_gain": self._gains[-1] if self._gains else None,
            "information_gain_per_turn": list(self._gains),
        }

    def _outcome(self) -> EpisodeResult:
        metrics = self._exploration_metrics()
        metrics["cost_efficiency"] = (
            metrics["oracle_cost"] / metrics["cost"] if metrics["all_observed"] and metrics["cost"] else 0.0
        )
        metrics["rooms"] = len(self._worlds[0].rooms)
        return EpisodeResult(success=bool(metrics["all_observed"]), steps=self._steps, metrics=metrics)


class ExploreTask(TosTask):
    """`tos/explore`: observe every object within the step cap at the lowest cost."""
