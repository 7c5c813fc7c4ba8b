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
    return action
