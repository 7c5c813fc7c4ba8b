"""Images as they go on the wire: PNG as kept, or JPEG when an original sent JPEG.

Tasks keep every image as PNG bytes (lossless, what the run directory stores); a model backend
encodes it only at send time. JPEG encodings are cached by the image's digest, since a real chat
sends the same earlier views again on every turn.
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache

from PIL import Image

from playbench.core.types import ImagePart

# Pillow's default quality, which an original calling `Image.save(buf, format="JPEG")` used.
JPEG_QUALITY = 75


@lru_cache(maxsize=256)
def _jpeg(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as img:
        out = io.BytesIO()
        img.convert("RGB").save(out, format="JPEG", quality=JPEG_QUALITY)
        return out.getvalue()


def wire_bytes(image: ImagePart) -> tuple[str, bytes]:
    """(media type, bytes) of the image as it is sent."""
    if image.send_as == "jpeg":
        return "image/jpeg", _jpeg(image.png)
    return "image/png", image.png


def wire_base64(image: ImagePart) -> tuple[str, str]:
    """(media type, base64 text) of the image as it is sent."""
    media_type, data = wire_bytes(image)
    return media_type, base64.b64encode(data).decode("ascii")


def data_uri(image: ImagePart) -> str:
    media_type, data = wire_base64(image)
    return f"data:{media_type};base64,{data}"
