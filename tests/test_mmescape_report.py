"""MM-Escape observations (history modes, hint, rendering) and report figures."""

import io

import numpy as np
from PIL import Image

from playbench.cli import main
from playbench.core.registry import make_task
from playbench.core.types import ImagePart, TextPart
from playbench.report.tables import load_run
from playbench.tasks.mmescape.plots import make_plots


def played(history: str, **options):
    task = make_task("mmescape/level-3-note-key", protocol="playbench", history=history, **options)
    task.reset(task.instances(1, 0)[0])
    task.observe("player")
    task.step('{"rotate_right": 30}')
    task.step(task.oracle_action("player"))  # re-planned from here; picks up or walks
    task.step("not json")
    return task, task.observe("player")


def test_history_modes_shape_the_observation():
    _, full = played("full")
    history = [
        p
        for p in full.parts
        if isinstance(p, TextPart) and p.text.startswith("Step ") and "you did" in p.text
    ]
    assert len(history) == 3 and len(full.images) == 4  # three past views and the current one
    _, last = played("last", history_steps=2)
    assert len([p for p in last.parts if isinstance(p, ImagePart)]) == 3
    _, none = played("none")
    assert len(none.images) == 1 and "History" not in none.text
    task, key = played("key", history_images=False)
    keys = [r.step for r in task._history if r.key]
    assert len(key.images) == 1
    assert all(f"Step {s}: you did" in key.text for s in keys)
    assert "Step 1: you did" not in key.text  # a plain turn is not a key step


def test_hint_describes_the_chain_without_places():
    task = make_task("mmescape/level-3-note-key", protocol="playbench", hint=True)
    task.reset(task.instances(1, 0)[0])
    text = task.observe("player").instructions
    assert (
        "Hint: This room: find a note and read it (it tells a password), then open a locked box with the password"
        in text
    )
    assert "open the door (it needs a key)" in text
    plain = make_task("mmescape/level-3-note-key", protocol="playbench")
    plain.reset(plain.instances(1, 0)[0])
    assert "Hint" not in plain.observe("player").instructions


def test_the_view_is_a_furnished_room_with_a_red_dot():
    task = make_task("mmescape/level-2", protocol="playbench")
    task.reset(task.instances(1, 2)[0])
    obs = task.observe("player")
    image = np.asarray(Image.open(io.BytesIO(obs.images[0].png)).convert("RGB"))
    assert image.shape == (512, 512, 3)
    assert tuple(image[256, 256]) == (230, 20, 20)
    assert task.observe("player").images[0].png == obs.images[0].png  # cached and deterministic
    colours = set()
    for _ in range(4):  # all around: walls, floor, furniture in many shades
        view = np.asarray(Image.open(io.BytesIO(task.observe("player").images[0].png)).convert("RGB"))
        colours |= {tuple(c) for c in view[::16, ::16].reshape(-1, 3)}
        task.step('{"rotate_right": 90}')
    assert len(colours) > 60


def test_report_figures(tmp_path):
    runs = []
    for agent in ("oracle", "random"):
        out = tmp_path / agent
        assert (
            main(
                [
                    "run",
                    "mmescape/level-1",
                    "mmescape/level-2",
                    "--set",
                    "protocol=playbench",
                    "--agent",
                    agent,
                    "--episodes",
                    "3",
                    "--out",
                    str(out),
                    # random play renders every step; a short cap keeps this plot test quick
                    *(["--set", "max_steps=12"] if agent == "random" else []),
                ]
            )
            == 0
        )
        runs.append(load_run(out))
    paths = make_plots(runs, tmp_path / "plots")
    assert sorted(p.name for p in paths) == [
        "mmescape_distance.png",
        "mmescape_overview.png",
        "mmescape_steps_grabs.png",
    ]
    assert all(p.stat().st_size > 10_000 for p in paths)
