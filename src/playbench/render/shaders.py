"""The GLSL programs of the renderer: meshes, textured quads, shadows (see `gl_draw`)."""

from __future__ import annotations

from playbench.render.camera import Lighting, _normalized

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
