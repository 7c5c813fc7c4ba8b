"""`tos/false-belief`: explore, the world changes behind the agent's back, explore again and name the changes.

After the first exploration (`exploration.py`) the world changes by the authors' rule (`cogmap.py`:
their `ObjectModifier`, or a scene file's `falsebelief_exp.json`); the agent is back at the start
facing north, keeps what it has observed, and explores the changed world (`max_steps_second`)
until `Term(changes="...")`, scored as F1 over (object, type) labels. With `probe` the authors'
belief probes run (`probes.py`): the global map at the end of the first exploration, then a map of
everything after every reply of the second.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar, Literal

from pydantic import Field

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.twins import paired_paper_id
from playbench.core.types import EpisodeResult, Part, StepResult, TextPart
from playbench.tasks.tos import cogmap, evaluate, probing
from playbench.tasks.tos.cogmap import Change
from playbench.tasks.tos.exploration import TosConfig, TosInstance, oracle_poses, run_number
from playbench.tasks.tos.oracle_plan import plan_observations, plan_turns
from playbench.tasks.tos.probes import ProbingTask
from playbench.tasks.tos.scenes import Scene
from playbench.tasks.tos.world import START, Pose, World, items_of, visible_items


class FalseBeliefConfig(TosConfig):
    changes: int = Field(4, ge=1, le=8, description="objects changed after the exploration (theirs: 4)")
    change_rule: Literal["original", "room"] = "original"  # room: ours, moves stay in their room
    max_steps_second: int = Field(15, ge=2, le=200, description="step cap of the second exploration")
    # the authors' belief probes: the global map at the end of the first exploration, then after
    # every reply of the second one a map of everything (extra replies that are not steps)
    probe: bool = True


class FalseBeliefTask(ProbingTask):
    """`tos/false-belief`: explore, then find which objects were moved or turned."""

    Config: ClassVar[type[TaskConfig]] = FalseBeliefConfig
    KIND = "false-belief"
    config: FalseBeliefConfig

    # --- belief probing (their `evaluate_false_belief_cogmap`) -----------------------------------
    def _probing(self) -> bool:
        return self.config.probe

    def _probes_after_cap(self) -> bool:
        return self._probing()

    def _after_turn(self, phase_before: str, result: StepResult, newly_changed: set[str]) -> None:
        if not self._probing():
            return
        if phase_before == "explore" and self._phase == "fb":
            self._probes = ["last_global"]
        elif phase_before == "fb" and (self._phase == "fb" or self._pending_end is not None):
            self._probes = ["fb_global"]
            self._fb_newly = sorted(newly_changed)

    def _read_probe(self, kind: str, text: str) -> bool:
        data = probing.extract_json(text)
        if kind == "last_global":
            self._exp_raw = data  # the belief the second exploration's maps are compared with
            return data is not None
        kinds = {c.name: c.kind for c in self.instance.changes or []}
        keep = {it.name for it in items_of(self.world)} | {"agent"}
        pred = probing.read_global(data, keep)
        truth = probing.truth_full(self.world, self._pose)
        for name in self._fb_newly:
            if name in self._belief.correctness or name not in kinds:
                continue
            got = probing.score_changed(name, kinds[name], pred, truth, self._exp_raw, self._scale)
            if got is not None:
                self._belief.correctness[name], self._belief.inertia[name] = got
        return data is not None

    def _probe_context(self) -> list[Part]:
        if self._probes and self._probes[0] == "fb_global":
            return self._fb_parts()
        return []

    def _probe_truth(self, kind: str) -> str:
        if kind != "last_global":
            return super()._probe_truth(kind)
        pose = self._phase1_pose
        keep = self._observed | {g.name for g in self._worlds[0].gates} | {"agent"}
        truth = {k: v for k, v in probing.truth_full(self._worlds[0], pose).items() if k in keep}
        return "FINAL ANSWER: " + json.dumps(probing.map_json(truth))

    def _track_changed(self, seen: list[str]) -> None:
        """The cost at which every changed object had been seen again (theirs)."""
        changed = {c.name for c in self.instance.changes or []}
        self._changed_seen |= changed & set(seen)
        if self._all_changed_seen_cost is None and changed and self._changed_seen >= changed:
            self._all_changed_seen_cost = self._cost - self._phase1_cost

    def _changes_for(self, world: World, seed: int) -> list[Change]:
        c = self.config
        if c.change_rule == "room":
            return cogmap.make_room_changes(world, c.changes, random.Random(seed))
        return cogmap.make_changes(world, c.changes, seed)

    def _with_changes(self, world: World, changes: list[Change], key: str, plan: tuple[Pose, ...],
                      image_ids: dict[str, str] | None = None) -> TosInstance | None:  # fmt: skip
        c = self.config
        changed = cogmap.apply_changes(world, changes)
        try:
            plan2 = plan_observations(changed, limit=c.max_steps_second, known=frozenset(
                i.name for i in visible_items_all(world, plan)), allow_return=c.return_action)  # fmt: skip
        except ValueError:
            return None
        if len(plan2) + 1 > c.max_steps_second:
            return None
        return TosInstance(
            id=key,
            optimal_steps=len(plan) + 1 + len(plan2) + 1,
            world=world,
            budget=c.max_steps,
            changes=changes,
            fb_budget=c.max_steps_second,
            image_ids=image_ids,
        )

    def _make_instance(self, seed: int, index: int) -> TosInstance:
        c = self.config
        for attempt in range(50):
            key: int | str = index if attempt == 0 else f"{index}/{attempt}"
            world, plan = self._world(seed, key)
            changes = self._changes_for(world, derive_seed("tos-changes", seed, index, attempt, c.changes))
            if len(changes) < c.changes:
                continue
            inst = self._with_changes(world, changes, self._instance_id(seed, index), plan)
            if inst is not None:
                return inst
        raise ConfigError(
            f"no world with these rooms/objects has {c.changes} objects to change and fits max_steps "
            f"{c.max_steps} and max_steps_second {c.max_steps_second}"
        )

    def _from_scene(self, scene: Scene) -> list[Instance]:
        world = scene.world
        plan = tuple(oracle_poses(world, allow_return=self.config.return_action))
        if scene.changes is not None and self.config.change_rule == "original":
            changes = [Change(**c) for c in scene.changes]
        else:  # their environment seeds the change rule with the scene's run number
            # a twin's source ends in its seed, not a run number: its changes come from its name
            number = run_number(world.source) if paired_paper_id(str(world.source)) is None else None
            changes = self._changes_for(
                world, number if number is not None else derive_seed("tos-fb", world.source)
            )
        inst = self._with_changes(world, changes, f"tos-{self.KIND}-{world.source}", plan, scene.image_ids)
        if inst is None:
            raise ConfigError(
                f"scene {world.source}: the changed scene cannot be explored within max_steps_second"
            )
        return [inst]

    def _after_exploration(self) -> str:
        return "fb"

    def _on_exploration_end(self) -> None:
        inst = self.instance
        self._phase1_pose = self._pose
        self._phase1_cost = self._cost
        self._phase1_counts = dict(self._counts)
        self._phase1_steps = self._phase_steps
        self._worlds.append(cogmap.apply_changes(inst.world, inst.changes or []))
        self._version = 1
        self._pose = START
        self._phase_steps = 0
        self._fb_log_start = len(self._log)
        allow = self.config.return_action
        poses = oracle_poses(self.world, known=self._observed, allow_return=allow)
        self._plan_turns = plan_turns(self.world, poses, observed=self._observed, allow_return=allow)
        self._plan_index = 0

    def _oracle_term(self) -> str:
        if self._phase != "fb":
            return "Actions: [Term()]"
        listed = ", ".join(f"{c.name}: {c.kind}" for c in self.instance.changes or [])
        return f'Actions: [Term(changes="{listed}")]'

    def _term_samples(self) -> list[str]:
        if self._phase != "fb":
            return ["Actions: [Term()]"]
        rng = random.Random(derive_seed("tos-fb-guess", self.instance.id, sorted(self._observed), self._pose))
        names = [o.name for o in self.world.objects]
        out = []
        for _ in range(2):
            picks = rng.sample(names, min(len(names), len(self.instance.changes or [])))
            out.append(
                'Actions: [Term(changes="'
                + ", ".join(f"{n}: {rng.choice(('position', 'orientation'))}" for n in picks)
                + '")]'
            )
        return out

    def _phase_prompt(self) -> list[Part]:
        if self._phase != "fb":
            return super()._phase_prompt()
        return self._fb_parts() + [TextPart(self._status())]

    def _fb_parts(self) -> list[Part]:
        """The second exploration's introduction and log."""
        inst = self.instance
        intro = self.texts.false_belief(len(inst.changes or []), inst.fb_budget or inst.budget)
        parts: list[Part] = [TextPart(intro)]
        parts += self._log_parts(self._log[self._fb_log_start or 0 :], "Your second exploration so far:")
        return parts

    def _outcome(self) -> EpisodeResult:
        inst = self.instance
        metrics = self._exploration_metrics()
        truth = cogmap.change_labels(inst.changes or [])
        reported = [tuple(x) for x in self._answer.get("changes", [])]
        metrics.update(evaluate.changes_f1(reported, truth))  # type: ignore[arg-type]
        metrics["answered"] = "changes" in self._answer
        # the reference cost covers both explorations; the second one's own cost is reported apart
        changed = cogmap.apply_changes(inst.world, inst.changes or [])
        known = frozenset(i.name for i in items_of(inst.world))
        second = len(oracle_poses(changed, known=known, allow_return=self.config.return_action))
        metrics["oracle_cost"] += second
        fb_started = self._fb_log_start is not None
        metrics["second_exploration_cost"] = self._cost - self._phase1_cost if fb_started else 0.0
        metrics["second_exploration_steps"] = self._phase_steps if fb_started else 0
        # their "redundant" cost: spent after every changed object had been seen again
        metrics["cost_after_changes_seen"] = (
            metrics["second_exploration_cost"] - self._all_changed_seen_cost
            if self._all_changed_seen_cost is not None else None
        )  # fmt: skip
        if self._probing():
            metrics.update(probing.belief_metrics(self._belief))
            metrics["probe_replies"] = self._probe_replies
            metrics["probes_unreadable"] = self._probes_unreadable
        return EpisodeResult(success=metrics["f1"] == 1.0, steps=self._steps, metrics=metrics)


def visible_items_all(world: World, plan: tuple[Pose, ...]) -> list[Any]:
    """Everything the oracle's first exploration observes (the second may jump to them at once)."""
    seen: dict[str, Any] = {}
    for pose in plan:
        for it in visible_items(world, pose):
            seen[it.name] = it
    return list(seen.values())
