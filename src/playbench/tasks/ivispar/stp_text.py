"""Words of the sliding tile puzzle: reading a move out of a reply, the prompts, the state listing.

Parsing is plain string work (nothing is evaluated). With `parser=paper` (the default) the command
is cut out of the reply as the geom puzzle's original does (`paper_parse.extract_command`: the text
after the last `action: move `); with `parser=lenient` it is the first non-empty line after the
LAST ``action:`` (or the reply's last non-empty line). Either way the command is then read in the
manner of the geom puzzle's lenient parser: lower case, every character other than a-z, 0-9 and
whitespace turned into a space, filler words dropped; the first ``move`` (or ``slide``) must be
followed by exactly one tile number and then a direction; anything after the direction is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playbench.tasks.ivispar import prompts
from playbench.tasks.ivispar.actions import DIRECTION_WORDS, ParseFailure, command_line
from playbench.tasks.ivispar.board import Board
from playbench.tasks.ivispar.paper_parse import extract_command
from playbench.tasks.ivispar.stp_solver import State, blank_of, goal_state

_NON_WORD = re.compile(r"[^a-z0-9\s]+")
FILLERS = frozenset({"the", "a", "an", "to", "tile", "number", "numbered", "no", "piece"})
VERBS = ("move", "slide")
MAX_DIGITS = 6  # longer numbers name no tile on any supported board; int() of huge strings is slow
ACTION_TEMPLATE = "action: move <tile number> <direction>"
FORMAT_HINT = (
    "end your reply with a line 'action: move <number> <direction>' (direction: up, down, left or right)"
)


@dataclass(frozen=True)
class ParsedTileMove:
    number: int | None  # None when the digits are too many to name any tile
    label: str  # the number as written, without leading zeros
    direction: str

    @property
    def text(self) -> str:
        return f"move {self.label} {self.direction}"


def parse_tile_move(reply: str, paper: bool = False) -> ParsedTileMove | ParseFailure:
    if paper:
        command = extract_command(reply)
        if command is None:
            return ParseFailure(
                "no 'action: move ' in the reply (the text after the last one is read)",
                _shorten(reply.strip().splitlines()[-1] if reply.strip() else ""),
            )
        reply = command
    line = command_line(reply)
    snippet = _shorten(line)
    if not line:
        where = "after 'action:'" if re.search(r"action\s*:", reply, re.IGNORECASE) else "in the reply"
        return ParseFailure(f"nothing to read {where}", snippet)
    tokens = [t for t in _NON_WORD.sub(" ", line.lower()).split() if t not in FILLERS]
    verb = next((k for k, t in enumerate(tokens) if t in VERBS), None)
    if verb is None:
        return ParseFailure("no 'move' command found", snippet)
    rest = tokens[verb + 1 :]
    where = next((k for k, t in enumerate(rest) if t in DIRECTION_WORDS), None)
    if where is None:
        return ParseFailure("no direction (up, down, left or right) after 'move'", snippet)
    words = rest[:where]
    if len(words) != 1 or not words[0].isdigit():
        found = " ".join(words) if words else "nothing"
        return ParseFailure(
            f"expected one tile number between 'move' and the direction, found '{found}'", snippet
        )
    digits = words[0].lstrip("0") or "0"
    number = int(digits) if len(digits) <= MAX_DIGITS else None
    label = digits if len(digits) <= MAX_DIGITS else digits[:MAX_DIGITS] + "..."
    return ParsedTileMove(number, label, DIRECTION_WORDS[rest[where]])


def _shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- state listing -----------------------------------------------------------------------------
def grid_text(board: Board, state: State) -> str:
    """The board as rows from top to bottom, row numbers on the left, column letters below,
    `_` for the empty cell; then every tile's coordinate by tile number (upper-case coordinates,
    as the geom puzzle's text states)."""
    grid = [[0] * board.width for _ in range(board.height)]
    for k, cell in enumerate(state):
        col, row = board.col_row(cell)
        grid[row][col] = k + 1
    width = len(str(board.cells - 1))
    label = len(str(board.height))
    lines = []
    for row in range(board.height - 1, -1, -1):
        cells = " ".join((str(t) if t else "_").rjust(width) for t in grid[row])
        lines.append(f"{str(row + 1).rjust(label)} | {cells}")
    letters = " ".join(c.upper().rjust(width) for c in board.column_letters)
    lines.append(f"{' ' * label}   {letters}")
    where = ", ".join(f"{k + 1} {board.coord(cell).upper()}" for k, cell in enumerate(state))
    lines.append(f"Tiles: {where}; empty: {board.coord(blank_of(board, state)).upper()}")
    return "\n".join(lines)


# --- prompts -----------------------------------------------------------------------------------
# The original has no prompt for this puzzle (the paper shows it, appendix A.3, but reports no runs).
# Ours follows the geom puzzle's paper prompt section by section, with tiles in place of geoms.


def _goal_words(board: Board) -> str:
    goal = goal_state(board.width, board.height)
    n = board.cells - 1
    first = ", ".join(f"{k} on {board.coord(goal[k - 1]).upper()}" for k in range(1, min(n, 3) + 1))
    return (
        f"tiles 1 to {n} in order row by row, starting at the top-left corner and reading each row "
        f"from left to right ({first}, ...), with the empty cell at the bottom-right corner "
        f"({board.coord(blank_of(board, goal)).upper()})"
    )


def instructions(board: Board, modality: str, extra_facts: bool = False) -> str:
    """The system prompt: the geom puzzle's paper prompt for numbered tiles; `extra_facts` adds the
    goal in words, the board's orientation and how the text states are written."""
    n = board.cells - 1
    size = f"{board.width} by {board.height}"
    lines = [
        "You are a highly capable AI with excellent spatial reasoning. Your task is to solve a sliding "
        f"tile puzzle with {n} numbered tiles and one empty cell on a {size} grid board.",
        "",
        "## The game",
        "The board is shown in two states: the current active state and the goal state.",
        "Produce valid actions that move tiles one step at a time, along the shortest path, until the "
        "active state matches the goal state:",
        "1. Analyse the active state.",
        "2. Compare it with the goal state.",
        "3. Check your past actions.",
        "4. Produce a new valid action.",
        "",
        "## Rules",
        "### Moving tiles",
        "1. Each tile fills exactly one cell of the board.",
        "2. A tile can only slide into the empty cell next to it (above, below, left or right of it); "
        f"tiles can neither leave the {size} grid nor stand on the same cell as another tile.",
        "",
    ]
    if extra_facts:
        last = board.column_letters[-1].upper()
        lines += [
            "## The board",
            f"- The goal: {_goal_words(board)}.",
            f"- Columns A-{last} run from left to right and rows 1-{board.height} from bottom to top; a "
            "cell is named by its column letter and row number, e.g. B3 is column B, row 3.",
            "- Moving up raises the row number; moving right goes to the next column letter.",
        ]
        if modality == "text":
            lines.append(
                "- States are written as the rows of the board from top to bottom, with the row number "
                "on the left, the column letters underneath and `_` for the empty cell, followed by the "
                "cell of every tile."
            )
        lines.append("")
    lines += [
        "## Action format",
        "- Every action must have exactly this form:",
        "move <tile number> <direction>",
        "- Fill in <tile number> and <direction>; the direction is the one the tile slides in.",
        "- Write no quotation marks and no angle brackets < > in an action.",
        "",
        "### Options",
        f"- Tile numbers: 1 to {n}",
        "- Directions: up, down, left or right",
        "",
        "### Examples",
        f"- move {min(7, n)} up",
        f"- move {min(12, n)} left",
        "",
        "## Notes",
        "- No coordinates: an action names only the tile and the direction of the move, never a grid "
        "coordinate.",
        "- Keep every action to this format and these rules to progress towards the goal state; think "
        "carefully about the right action and its format.",
        "- Invalid actions: an action that does not change the board state is invalid (for example when "
        "the tile is not next to the empty cell, or the direction does not lead into it). After an "
        "invalid action, try a different one.",
        "",
        "## Reasoning",
        "- Explain your reasoning before every action.",
        "- End every reply with exactly this line:",
        "action: <your action>",
        "- Replace <your action> with the valid move action your reasoning arrived at.",
        "- Write no characters after the action.",
    ]
    return "\n".join(lines)


def _invalid_and_format(vision: bool) -> list[str]:
    before = "previous images" if vision else "previous states"
    return [
        "## Invalid actions",
        "- A tile only slides into the empty cell next to it.",
        "- An action that moves no tile is invalid (for example when the tile is not next to the empty "
        "cell, or the direction does not lead into it).",
        f"- Use the {before} and your actions to work out why an action failed, and suggest a different one.",
        "",
        "Most important: always end your reply in exactly this format:",
        "",
        ACTION_TEMPLATE,
        "replacing <tile number> <direction> with the valid move your reasoning arrived at, and write no "
        "characters after the action.",
    ]


def vision_block() -> str:
    return prompts.vision_block("tile", _invalid_and_format(vision=True))


def text_block(goal: str, active: str) -> str:
    return prompts.text_block(goal, active, "board", "tiles", _invalid_and_format(vision=False))
