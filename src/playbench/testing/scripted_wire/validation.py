"""Request validation for the scripted server: each wire's body checked as the real API would check
it, so a backend's wire-format mistake fails against the test double too. Each `_validate_*`
returns the API's error message, or None for a valid request."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from playbench.testing.scripted_wire.requests import (
    _DATA_URI,
    _b64_bytes,
    _camel,
    _gemini_system,
    _get,
    _snake,
)

_ANTHROPIC_MEDIA = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_OPENAI_ROLES = {"system", "developer", "user", "assistant", "tool"}


# --- validation, as strict as the real APIs on the points our backends could get wrong ----------


def _b64_ok(data: object) -> bool:
    if not isinstance(data, str) or not data:
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _validate_openai(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    if body.get("stream"):
        return "ScriptedServer does not stream; send stream=false"
    for key in ("max_tokens", "max_completion_tokens"):
        v = body.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            return f"Invalid '{key}': expected an integer >= 1, got {v!r}"
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _OPENAI_ROLES:
            role = m.get("role") if isinstance(m, dict) else m
            return f"Invalid value for 'messages[{i}].role': {role!r}"
        content = m.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return f"Invalid 'messages[{i}].content': expected a string or an array of content parts"
        for j, part in enumerate(content):
            where = f"messages[{i}].content[{j}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    return f"Missing required parameter: '{where}.text'"
            elif kind == "image_url":
                if m["role"] != "user":
                    return f"Invalid '{where}': image content is only allowed in messages with role 'user'"
                url = (part.get("image_url") or {}).get("url")
                if not isinstance(url, str):
                    return f"Missing required parameter: '{where}.image_url.url'"
                match = _DATA_URI.match(url)
                if match:
                    if not _b64_ok(match.group(2)):
                        return f"Invalid '{where}.image_url.url': the data URI is not valid base64"
                elif not url.startswith(("http://", "https://")):
                    return f"Invalid '{where}.image_url.url': expected a URL or a base64 data URI"
            else:
                return f"Invalid value for '{where}.type': {kind!r}"
    return None


def _validate_anthropic(body: dict[str, Any], headers: dict[str, str]) -> str | None:
    if "anthropic-version" not in headers:
        return "anthropic-version: header is required"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    mt = body.get("max_tokens")
    if isinstance(mt, bool) or not isinstance(mt, int) or mt < 1:
        return "max_tokens: Field required (an integer >= 1)"
    if body.get("stream"):
        return "ScriptedServer does not stream; send stream=false"
    system = body.get("system")
    if (
        system is not None
        and not isinstance(system, str)
        and (
            not isinstance(system, list)
            or any(
                not isinstance(b, dict) or b.get("type") != "text" or not isinstance(b.get("text"), str)
                for b in system
            )
        )
    ):
        return "system: Input should be a string or a list of text blocks"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("user", "assistant"):
            if role == "system":
                return (
                    f'messages.{i}.role: Unexpected role "system". The Messages API accepts a top-level '
                    '`system` parameter, not "system" as an input message role.'
                )
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = m.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list) or not content:
            return f"messages.{i}.content: Input should be a string or a non-empty list of content blocks"
        for j, block in enumerate(content):
            where = f"messages.{i}.content.{j}"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                if not isinstance(block.get("text"), str):
                    return f"{where}.text: Field required"
            elif kind == "image":
                if role != "user":
                    return f"{where}: image blocks are only allowed in user messages"
                source = block.get("source")
                if not isinstance(source, dict) or source.get("type") != "base64":
                    return f"{where}.source: expected a base64 image source"
                if source.get("media_type") not in _ANTHROPIC_MEDIA:
                    return f"{where}.source.media_type: Input should be one of {sorted(_ANTHROPIC_MEDIA)}"
                if not _b64_ok(source.get("data")):
                    return f"{where}.source.data: invalid base64 data"
            else:
                return f"{where}.type: unknown content block type {kind!r}"
    return None


# Gemini's messages by their fields' camelCase names (the API takes snake_case too).
_GOOGLE_REQUEST_FIELDS = {
    "model", "contents", "systemInstruction", "generationConfig", "safetySettings", "tools",
    "toolConfig", "cachedContent", "labels", "serviceTier", "store",
}  # fmt: skip
_GOOGLE_CONTENT_FIELDS = {"role", "parts"}
_GOOGLE_PART_DATA = {
    "text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode",
    "codeExecutionResult",
}  # fmt: skip
_GOOGLE_PART_FIELDS = _GOOGLE_PART_DATA | {
    "thought", "thoughtSignature", "videoMetadata", "mediaResolution", "partMetadata",
}  # fmt: skip
_GOOGLE_BLOB_FIELDS = {"mimeType", "data", "displayName"}
_GOOGLE_IMAGE_MEDIA = {"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}
_GOOGLE_GENERATION_FIELDS = {
    "stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema", "responseModalities",
    "candidateCount", "maxOutputTokens", "temperature", "topP", "topK", "seed", "presencePenalty",
    "frequencyPenalty", "responseLogprobs", "logprobs", "enableEnhancedCivicAnswers", "speechConfig",
    "thinkingConfig", "imageConfig", "mediaResolution",
}  # fmt: skip
_GOOGLE_THINKING_FIELDS = {"includeThoughts", "thinkingBudget", "thinkingLevel"}
_GOOGLE_THINKING_LEVELS = {"THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"}


def _unknown_field(obj: dict[str, Any], known: set[str], where: str) -> str | None:
    for key in obj:
        if _camel(str(key)) not in known:
            return f"Invalid JSON payload received. Unknown name \"{key}\" at '{where}': Cannot find field."
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _validate_google_content(content: object, where: str, *, system: bool = False) -> str | None:
    if not isinstance(content, dict):
        return f"* GenerateContentRequest.{where}: must be an object with parts"
    problem = _unknown_field(content, _GOOGLE_CONTENT_FIELDS, where)
    if problem:
        return problem
    role = content.get("role")
    if not system and role is not None and role not in ("user", "model"):
        return "Please use a valid role: user, model."
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        return f"* GenerateContentRequest.{where}.parts: contents.parts must not be empty."
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        if not isinstance(part, dict):
            return f"Invalid value at '{at}': expected a Part object"
        problem = _unknown_field(part, _GOOGLE_PART_FIELDS, at)
        if problem:
            return problem
        data = [_camel(k) for k in part if _camel(k) in _GOOGLE_PART_DATA]
        if len(data) != 1:
            return f"* GenerateContentRequest.{at}.data: required oneof field 'data' must have one initialized field"
        if system and data[0] != "text":
            return f"* GenerateContentRequest.{at}: system_instruction takes text parts only"
        if data[0] == "text" and not isinstance(part[next(k for k in part if _camel(k) == "text")], str):
            return f"Invalid value at '{at}.text' (TYPE_STRING)"
        if data[0] == "inlineData":
            blob = _get(part, "inlineData")
            if not isinstance(blob, dict):
                return f"Invalid value at '{at}.inline_data': expected a Blob object"
            problem = _unknown_field(blob, _GOOGLE_BLOB_FIELDS, f"{at}.inline_data")
            if problem:
                return problem
            mime = _get(blob, "mimeType")
            if not isinstance(mime, str) or "/" not in mime:
                return f"* GenerateContentRequest.{at}.inline_data.mime_type: a MIME type is required"
            if mime.startswith("image/") and mime not in _GOOGLE_IMAGE_MEDIA:
                return f"Unsupported MIME type: {mime}"
            if _b64_bytes(blob.get("data")) is None:
                return f"Invalid value at '{at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed"
    return None


def _validate_google_generation(config: object) -> str | None:
    where = "generation_config"
    if not isinstance(config, dict):
        return f"Invalid value at '{where}': expected a GenerationConfig object"
    problem = _unknown_field(config, _GOOGLE_GENERATION_FIELDS, where)
    if problem:
        return problem
    ranges = {"temperature": (0.0, 2.0), "topP": (0.0, 1.0)}
    for name, (low, high) in ranges.items():
        value = _get(config, name)
        if value is not None and (not _is_number(value) or not low <= value <= high):
            return f"* GenerateContentRequest.generation_config.{_snake(name)}: must be in [{low:g}, {high:g}] (got {value!r})"
    for name in ("maxOutputTokens", "topK", "candidateCount"):
        value = _get(config, name)
        if value is not None and (not _is_int(value) or value < 1):
            return f"* GenerateContentRequest.generation_config.{_snake(name)}: must be an integer >= 1 (got {value!r})"
    if _get(config, "candidateCount") not in (None, 1):
        return "ScriptedServer answers one candidate; send candidate_count 1 or none"
    seed = _get(config, "seed")
    if seed is not None and not _is_int(seed):
        return f"Invalid value at 'generation_config.seed' (TYPE_INT32), {seed!r}"
    thinking = _get(config, "thinkingConfig")
    if thinking is None:
        return None
    at = f"{where}.thinking_config"
    if not isinstance(thinking, dict):
        return f"Invalid value at '{at}': expected a ThinkingConfig object"
    problem = _unknown_field(thinking, _GOOGLE_THINKING_FIELDS, at)
    if problem:
        return problem
    budget, level = _get(thinking, "thinkingBudget"), _get(thinking, "thinkingLevel")
    include = _get(thinking, "includeThoughts")
    if include is not None and not isinstance(include, bool):
        return f"Invalid value at '{at}.include_thoughts' (TYPE_BOOL), {include!r}"
    if budget is not None and (not _is_int(budget) or budget < -1):
        return f"* GenerateContentRequest.{at}.thinking_budget: must be -1 (dynamic) or >= 0 (got {budget!r})"
    if level is not None and (not isinstance(level, str) or level.upper() not in _GOOGLE_THINKING_LEVELS):
        return f"Invalid value at '{at}.thinking_level' (type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel), {level!r}"
    if budget is not None and level is not None:
        return "Thinking budget and thinking level cannot be set at the same time; set only one of them."
    return None


def _validate_google(body: dict[str, Any], method: str) -> str | None:
    if method == "streamGenerateContent":
        return "ScriptedServer does not stream; call generateContent"
    problem = _unknown_field(body, _GOOGLE_REQUEST_FIELDS, "")
    if problem:
        return problem.replace(" at ''", "")
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for i, content in enumerate(contents):
        problem = _validate_google_content(content, f"contents[{i}]")
        if problem:
            return problem
    system = _gemini_system(body)
    if system is not None:
        problem = _validate_google_content(system, "system_instruction", system=True)
        if problem:
            return problem
    config = _get(body, "generationConfig")
    return None if config is None else _validate_google_generation(config)
