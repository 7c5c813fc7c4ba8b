"""What a request says, on any of the three wires: its messages' text, the last user turn, the system
prompt, its images and the input-token count the server reports (OpenAI and Anthropic `messages`,
Gemini `contents` under camelCase or snake_case field names)."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

IMAGE_TOKENS = 85

_DATA_URI = re.compile(r"^data:(image/(?:png|jpeg|gif|webp));base64,(.*)$", re.DOTALL)


# --- helpers tests use to look at requests ------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """The server's token count for a piece of text: its whitespace-separated words."""
    return len(text.split())


def _content_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [p for p in content if isinstance(p, dict)]
    return []


def _snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _camel(name: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


def _get(obj: Any, name: str) -> Any:
    """A Gemini field by its camelCase name, sent under that name or its snake_case one (protobuf
    JSON accepts both, and google-genai sends a mix: `inlineData` holding `mime_type`)."""
    if not isinstance(obj, dict):
        return None
    return obj[name] if name in obj else obj.get(_snake(name))


def _b64_bytes(data: object) -> bytes | None:
    """Base64 as protobuf JSON takes it for bytes (standard or URL-safe alphabet); None if invalid."""
    if not isinstance(data, str) or not data:
        return None
    for alphabet in (None, b"-_"):
        try:
            return base64.b64decode(data + "=" * (-len(data) % 4), altchars=alphabet, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


def _gemini_parts(content: Any) -> list[dict[str, Any]]:
    """A Gemini content's parts in the neutral form the helpers below read: answer text (thought
    parts left out) and inline data."""
    out: list[dict[str, Any]] = []
    parts = _get(content, "parts")
    for p in parts if isinstance(parts, list) else []:
        if not isinstance(p, dict):
            continue
        if isinstance(p.get("text"), str) and not p.get("thought"):
            out.append({"type": "text", "text": p["text"]})
        inline = _get(p, "inlineData")
        if isinstance(inline, dict):
            out.append(
                {"type": "inline_data", "mime_type": _get(inline, "mimeType"), "data": inline.get("data")}
            )
    return out


def _message_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    if "parts" in message:  # a Gemini content
        return _gemini_parts(message)
    return _content_parts(message.get("content"))


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation of a request body: OpenAI/Anthropic `messages`, Gemini `contents`."""
    turns = body.get("messages") if "messages" in body else body.get("contents")
    return [m for m in turns or [] if isinstance(m, dict)]


def message_text(message: dict[str, Any]) -> str:
    """The text of one wire message (any protocol), parts joined by newlines."""
    return "\n".join(str(p.get("text", "")) for p in _message_parts(message) if p.get("type") == "text")


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions, messages or generateContent body."""
    for m in reversed(_messages(body)):
        # a Gemini content without a role is the user's
        if m.get("role", "user" if "parts" in m else None) == "user":
            return message_text(m)
    return ""


def _gemini_system(body: dict[str, Any]) -> Any:
    return _get(body, "systemInstruction")


def system_text(body: dict[str, Any]) -> str:
    """The system prompt: an OpenAI system message, Anthropic's `system` param or Gemini's
    `systemInstruction`."""
    if "system" in body:
        s = body["system"]
        return s if isinstance(s, str) else "\n".join(str(b.get("text", "")) for b in _content_parts(s))
    instruction = _gemini_system(body)
    if instruction is not None:
        return message_text({"parts": _get(instruction, "parts")})
    return "\n".join(message_text(m) for m in _messages(body) if m.get("role") == "system")


def request_images(body: dict[str, Any]) -> list[bytes]:
    """The decoded bytes of every image in a request, in order (data URIs, base64 blocks, inline data)."""
    return [data for _, data in request_media(body)]


def request_media(body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(media type, decoded bytes) of every image in a request, in order."""
    out: list[tuple[str, bytes]] = []
    for m in _messages(body):
        for p in _message_parts(m):
            if p.get("type") == "image_url":
                match = _DATA_URI.match(str((p.get("image_url") or {}).get("url", "")))
                if match:
                    out.append((match.group(1), base64.b64decode(match.group(2))))
            elif p.get("type") == "image":
                source = p.get("source") or {}
                out.append((str(source.get("media_type")), base64.b64decode(source.get("data", ""))))
            elif p.get("type") == "inline_data":
                out.append((str(p.get("mime_type")), _b64_bytes(p.get("data")) or b""))
    return out


def prompt_tokens(body: dict[str, Any]) -> int:
    """The input-token count the server reports for a request body."""
    has_own_system = "system" in body or _gemini_system(body) is not None
    n = estimate_tokens(system_text(body)) if has_own_system else 0
    for m in _messages(body):
        for p in _message_parts(m):
            if p.get("type") == "text":
                n += estimate_tokens(str(p.get("text", "")))
            elif p.get("type") in ("image_url", "image", "inline_data"):
                n += IMAGE_TOKENS
    return n
