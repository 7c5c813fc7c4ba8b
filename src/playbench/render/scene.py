"""`Scene`: what a frame draws (meshes, textured quads, text decals), and reading its object ids
(see `gl3d`)."""

from __future__ import annotations

import hashlib
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from playbench.render.camera import Camera, Lighting
from playbench.render.gl_context import run_gl
from playbench.render.gl_draw import _get_renderer
from playbench.render.meshes import RGB, Vec3, compose, get_mesh, scale, translate

BACKGROUND_ID = 0


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
