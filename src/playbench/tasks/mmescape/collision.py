"""The collision test of a move: how far a disc (the player) can go along a direction among the
world's footprints, and which one stops it.

Holds `sweep`, which walks a disc through `Obstacle`s (turned footprints in their own frame), lets a
jump pass over anything lower than `JUMP_CLEAR` without landing in it, and never traps the disc in
an obstacle it already overlaps. It is separate because walking is a concern of its own: it reads
only footprints (`shapes.py`), never the parts that are drawn or hit by rays.
`geometry.py` re-exports its public names.
"""

from __future__ import annotations

import math

from playbench.tasks.mmescape.shapes import JUMP_CLEAR, Obstacle, rotate_xz

# --- moving ----------------------------------------------------------------------------------


def sweep(
    obstacles: list[Obstacle],
    x: float,
    z: float,
    dx: float,
    dz: float,
    dist: float,
    radius: float,
    jump: bool,
) -> tuple[float, Obstacle | None]:
    """How far (<= dist) a disc of `radius` at (x, z) can move along the unit (dx, dz), and what
    stops it. With `jump`, obstacles lower than JUMP_CLEAR are passed over but never landed in.
    Obstacles the disc already overlaps are ignored, so it can always move out of them."""
    if dist <= 0:
        return 0.0, None
    hits: list[tuple[float, float, Obstacle]] = []
    for ob in obstacles:
        px, pz, ddx, ddz = x, z, dx, dz
        if ob.yaw:  # a turned footprint: the move in the footprint's own frame
            px, pz = ob.to_local(x, z)
            ddx, ddz = rotate_xz(dx, dz, -ob.yaw)
        x0, z0, x1, z1 = ob.x0 - radius, ob.z0 - radius, ob.x1 + radius, ob.z1 + radius
        if x0 < px < x1 and z0 < pz < z1:
            continue
        t_in, t_out = 0.0, math.inf
        ok = True
        for p, dp, lo, hi in ((px, ddx, x0, x1), (pz, ddz, z0, z1)):
            if abs(dp) < 1e-12:
                if not lo < p < hi:
                    ok = False
                    break
                continue
            a, b = (lo - p) / dp, (hi - p) / dp
            a, b = min(a, b), max(a, b)
            t_in, t_out = max(t_in, a), min(t_out, b)
        if ok and t_in < t_out and t_in < dist:
            hits.append((t_in, t_out, ob))
    limit, blocker = dist, None
    for t_in, _, ob in sorted(hits, key=lambda h: h[0]):
        if not jump or ob.height >= JUMP_CLEAR:
            if t_in < limit:
                limit, blocker = t_in, ob
            break
    if jump:
        # never land inside a low obstacle: back off to just before the one the landing is in
        changed = True
        while changed:
            changed = False
            for t_in, t_out, ob in hits:
                if t_in < limit < t_out:
                    limit, blocker, changed = t_in, ob, True
    return max(0.0, limit - 1e-3 if blocker is not None else limit), blocker
