"""How a scene is seen: the perspective camera, framing points, and a scene's own lighting (see `gl3d`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from playbench.render.meshes import Vec3

# --- camera --------------------------------------------------------------------------------


def _normalized(v: Sequence[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    return a / np.linalg.norm(a)


@dataclass(frozen=True)
class Camera:
    """A perspective camera at `eye` looking at `target`; `fov_y` is the vertical angle in degrees."""

    eye: Vec3
    target: Vec3
    up: Vec3 = (0.0, 1.0, 0.0)
    fov_y: float = 35.0
    near: float = 0.1
    far: float = 100.0

    def view(self) -> np.ndarray:
        f = _normalized(np.subtract(self.target, self.eye))
        s = _normalized(np.cross(f, self.up))
        u = np.cross(s, f)
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = s, u, -f
        m[:3, 3] = -m[:3, :3] @ np.asarray(self.eye, dtype=np.float64)
        return m

    def projection(self, aspect: float) -> np.ndarray:
        t = 1.0 / math.tan(math.radians(self.fov_y) / 2)
        n, f = self.near, self.far
        m = np.zeros((4, 4))
        m[0, 0], m[1, 1] = t / aspect, t
        m[2, 2], m[2, 3] = (f + n) / (n - f), 2 * f * n / (n - f)
        m[3, 2] = -1.0
        return m

    def view_projection(self, aspect: float) -> np.ndarray:
        return self.projection(aspect) @ self.view()

    def project(self, points: Iterable[Sequence[float]], width: int, height: int) -> np.ndarray:
        """Pixel coordinates (x right, y down, pixel centres at .5) of world points, shape (n, 2)."""
        p = np.asarray(list(points), dtype=np.float64).reshape(-1, 3)
        clip = np.c_[p, np.ones(len(p))] @ self.view_projection(width / height).T
        ndc = clip[:, :2] / clip[:, 3:4]
        return np.c_[(ndc[:, 0] + 1) * width / 2, (1 - ndc[:, 1]) * height / 2]


def orbit_direction(yaw: float, pitch: float) -> np.ndarray:
    """Unit vector from the target to the eye: pitch is the elevation above the ground (degrees),
    yaw turns the camera around the vertical axis (0 = looking along -z)."""
    p, y = math.radians(pitch), math.radians(yaw)
    return np.array([math.cos(p) * math.sin(y), math.sin(p), math.cos(p) * math.cos(y)])


def fit_camera(
    points: Iterable[Sequence[float]],
    *,
    pitch: float = 55.0,
    yaw: float = 0.0,
    fov_y: float = 30.0,
    aspect: float = 1.0,
    fill: float = 0.92,
) -> Camera:
    """A camera looking from direction (`yaw`, `pitch`) that frames all `points` centred in the view,
    with the larger extent covering `fill` of the image."""
    pts = np.asarray(list(points), dtype=np.float64).reshape(-1, 3)
    direction = orbit_direction(yaw, pitch)
    target = pts.mean(axis=0)
    radius = float(np.max(np.linalg.norm(pts - target, axis=1))) or 1.0
    distance = radius / math.sin(math.radians(fov_y) / 2)
    cam = Camera(tuple(target + distance * direction), tuple(target), fov_y=fov_y)
    for _ in range(4):
        # Re-centre on the projected bounding box and rescale the distance; converges in a few rounds.
        xy = cam.project(pts, 1000, round(1000 / aspect)) / np.array([1000, 1000 / aspect]) * 2 - 1
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        centre = (lo + hi) / 2
        extent = float(np.max(hi - lo)) / 2
        right = np.cross(-direction, (0.0, 1.0, 0.0))
        right = right / np.linalg.norm(right)
        upv = np.cross(right, -direction)
        half_h = distance * math.tan(math.radians(fov_y) / 2)
        target = target + right * centre[0] * half_h * aspect - upv * centre[1] * half_h
        distance *= extent / fill
        cam = Camera(tuple(target + distance * direction), tuple(target), fov_y=fov_y)
    near = max(0.01, distance - 2 * radius)
    return Camera(cam.eye, cam.target, fov_y=fov_y, near=near, far=distance + 2 * radius)


# --- lighting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lighting:
    """A scene's own lighting, for suites that imitate a particular look (`Scene.lighting`).

    Scenes without one keep the default look (two fixed lights, see `_LIGHTING`). This one is a
    single directional key light with Lambert shading and a Blinn-Phong highlight plus a flat
    ambient term, computed in linear light per vertex and converted to sRGB. Textured quads that
    are `lit` get the diffuse part only.

    `key` is the direction towards the light. With `shadow` set, every closed mesh of the scene
    casts a hard shadow along the key light onto the ground plane y = `ground`, inside
    `shadow_area` = (x0, z0, x1, z1) (e.g. a board: nothing beyond it receives shadows): the
    shadowed pixels of the ground are multiplied by `shadow`. Only the ground receives shadows,
    not other meshes. Shadows are drawn after the scene's meshes, which hide them where they
    stand in front, and before its quads, which so stay unshadowed (decals such as labels stay
    readable, as Unity's text does); the backdrop, drawn before, is shadowed. `ground` should sit
    a hair above the ground's own surface so that the shadows win its depth test. The meshes of
    a backdrop cast shadows into the cached backdrop when the backdrop scene has a shadowing
    `Lighting` of its own.
    """

    key: Vec3 = (0.0, 1.0, 0.0)
    key_strength: float = 1.0
    ambient: float = 0.3
    specular: float = 0.0
    shininess: float = 32.0
    shadow: float | None = None
    ground: float = 0.0
    shadow_area: tuple[float, float, float, float] = (-1e4, -1e4, 1e4, 1e4)

    def shading(self) -> tuple[Vec3, float, float, float, float]:
        """What the shader programs depend on (shadows are drawn by programs of their own)."""
        return (tuple(self.key), self.key_strength, self.ambient, self.specular, self.shininess)

    def shadow_matrix(self) -> np.ndarray:
        """The 4x4 projection of world points along the key light onto the plane y = `ground`."""
        d = -_normalized(self.key)  # the light's travel direction
        if d[1] > -1e-3:
            raise ValueError(f"a shadowing key light must shine downwards, got key={self.key}")
        sx, sz, h = d[0] / d[1], d[2] / d[1], self.ground
        return np.array(
            [[1.0, -sx, 0.0, sx * h], [0.0, 0.0, 0.0, h], [0.0, -sz, 1.0, sz * h], [0.0, 0.0, 0.0, 1.0]]
        )
