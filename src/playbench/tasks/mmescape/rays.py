"""The camera and its rays: the first-person view's settings, the directions through its
pixels, and the exact first hit of a ray among the world's parts.

Holds `ViewSpec` (image size, field of view, supersampling) with the camera's constants,
`RayCaster` (boxes, turned boxes, vertical cylinders and spheres, hit exactly, which is what the grab
ray and the object-id image agree on), the device coordinates of the centre sample (`centre_ndc`),
view and pixel directions and the in-view test. It is separate because it concerns seeing and
grabbing only: it reads the world's `Part`s (`shapes.py`) and nothing of how the world is built.
`geometry.py` re-exports its public names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from playbench.tasks.mmescape.shapes import Part

FOV_Y = 60.0  # vertical field of view of playbench's square first-person view, degrees
SUPERSAMPLE = 2  # the view is drawn at 2x and reduced; the id image samples one subpixel per pixel
# Above this many pixels a frame is drawn without supersampling (the original's 2048 x 1024 view
# would otherwise be drawn at 4096 x 2048 on a CPU rasteriser).
SUPERSAMPLE_MAX_PIXELS = 1024 * 1024
PITCH_LIMIT = 89.0


@dataclass(frozen=True)
class ViewSpec:
    """The first-person camera: image size in pixels and vertical field of view in degrees."""

    width: int = 512
    height: int = 512
    fov_y: float = FOV_Y

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def supersample(self) -> int:
        return SUPERSAMPLE if self.width * self.height <= SUPERSAMPLE_MAX_PIXELS else 1


SQUARE_512 = ViewSpec()


# --- rays ------------------------------------------------------------------------------------


class RayCaster:
    """Exact first hits of rays against boxes, vertical cylinders and spheres."""

    def __init__(self, parts: list[Part]) -> None:
        boxes = [p for p in parts if p.shape == "box" and not p.yaw]
        turned = [p for p in parts if p.shape == "box" and p.yaw]
        self.obb_c = np.array([p.center for p in turned], dtype=np.float64).reshape(-1, 3)
        self.obb_h = np.array([[s / 2 for s in p.size] for p in turned], dtype=np.float64).reshape(-1, 3)
        rad = np.radians([p.yaw for p in turned])
        self.obb_cos, self.obb_sin = np.cos(rad), np.sin(rad)
        self.obb_ids = np.array([p.entity for p in turned], dtype=np.int64)
        cyls = [p for p in parts if p.shape == "cylinder"]
        sphs = [p for p in parts if p.shape == "sphere"]
        self.box_lo = np.array(
            [[c - s / 2 for c, s in zip(p.center, p.size, strict=True)] for p in boxes]
        ).reshape(-1, 3)
        self.box_hi = np.array(
            [[c + s / 2 for c, s in zip(p.center, p.size, strict=True)] for p in boxes]
        ).reshape(-1, 3)
        self.box_ids = np.array([p.entity for p in boxes], dtype=np.int64)
        self.cyl = np.array(
            [
                [
                    p.center[0],
                    p.center[2],
                    p.size[0] / 2,
                    p.center[1] - p.size[1] / 2,
                    p.center[1] + p.size[1] / 2,
                ]
                for p in cyls
            ]
        ).reshape(-1, 5)
        self.cyl_ids = np.array([p.entity for p in cyls], dtype=np.int64)
        self.sph = np.array([[*p.center, p.size[0] / 2] for p in sphs]).reshape(-1, 4)
        self.sph_ids = np.array([p.entity for p in sphs], dtype=np.int64)

    def cast(self, origin: np.ndarray, direction: np.ndarray) -> tuple[int, float]:
        """(entity id, distance along the unit `direction`) of the first hit, or (0, inf)."""
        best_t, best_id = math.inf, 0
        o = np.asarray(origin, dtype=np.float64)
        d = np.asarray(direction, dtype=np.float64)
        if len(self.box_ids):
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / np.where(np.abs(d) < 1e-12, 1e-12, d)
                t0 = (self.box_lo - o) * inv
                t1 = (self.box_hi - o) * inv
            tmin = np.minimum(t0, t1).max(axis=1)
            tmax = np.maximum(t0, t1).min(axis=1)
            ok = (tmax >= np.maximum(tmin, 0.0)) & (tmax > 1e-9)
            if ok.any():
                tt = np.where(tmin > 0, tmin, 0.0)
                tt = np.where(ok, tt, np.inf)
                k = int(np.argmin(tt))
                if tt[k] < best_t:
                    best_t, best_id = float(tt[k]), int(self.box_ids[k])
        if len(self.obb_ids):
            # each turned box in its own frame (turned back by its yaw about its centre)
            rel = o - self.obb_c
            c, s = self.obb_cos, self.obb_sin
            lo_ = np.stack([rel[:, 0] * c - rel[:, 2] * s, rel[:, 1], rel[:, 0] * s + rel[:, 2] * c], axis=1)
            ld = np.stack([d[0] * c - d[2] * s, np.full_like(c, d[1]), d[0] * s + d[2] * c], axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / np.where(np.abs(ld) < 1e-12, 1e-12, ld)
                t0 = (-self.obb_h - lo_) * inv
                t1 = (self.obb_h - lo_) * inv
            tmin = np.minimum(t0, t1).max(axis=1)
            tmax = np.maximum(t0, t1).min(axis=1)
            ok = (tmax >= np.maximum(tmin, 0.0)) & (tmax > 1e-9)
            if ok.any():
                tt = np.where(ok, np.where(tmin > 0, tmin, 0.0), np.inf)
                k = int(np.argmin(tt))
                if tt[k] < best_t:
                    best_t, best_id = float(tt[k]), int(self.obb_ids[k])
        for k in range(len(self.cyl_ids)):
            cx, cz, r, y0, y1 = self.cyl[k]
            t = _ray_cylinder(o, d, cx, cz, r, y0, y1)
            if t < best_t:
                best_t, best_id = t, int(self.cyl_ids[k])
        for k in range(len(self.sph_ids)):
            cx, cy, cz, r = self.sph[k]
            t = _ray_sphere(o, d, np.array([cx, cy, cz]), r)
            if t < best_t:
                best_t, best_id = t, int(self.sph_ids[k])
        return best_id, best_t


def _ray_sphere(o: np.ndarray, d: np.ndarray, c: np.ndarray, r: float) -> float:
    oc = o - c
    b = float(np.dot(oc, d))
    cc = float(np.dot(oc, oc)) - r * r
    disc = b * b - cc
    if disc < 0:
        return math.inf
    s = math.sqrt(disc)
    for t in (-b - s, -b + s):
        if t > 1e-9:
            return t
    return math.inf


def _ray_cylinder(
    o: np.ndarray, d: np.ndarray, cx: float, cz: float, r: float, y0: float, y1: float
) -> float:
    best = math.inf
    ox, oy, oz = float(o[0]) - cx, float(o[1]), float(o[2]) - cz
    dx, dy, dz = float(d[0]), float(d[1]), float(d[2])
    a = dx * dx + dz * dz
    if a > 1e-12:
        b = ox * dx + oz * dz
        c = ox * ox + oz * oz - r * r
        disc = b * b - a * c
        if disc >= 0:
            s = math.sqrt(disc)
            for t in ((-b - s) / a, (-b + s) / a):
                if t > 1e-9 and y0 <= oy + t * dy <= y1:
                    best = min(best, t)
                    break
    if abs(dy) > 1e-12:
        for y in (y0, y1):
            t = (y - oy) / dy
            if t > 1e-9:
                px, pz = ox + t * dx, oz + t * dz
                if px * px + pz * pz <= r * r:
                    best = min(best, t)
    return best


def centre_ndc(size: int | ViewSpec, supersample: int | None = None) -> tuple[float, float]:
    """Device coordinates of the sample the object-id image keeps for the centre pixel
    (width // 2, height // 2) of a view: the grab ray goes exactly through it. `size` is a square
    view's side (playbench's) or a ViewSpec."""
    view = size if isinstance(size, ViewSpec) else ViewSpec(size, size)
    ss = view.supersample if supersample is None else supersample

    def ndc(n: int) -> float:
        return 2 * (ss * (n // 2) + ss // 2 + 0.5) / (n * ss) - 1

    return ndc(view.width), -ndc(view.height)


def view_direction(yaw: float, pitch: float) -> np.ndarray:
    """Unit view vector for yaw (0 = -z, positive to the right) and pitch (positive down)."""
    y, p = math.radians(yaw), math.radians(pitch)
    return np.array([math.sin(y) * math.cos(p), -math.sin(p), -math.cos(y) * math.cos(p)])


def pixel_direction(
    yaw: float, pitch: float, fov_y: float, ndc_x: float, ndc_y: float, aspect: float = 1.0
) -> np.ndarray:
    """Unit direction through normalised device coordinates (x right, y up, -1..1) of a view with
    vertical field of view `fov_y` and width/height `aspect`."""
    f = view_direction(yaw, pitch)
    s = np.cross(f, (0.0, 1.0, 0.0))
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    t = math.tan(math.radians(fov_y) / 2)
    v = f + ndc_x * t * aspect * s + ndc_y * t * u
    return v / np.linalg.norm(v)


def in_view(
    yaw: float,
    pitch: float,
    view: ViewSpec,
    eye: tuple[float, float, float],
    point: tuple[float, float, float],
) -> bool:
    """Whether `point` projects inside the image of a view from `eye` (in front of the camera, within
    both fields of view; nothing in between is considered)."""
    f = view_direction(yaw, pitch)
    s = np.cross(f, (0.0, 1.0, 0.0))
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    v = np.subtract(point, eye)
    depth = float(np.dot(v, f))
    if depth <= 1e-9:
        return False
    t = math.tan(math.radians(view.fov_y) / 2)
    return abs(float(np.dot(v, s)) / depth) <= t * view.aspect and abs(float(np.dot(v, u)) / depth) <= t
