"""Reading the player's action JSON and checking it against the original's ranges.

The reply should be one JSON object with any of the keys `move_forward` [-10, 10] m,
`rotate_right` [-180, 180] deg, `rotate_down` [-90, 90] deg, `jump` (bool), `look_at` ([x, y] in
[0, 1]), `grab` (bool), `interactions` ({"use_item_id": str, "input": str}, only with grab),
`read` (an item id) and `rationale` (str). Every key is optional.

Parsing is plain string work (never `eval`): the last top-level `{...}` of the reply that decodes
as JSON is the action, after removing Markdown code fences. Python spellings (`True`, `False`,
`None`) and trailing commas, which models often write, are accepted. Numbers may come as numeric
strings. Any problem gives a `ParseError` (the reply is not an action) or a `RangeError` (a value
out of range or of the wrong type), each with a message that names the key and what was expected.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

RANGES: dict[str, tuple[float, float]] = {
    "move_forward": (-10.0, 10.0),
    "rotate_right": (-180.0, 180.0),
    "rotate_down": (-90.0, 90.0),
}
KEYS: tuple[str, ...] = (
    "move_forward",
    "rotate_right",
    "rotate_down",
    "jump",
    "look_at",
    "grab",
    "interactions",
    "read",
    "rationale",
)
MAX_INPUT = 64
MAX_REPLY = 100_000


class ParseError(ValueError):
    """The reply holds no readable action JSON."""


class RangeError(ValueError):
    """The action JSON is readable but a value is out of range or of the wrong type."""


@dataclass
class Action:
    move_forward: float = 0.0
    rotate_right: float = 0.0
    rotate_down: float = 0.0
    jump: bool = False
    look_at: tuple[float, float] | None = None
    grab: bool = False
    use_item_id: str | None = None
    input: str | None = None
    read: str | None = None
    rationale: str = ""
    ignored: list[str] = field(default_factory=list)  # unknown keys, reported back
    # the keys of the reply in its own order (the original answers them in this order)
    order: tuple[str, ...] = ()
    has_rationale: bool = False  # the reply carried a "rationale" (the original's grab needs one)
    moved_keys: bool = False  # a movement key was given a non-zero value (even one that turns nothing)
    look_key: bool = False  # the original's look_at was used (not the centre [0.5, 0.5])
    data: dict[str, Any] | None = None  # the reply's JSON object as read

    def reply_json(self) -> str:
        """The reply as the original keeps it in the conversation: its JSON object as read and
        cleaned, re-serialised by `json.dumps` with its defaults (`src/Game.py` line 550: ASCII
        escapes, ", " and ": " separators, the keys in the reply's order)."""
        return json.dumps(self.data) if self.data is not None else self.canonical(True)

    @property
    def moves(self) -> bool:
        return bool(self.move_forward or self.rotate_right or self.rotate_down or self.look_at or self.jump)

    def canonical(self, with_rationale: bool = False) -> str:
        """The action as compact JSON with only the keys that do something (for logs); with
        `with_rationale`, the player's stated rationale too (the `parsed` field of trajectories)."""
        out: dict[str, Any] = {}
        for key in ("move_forward", "rotate_right", "rotate_down"):
            value = getattr(self, key)
            if value:
                out[key] = round(value, 4)
        if self.jump:
            out["jump"] = True
        if self.look_at is not None:
            out["look_at"] = [round(v, 4) for v in self.look_at]
        if self.grab:
            out["grab"] = True
        inter = {k: v for k, v in (("use_item_id", self.use_item_id), ("input", self.input)) if v is not None}
        if inter:
            out["interactions"] = inter
        if self.read is not None:
            out["read"] = self.read
        if with_rationale and self.rationale:
            out["rationale"] = self.rationale
        return json.dumps(out, ensure_ascii=False, sort_keys=False)


_FENCE = re.compile(r"```(?:json|JSON)?")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


def _objects(text: str) -> list[str]:
    """Top-level balanced {...} spans, ignoring braces inside JSON strings."""
    spans: list[str] = []
    depth = 0
    start = -1
    in_string = False
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                in_string = False
            continue
        if ch == '"' and depth > 0:
            in_string, quote = True, ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _lenient(src: str) -> str:
    """Python literals to JSON and trailing commas dropped, outside strings only."""
    out: list[str] = []
    i = 0
    n = len(src)
    while i < n:
        ch = src[i]
        if ch == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1])
            i = j + 1
            continue
        if ch.isalpha():
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            word = src[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
            continue
        if ch == ",":
            j = i + 1
            while j < n and src[j] in " \t\r\n":
                j += 1
            if j < n and src[j] in "}]":
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def extract_json(text: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ParseError("the reply is not text")
    if len(text) > MAX_REPLY:
        text = text[:MAX_REPLY]
    cleaned = _FENCE.sub("", text)
    spans = _objects(cleaned)
    if not spans:
        raise ParseError('no JSON object found; reply with one JSON object such as {"rotate_right": 30}')
    last_error = ""
    for span in reversed(spans):
        for candidate in (span, _lenient(span)):
            try:
                value = json.loads(candidate)
            except json.JSONDecodeError as exc:
                last_error = f"{exc.msg} at column {exc.colno}"
                continue
            except RecursionError:
                last_error = "nested too deeply"
                continue
            if isinstance(value, dict):
                return value
    raise ParseError(f"the JSON object could not be read ({last_error})")


def _number(data: dict[str, Any], key: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RangeError(f"{key} must be a number, got {json.dumps(value)[:40]}")
    try:
        number = float(value)
    except ValueError:
        raise RangeError(f"{key} must be a number, got {json.dumps(value)[:40]}") from None
    if not math.isfinite(number):
        raise RangeError(f"{key} must be a finite number, got {value!r}")
    lo, hi = RANGES[key]
    if not lo <= number <= hi:
        unit = "metres" if key == "move_forward" else "degrees"
        raise RangeError(f"{key} must be between {lo:g} and {hi:g} {unit}, got {number:g}")
    return number


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data[key]
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise RangeError(f"{key} must be true or false, got {json.dumps(value)[:40]}")


def _text(value: Any, key: str, limit: int) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise RangeError(f"{key} must be a string, got {json.dumps(value)[:40]}")
    value = value.strip()
    if len(value) > limit:
        raise RangeError(f"{key} is too long ({len(value)} characters; at most {limit})")
    return value


def parse_action(text: str) -> Action:
    """The action in a reply. Raises ParseError or RangeError with a specific message."""
    data = extract_json(text)
    action = Action()
    present = {k: v for k, v in data.items() if v is not None}
    action.ignored = sorted(k for k in present if k not in KEYS)
    for key in ("move_forward", "rotate_right", "rotate_down"):
        if key in present:
            setattr(action, key, _number(present, key))
    if "jump" in present:
        action.jump = _flag(present, "jump")
    if "grab" in present:
        action.grab = _flag(present, "grab")
    if "look_at" in present:
        value = present["look_at"]
        if isinstance(value, dict) and set(value) == {"x", "y"}:
            value = [value["x"], value["y"]]
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise RangeError(
                f"look_at must be a list [x, y] of two numbers in [0, 1], got {json.dumps(value)[:40]}"
            )
        coords = []
        for axis, v in zip("xy", value, strict=True):
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise RangeError(f"look_at {axis} must be a number in [0, 1], got {json.dumps(v)[:20]}")
            if not (math.isfinite(v) and 0.0 <= v <= 1.0):
                raise RangeError(f"look_at {axis} must be between 0 and 1, got {v:g}")
            coords.append(float(v))
        action.look_at = (coords[0], coords[1])
    if "interactions" in present:
        inter = present["interactions"]
        if not isinstance(inter, dict):
            raise RangeError(
                f'interactions must be an object {{"use_item_id": ..., "input": ...}}, got {json.dumps(inter)[:40]}'
            )
        unknown = sorted(set(inter) - {"use_item_id", "input"})
        if unknown:
            raise RangeError(f"interactions takes only use_item_id and input, got {', '.join(unknown)}")
        if inter.get("use_item_id") not in (None, ""):
            action.use_item_id = _text(inter["use_item_id"], "interactions.use_item_id", MAX_INPUT)
        if inter.get("input") not in (None, ""):
            action.input = _text(inter["input"], "interactions.input", MAX_INPUT)
        if (action.use_item_id or action.input) and not action.grab:
            raise RangeError(
                'interactions apply to the object under the red dot and need "grab": true in the same action '
                '(to see what an item in your bag says, use "read")'
            )
    if "read" in present and present["read"] != "":
        action.read = _text(present["read"], "read", MAX_INPUT)
    if "rationale" in present:
        r = present["rationale"]
        action.rationale = (r if isinstance(r, str) else json.dumps(r))[:4000]
        action.has_rationale = True
    action.order = tuple(k for k in data if k in KEYS)
    action.data = data
    action.moved_keys = any(present.get(k) for k in ("move_forward", "rotate_right", "rotate_down", "jump"))
    return action


# --- the original's reply handling ----------------------------------------------------------------

# What the authors' code accepts (src/Game.py `__format_repsonse`, `__verify_format`, and the JSON
# schema `INTERACTIOH_SCHEMA` in src/prompt_config.py), reimplemented: the JSON is taken from a
# ```json fence (whose content may not contain "(", ")" or a backtick), else from after the last
# ":\n\n", else from after "<|assistant|>", else the whole reply less surrounding backticks and the
# letters of "json"; ": True"/": False" are accepted as JSON booleans.
_ORIGINAL_FENCE = re.compile(r"```json(?P<jstr>[^(`)]+)```")
_STRIP = set("</Assistant>")
ORIGINAL_KEYS = (
    "move_forward",
    "move_right",
    "rotate_right",
    "rotate_down",
    "jump",
    "look_at",
    "grab",
    "interactions",
    "read",
    "rationale",
)


def _strip_chars(text: str, chars: set[str]) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in chars:
        start += 1
    while end > start and text[end - 1] in chars:
        end -= 1
    return text[start:end]


def _original_json(text: str) -> Any:
    text = text.replace(": False", ": false").replace(": True", ": true")
    text = _strip_chars(text, _STRIP)
    if "```json" in text:
        m = _ORIGINAL_FENCE.search(text)
        if m is None:
            raise ParseError(
                "a ```json block was found, but it is not closed or holds a parenthesis or a backtick"
            )
        return json.loads(m.group("jstr").strip())
    if ":\n\n" in text:
        return json.loads(text.split(":\n\n")[-1].strip())
    if "<|assistant|>" in text:
        return json.loads(text.split("<|assistant|>")[-1].strip())
    return json.loads(_strip_chars(_strip_chars(text, {"`"}), set("json")))


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def parse_original(text: str) -> Action:
    """The action in a reply as the original accepts it; ParseError (no JSON as their code reads it)
    or RangeError (the JSON breaks their schema), each naming what was wrong. Unlike `parse_action`,
    `move_forward` has no range (their schema sets none), a `rotate_right` above 180 is dropped (their
    code moves it to an unused key), unknown keys are ignored silently, and `move_right` is accepted
    and does nothing here (their environment would side-step; the prompt never offers it)."""
    if not isinstance(text, str):
        raise ParseError("the reply is not text")
    try:
        data = _original_json(text[:MAX_REPLY])
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"the reply is not the JSON string asked for ({exc.msg} at column {exc.colno})"
        ) from None
    except RecursionError:
        raise ParseError("the reply's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ParseError("the reply's JSON is not an object")
    inter = data.get("interactions")
    if inter == {}:
        del data["interactions"]
    elif inter is not None:
        if not isinstance(inter, dict):
            raise RangeError("interactions must be an object")
        for key in ("use_item_id", "input"):
            if inter.get(key) is None:
                inter[key] = ""
    data = {k: v for k, v in data.items() if v is not None}
    problems: list[str] = []
    if "move_forward" in data and not _is_number(data["move_forward"]):
        problems.append("move_forward must be a number")
    for key, lo, hi in (("rotate_right", -180, 180), ("rotate_down", -90, 90)):
        if key in data:
            v = data[key]
            if not _is_number(v):
                problems.append(f"{key} must be a number")
            elif v < lo:
                problems.append(f"{key} must be at least {lo}, got {v:g}")
            elif v > hi and key == "rotate_down":
                problems.append(f"{key} must be at most {hi}, got {v:g}")
    for key in ("jump", "grab"):
        if key in data and not isinstance(data[key], bool):
            problems.append(f"{key} must be true or false")
    if "look_at" in data:
        v = data["look_at"]
        if not isinstance(v, list) or len(v) > 2 or not all(_is_number(c) and 0 <= c <= 1 for c in v):
            problems.append("look_at must be a list of at most two numbers from 0 to 1")
    if "interactions" in data:
        inter = data["interactions"]
        if not all(isinstance(inter.get(k), str) for k in ("use_item_id", "input")):
            problems.append("interactions.use_item_id and interactions.input must be strings")
        if data.get("grab") is not True:
            problems.append('interactions need "grab": true')
    for key in ("read", "rationale"):
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key} must be a string")
    if not any(k in data for k in ORIGINAL_KEYS):
        problems.append("the JSON has none of the action keys")
    if problems:
        raise RangeError("; ".join(problems))
    if _is_number(data.get("rotate_right")) and data["rotate_right"] > 180:
        # their fix moves it to "rotate_left", which nothing reads (kept in `data`, as their chat
        # keeps it in the reply it stores)
        right = data.pop("rotate_right")
        if data.get("rotate_left") is None:
            data["rotate_left"] = right - 180
    action = Action()
    action.data = data
    action.order = tuple(k for k in data if k in ORIGINAL_KEYS)
    # their code skips every key whose value is falsy (0, false, "", [], {})
    if data.get("move_forward"):
        action.move_forward = float(data["move_forward"])
    if data.get("rotate_right"):
        action.rotate_right = float(data["rotate_right"])
    if data.get("rotate_down"):
        action.rotate_down = float(data["rotate_down"])
    action.jump = bool(data.get("jump"))
    action.grab = bool(data.get("grab"))
    look = data.get("look_at")
    if look and len(look) == 2 and list(look) != [0.5, 0.5]:
        action.look_at = (float(look[0]), float(look[1]))
    if data.get("interactions"):
        inter = data["interactions"]
        action.use_item_id = inter["use_item_id"][:MAX_INPUT] or None
        action.input = inter["input"][:MAX_INPUT] or None
    if data.get("read"):
        action.read = data["read"][:MAX_INPUT]
    if "rationale" in data:
        action.rationale = data["rationale"][:4000]
        action.has_rationale = True
    action.moved_keys = any(
        data.get(k) for k in ("move_forward", "move_right", "rotate_right", "rotate_down", "jump")
    )
    action.look_key = bool(look) and len(look) == 2 and list(look) != [0.5, 0.5]
    return action
