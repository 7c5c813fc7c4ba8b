import io

import numpy as np
import pytest
from PIL import Image

from playbench.core.errors import ConfigError
from playbench.core.registry import make_task


def colours(png: bytes) -> set[tuple[int, int, int]]:
    return {tuple(p) for p in np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3).tolist()}


def first_current_image(task):
    task.reset(task.instances(3, 0)[2])
    return task.observe("player").all_images[-1].png


@pytest.mark.parametrize("modality", ["2d", "3d"])
def test_color_rgb_recolours_a_named_colour(modality):
    magenta = (255, 0, 255)
    plain = first_current_image(make_task(f"ivispar/sgp-{modality}"))
    recoloured = first_current_image(make_task(f"ivispar/sgp-{modality}", color_rgb={"red": list(magenta)}))
    assert plain != recoloured
    pixels = colours(recoloured)
    assert magenta in pixels or any(abs(r - 255) + g + abs(b - 255) < 60 for r, g, b in pixels)
    assert magenta not in colours(plain)


@pytest.mark.parametrize(
    "value, needle",
    [
        ({"teal": [0, 128, 128]}, "unknown color 'teal'"),
        ({"red": [1, 2]}, "three integers"),
        ("red", "object"),
    ],
)
def test_color_rgb_errors(value, needle):
    with pytest.raises(ConfigError, match=needle):
        make_task("ivispar/sgp", color_rgb=value)
