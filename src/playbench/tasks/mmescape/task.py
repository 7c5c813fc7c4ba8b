"""MM-Escape as a playbench task: escape procedural rooms by continuous first-person control.

An episode has up to three phases:
1. play: the player sends action JSON until it escapes or reaches the step cap;
2. debriefing (option `debrief`, after an escape from a room whose chain carries a story): the
   player answers the story-recovery prompt once;
3. judging (option `judge`, set by `--judge-model`): the "judge" role scores the recovered story
   0-5 and then, one interaction per turn, whether the player's rationale matches what its
   interaction actually did (the paper's Table 15).
Only the play phase counts as steps.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, Task, TaskConfig, derive_seed
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape import prompts
from playbench.tasks.mmescape.actions import Action, ParseError, RangeError, parse_action
from playbench.tasks.mmescape.chain import (
    Chain,
    ChainError,
    builtin_chain,
    load_chain_file,
    realise,
    renumber,
)
from playbench.tasks.mmescape.engine import TYPE_WORDS, Outcome, Rules
from playbench.tasks.mmescape.layout import generate
from playbench.tasks.mmescape.models import (
    DEFAULT_STEP_CAP,
    MULTI_ROOM,
    STEP_CAPS,
    EscapeConfig,
    EscapeInstance,
)
from playbench.tasks.mmescape.planner import Planner, solve

FRAME_CACHE = 256
# Generated instances by everything that determines them. Generation runs the oracle on every
# draft room, which costs more than playing; tests and runs that build fresh task objects over the
# same seeds (conformance makes a task per check) reuse the result instead of regenerating it.
INSTANCE_CACHE = 512
GENERATED_INSTANCES: OrderedDict[tuple[Any, ...], EscapeInstance] = OrderedDict()


@dataclass
class StepRecord:
    step: int  # 1-based
    pose: tuple[float, float, float, float]
    visual: geo.VisualState
    action: str
    feedback: str
    key: bool
    rationale: str


class EscapeTask(Task):
    """One EscapeCraft level (or a chain file) in procedurally furnished rooms."""

    Config: ClassVar[type[TaskConfig]] = EscapeConfig
    InstanceModel: ClassVar[type[Instance]] = EscapeInstance
    instance_label: ClassVar[str] = "mmescape"

    config: EscapeConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        self._chains_cache: list[Chain] | None = None
        self._inst: EscapeInstance | None = None
        self._frames: OrderedDict[tuple[Any, ...], tuple[bytes, int]] = OrderedDict()
        self._renderers: dict[str, Any] = {}

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("player", "judge") if self.config.judge else ("player",)

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

    def step_cap(self, label: str) -> int:
        if self.config.max_steps is not None:
            return self.config.max_steps
        return STEP_CAPS.get(label, DEFAULT_STEP_CAP)

    def instances(self, n: int | None, seed: int) -> list[Instance]:
        if n is not None and n < 0:
            raise ConfigError(f"the number of instances must be >= 0, got {n}")
        label, chains = self._source()
        count = self.config.default_instances if n is None else n
        cap = self.step_cap(label)
        out: list[Instance] = []
        chains_key = json.dumps([c.model_dump() for c in chains], sort_keys=True)
        for i in range(count):
            key = (label, chains_key, self.config.scene, seed, i, cap, self.config.image_size)
            cached = GENERATED_INSTANCES.get(key)
            if cached is not None:
                GENERATED_INSTANCES.move_to_end(key)
                out.append(cached.model_copy(deep=True))
                continue
            rng = random.Random(derive_seed("mmescape", label, self.config.scene, seed, i))
            realised = [realise(c, rng) for c in chains]
            try:
                inst = generate(
                    f"{label}-s{seed}-{i}",
                    label,
                    realised,
                    rng,
                    cap,
                    lambda x: solve(x, self.config.image_size),
                    self.config.scene,
                )
            except RuntimeError as exc:
                raise ConfigError(str(exc)) from None
            GENERATED_INSTANCES[key] = inst
            if len(GENERATED_INSTANCES) > INSTANCE_CACHE:
                GENERATED_INSTANCES.popitem(last=False)
            out.append(inst.model_copy(deep=True))
        return out

    # --- episode ---------------------------------------------------------------------------
    def reset(self, instance: Instance) -> None:
        if not isinstance(instance, EscapeInstance):
            instance = self.load_instance(instance.model_dump())
        assert isinstance(instance, EscapeInstance)
        self._inst = instance
        self._world = geo.build_world(instance)
        self._rules = Rules(self._world)
        self._planner: Planner | None = None
        self._state = self._rules.start_state()
        self._cap = self.config.max_steps or instance.max_steps
        self._steps = 0
        self._phase = "play"
        self._feedback = "You are in the room. Nothing has happened yet."
        self._history: list[StepRecord] = []
        self._observed: tuple[Any, ...] | None = None  # (pose, visual, centre id) of the last view
        self._last_papers: str | None = None
        self._grabs = 0
        self._grab_successes = 0
        self._invalid = 0
        self._unparseable = 0
        self._obtained: set[str] = set()
        self._core_step: int | None = None
        self._interactions: list[tuple[str, str]] = []  # (rationale, response) for the judge
        self._story_answer: str | None = None
        self._judge_queue: list[tuple[str, Any]] = []
        self._story_score: float | None = None
        self._consistency: list[int] = []
        self._judge_unparseable = 0
        self._chains = [room.chain for room in instance.rooms]
        self._core = self._core_items()
        self._props = [
            p
            for k, c in enumerate(self._chains)
            for p in (x if x != "exit" else f"exit:{k}" for x in c.props())
        ]

    def _require(self) -> EscapeInstance:
        if self._inst is None:
            raise RuntimeError("call reset(instance) before playing")
        return self._inst

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
    def done(self) -> bool:
        self._require()
        return self._phase == "over"

    def current_role(self) -> str:
        return "judge" if self._phase == "judge" else "player"

    # --- observing -------------------------------------------------------------------------
    def _renderer(self) -> Any:
        from playbench.tasks.mmescape.view import ViewRenderer  # first use only: no GL for non-observing play

        inst = self._require()
        r = self._renderers.get(inst.id)
        if r is None:
            self._renderers.clear()
            r = self._renderers[inst.id] = ViewRenderer(self._world)
        return r

    def _frame(self, pose: tuple[float, float, float, float], visual: geo.VisualState) -> tuple[bytes, int]:
        from playbench.render.gl3d import encode_png

        key = (self._require().id, pose, visual, self.config.image_size)
        hit = self._frames.get(key)
        if hit is not None:
            self._frames.move_to_end(key)
            return hit
        rgb, centre = self._renderer().render(visual, *pose, self.config.image_size)
        value = (encode_png(rgb), centre)
        self._frames[key] = value
        if len(self._frames) > FRAME_CACHE:
            self._frames.popitem(last=False)
        return value

    def instructions(self) -> str:
        text = prompts.INSTRUCTIONS
        if len(self._chains) > 1:
            text += "\n\n" + prompts.multi_room_note(len(self._chains))
        if self.config.hint:
            text += "\n\n" + prompts.hint(self._chains)
        return text

    def bag_text(self) -> str:
        if not self._state.bag:
            return "nothing"
        return ", ".join(f"{i} ({TYPE_WORDS[self._rules.items[i].type]})" for i in self._state.bag)

    def observe(self, role: str) -> Observation:
        self._require()
        if role not in self.roles:
            raise ValueError(f"unknown role {role!r}; this task has the roles {', '.join(self.roles)}")
        if role == "judge":
            return self._judge_observation()
        if self._phase == "debrief":
            return Observation(
                role=role,
                parts=[TextPart(prompts.debrief_text(self._debrief_record()))],
                instructions=self.instructions(),
                legal_actions=["I do not remember any story behind the room."],
                feedback=self._feedback,
                step=self._steps,
            )
        parts: list[Part] = self._history_parts()
        parts.append(TextPart(prompts.step_text(self._steps, self._cap, self._feedback, self.bag_text())))
        pose = self._state.pose_key()
        visual = self._state.visual()
        if self._phase == "play":
            png, centre = self._frame(pose, visual)
            self._observed = (pose, visual, centre)
            parts.append(ImagePart(png, label="view"))
        return Observation(
            role=role,
            parts=parts,
            instructions=self.instructions(),
            legal_actions=self.legal_actions() if self._phase == "play" else [],
            feedback=self._feedback,
            step=self._steps,
        )

    def _history_parts(self) -> list[Part]:
        mode = self.config.history
        if mode == "none" or not self._history:
            return []
        if mode == "full":
            records = self._history
        elif mode == "key":
            records = [r for r in self._history if r.key]
        else:
            records = self._history[-self.config.history_steps :]
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

    def legal_actions(self) -> list[str]:
        """A finite sample of actions for the random baseline, fixed by the state (not the step)."""
        s = self._state
        rng = random.Random(
            derive_seed(
                "mmescape-random",
                self._require().id,
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
    def step(self, action_text: str) -> StepResult:
        self._require()
        text = action_text if isinstance(action_text, str) else str(action_text)
        if self._phase == "over":
            return StepResult(
                Validity.INVALID, "The episode is over; no more actions are accepted.", reason="episode_over"
            )
        if self._phase == "judge":
            return self._judge_step(text)
        if self._phase == "debrief":
            self._story_answer = text.strip()[:8000]
            self._feedback = "Thank you, your account of the story was recorded."
            self._after_play()
            return StepResult(Validity.EFFECTIVE, self._feedback, parsed="story", info={"phase": "debrief"})
        return self._play_step(text)

    def _play_step(self, text: str) -> StepResult:
        state = self._state
        before = (state.pose_key(), state.visual())
        try:
            action = parse_action(text)
        except ParseError as exc:
            return self._reject(Validity.UNPARSEABLE, "format", f"Could not read your action: {exc}.", text)
        except RangeError as exc:
            return self._reject(Validity.INVALID, "out_of_range", f"Invalid action: {exc}.", text)
        centre = None
        if self._observed is not None and self._observed[0] == before[0] and self._observed[1] == before[1]:
            centre = self._observed[2]
        outcome = self._rules.apply(state, action, centre_entity=centre, size=self.config.image_size)
        if outcome.invalid:
            return self._reject(Validity.INVALID, "not_in_bag", outcome.invalid, text, action)
        self._steps += 1
        self._count(action, outcome)
        feedback = " ".join(outcome.lines)
        if not state.escaped and self._steps >= self._cap:
            feedback += f" You have used all {self._cap} steps without escaping."
        self._feedback = feedback
        self._history.append(
            StepRecord(
                self._steps,
                before[0],
                before[1],
                action.canonical(),
                feedback,
                outcome.key_step,
                action.rationale,
            )
        )
        self._last_papers = next((i for i in outcome.obtained if self._rules.items[i].type == "paper"), None)
        validity = Validity.EFFECTIVE if outcome.changed else Validity.INEFFECTIVE
        info = {
            "step": self._steps,
            "escaped": state.escaped,
            "grab": outcome.grabbed,
            "grab_success": outcome.grab_success,
        }
        if state.escaped or self._steps >= self._cap:
            self._end_play()
        return StepResult(validity, feedback, parsed=action.canonical(with_rationale=True), info=info)

    def _reject(
        self, validity: Validity, reason: str, message: str, text: str, action: Action | None = None
    ) -> StepResult:
        self._steps += 1
        if validity == Validity.UNPARSEABLE:
            self._unparseable += 1
        else:
            self._invalid += 1
        feedback = message + " Nothing changed."
        if self._steps >= self._cap:
            feedback += f" You have used all {self._cap} steps without escaping."
        self._feedback = feedback
        state = self._state
        shown = action.canonical() if action is not None else json.dumps(text.strip()[:80])
        self._history.append(
            StepRecord(
                self._steps,
                state.pose_key(),
                state.visual(),
                shown,
                feedback,
                False,
                action.rationale if action else "",
            )
        )
        self._last_papers = None
        if self._steps >= self._cap:
            self._end_play()
        parsed = action.canonical(with_rationale=True) if action else None
        return StepResult(validity, feedback, parsed=parsed, reason=reason)

    def _count(self, action: Action, out: Outcome) -> None:
        if out.grabbed:
            self._grabs += 1
            if out.grab_success:
                self._grab_successes += 1
            if out.interaction is not None:
                self._interactions.append((action.rationale, out.interaction))
        for item in out.obtained:
            self._obtained.add(item)
            if item in self._core and self._core_step is None:
                self._core_step = self._steps
        for what in out.opened:
            self._obtained.add(what)

    def _end_play(self) -> None:
        story = any(c.story_text() for c in self._chains)
        if self._state.escaped and self.config.debrief and story:
            self._phase = "debrief"
        else:
            self._after_play()

    def _after_play(self) -> None:
        if not self.config.judge:
            self._phase = "over"
            return
        queue: list[tuple[str, Any]] = []
        truth = "\n".join(t for t in (c.story_text() for c in self._chains) if t)
        if self._story_answer is not None and truth:
            queue.append(("story", (truth, self._story_answer)))
        for pair in self._interactions[: self.config.judge_max_interactions]:
            queue.append(("consistency", pair))
        self._judge_queue = queue
        self._phase = "judge" if queue else "over"

    def _debrief_record(self) -> list[str]:
        return [f"Step {r.step}: {r.feedback}" for r in self._history if r.key]

    # --- the judge ---------------------------------------------------------------------------
    def _judge_observation(self) -> Observation:
        kind, data = self._judge_queue[0] if self._judge_queue else ("none", None)
        if kind == "story":
            truth, recovered = data
            text = prompts.STORY_JUDGE.format(truth=truth, recovered=recovered or "(no answer)")
            legal = [json.dumps({"score": s}) for s in range(6)]
        elif kind == "consistency":
            rationale, response = data
            text = prompts.CONSISTENCY_JUDGE.format(rationale=rationale or "(none given)", response=response)
            legal = ['{"Consistency": 1}', '{"Consistency": 0}']
        else:
            text, legal = "Nothing is left to judge.", []
        return Observation(
            role="judge", parts=[TextPart(text)], instructions="", legal_actions=legal, step=self._steps
        )

    def _judge_step(self, text: str) -> StepResult:
        kind, _ = self._judge_queue.pop(0)
        if kind == "story":
            score = parse_story_score(text)
            if score is None:
                self._judge_unparseable += 1
                result = StepResult(
                    Validity.UNPARSEABLE,
                    'The story score could not be read (expected {"score": 0-5}).',
                    reason="format",
                )
            else:
                self._story_score = score
                result = StepResult(
                    Validity.EFFECTIVE, f"Story score {score:g} recorded.", parsed=f"score {score:g}"
                )
        else:
            verdict = parse_consistency(text)
            if verdict is None:
                self._judge_unparseable += 1
                result = StepResult(
                    Validity.UNPARSEABLE,
                    'The consistency verdict could not be read (expected {"Consistency": 0 or 1}).',
                    reason="format",
                )
            else:
                self._consistency.append(verdict)
                result = StepResult(
                    Validity.EFFECTIVE, f"Consistency {verdict} recorded.", parsed=f"consistency {verdict}"
                )
        if not self._judge_queue:
            self._phase = "over"
        return result

    # --- oracle ------------------------------------------------------------------------------
    def oracle_action(self, role: str) -> str | None:
        self._require()
        if self._phase == "over":
            return None
        if self._phase == "judge":
            kind = self._judge_queue[0][0] if self._judge_queue else "none"
            return '{"score": 5}' if kind == "story" else '{"Consistency": 1}'
        if self._phase == "debrief":
            return "\n".join(t for t in (c.story_text() for c in self._chains) if t)
        if self._planner is None:
            self._planner = Planner(self._rules, self.config.image_size)
        return self._planner.next_action(self._state, self._last_papers)

    # --- results -----------------------------------------------------------------------------
    def outcome(self) -> EpisodeResult:
        inst = self._require()
        steps = self._steps
        escaped = self._state.escaped
        props = [p for p in self._props if p in self._obtained]
        metrics: dict[str, Any] = {
            "escaped": escaped,
            "prop_gain": len(props) / len(self._props) if self._props else 1.0,
            "grab_attempts": self._grabs,
            "grab_successes": self._grab_successes,
            "grab_success_rate": self._grab_successes / self._grabs if self._grabs else None,
            "grab_ratio": self._grabs / steps if steps else 0.0,
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
            metrics["story_score"] = self._story_score
            metrics["consistency_rate"] = (
                sum(self._consistency) / len(self._consistency) if self._consistency else None
            )
            metrics["judged_interactions"] = len(self._consistency)
            metrics["judge_unparseable"] = self._judge_unparseable
        return EpisodeResult(success=escaped, steps=steps, metrics=metrics)

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
