"""`visescape/generated`: rooms built from a seed, and the twin of the authors' twenty rooms (issue 30).

`dataset=generated` (default): `n` rooms of random shapes in the range of the authors' rooms
(`generator.random_shape`), room k drawn from `derive_seed("visescape-generated", seed, k)`.
`dataset=twin`: one room per room of the paper set, in its order, built to the paper room's difficulty
figures (`data/paper_difficulty.json`, computed from the authors' clone by
`scripts/visescape_paper_figures.py` and pinned by digest): receptacles, items, quizzes, chain depth and
hint stalls by construction, the oracle's length by search (see `twin_room`). No clone is needed. The same
twin plays under `visescape/original --set dataset=twin` (and `-hint`), so the paper's ids run a fresh set.

Generated rooms are rooms in the suite's own format, carried whole in the instance (`room_data`), played by
`VisEscapeTask`'s engine, protocol, hints, stall detection and renderer exactly as the hand-made rooms.
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.twins import twin_id
from playbench.tasks.visescape.difficulty import room_difficulty
from playbench.tasks.visescape.generator import Shape, build_room, random_shape
from playbench.tasks.visescape.schema import Room, RoomFormatError
from playbench.tasks.visescape.task import VisEscapeConfig, VisEscapeInstance, VisEscapeTask

PAPER_FIGURES = Path(__file__).parent / "data" / "paper_difficulty.json"
# the shipped figures are pinned: a changed file is a deliberate act (rerun the script, update this digest)
PAPER_FIGURES_SHA256 = "2b8be33afaea1e20d6ce2774276ddc6d6026f4a94d1ddfc06032a422e8d26c39"
DEFAULT_ROOMS = 20  # as many as the paper set
MATCHED = ("receptacles", "items", "quizzes", "chain_depth", "hint_stalls", "optimal_steps")
TWIN_ATTEMPTS = 60  # draws per twin before the closest one is kept


@lru_cache(maxsize=1)
def paper_figures() -> list[dict[str, Any]]:
    """The authors' rooms' difficulty records (ids and numbers only), checked against the pinned digest."""
    raw = PAPER_FIGURES.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != PAPER_FIGURES_SHA256:
        raise ConfigError(
            f"{PAPER_FIGURES} changed (sha256 {digest[:16]}..., pinned {PAPER_FIGURES_SHA256[:16]}...): rerun "
            "scripts/visescape_paper_figures.py and pin the new digest in generated.py"
        )
    return list(json.loads(raw)["rooms"])


def _shape_of(record: dict[str, Any]) -> Shape:
    """The shape a paper room's figures ask for. Every pickup of ours opens a gate of its own, so a paper
    room with more pickups than its gates leave after its quizzes (room 9) gets as many as fit."""
    gates, quizzes = record["chain_depth"], record["quizzes"]
    return Shape(
        receptacles=record["receptacles"],
        items=record["items"],
        quizzes=quizzes,
        gates=gates,
        pickups=min(record["hint_stalls"] - gates, gates - quizzes),
    )


def generated_room(room_id: str, seed: int) -> tuple[Room, dict[str, dict[str, Any]], dict[str, int]]:
    """A room of a random shape (redrawn until the shape builds), its quiz parameters and difficulty."""
    rng = random.Random(seed)
    for _ in range(100):
        shape = random_shape(rng)
        try:
            room, params = build_room(room_id, shape, rng, closed=rng.randint(0, 2))
            return room, params, room_difficulty(room, params)
        except (ValueError, RoomFormatError):
            continue
    raise ConfigError(f"no room could be generated for seed {seed}")


def _relaxed(shape: Shape) -> list[Shape]:
    """The shape, then the nearest shapes that may build where it cannot (a paper room whose clue is shown
    by a receptacle that also opens, which our renderer draws on displays only: one receptacle or item
    more)."""
    r, i = shape.receptacles, shape.items
    return [
        shape,
        Shape(r + 1, i, shape.quizzes, shape.gates, shape.pickups),
        Shape(r, i + 1, shape.quizzes, shape.gates, shape.pickups),
        Shape(r + 1, i + 1, shape.quizzes, shape.gates, shape.pickups),
    ]


def twin_room(
    room_id: str, record: dict[str, Any], seed: int
) -> tuple[Room, dict[str, dict[str, Any]], dict[str, int]]:
    """The twin of one paper room: built to its shape (or the nearest shape that builds, `_relaxed`), then
    searched over layouts and the number of gate receptacles that open to `closed` (one step each) until
    the oracle's length equals the paper room's; after TWIN_ATTEMPTS draws the closest is kept."""
    rng = random.Random(seed)
    target = record["optimal_steps"]
    best: tuple[int, Room, dict[str, dict[str, Any]], dict[str, int]] | None = None
    for shape in _relaxed(_shape_of(record)):
        closed = 0
        for _ in range(TWIN_ATTEMPTS):
            try:
                room, params = build_room(room_id, shape, rng, closed=closed)
            except (ValueError, RoomFormatError):
                closed = max(0, closed - 1)
                continue
            figures = room_difficulty(room, params)
            miss = sum(abs(figures[k] - record[k]) for k in MATCHED)
            if best is None or miss < best[0]:
                best = (miss, room, params, figures)
            if miss == 0:
                return room, params, figures
            closed = max(0, min(closed + target - figures["optimal_steps"], shape.gates - 1))
        if best is not None:
            break
    if best is None:
        raise ConfigError(f"no twin could be built for {record['id']} (shape {_shape_of(record)})")
    return best[1], best[2], best[3]


class GeneratedConfig(VisEscapeConfig):
    # generated: rooms of random shapes; twin: one room per room of the paper set, matched in difficulty
    dataset: Literal["generated", "twin"] = "generated"
    # twin: only the twins of these paper rooms (all of them if empty)
    twin_of: list[str] = Field(default_factory=list)


class GeneratedInstance(VisEscapeInstance):
    room_data: dict[str, Any]  # the whole room, in the suite's room format


class GeneratedTask(VisEscapeTask):
    """Generated rooms played as `visescape/rooms` plays the hand-made ones."""

    Config: ClassVar[type[TaskConfig]] = GeneratedConfig
    InstanceModel: ClassVar[type[Instance]] = GeneratedInstance
    instance_label: ClassVar[str] = "visescape generated"
    config: GeneratedConfig  # type: ignore[assignment]

    @property
    def cache_instances(self) -> bool:  # type: ignore[override]
        return True

    def data_origin(self) -> str:
        return "generated"

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        if self.config.dataset == "twin":
            return self._twins(n, seed)
        total = DEFAULT_ROOMS if n is None else n
        out: list[Instance] = []
        for k in range(total):
            rid = f"gen-s{seed}-{k:04d}"
            room, params, figures = generated_room(rid, derive_seed("visescape-generated", seed, k))
            out.append(self._new_instance(rid, room, params, figures))
        return out

    def _twins(self, n: int | None, seed: int) -> list[Instance]:
        records = paper_figures()
        if self.config.twin_of:
            known = [r["id"] for r in records]
            bad = [x for x in self.config.twin_of if x not in known]
            if bad:
                raise ConfigError(
                    f"twin_of: unknown paper room(s) {', '.join(bad)}; known: {', '.join(known)}"
                )
            records = [r for r in records if r["id"] in self.config.twin_of]
        if n is not None and n > len(records):
            raise ConfigError(
                f"the twin set has {len(records)} rooms, one per paper room; {n} were asked for"
            )
        out: list[Instance] = []
        for record in records[:n]:
            rid = twin_id(record["id"], seed)
            room, params, figures = twin_room(rid, record, derive_seed("visescape-twin", seed, record["id"]))
            out.append(self._new_instance(rid, room, params, figures))
        return out

    def _new_instance(
        self, rid: str, room: Room, params: dict[str, dict[str, Any]], figures: dict[str, int]
    ) -> GeneratedInstance:
        return GeneratedInstance(
            id=rid,
            room=rid,
            quiz_params=params,
            room_data=room.model_dump(mode="json", by_alias=True, exclude_none=True),
            optimal_steps=figures["optimal_steps"],
        )

    def _room_and_params(self, instance: VisEscapeInstance) -> tuple[Room, dict[str, dict[str, Any]]]:
        if not isinstance(instance, GeneratedInstance):
            raise ConfigError(f"visescape generated instance {instance.id!r} carries no room_data")
        return self._as_played(Room.model_validate(instance.room_data)), instance.quiz_params

    def difficulty(self, instance: Instance) -> dict[str, Any]:
        inst = self.coerce_instance(instance)
        assert isinstance(inst, GeneratedInstance)
        room, params = self._room_and_params(inst)
        return room_difficulty(room, params, carry_clues=self.config.carry_clues)
