"""MM-Escape as a playbench task: escape a room by continuous first-person control.

An episode has up to three phases:
1. play: the player sends action JSON until it escapes (termination `goal_reached`), reaches the
   step cap (`step_cap`), or, under the original's reply handling (`replies=retry`), sends
   `max_retries` unusable replies in a row for one turn (`mistake_limit`);
2. debriefing (option `debrief`, after an escape from a room whose chain carries a story): the
   player answers the story-recovery prompt once, and the episode ends with `goal_reached`;
3. judging (option `judge`, set by `--judge-model`): the "judge" role scores the recovered story
   0-5 against the level's story and then, one interaction per turn, whether the player's
   rationale matches what its interaction actually did (the paper's Table 15).
Only the play phase counts as steps.

`protocol=paper` (the default) is the original's protocol and `protocol=playbench` playbench's own;
each of its parts is an option of its own (README: "Options" and "Fidelity").

The task's code by phase: the instances and the episode's state here; what the player is shown in
`observation.py`; reading and applying its replies in `replies.py`; the judge, the metrics and the
summary in `scoring.py`.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

from playbench.core.episode import EpisodeTask
from playbench.core.errors import ConfigError
from playbench.core.judge import JUDGE_ROLE
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import texts_source
from playbench.core.originals import OriginalsUse, find_clone
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.types import Progress
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.actions import parse_action, parse_original
from playbench.tasks.mmescape.chain import (
    Chain,
    ChainError,
    builtin_chain,
    key_props,
    load_chain_file,
    realise,
    renumber,
)
from playbench.tasks.mmescape.difficulty import difficulty
from playbench.tasks.mmescape.engine import Rules
from playbench.tasks.mmescape.layout import exit_visible, generate
from playbench.tasks.mmescape.model_side import paper_model_side
from playbench.tasks.mmescape.observation import ObservingMixin, PastStep
from playbench.tasks.mmescape.originals import PAPER_USE, TEXTS_USE
from playbench.tasks.mmescape.paper import (
    FORK_COMMIT,
    ORIGINAL_COMMIT,
    PAPER_LEVELS,
    PaperDataError,
    paper_instance,
    read_clone,
    scene_numbers,
    shipped_chains,
    shipped_scenes,
)
from playbench.tasks.mmescape.planner import Planner, solve, steps_to_escape
from playbench.tasks.mmescape.replies import RepliesMixin
from playbench.tasks.mmescape.schema import (
    DEFAULT_STEP_CAP,
    MULTI_ROOM,
    PAPER,
    STEP_CAPS,
    EscapeConfig,
    EscapeInstance,
)
from playbench.tasks.mmescape.scoring import ScoringMixin
from playbench.tasks.mmescape.twins import make_twin, paper_record
from playbench.tasks.mmescape.words import Words

# the most oracle steps `progress` plays ahead (a paper scene's oracle needs at most a few dozen)
PROGRESS_LIMIT = 200


class EscapeTask(ObservingMixin, RepliesMixin, ScoringMixin, EpisodeTask):
    """One EscapeCraft level: the paper's own scenes, or procedurally furnished rooms."""

    Config: ClassVar[type[TaskConfig]] = EscapeConfig
    InstanceModel: ClassVar[type[Instance]] = EscapeInstance
    instance_label: ClassVar[str] = "mmescape"
    # the authors' clone (originals.py): its texts under prompts=original (`PaperEscapeTask` also
    # reads its scenes)
    originals: ClassVar[OriginalsUse | None] = TEXTS_USE

    config: EscapeConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._frames: OrderedDict[tuple[Any, ...], tuple[bytes, int]] = OrderedDict()
        self._renderers: dict[str, Any] = {}
        self._words: Words | None = None

    @property
    def words(self) -> Words:
        """The words of the original's protocol: the authors' from their clone (`texts=original`, or
        `texts` unset with the clone in the originals folder), else ours."""
        if self._words is None:
            source = texts_source(self.config, self.originals or TEXTS_USE)
            self._words = Words(source)
        return self._words

    def preflight(self) -> None:
        """Under the original's prompts, read every text of the authors' clone before the first
        episode (a missing one names its file and symbol)."""
        if self.config.prompts == "original":
            self.words.check()

    def texts_origin(self) -> str:
        """The fidelity stamp's texts: `prompts=playbench` (`protocol=playbench`'s default) sends only
        playbench's own texts, so `ours` even with the authors' clone present; else the kernel's
        (`original@<commit>` when the texts are read from the clone)."""
        if self.config.prompts != "original":
            return "ours"
        return super().texts_origin()

    def _paper(self) -> bool:
        return self.config.level == PAPER or self.config.level in PAPER_LEVELS

    def data_origin(self) -> str:
        """`generated` (the procedural levels, a chain file's rooms); the paper's scenes: read from a
        clone (`scenes`, by default the originals folder's) `original@<commit>`, else the converted
        copy playbench ships, `original@b7b9fea, converted` (the fork's houses: `fork@a5b2dc2`)."""
        if not self._paper() or self.config.dataset == "twin":
            return "generated"
        if self.config.scenes is not None:
            root = Path(self.config.scenes).expanduser()
            if root.name == "levels" and not (root / "levels").is_dir():
                root = root.parent
            clone = find_clone(TEXTS_USE.repo, root)
            return clone.stamp if clone is not None else f"original ({self.config.scenes})"
        if self.config.level == "paper-houses":
            return f"fork@{FORK_COMMIT}, converted"
        return f"original@{ORIGINAL_COMMIT}, converted"

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("player", JUDGE_ROLE) if self.config.judge else ("player",)

    def model_side(self) -> ModelSide | None:
        """`protocol=paper`: what the authors' code sent to the player's model (`model_side.py`:
        temperature 0, no output cap, JPEG views with detail high, a real chat of the original's
        window per model family under `history=chat`, Claude's 1960 x 980 view, Phi's settings).
        `protocol=playbench`: None; playbench's own protocol packs its past into each message
        (`history=key`), and the agent's defaults apply (history 0, a 1024-token cap)."""
        if not self.config.paper_protocol:
            return None
        return paper_model_side(chat=self.config.history == "chat")

    @property
    def cache_instances(self) -> bool:  # type: ignore[override]
        # a user's chain file or scene clone may change between two calls in one process
        return self.config.chain is None and self.config.scenes is None

    # --- instances -------------------------------------------------------------------------
    def _source(self) -> tuple[str, list[Chain]]:
        cfg = self.config
        if cfg.chain is not None:
            try:
                chains = load_chain_file(cfg.chain)
            except ChainError as exc:
                raise ConfigError(str(exc)) from None
            digest = hashlib.sha1(
                json.dumps([c.model_dump() for c in chains], sort_keys=True).encode()
            ).hexdigest()[:8]
            return f"chain-{digest}", chains
        if cfg.level == MULTI_ROOM:
            chains: list[Chain] = []
            taken: set[str] = set()
            for name in cfg.room_levels():
                chain = renumber(builtin_chain(name), taken)
                taken |= {it.id for it in chain.items}
                chains.append(chain)
            return MULTI_ROOM, chains
        return cfg.level, [builtin_chain(cfg.level)]

    def view(self) -> geo.ViewSpec:
        """The first-person camera of this task's options."""
        cfg = self.config
        assert cfg.image_width is not None and cfg.image_height is not None and cfg.fov is not None
        return geo.ViewSpec(cfg.image_width, cfg.image_height, cfg.fov)

    def _solve(self, inst: EscapeInstance) -> tuple[int, float] | None:
        cfg = self.config
        return solve(
            inst,
            self.view(),
            aids=bool(cfg.visual_aids),
            grab=str(cfg.grab),
            prompts=str(cfg.prompts),
            parser=str(cfg.parser),
        )

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        paper = self._paper()
        if paper and (self.config.chain is not None or self.config.scene is not None):
            raise ConfigError(
                "the paper's scenes come with their own chains and rooms: chain= and scene= apply to "
                "the generated levels (mmescape/level-*)"
            )
        if not paper and self.config.scenes is not None:
            raise ConfigError(
                "scenes= reads the original's scene files for the paper tasks (mmescape/paper-*)"
            )
        if self.config.dataset == "twin":
            if not paper or self.config.level == "paper-houses":
                raise ConfigError(
                    f"dataset=twin: twins exist for the paper's scenes (mmescape/paper, mmescape/paper-level-*), "
                    f"not for level {self.config.level!r}"
                )
            return self._twin_instances(n, seed)
        if paper:
            return self._paper_instances(n)
        label, chains = self._source()
        count = self.config.default_instances if n is None else n
        # the cap written into each instance: `max_steps`, else the original's cap for the level
        cap = self.config.max_steps or STEP_CAPS.get(label, DEFAULT_STEP_CAP)
        out: list[Instance] = []
        for i in range(count):
            # one random sequence per index, so the first n of a bigger set are the same rooms
            rng = random.Random(derive_seed("mmescape", label, self.config.scene, seed, i))
            realised = [realise(c, rng) for c in chains]
            try:
                inst = generate(
                    f"{label}-s{seed}-{i}",
                    label,
                    realised,
                    rng,
                    cap,
                    self._solve,
                    self.config.scene,
                    self.view(),
                )
            except RuntimeError as exc:
                raise ConfigError(str(exc)) from None
            out.append(inst)
        return out

    def _paper_instances(self, n: int | None) -> list[Instance]:
        """The paper's public scenes (all levels for `paper`), in the original's file order; the
        set is fixed, so the seed does not matter and `n` takes the first n."""
        levels = (
            [lv for lv in PAPER_LEVELS.values() if lv.paper]
            if self.config.level == PAPER
            else [PAPER_LEVELS[self.config.level]]
        )
        try:
            if self.config.scenes is not None:
                chains, scenes = read_clone(self.config.scenes, levels=levels)
            else:
                chains, scenes = shipped_chains(), shipped_scenes()
            out: list[Instance] = []
            for level in levels:
                for number in scene_numbers(level, scenes):
                    if n is not None and len(out) >= n:
                        return out
                    key = f"{level.folder}/{number}"
                    inst = paper_instance(
                        level, number, scenes[key], chains[level.chain], self.config.max_steps
                    )
                    solved = self._solve(inst)
                    if solved is None:
                        raise ConfigError(f"the oracle cannot escape paper scene {inst.id} ({inst.source})")
                    out.append(
                        inst.model_copy(
                            update={
                                "optimal_steps": solved[0],
                                "optimal_distance": round(solved[1], 4),
                                "exit_visible_at_start": exit_visible(inst, self.view()),
                            }
                        )
                    )
        except PaperDataError as exc:
            raise ConfigError(str(exc)) from None
        return out

    def _twin_instances(self, n: int | None, seed: int) -> list[Instance]:
        """A fresh twin of each paper scene (`twins.py`), in the paper set's order; the first n."""
        papers = self._paper_instances(n)
        out: list[Instance] = []
        for paper in papers:
            assert isinstance(paper, EscapeInstance)
            try:
                out.append(make_twin(paper, paper_record(paper), seed, self._solve, self.view()))
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        return out

    def difficulty(self, instance: Instance) -> dict[str, Any] | None:
        """Chain length, props, metres from the start to the exit and to the props, and how much of
        the props the start view hides (`difficulty.py`; measured with the original's camera)."""
        inst = self.coerce_instance(instance)
        assert isinstance(inst, EscapeInstance)
        return difficulty(inst)

    # --- episode ---------------------------------------------------------------------------
    def _begin(self, instance: EscapeInstance) -> None:
        cfg = self.config
        self._world = geo.build_world(instance, bool(cfg.visual_aids))
        self._original = cfg.prompts == "original"
        self._rules = Rules(
            self._world,
            self.view(),
            str(cfg.grab),
            str(cfg.prompts),
            cfg.hint,
            cfg.read_scope,
            words=self.words if self._original else None,
        )
        self._parse_reply = parse_original if cfg.parser == "original" else parse_action
        self._planner: Planner | None = None
        self._progress_memo: dict[tuple[Any, ...], int] = {}  # `progress`: oracle steps from states passed
        self._state = self._rules.start_state()
        self._phase = "play"  # then "debrief" after an escape with a story to recover
        # the original's first turn: the opening line, as a turn without an interaction
        self._feedback = (
            self.words.start() if self._original else "You are in the room. Nothing has happened yet."
        )
        self._history: list[PastStep] = []
        self._pending: tuple[Any, ...] | None = None  # this step's history entry, less its feedback
        self._observed: tuple[Any, ...] | None = None  # (pose, visual, centre id) of the last view
        self._retries = 0  # unusable replies in a row for this turn (replies=retry)
        # the chat as the original keeps it (for an agent that keeps one): the previous reply in its
        # cleaned form (`json.dumps` of the parsed reply) when it was usable, and whether this turn
        # re-asks after an unusable reply (whose exchange the original never stored)
        self._usable_reply: str | None = None  # this step's cleaned reply, until _after_step
        self._chat_reply: str | None = None
        self._reask = False
        self._grabs = 0
        self._grab_successes = 0
        self._invalid = 0
        self._unparseable = 0
        self._obtained: set[str] = set()
        self._core_step: int | None = None
        self._interactions: list[tuple[str, str]] = []  # (rationale, response) for the judge
        self._story_answer: str | None = None
        self._chains = [room.chain for room in instance.rooms]
        self._core = self._core_items()
        self._props = [
            p
            for k, c in enumerate(self._chains)
            for p in (x if x != "exit" else f"exit:{k}" for x in c.props())
        ]
        self._key_props = [p for c in self._chains for p in key_props(c)]

    def _core_items(self) -> set[str]:
        """What opens the last exit: its key, or the note that carries its password."""
        chain = self._chains[-1]
        method = chain.exit.unlock_method
        if method.type == "key" and method.id:
            return {method.id}
        if method.type == "password" and method.id:
            return {it.id for it in chain.items if method.id in it.contents}
        return set()

    @property
    def phase(self) -> str:
        """`play`, `debrief` (the story question after an escape), `judge` or `over`."""
        self._require_episode()
        if self.termination is None:
            return self._phase
        return JUDGE_ROLE if self.judging else "over"

    def _play_cap(self) -> int:
        return self.config.max_steps or self.instance.max_steps

    def _step_cap(self) -> int | None:
        # the debriefing is no step of play: an escape on the last step still gets its debriefing
        return None if self._phase == "debrief" else self._play_cap()

    def state(self) -> dict[str, Any]:
        """Pose, bag, what was picked up, opened or told, the escape and the phase (not the history,
        the step counter or the count of unusable replies)."""
        s = self._state
        return {
            "phase": self._phase,
            "pose": dict(zip(("x", "z", "yaw", "pitch"), s.pose_key(), strict=True)),
            "bag": list(s.bag),
            "picked": sorted(s.picked),
            "opened": sorted(s.opened),
            "doors_open": sorted(s.doors_open),
            "known": sorted(s.known),
            "escaped": s.escaped,
            "moved": round(s.moved, 6),
            "story_answered": self._story_answer is not None,
        }

    # --- oracle ------------------------------------------------------------------------------
    def _oracle_planner(self) -> Planner:
        if self._planner is None:
            self._planner = Planner(self._rules, self._parse_reply)
        return self._planner

    def _oracle(self, role: str) -> str | None:
        if self._phase == "debrief":
            return "\n".join(t for t in (self._level_story(c) for c in self._chains) if t)
        return self._oracle_planner().next_action(self._state)

    def progress(self) -> Progress:
        """For error maps (README "Progress (error maps)"): `distance`, the oracle's remaining steps
        from the current state (its planner played on a copy of the state until it escapes, the
        procedure that defines `optimal_steps`; 0 once escaped, None where the planner finds no way);
        `fraction`, the paper's prop gain so far (the share of the key props obtained, as the metric
        `prop_gain`), and for a chain without key props (level 1) 0 until the escape; 1.0 once escaped.
        Changes nothing."""
        self._require_episode()
        if self._state.escaped:
            return Progress(distance=0, fraction=1.0)
        gain = self._prop_gain()
        distance = steps_to_escape(
            self._oracle_planner(), self._state, limit=PROGRESS_LIMIT, memo=self._progress_memo
        )
        return Progress(distance=distance, fraction=0.0 if gain is None else gain)


class PaperEscapeTask(EscapeTask):
    """The paper's scenes (`mmescape/paper*` but the fork's houses): `scenes` defaults to the clone's
    `levels/` folder when the authors' clone is in the originals folder."""

    originals: ClassVar[OriginalsUse | None] = PAPER_USE
