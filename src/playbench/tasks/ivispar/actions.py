"""Reading a move out of a free-form reply. Pure string work: nothing is ever evaluated.

The command is looked for in the first non-empty line after the LAST ``action:`` (any case), or,
when the reply has no ``action:``, in its last non-empty line. That line is lower-cased and every
character other than a-z, 0-9 and whitespace becomes a space, which removes markdown, quotes,
brackets and punctuation. Articles and "to" are dropped. The first ``move`` must be followed by
exactly two words and a direction; anything after the direction is ignored. The two words may
come in either order when one is a known shape and the other a known color, and shapes may be
called by their 2D glyph names (circle, square, triangle, hexagon, diamond, rectangle).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playbench.tasks.ivispar.board import (
    COLOR_ALIASES,
    DIRECTIONS,
    GEOM_COLORS,
    SHAPE_ALIASES,
    SHAPES,
    normalize_color,
    normalize_shape,
)

_ACTION = re.compile(r"action\s*:", re.IGNORECASE)
_NON_WORD = re.compile(r"[^a-z0-9\s]+")
FILLERS = frozenset({"the", "a", "an", "to"})
DIRECTION_WORDS: dict[str, str] = {d: d for d in DIRECTIONS} | {
    "upward": "up",
    "upwards": "up",
    "downward": "down",
    "downwards": "down",
    "leftward": "left",
    "leftwards": "left",
    "rightward": "right",
    "rightwards": "right",
}
_SHAPE_WORDS = frozenset(SHAPES) | frozenset(SHAPE_ALIASES)
_COLOR_WORDS = frozenset(GEOM_COLORS) | frozenset(COLOR_ALIASES)
FORMAT_HINT = "end your reply with a line 'action: move <color> <shape> <direction>' (direction: up, down, left or right)"


@dataclass(frozen=True)
class ParsedMove:
    color: str
    shape: str
    direction: str

    @property
    def text(self) -> str:
        return f"move {self.color} {self.shape} {self.direction}"


@dataclass(frozen=True)
class ParseFailure:
    reason: str
    snippet: str


def command_line(reply: str) -> str:
    """The line a command is read from (see the module docstring)."""
    matches = list(_ACTION.finditer(reply))
    if matches:
        tail = reply[matches[-1].end() :]
        for line in tail.splitlines():
            if line.strip():
                return line.strip()
        return ""
    for line in reversed(reply.splitlines()):
        if line.strip():
            return line.strip()
    return ""


def parse_move(reply: str) -> ParsedMove | ParseFailure:
    line = command_line(reply)
    snippet = shorten(line)
    if not line:
        where = "after 'action:'" if _ACTION.search(reply) else "in the reply"
        return ParseFailure(f"nothing to read {where}", snippet)
    tokens = [t for t in _NON_WORD.sub(" ", line.lower()).split() if t not in FILLERS]
    if "move" not in tokens:
        return ParseFailure("no 'move' command found", snippet)
    rest = tokens[tokens.index("move") + 1 :]
    where = next((k for k, t in enumerate(rest) if t in DIRECTION_WORDS), None)
    if where is None:
        return ParseFailure("no direction (up, down, left or right) after 'move'", snippet)
    words = rest[:where]
    if len(words) != 2:
        found = " ".join(words) if words else "nothing"
        return ParseFailure(
            f"expected a color and a shape between 'move' and the direction, found '{found}'", snippet
        )
    first, second = words
    if first in _SHAPE_WORDS and second in _COLOR_WORDS:
        first, second = second, first
    return ParsedMove(normalize_color(first), normalize_shape(second), DIRECTION_WORDS[rest[where]])


def shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
