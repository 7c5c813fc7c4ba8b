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

Where things are (this module is the front; import from here): the context and its thread in
`gl_context`, meshes and transforms in `meshes`, the camera and lighting in `camera`, `Scene` in
`scene`, the GL side in `gl_draw` (its GLSL in `shaders`), PNG encoding in `png`.
"""

from __future__ import annotations

from playbench.render.camera import Camera, Lighting, fit_camera, orbit_direction
from playbench.render.gl_context import SYSTEM_LIBRARIES, GLUnavailable, get_context, gl_info, run_gl
from playbench.render.gl_draw import BACKDROP_CACHE, MAX_SUPERSAMPLED_SIDE, TEXTURE_CACHE_BYTES
from playbench.render.meshes import (
    RGB,
    SHAPES,
    Mesh,
    Vec3,
    box_mesh,
    compose,
    cone_mesh,
    cylinder_mesh,
    get_mesh,
    ground_quad,
    plane_mesh,
    prism_mesh,
    pyramid_mesh,
    register_mesh,
    rotate_x,
    rotate_y,
    rotate_z,
    scale,
    sphere_mesh,
    translate,
)
from playbench.render.png import encode_png
from playbench.render.scene import BACKGROUND_ID, Scene, object_at, text_image

__all__ = [
    "BACKDROP_CACHE",
    "BACKGROUND_ID",
    "MAX_SUPERSAMPLED_SIDE",
    "RGB",
    "SHAPES",
    "SYSTEM_LIBRARIES",
    "TEXTURE_CACHE_BYTES",
    "Camera",
    "GLUnavailable",
    "Lighting",
    "Mesh",
    "Scene",
    "Vec3",
    "box_mesh",
    "compose",
    "cone_mesh",
    "cylinder_mesh",
    "encode_png",
    "fit_camera",
    "get_context",
    "get_mesh",
    "gl_info",
    "ground_quad",
    "object_at",
    "orbit_direction",
    "plane_mesh",
    "prism_mesh",
    "pyramid_mesh",
    "register_mesh",
    "rotate_x",
    "rotate_y",
    "rotate_z",
    "run_gl",
    "scale",
    "sphere_mesh",
    "text_image",
    "translate",
]
