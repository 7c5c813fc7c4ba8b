"""Observations as Gymnasium data: the text of the turn and its images as uint8 arrays.

A task's observation holds text and PNG bytes (`core/types.py`); an RL or VLM training loop wants
strings and arrays. The spaces here describe exactly what the environments return:

- `text`: `AnyText`, a Gymnasium `Text` whose `contains` accepts every Unicode character. Tasks show
  characters outside any fixed charset (ToS's `°`, `•`, `×`; feedback that quotes a reply), so a charset
  would have to list all of Unicode (a million-entry set) to be true.
- `images`: a `Sequence` of `RGBImage`: uint8 arrays of shape (H, W, 3) decoded from the task's PNG
  bytes, every pixel as stored, never resized or padded. The number of images varies within an episode
  (iVISPAR shows its past states) and their size can vary with the instance or the seat (COMMA's
  expert sees a 786 x 722 manual page, the solver a 520 x 520 module), so a fixed `Box` would be false or
  need padding; `RGBImage.shapes` lists the sizes probed on the set's first observation of each seat.
"""

from __future__ import annotations

import io
import string
from collections import OrderedDict
from typing import Any

import numpy as np
from gymnasium import spaces
from PIL import Image

from playbench.core.types import ImagePart, Observation

# Far above any observation a task shows (the longest probed is ~3,000 characters); an observation
# longer than this is reported as an error rather than returned outside the space.
MAX_OBSERVATION_CHARS = 1_000_000
# The declared bound of a reply. `step` plays any string, as the runner does; samples stay this short so
# checkers that step with random replies stay fast.
MAX_ACTION_CHARS = 8192
# What `sample()` draws from: printable ASCII and a few characters tasks and models really produce.
SAMPLE_CHARSET = string.printable + "°•×→é漢🙂"


class AnyText(spaces.Text):
    """A `Text` space of any Unicode string between `min_length` and `max_length` characters.

    `contains` accepts every character; `sample` draws from `SAMPLE_CHARSET` (a charset listing all of
    Unicode would be a million-entry set)."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, AnyText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    __hash__ = None  # type: ignore[assignment]  # mutable like every Space


class RGBImage(spaces.Space[np.ndarray]):
    """uint8 RGB images of shape (H, W, 3), any H and W >= 1.

    `shapes` holds the (H, W) sizes probed on the task's first observations (what `sample` draws); an
    image of another size is still a member, as tasks may show one later (module- or file-dependent)."""

    def __init__(self, shapes: list[tuple[int, int]] | None = None, seed: Any = None) -> None:
        self.shapes: list[tuple[int, int]] = sorted(set(shapes or [])) or [(64, 64)]
        super().__init__(shape=None, dtype=np.uint8, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if mask is not None or probability is not None:
            raise NotImplementedError("RGBImage.sample takes no mask or probability")
        height, width = self.shapes[int(self.np_random.integers(len(self.shapes)))]
        return self.np_random.integers(0, 256, size=(height, width, 3), dtype=np.uint8)

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, np.ndarray)
            and x.dtype == np.uint8
            and x.ndim == 3
            and x.shape[2] == 3
            and x.shape[0] >= 1
            and x.shape[1] >= 1
        )

    def __repr__(self) -> str:
        return f"RGBImage(shapes={self.shapes})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RGBImage) and self.shapes == other.shapes

    __hash__ = None  # type: ignore[assignment]

    def to_jsonable(self, sample_n: Any) -> list[Any]:
        return [np.asarray(s).tolist() for s in sample_n]

    def from_jsonable(self, sample_n: list[Any]) -> list[np.ndarray]:
        return [np.asarray(s, dtype=np.uint8) for s in sample_n]


def observation_space(shapes: list[tuple[int, int]]) -> spaces.Dict:
    """The Dict space of one seat's observations (`shapes`: the image sizes probed for it)."""
    return spaces.Dict(
        {
            "text": AnyText(MAX_OBSERVATION_CHARS),
            "images": spaces.Sequence(RGBImage(shapes), stack=False),
        }
    )


def action_space() -> AnyText:
    """A reply: the text the task parses, as a model would send it."""
    return AnyText(MAX_ACTION_CHARS)


class ImageDecoder:
    """PNG bytes to uint8 RGB arrays, the last few decoded kept by digest (an observation is often
    observed twice, and iVISPAR repeats its goal image every turn); each call returns a fresh copy,
    since Gymnasium forbids returning the same array twice."""

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def __call__(self, image: ImagePart) -> np.ndarray:
        key = image.digest
        array = self._cache.get(key)
        if array is None:
            array = decode_png(image.png)
            self._cache[key] = array
            if len(self._cache) > self.keep:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return array.copy()


def decode_png(png: bytes) -> np.ndarray:
    """An image's pixels as a (H, W, 3) uint8 array. Every shipped task draws RGB PNGs, read as stored;
    a grey, palette or RGBA PNG (a third-party task's) is converted to RGB by Pillow, dropping alpha."""
    with Image.open(io.BytesIO(png)) as img:
        rgb = img if img.mode == "RGB" else img.convert("RGB")
        return np.array(rgb, dtype=np.uint8)


def image_shapes(obs: Observation) -> list[tuple[int, int]]:
    """The (H, W) sizes of every image an observation sends, read from the PNG headers only."""
    out = []
    for image in obs.all_images:
        with Image.open(io.BytesIO(image.png)) as img:
            out.append((img.height, img.width))
    return out


def to_observation(obs: Observation, decode: ImageDecoder) -> dict[str, Any]:
    """The Gymnasium observation of a task observation: this turn's text, and every image the model is
    sent this turn (the task's earlier turns' images first, then this turn's, as `Observation.all_images`
    orders them; `info["turns"]` says how many belong to each turn)."""
    text = obs.text
    if len(text) > MAX_OBSERVATION_CHARS:
        raise ValueError(
            f"an observation of {len(text)} characters exceeds the declared bound of {MAX_OBSERVATION_CHARS}"
        )
    return {"text": text, "images": tuple(decode(i) for i in obs.all_images)}
