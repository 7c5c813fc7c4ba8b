"""The first-person view: the world's parts drawn with `playbench.render.gl3d`, a red dot at the centre.

Boxes, cylinders and spheres carry their entity id into gl3d's object-id image, drawn in the same
pass as the colours, so `render_view` also says which entity is under the centre pixel. Notes show
their text (drawn with Pillow into a texture that lies on the sheet), the exit carries an EXIT
sign and, when it has a password lock, a keypad marked CODE.

Only `EscapeTask.observe` calls this module: playing without observing (the oracle, random play in
tests) never renders.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from playbench.render import gl3d
from playbench.render.draw2d import get_font
from playbench.tasks.mmescape import geometry as geo

RED = np.array([230, 20, 20], dtype=np.uint8)
NEAR, FAR = 0.05, 40.0


@lru_cache(maxsize=64)
def note_image(lines: tuple[str, ...], landscape: bool = False) -> Image.Image:
    """The writing on a note: dark text on a transparent 280x380 texture (380x280 for a sheet
    read across its long side), wrapped to its width with the largest font that fits (a short
    code note is legible from about a metre)."""
    width, height, pad = (380, 280, 14) if landscape else (280, 380, 14)
    words = " ".join(lines).split()
    for size in (46, 40, 34, 28, 24, 20, 16, 13, 11):
        font = get_font(size)
        wrapped: list[str] = []
        for word in words:
            if wrapped and font.getlength(f"{wrapped[-1]} {word}") <= width - 2 * pad:
                wrapped[-1] = f"{wrapped[-1]} {word}"
            else:
                wrapped.append(word)
        line_h = int(size * 1.2)
        if len(wrapped) * line_h <= height - 2 * pad and all(
            font.getlength(w) <= width - 2 * pad for w in wrapped
        ):
            break
    image = Image.new("RGBA", (width, height), (30, 30, 40, 0))
    draw = ImageDraw.Draw(image)
    y = pad
    for line in wrapped:
        draw.text((pad, y), line, font=font, fill=(30, 30, 40, 255))
        y += line_h
    return image


def _decal_transform(d: geo.Decal, width: float) -> np.ndarray:
    if d.facing == "up":
        return gl3d.ground_quad(d.center, width, d.height, rotation_y=d.rot)
    yaw = float(d.facing)
    return gl3d.compose(
        gl3d.translate(*d.center), gl3d.rotate_y(yaw), gl3d.rotate_x(90.0), gl3d.scale(width, 1.0, d.height)
    )


def _scene_items(world: geo.World, visual: geo.VisualState) -> gl3d.Scene:
    parts, decals = world.parts(visual)
    scene = gl3d.Scene(background=(20, 20, 24))
    # big surfaces first: gl3d draws later additions first, so hidden floor and walls are cheap
    order = sorted(range(len(parts)), key=lambda i: -parts[i].size[0] * parts[i].size[2] - parts[i].size[1])
    for i in order:
        p = parts[i]
        if p.shape == "box" and not p.yaw:
            scene.add_box(p.center, p.size, p.color, p.entity)
        elif p.shape == "box":
            cx, cy, cz = p.center
            transform = gl3d.compose(gl3d.translate(cx, cy, cz), gl3d.rotate_y(p.yaw), gl3d.scale(*p.size))
            scene.add_mesh("box", transform, p.color, p.entity)
        else:
            cx, cy, cz = p.center
            scene.add_mesh(
                p.shape, gl3d.compose(gl3d.translate(cx, cy, cz), gl3d.scale(*p.size)), p.color, p.entity
            )
    for d in decals:
        if d.facing == "up":
            landscape = d.width > d.height
            image = note_image(d.lines, landscape)
            scene.add_textured_quad(
                image, _decal_transform(d, d.width), transparent=True, key=("note", d.lines, landscape)
            )
        else:
            text = " ".join(d.lines)
            label = gl3d.text_image(text, d.ink, 64)
            width = min(d.width, d.height * label.width / label.height)
            scene.add_textured_quad(
                label, _decal_transform(d, width), transparent=True, key=("label", text, d.ink)
            )
    return scene


class ViewRenderer:
    """Renders one world's views; the scene of each visual state is built once."""

    def __init__(self, world: geo.World) -> None:
        self.world = world
        self._scenes: dict[geo.VisualState, gl3d.Scene] = {}

    def scene(self, visual: geo.VisualState) -> gl3d.Scene:
        s = self._scenes.get(visual)
        if s is None:
            s = self._scenes[visual] = _scene_items(self.world, visual)
        return s

    def render(
        self,
        visual: geo.VisualState,
        x: float,
        z: float,
        yaw: float,
        pitch: float,
        view: geo.ViewSpec | int,
        dot: str = "disc",
    ) -> tuple[np.ndarray, int]:
        """(RGB image with the red dot, entity id under the centre pixel). `view` is a ViewSpec or
        the side of playbench's square 60-degree view; `dot` the pointer: "disc" (playbench's) or
        "square" (the original's 8 x 8 pixel red square)."""
        if not isinstance(view, geo.ViewSpec):
            view = geo.ViewSpec(view, view)
        eye = (x, geo.EYE_H, z)
        f = geo.view_direction(yaw, pitch)
        camera = gl3d.Camera(eye, tuple(np.add(eye, f)), fov_y=view.fov_y, near=NEAR, far=FAR)
        built = self.scene(visual)
        frame = gl3d.Scene(background=built.background, meshes=built.meshes, quads=built.quads)
        rgb, ids = frame.render(view.width, view.height, camera, supersample=view.supersample)
        centre = gl3d.object_at(ids, view.width // 2, view.height // 2)
        return (red_square(rgb) if dot == "square" else red_dot(rgb)), centre


def red_square(rgb: np.ndarray, side: int = 8) -> np.ndarray:
    """The original's pointer: a pure red `side` x `side` square around the centre pixel
    (rows and columns centre - side/2 .. centre + side/2 - 1)."""
    h, w = rgb.shape[:2]
    out = rgb if rgb.flags.writeable else rgb.copy()
    y0, x0 = max(h // 2 - side // 2, 0), max(w // 2 - side // 2, 0)
    out[y0 : min(h // 2 + side // 2, h), x0 : min(w // 2 + side // 2, w)] = (255, 0, 0)
    return out


def red_dot(rgb: np.ndarray) -> np.ndarray:
    """The red pointer at the view's centre (radius ~1% of the view, at least 3 pixels)."""
    h, w = rgb.shape[:2]
    r = max(3.0, w / 110)
    cy, cx = h // 2 + 0.5, w // 2 + 0.5
    y0, y1 = int(cy - r - 1), int(cy + r + 2)
    x0, x1 = int(cx - r - 1), int(cx + r + 2)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2 <= r * r
    out = rgb if rgb.flags.writeable else rgb.copy()
    out[y0:y1, x0:x1][inside] = RED
    return out
