"""Fresh twins for Theory of Space (`--set dataset=twin`): one new world per reference scene, drawn by
playbench's generator (`worldgen.generate_world`, the authors' layout) and matched exactly to the
scene's difficulty statistics:

- `rooms`: the world's rooms;
- `objects`: its objects (doors not counted), spread evenly over the rooms as the generator does;
- `exploration_cost`: the oracle's Observe() turns to see every object (`plan_observations`, the
  cost an exploration is scored by; moves are free).

The reference set, first found of:
1. `scenes=PATH` (the authors' scene folders, e.g. their clone's `room_data/3-room`): each scene's
   statistics, read from its files;
2. the paper set's figures shipped with playbench (`data/paper_difficulty.json`, made by
   `scripts/tos_paper_figures.py` from the authors' clone, pinned by `PAPER_FIGURES_SHA256`): the same
   numbers as 1 for the same scenes, so the twin is the same with or without the clone;
3. otherwise (no figures shipped yet: see the README) the generator's own default set at seed 0
   (`default_set` worlds of the task's `rooms` and `objects`): the twin then matches the generator's
   default distribution, NOT the paper's scenes.

Twin k is drawn from `derive_seed("tos-twin", reference id, seed, attempt)` for attempt 0, 1, ... until
its statistics equal reference k's (and its plan fits the step cap); its id is `twin_id(the id the
reference scene's instance has, seed)`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.core.twins import twin_id
from playbench.tasks.tos.oracle_plan import plan_observations
from playbench.tasks.tos.world import World
from playbench.tasks.tos.worldgen import cached_world, generate_world

PAPER_FIGURES = Path(__file__).parent / "data" / "paper_difficulty.json"
# the sha256 of the shipped figures file; None: none ships yet (the local clone of the authors'
# repository holds 3 of the 3-room set's 100 scenes, so the paper set's figures could not be made)
PAPER_FIGURES_SHA256: str | None = None
MAX_ATTEMPTS = 400  # worlds drawn per twin (measured: a few at most, exploration costs 4-6 are common)


@dataclass(frozen=True)
class Reference:
    """One reference scene: its source name (`run05`, `r3o4-s0-0007`) and statistics."""

    source: str
    rooms: int
    objects: int
    exploration_cost: int

    def record(self) -> dict[str, int]:
        return {"rooms": self.rooms, "objects": self.objects, "exploration_cost": self.exploration_cost}


def world_record(world: World, allow_return: bool = False, limit: int = 60) -> dict[str, int]:
    """A world's statistics (module docstring)."""
    try:
        cost = len(plan_observations(world, limit=limit, allow_return=allow_return))
    except ValueError:
        cost = limit + 1  # no plan within the limit: costlier than any that has one
    return {"rooms": len(world.rooms), "objects": len(world.objects), "exploration_cost": cost}


def shipped_references() -> list[Reference] | None:
    """The paper set's figures shipped with playbench, checked against their pinned digest; None when
    none ship."""
    if not PAPER_FIGURES.is_file():
        return None
    data = PAPER_FIGURES.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != PAPER_FIGURES_SHA256:
        raise ConfigError(
            f"{PAPER_FIGURES} has sha256 {digest}, not the pinned {PAPER_FIGURES_SHA256}: "
            "set PAPER_FIGURES_SHA256 in tos/twins.py when the figures are regenerated on purpose"
        )
    return [Reference(**r) for r in json.loads(data)["records"]]


def figures_from_scenes(root: str | Path, commit: str | None) -> dict[str, Any]:
    """The figures file's content for the authors' scene folders under `root` (e.g. their clone's
    `room_data/3-room`): per scene its source name and statistics, nothing else (no names, no
    positions), and the clone's commit (`scripts/tos_paper_figures.py` writes it)."""
    from playbench.tasks.tos.scenes import load_scenes

    records = []
    for scene in load_scenes(root):
        records.append({"source": str(scene.world.source), **world_record(scene.world)})
    return {
        "source": "mll-lab-nu/Theory-of-Space",
        "commit": commit,
        "path": Path(root).name,
        "records": records,
    }


def generator_references(
    rooms: int, objects: int, count: int, max_steps: int, room_side: int, allow_return: bool
) -> list[Reference]:
    """The generator's default set at seed 0 (the worlds `tos/explore` plays by default)."""
    out = []
    for i in range(count):
        world, plan = cached_world(rooms, objects, 0, i, max_steps, room_side, "tos", allow_return)
        source = f"r{rooms}o{objects}{'' if room_side == 6 else f'z{room_side}'}-s0-{i:04d}"
        out.append(Reference(source, len(world.rooms), len(world.objects), len(plan)))
    return out


def make_twin_world(ref: Reference, seed: int, max_steps: int, room_side: int, allow_return: bool) -> World:
    """A new world with `ref`'s statistics; its `source` is `twin_id(ref.source, seed)`."""
    if ref.rooms < 1 or ref.objects % ref.rooms:
        raise ConfigError(
            f"scene {ref.source}: {ref.objects} objects in {ref.rooms} rooms; the generator puts the same "
            "number in every room, so it has no twin"
        )
    want = ref.record()
    for attempt in range(MAX_ATTEMPTS):
        try:
            world = generate_world(
                ref.rooms,
                ref.objects // ref.rooms,
                derive_seed("tos-twin", ref.source, seed, attempt),
                room_side,
            )
        except ValueError:
            continue
        got = world_record(world, allow_return, limit=max_steps)
        if got == want and got["exploration_cost"] + 1 <= max_steps:
            return world.model_copy(update={"source": twin_id(ref.source, seed)})
    raise ConfigError(
        f"no generated world matched scene {ref.source} ({want}) in {MAX_ATTEMPTS} draws; "
        f"check rooms, objects and max_steps ({max_steps})"
    )
