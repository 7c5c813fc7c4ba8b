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
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.judge import JUDGE_ROLE, JudgeQuestion
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import texts_source
from playbench.core.originals import OriginalsUse, find_clone
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape import prompts
from playbench.tasks.mmescape.actions import Action, RangeError, parse_action, parse_original
from playbench.tasks.mmescape.actions import ParseError as ActionParseError
from playbench.tasks.mmescape.chain import (
    Chain,
    ChainError,
    builtin_chain,
    key_props,
    load_chain_file,
    realise,
    renumber,
    solution_order,
)
from playbench.tasks.mmescape.engine import TYPE_WORDS, Outcome, Rules
from playbench.tasks.mmescape.layout import exit_visible, generate
from playbench.tasks.mmescape.model_side import paper_model_side
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
from playbench.tasks.mmescape.planner import Planner, solve
from playbench.tasks.mmescape.schema import (
    DEFAULT_STEP_CAP,
    MULTI_ROOM,
    PAPER,
    STEP_CAPS,
    EscapeConfig,
    EscapeInstance,
)
from playbench.tasks.mmescape.words import Words

FRAME_CACHE = 256
DEBRIEF_LEGAL = "I do not remember any story behind the room."
RETRY_NOTE = "The reply was not used; the same turn is asked again."


@dataclass
class PastStep:
    """One step of play as the history shows it."""

    step: int  # 1-based
    pose: tuple[float, float, float, float]
    visual: geo.VisualState
    action: str
    feedback: str
    key: bool
    rationale: str
    turn_text: str = ""  # the turn's message as the player was shown it (history=turns)
    reply: str = ""  # the player's reply as the original keeps it in the conversation


@dataclass(frozen=True)
class OutOfRange:
    """A readable action JSON with a value out of range: an invalid step."""

    message: str
    text: str


@dataclass(frozen=True)
class StoryAnswer:
    """The player's reply to the debriefing."""

    text: str


class EscapeTask(EpisodeTask):
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
            self.words.system(self.config.hint == "original", self.config.history == "key")

    def _paper(self) -> bool:
        return self.config.level == PAPER or self.config.level in PAPER_LEVELS

    def data_origin(self) -> str:
        """`generated` (the procedural levels, a chain file's rooms); the paper's scenes: read from a
        clone (`scenes`, by default the originals folder's) `original@<commit>`, else the converted
        copy playbench ships, `original@b7b9fea, converted` (the fork's houses: `fork@a5b2dc2`)."""
        if not self._paper():
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

    # --- observing -------------------------------------------------------------------------
    def _renderer(self) -> Any:
        from playbench.tasks.mmescape.view import ViewRenderer  # first use only: no GL for non-observing play

        key = (self.instance.id, self._world.aids)
        r = self._renderers.get(key)
        if r is None:
            self._renderers.clear()
            r = self._renderers[key] = ViewRenderer(self._world)
        return r

    def _frame(self, pose: tuple[float, float, float, float], visual: geo.VisualState) -> tuple[bytes, int]:
        from playbench.render.gl3d import encode_png

        view = self.view()
        key = (self.instance.id, self._world.aids, pose, visual, view, self.config.red_dot)
        hit = self._frames.get(key)
        if hit is not None:
            self._frames.move_to_end(key)
            return hit
        rgb, centre = self._renderer().render(
            visual, *pose, view, dot="square" if self.config.red_dot == "square" else "disc"
        )
        value = (encode_png(rgb), centre)
        self._frames[key] = value
        if len(self._frames) > FRAME_CACHE:
            self._frames.popitem(last=False)
        return value

    def instructions(self) -> str:
        cfg = self.config
        if self._original:
            # their src/main.py: the hint's system prompt, else the paper's Table 13
            text = self.words.system(hint=cfg.hint == "original", key_history=cfg.history == "key")
        else:
            text = prompts.INSTRUCTIONS
            if cfg.hint == "original":
                text += Words().raw("system.hint")
        if len(self._chains) > 1:
            text += "\n\n" + prompts.multi_room_note(len(self._chains))
        if cfg.hint == "chain":
            text += "\n\n" + prompts.hint(self._chains)
        return text

    def bag_text(self) -> str:
        if self._original:
            return self._rules.bag_text(self._state)
        if not self._state.bag:
            return "nothing"
        return ", ".join(f"{i} ({TYPE_WORDS[self._rules.items[i].type]})" for i in self._state.bag)

    def _public_data(self, phase: str) -> dict[str, Any]:
        """What the player's text states, as data (the pose is not shown to the player, so not here)."""
        return {
            "phase": phase,
            "step": self._steps,
            "max_steps": self._play_cap(),
            "bag": [{"id": i, "type": self._rules.items[i].type} for i in self._state.bag],
            "rooms": len(self._chains),
        }

    def _turn_text(self) -> str:
        """This turn's message (without its view)."""
        if self._original:
            return self.words.step(self._feedback, self._rules.bag_lines(self._state))
        return prompts.step_text(self._steps, self._play_cap(), self._feedback, self.bag_text())

    def _observe(self, role: str) -> Observation:
        if role == JUDGE_ROLE:  # the judge seat before the play has ended
            return Observation(role=role, parts=[TextPart("Nothing is left to judge.")], step=self._steps)
        phase = self.phase
        data = self._public_data(phase)
        if phase == "debrief":
            parts = self._history_parts(final=True)
            if self._original:
                text = self.words.story(self._rules.bag_lines(self._state))
                record: list[str] = []
            else:
                record = self._debrief_record()
                text = prompts.debrief_text(record)
            parts.append(TextPart(text))
            return Observation(
                role=role,
                parts=parts,
                instructions=self.instructions(),
                legal_actions=[DEBRIEF_LEGAL],
                feedback=self._feedback,
                step=self._steps,
                data={**data, "key_moments": record},
                reply_in_history=self._chat_reply,
                reask=self._reask,
            )
        parts: list[Part] = self._history_parts()
        parts.append(TextPart(self._turn_text()))
        if phase == "play":
            pose = self._state.pose_key()
            visual = self._state.visual()
            png, centre = self._frame(pose, visual)
            self._observed = (pose, visual, centre)
            parts.append(ImagePart(png, label="view"))
        return Observation(
            role=role,
            parts=parts,
            instructions=self.instructions(),
            legal_actions=self.legal_actions() if phase == "play" else [],
            feedback=self._feedback,
            step=self._steps,
            data=data,
            reply_in_history=self._chat_reply,
            reask=self._reask,
        )

    def _history_parts(self, final: bool = False) -> list[Part]:
        """The past as this turn's message repeats it (`history`); "chat" and "none": nothing (with
        "chat" the agent keeps the conversation). `final`: the debriefing, after the last turn."""
        mode = self.config.history
        steps = int(self.config.history_steps or 1)
        if mode in ("none", "chat") or not self._history:
            return []
        if mode == "turns":
            return self._turn_parts(
                self._history[-(steps if final else steps - 1) :] if steps > 1 or final else []
            )
        if mode == "full":
            records = self._history
        elif mode == "key":
            records = [r for r in self._history if r.key]
        else:
            records = self._history[-steps:]
        if not records:
            return []
        titles = {"full": "all earlier steps", "key": "earlier key steps", "last": "the latest steps"}
        parts: list[Part] = [TextPart(f"History ({titles[mode]}):")]
        for r in records:
            if self.config.history_images:
                parts.append(TextPart(f"Step {r.step}: your view before acting:"))
                png, _ = self._frame(r.pose, r.visual)
                parts.append(ImagePart(png, label=f"step-{r.step}"))
            reason = f" (your reason: {r.rationale})" if r.rationale else ""
            parts.append(TextPart(f"Step {r.step}: you did {r.action}{reason}; result: {r.feedback}"))
        return parts

    def _turn_parts(self, records: list[PastStep]) -> list[Part]:
        """The original's conversation as one message: each earlier turn's message, its view and the
        reply to it, oldest first (the original keeps the last 50 turns, the current one included)."""
        if not records:
            return []
        parts: list[Part] = [TextPart("The earlier turns of this game, oldest first:")]
        for r in records:
            parts.append(TextPart(f"[Turn {r.step}]\n{r.turn_text}"))
            if self.config.history_images:
                png, _ = self._frame(r.pose, r.visual)
                parts.append(ImagePart(png, label=f"step-{r.step}"))
            parts.append(TextPart(f"[Your reply in turn {r.step}]\n{r.reply}"))
        parts.append(TextPart("[The current turn]"))
        return parts

    def _debrief_record(self) -> list[str]:
        return [f"Step {r.step}: {r.feedback}" for r in self._history if r.key]

    def legal_actions(self) -> list[str]:
        """A finite sample of actions for the random baseline, fixed by the state (not the step)."""
        s = self._state
        rng = random.Random(
            derive_seed(
                "mmescape-random",
                self.instance.id,
                s.pose_key(),
                sorted(s.bag),
                sorted(s.opened),
                sorted(s.doors_open),
            )
        )

        def num(lo: float, hi: float, digits: int = 1) -> float:
            return round(rng.uniform(lo, hi), digits)

        # mostly looking and walking, as an aimless explorer would; a few grabs and item uses
        acts: list[dict[str, Any]] = [{"rotate_right": num(-180, 180)} for _ in range(5)]
        acts += [{"rotate_right": num(-60, 60), "move_forward": num(0.5, 4.0, 2)} for _ in range(3)]
        acts += [{"move_forward": num(-3.0, 5.0, 2)} for _ in range(3)]
        acts += [
            {"move_forward": num(0.5, 3.0, 2), "jump": True},
            {"rotate_down": num(-30, 50)},
            {"rotate_down": num(-30, 50)},
            {"look_at": [round(rng.random(), 3), round(rng.random(), 3)]},
            {"look_at": [round(rng.random(), 3), round(rng.random(), 3)]},
            {"grab": True},
            {"grab": True, "interactions": {"input": f"{rng.randrange(10_000):04d}"}},
        ]
        if s.bag:
            acts.append({"grab": True, "interactions": {"use_item_id": rng.choice(s.bag)}})
            acts.append({"read": rng.choice(s.bag)})
        return [json.dumps({**a, "rationale": "random exploration"}) for a in acts]

    # --- stepping --------------------------------------------------------------------------
    def _parse(self, text: str) -> Action | OutOfRange | StoryAnswer | ParseError:
        if self._phase == "debrief":
            return StoryAnswer(text.strip()[:8000])
        try:
            return self._parse_reply(text)
        except ActionParseError as exc:
            return ParseError(
                f"Could not read your action: {exc}.",
                "format",
                text.strip()[:80] if isinstance(text, str) else "",
            )
        except RangeError as exc:
            return OutOfRange(f"Invalid action: {exc}.", text)

    def _apply(self, parsed: Action | OutOfRange | StoryAnswer) -> StepResult:
        if isinstance(parsed, StoryAnswer):
            self._story_answer = parsed.text
            return StepResult(
                Validity.EFFECTIVE,
                "Thank you, your account of the story was recorded.",
                parsed="story",
                info={"phase": "debrief"},
            )
        if isinstance(parsed, OutOfRange):
            return self._reject(
                Validity.INVALID, "out_of_range", parsed.message, json.dumps(parsed.text.strip()[:80])
            )
        action = parsed
        state = self._state
        before = (state.pose_key(), state.visual())
        centre = None
        if self._observed is not None and self._observed[0] == before[0] and self._observed[1] == before[1]:
            centre = self._observed[2]
        outcome = self._rules.apply(state, action, centre_entity=centre)
        if outcome.invalid:
            return self._reject(Validity.INVALID, "not_in_bag", outcome.invalid, action.canonical(), action)
        self._retries = 0
        self._count(action, outcome, self._steps + 1)  # the template counts this step after _apply
        if state.escaped and self.config.debrief and any(self._level_story(c) for c in self._chains):
            self._phase = "debrief"
        self._usable_reply = action.reply_json()
        self._pending = (
            before[0],
            before[1],
            action.canonical(),
            outcome.key_step,
            action.rationale,
            self._turn_text(),
            self._usable_reply,
        )
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info = {
            "phase": "play",
            "escaped": state.escaped,
            "grab": outcome.grabbed,
            "grab_success": outcome.grab_success,
            "grab_targets": [self._rules.entity_name(t) for t in outcome.targets],
            "moved": round(outcome.moved, 4),
            "obtained": list(outcome.obtained),
            "opened": list(outcome.opened),
            "read": outcome.read,
            "key_step": outcome.key_step,
            "pose": dict(zip(("x", "z", "yaw", "pitch"), state.pose_key(), strict=True)),
            "bag": list(state.bag),
        }
        return StepResult(validity, outcome.feedback, parsed=action.canonical(with_rationale=True), info=info)

    def _on_parse_error(self, error: ParseError) -> StepResult:
        return self._reject(Validity.UNPARSEABLE, error.reason, error.message, json.dumps(error.snippet))

    def _reject(
        self, validity: Validity, reason: str, message: str, shown: str, action: Action | None = None
    ) -> StepResult:
        """An unparseable or invalid reply: nothing changes. With `replies=step` it is a step and
        enters the history; with `replies=retry` (the original) the same turn is asked again, and
        `max_retries` such replies in a row end the episode."""
        if validity == Validity.UNPARSEABLE:
            self._unparseable += 1
        else:
            self._invalid += 1
        parsed = action.canonical(with_rationale=True) if action else None
        if self.config.replies == "retry":
            self._retries += 1
            info = {"phase": "play", "retry": self._retries}
            if self._retries >= self.config.max_retries:
                self.end(Termination.MISTAKE_LIMIT)
                note = f"{self._retries} unusable replies in a row: the game ends, as the original's does."
                return StepResult(validity, f"{message} {note}", parsed=parsed, reason=reason, info=info)
            return StepResult(validity, f"{message} {RETRY_NOTE}", parsed=parsed, reason=reason, info=info)
        state = self._state
        self._pending = (
            state.pose_key(),
            state.visual(),
            shown,
            False,
            action.rationale if action else "",
            self._turn_text(),
            shown,
        )
        return StepResult(
            validity, message + " Nothing changed.", parsed=parsed, reason=reason, info={"phase": "play"}
        )

    def _count(self, action: Action, out: Outcome, step: int) -> None:
        if out.grabbed:
            self._grabs += 1
            if out.grab_success:
                self._grab_successes += 1
            if out.interaction is not None:
                self._interactions.append((action.rationale, out.interaction))
        for item in out.obtained:
            self._obtained.add(item)
            if item in self._core and self._core_step is None:
                self._core_step = step
        for what in out.opened:
            self._obtained.add(what)

    def _counts_step(self, role: str, result: StepResult) -> bool:
        if result.info.get("phase") == "debrief":
            return False
        # the original re-asks an unusable reply without using a step
        return "retry" not in result.info

    def _check_end(self, result: StepResult) -> Termination | None:
        if self._story_answer is not None or (self._state.escaped and self._phase == "play"):
            return Termination.GOAL_REACHED
        return None

    def _end_feedback(self, termination: Termination) -> str:
        if termination == Termination.STEP_CAP:
            return f"You have used all {self._play_cap()} steps without escaping."
        return ""

    def _after_step(self, role: str, result: StepResult) -> None:
        if "retry" in result.info:
            # the original asks the same turn again: nothing the player is shown changes, and the
            # unusable exchange is not kept in its conversation (the reply before it stands as it was)
            self._reask, self._chat_reply = True, None
            return
        # a usable reply stands in the conversation as the original keeps it; an unusable one that
        # was a step (replies=step) as it was sent
        self._reask = False
        self._chat_reply, self._usable_reply = self._usable_reply, None
        # the feedback, cap note included, is shown next turn and kept in the history
        self._feedback = result.feedback
        if self._pending is not None:
            pose, visual, shown, key, rationale, turn_text, reply = self._pending
            self._history.append(
                PastStep(self._steps, pose, visual, shown, result.feedback, key, rationale, turn_text, reply)
            )
            self._pending = None

    @staticmethod
    def _level_story(chain: Chain) -> str | None:
        """The level's own story (what the judge compares with): the chain's story, else its story note's."""
        return chain.story or chain.story_text()

    # --- the judge ---------------------------------------------------------------------------
    def _judge_questions(self) -> list[JudgeQuestion]:
        questions: list[JudgeQuestion] = []
        truth = "\n".join(t for t in (self._level_story(c) for c in self._chains) if t)
        if self._story_answer is not None and truth:
            text = prompts.STORY_JUDGE.format(truth=truth, recovered=self._story_answer or "(no answer)")
            questions.append(
                JudgeQuestion(
                    kind="story",
                    prompt=[TextPart(text)],
                    read=parse_story_score,
                    expected='{"score": 0-5}',
                    oracle='{"score": 5}',
                    legal_actions=[json.dumps({"score": s}) for s in range(6)],
                )
            )
        for rationale, response in self._interactions[: self.config.judge_max_interactions]:
            text = prompts.CONSISTENCY_JUDGE.format(rationale=rationale or "(none given)", response=response)
            questions.append(
                JudgeQuestion(
                    kind="consistency",
                    prompt=[TextPart(text)],
                    read=parse_consistency,
                    expected='{"Consistency": 0 or 1}',
                    oracle='{"Consistency": 1}',
                    legal_actions=['{"Consistency": 1}', '{"Consistency": 0}'],
                )
            )
        return questions

    # --- oracle ------------------------------------------------------------------------------
    def _oracle(self, role: str) -> str | None:
        if self._phase == "debrief":
            return "\n".join(t for t in (self._level_story(c) for c in self._chains) if t)
        if self._planner is None:
            self._planner = Planner(self._rules, self._parse_reply)
        return self._planner.next_action(self._state)

    # --- results -----------------------------------------------------------------------------
    def _outcome(self) -> EpisodeResult:
        inst = self.instance
        steps = self._steps  # actions taken in the play phase
        escaped = self._state.escaped
        # a game ended by unusable replies counts at the level's cap, as the paper's tables put every
        # such game (0 % escapes at exactly 50 / 75 / 100 steps); the actions taken are `steps_taken`
        scored_steps = self._play_cap() if self._termination == Termination.MISTAKE_LIMIT else steps
        props = [p for p in self._props if p in self._obtained]
        got = [p for p in self._key_props if p in self._obtained]
        no_grab_rate = 0.0 if self.config.paper_protocol else None
        metrics: dict[str, Any] = {
            "escaped": escaped,
            "prop_gain": len(got) / len(self._key_props) if self._key_props else None,
            "prop_gain_with_exit": len(props) / len(self._props) if self._props else 1.0,
            "grab_attempts": self._grabs,
            "grab_successes": self._grab_successes,
            "grab_success_rate": self._grab_successes / self._grabs if self._grabs else no_grab_rate,
            "grab_success_rate_eval": self._eval_grab_success_rate(),
            "grab_ratio": self._grabs / steps if steps else 0.0,
            "steps_taken": steps,
            "moving_distance": round(self._state.moved, 4),
            "optimal_distance": inst.optimal_distance,
            "optimal_steps": inst.optimal_steps,
            "rooms_escaped": len(self._state.doors_open),
            "steps_to_core_prop": self._core_step,
            "steps_core_to_exit": (steps - self._core_step)
            if escaped and self._core_step is not None
            else None,
            "exit_visible_at_start": inst.exit_visible_at_start,
            "invalid_actions": self._invalid,
            "unparseable_actions": self._unparseable,
            "scene": inst.rooms[0].scene,
            "level": inst.level,
        }
        if self.config.debrief:
            metrics["story_answered"] = self._story_answer is not None
        if self.config.judge:
            judge = self.judge
            scores = judge.values("story") if judge else []
            verdicts = judge.values("consistency") if judge else []
            metrics["story_score"] = scores[-1] if scores else None
            metrics["consistency_rate"] = sum(verdicts) / len(verdicts) if verdicts else None
            metrics["judged_interactions"] = len(verdicts)
            metrics["judge_unparseable"] = judge.unreadable if judge else 0
        return EpisodeResult(success=escaped, steps=scored_steps, metrics=metrics)

    def _eval_grab_success_rate(self) -> float:
        """Grab success rate as the authors' eval_rst.py computes it: an escape counts one success per
        link of the chain (1, 2, 3 for levels 1, 2, 3); a failure counts the keys and notes in the bag;
        0 without grabs."""
        if not self._grabs:
            return 0.0
        if self._state.escaped:
            hits = sum(len(solution_order(c)[0]) for c in self._chains)
        else:
            hits = sum(1 for i in self._state.bag if self._rules.items[i].type in ("key", "paper"))
        return hits / self._grabs

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """The paper's Table 8: correlation of moving distance with the optimal distance, plus
        escape rate by scene type and by whether the exit was visible from the start."""
        rows = [e for e in episodes if not e.get("error") and isinstance(e.get("metrics"), dict)]
        if not rows:
            return {}
        out: dict[str, Any] = {
            "distance_correlation": distance_correlation(rows),
            "distance_correlation_escaped": distance_correlation([r for r in rows if r.get("success")]),
        }
        for key, name in (
            ("scene", "escape_rate_by_scene"),
            ("exit_visible_at_start", "escape_rate_by_exit_visible"),
        ):
            groups: dict[str, list[bool]] = {}
            for r in rows:
                groups.setdefault(str(r["metrics"].get(key)), []).append(bool(r.get("success")))
            out[name] = {g: {"n": len(v), "escape_rate": sum(v) / len(v)} for g, v in sorted(groups.items())}
        return out


def distance_correlation(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Pearson correlation between moving distance and optimal distance over episodes."""
    pairs = [
        (float(r["metrics"]["moving_distance"]), float(r["metrics"]["optimal_distance"]))
        for r in rows
        if r["metrics"].get("moving_distance") is not None
        and r["metrics"].get("optimal_distance") is not None
    ]
    n = len(pairs)
    if n < 3:
        return {"n": n, "pearson_r": None}
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return {"n": n, "pearson_r": None}
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    return {"n": n, "pearson_r": sxy / math.sqrt(sxx * syy)}


_CONSISTENCY = re.compile(r"consistency[\"']?\s*[:=]\s*[\"']?\s*([01])\b", re.IGNORECASE)
_SCORE = re.compile(r"score[\"']?\s*[:=]\s*[\"']?\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def parse_consistency(text: str) -> int | None:
    """The judge's 0/1 verdict: `{"Consistency": 1}`, `Consistency: 0`, or a bare 0/1."""
    matches = _CONSISTENCY.findall(text or "")
    if matches:
        return int(matches[-1])
    bare = (text or "").strip().strip(".").strip()
    return int(bare) if bare in ("0", "1") else None


def parse_story_score(text: str) -> float | None:
    """The judge's story score in [0, 5]: `{"score": 4}`, `Score: 3.5`, or a bare number."""
    matches = _SCORE.findall(text or "")
    candidates = matches[-1:] if matches else re.findall(r"^\s*(\d+(?:\.\d+)?)\s*$", text or "")
    for c in candidates:
        value = float(c)
        if 0.0 <= value <= 5.0:
            return value
    return None


class PaperEscapeTask(EscapeTask):
    """The paper's scenes (`mmescape/paper*` but the fork's houses): `scenes` defaults to the clone's
    `levels/` folder when the authors' clone is in the originals folder."""

    originals: ClassVar[OriginalsUse | None] = PAPER_USE
