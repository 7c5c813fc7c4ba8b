"""MM-Escape's difficulty statistics: what a twin room (`twins.py`) is matched on.

Per instance (its first room, where the player starts; every paper scene has one room):

- `chain_length`: the chain's steps on the way out: every item the exit's lock needs, directly or
  through a box that holds it or a note that carries its password (passwords are knowledge, not
  steps), plus the exit itself. Level 1: 1, level 2: 2 (key, exit), level 3: 4 (note or key, box,
  key or note, exit).
- `props`: the chain's props standing in the room at the start (items with `show`, and the exit
  door): what the player has to find.
- `dist_exit_m`: metres (horizontal) from the start to the exit door's centre.
- `dist_props_m`: mean metres (horizontal) from the start to each of those props.
- `hidden`: how much of the chain's props the start view does not show, 0-1: for each prop, the
  share of its sample points (the centre of every primitive it is drawn with and the centre of that
  primitive's top face) that are outside the start view (the paper's 2048 x 1024 view at 120 degrees)
  or behind something else (a ray from the eye hits another object first); the mean over the props.
  It is 0 when every prop is fully in view and unblocked, 1 when none of them shows at all.
- `blocked`: the same share counting only the points behind something else, whatever the heading
  (occlusion by furniture alone: a turn on the spot does not uncover them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.chain import Chain
from playbench.tasks.mmescape.schema import EscapeInstance

# The original's camera (FACTS.md): what "hidden from the start view" is measured with, whatever
# view a task renders
PAPER_VIEW = geo.ViewSpec(2048, 1024, 120.0)
STATISTICS = ("chain_length", "props", "dist_exit_m", "dist_props_m", "hidden", "blocked")


def chain_length(chain: Chain) -> int:
    """Items the exit needs (through the boxes that hold them and the notes that carry their
    passwords), passwords left out, plus the exit."""
    by_id = chain.by_id()
    holder = {c: it.id for it in chain.items for c in it.contents}
    needed: set[str] = set()
    frontier = [chain.exit.unlock_method.id]
    while frontier:
        ident = frontier.pop()
        if not ident or ident in needed or ident not in by_id:
            continue
        needed.add(ident)
        if ident in holder:
            frontier.append(holder[ident])
        method = by_id[ident].unlock_method
        if method is not None and method.id:
            frontier.append(method.id)
    return sum(1 for it in chain.items if it.id in needed and it.type != "password") + 1


@dataclass(frozen=True)
class PropShape:
    """A chain prop of the first room as the statistics see it: its entity id, the (x, z) its
    distance is measured to, and its sample points."""

    name: str
    entity: int
    x: float
    z: float
    points: tuple[tuple[float, float, float], ...]


class StartProbe:
    """The statistics of one furnished room for any start pose: what does not depend on the start
    (the props, their sample points, a ray caster over the room) is built once, so a twin's search
    can try hundreds of starts in a room cheaply."""

    def __init__(self, inst: EscapeInstance) -> None:
        self.inst = inst
        world = geo.build_world(inst, aids=False)
        parts, _ = world.parts(geo.VisualState())
        self.caster = geo.RayCaster(parts)
        self.props: list[PropShape] = []
        for place in inst.props:
            if place.room == 0:
                entity = world.item_entity[place.item]
                self.props.append(
                    PropShape(place.item, entity, place.x, place.z, _sample_points(parts, entity))
                )
        for k, door in enumerate(inst.doors):
            if door.room != 0:
                continue
            x, _, z = geo._local_to_world_door(inst.rooms[0], door, 0.0, 1.0, 0.0)
            if door.anchor is not None:
                x, z = door.anchor
            name = "exit" if door.leads_to is None else f"door:{k}"
            entity = geo.DOOR_BASE + k
            self.props.append(PropShape(name, entity, x, z, _sample_points(parts, entity)))
        if not self.props:
            raise ValueError(f"instance {inst.id}: its first room has no chain prop and no door")
        self._unblocked: dict[tuple[float, float], list[list[bool]]] = {}

    def distances(self, x: float, z: float) -> tuple[float, float]:
        """(metres to the exit door, mean metres to every prop) from (x, z)."""
        dists = [math.hypot(p.x - x, p.z - z) for p in self.props]
        exits = [d for p, d in zip(self.props, dists, strict=True) if p.name == "exit"]
        exit_d = (
            exits[0] if exits else min(d for p, d in zip(self.props, dists, strict=True) if p.name != "exit")
        )
        return exit_d, sum(dists) / len(dists)

    def unblocked(self, x: float, z: float) -> list[list[bool]]:
        """Per prop, per sample point: whether a ray from the eye at (x, z) reaches it first."""
        key = (x, z)
        got = self._unblocked.get(key)
        if got is None:
            eye = np.array((x, geo.EYE_H, z))
            got = []
            for p in self.props:
                row = []
                for point in p.points:
                    v = np.subtract(point, eye)
                    norm = float(np.linalg.norm(v))
                    row.append(norm < 1e-9 or self.caster.cast(eye, v / norm)[0] == p.entity)
                got.append(row)
            self._unblocked[key] = got
        return got

    def blocked(self, x: float, z: float) -> float:
        """Mean over the props of the share of their points behind something else."""
        rows = self.unblocked(x, z)
        return sum(1.0 - sum(r) / len(r) for r in rows) / len(rows)

    def hidden(
        self, x: float, z: float, yaw: float, pitch: float = 0.0, view: geo.ViewSpec = PAPER_VIEW
    ) -> float:
        """Mean over the props of the share of their points the start view does not show."""
        rows = self.unblocked(x, z)
        eye = (x, geo.EYE_H, z)
        shares = []
        for p, row in zip(self.props, rows, strict=True):
            seen = sum(
                1
                for point, ok in zip(p.points, row, strict=True)
                if ok and geo.in_view(yaw, pitch, view, eye, point)
            )
            shares.append(1.0 - seen / len(row))
        return sum(shares) / len(shares)

    def record(
        self, x: float, z: float, yaw: float, pitch: float = 0.0, view: geo.ViewSpec = PAPER_VIEW
    ) -> dict[str, Any]:
        """The statistics (module docstring) of a start at (x, z) looking `yaw`, `pitch`."""
        exit_d, mean_d = self.distances(x, z)
        return {
            "chain_length": chain_length(self.inst.rooms[0].chain),
            "props": len(self.props),
            "dist_exit_m": round(exit_d, 3),
            "dist_props_m": round(mean_d, 3),
            "hidden": round(self.hidden(x, z, yaw, pitch, view), 3),
            "blocked": round(self.blocked(x, z), 3),
        }


def _sample_points(parts: list[geo.Part], entity: int) -> tuple[tuple[float, float, float], ...]:
    out = []
    for p in parts:
        if p.entity != entity:
            continue
        cx, cy, cz = p.center
        out.append((cx, cy, cz))
        # just under the top face: a ray to the face itself could graze the primitive's edge
        out.append((cx, cy + p.size[1] / 2 * 0.98, cz))
    return tuple(out)


def difficulty(inst: EscapeInstance, view: geo.ViewSpec = PAPER_VIEW) -> dict[str, Any]:
    """The instance's statistics (module docstring); `view` is the camera `hidden` is measured with."""
    s = inst.start
    return StartProbe(inst).record(s.x, s.z, s.yaw, s.pitch, view)
