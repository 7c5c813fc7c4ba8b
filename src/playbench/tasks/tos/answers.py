"""The answer turn after an exploration: the nine question families and the cognitive map.

An active episode explores first (`exploration.py`); a passive one starts from a given exploration
log (the authors' STRATEGIST or SCOUT proxy, or our oracle's plan). Then one answer turn: the reply
is scored at once (`questions.py` and `evaluate.py` for the questions, `probing.py` for the map) and
the episode ends, read or not. `tos/cogmap` also asks the authors' belief probes after every reply
of an active exploration (`probes.py`); its answer is the last turn's global map.
"""

from __future__ import annotations

import json
import random
from abc import abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Part, Progress, StepResult, TextPart, Validity
from playbench.tasks.tos import cogmap, probing, question_scoring, questions
from playbench.tasks.tos.exploration import TosConfig, TosInstance, TosTask, oracle_poses
from playbench.tasks.tos.probes import ProbingTask
from playbench.tasks.tos.scenes import Scene
from playbench.tasks.tos.world import Pose, TaskPose, World, items_of


class AnswerConfig(TosConfig):
    exploration: Literal["active", "passive"] = "active"
    # the given log in passive mode: the authors' proxies (their runs: STRATEGIST in the text world,
    # SCOUT in the vision world; None picks that), or our oracle's minimum-cost plan
    passive_log: Literal["scout", "strategist", "oracle"] | None = None


class QuestionConfig(AnswerConfig):
    family: str = "pairwise-direction"
    questions_per_scene: int = Field(3, ge=1, le=10, description="questions per world (the paper: 3)")
    partial_credit: bool = False  # ours: mental rotation and maps score the share of positions right
    image_questions: bool = False  # ours: vision questions quote views as images (theirs: as text)

    @field_validator("family")
    @classmethod
    def _known_family(cls, value: str) -> str:
        if value not in questions.FAMILIES:
            raise ValueError(f"unknown question family '{value}' (known: {', '.join(questions.FAMILIES)})")
        return value


class CogmapConfig(AnswerConfig):
    # the authors' protocol: after every reply of an active exploration, a global map, a local map
    # and the uncertainty probe (extra replies that are not steps); false: only the final map
    probe: bool = True
    local_map: bool = False  # ours: also ask for the agent-centred local map in the final answer


class AnswerTask(TosTask):
    """Exploration (active) or a given exploration log (passive), then one answer turn."""

    Config: ClassVar[type[TaskConfig]] = AnswerConfig
    config: AnswerConfig

    def _after_exploration(self) -> str:
        return "answer"

    def _optimal(self, plan: tuple[Pose, ...]) -> int:
        return 1 if self.passive else len(plan) + 2

    def _outcome(self) -> EpisodeResult:
        metrics: dict[str, Any] = {} if self.passive else self._exploration_metrics()
        metrics.update({k: v for k, v in self._answer.items() if not k.startswith("_")})
        metrics.setdefault("answer_parsed", False)
        metrics["passive"] = self.passive
        return EpisodeResult(success=self._answer_success(), steps=self._steps, metrics=metrics)

    def _answer_success(self) -> bool:
        return bool(self._answer.get("correct"))

    def _answer_step(self, text: str) -> StepResult:
        scored = self._score_answer(text)
        self._phase = "done"
        validity = Validity.EFFECTIVE if scored.get("answer_parsed") else Validity.UNPARSEABLE
        detail = scored.pop("_detail", "")
        self._feedback = f"Answer recorded ({detail})." if detail else "Answer recorded."
        self._answer = scored
        # the one answer turn ends the episode, read or not (the metrics say how it went)
        self.end(Termination.GOAL_REACHED)
        return StepResult(validity, self._feedback, parsed=text.strip()[-200:] or None,
                          reason=None if validity == Validity.EFFECTIVE else "format",
                          info={"phase": "answer", **scored})  # fmt: skip

    @abstractmethod
    def _score_answer(self, text: str) -> dict[str, Any]:
        """The answer's scores (`_detail`: a few words for the feedback); each answering task's own."""


class QuestionTask(AnswerTask):
    """One of the nine question families (one registered task per family), `questions_per_scene`
    questions about every world."""

    Config: ClassVar[type[TaskConfig]] = QuestionConfig
    config: QuestionConfig

    @property
    def KIND(self) -> str:  # type: ignore[override]
        return self.config.family

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        per = self.config.questions_per_scene
        if self.config.dataset == "twin":
            return self._twin_instances(n, seed)
        if self.config.scenes:
            out = self._scene_instances()
            return out if n is None else out[:n]
        total = self.config.default_set * per if n is None else n
        out_list: list[Instance] = []
        cache: dict[int, list[TosInstance]] = {}
        for j in range(total):
            w = j // per
            if w not in cache:
                cache[w] = self._world_questions(seed, w)
            out_list.append(cache[w][j % per])
        return out_list

    def _make_instance(self, seed: int, index: int) -> TosInstance:
        per = self.config.questions_per_scene
        return self._world_questions(seed, index // per)[index % per]

    def _world_questions(self, seed: int, index: int) -> list[TosInstance]:
        """The `questions_per_scene` distinct questions about world `index` (redrawn if it cannot
        host them: a world too small for the family)."""
        fam = self.config.family
        for attempt in range(50):
            key: int | str = index if attempt == 0 else f"{index}/{attempt}"
            world, plan = self._world(seed, key)
            qs = self._questions(world, derive_seed("tos-question", fam, seed, index, attempt))
            if qs is None:
                continue
            return [
                TosInstance(
                    id=f"{self._instance_id(seed, index)}-q{k + 1}",
                    optimal_steps=self._optimal(plan),
                    world=world,
                    budget=self.config.max_steps,
                    question=q,
                )
                for k, q in enumerate(qs)
            ]
        raise ConfigError(f"no world with these rooms/objects can host a '{fam}' question; add objects")

    def _questions(
        self, world: World, seed: int, task_poses: list[TaskPose] | None = None
    ) -> list[dict[str, Any]] | None:
        """Distinct questions about one world (theirs draw until a question is new), or None."""
        fam = self.config.family
        per = self.config.questions_per_scene
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for tries in range(40):
            pose = None
            if task_poses and fam == "view2location" and len(out) < len(task_poses):
                tp = task_poses[len(out)]
                pose = Pose(tp.x, tp.y, tp.facing)
            try:
                q = questions.make_question(world, fam, derive_seed(seed, tries), pose)
            except questions.QuestionError:
                continue
            text = question_scoring.question_text(world, q) + json.dumps(q, sort_keys=True)
            if text in seen:
                continue
            seen.add(text)
            out.append(q)
            if len(out) == per:
                return out
        return None

    def _from_scene(self, scene: Scene) -> list[Instance]:
        plan = oracle_poses(scene.world, allow_return=self.config.return_action)
        vision_poses = scene.world.task_poses if self.config.image_questions else None
        qs = self._questions(scene.world, derive_seed("tos-scene-question", self.config.family, scene.world.source),
                             vision_poses)  # fmt: skip
        if qs is None:
            raise ConfigError(f"scene {scene.world.source} cannot host a '{self.config.family}' question")
        return [
            TosInstance(
                id=f"tos-{self.KIND}-{scene.world.source}-q{k + 1}",
                optimal_steps=self._optimal(tuple(plan)),
                world=scene.world,
                budget=self.config.max_steps,
                question=q,
                image_ids=scene.image_ids,
            )
            for k, q in enumerate(qs)
        ]

    def _question(self) -> dict[str, Any]:
        q = self.instance.question
        if q is None:
            raise ConfigError(f"instance {self.instance.id} has no question")
        return q

    def _phase_prompt(self) -> list[Part]:
        if self._phase != "answer":
            return super()._phase_prompt()
        q = self._question()
        image = self.config.modality == "vision" and self.config.image_questions
        pose = question_scoring.question_pose(self.world, q) if image else None
        text = question_scoring.question_text(self.world, q, view_as_image=pose is not None)
        parts: list[Part] = [TextPart("Exploration is over. Question:\n" + text)]
        if pose is not None:
            parts.append(ImagePart(self._image(0, pose), label="question-view"))
        return parts

    def _score_answer(self, text: str) -> dict[str, Any]:
        s = question_scoring.score(self.world, self._question(), text, self.config.partial_credit)
        return {"score": s.score, "correct": s.correct, "answer_parsed": s.parsed, "_detail": s.detail}

    def _oracle_answer(self) -> str:
        return "FINAL ANSWER: " + question_scoring.truth(self.world, self._question())

    def _answer_samples(self) -> list[str]:
        rng = random.Random(derive_seed("tos-answers", self.instance.id))
        return question_scoring.answer_space(self.world, self._question(), rng)


class CogmapTask(ProbingTask, AnswerTask):
    """`tos/cogmap`: explore while the belief is probed after every reply (the authors' global, local
    and uncertainty probes), then write the global cognitive map as JSON (the final turn's global
    probe). Passive: the map after the given log."""

    Config: ClassVar[type[TaskConfig]] = CogmapConfig
    KIND = "cogmap"
    config: CogmapConfig

    def _probing(self) -> bool:
        return self.config.probe and not self.passive

    def _after_turn(self, phase_before: str, result: StepResult, newly_changed: set[str]) -> None:
        if phase_before != "explore" or not self._probing():
            return
        self._open_turn_record()
        self._draw_fog()
        self._local_map = None
        kinds = ["local"] + (["fog"] if self._fog[0] else [])
        # the last reply's global map is the answer turn that follows the exploration
        self._probes = kinds + (["global"] if self._phase == "explore" else [])

    def _phase_prompt(self) -> list[Part]:
        if self._phase != "answer":
            return super()._phase_prompt()
        text = probing.global_prompt()
        if self.config.local_map:
            text += "\n" + cogmap.LOCAL_PROMPT
        return [TextPart("Exploration is over.\n" + text)]

    def _score_answer(self, text: str) -> dict[str, Any]:
        text = text if isinstance(text, str) else str(text)
        if self.config.local_map:  # ours: two maps in one reply, the global one without "origin"
            objects = cogmap.json_objects(text)
            global_maps = [o for o in objects if o.get("origin") != "agent"]
            local_maps = [o for o in objects if o.get("origin") == "agent"]
            global_text = json.dumps(global_maps[-1]) if global_maps else ""
        else:
            global_text = text
        # their correctness: the final global map against every object, door and the agent
        rec = self._turns[-1] if self._probing() and self._turns else probing.TurnProbe(frozenset(), {})
        readable = self._record_global(rec, global_text)
        full = rec.full_scores
        m = {
            k: v
            for k, v in cogmap.score_cogmap(self.world, self._observed, self._pose, global_text).items()
            if k in ("agent_correct", "hallucinated", "mapped", "position_exact")
        }
        m.update(
            position_accuracy=full.position if full else None,
            direction_accuracy=full.direction if full else None,
            facing_accuracy=full.facing if full else None,
            map_score=full.overall if full else None,
            answer_parsed=readable,
            _detail=f"map score {full.overall:.2f}" if full else "no map read",
        )
        if self.config.local_map:
            m.update(
                cogmap.score_local(
                    self.world,
                    self._pose,
                    global_maps[-1] if global_maps else None,
                    local_maps[-1] if local_maps else None,
                )
            )
            m["answer_parsed"] = m["answer_parsed"] and m["local_parsed"]
        return m

    def _answer_success(self) -> bool:
        a = self._answer
        ok = bool(a.get("answer_parsed")) and a.get("map_score") == 1.0 and bool(a.get("agent_correct"))
        if self.config.local_map:
            ok = ok and a.get("local_position_accuracy") == 1.0 and a.get("local_facing_accuracy") == 1.0
            ok = ok and a.get("local_global_consistency") == 1.0
        return ok

    def progress(self) -> Progress | None:
        """The exploration's coverage and the oracle's remaining Observe() turns
        (`TosTask._exploration_progress`), also through the answer turn (they stay at the
        exploration's final values); None in passive mode, where the agent explores nothing."""
        return None if self.passive else self._exploration_progress()

    def _oracle_answer(self) -> str:
        text = self._probe_truth("global")
        if self.config.local_map:
            text += "\n" + json.dumps(cogmap.local_truth_map(self.world, self._pose))
        return text

    def _answer_samples(self) -> list[str]:
        rng = random.Random(derive_seed("tos-cogmap-answers", self.instance.id))
        xs = range(min(r.x0 for r in self.world.rooms), max(r.x1 for r in self.world.rooms) + 1)
        ys = range(min(r.y0 for r in self.world.rooms), max(r.y1 for r in self.world.rooms) + 1)
        out = []
        for _ in range(8):
            entries: dict[str, Any] = {
                "agent": {"position": [0, 0], "facing": rng.choice(("north", "east", "south", "west"))}
            }
            for it in sorted(items_of(self.world), key=lambda i: i.name):
                if it.name in self._observed:
                    entry: dict[str, Any] = {"position": [rng.choice(xs), rng.choice(ys)]}
                    if it.facing is not None:
                        entry["facing"] = rng.choice(("north", "east", "south", "west"))
                    entries[it.name] = entry
            out.append(json.dumps(entries))
        return out

    def _outcome(self) -> EpisodeResult:
        result = super()._outcome()
        if self._probing():
            result.metrics.update(probing.episode_metrics(self._turns))
            result.metrics["probe_replies"] = self._probe_replies
            result.metrics["probes_unreadable"] = self._probes_unreadable
        return result
