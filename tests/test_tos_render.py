"""Theory of Space 3D views and legend: deterministic PNGs, open doorways, legend tiles."""

import io

import numpy as np
from PIL import Image
from test_tos_world import two_rooms

from playbench.tasks.tos.render3d import MODELS, render_legend, render_view
from playbench.tasks.tos.world import Pose
from playbench.tasks.tos.worldgen import FACING_NAMES, ORIENTED_NAMES, PLAIN_NAMES, UNORIENTED_NAMES


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_every_object_name_has_a_model():
    assert set(FACING_NAMES) | set(PLAIN_NAMES) <= set(MODELS)
    assert set(ORIENTED_NAMES) | set(UNORIENTED_NAMES) | {"red chair"} <= set(
        MODELS
    )  # the authors' vocabulary


def test_views_are_deterministic_and_sized():
    w = two_rooms()
    a = render_view(w, Pose(0, 0, "north"), 160)
    assert a == render_view(w, Pose(0, 0, "north"), 160)
    assert pixels(a).shape == (160, 160, 3)  # square, as the paper's 384 x 384 views
    assert a != render_view(w, Pose(0, 0, "east"), 160)


def test_a_door_is_closed_from_the_room_and_open_from_its_doorway():
    w = two_rooms()

    def red_share(png: bytes) -> float:
        px = pixels(png).astype(int)
        return float(((px[..., 0] > 150) & (px[..., 1] < 90) & (px[..., 2] < 90)).mean())

    # two steps away the closed red door fills a good part of the view
    assert red_share(render_view(w, Pose(1, 1, "east"), 160)) > 0.06
    # standing in the doorway the door is open: only the (red) chair of the next room is seen
    assert red_share(render_view(w, Pose(3, 1, "east"), 160)) < 0.04


def test_legend_has_one_tile_per_object():
    w = two_rooms()
    legend = pixels(render_legend(w))
    assert legend.shape == (2 * 190, 3 * 300, 3)  # four objects in rows of three


def test_views_are_identical_in_a_fresh_process():
    import hashlib
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import hashlib\nfrom test_tos_world import two_rooms\nfrom playbench.tasks.tos.render3d import render_view, "
        "render_legend\nfrom playbench.tasks.tos.world import Pose\nw = two_rooms()\n"
        "print(hashlib.sha256(render_view(w, Pose(3, 1, 'west'), 160) + render_legend(w)).hexdigest())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent
    )
    assert out.returncode == 0, out.stderr
    w = two_rooms()
    here = hashlib.sha256(render_view(w, Pose(3, 1, "west"), 160) + render_legend(w)).hexdigest()
    assert out.stdout.strip().splitlines()[-1] == here


def test_legend_labels_stay_legible_over_tall_dark_models():
    """A wardrobe (tall, dark brown) reaches the label's corner; the label keeps a light plate."""
    from playbench.tasks.tos.world import Room, World, WorldObject

    w = World(
        width=7,
        height=7,
        rooms=[Room(id=0, x0=-2, y0=-1, x1=2, y1=3)],
        objects=[WorldObject(name="wardrobe", x=0, y=2, room=0, facing="south")],
    )
    px = pixels(render_legend(w)).astype(int)
    label = px[6:28, 6:110]  # inside the "1. wardrobe" label of the first tile
    brown = (label[..., 0] - label[..., 2] > 40) & (label[..., 0] < 200)
    assert not brown.any()
