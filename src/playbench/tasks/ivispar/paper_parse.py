"""How the original reads a reply into a move, step by step (the default, `parser=paper`).

Our own code, following the behaviour of the authors' pipeline (facts from `anon148/iVISPAR`):
the agent side (`Source/Experiment/agent_systems.py`, `LLMAgent.parse_action` and
`parse_action_rmv_special_chars`) cuts the command out of the reply, and the simulator
(`Source/iVISPAR/Assets/Scripts/Level/TurnManager.cs`, `decodeCommand`) decodes it.

Extraction (`extract_command`):
1. Line breaks become spaces, every `*` and `#` is removed, the text is stripped and lower-cased.
2. The 2D glyph names are replaced by shape names wherever they occur, even inside a word:
   `circle` -> sphere, `square` -> cube, `triangle` -> pyramid, `hexagon` -> cylinder (and, our
   choice for the shapes the original has no glyph for, `diamond` -> cone, `rectangle` -> prism).
3. The text after the LAST occurrence of exactly `action: move ` (one space after the colon and
   one after `move`) is the command, prefixed with `move `. No such occurrence: no command, an
   illegal command (`action:move`, `action:  move`, `` action: `move ``, a reply without `action:`).
4. The command is cleaned: characters other than letters, digits and white space are removed,
   runs of white space become one space.

Decoding (`decode`), on the whole command (everything after `action: move ` to the end of the reply):
- shape: the first of `cube, tile, sphere, cylinder, pyramid, cone, prism` that occurs anywhere in
  it, even inside a word;
- colour: the word just before the last word that is exactly that shape (`tile`: the word after
  it); none when the shape occurs only inside a word;
- direction: the first of `left, right, up, down` that occurs anywhere in it (so `left` wins over
  `up` in `move red cube up then left`, and `upward` is `up`);
- repetition: the first run of digits, else the first of the number words `one` .. `ten` that
  occurs anywhere in it (`cone` holds `one`), else 1: the move is applied that many times.
The simulator then moves the geom named by `<colour> <shape>`; a name that is not on the board,
or a missing direction, moves nothing and is logged in none of the paper's action classes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPLIT_AT = "action: move "
GLYPH_TO_SHAPE: tuple[tuple[str, str], ...] = (
    ("circle", "sphere"),
    ("square", "cube"),
    ("triangle", "pyramid"),
    ("hexagon", "cylinder"),
    # our choice: the glyphs we draw for the two shapes the original's 2D view does not have
    ("diamond", "cone"),
    ("rectangle", "prism"),
)
KNOWN_OBJECTS: tuple[str, ...] = ("cube", "tile", "sphere", "cylinder", "pyramid", "cone", "prism")
KNOWN_DIRECTIONS: tuple[str, ...] = ("left", "right", "up", "down")
NUMBER_WORDS: tuple[tuple[str, int], ...] = (
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
)
MAX_REPETITION = 2**31 - 1  # the simulator parses the number as a 32-bit int
_NOT_WORD = re.compile(r"[^a-zA-Z0-9\s]")
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")


def clean_reply(reply: str) -> str:
    """Step 1-2 of the extraction: one lower-case line without `*` and `#`, glyphs named as shapes."""
    text = reply.replace("\n", " ").replace("*", "").replace("#", "").strip().lower()
    for glyph, shape in GLYPH_TO_SHAPE:
        text = text.replace(glyph, shape)
    return text


def extract_command(reply: str) -> str | None:
    """The command the original cuts out of a reply (`move ...`), or None (an illegal command)."""
    text = clean_reply(reply)
    at = text.rfind(SPLIT_AT)
    if at < 0:
        return None
    return clean_command("move " + text[at + len(SPLIT_AT) :].strip())


def clean_command(command: str) -> str:
    """The original's cleaning of a cut-out command (`parse_action_rmv_special_chars`): characters
    other than letters, digits and white space removed, runs of white space made one space."""
    command = _NOT_WORD.sub("", command.replace("\r", " ").replace("\t", " "))
    return _SPACES.sub(" ", command).strip()


@dataclass(frozen=True)
class PaperCommand:
    """A command as the simulator decodes it. `text` is the cleaned command, as the original logs
    it and shows it back to the model among the past actions."""

    text: str
    shape: str  # "" when no known shape occurs
    color: str  # "" when none could be read
    direction: str  # "" when no direction occurs
    repetition: int | None  # None: a number beyond the simulator's 32-bit range

    @property
    def geom(self) -> str:
        """The name the simulator looks up (`<colour> <shape>`, or `tile <n>` for a tile)."""
        if self.shape == "tile":
            return f"tile {self.color}"
        return f"{self.color} {self.shape}"


def decode(command: str) -> PaperCommand:
    """The simulator's reading of a command (module docstring)."""
    text = command.lower()
    shape = next((o for o in KNOWN_OBJECTS if o in text), "")
    color = ""
    if shape:
        words = text.split(" ")
        for k, word in enumerate(words):
            if word == shape:
                if shape == "tile":
                    color = words[k + 1] if k + 1 < len(words) else ""
                elif k > 0:
                    color = words[k - 1]
    direction = next((d for d in KNOWN_DIRECTIONS if d in text), "")
    repetition: int | None = 1
    if shape != "tile":
        digits = _DIGITS.search(text)
        if digits is not None:
            value = int(digits.group()) if len(digits.group()) <= 10 else MAX_REPETITION + 1
            repetition = value if value <= MAX_REPETITION else None
        else:
            repetition = next((v for w, v in NUMBER_WORDS if w in text), 1)
    return PaperCommand(command, shape, color, direction, repetition)
