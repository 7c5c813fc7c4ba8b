"""`encode_png`: fast deterministic PNG bytes of rendered frames (see `gl3d`)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import numpy as np
from PIL import Image


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(image: Image.Image | np.ndarray | Sequence[np.ndarray], compress_level: int = 3) -> bytes:
    """PNG bytes (8-bit RGB, no metadata) of a Pillow image, an (h, w, 3) uint8 array, or a list
    of such arrays of one width stacked top to bottom (e.g. a title band over a view, without
    first copying them into one array).

    Written here rather than with Pillow because frames are encoded once per step and Pillow
    tries all five PNG row filters on every row, which took ~3x longer for a 512x512 frame. Rows
    are stored unfiltered: rendered scenes are mostly flat runs that deflate packs well without a
    filter, and level 3 then gives files about as small as Pillow's level 1. Same input, same
    bytes (for one zlib version).
    """
    if isinstance(image, Image.Image):
        parts = [np.asarray(image.convert("RGB"))]
    elif isinstance(image, np.ndarray):
        parts = [image]
    else:
        parts = [np.asarray(p) for p in image]
    w = parts[0].shape[1] if parts and parts[0].ndim == 3 else 0
    for p in parts:
        if p.dtype != np.uint8 or p.ndim != 3 or p.shape[1:] != (w, 3) or w == 0:
            raise ValueError(f"expected (h, w, 3) uint8 images of one width, got {p.dtype} {p.shape}")
    h = sum(p.shape[0] for p in parts)
    rows = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none"
    y = 0
    for p in parts:
        rows[y : y + p.shape[0], 1:] = p.reshape(p.shape[0], 3 * w)
        y += p.shape[0]
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(memoryview(rows).cast("B"), compress_level))
        + _chunk(b"IEND", b"")
    )
