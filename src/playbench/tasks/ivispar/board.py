"""Board geometry, vocabulary and move rules of the Sliding Geom Puzzle.

A state is a tuple of cell indices, one per geom, in the instance's geom order. Cells are
numbered row-major from the bottom-left: ``cell = row * width + col``, with column 0 = ``a`` and
row 0 = ``1`` (chess style), so ``up`` adds ``width`` and ``right`` adds 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

State = tuple[int, ...]

DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
DIR_INDEX: dict[str, int] = {d: i for i, d in enumerate(DIRECTIONS)}
DIR_DELTA: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (-1, 0), (1, 0))  # (d_col, d_row)
OPPOSITE: tuple[int, ...] = (1, 0, 3, 2)

SHAPES: tuple[str, ...] = ("cube", "sphere", "pyramid", "cylinder", "cone", "prism")

# How each shape is drawn in the 2D modality. The first four follow the paper; cone and prism are
# our choice: a cone seen from above would be a circle (confusable with the sphere), so it gets a
# diamond, and a lying triangular prism shows a long rectangle from above.
SHAPE_GLYPH: dict[str, str] = {
    "cube": "square",
    "sphere": "circle",
    "pyramid": "triangle",
    "cylinder": "hexagon",
    "cone": "diamond",
    "prism": "rectangle",
}
# Names a player may use for a shape: the 2D glyph names are accepted in every modality so that
# a model describing what it sees in an image is not punished.
SHAPE_ALIASES: dict[str, str] = {glyph: shape for shape, glyph in SHAPE_GLYPH.items()}

# Named colours a geom may have, with the RGB used in images. The paper allows any RGB value; a
# closed list keeps every colour nameable in a one-word action.
GEOM_COLORS: dict[str, tuple[int, int, int]] = {
    "red": (220, 45, 45),
    "green": (40, 170, 70),
    "blue": (40, 90, 225),
    "yellow": (245, 210, 30),
    "orange": (245, 135, 25),
    "purple": (135, 60, 185),
    "pink": (245, 125, 185),
    "cyan": (30, 200, 215),
    "brown": (135, 85, 45),
    "white": (250, 250, 250),
    "black": (25, 25, 25),
    "gray": (130, 130, 130),
}
COLOR_ALIASES: dict[str, str] = {"grey": "gray"}

MAX_SIDE = 26  # one letter per column


def normalize_color(name: str) -> str:
    name = name.strip().lower()
    return COLOR_ALIASES.get(name, name)


def normalize_shape(name: str) -> str:
    name = name.strip().lower()
    return SHAPE_ALIASES.get(name, name)


@dataclass(frozen=True)
class Board:
    """Geometry of a width × height board; build through `get_board` to share the tables."""

    width: int
    height: int

    @property
    def cells(self) -> int:
        return self.width * self.height

    def cell(self, col: int, row: int) -> int:
        return row * self.width + col

    def col_row(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def coord(self, cell: int) -> str:
        return _coords(self.width, self.height)[cell]

    def parse_coord(self, text: str) -> int:
        """`"b3"` → cell index; ValueError naming the board's range otherwise."""
        t = text.strip().lower()
        try:
            return _coord_index(self.width, self.height)[t]
        except KeyError:
            last = chr(ord("a") + self.width - 1)
            raise ValueError(
                f"coordinate {text!r} is not on the {self.width}x{self.height} board "
                f"(columns a-{last}, rows 1-{self.height})"
            ) from None

    @property
    def neighbors(self) -> tuple[tuple[int, ...], ...]:
        """`neighbors[cell][dir]` is the adjacent cell in that direction, or -1 off the board."""
        return _neighbors(self.width, self.height)

    def manhattan(self, a: int, b: int) -> int:
        ac, ar = a % self.width, a // self.width
        bc, br = b % self.width, b // self.width
        return abs(ac - bc) + abs(ar - br)

    def sort_key(self, cell: int) -> tuple[int, int]:
        """Order of listing: by column, then row (a1, a2, ..., b1, ...)."""
        return cell % self.width, cell // self.width

    @property
    def column_letters(self) -> str:
        return "".join(chr(ord("a") + c) for c in range(self.width))


@lru_cache(maxsize=64)
def get_board(width: int, height: int) -> Board:
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"board sides must be between 1 and {MAX_SIDE}, got {width}x{height}")
    return Board(width, height)


@lru_cache(maxsize=64)
def _coords(width: int, height: int) -> tuple[str, ...]:
    return tuple(f"{chr(ord('a') + c % width)}{c // width + 1}" for c in range(width * height))


@lru_cache(maxsize=64)
def _coord_index(width: int, height: int) -> dict[str, int]:
    return {name: i for i, name in enumerate(_coords(width, height))}


@lru_cache(maxsize=64)
def _neighbors(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    table = []
    for cell in range(width * height):
        col, row = cell % width, cell // width
        out = []
        for dc, dr in DIR_DELTA:
            c, r = col + dc, row + dr
            out.append(r * width + c if 0 <= c < width and 0 <= r < height else -1)
        table.append(tuple(out))
    return tuple(table)


def occupancy(state: State) -> int:
    """Bit mask of occupied cells."""
    mask = 0
    for c in state:
        mask |= 1 << c
    return mask


def moved(state: State, geom: int, dest: int) -> State:
    return state[:geom] + (dest,) + state[geom + 1 :]


def state_changing_moves(board: Board, state: State) -> list[tuple[int, int, int]]:
    """Every (geom, direction, destination) that changes the state, in geom then direction order."""
    occ = occupancy(state)
    nbrs = board.neighbors
    out = []
    for i, c in enumerate(state):
        for d, n in enumerate(nbrs[c]):
            if n >= 0 and not (occ >> n) & 1:
                out.append((i, d, n))
    return out


def manhattan_sum(board: Board, state: State, goal: State) -> int:
    return sum(board.manhattan(a, b) for a, b in zip(state, goal, strict=True))
