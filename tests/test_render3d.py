"""3D rendering: the headless context, shapes, object ids, PNG output and the `3d` modality."""

from __future__ import annotations

import io
import multiprocessing
import subprocess
import sys
import threading

import numpy as np
import pytest
from PIL import Image

from playbench.render import gl3d
from playbench.tasks.ivispar import render3d
from playbench.tasks.ivispar.board import SHAPES, get_board
from playbench.tasks.ivispar.render2d import KINDS
from playbench.tasks.ivispar.schema import SGPConfig
from playbench.tasks.ivispar.sgp import SlidingGeomTask

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BOARD = get_board(4, 4)
# 12 geoms on the 4x4 board, every shape at least once, free tiles 4, 6, 9, 14
PIECES = [
    (0, "red", "cube"),
    (1, "green", "sphere"),
    (2, "blue", "pyramid"),
    (3, "yellow", "cylinder"),
    (5, "orange", "cone"),
    (7, "purple", "prism"),
    (8, "green", "cube"),
    (10, "red", "sphere"),
    (11, "yellow", "pyramid"),
    (12, "blue", "cylinder"),
    (13, "red", "cone"),
    (15, "green", "prism"),
]


def decode(png: bytes) -> Image.Image:
    assert png.startswith(PNG_MAGIC)
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def geom_centre_pixel(cam: gl3d.Camera, cell: int, shape: str, w: int, h: int) -> tuple[int, int]:
    x, z = render3d.tile_center(BOARD, cell)
    px, py = cam.project([(x, render3d.GEOM_SIZE[shape][1] / 2, z)], w, h)[0]
    return int(px), int(py)


def test_context_comes_up_headless_and_serves_any_thread():
    info = gl3d.gl_info()
    assert info["GL_RENDERER"] and info["GL_VERSION"]
    scene, cam = render3d.geom_scene(BOARD, PIECES, "current", True, 128)
    expected = scene.render(128, 96, cam)
    got: list = []
    worker = threading.Thread(target=lambda: got.append(scene.render(128, 96, cam)))
    worker.start()
    worker.join()
    assert np.array_equal(got[0][0], expected[0]) and np.array_equal(got[0][1], expected[1])


@pytest.mark.parametrize("shape", gl3d.SHAPES)
def test_every_generic_mesh_is_drawn_where_it_stands(shape):
    scene = gl3d.Scene(background=(0, 0, 0))
    scene.add_mesh(shape, gl3d.compose(gl3d.translate(0.0, 0.5, 0.0), gl3d.scale(0.8)), (200, 60, 40), 7)
    cam = gl3d.fit_camera([(-1, 0, -1), (1, 0, 1), (0, 1, 0)], pitch=40, yaw=20)
    rgb, ids = scene.render(96, 96, cam)
    px, py = cam.project([(0.0, 0.5, 0.0)], 96, 96)[0]  # the mesh's centre
    assert gl3d.object_at(ids, int(px), int(py)) == 7
    assert scene.pick(96, 96, cam, int(px), int(py)) == 7
    assert (ids == 7).sum() > 200
    assert gl3d.object_at(ids, 0, 0) == gl3d.BACKGROUND_ID
    assert gl3d.object_at(ids, -1, 5) == gl3d.BACKGROUND_ID  # outside the image
    assert rgb[ids == 7].mean(axis=0)[0] > 100 and np.median(rgb[ids == 0]) == 0


@pytest.mark.parametrize("shape", SHAPES)
def test_each_geom_shape_shows_in_its_colour_on_its_tile(shape):
    cell, color = 6, "blue"
    scene, cam = render3d.geom_scene(BOARD, [(cell, color, shape)], "current", True, 160)
    w, h = render3d.frame_size(160)
    rgb, ids = scene.render(w, h, cam)
    px, py = geom_centre_pixel(cam, cell, shape, w, h)
    assert gl3d.object_at(ids, px, py) == 1
    mask = ids == 1
    assert mask.sum() > 150
    r, g, b = rgb[mask].astype(int).mean(axis=0)
    assert b > r + 40 and b > g + 20  # shaded, but still blue
    assert not (ids[: py - 40] == 1).any()  # nothing of it far above its tile


def test_id_buffer_names_each_geom_at_its_centre_and_background_elsewhere():
    w, h = render3d.frame_size(256)
    scene, cam = render3d.geom_scene(BOARD, PIECES, "current", True, 256)
    rgb, ids = scene.render(w, h, cam)
    assert rgb.shape == (h, w, 3) and ids.shape == (h, w)
    for i, (cell, _, shape) in enumerate(PIECES):
        # tile-filling geoms may hide the middle of the one behind, never all of it: its top
        # shows, over its own tile's columns
        ys, xs = np.nonzero(ids == i + 1)
        assert len(xs) > 40, shape
        x, z = render3d.tile_center(BOARD, cell)
        (left, _), (right, _) = cam.project([(x - 0.5, 0.5, z), (x + 0.5, 0.5, z)], w, h)
        assert left <= np.median(xs) <= right
    for cell in (4, 6, 9, 14):  # free tiles: their back part, which the geom in front never hides
        x, z = render3d.tile_center(BOARD, cell)
        px, py = cam.project([(x, 0.0, z - 0.42)], w, h)[0]
        assert gl3d.object_at(ids, int(px), int(py)) == render3d.TILE_ID_BASE + cell
    assert gl3d.object_at(ids, 2, 2) == gl3d.BACKGROUND_ID
    assert gl3d.object_at(ids, w - 3, 2) == gl3d.BACKGROUND_ID


def test_nearer_geoms_partially_hide_farther_ones():
    # a cube right in front of another: the foot of the farther one is hidden, the rest shows
    scene, cam = render3d.geom_scene(BOARD, [(9, "red", "cube"), (5, "green", "cube")], "current", True, 256)
    _, ids_both = scene.render(256, 192, cam)
    alone, _ = render3d.geom_scene(BOARD, [(9, "red", "cube")], "current", True, 256)
    _, ids_alone = alone.render(256, 192, cam)
    cube_alone, cube_both = (ids_alone == 1).sum(), (ids_both == 1).sum()
    assert 0.3 * cube_alone < cube_both < 0.97 * cube_alone


def test_camera_is_the_originals():
    # pitch atan(5.57 / 3.68) and a 60° field of view; the board's corners land where they do on
    # the original's 1200x900 screenshots (measured there to a pixel or two)
    cam = render3d.board_camera(4, 4)
    assert cam.fov_y == 60
    view = np.subtract(cam.target, cam.eye)
    assert abs(np.degrees(np.arctan2(-view[1], np.hypot(view[0], view[2]))) - 56.55) < 0.05
    corners = [(-2, 0, 2), (2, 0, 2), (-2, 0, -2), (2, 0, -2)]
    got = cam.project(corners, 1200, 900)
    expected = [(311, 603), (954, 603), (401, 186), (843, 186)]
    assert np.abs(got - np.array(expected)).max() < 3
    # other boards scale the placement, so they fill the frame the same way
    big = render3d.board_camera(8, 8).project([(2 * x, y, 2 * z) for x, y, z in corners], 1200, 900)
    assert np.allclose(big, got, atol=0.5)


def test_geoms_fill_their_tile_and_stand_a_tile_tall():
    w, h = render3d.frame_size(512)
    cell = BOARD.parse_coord("c2")
    scene, cam = render3d.geom_scene(BOARD, [(cell, "red", "cube")], "current", False, 512)
    _, ids = scene.render(w, h, cam)
    x, z = render3d.tile_center(BOARD, cell)
    # its silhouette is that of the unit cube standing on the tile
    corners = [(x + dx, y, z + dz) for dx in (-0.5, 0.5) for y in (0, 1) for dz in (-0.5, 0.5)]
    (x0, y0), (x1, y1) = cam.project(corners, w, h).min(axis=0), cam.project(corners, w, h).max(axis=0)
    ys, xs = np.nonzero(ids == 1)
    assert max(abs(xs.min() - x0), abs(xs.max() + 1 - x1), abs(ys.min() - y0), abs(ys.max() + 1 - y1)) <= 2


def test_geoms_cast_shadows_on_the_board_away_from_the_light():
    w, h = render3d.frame_size(512)
    cell = BOARD.parse_coord("c3")
    empty, cam = render3d.geom_scene(BOARD, [], "current", False, 512)
    one, _ = render3d.geom_scene(BOARD, [(cell, "red", "cube")], "current", False, 512)
    base, lit = empty.render_rgb(w, h, cam).astype(int), one.render_rgb(w, h, cam).astype(int)
    x, z = render3d.tile_center(BOARD, cell)
    # the light is to the right and behind: the shadow falls to the left and towards the viewer
    for point, shaded in (
        ((x - 0.9, 0, z + 0.6), True),
        ((x + 0.9, 0, z + 0.6), False),
        ((x - 0.9, 0, z - 0.8), False),
    ):
        px, py = (int(v) for v in cam.project([point], w, h)[0])
        ratio = lit[py, px].sum() / base[py, px].sum()
        assert abs(ratio - render3d.SHADOW) < 0.05 if shaded else ratio == 1, (point, ratio)
    # a corner geom throws most of its shadow off the board, where nothing receives it
    corner, _ = render3d.geom_scene(BOARD, [(BOARD.parse_coord("a1"), "red", "cube")], "current", False, 512)
    _, ids = corner.render(w, h, cam)
    rgb = corner.render_rgb(w, h, cam).astype(int)
    near_geom = ids == 1
    for _ in range(3):  # silhouette pixels are blends (supersampling): leave a margin
        near_geom = near_geom | np.roll(near_geom, 1, 0) | np.roll(near_geom, -1, 0)
        near_geom = near_geom | np.roll(near_geom, 1, 1) | np.roll(near_geom, -1, 1)
    off_board = (ids == gl3d.BACKGROUND_ID) & ~near_geom
    assert (rgb[off_board] == base[off_board]).all()


def test_state_name_sits_in_a_box_at_the_top_right():
    size = 1200
    img = np.asarray(
        decode(render3d.render_geoms(BOARD, PIECES, "goal", SGPConfig(modality="3d", image_size=size)))
    )
    background = np.array(KINDS["goal"][0])
    inside = img[30, size - 80]  # half-transparent white over the background
    assert (inside > background).all() and (inside < 255).all()
    assert img[40:100, size - 39].max() < 60  # its black border
    assert img[60:90, size - 200 : size - 60].min() < 40  # the name, in black
    assert (img[5, :] == background).all() and (img[200:, size - 5] == background).all()


def test_a_scene_lighting_is_opt_in_and_default_scenes_keep_their_look():
    scene = gl3d.Scene(background=(0, 0, 0))
    scene.add_mesh("plane", gl3d.ground_quad((0, 0, 0), 4, 4), (200, 200, 200), 2)
    scene.add_mesh("cube", gl3d.translate(0.0, 0.5, 0.0), (200, 60, 40), 1)
    cam = gl3d.fit_camera([(-2, 0, -2), (2, 0, 2), (0, 1, 0)], pitch=50)
    plain = scene.render_rgb(96, 96, cam)
    scene.lighting = gl3d.Lighting(
        key=(0.6, 0.6, 0.5), key_strength=1.5, ambient=0.2, shadow=0.5, ground=0.003
    )
    shaded, ids = scene.render(96, 96, cam)
    assert not np.array_equal(plain, shaded)
    again = scene.render_rgb(96, 96, cam)
    assert np.array_equal(again, shaded)  # deterministic, with or without the id image
    # the shadow falls on the ground on the side away from the light
    px, py = (int(v) for v in cam.project([(-1.2, 0, -1.0)], 96, 96)[0])
    qx, qy = (int(v) for v in cam.project([(1.2, 0, 1.0)], 96, 96)[0])
    assert gl3d.object_at(ids, px, py) == gl3d.object_at(ids, qx, qy) == 2
    assert shaded[py, px].sum() < 0.6 * shaded[qy, qx].sum()
    scene.lighting = None
    assert np.array_equal(scene.render_rgb(96, 96, cam), plain)
    with pytest.raises(ValueError):
        gl3d.Lighting(key=(0, -1, 0), shadow=0.5).shadow_matrix()


def test_bold_text_decals_are_thicker_and_plain_ones_unchanged():
    plain = gl3d.text_image("B2", (0, 0, 0), 40)
    assert np.array_equal(np.asarray(gl3d.text_image("B2", (0, 0, 0), 40, 0)), np.asarray(plain))
    bold = gl3d.text_image("B2", (0, 0, 0), 40, 2)
    ink = lambda im: (np.asarray(im)[:, :, 3] > 127).sum()  # noqa: E731
    assert ink(bold) > 1.2 * ink(plain)


def test_supersampling_equals_pillow_box_reduction():
    scene, cam = render3d.geom_scene(BOARD, PIECES, "goal", True, 128)
    small = scene.render_image(128, 96, cam, supersample=2)
    big = scene.render_image(256, 192, cam, supersample=1)
    assert np.array_equal(np.asarray(small), np.asarray(big.reduce(2)))


@pytest.mark.parametrize("size, height", [(512, 384), (200, 150), (1200, 900)])
def test_frames_are_4_3_pngs_as_wide_as_the_image_size(size, height):
    png = render3d.render_geoms(BOARD, PIECES, "current", SGPConfig(modality="3d", image_size=size))
    img = decode(png)
    assert img.size == (size, height) == render3d.frame_size(size) and img.mode == "RGB"
    assert img.getpixel((2, 2)) == KINDS["current"][0]  # the kind's background


def test_frames_are_deterministic_and_depend_on_state_kind_and_labels():
    cfg = SGPConfig(modality="3d", image_size=192)
    a = render3d.render_geoms(BOARD, PIECES, "current", cfg)
    assert render3d.render_geoms(BOARD, list(PIECES), "current", cfg) == a
    moved = [(4, *PIECES[0][1:]), *PIECES[1:]]  # red cube a1 -> a2
    assert render3d.render_geoms(BOARD, moved, "current", cfg) != a
    goal = decode(render3d.render_geoms(BOARD, PIECES, "goal", cfg))
    assert goal.getpixel((2, 2)) == KINDS["goal"][0]
    plain = render3d.render_geoms(
        BOARD, PIECES, "current", SGPConfig(modality="3d", image_size=192, labels=False)
    )
    assert plain != a
    # the labels are text on the ground: switching them off changes nothing above the board
    diff = np.abs(np.asarray(decode(plain), dtype=int) - np.asarray(decode(a), dtype=int)).sum(axis=2)
    assert diff.any() and not diff[: diff.shape[0] // 12].any()


def test_encode_png_round_trips():
    rgb = np.random.default_rng(0).integers(0, 256, size=(17, 23, 3), dtype=np.uint8)
    png = gl3d.encode_png(rgb)
    assert np.array_equal(np.asarray(decode(png).convert("RGB")), rgb)
    assert gl3d.encode_png(Image.fromarray(rgb)) == png


def test_text_decals_keep_one_height_per_size():
    heights = {gl3d.text_image(t, (0, 0, 0), 40).height for t in ("a1", "d4", "g", "12", "q")}
    assert len(heights) == 1


def test_render_tiles_draws_numbered_blocks():
    tiles = [(cell, cell + 1) for cell in range(15)]
    png = render3d.render_tiles(4, 4, tiles, "current", image_size=256)
    assert decode(png).size == (256, 192)
    assert render3d.render_tiles(4, 4, tiles, "current", image_size=256) == png
    slid = [*tiles[:14], (15, 15)]  # tile 15 slides right into the gap
    assert render3d.render_tiles(4, 4, slid, "current", image_size=256) != png
    scene, cam = render3d.tile_scene(4, 4, tiles, "current", True, 256)
    _, ids = scene.render(256, 192, cam)
    x, z = render3d.tile_center(BOARD, 5)
    px, py = cam.project([(x, render3d.PUZZLE_HEIGHT, z)], 256, 192)[0]
    assert gl3d.object_at(ids, int(px), int(py)) == 6  # tiles[5] has id 6
    with pytest.raises(ValueError):
        render3d.render_tiles(4, 4, [(16, 1)], "current")
    with pytest.raises(ValueError):
        render3d.render_tiles(4, 4, [(3, 1), (3, 2)], "current")
    with pytest.raises(ValueError):
        render3d.render_tiles(4, 4, tiles, "future")


def test_sgp_3d_modality_plays_an_episode_with_oracle_moves():
    task = SlidingGeomTask(modality="3d", image_size=256)
    inst = task.instances(12, seed=5)[-1]
    task.reset(inst)
    while not task.done:
        obs = task.observe("player")
        for im in obs.all_images:  # the past, goal and current frames, in the chat's turns
            assert decode(im.png).size == (256, 192)
        task.step(task.oracle_action("player"))
    assert task.outcome().success and task.outcome().steps == inst.optimal_steps
    labels = sorted(im.label for im in task.observe("player").all_images)
    assert labels == ["current", "goal", "past", "past"]


def test_text_only_use_does_not_load_the_gl_renderer():
    code = (
        "import sys; import playbench.tasks.ivispar.sgp as s; "
        "t = s.SlidingGeomTask(); t.reset(t.instances(1, seed=0)[0]); t.observe('player'); "
        "print('moderngl' in sys.modules, 'playbench.render.gl3d' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_a_registered_mesh_replaced_under_its_name_is_drawn_anew():
    """`register_mesh` under a name already drawn drops its GPU buffers, so the next frame shows the
    new mesh, not the one the renderer had uploaded."""
    cam = gl3d.fit_camera([(-1, 0, -1), (1, 0, 1), (0, 1, 0)], pitch=40, yaw=20)

    def frame() -> np.ndarray:
        scene = gl3d.Scene(background=(0, 0, 0))
        scene.add_mesh("test-replaced", gl3d.translate(0.0, 0.5, 0.0), (200, 60, 40), 5)
        return scene.render(96, 96, cam)[1]

    gl3d.register_mesh("test-replaced", gl3d.box_mesh())
    box = frame()
    gl3d.register_mesh("test-replaced", gl3d.sphere_mesh(12, 6))
    ball = frame()
    assert (box == 5).sum() > (ball == 5).sum() > 100  # a unit sphere covers less than a unit box
    gl3d.register_mesh("test-replaced", gl3d.box_mesh())
    assert np.array_equal(frame(), box)


def _render_in_child(queue) -> None:
    try:
        gl3d.gl_info()
        queue.put("rendered")
    except gl3d.GLUnavailable as exc:
        queue.put(f"refused: {exc}")


def test_a_forked_child_is_refused_instead_of_hanging():
    gl3d.gl_info()  # the parent has a context now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_render_in_child, args=(queue,))
    child.start()
    child.join(30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung")
    message = queue.get(timeout=5)
    assert message.startswith("refused") and "spawn" in message


def test_a_cached_backdrop_keeps_its_depth_and_matches_a_full_render():
    wall = gl3d.Scene(background=(10, 20, 30))
    wall.add_box((0.0, 0.5, 1.0), (2.0, 1.0, 0.1), (200, 200, 200), 3)  # in front of the cube
    scene = gl3d.Scene()
    scene.set_backdrop(wall, "test-wall")
    scene.add_mesh("cube", gl3d.translate(0.0, 0.5, 0.0), (220, 30, 30), 4)
    cam = gl3d.fit_camera([(-1.5, 0, -1), (1.5, 0, 1.5), (0, 1.2, 0)], pitch=20)
    for _ in range(2):  # the second frame starts from the cache
        gl3d.Scene().render_rgb(96, 96, cam)  # leaves a far depth in the shared framebuffer
        rgb = scene.render_rgb(96, 96, cam)
        full, ids = scene.render(96, 96, cam)
        assert np.array_equal(rgb, full)
        assert (ids == 3).any() and (ids == 4).any()  # the cube shows above the wall only
        assert (ids == 4).sum() < (ids == 3).sum()
