"""Fresh twins of the paper's scenes (`--set dataset=twin` on the `mmescape/paper*` tasks).

One twin per paper scene, in the paper set's order, with the id `twin_id(paper id, seed)`: a room of
the suite's own generator (`layout.draft`: a new room size, scene type, furniture, clutter and prop
places) holding the paper level's chain (playbench's copy of it, `levels/*.json`, with fresh
passwords and a story from playbench's pool where the paper's chain has one), whose statistics
(`difficulty.py`) fall in the paper scene's bins:

- `chain_length`, `props`: equal (the same chain);
- `dist_exit_m`, `dist_props_m`: the same whole metre (floor);
- `hidden`, `blocked`: the same quarter (`quarter`: the share times 4, rounded half up).

The search: for attempt 0, 1, ... a room is drawn from `derive_seed("mmescape-twin", paper id, seed,
attempt)`; its free start spots (at least 0.7 m from anything, as the generator's) are tried in a
shuffled order, first on the position-only statistics (distances, then `blocked`), then on headings
every 15 degrees (shuffled) for `hidden`; the first start that matches and that the oracle escapes
within the level's cap is the twin. Nothing here reads the clock or a `hash()`: the same seed gives
the same twins everywhere.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from playbench.core.task import derive_seed
from playbench.core.twins import twin_id
from playbench.tasks.mmescape import geometry as geo
from playbench.tasks.mmescape.chain import builtin_chain, realise, stories
from playbench.tasks.mmescape.difficulty import PAPER_VIEW, StartProbe
from playbench.tasks.mmescape.layout import draft, exit_visible, free_spots
from playbench.tasks.mmescape.schema import EscapeInstance, Pose

# the generator's level of each paper level (the same chain)
GENERATOR_LEVEL: dict[str, str] = {
    "paper-level-1": "level-1",
    "paper-level-2": "level-2",
    "paper-level-3-note-key": "level-3-note-key",
    "paper-level-3-key-note": "level-3-key-note",
    "paper-level-3.5": "level-3-key-note",
}
MAX_ROOMS = 200  # rooms tried per twin before giving up (measured: a few at most)
HEADINGS = tuple(range(0, 360, 15))

Solver = Callable[[EscapeInstance], tuple[int, float] | None]


def bins(record: dict[str, Any]) -> tuple[int, ...]:
    """The bins a twin must share with its paper scene (module docstring)."""
    return (
        int(record["chain_length"]),
        int(record["props"]),
        int(record["dist_exit_m"]),
        int(record["dist_props_m"]),
        quarter(record["hidden"]),
        quarter(record["blocked"]),
    )


def quarter(share: float) -> int:
    """The quarter a share 0-1 falls in, rounded half up: 0 is [0, 0.125), 1 is [0.125, 0.375), ...
    4 is [0.875, 1] (half up rather than Python's half-to-even, so the bins are equal)."""
    return math.floor(share * 4 + 0.5)


def _twin_chain(level: str, paper: EscapeInstance, rng: random.Random) -> Any:
    chain = realise(builtin_chain(level), rng)
    if chain.story is None and paper.rooms[0].chain.story:
        # the paper's chains all carry a story (the debriefing asks for it): so does the twin's
        chain = chain.model_copy(update={"story": rng.choice(stories())})
    return chain


def _search(
    probe: StartProbe, target: tuple[int, ...], spots: list[tuple[float, float]], rng: random.Random
) -> list[Pose]:
    """Every start (in the search's order) whose statistics fall in `target`'s bins."""
    out = []
    for x, z in spots:
        exit_d, mean_d = probe.distances(x, z)
        if (int(exit_d), int(mean_d)) != target[2:4]:
            continue
        if quarter(probe.blocked(x, z)) != target[5]:
            continue
        headings = list(HEADINGS)
        rng.shuffle(headings)
        for yaw in headings:
            if quarter(probe.hidden(x, z, float(yaw))) == target[4]:
                out.append(Pose(x=round(x, 3), z=round(z, 3), yaw=float(yaw), pitch=0.0))
                break
        if len(out) >= 3:  # enough to try with the oracle
            break
    return out


def make_twin(
    paper: EscapeInstance,
    paper_record: dict[str, Any],
    seed: int,
    solve: Solver,
    view: geo.ViewSpec,
) -> EscapeInstance:
    """The twin of one paper instance (module docstring); `solve` is the task's oracle (steps and
    metres, or None), `view` the task's camera (for `exit_visible_at_start`)."""
    level = GENERATOR_LEVEL.get(paper.level)
    if level is None:
        known = ", ".join(GENERATOR_LEVEL)
        raise ValueError(f"no twin for level {paper.level!r} (of {paper.id}); twins exist for {known}")
    target = bins(paper_record)
    ident = twin_id(paper.id, seed)
    for attempt in range(MAX_ROOMS):
        rng = random.Random(derive_seed("mmescape-twin", paper.id, seed, attempt))
        chain = _twin_chain(level, paper, rng)
        room = draft(ident, paper.level, [chain], rng, paper.max_steps, None)
        if room is None:
            continue
        probe = StartProbe(room)
        if (len(probe.props), int(paper_record["chain_length"])) != (target[1], target[0]):
            raise ValueError(f"the generator's {level} chain does not have the paper's props ({paper.id})")
        spots = free_spots(geo.build_world(room), room.rooms[0])
        rng.shuffle(spots)
        for start in _search(probe, target, spots, rng):
            inst = room.model_copy(update={"start": start})
            solved = solve(inst)
            if solved is None or solved[0] > inst.max_steps:
                continue
            return inst.model_copy(
                update={
                    "optimal_steps": solved[0],
                    "optimal_distance": round(solved[1], 4),
                    "exit_visible_at_start": exit_visible(inst, view),
                }
            )
    raise ValueError(f"no twin of {paper.id} in {MAX_ROOMS} generated rooms (bins {target})")


def paper_record(paper: EscapeInstance) -> dict[str, Any]:
    """The paper instance's statistics, measured with the original's camera."""
    s = paper.start
    return StartProbe(paper).record(s.x, s.z, s.yaw, s.pitch, PAPER_VIEW)
