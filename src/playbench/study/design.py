"""The assignment of a study: which instances each participant plays, and in which order.

Balance: the (task, instance) units are listed round-robin over the tasks (instance 0 of every task,
then instance 1 of every task, ...), and participant p takes the K units that start at position p*K,
wrapping around the list (a cyclic block design). With P participants and P*K = r*U (U units), every
unit is taken by exactly r people, a participant never gets the same unit twice (K <= U), and each
participant's K units spread over the tasks as evenly as K allows. When P*K is not a multiple of U the
design cannot be balanced, and `assign` refuses, naming the nearest numbers that work.

Order: a participant plays their K units in the order of row p of a Williams design (a balanced Latin
square; for odd K the 2K rows of a square and its mirror): over K (or 2K) consecutive participants every
block position is played at every serial position equally often, and every position follows every
other equally often (first-order carry-over balance), so practice and fatigue effects spread over the
units and tasks instead of piling up on the first or last ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from playbench.core.errors import ConfigError


@dataclass(frozen=True)
class Unit:
    task: str
    instance_id: str


@dataclass(frozen=True)
class Slot:
    """One episode a participant is to play: the unit, its trial in the run (0 .. r-1, distinct for
    the r people who play the unit) and the place in the participant's order (0 .. K-1)."""

    task: str
    instance_id: str
    trial: int
    position: int


def interleave(instances: dict[str, list[str]]) -> list[Unit]:
    """The units round-robin over the tasks, in the tasks' order."""
    longest = max((len(ids) for ids in instances.values()), default=0)
    return [Unit(task, ids[i]) for i in range(longest) for task, ids in instances.items() if i < len(ids)]


def williams_row(n: int, row: int) -> list[int]:
    """Row `row` of a Williams design for n treatments (rows repeat every n for even n, 2n for odd n)."""
    if n <= 0:
        return []
    first, low, high = [0], 1, n - 1
    for j in range(1, n):
        if j % 2:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    period = n if n % 2 == 0 else 2 * n
    r = row % period
    out = [(x + r) % n for x in first]
    return out if r < n else list(reversed([(x + r - n) % n for x in first]))


def _nearest(units: int, per_participant: int, participants: int) -> str:
    step_p = units // math.gcd(units, per_participant)
    valid_p = sorted(
        {max(step_p, participants // step_p * step_p), math.ceil(participants / step_p) * step_p}
    )
    ks = [k for k in range(1, units + 1) if (participants * k) % units == 0]
    options = [
        f"--participants {', '.join(str(p) for p in valid_p)} with --per-participant {per_participant}"
    ]
    if ks:
        options.append(
            f"--per-participant {' or '.join(str(k) for k in ks[:4])} with --participants {participants}"
        )
    return "; or ".join(options)


def assign(instances: dict[str, list[str]], per_participant: int, participants: int) -> list[list[Slot]]:
    """Every participant's slots in playing order (see the module docstring); ConfigError when the
    numbers cannot give a balanced design."""
    units = interleave(instances)
    n_units = len(units)
    if participants < 1:
        raise ConfigError(f"--participants must be at least 1 (got {participants})")
    if per_participant < 1:
        raise ConfigError(f"--per-participant must be at least 1 (got {per_participant})")
    if per_participant > n_units:
        raise ConfigError(
            f"--per-participant {per_participant} is more than the study's {n_units} instances "
            "(nobody plays an instance twice)"
        )
    if (participants * per_participant) % n_units:
        raise ConfigError(
            f"--participants {participants} x --per-participant {per_participant} = "
            f"{participants * per_participant} episodes cannot cover the {n_units} instances equally often "
            f"(it must be a multiple of {n_units}): use {_nearest(n_units, per_participant, participants)}"
        )
    plays: dict[Unit, int] = {}
    out = []
    for p in range(participants):
        block = [units[(p * per_participant + k) % n_units] for k in range(per_participant)]
        slots = []
        for position, index in enumerate(williams_row(per_participant, p)):
            unit = block[index]
            trial = plays.get(unit, 0)
            plays[unit] = trial + 1
            slots.append(Slot(unit.task, unit.instance_id, trial, position))
        out.append(slots)
    return out


def pseudonyms(participants: int) -> list[str]:
    """p01, p02, ... (as many digits as the count needs, at least two)."""
    width = max(2, len(str(participants)))
    return [f"p{i:0{width}d}" for i in range(1, participants + 1)]
