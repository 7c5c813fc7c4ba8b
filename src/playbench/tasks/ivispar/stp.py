"""The classic numbered sliding tile puzzle (`ivispar/stp`), iVISPAR's Figure 10 and appendix A.3.

Same interaction as the Sliding Geom Puzzle: one move per step, `move <number> <direction>`, the
goal and current states (and a window of past states) in text, 2D or 3D, every action classified.
Rules, options and choices are in the suite README, section "Classic sliding tile puzzle".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, TaskConfig
from playbench.core.types import Validity
from playbench.tasks.ivispar import stp_text, summaries
from playbench.tasks.ivispar.actions import ParseFailure
from playbench.tasks.ivispar.board import DIR_INDEX, DIRECTIONS, Board
from playbench.tasks.ivispar.puzzle import SlidingPuzzleTask
from playbench.tasks.ivispar.stp_generator import make_instance
from playbench.tasks.ivispar.stp_render2d import render_tiles_2d
from playbench.tasks.ivispar.stp_schema import (
    DEFAULT_SET_SIZE,
    STPConfig,
    STPInstance,
    move_text,
    rows_from_state,
)
from playbench.tasks.ivispar.stp_solver import State, TileSolver, blank_of, get_solver, slide, tile_moves
from playbench.tasks.ivispar.stp_text import FORMAT_HINT, ParsedTileMove, parse_tile_move

# Action classes in the order of the geom puzzle's Table 3 counters (not_adjacent takes the place
# of "occupied": the destination holds another tile).
COUNTERS: tuple[str, ...] = (
    "actions_effective",
    "actions_ineffective",
    "actions_not_adjacent",
    "actions_out_of_bounds",
    "actions_illegal",
)

# Where the destination of a move lies, for the feedback of a tile that is not next to the blank
WHERE = {"up": "above it", "down": "below it", "left": "to its left", "right": "to its right"}

# (board, config, [(cell, number)], kind) -> PNG bytes
TileRenderer = Callable[[Board, STPConfig, list[tuple[int, int]], str], bytes]


class SlidingTileTask(SlidingPuzzleTask):
    """Slide numbered tiles into the empty cell until they stand in order."""

    Config: ClassVar[type[TaskConfig]] = STPConfig

    def data_origin(self) -> str:
        """Instances are drawn by our generator (the paper ran no tile puzzle); the texts are ours."""
        return "generated"

    InstanceModel: ClassVar[type[Instance]] = STPInstance
    instance_label: ClassVar[str] = "sliding tile"
    COUNTERS = COUNTERS
    FORMAT_HINT = FORMAT_HINT

    config: STPConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not isinstance(self.config, STPConfig):
            raise ConfigError(f"SlidingTileTask needs an STPConfig, got {type(self.config).__name__}")
        self._tile_renderer: TileRenderer | None = None
        if self.config.modality == "2d":
            self._tile_renderer = _render_2d
        elif self.config.modality == "3d":
            self._tile_renderer = _load_3d()

    # --- instances -------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        """The first `n` instances (100 if None) for `seed`; instance i depends only on (seed, i).

        Default set: even reps hold the even lengths 2..40 and odd reps the odd lengths 1..39, each
        rep in a spread order; with `optimal_length` set every instance has that length.
        """
        w, h = self.config.board_size
        total = DEFAULT_SET_SIZE if n is None else n
        out: list[Instance] = []
        for i in range(total):
            length, rep = self.config.slot(i)
            out.append(make_instance(w, h, length, seed, rep))
        return out

    # --- episode ---------------------------------------------------------------------------
    def _begin(self, instance: STPInstance) -> None:
        self._board = instance.board()
        solver: TileSolver = get_solver(self._board.width, self._board.height)
        state = instance.start_state()
        self._instructions = stp_text.instructions(self._board, self.config.modality, self.config.extra_facts)
        self._start(solver, solver.goal, state, self.config.step_cap(solver.distance(state)))

    # --- acting ----------------------------------------------------------------------------
    def _read(self, text: str) -> ParsedTileMove | ParseFailure:
        return parse_tile_move(text, paper=self.config.parser == "paper")

    def _move(self, move: ParsedTileMove, info: dict[str, Any]) -> tuple[Validity, str | None, str]:
        number, label, direction = move.number, move.label, move.direction
        cmd = f"move {label} {direction}"
        board, state = self._board, self._state
        n = board.cells - 1
        if number is None or not 1 <= number <= n:
            self._counts["actions_illegal"] += 1
            return (
                Validity.INVALID,
                "unknown_tile",
                f"{cmd} failed: there is no tile {label} (the tiles are numbered 1 to {n}). "
                "The board did not change.",
            )
        src = state[number - 1]
        blank = blank_of(board, state)
        dest = board.neighbors[src][DIR_INDEX[direction]]
        info.update(tile=number, source=board.coord(src))
        if dest < 0:
            self._counts["actions_out_of_bounds"] += 1
            return (
                Validity.INVALID,
                "out_of_bounds",
                f"{cmd} failed: tile {number} is on {board.coord(src)} and moving {direction} would leave "
                "the board. The board did not change.",
            )
        info["destination"] = board.coord(dest)
        if dest != blank:
            other = state.index(dest) + 1
            self._counts["actions_not_adjacent"] += 1
            return (
                Validity.INVALID,
                "not_adjacent",
                f"{cmd} failed: tile {number} is on {board.coord(src)} and the cell {WHERE[direction]}, "
                f"{board.coord(dest)}, holds tile {other}; a tile can only slide into the empty cell, "
                f"which is {board.coord(blank)}. The board did not change.",
            )
        return (
            self._classify(slide(state, number, blank), self._counts),
            None,
            f"{cmd}: tile {number} slid from {board.coord(src)} to {board.coord(dest)}.",
        )

    def _oracle(self, role: str) -> str | None:
        tile = self._solver.next_move(self._state)
        if tile is None:
            return None
        return "action: " + move_text(self._board, self._state, tile)

    # --- observing -------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """Every move that changes the current state, by tile number (the random agent's choices)."""
        return [f"action: move {t} {DIRECTIONS[d]}" for t, d in tile_moves(self._board, self._state)]

    def _listing_text(self, state: State) -> str:
        """The text form of `state` (rows top to bottom, then every tile's coordinate)."""
        return stp_text.grid_text(self._board, state)

    def _positions_data(self, state: State) -> list[list[int]]:
        """Rows from top to bottom, 0 for the empty cell (the instance's `rows` format)."""
        return rows_from_state(self._board, state)

    def _renderer(self) -> Callable[[State, str], bytes] | None:
        render = self._tile_renderer
        if render is None:
            return None
        return lambda state, kind: render(
            self._board, self.config, [(cell, k + 1) for k, cell in enumerate(state)], kind
        )

    def _block(self, goal: str | None, current: str | None) -> str:
        if goal is None or current is None:
            return stp_text.vision_block()
        return stp_text.text_block(goal, current)

    # --- results ---------------------------------------------------------------------------
    def _extra_metrics(self) -> dict[str, Any]:
        return {"board_size": f"{self._board.width}x{self._board.height}", "max_steps": self._cap}

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """Mean regret curve (frozen after each episode's end), action classes, success by length."""
        rows = summaries.scored_rows(episodes)
        if not rows:
            return {}
        stats = summaries.outcome_stats

        def band(e: dict[str, Any]) -> int:
            return (max(e["metrics"]["optimal_steps"], 1) - 1) // 10 * 10 + 1

        return {
            "regret_curve": summaries.regret_curve(rows),
            "actions_per_episode": summaries.actions_per_episode(rows, COUNTERS),
            "episodes_without_step_deviation": summaries.without_step_deviation(rows),
            "by_optimal_steps": [
                {"optimal_steps": L, **stats(v)}
                for L, v in summaries.grouped(rows, lambda e: e["metrics"]["optimal_steps"]).items()
            ],
            "by_length_band": [
                {"optimal_steps": f"{low}-{low + 9}", **stats(v)}
                for low, v in summaries.grouped(rows, band).items()
            ],
        }


def _render_2d(board: Board, config: STPConfig, tiles: list[tuple[int, int]], kind: str) -> bytes:
    return render_tiles_2d(board, tiles, kind, labels=config.labels, size=config.image_size)


def _load_3d() -> TileRenderer:
    # The 3D renderer pulls in moderngl and an EGL context; only the 3D modality may need it.
    try:
        from playbench.tasks.ivispar.render3d import render_tiles
    except ImportError as exc:
        raise ConfigError(
            f"modality '3d' is not available: the 3D tile renderer cannot be imported ({exc})"
        ) from None

    def render(board: Board, config: STPConfig, tiles: list[tuple[int, int]], kind: str) -> bytes:
        return render_tiles(board.width, board.height, tiles, kind, config.image_size, config.labels)

    return render
