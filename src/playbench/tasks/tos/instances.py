"""Theory of Space instances: the options every tos task shares (`TosConfig`), the instance model
(`TosInstance`), and the instances themselves: generated worlds, or the authors' scene files read at
run time (`--set scenes=PATH`).

`InstancesMixin` is a part of `TosTask` (exploration.py), which mixes it in.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextsOptions
from playbench.core.originals import find_clone
from playbench.core.task import Instance
from playbench.core.twins import twin_id
from playbench.tasks.tos.cogmap import Change
from playbench.tasks.tos.oracle_plan import plan_observations
from playbench.tasks.tos.originals import SCENES as ORIGINAL_SCENES
from playbench.tasks.tos.scenes import Scene, load_scenes
from playbench.tasks.tos.twins import (
    Reference,
    generator_references,
    make_twin_world,
    shipped_references,
    world_record,
)
from playbench.tasks.tos.world import Pose, World
from playbench.tasks.tos.worldgen import cached_world


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
    # default: the generated worlds or, with `scenes`, the authors' scenes; twin: a fresh world of
    # the generator per reference scene, matched to its rooms, objects and exploration cost (`twins.py`)
    dataset: Literal["default", "twin"] = "default"


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


class InstancesMixin:
    """`TosTask`'s instances and where they come from."""

    KIND: str
    config: Any
    originals: Any

    def data_origin(self) -> str:
        """`generated` (our generator, twins included), or the authors' scenes: `original@<commit>`
        when read from their clone, `original (PATH)` from a folder outside it."""
        if not self.config.scenes or self.config.dataset == "twin":
            return "generated"
        assert self.originals is not None
        clone = find_clone(self.originals.repo, self.config.originals)
        scenes = Path(self.config.scenes).expanduser().resolve()
        if clone is not None and scenes.is_relative_to(clone.path.expanduser().resolve()):
            return clone.stamp
        return f"original ({self.config.scenes})"

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        if self.config.dataset == "twin":
            return self._twin_instances(n, seed)
        if self.config.scenes:
            out = self._scene_instances()
            return out if n is None else out[:n]
        total = self.config.default_set if n is None else n
        return [self._make_instance(seed, i) for i in range(total)]

    def _references(self) -> tuple[list[Reference], str]:
        """The scenes a twin set is matched to, and where they come from (`twins.py`)."""
        c = self.config
        if c.scenes:
            refs = []
            for scene in self._loaded():
                rec = world_record(scene.world, c.return_action)
                refs.append(Reference(str(scene.world.source), **rec))
            return refs, "scenes"
        shipped = shipped_references()
        if shipped is not None:
            return shipped, "figures"
        count = c.default_set
        return generator_references(
            c.rooms, c.objects, count, c.max_steps, c.room_size, c.return_action
        ), "generator"

    def _twin_instances(self, n: int | None, seed: int) -> list[Instance]:
        """One twin world per reference scene, in its order, each played as that scene would be (its
        instances: one, or a question family's `questions_per_scene`), ids `twin_id(scene's id, seed)`."""
        c = self.config
        if c.layout != "tos":
            raise ConfigError("dataset=twin draws with the authors' layout (layout=tos), not layout=grid")
        refs, _ = self._references()
        out: list[Instance] = []
        for ref in refs:
            world = make_twin_world(ref, seed, c.max_steps, c.room_size, c.return_action)
            for inst in self._from_scene(Scene(world=world, changes=None)):
                paper_like = inst.id.replace(str(world.source), ref.source)
                out.append(inst.model_copy(update={"id": twin_id(paper_like, seed)}))
                if n is not None and len(out) >= n:
                    return out
        return out

    def difficulty(self, instance: Instance) -> dict[str, Any] | None:
        """Rooms, objects and the oracle's exploration cost (Observe turns to see every object)."""
        inst = self.coerce_instance(instance)  # type: ignore[attr-defined]
        return world_record(inst.world, self.config.return_action)

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
