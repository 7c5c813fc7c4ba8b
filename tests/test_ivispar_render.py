"""2D images: valid, deterministic PNGs that show the board the observation describes."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from playbench.core.registry import make_task
from playbench.tasks.ivispar.board import GEOM_COLORS, SHAPES, get_board
from playbench.tasks.ivispar.render2d import KINDS, layout, render_board

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def decode(png: bytes) -> Image.Image:
    assert png.startswith(PNG_MAGIC)
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def play(task, inst, actions):
    task.reset(inst)
    for a in actions:
        task.step(a)
    return task.observe("player")


@pytest.fixture(scope="module")
def setup():
    task = make_task("ivispar/sgp-2d")
    inst = task.instances(30, seed=9)[-1]
    task.reset(inst)
    actions = task.observe("player").legal_actions[:1] + ["gibberish", "action: move red cube up"]
    return inst, actions


def test_images_are_pngs_of_the_configured_size(setup):
    inst, actions = setup
    for size in (512, 200, 1200):
        task = make_task("ivispar/sgp-2d", image_size=size)
        obs = play(task, inst, actions)
        # the original's order: past states first, then the goal, the active (current) state last
        assert [im.label for im in obs.all_images] == ["past", "past", "goal", "current"]
        for im in obs.all_images:
            img = decode(im.png)
            assert img.size == (size, size * 3 // 4)  # the original's 4:3 (1200x900)


def test_images_are_deterministic_and_state_dependent(setup):
    inst, actions = setup
    a = play(make_task("ivispar/sgp-2d"), inst, actions)
    b = play(make_task("ivispar/sgp-2d"), inst, actions)
    assert [im.png for im in a.all_images] == [im.png for im in b.all_images]
    start = play(make_task("ivispar/sgp-2d"), inst, [])
    assert start.all_images[0].png == a.all_images[-2].png  # goal image never changes
    assert start.all_images[-1].png != a.all_images[-1].png  # the current board moved


def test_frame_colours_tell_the_kind():
    board = get_board(4, 4)
    for kind, (rgb, _) in KINDS.items():
        img = decode(render_board(board, [], kind))
        assert img.getpixel((2, img.height - 3)) == rgb
    # the original's colours and words (Data/Params/color_codes.json): the current state is "active"
    assert KINDS == {
        "past": ((141, 153, 174), "past"),
        "current": ((82, 138, 174), "active"),
        "goal": ((100, 191, 106), "goal"),
    }


def test_the_board_sits_where_the_originals_figure_puts_it():
    # render_2D.py: a 1200x900 figure, axes from 25 % to 80 % of the width and 10 % to 90 % of the
    # height, a square grid: 165 px tiles from x = 300 and y = 120 on a 4x4 board
    lay = layout(4, 4, 1200)
    assert (lay.width, lay.height, lay.tile, lay.x0, lay.y0) == (1200, 900, 165, 300, 120)
    img = decode(render_board(get_board(4, 4), [], "goal", size=1200))
    assert img.getpixel((310, 130)) == KINDS["goal"][0]  # tiles are the frame's colour
    assert img.getpixel((300, 200)) == (0, 0, 0)  # a grid line


def test_geoms_are_drawn_in_their_colour_on_their_tile(setup):
    inst, actions = setup
    task = make_task("ivispar/sgp-2d")
    obs = play(task, inst, actions)
    img = decode(obs.all_images[-1].png)
    board = inst.board()
    lay = layout(board.width, board.height, img.width)
    occupied = set()
    for (color, _shape), cell in zip(task._keys, task.board_state, strict=True):
        x0, y0, x1, y1 = lay.tile_box(board, cell)
        # a point just below the centre is inside every glyph (the triangle's apex is at the top)
        assert img.getpixel(((x0 + x1) // 2, (y0 + y1) // 2 + lay.tile // 10)) == GEOM_COLORS[color]
        occupied.add(cell)
    for cell in set(range(board.cells)) - occupied:
        x0, y0, x1, y1 = lay.tile_box(board, cell)
        assert img.getpixel((x0 + 4, y0 + 4)) not in GEOM_COLORS.values()


def test_row_one_is_at_the_bottom_and_column_a_on_the_left():
    board = get_board(3, 3)
    a1 = board.parse_coord("a1")
    img = decode(render_board(board, [(a1, "red", "cube")], "current", labels=False, size=300))
    w, h = img.size
    reds = [
        (x, y) for x in range(0, w, 3) for y in range(0, h, 3) if img.getpixel((x, y)) == GEOM_COLORS["red"]
    ]
    assert reds
    assert all(x < w / 2 and y > h / 2 for x, y in reds)


def test_labels_option_and_every_shape_renders():
    board = get_board(4, 2)
    pieces = [
        (i, color, shape)
        for i, (color, shape) in enumerate(zip(list(GEOM_COLORS)[: len(SHAPES)], SHAPES, strict=True))
    ]
    with_labels = render_board(board, pieces, "goal", labels=True, size=256)
    without = render_board(board, pieces, "goal", labels=False, size=256)
    assert with_labels != without
    decode(with_labels)
    with pytest.raises(ValueError):
        render_board(board, pieces, "future")


def test_text_modality_has_no_images(setup):
    inst, actions = setup
    obs = play(make_task("ivispar/sgp"), inst, actions)
    assert obs.all_images == []


@pytest.mark.parametrize(
    "task_id",
    ["ivispar/sgp-2d", "ivispar/sgp-3d", "ivispar/board-inference-2d", "ivispar/board-inference-3d"],
)
def test_the_default_frames_are_the_originals_1200_by_900(task_id):
    # the original's agents send 1200x900 images (simulator screenshots; render_2D.py's 12 x 9 inch
    # figure at 100 dpi); 512 stays available as an option
    task = make_task(task_id)
    assert task.config.image_size == 1200
    task.reset(task.instances(1, 0)[0])
    images = task.observe("player").all_images
    assert images and all(decode(im.png).size == (1200, 900) for im in images)
    small = make_task(task_id, image_size=512)
    small.reset(small.instances(1, 0)[0])
    assert all(decode(im.png).size == (512, 384) for im in small.observe("player").all_images)
