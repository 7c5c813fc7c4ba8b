"""The GL side of the renderer: GPU buffers, textures and framebuffers, and drawing a `Scene` (see `gl3d`).

Everything here runs in the GL thread (`gl_context.run_gl`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from playbench.render.camera import Camera, Lighting
from playbench.render.gl_context import get_context, run_gl
from playbench.render.meshes import RGB, Mesh, Vec3, get_mesh
from playbench.render.shaders import (
    _DARKEN_FS,
    _DARKEN_VS,
    _MESH_FS,
    _MESH_VS,
    _MESH_VS_HEAD,
    _MESH_VS_LIT_MAIN,
    _QUAD_FS,
    _QUAD_VS,
    _QUAD_VS_HEAD,
    _QUAD_VS_MAIN,
    _SHADOW_FS,
    _SHADOW_VS,
    _lighting_glsl,
)

if TYPE_CHECKING:
    from playbench.render.scene import Scene, _MeshItem

MAX_SUPERSAMPLED_SIDE = 4096  # above this the frame is drawn without supersampling
BACKDROP_CACHE = 12  # rendered backdrops kept (each ~8 MB at 512x456 with 2x supersampling)
TEXTURE_CACHE_BYTES = 128 << 20  # GPU textures kept for reuse across frames (least recently used go)
_GL_CLIP_DISTANCE0 = 0x3000

_renderer: _Renderer | None = None  # made in the GL thread on first use (`_get_renderer`)

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


def forget_mesh(name: str) -> None:
    """Drop the GPU buffers of mesh `name`, if any were made (`register_mesh` replaced it)."""
    renderer = _renderer
    if renderer is not None:
        run_gl(lambda: renderer.forget_mesh(name))
