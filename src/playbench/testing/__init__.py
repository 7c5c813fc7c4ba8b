"""Test helpers shipped with the package: a scripted local model server (OpenAI, Anthropic, Gemini wires).

Names are loaded lazily so that `python -m playbench.testing.scripted_server` does not import the
module twice (runpy warns when a `-m` target is already in sys.modules).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "IMAGE_TOKENS",
    "RecordedRequest",
    "ScriptedFailure",
    "ScriptedReply",
    "ScriptedServer",
    "estimate_tokens",
    "last_user_text",
    "message_text",
    "prompt_tokens",
    "request_images",
    "request_media",
    "system_text",
    "unused_port",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from playbench.testing import scripted_server

        return getattr(scripted_server, name)
    raise AttributeError(f"module 'playbench.testing' has no attribute {name!r}")
