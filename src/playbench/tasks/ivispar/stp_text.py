"""Words of the sliding tile puzzle: reading a move out of a reply, the prompts, the state listing.

Parsing is plain string work (nothing is evaluated), in the manner of the geom puzzle's parser:
the first non-empty line after the LAST ``action:`` (or the reply's last non-empty line), lower
case, every character other than a-z, 0-9 and whitespace turned into a space, filler words
dropped. The first ``move`` (or ``slide``) must be followed by exactly one tile number and then a
direction; anything after the direction is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playbench.tasks.ivispar.actions import DIRECTION_WORDS, ParseFailure, command_line
from playbench.tasks.ivispar.board import Board
from playbench.tasks.ivispar.stp_solver import State, blank_of, goal_state

_NON_WORD = re.compile(r"[^a-z0-9\s]+")
FILLERS = frozenset({"the", "a", "an", "to", "tile", "number", "numbered", "no", "piece"})
VERBS = ("move", "slide")
MAX_DIGITS = 6  # longer numbers name no tile on any supported board; int() of huge strings is slow
ACTION_TEMPLATE = "action: move <number> <direction>"
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


def parse_tile_move(reply: str) -> ParsedTileMove | ParseFailure:
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
    `_` for the empty cell; then every tile's coordinate by tile number."""
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
    letters = " ".join(c.rjust(width) for c in board.column_letters)
    lines.append(f"{' ' * label}   {letters}")
    where = ", ".join(f"{k + 1} {board.coord(cell)}" for k, cell in enumerate(state))
    lines.append(f"Tiles: {where}; empty: {board.coord(blank_of(board, state))}")
    return "\n".join(lines)


# --- prompts -----------------------------------------------------------------------------------
def _goal_words(board: Board) -> str:
    goal = goal_state(board.width, board.height)
    n = board.cells - 1
    first = ", ".join(f"{k} on {board.coord(goal[k - 1])}" for k in range(1, min(n, 3) + 1))
    return (
        f"tiles 1 to {n} in order row by row, starting at the top-left corner and reading each row "
        f"from left to right ({first}, ...), with the empty cell at the bottom-right corner "
        f"({board.coord(blank_of(board, goal))})"
    )


def instructions(board: Board, modality: str) -> str:
    """The system prompt: the task, the rules, the board's orientation and the reply format."""
    n = board.cells - 1
    cols, rows = f"a-{board.column_letters[-1]}", f"1-{board.height}"
    lines = [
        "Sliding Tile Puzzle",
        "",
        f"You are playing the classic sliding tile puzzle on a {board.width}x{board.height} board: "
        f"{n} numbered tiles and one empty cell. You are shown the current state, the board as it "
        "stands now, and the goal state. Turn the current state into the goal state with as few moves "
        "as you can.",
        f"The goal: {_goal_words(board)}.",
        "",
        "How to proceed each turn:",
        "1. Find the empty cell and the tiles next to it.",
        "2. Find the tiles that are not yet where the goal state has them.",
        "3. Look at your previous moves and what they did.",
        "4. Pick the next move.",
        "",
        "Rules:",
        "- Only a tile next to the empty cell (above, below, left or right of it) can move, and it "
        "moves into the empty cell; its old cell becomes the empty one.",
        "- A move names the tile and the direction it slides: `up`, `down`, `left` or `right`.",
        "- A move of a tile that is not next to the empty cell, or in a direction that does not lead "
        "into the empty cell, fails and nothing changes.",
        "",
        f"The board: columns {cols} run from left to right and rows {rows} from bottom to top, so a "
        "cell is named like b3 (column b, row 3). Moving up raises the row number; moving right goes "
        "to the next column letter.",
        "",
        "Move format: move <number> <direction>",
        f"For example: move {min(7, n)} up, or move {min(12, n)} left.",
        "Every move should change the board; a failed move is wasted.",
    ]
    if modality == "text":
        lines += [
            "",
            "States are written as the rows of the board from top to bottom, with the row number on "
            "the left, the column letters underneath and `_` for the empty cell, followed by the "
            "coordinate of every tile.",
        ]
    lines += [
        "",
        "Reply format: first explain briefly why you choose your move, then finish with one line",
        ACTION_TEMPLATE,
        "and write nothing after it.",
    ]
    return "\n".join(lines)


def image_guide(board: Board, past_window: int) -> str:
    """How to read the images (the image counterpart of the text listing)."""
    cols, rows = f"a-{board.column_letters[-1]}", f"1-{board.height}"
    text = (
        "How to read the images: the image with a green background labelled 'goal' shows the arrangement "
        "you must reach. The image with a blue background labelled 'current' is the board as it is now; it "
        "is always the last image. Each tile shows its number. "
        f"Column letters ({cols}) are written under the board from left to right and row numbers "
        f"({rows}) to its left from bottom to top; the empty cell shows its own coordinate."
    )
    if past_window > 0:
        text += (
            " Images with a grey background labelled 'past' show the board before your recent moves, each "
            "followed by the move you chose and what happened. If a move did not change the board it "
            "failed (the tile was not next to the empty cell, or the direction did not lead into it), "
            "so work out why and choose a different move."
        )
    text += f" Always end your reply with exactly '{ACTION_TEMPLATE}', filled in with your move."
    return text


def closing(step: int, max_steps: int) -> str:
    return f"Move {step + 1} of at most {max_steps}. Think it through, then end with: {ACTION_TEMPLATE}"
