"""A small headless 3D renderer on moderngl, shared by the suites that show 3D views.

What it offers:

- One OpenGL context per process, created on first use with EGL (Mesa's llvmpipe on a CPU, the
  GPU where there is one). It needs the system libraries `libegl1 libegl-mesa0 libgl1
  libgl1-mesa-dri` (Debian names); without them `GLUnavailable` says so. `gl_info()` creates it
  and tells which OpenGL is in use. All GL work runs in one thread owned by this module (`run_gl`),
  because a context is current in a single thread, so rendering may be called from any thread.
  **Forking after the context exists makes the child hang** on its first GL call: worker pools
  that render must use the `spawn` start method; a forked child that tries gets `GLUnavailable`.
- Unit meshes generated in numpy (`SHAPES`: cube, box, sphere, pyramid, cylinder, cone, prism,
  plane), each filling the cube [-0.5, 0.5]³ and resting on y = -0.5 (the plane lies at y = 0),
  placed with 4×4 transforms (`translate`, `scale`, `rotate_x/y/z`, `compose`, `ground_quad`);
  `register_mesh` adds others.
- `Scene`: meshes with a colour and an integer object id, textured quads (Pillow images) and text
  decals (`add_text`, drawn with Pillow into textures).
- `Camera`, `fit_camera`: a perspective camera; `fit_camera` frames points from a direction given
  as elevation (`pitch`) and heading (`yaw`), e.g. a board seen from the front-top.
- `Lighting` (opt-in, `Scene.lighting`): a scene's own key light with a highlight, and hard
  shadows its meshes cast onto a ground area (e.g. a board), for suites imitating a given look.
- `Scene.render` returns the RGB image and the object-id image drawn in the same pass (a second,
  int32 colour attachment): `object_at(ids, x, y)` tells which object is under a pixel
  (`BACKGROUND_ID` = 0 where there is none). `Scene.render_image` skips the ids and is faster.
- `encode_png`: fast deterministic PNG bytes of a frame.

World axes: y is up; with yaw 0 the camera looks along -z, so +x is to the right in the image
and +z towards the viewer. Row 0 of returned arrays is the top of the image.

Looking the same everywhere: shading is Lambert + ambient with fixed lights (or a scene's own
`Lighting`), computed per vertex; there is no MSAA, no anisotropic filtering, no time-dependent
state, and the same scene gives the same pixels and PNG bytes on one machine. Anti-aliasing is
supersampling: the frame is drawn at `supersample`× the size and reduced with Pillow's box filter
(`Image.reduce`), which is exact integer arithmetic and so independent of the driver.

Cost on a CPU (llvmpipe rasterises on the CPU): fragments dominate, and texture sampling costs much
more per pixel than flat colour. So: prefer flat-coloured meshes and keep textures for small
things like text; and add large background surfaces first, because meshes are drawn in reverse
order of addition so that hidden background pixels fail the depth test before being shaded.
"""

from __future__ import annotations

import hashlib
import math
import os
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np
from PIL import Image, ImageDraw

RGB = tuple[int, int, int]
Vec3 = tuple[float, float, float]
T = TypeVar("T")

BACKGROUND_ID = 0
SYSTEM_LIBRARIES = "libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri"
MAX_SUPERSAMPLED_SIDE = 4096  # above this the frame is drawn without supersampling
BACKDROP_CACHE = 12  # rendered backdrops kept (each ~8 MB at 512x456 with 2x supersampling)
TEXTURE_CACHE_BYTES = 128 << 20  # GPU textures kept for reuse across frames (least recently used go)


class GLUnavailable(RuntimeError):
    """No usable OpenGL context in this process (missing libraries, or a forked child)."""


# --- context -------------------------------------------------------------------------------
# An OpenGL context is current in one thread only, and GL calls made from another thread go
# nowhere without an error (reads then return stale pixels). So all GL work runs in one thread
# owned by this module; callers in any thread hand it their work and wait for the result.

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_gl_thread: int | None = None
_ctx: Any = None
_ctx_pid: int | None = None
_renderer: _Renderer | None = None


def _check_fork() -> None:
    if _ctx_pid is not None and _ctx_pid != os.getpid():
        # The parent's context is unusable here and calling into it would hang.
        raise GLUnavailable(
            "this process was forked after the OpenGL context was created; a forked child cannot "
            "render. Start worker processes with the 'spawn' method (multiprocessing, or "
            "concurrent.futures with mp_context=multiprocessing.get_context('spawn'))."
        )


def _mark_gl_thread() -> None:
    global _gl_thread
    _gl_thread = threading.get_ident()


def run_gl(fn: Callable[[], T]) -> T:
    """Run `fn()` in the GL thread and return its result (re-raising its exception).

    Everything that touches the context or GL objects must go through here; `Scene.render`
    and the other functions of this module already do.
    """
    global _executor
    _check_fork()
    if threading.get_ident() == _gl_thread:
        return fn()
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(1, thread_name_prefix="playbench-gl", initializer=_mark_gl_thread)
        executor = _executor
    return executor.submit(fn).result()


def get_context() -> Any:
    """The process's moderngl context, created headless (EGL) on first use.

    Only valid inside `run_gl`: use it from the GL thread alone.
    """
    global _ctx, _ctx_pid
    _check_fork()
    if threading.get_ident() != _gl_thread:
        raise RuntimeError("gl3d.get_context() must be called inside gl3d.run_gl(...)")
    if _ctx is None:
        try:
            import moderngl

            ctx = moderngl.create_standalone_context(backend="egl")
        except Exception as exc:  # ImportError, no libEGL, no EGL device: all mean the same here
            raise GLUnavailable(
                f"cannot create a headless OpenGL context (EGL): {exc}. 3D rendering needs the "
                f"system libraries {SYSTEM_LIBRARIES} (Debian/Ubuntu names, e.g. "
                f"`apt-get install {SYSTEM_LIBRARIES}`) and the Python package moderngl."
            ) from exc
        _ctx, _ctx_pid = ctx, os.getpid()
    return _ctx


def gl_info() -> dict[str, str]:
    """Vendor, renderer and version of the context, creating it if needed (e.g. to log which
    OpenGL drew a run, or to check that 3D rendering works here)."""

    def read() -> dict[str, str]:
        info = get_context().info
        return {k: str(info[k]) for k in ("GL_VENDOR", "GL_RENDERER", "GL_VERSION")}

    return run_gl(read)


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
    renderer = _renderer
    if renderer is not None:
        run_gl(lambda: renderer.forget_mesh(name))


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


# --- scene ---------------------------------------------------------------------------------


@dataclass
class _MeshItem:
    shape: str
    transform: np.ndarray
    color: RGB
    object_id: int


@dataclass
class _QuadItem:
    image: Image.Image
    key: Hashable
    transform: np.ndarray
    object_id: int
    lit: bool
    transparent: bool
    uv: tuple[float, float, float, float]


@dataclass
class Scene:
    """Things to draw, in world coordinates; build one per frame (adding is cheap)."""

    background: RGB = (255, 255, 255)
    meshes: list[_MeshItem] = field(default_factory=list)
    quads: list[_QuadItem] = field(default_factory=list)
    backdrop: Scene | None = None
    backdrop_key: Hashable = None
    lighting: Lighting | None = None  # None: the default two-light look

    def set_backdrop(self, backdrop: Scene, key: Hashable) -> None:
        """Draw `backdrop` (e.g. a board or a room) behind this scene's own items.

        Colour-only renders cache the backdrop's rendered colour and depth under (`key`, size,
        camera) and start each frame from a copy, so its cost is paid once; renders with ids
        draw it in full. The key must change whenever the backdrop's content does. The frame's
        background is the backdrop's.
        """
        self.backdrop, self.backdrop_key = backdrop, key

    def add_mesh(self, shape: str, transform: np.ndarray, color: RGB, object_id: int = BACKGROUND_ID) -> None:
        """A unit mesh (`SHAPES` or a registered one) placed by `transform`, in `color` (0-255 RGB)."""
        get_mesh(shape)  # fail here, not at render time, on an unknown name
        self.meshes.append(_MeshItem(shape, np.asarray(transform, dtype=np.float64), color, int(object_id)))

    def add_box(self, center: Vec3, size: Vec3, color: RGB, object_id: int = BACKGROUND_ID) -> None:
        """An axis-aligned box by centre and size."""
        self.add_mesh("box", compose(translate(*center), scale(*size)), color, object_id)

    def add_textured_quad(
        self,
        image: Image.Image,
        transform: np.ndarray,
        *,
        object_id: int = BACKGROUND_ID,
        lit: bool = False,
        transparent: bool = False,
        uv: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0),
        key: Hashable | None = None,
    ) -> None:
        """`image` on the unit square of the x-z plane (facing +y, image top towards -z) placed by
        `transform`; see `ground_quad` for the common case.

        Opaque quads hide what is behind them and write `object_id`. `transparent` quads blend by
        the image's alpha, write no depth and no id (decals such as text or soft shadows). Unlit
        quads show the image's colours exactly, which keeps text crisp; lit ones are shaded like
        meshes. `uv` = (u0, v0, u1, v1) picks a part of the image (v down). GPU textures are cached
        by `key` (default: a hash of the pixels, so pass a key for large images reused often).
        """
        if key is None:
            key = (
                "pixels",
                image.size,
                image.mode,
                hashlib.blake2b(image.tobytes(), digest_size=16).digest(),
            )
        item = _QuadItem(
            image, key, np.asarray(transform, dtype=np.float64), int(object_id), lit, transparent, uv
        )
        self.quads.append(item)

    def add_text(
        self,
        text: str,
        transform: np.ndarray,
        ink: RGB,
        px: int = 64,
        stroke: int = 0,
    ) -> float:
        """Write `text` as a decal (see `text_image`): `transform` places a text box of height 1
        (along z) on the unit x-z square, as for `add_textured_quad`, and the box's width follows
        the text. `px` is the font size in texels; about the on-screen size at 2x supersampling
        keeps it sharp; `stroke` (texels) thickens the glyphs, e.g. for bold labels. Like every
        decal it writes no object id. Returns the box's width relative to its height."""
        image = text_image(text, ink, px, stroke)
        aspect = image.width / image.height
        key = ("text", text, tuple(ink), int(px)) + ((int(stroke),) if stroke else ())
        placed = np.array(transform, dtype=np.float64)
        placed[:, 0] *= aspect  # = transform @ scale(aspect, 1, 1)
        self.add_textured_quad(image, placed, transparent=True, key=key)
        return aspect

    def render(
        self, width: int, height: int, camera: Camera, supersample: int = 2
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rgb, ids): an (h, w, 3) uint8 image and an (h, w) int32 object-id image, top row first."""
        rgb, ids = run_gl(lambda: _get_renderer().draw(self, width, height, camera, supersample, True))
        assert ids is not None
        return rgb, ids

    def pick(
        self, width: int, height: int, camera: Camera, x: int | None = None, y: int | None = None
    ) -> int:
        """The object id under pixel (x, y) of a width x height view, by default its centre pixel
        (where a first-person view puts its pointer)."""
        _, ids = self.render(width, height, camera)
        return object_at(ids, width // 2 if x is None else x, height // 2 if y is None else y)

    def render_rgb(self, width: int, height: int, camera: Camera, supersample: int = 2) -> np.ndarray:
        """Only the (h, w, 3) uint8 colour image: faster (no id image, backdrop from cache)."""
        rgb, _ = run_gl(lambda: _get_renderer().draw(self, width, height, camera, supersample, False))
        return rgb

    def render_image(self, width: int, height: int, camera: Camera, supersample: int = 2) -> Image.Image:
        """`render_rgb` as a Pillow RGB image."""
        return Image.fromarray(self.render_rgb(width, height, camera, supersample), "RGB")


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


@lru_cache(maxsize=512)
def text_image(text: str, ink: RGB, px: int = 64, stroke: int = 0) -> Image.Image:
    """`text` in `ink` on a transparent RGBA image, with a font of `px` texels, its glyphs
    thickened by `stroke` texels (0: the font's own weight).

    Every text of one `px` gets the same height, with the digits centred vertically and room for
    descenders, so labels drawn at one size in a scene look the same size. Colour is uniform and
    coverage goes to alpha only, so blending and mipmaps never darken the glyph edges as text
    drawn onto transparent black would.
    """
    from playbench.render.draw2d import get_font

    font = get_font(max(4, int(px)))
    _, digit_top, _, baseline = font.getbbox("0")
    _, _, _, low = font.getbbox("gjpqy")
    left, _, right, _ = font.getbbox(text)
    stroke = max(0, int(stroke))
    pad = max(2, int(px) // 6) + stroke
    room = max(0, int(low) - int(baseline))  # descender depth, mirrored above to keep the centre
    top = int(digit_top) - room - pad
    width = max(1, int(right) - int(left)) + 2 * pad
    height = int(baseline) + room + pad - top
    mask = Image.new("L", (width, height), 0)
    bold = {"stroke_width": stroke, "stroke_fill": 255} if stroke else {}
    ImageDraw.Draw(mask).text((pad - int(left), -top), text, font=font, fill=255, **bold)
    image = Image.new("RGBA", (width, height), (*ink, 0))
    image.putalpha(mask)
    return image


def object_at(ids: np.ndarray, x: int, y: int) -> int:
    """The object id under pixel (x, y) (x right, y down) of an id image; background outside it."""
    h, w = ids.shape
    if not (0 <= x < w and 0 <= y < h):
        return BACKGROUND_ID
    return int(ids[y, x])


# --- GL side -------------------------------------------------------------------------------

# Two fixed directional lights: a key from the upper left, slightly behind the objects, and a weak
# fill from the right. The directions were chosen (by a small search) so that the faces a
# front-top camera sees differ clearly in brightness: a cube's top, front and sides, a pyramid's
# three visible faces, a prism's two slopes and its end. The light is applied in linear space and the
# result converted back to sRGB; with a scalar light factor L that is exactly srgb * L^(1/2.2),
# which costs one pow per vertex instead of two colour conversions per fragment (llvmpipe shades
# fragments on the CPU, so fragment work is what a frame costs). Lighting is per vertex: flat
# faces come out the same as per-pixel lighting, curved ones are finely tessellated.
_LIGHTING = """
const vec3 KEY = normalize(vec3(-0.5, 0.8, -0.4));
const vec3 FILL = normalize(vec3(0.7, 0.35, -0.2));
const float AMBIENT = 0.36;
float light_factor(vec3 n) {
    float light = AMBIENT + 0.7 * max(dot(n, KEY), 0.0) + 0.25 * max(dot(n, FILL), 0.0);
    return pow(light, 1.0 / 2.2);
}
"""

_MESH_VS_HEAD = """
#version 330
uniform mat4 u_vp;
uniform vec3 u_eye;
in vec3 in_pos;
in vec3 in_normal;
in mat4 i_model;
in mat3 i_nmat;
in vec3 i_color;
in int i_id;
out vec3 v_color;
flat out int v_id;
"""

_MESH_VS = (
    _MESH_VS_HEAD
    + _LIGHTING
    + """
void main() {
    vec4 world = i_model * vec4(in_pos, 1.0);
    gl_Position = u_vp * world;
    vec3 n = normalize(i_nmat * in_normal);
    // open meshes (planes) are seen from both sides: light the side facing the camera
    if (dot(n, u_eye - world.xyz) < 0.0) n = -n;
    v_color = min(i_color * light_factor(n), vec3(1.0));
    v_id = i_id;
}
"""
)

# main() of the mesh vertex shader under a scene's own `Lighting` (see `_lighting_glsl`).
_MESH_VS_LIT_MAIN = """
void main() {
    vec4 world = i_model * vec4(in_pos, 1.0);
    gl_Position = u_vp * world;
    vec3 n = normalize(i_nmat * in_normal);
    vec3 v = normalize(u_eye - world.xyz);
    if (dot(n, v) < 0.0) n = -n;
    v_color = min(shade(i_color, n, v), vec3(1.0));
    v_id = i_id;
}
"""

_MESH_FS = """
#version 330
in vec3 v_color;
flat in int v_id;
layout(location = 0) out vec4 f_color;
layout(location = 1) out int f_id;
void main() {
    f_color = vec4(v_color, 1.0);
    f_id = v_id;
}
"""

_QUAD_VS_HEAD = """
#version 330
uniform mat4 u_vp;
uniform mat4 u_model;
uniform mat3 u_nmat;
uniform vec4 u_uv;
uniform vec3 u_eye;
uniform bool u_lit;
in vec3 in_pos;
out vec2 v_uv;
out float v_light;
"""

_QUAD_VS_MAIN = """
void main() {
    vec4 world = u_model * vec4(in_pos, 1.0);
    gl_Position = u_vp * world;
    vec2 t = in_pos.xz + 0.5;
    v_uv = vec2(mix(u_uv.x, u_uv.z, t.x), mix(u_uv.y, u_uv.w, t.y));
    vec3 n = normalize(u_nmat * vec3(0.0, 1.0, 0.0));
    if (dot(n, u_eye - world.xyz) < 0.0) n = -n;
    v_light = u_lit ? light_factor(n) : 1.0;
}
"""

_QUAD_VS = _QUAD_VS_HEAD + _LIGHTING + _QUAD_VS_MAIN

_QUAD_FS = """
#version 330
uniform sampler2D u_tex;
uniform int u_id;
in vec2 v_uv;
in float v_light;
layout(location = 0) out vec4 f_color;
layout(location = 1) out int f_id;
void main() {
    vec4 c = texture(u_tex, v_uv);
    f_color = vec4(min(c.rgb * v_light, vec3(1.0)), c.a);
    f_id = u_id;
}
"""


def _glsl_float(x: float) -> str:
    return f"{float(x):.9e}"


def _lighting_glsl(lighting: Lighting) -> str:
    """The GLSL of a scene's own `Lighting`: `light_factor(n)` (diffuse, for lit quads) and
    `shade(srgb, n, v)` (diffuse and highlight, for meshes), in linear light, returning sRGB."""
    k = _normalized(lighting.key)
    return f"""
const vec3 KEY = vec3({_glsl_float(k[0])}, {_glsl_float(k[1])}, {_glsl_float(k[2])});
const float AMBIENT = {_glsl_float(lighting.ambient)};
const float KEY_STRENGTH = {_glsl_float(lighting.key_strength)};
const float SPECULAR = {_glsl_float(lighting.specular)};
const float SHININESS = {_glsl_float(lighting.shininess)};
float light_factor(vec3 n) {{
    return pow(AMBIENT + KEY_STRENGTH * max(dot(n, KEY), 0.0), 1.0 / 2.2);
}}
vec3 shade(vec3 srgb, vec3 n, vec3 v) {{
    float d = max(dot(n, KEY), 0.0);
    vec3 linear = pow(srgb, vec3(2.2)) * (AMBIENT + KEY_STRENGTH * d);
    float s = d > 0.0 ? SPECULAR * pow(max(dot(n, normalize(KEY + v)), 0.0), SHININESS) : 0.0;
    return pow(linear + vec3(s), vec3(1.0 / 2.2));
}}
"""


# Shadows (`Lighting.shadow`), in two passes after a layer's meshes (before its quads). First the
# casters' meshes, flattened onto the ground along the light and clipped to the shadow area, set
# the alpha of the pixels they cover to the shadow factor (depth-tested, so what stands in front
# hides them; the colour is untouched, and overlapping shadows set the same value, so they never
# darken twice). Then one quad over the shadow area multiplies the colour by that alpha (blend
# factor DST_ALPHA) and resets alpha to 1. Blending elsewhere keeps the frame's alpha at 1.
_SHADOW_VS = """
#version 330
uniform mat4 u_vp;
uniform mat4 u_project;
uniform vec4 u_area;
in vec3 in_pos;
in mat4 i_model;
out float gl_ClipDistance[4];
void main() {
    vec4 ground = u_project * (i_model * vec4(in_pos, 1.0));
    // clipped to the shadow area by geometry: no fragment outside it is ever shaded
    gl_ClipDistance[0] = ground.x - u_area.x;
    gl_ClipDistance[1] = u_area.z - ground.x;
    gl_ClipDistance[2] = ground.z - u_area.y;
    gl_ClipDistance[3] = u_area.w - ground.z;
    gl_Position = u_vp * ground;
}
"""

_SHADOW_FS = """
#version 330
uniform float u_strength;
layout(location = 0) out vec4 f_color;
void main() {
    f_color = vec4(0.0, 0.0, 0.0, u_strength);
}
"""
_GL_CLIP_DISTANCE0 = 0x3000

_DARKEN_VS = """
#version 330
uniform mat4 u_vp;
uniform vec4 u_area;
uniform float u_ground;
in vec3 in_pos;
void main() {
    vec2 t = in_pos.xz + 0.5;
    gl_Position = u_vp * vec4(mix(u_area.x, u_area.z, t.x), u_ground, mix(u_area.y, u_area.w, t.y), 1.0);
}
"""

_DARKEN_FS = """
#version 330
layout(location = 0) out vec4 f_color;
void main() {
    f_color = vec4(0.0, 0.0, 0.0, 1.0);
}
"""

_INSTANCE_DTYPE = np.dtype([("model", "<f4", 16), ("nmat", "<f4", 9), ("color", "<f4", 3), ("id", "<i4")])


def _gl_matrix(m: np.ndarray) -> bytes:
    # numpy is row-major, GLSL matrices are column-major
    return np.ascontiguousarray(m.T, dtype=np.float32).tobytes()


def _normal_matrices(models: np.ndarray) -> np.ndarray:
    """Inverse transposes of the 3x3 parts of (n, 4, 4) transforms (identity where singular)."""
    a = models[:, :3, :3]
    singular = np.abs(np.linalg.det(a)) < 1e-12
    a = np.where(singular[:, None, None], np.eye(3), a)
    return np.linalg.inv(a).transpose(0, 2, 1)


class _MeshGL:
    def __init__(self, ctx: Any, prog: Any, mesh: Mesh) -> None:
        data = np.hstack([mesh.positions, mesh.normals]).astype(np.float32)
        self._ctx = ctx
        self.vbo = ctx.buffer(data.tobytes())
        self.ibo = ctx.buffer(reserve=_INSTANCE_DTYPE.itemsize * 16, dynamic=True)
        self.capacity = 16
        self.closed = mesh.closed
        self.vaos: dict[int, Any] = {}  # program glo -> vertex array over the same buffers
        self.vao_for(prog)

    def vao_for(self, prog: Any) -> Any:
        vao = self.vaos.get(prog.glo)
        if vao is None:
            vao = self.vaos[prog.glo] = self._ctx.vertex_array(
                prog,
                [
                    (self.vbo, "3f 3f", "in_pos", "in_normal"),
                    (self.ibo, "16f 9f 3f 1i/i", "i_model", "i_nmat", "i_color", "i_id"),
                ],
            )
        return vao

    def shadow_vao_for(self, prog: Any) -> Any:
        # positions and model matrices only; the instances are those the mesh pass just wrote
        vao = self.vaos.get(prog.glo)
        if vao is None:
            vao = self.vaos[prog.glo] = self._ctx.vertex_array(
                prog, [(self.vbo, "3f 12x", "in_pos"), (self.ibo, "16f 52x/i", "i_model")]
            )
        return vao

    def release(self) -> None:
        for obj in (*self.vaos.values(), self.vbo, self.ibo):
            obj.release()


class _Target:
    """Offscreen framebuffers for one output size and supersampling factor: colour and depth,
    plus int32 ids only for frames that ask for them (others neither clear nor write an id image).
    """

    def __init__(self, ctx: Any, w: int, h: int, ss: int) -> None:
        self._ctx, self.ss = ctx, ss
        self.big_size = (w * ss, h * ss)
        self.color = ctx.renderbuffer(self.big_size, 4)
        self.depth = ctx.depth_renderbuffer(self.big_size)
        self.plain = ctx.framebuffer([self.color], self.depth)
        self.pixels = bytearray(self.big_size[0] * self.big_size[1] * 4)  # reused by every read-back
        self.ids: Any = None
        self.zeros: Any = None
        self.picking: Any = None

    def with_ids(self) -> Any:
        if self.picking is None:
            w, h = self.big_size
            self.ids = self._ctx.texture((w, h), 1, dtype="i4")
            self.zeros = self._ctx.buffer(bytes(w * h * 4))
            self.picking = self._ctx.framebuffer([self.color, self.ids], self.depth)
        return self.picking

    def release(self) -> None:
        for obj in (self.picking, self.plain, self.ids, self.zeros, self.color, self.depth):
            if obj is not None:
                obj.release()


class _Renderer:
    """GL objects of the process: programs, mesh buffers, cached textures and framebuffers."""

    def __init__(self) -> None:
        import moderngl

        self.mgl = moderngl
        self.ctx = ctx = get_context()
        self.mesh_prog = ctx.program(vertex_shader=_MESH_VS, fragment_shader=_MESH_FS)
        self.quad_prog = ctx.program(vertex_shader=_QUAD_VS, fragment_shader=_QUAD_FS)
        quad = get_mesh("plane")
        self.quad_vbo = ctx.buffer(quad.positions.tobytes())
        self.quad_vao = ctx.vertex_array(self.quad_prog, [(self.quad_vbo, "3f", "in_pos")])
        self.lit_programs: OrderedDict[Hashable, tuple[Any, Any, Any]] = OrderedDict()
        self.shadow_programs: tuple[Any, Any, Any] | None = None
        self.meshes: dict[str, _MeshGL] = {}
        self.textures: OrderedDict[Hashable, Any] = OrderedDict()
        self.texture_bytes = 0
        self.backdrops: OrderedDict[Hashable, tuple[Any, Any, Any]] = OrderedDict()
        self.framebuffers: OrderedDict[tuple[int, int, int], _Target] = OrderedDict()

    def _programs(self, lighting: Lighting | None) -> tuple[Any, Any, Any]:
        """(mesh program, quad program, quad vertex array) for a scene's lighting."""
        if lighting is None:
            return self.mesh_prog, self.quad_prog, self.quad_vao
        shading = lighting.shading()
        entry = self.lit_programs.get(shading)
        if entry is None:
            block = _lighting_glsl(lighting)
            ctx = self.ctx
            mesh = ctx.program(
                vertex_shader=_MESH_VS_HEAD + block + _MESH_VS_LIT_MAIN, fragment_shader=_MESH_FS
            )
            quad = ctx.program(vertex_shader=_QUAD_VS_HEAD + block + _QUAD_VS_MAIN, fragment_shader=_QUAD_FS)
            vao = ctx.vertex_array(quad, [(self.quad_vbo, "3f", "in_pos")])
            entry = self.lit_programs[shading] = (mesh, quad, vao)
            if len(self.lit_programs) > 8:
                old, old_quad, old_vao = self.lit_programs.popitem(last=False)[1]
                for glm in self.meshes.values():
                    stale = glm.vaos.pop(old.glo, None)
                    if stale is not None:
                        stale.release()
                for obj in (old_vao, old, old_quad):
                    obj.release()
        else:
            self.lit_programs.move_to_end(shading)
        return entry

    def _shadow_programs(self) -> tuple[Any, Any, Any]:
        """(shadow program, darkening program, darkening quad's vertex array)."""
        if self.shadow_programs is None:
            ctx = self.ctx
            shadow = ctx.program(vertex_shader=_SHADOW_VS, fragment_shader=_SHADOW_FS)
            darken = ctx.program(vertex_shader=_DARKEN_VS, fragment_shader=_DARKEN_FS)
            vao = ctx.vertex_array(darken, [(self.quad_vbo, "3f", "in_pos")])
            self.shadow_programs = (shadow, darken, vao)
        return self.shadow_programs

    def forget_mesh(self, name: str) -> None:
        old = self.meshes.pop(name, None)
        if old is not None:
            old.release()

    def _mesh(self, name: str) -> _MeshGL:
        m = self.meshes.get(name)
        if m is None:
            m = self.meshes[name] = _MeshGL(self.ctx, self.mesh_prog, get_mesh(name))
        return m

    def _texture(self, key: Hashable, image: Image.Image) -> Any:
        tex = self.textures.get(key)
        if tex is not None:
            self.textures.move_to_end(key)
            return tex
        rgba = image.convert("RGBA")
        # GL's first texel row is v = 0; Pillow's first row is the image top, so v runs downwards.
        tex = self.ctx.texture(rgba.size, 4, rgba.tobytes())
        tex.build_mipmaps()
        tex.filter = (self.mgl.LINEAR_MIPMAP_LINEAR, self.mgl.LINEAR)
        tex.repeat_x = tex.repeat_y = False
        self.textures[key] = tex
        self.texture_bytes += rgba.width * rgba.height * 4
        # Evicting by size rather than count: a big board can show hundreds of small labels in
        # one frame, and re-uploading them every frame would cost more than the memory.
        while self.texture_bytes > TEXTURE_CACHE_BYTES and len(self.textures) > 1:
            _, old = self.textures.popitem(last=False)
            self.texture_bytes -= old.width * old.height * 4
            old.release()
        return tex

    def _target(self, w: int, h: int, ss: int) -> _Target:
        key = (w, h, ss)
        target = self.framebuffers.get(key)
        if target is None:
            target = self.framebuffers[key] = _Target(self.ctx, w, h, ss)
            if len(self.framebuffers) > 4:
                self.framebuffers.popitem(last=False)[1].release()
        else:
            self.framebuffers.move_to_end(key)
        return target

    def draw(
        self, scene: Scene, width: int, height: int, camera: Camera, supersample: int, want_ids: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        if width < 1 or height < 1:
            raise ValueError(f"image size must be positive, got {width}x{height}")
        ss = max(1, int(supersample))
        if max(width, height) * ss > MAX_SUPERSAMPLED_SIDE:
            ss = 1
        ctx = self.ctx
        target = self._target(width, height, ss)
        w, h = target.big_size
        vp = _gl_matrix(camera.view_projection(width / height))
        eye = tuple(float(v) for v in camera.eye)
        backdrop = scene.backdrop
        if backdrop is not None and not want_ids:
            # The cached backdrop (colour and depth) replaces the clear; only the scene's own
            # items are drawn. Blitting cannot fill an integer attachment from a colour one, so
            # frames with ids draw the backdrop afresh instead (below).
            cached = self._backdrop(backdrop, scene.backdrop_key, width, height, ss, camera, vp, eye)
            fbo = target.plain
            ctx.copy_framebuffer(fbo, cached)
            self._draw_layer(scene, fbo, (w, h), vp, eye, clear=None)
        else:
            fbo = target.with_ids() if want_ids else target.plain
            first = backdrop if backdrop is not None else scene
            self._draw_layer(
                first, fbo, (w, h), vp, eye, clear=first.background, ids=target if want_ids else None
            )
            if backdrop is not None:
                self._draw_layer(scene, fbo, (w, h), vp, eye, clear=None)
        # RGBA is the renderbuffer's own layout, so reading it needs no conversion in the driver.
        # Pillow maps the buffer (rows flipped: GL's run bottom-up) and averages each ss x ss
        # block; measured cheaper on llvmpipe than an averaging pass on the GL side.
        fbo.read_into(target.pixels, components=4, attachment=0)
        image = Image.frombuffer("RGBX", (w, h), target.pixels, "raw", "RGBX", 0, -1)
        if ss > 1:
            image = image.reduce(ss)
        rgb = np.asarray(image)[:, :, :3].copy()
        ids = None
        if want_ids:
            buf = np.frombuffer(fbo.read(components=1, attachment=1, dtype="i4"), dtype=np.int32)
            ids = buf.reshape(h, w)[::-1][ss // 2 :: ss, ss // 2 :: ss].copy()
        return rgb, ids

    def _draw_layer(
        self,
        scene: Scene,
        fbo: Any,
        size: tuple[int, int],
        vp: bytes,
        eye: Vec3,
        clear: RGB | None,
        ids: _Target | None = None,
    ) -> None:
        ctx, mgl = self.ctx, self.mgl
        fbo.use()
        fbo.viewport = (0, 0, *size)
        if clear is not None:
            self._masks(fbo, colors=True, ids=False)
            fbo.depth_mask = True
            r, g, b = (c / 255 for c in clear)
            fbo.clear(r, g, b, 1.0, depth=1.0)
            if ids is not None:
                # glClear on an integer attachment is undefined in OpenGL, so the id texture is
                # overwritten with zeros from a buffer on the GL side instead.
                ids.ids.write(ids.zeros)
        self._masks(fbo, colors=True, ids=True)
        ctx.disable(mgl.CULL_FACE | mgl.BLEND)
        ctx.enable(mgl.DEPTH_TEST)
        self._draw_meshes(scene, vp, eye)
        if scene.lighting is not None and scene.lighting.shadow is not None:
            self._draw_shadows(scene, scene.lighting, vp, fbo)
        self._draw_quads(scene, vp, eye, fbo)
        ctx.disable(mgl.DEPTH_TEST | mgl.CULL_FACE | mgl.BLEND)
        fbo.depth_mask = True
        self._masks(fbo, colors=True, ids=True)

    def _backdrop(
        self,
        backdrop: Scene,
        key: Hashable,
        width: int,
        height: int,
        ss: int,
        camera: Camera,
        vp: bytes,
        eye: Vec3,
    ) -> Any:
        full_key = (key, width, height, ss, camera)
        entry = self.backdrops.get(full_key)
        if entry is not None:
            self.backdrops.move_to_end(full_key)
            return entry[0]
        size = (width * ss, height * ss)
        color = self.ctx.texture(size, 4)
        depth = self.ctx.depth_renderbuffer(size)
        fbo = self.ctx.framebuffer([color], depth)
        self._draw_layer(backdrop, fbo, size, vp, eye, clear=backdrop.background)
        self.backdrops[full_key] = (fbo, color, depth)
        if len(self.backdrops) > BACKDROP_CACHE:
            for obj in self.backdrops.popitem(last=False)[1]:
                obj.release()
        return fbo

    @staticmethod
    def _masks(fbo: Any, colors: bool, ids: bool) -> None:
        mask = ((colors,) * 4, (ids,) * 4)
        fbo.color_mask = mask[: len(fbo.color_attachments)] if len(fbo.color_attachments) > 1 else mask[0]

    def _draw_meshes(self, scene: Scene, vp: bytes, eye: Vec3) -> None:
        # Later additions are drawn first (shapes by their first appearance, instances in reverse):
        # scenes are built background first, so the surfaces hidden under objects then fail the
        # depth test before they are shaded, which is most of the cost on a CPU rasteriser.
        groups: dict[str, list[_MeshItem]] = {}
        for item in scene.meshes:
            groups.setdefault(item.shape, []).append(item)
        prog = self._programs(scene.lighting)[0]
        prog["u_vp"].write(vp)
        prog["u_eye"].value = eye
        for shape in reversed(groups):
            items = groups[shape][::-1]
            glm = self._mesh(shape)
            data = np.zeros(len(items), dtype=_INSTANCE_DTYPE)
            models = np.stack([it.transform for it in items])
            data["model"] = models.transpose(0, 2, 1).reshape(len(items), 16)
            # GLSL reads matrices column by column, i.e. the transpose of numpy's row order
            data["nmat"] = _normal_matrices(models).transpose(0, 2, 1).reshape(len(items), 9)
            data["color"] = np.array([it.color for it in items], dtype=np.float64) / 255.0
            data["id"] = [it.object_id for it in items]
            if len(items) > glm.capacity:
                glm.capacity = max(len(items), 2 * glm.capacity)
                glm.ibo.orphan(glm.capacity * _INSTANCE_DTYPE.itemsize)
            glm.ibo.write(data.tobytes())
            if glm.closed:
                self.ctx.enable(self.mgl.CULL_FACE)
            else:
                self.ctx.disable(self.mgl.CULL_FACE)
            glm.vao_for(prog).render(self.mgl.TRIANGLES, instances=len(items))

    def _draw_quads(self, scene: Scene, vp: bytes, eye: Vec3, fbo: Any) -> None:
        if not scene.quads:
            return
        ctx, mgl = self.ctx, self.mgl
        _, prog, vao = self._programs(scene.lighting)
        ctx.disable(mgl.CULL_FACE)
        # Colour blends by the decal's alpha; the frame's alpha stays as it is (1, except while
        # shadows are drawn, which use it).
        ctx.blend_func = mgl.SRC_ALPHA, mgl.ONE_MINUS_SRC_ALPHA, mgl.ZERO, mgl.ONE
        prog["u_vp"].write(vp)
        prog["u_eye"].value = eye
        prog["u_tex"].value = 0
        models = np.stack([q.transform for q in scene.quads])
        model_bytes = np.ascontiguousarray(models.transpose(0, 2, 1), dtype=np.float32)
        nmat_bytes = np.ascontiguousarray(_normal_matrices(models).transpose(0, 2, 1), dtype=np.float32)
        for k, q in enumerate(scene.quads):
            self._texture(q.key, q.image).use(0)
            prog["u_model"].write(model_bytes[k].tobytes())
            prog["u_nmat"].write(nmat_bytes[k].tobytes())
            prog["u_uv"].value = q.uv
            prog["u_lit"].value = q.lit
            prog["u_id"].value = q.object_id
            if q.transparent:
                ctx.enable(mgl.BLEND)
                fbo.depth_mask = False
                self._masks(fbo, colors=True, ids=False)
            else:
                ctx.disable(mgl.BLEND)
                fbo.depth_mask = True
                self._masks(fbo, colors=True, ids=True)
            vao.render(mgl.TRIANGLES)

    def _draw_shadows(self, scene: Scene, lighting: Lighting, vp: bytes, fbo: Any) -> None:
        # See _SHADOW_VS. Runs right after _draw_meshes of the same scene, whose instance buffers
        # still hold this scene's instances (same shapes, same counts).
        counts: dict[str, int] = {}
        for item in scene.meshes:
            counts[item.shape] = counts.get(item.shape, 0) + 1
        casters = [(shape, n) for shape, n in counts.items() if self._mesh(shape).closed]
        if not casters:
            return
        ctx, mgl = self.ctx, self.mgl
        shadow, darken, darken_vao = self._shadow_programs()
        area = tuple(float(v) for v in lighting.shadow_area)
        two = len(fbo.color_attachments) > 1  # the id attachment is never written here
        off = (False,) * 4
        alpha_only = (False, False, False, True)
        fbo.color_mask = (alpha_only, off) if two else alpha_only
        fbo.use()  # moderngl applies a colour mask when the framebuffer is bound
        fbo.depth_mask = False
        ctx.disable(mgl.BLEND)
        # culling back faces keeps the light-facing side, whose flattened image covers the whole
        # shadow once (seen from above the ground, as the light and the camera see it)
        ctx.enable(mgl.DEPTH_TEST | mgl.CULL_FACE)
        shadow["u_vp"].write(vp)
        shadow["u_project"].write(_gl_matrix(lighting.shadow_matrix()))
        shadow["u_area"].value = area
        shadow["u_strength"].value = float(lighting.shadow)
        for plane in range(4):
            ctx.enable_direct(_GL_CLIP_DISTANCE0 + plane)
        for shape, n in casters:
            self._mesh(shape).shadow_vao_for(shadow).render(mgl.TRIANGLES, instances=n)
        for plane in range(4):
            ctx.disable_direct(_GL_CLIP_DISTANCE0 + plane)
        fbo.color_mask = ((True,) * 4, off) if two else (True,) * 4
        fbo.use()
        ctx.disable(mgl.DEPTH_TEST | mgl.CULL_FACE)
        ctx.enable(mgl.BLEND)
        ctx.blend_func = mgl.ZERO, mgl.DST_ALPHA, mgl.ONE, mgl.ZERO
        darken["u_vp"].write(vp)
        darken["u_area"].value = area
        darken["u_ground"].value = float(lighting.ground)
        darken_vao.render(mgl.TRIANGLES)
        ctx.blend_func = mgl.SRC_ALPHA, mgl.ONE_MINUS_SRC_ALPHA, mgl.ZERO, mgl.ONE
        ctx.disable(mgl.BLEND)
        ctx.enable(mgl.DEPTH_TEST)  # as the quads that follow expect
        fbo.depth_mask = True
        self._masks(fbo, colors=True, ids=True)
        fbo.use()


def _get_renderer() -> _Renderer:
    # called in the GL thread only (through run_gl)
    global _renderer
    if _renderer is None:
        _renderer = _Renderer()
    return _renderer


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(image: Image.Image | np.ndarray | Sequence[np.ndarray], compress_level: int = 3) -> bytes:
    """PNG bytes (8-bit RGB, no metadata) of a Pillow image, an (h, w, 3) uint8 array, or a list
    of such arrays of one width stacked top to bottom (e.g. a title band over a view, without
    first copying them into one array).

    Written here rather than with Pillow because frames are encoded once per step and Pillow
    tries all five PNG row filters on every row, which took ~3x longer for a 512x512 frame. Rows
    are stored unfiltered: rendered scenes are mostly flat runs that deflate packs well without a
    filter, and level 3 then gives files about as small as Pillow's level 1. Same input, same
    bytes (for one zlib version).
    """
    if isinstance(image, Image.Image):
        parts = [np.asarray(image.convert("RGB"))]
    elif isinstance(image, np.ndarray):
        parts = [image]
    else:
        parts = [np.asarray(p) for p in image]
    w = parts[0].shape[1] if parts and parts[0].ndim == 3 else 0
    for p in parts:
        if p.dtype != np.uint8 or p.ndim != 3 or p.shape[1:] != (w, 3) or w == 0:
            raise ValueError(f"expected (h, w, 3) uint8 images of one width, got {p.dtype} {p.shape}")
    h = sum(p.shape[0] for p in parts)
    rows = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none"
    y = 0
    for p in parts:
        rows[y : y + p.shape[0], 1:] = p.reshape(p.shape[0], 3 * w)
        y += p.shape[0]
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(memoryview(rows).cast("B"), compress_level))
        + _chunk(b"IEND", b"")
    )
