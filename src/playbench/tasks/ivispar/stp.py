"""The classic numbered sliding tile puzzle (`ivispar/stp`), iVISPAR's Figure 10 and appendix A.3.

Same interaction as the Sliding Geom Puzzle: one move per step, `move <number> <direction>`, the
goal and current states (and a window of past states) in text, 2D or 3D, every action classified.
Rules, options and choices are in the suite README, section "Classic sliding tile puzzle".
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import fmean
from typing import Any, ClassVar

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, Task, TaskConfig
from playbench.core.types import EpisodeResult, Observation, StepResult, Validity
from playbench.tasks.ivispar import stp_text, summaries, views
from playbench.tasks.ivispar.actions import ParseFailure
from playbench.tasks.ivispar.board import DIR_INDEX, DIRECTIONS, Board
from playbench.tasks.ivispar.stp_generator import make_instance
from playbench.tasks.ivispar.stp_models import DEFAULT_SET_SIZE, STPConfig, STPInstance
from playbench.tasks.ivispar.stp_render2d import render_tiles_2d
from playbench.tasks.ivispar.stp_solver import State, TileSolver, blank_of, get_solver, slide, tile_moves
from playbench.tasks.ivispar.stp_text import FORMAT_HINT, parse_tile_move

# Action classes in the order of the geom puzzle's Table 3 counters (not_adjacent takes the place
# of "occupied": the destination holds another tile).
COUNTERS: tuple[str, ...] = (
    "actions_effective",
    "actions_ineffective",
    "actions_not_adjacent",
    "actions_out_of_bounds",
    "actions_illegal",
)

# (board, config, [(cell, number)], kind) -> PNG bytes
WHERE = {"up": "above it", "down": "below it", "left": "to its left", "right": "to its right"}

TileRenderer = Callable[[Board, STPConfig, list[tuple[int, int]], str], bytes]


class SlidingTileTask(Task):
    """Slide numbered tiles into the empty cell until they stand in order."""

    Config: ClassVar[type[TaskConfig]] = STPConfig
    InstanceModel: ClassVar[type[Instance]] = STPInstance
    instance_label: ClassVar[str] = "sliding tile"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: STPConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not isinstance(self.config, STPConfig):
            raise ConfigError(f"SlidingTileTask needs an STPConfig, got {type(self.config).__name__}")
        self._renderer: TileRenderer | None = None
        if self.config.modality == "2d":
            self._renderer = _render_2d
        elif self.config.modality == "3d":
            self._renderer = _load_3d()
        self._inst: STPInstance | None = None

    # --- instances -------------------------------------------------------------------------
    def instances(self, n: int | None, seed: int) -> list[Instance]:
        """The first `n` instances (100 if None) for `seed`; instance i depends only on (seed, i).

        Default set: even reps hold the even lengths 2..40 and odd reps the odd lengths 1..39, each
        rep in a spread order; with `optimal_length` set every instance has that length.
        """
        if n is not None and n < 0:
            raise ConfigError(f"the number of instances must be >= 0, got {n}")
        w, h = self.config.board_size
        total = DEFAULT_SET_SIZE if n is None else n
        out: list[Instance] = []
        for i in range(total):
            length, rep = self.config.slot(i)
            out.append(make_instance(w, h, length, seed, rep))
        return out


    # --- episode ---------------------------------------------------------------------------
    def reset(self, instance: Instance) -> None:
        if not isinstance(instance, STPInstance):
            instance = self.load_instance(instance.model_dump())
        assert isinstance(instance, STPInstance)
        self._inst = instance
        self._board = instance.board()
        self._solver: TileSolver = get_solver(self._board.width, self._board.height)
        self._goal = self._solver.goal
        self._state = instance.start_state()
        self._dists = [self._solver.distance(self._state)]
        self._cap = self.config.step_cap(self._dists[0])
        self._steps = 0
        self._solved = self._state == self._goal
        self._history: list[tuple[State, str, str]] = []  # (state before, action shown, feedback)
        self._counts = dict.fromkeys(COUNTERS, 0)
        self._feedback = ""
        self._instructions = stp_text.instructions(self._board, self.config.modality)
        self._guide = stp_text.image_guide(self._board, self.config.past_window)
        self._listings: dict[State, str] = {}
        self._frames: dict[tuple[State, str], bytes] = {}

    def _require_episode(self) -> STPInstance:
        if self._inst is None:
            raise RuntimeError("call reset(instance) before playing")
        return self._inst

    @property
    def done(self) -> bool:
        self._require_episode()
        return self._solved or self._steps >= self._cap

    @property
    def state(self) -> State:
        """The cell of every tile (tile k at index k - 1)."""
        return self._state

    @property
    def distance(self) -> int:
        """Shortest number of moves from the current state to the goal."""
        return self._dists[-1]

    @property
    def max_steps(self) -> int:
        """This episode's action cap."""
        return self._cap

    # --- acting ----------------------------------------------------------------------------
    def step(self, action_text: str) -> StepResult:
        self._require_episode()
        if self.done:
            return StepResult(
                Validity.INVALID, "The episode is over; no more moves are accepted.", reason="episode_over"
            )
        text = action_text if isinstance(action_text, str) else str(action_text)
        before = self._state
        parsed = parse_tile_move(text)
        info: dict[str, Any] = {}
        if isinstance(parsed, ParseFailure):
            validity, reason, canonical = Validity.UNPARSEABLE, "format", None
            shown = f"'{parsed.snippet}' (not a valid move)" if parsed.snippet else "(no move given)"
            feedback = f"Could not read a move: {parsed.reason}. Please {FORMAT_HINT}. The board did not change."
            self._counts["actions_illegal"] += 1
        else:
            canonical = shown = parsed.text
            validity, reason, feedback = self._apply(parsed.number, parsed.label, parsed.direction, info)
        self._steps += 1
        self._dists.append(self._solver.distance(self._state))  # cached by _apply or earlier
        if self._state == self._goal:
            self._solved = True
            feedback += " The goal state is reached."
        elif self._steps >= self._cap:
            feedback += f" The limit of {self._cap} moves is reached."
        self._history.append((before, shown, feedback))
        self._feedback = feedback
        info.update(step=self._steps, distance=self._dists[-1], solved=self._solved)
        return StepResult(validity, feedback, parsed=canonical, reason=reason, info=info)

    def _apply(
        self, number: int | None, label: str, direction: str, info: dict[str, Any]
    ) -> tuple[Validity, str | None, str]:
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
        new = slide(state, number, blank)
        d_new = self._solver.distance_near(new, self._dists[-1])
        self._state = new
        effective = d_new < self._dists[-1]
        self._counts["actions_effective" if effective else "actions_ineffective"] += 1
        return (
            Validity.EFFECTIVE if effective else Validity.INEFFECTIVE,
            None,
            f"{cmd}: tile {number} slid from {board.coord(src)} to {board.coord(dest)}.",
        )

    def oracle_action(self, role: str) -> str | None:
        self._require_episode()
        if self.done:
            return None
        tile = self._solver.next_move(self._state)
        if tile is None:
            return None
        return self._move_text(tile)

    def _move_text(self, tile: int) -> str:
        blank = blank_of(self._board, self._state)
        return f"move {tile} {DIRECTIONS[self._board.neighbors[self._state[tile - 1]].index(blank)]}"

    # --- observing -------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """Every move that changes the current state, by tile number (the random agent's choices)."""
        return [f"move {t} {DIRECTIONS[d]}" for t, d in tile_moves(self._board, self._state)]

    def listing(self, state: State) -> str:
        """The text form of `state` (rows top to bottom, then every tile's coordinate)."""
        text = self._listings.get(state)
        if text is None:
            text = stp_text.grid_text(self._board, state)
            self._listings[state] = text
        return text

    def image(self, state: State, kind: str) -> bytes:
        """PNG of `state` in this task's image modality, cached for the episode."""
        if self._renderer is None:
            raise ValueError(f"modality '{self.config.modality}' has no images")
        key = (state, kind)
        png = self._frames.get(key)
        if png is None:
            tiles = [(cell, k + 1) for k, cell in enumerate(state)]
            png = self._renderer(self._board, self.config, tiles, kind)
            self._frames[key] = png
        return png

    def observe(self, role: str) -> Observation:
        self._require_episode()
        if role not in self.roles:
            raise ValueError(f"unknown role {role!r}; this task has only 'player'")
        parts = views.state_parts(
            self._goal,
            self._state,
            self._history,
            self.config.past_window,
            self.listing,
            self.image if self._renderer is not None else None,
            self._guide,
            stp_text.closing(self._steps, self._cap),
            listing_sep=":\n",
        )
        return Observation(
            role=role,
            parts=parts,
            instructions=self._instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
        )

    # --- results ---------------------------------------------------------------------------
    def regret(self) -> list[int]:
        """R(t) = d(s_t) - (d(s_0) - t) for t = 0..steps (the episode stops at the goal)."""
        d0 = self._dists[0]
        return [d - (d0 - t) for t, d in enumerate(self._dists)]

    def outcome(self) -> EpisodeResult:
        self._require_episode()
        regret = self.regret()
        metrics: dict[str, Any] = {
            "optimal_steps": self._dists[0],
            "board_size": f"{self._board.width}x{self._board.height}",
            "max_steps": self._cap,
            "final_distance": self._dists[-1],
            "regret": regret,
            "mean_regret": fmean(regret),
            **self._counts,
        }
        return EpisodeResult(success=self._solved, steps=self._steps, metrics=metrics)

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
            "by_optimal_steps": [
                {"optimal_steps": L, **stats(v)}
                for L, v in summaries.grouped(rows, lambda e: e["metrics"]["optimal_steps"]).items()
            ],
            "by_length_band": [
                {"optimal_steps": f"{low}-{low + 9}", **stats(v)} for low, v in summaries.grouped(rows, band).items()
            ],
        }


def _render_2d(board: Board, config: STPConfig, tiles: list[tuple[int, int]], kind: str) -> bytes:
    return render_tiles_2d(board, tiles, kind, labels=config.labels, size=config.image_size)


def _load_3d() -> TileRenderer:
    # The 3D renderer pulls in moderngl and an EGL context; only the 3D modality may need it.
    try:
        from playbench.tasks.ivispar.render3d import render_tiles
    except ImportError as exc:
        raise ConfigError(f"modality '3d' is not available: the 3D tile renderer cannot be imported ({exc})") from None

    def render(board: Board, config: STPConfig, tiles: list[tuple[int, int]], kind: str) -> bytes:
        return render_tiles(board.width, board.height, tiles, kind, config.image_size, config.labels)

    return render
