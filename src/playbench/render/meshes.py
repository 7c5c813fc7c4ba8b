"""Unit meshes generated in numpy and the 4x4 transforms that place them (see `gl3d`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

RGB = tuple[int, int, int]
Vec3 = tuple[float, float, float]


# --- transforms ----------------------------------------------------------------------------


def translate(x: float, y: float, z: float) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def scale(sx: float, sy: float | None = None, sz: float | None = None) -> np.ndarray:
    sy = sx if sy is None else sy
    sz = sx if sz is None else sz
    return np.diag([sx, sy, sz, 1.0])


def _rotation(axis: int, degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m = np.eye(4)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


def rotate_x(degrees: float) -> np.ndarray:
    return _rotation(0, degrees)


def rotate_y(degrees: float) -> np.ndarray:
    return _rotation(1, degrees)


def rotate_z(degrees: float) -> np.ndarray:
    return _rotation(2, degrees)


def compose(*matrices: np.ndarray) -> np.ndarray:
    """The product m1 @ m2 @ …: the last matrix is applied to a point first."""
    out = np.eye(4)
    for m in matrices:
        out = out @ m
    return out


# --- meshes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mesh:
    """Non-indexed triangles: `positions` and `normals` are (3·n, 3) float32 arrays."""

    positions: np.ndarray
    normals: np.ndarray
    closed: bool = True  # closed meshes are drawn with back faces culled


def _tris(
    positions: Sequence[Sequence[float]], normals: Sequence[Sequence[float]]
) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(positions, dtype=np.float64).reshape(-1, 3, 3)
    n = np.asarray(normals, dtype=np.float64).reshape(-1, 3, 3)
    # Make every triangle counter-clockwise seen from the side its normals point to, so the
    # generators need not care about vertex order and back-face culling is always right.
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    flip = np.einsum("ij,ij->i", face, n.sum(axis=1)) < 0
    p[flip] = p[flip][:, ::-1]
    n[flip] = n[flip][:, ::-1]
    return p.reshape(-1, 3), n.reshape(-1, 3)


def _flat_polygon(ring: np.ndarray, normal: Sequence[float]) -> tuple[list[Any], list[Any]]:
    # Fan triangulation of a convex polygon with one normal.
    pos, nor = [], []
    for k in range(1, len(ring) - 1):
        pos += [ring[0], ring[k], ring[k + 1]]
        nor += [normal] * 3
    return pos, nor


def _mesh(pos: list[Any], nor: list[Any], closed: bool = True) -> Mesh:
    p, n = _tris(pos, nor)
    n = n / np.linalg.norm(n, axis=1, keepdims=True)
    return Mesh(p.astype(np.float32), n.astype(np.float32), closed)


def box_mesh() -> Mesh:
    pos: list[Any] = []
    nor: list[Any] = []
    h = 0.5
    for axis in range(3):
        for sign in (-1.0, 1.0):
            # the four corners of the face perpendicular to `axis` on side `sign`, in ring order
            u, v = [a for a in range(3) if a != axis]
            ring = []
            for du, dv in ((-h, -h), (h, -h), (h, h), (-h, h)):
                c = [0.0, 0.0, 0.0]
                c[axis], c[u], c[v] = sign * h, du, dv
                ring.append(c)
            normal = [0.0, 0.0, 0.0]
            normal[axis] = sign
            p, n = _flat_polygon(np.asarray(ring), normal)
            pos += p
            nor += n
    return _mesh(pos, nor)


def sphere_mesh(slices: int = 32, stacks: int = 16) -> Mesh:
    theta = np.linspace(0.0, math.pi, stacks + 1)  # from the top
    phi = np.linspace(0.0, 2 * math.pi, slices + 1)
    unit = np.stack(
        [
            np.sin(theta)[:, None] * np.cos(phi)[None, :],
            np.cos(theta)[:, None] * np.ones_like(phi)[None, :],
            np.sin(theta)[:, None] * np.sin(phi)[None, :],
        ],
        axis=-1,
    )
    pos: list[Any] = []
    nor: list[Any] = []
    for i in range(stacks):
        for j in range(slices):
            a, b, c, d = unit[i, j], unit[i + 1, j], unit[i + 1, j + 1], unit[i, j + 1]
            quads = [(a, b, c), (a, c, d)]
            if i == 0:
                quads = [(a, b, c)]  # a and d coincide at the pole
            elif i == stacks - 1:
                quads = [(a, b, d)]  # b and c coincide at the pole
            for tri in quads:
                pos += [0.5 * q for q in tri]
                nor += list(tri)
    return _mesh(pos, nor)


def _ring(segments: int, radius: float, y: float) -> np.ndarray:
    a = np.linspace(0.0, 2 * math.pi, segments + 1)[:-1]
    return np.stack([radius * np.cos(a), np.full_like(a, y), radius * np.sin(a)], axis=-1)


def cylinder_mesh(segments: int = 32) -> Mesh:
    bottom, top = _ring(segments, 0.5, -0.5), _ring(segments, 0.5, 0.5)
    radial = bottom * np.array([2.0, 0.0, 2.0])
    pos: list[Any] = []
    nor: list[Any] = []
    for k in range(segments):
        m = (k + 1) % segments
        pos += [bottom[k], bottom[m], top[m], bottom[k], top[m], top[k]]
        nor += [radial[k], radial[m], radial[m], radial[k], radial[m], radial[k]]
    for ring, ny in ((top, 1.0), (bottom, -1.0)):
        p, n = _flat_polygon(ring, [0.0, ny, 0.0])
        pos += p
        nor += n
    return _mesh(pos, nor)


def cone_mesh(segments: int = 32) -> Mesh:
    bottom = _ring(segments, 0.5, -0.5)
    apex = np.array([0.0, 0.5, 0.0])
    # side normal of a cone with radius 0.5 and height 1: (cos, r/h, sin) before normalising
    a = np.linspace(0.0, 2 * math.pi, 2 * segments + 1)
    slope = np.stack([np.cos(a), np.full_like(a, 0.5), np.sin(a)], axis=-1)
    pos: list[Any] = []
    nor: list[Any] = []
    for k in range(segments):
        m = (k + 1) % segments
        # the apex takes the normal of the middle of its face so the tip is not smeared
        pos += [bottom[k], bottom[m], apex]
        nor += [slope[2 * k], slope[2 * k + 2], slope[2 * k + 1]]
    p, n = _flat_polygon(bottom, [0.0, -1.0, 0.0])
    return _mesh(pos + p, nor + n)


def _faceted(vertices: np.ndarray, faces: Sequence[Sequence[int]]) -> Mesh:
    # A convex polyhedron from its vertices and faces; outward normals from the centroid.
    centre = vertices.mean(axis=0)
    pos: list[Any] = []
    nor: list[Any] = []
    for face in faces:
        ring = vertices[list(face)]
        n = np.cross(ring[1] - ring[0], ring[2] - ring[0])
        if np.dot(n, ring.mean(axis=0) - centre) < 0:
            n = -n
        p, q = _flat_polygon(ring, n)
        pos += p
        nor += q
    return _mesh(pos, nor)


def pyramid_mesh() -> Mesh:
    v = np.array(
        [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5], [0.0, 0.5, 0.0]]
    )
    return _faceted(v, [(0, 1, 2, 3), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)])


def prism_mesh() -> Mesh:
    """A triangular prism lying along x: triangle cross-section in the y-z plane, ridge on top."""
    tri = [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.0)]  # (y, z)
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y, z in tri])
    return _faceted(v, [(0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)])


def plane_mesh() -> Mesh:
    """A unit square in the x-z plane at y = 0, facing up (+y)."""
    ring = np.array([[-0.5, 0.0, -0.5], [0.5, 0.0, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.0, 0.5]])
    pos, nor = _flat_polygon(ring, [0.0, 1.0, 0.0])
    return _mesh(pos, nor, closed=False)


_MESH_BUILDERS: dict[str, Callable[[], Mesh]] = {
    "cube": box_mesh,
    "box": box_mesh,
    "sphere": sphere_mesh,
    "pyramid": pyramid_mesh,
    "cylinder": cylinder_mesh,
    "cone": cone_mesh,
    "prism": prism_mesh,
    "plane": plane_mesh,
}
SHAPES: tuple[str, ...] = tuple(_MESH_BUILDERS)
_meshes: dict[str, Mesh] = {}


def register_mesh(name: str, mesh: Mesh) -> None:
    """Make a custom mesh available to `Scene.add_mesh` under `name` (e.g. a suite's furniture)."""
    _meshes[name] = mesh
    from playbench.render.gl_draw import forget_mesh  # here: the GL side imports this module

    forget_mesh(name)


def get_mesh(name: str) -> Mesh:
    mesh = _meshes.get(name)
    if mesh is None:
        builder = _MESH_BUILDERS.get(name)
        if builder is None:
            raise ValueError(
                f"unknown mesh {name!r}; known: {', '.join(sorted(set(_MESH_BUILDERS) | set(_meshes)))}"
            )
        mesh = _meshes[name] = builder()
    return mesh


def ground_quad(center: Vec3, width: float, depth: float, rotation_y: float = 0.0) -> np.ndarray:
    """Transform for a quad lying on the ground at `center`, `width` along x and `depth` along z:
    translate @ rotate_y @ scale, written out because scenes place many of them per frame."""
    c, s = math.cos(math.radians(rotation_y)), math.sin(math.radians(rotation_y))
    return np.array(
        [
            [c * width, 0.0, s * depth, center[0]],
            [0.0, 1.0, 0.0, center[1]],
            [-s * width, 0.0, c * depth, center[2]],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )
