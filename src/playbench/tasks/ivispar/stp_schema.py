"""Option and instance schemas of the classic sliding tile puzzle (pydantic, JSON round-trip)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from playbench.core.task import Instance, TaskConfig
from playbench.tasks.ivispar.board import DIRECTIONS, Board, get_board
from playbench.tasks.ivispar.schema import Conversation, Parser, check_board_size, parse_board_size
from playbench.tasks.ivispar.stp_solver import MAX_CELLS, State, blank_of, goal_state, is_solvable, slide

MAX_SIDE = 8
DEFAULT_SET_SIZE = 100
DEFAULT_MAX_LENGTH = 40
PAPER_CAP = 20  # the paper's action cap, kept as the floor of the per-instance cap

# Longest optimal solution of each small board (breadth-first search over every state; the tests
# recompute those up to 3x3). 4x4 is Bruengger et al. (1999). Lengths beyond these do not exist.
DIAMETERS: dict[tuple[int, int], int] = {
    (2, 2): 6,
    (2, 3): 21,
    (3, 2): 21,
    (2, 4): 36,
    (4, 2): 36,
    (3, 3): 31,
    (4, 4): 80,
}


def _check_tile_board(value: list[int]) -> list[int]:
    w, h = check_board_size(value, MAX_SIDE)
    if w * h > MAX_CELLS:  # pragma: no cover - 8x8 is the largest and has 64 cells
        raise ValueError(f"at most {MAX_CELLS} cells are supported, got {w}x{h}")
    return [w, h]


TileBoardSize = Annotated[list[int], BeforeValidator(parse_board_size), AfterValidator(_check_tile_board)]


def default_length_cap(width: int, height: int) -> int:
    """Longest length in the default set: 40, or two thirds of a small board's diameter (even).

    Random walks rarely end near a board's diameter, so the default set stays well inside it.
    """
    diameter = DIAMETERS.get((width, height))
    cap = DEFAULT_MAX_LENGTH if diameter is None else min(DEFAULT_MAX_LENGTH, diameter * 2 // 3)
    return max(2, cap - cap % 2)


def spread(values: list[int]) -> list[int]:
    """`values` reordered so that every prefix is spread over the whole range.

    Stepping through the list with a stride near 0.38 of its length that shares no factor with
    it visits every position once and alternates between low, middle and high values.
    """
    m = len(values)
    if m <= 2:
        return list(values)
    stride = max(1, round(m * 0.382))
    while _gcd(stride, m) != 1:
        stride += 1
    return [values[(j * stride) % m] for j in range(m)]


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


class STPConfig(TaskConfig):
    """Options of `ivispar/stp` (see the suite README, "Classic sliding tile puzzle")."""

    modality: Literal["text", "2d", "3d"] = "text"
    board_size: TileBoardSize = Field(default_factory=lambda: [4, 4])
    past_window: int = Field(2, ge=0, le=50)
    max_steps: int | None = Field(None, ge=1, le=10_000)
    optimal_length: int | None = Field(None, ge=1)
    labels: bool = True
    image_size: int = Field(512, ge=96, le=4096)
    # the protocol of the geom puzzle's paper runs; our extensions are off by default
    parser: Parser = "paper"
    move_results: bool = False
    step_counter: bool = False
    extra_facts: bool = False
    # "chat": the geom puzzle's original conversation shape (their agents play every puzzle alike);
    # "packed": one user message
    conversation: Conversation = "chat"

    @model_validator(mode="after")
    def _reachable_length(self) -> STPConfig:
        diameter = DIAMETERS.get((self.board_size[0], self.board_size[1]))
        if self.optimal_length is not None and diameter is not None and self.optimal_length > diameter:
            w, h = self.board_size
            raise ValueError(
                f"optimal_length {self.optimal_length} does not exist on a {w}x{h} board "
                f"(its longest optimal solution has {diameter} moves)"
            )
        return self

    def step_cap(self, optimal_steps: int) -> int:
        """Actions allowed in an episode: `max_steps`, or by default max(20, 2 x optimal)."""
        if self.max_steps is not None:
            return self.max_steps
        return max(PAPER_CAP, 2 * optimal_steps)

    def slot(self, index: int) -> tuple[int, int]:
        """(length, rep) of the `index`-th instance of the set (see `SlidingTileTask.instances`)."""
        if self.optimal_length is not None:
            return self.optimal_length, index
        cap = default_length_cap(*self.board_size)
        per_rep = cap // 2
        rep, k = divmod(index, per_rep)
        # even reps take the even lengths 2..cap, odd reps the odd lengths 1..cap-1
        lengths = list(range(2, cap + 1, 2)) if rep % 2 == 0 else list(range(1, cap, 2))
        return spread(lengths)[k], rep


class STPInstance(Instance):
    """One puzzle: the start grid, rows from top to bottom, 0 for the empty cell."""

    board_size: TileBoardSize = Field(default_factory=lambda: [4, 4])
    rows: list[list[int]]
    seed: int | None = None
    rep: int | None = None
    solution: list[str] | None = None  # one shortest move sequence, as action strings

    @model_validator(mode="after")
    def _consistent(self) -> STPInstance:
        w, h = self.board_size
        if len(self.rows) != h or any(len(r) != w for r in self.rows):
            raise ValueError(f"rows must be {h} lists of {w} numbers for a {w}x{h} board")
        flat = sorted(x for r in self.rows for x in r)
        if flat != list(range(w * h)):
            raise ValueError(f"the rows must hold every number 0..{w * h - 1} once (0 is the empty cell)")
        board = self.board()
        start = self.start_state()
        if not is_solvable(board, start):
            raise ValueError("this arrangement cannot reach the goal (it has the wrong permutation parity)")
        if self.optimal_steps is not None and self.optimal_steps < 0:
            raise ValueError("optimal_steps must be >= 0")
        if self.solution is not None:
            _check_solution(self, board, start)
        return self

    def board(self) -> Board:
        return get_board(self.board_size[0], self.board_size[1])

    def start_state(self) -> State:
        return state_from_rows(self.board(), self.rows)


def state_from_rows(board: Board, rows: list[list[int]]) -> State:
    """Rows top to bottom (0 = empty) to the cell of every tile."""
    cells = [0] * (board.cells - 1)
    for top, row in enumerate(rows):
        for col, tile in enumerate(row):
            if tile:
                cells[tile - 1] = board.cell(col, board.height - 1 - top)
    return tuple(cells)


def rows_from_state(board: Board, state: State) -> list[list[int]]:
    grid = [[0] * board.width for _ in range(board.height)]
    for k, cell in enumerate(state):
        col, row = board.col_row(cell)
        grid[board.height - 1 - row][col] = k + 1
    return grid


def move_text(board: Board, state: State, tile: int) -> str:
    """`move <tile> <direction>` for a tile next to the empty cell."""
    blank = blank_of(board, state)
    return f"move {tile} {DIRECTIONS[board.neighbors[state[tile - 1]].index(blank)]}"


def _check_solution(inst: STPInstance, board: Board, start: State) -> None:
    state = start
    for action in inst.solution or []:
        parts = action.split()
        if len(parts) != 3 or parts[0] != "move" or not parts[1].isdigit() or parts[2] not in DIRECTIONS:
            raise ValueError(f"solution step {action!r} is not 'move <number> <direction>'")
        tile = int(parts[1])
        if not 1 <= tile < board.cells:
            raise ValueError(f"solution step {action!r} names no tile")
        dest = board.neighbors[state[tile - 1]][DIRECTIONS.index(parts[2])]
        if dest < 0 or dest != blank_of(board, state):
            raise ValueError(f"solution step {action!r} is not legal")
        state = slide(state, tile, dest)
    if state != goal_state(board.width, board.height):
        raise ValueError("the stored solution does not reach the goal")
    if inst.optimal_steps is not None and len(inst.solution or []) != inst.optimal_steps:
        raise ValueError("the stored solution's length differs from optimal_steps")
