"""The iVISPAR Sliding Geom Puzzle as a playbench task (`ivispar/sgp`, `ivispar/sgp-2d`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from statistics import fmean
from typing import Any, ClassVar

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, Task, TaskConfig
from playbench.core.types import EpisodeResult, Observation, StepResult, Validity
from playbench.tasks.ivispar import prompts, render2d, summaries, views
from playbench.tasks.ivispar.actions import FORMAT_HINT, ParseFailure, parse_move
from playbench.tasks.ivispar.board import (
    DIR_INDEX,
    DIRECTIONS,
    Board,
    State,
    get_board,
    moved,
    state_changing_moves,
)
from playbench.tasks.ivispar.generator import cell_order, make_instance
from playbench.tasks.ivispar.models import DEFAULT_REPS, SGPConfig, SGPInstance
from playbench.tasks.ivispar.solver import Solver

# Counters of the paper's Table 3, in its order.
COUNTERS: tuple[str, ...] = (
    "actions_effective",
    "actions_ineffective",
    "actions_occupied",
    "actions_out_of_bounds",
    "actions_illegal",
)

# One renderer per image modality: (board, [(cell, color, shape)], kind, config) -> PNG bytes.
# Text needs none; a 3D renderer registers here under its modality name.
StateRenderer = Callable[[Board, list[tuple[int, str, str]], str, SGPConfig], bytes]


def _render_2d(board: Board, pieces: list[tuple[int, str, str]], kind: str, config: SGPConfig) -> bytes:
    return render2d.render_board(
        board, pieces, kind, labels=config.labels, size=config.image_size, palette=config.palette()
    )


def _render_3d(board: Board, pieces: list[tuple[int, str, str]], kind: str, config: SGPConfig) -> bytes:
    # Imported on first use: text and 2D runs never load the GL renderer or create a GL context.
    from playbench.tasks.ivispar.render3d import render_geoms

    return render_geoms(board, pieces, kind, config)


STATE_RENDERERS: dict[str, StateRenderer] = {"2d": _render_2d, "3d": _render_3d}


class SlidingGeomTask(Task):
    """Rearrange coloured geoms on a grid into a goal arrangement, one single-tile move at a time."""

    Config: ClassVar[type[TaskConfig]] = SGPConfig
    InstanceModel: ClassVar[type[Instance]] = SGPInstance
    instance_label: ClassVar[str] = "ivispar"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: SGPConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not isinstance(self.config, SGPConfig):
            raise ConfigError(f"SlidingGeomTask needs an SGPConfig, got {type(self.config).__name__}")
        if self.config.modality != "text" and self.config.modality not in STATE_RENDERERS:
            raise ConfigError(f"modality '{self.config.modality}' has no renderer")
        # Solvers (and their distance caches) are kept across episodes of the same goal, e.g. trials.
        self._solvers: OrderedDict[tuple[int, int, State], Solver] = OrderedDict()
        self._inst: SGPInstance | None = None

    # --- instances -------------------------------------------------------------------------
    def instances(self, n: int | None, seed: int) -> list[Instance]:
        if n is not None and n < 0:
            raise ConfigError(f"the number of instances must be >= 0, got {n}")
        cfg = self.config
        board = get_board(*cfg.board_size)
        cells = cell_order(cfg.geom_counts(), cfg.lengths())
        total = DEFAULT_REPS * len(cells) if n is None else n
        out: list[Instance] = []
        for idx in range(total):
            rep, k = divmod(idx, len(cells))
            geoms, length = cells[k]
            out.append(
                make_instance(board, cfg.colors, cfg.shapes, geoms, length, seed, rep, interference=cfg.interference)
            )
        return out


    # --- episode ---------------------------------------------------------------------------
    def reset(self, instance: Instance) -> None:
        if not isinstance(instance, SGPInstance):
            instance = self.load_instance(instance.model_dump())
        assert isinstance(instance, SGPInstance)
        self._inst = instance
        self._board = instance.board()
        keys = instance.geom_keys()
        self._keys = keys
        self._index = {key: i for i, key in enumerate(keys)}
        self._goal = instance.goal_state()
        self._state = instance.start_state()
        self._solver = self._solver_for(self._board, self._goal)
        self._dists = [self._solver.distance(self._state)]
        self._steps = 0
        self._solved = self._state == self._goal
        self._history: list[tuple[State, str, str]] = []  # (state before, action shown, feedback)
        self._counts = dict.fromkeys(COUNTERS, 0)
        self._feedback = ""
        # the prompt lists the configured vocabulary plus anything a loaded instance adds to it
        colors = list(self.config.colors) + [c for c, _ in keys if c not in self.config.colors]
        shapes = list(self.config.shapes) + [s for _, s in keys if s not in self.config.shapes]
        self._colors = list(dict.fromkeys(colors))
        self._shapes = list(dict.fromkeys(shapes))
        self._instructions = prompts.instructions(
            self._board, self._colors, self._shapes, self.config.modality
        )
        self._guide = prompts.image_guide(self._board, self.config.past_window, self.config.labels)
        self._listings: dict[State, str] = {}
        self._frames: dict[tuple[State, str], bytes] = {}
        self._legal: dict[State, list[str]] = {}

    def _solver_for(self, board: Board, goal: State) -> Solver:
        key = (board.width, board.height, goal)
        solver = self._solvers.get(key)
        if solver is None:
            solver = Solver(board, goal)
            self._solvers[key] = solver
            if len(self._solvers) > 8:
                self._solvers.popitem(last=False)
        else:
            self._solvers.move_to_end(key)
        return solver

    def _require_episode(self) -> SGPInstance:
        if self._inst is None:
            raise RuntimeError("call reset(instance) before playing")
        return self._inst

    @property
    def done(self) -> bool:
        self._require_episode()
        return self._solved or self._steps >= self.config.max_steps

    @property
    def state(self) -> State:
        """The current arrangement (cell index per geom, in instance order)."""
        return self._state

    @property
    def distance(self) -> int:
        """Shortest number of moves from the current arrangement to the goal."""
        return self._dists[-1]

    # --- acting ----------------------------------------------------------------------------
    def step(self, action_text: str) -> StepResult:
        self._require_episode()
        if self.done:
            return StepResult(
                Validity.INVALID, "The episode is over; no more moves are accepted.", reason="episode_over"
            )
        text = action_text if isinstance(action_text, str) else str(action_text)
        before = self._state
        parsed = parse_move(text)
        info: dict[str, Any] = {}
        if isinstance(parsed, ParseFailure):
            validity, reason, canonical = Validity.UNPARSEABLE, "format", None
            shown = f"'{parsed.snippet}' (not a valid move)" if parsed.snippet else "(no move given)"
            feedback = (
                f"Could not read a move: {parsed.reason}. Please {FORMAT_HINT}. The board did not change."
            )
            self._counts["actions_illegal"] += 1
        else:
            canonical = shown = parsed.text
            validity, reason, feedback = self._apply(parsed.color, parsed.shape, parsed.direction, info)
        self._steps += 1
        self._dists.append(self._solver.distance(self._state))  # cached by _apply or earlier steps
        if self._state == self._goal:
            self._solved = True
            feedback += " The goal state is reached."
        elif self._steps >= self.config.max_steps:
            feedback += f" The limit of {self.config.max_steps} moves is reached."
        self._history.append((before, shown, feedback))
        self._feedback = feedback
        info.update(step=self._steps, distance=self._dists[-1], solved=self._solved)
        return StepResult(validity, feedback, parsed=canonical, reason=reason, info=info)

    def _apply(
        self, color: str, shape: str, direction: str, info: dict[str, Any]
    ) -> tuple[Validity, str | None, str]:
        cmd = f"move {color} {shape} {direction}"
        name = f"{color} {shape}"
        i = self._index.get((color, shape))
        if i is None:
            on_board = ", ".join(f"{c} {s}" for c, s in self._keys)
            self._counts["actions_illegal"] += 1
            return (
                Validity.INVALID,
                "unknown_geom",
                f"{cmd} failed: there is no {name} on the board (the geoms are: {on_board}). The board did not change.",
            )
        board, state = self._board, self._state
        src = state[i]
        dest = board.neighbors[src][DIR_INDEX[direction]]
        info.update(geom=name, source=board.coord(src))
        if dest < 0:
            self._counts["actions_out_of_bounds"] += 1
            return (
                Validity.INVALID,
                "out_of_bounds",
                f"{cmd} failed: the {name} is on {board.coord(src)} and moving {direction} would leave the "
                "board. The board did not change.",
            )
        info["destination"] = board.coord(dest)
        if dest in state:
            other = self._keys[state.index(dest)]
            self._counts["actions_occupied"] += 1
            return (
                Validity.INVALID,
                "occupied",
                f"{cmd} failed: destination {board.coord(dest)} is occupied by the {other[0]} {other[1]}. "
                "The board did not change.",
            )
        new = moved(state, i, dest)
        d_new = self._solver.distance_near(new, self._dists[-1])
        self._state = new
        effective = d_new < self._dists[-1]
        self._counts["actions_effective" if effective else "actions_ineffective"] += 1
        return (
            Validity.EFFECTIVE if effective else Validity.INEFFECTIVE,
            None,
            f"{cmd}: the {name} moved from {board.coord(src)} to {board.coord(dest)}.",
        )

    def oracle_action(self, role: str) -> str | None:
        self._require_episode()
        if self.done:
            return None
        move = self._solver.next_move(self._state)
        if move is None:
            return None
        color, shape = self._keys[move[0]]
        return f"move {color} {shape} {DIRECTIONS[move[1]]}"

    # --- observing -------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """Every move that changes the current state (what the random baseline samples from)."""
        cached = self._legal.get(self._state)
        if cached is None:
            keys = self._keys
            cached = [
                f"move {keys[i][0]} {keys[i][1]} {DIRECTIONS[d]}"
                for i, d, _ in state_changing_moves(self._board, self._state)
            ]
            self._legal[self._state] = cached
        return list(cached)

    def listing(self, state: State) -> str:
        """`<coordinate> <color> <shape>` for every geom, in board-coordinate order."""
        text = self._listings.get(state)
        if text is None:
            board, keys = self._board, self._keys
            order = sorted(range(len(state)), key=lambda i: board.sort_key(state[i]))
            text = ", ".join(f"{board.coord(state[i])} {keys[i][0]} {keys[i][1]}" for i in order)
            self._listings[state] = text
        return text

    def image(self, state: State, kind: str) -> bytes:
        """PNG of `state` in this task's image modality, cached for the episode."""
        if self.config.modality not in STATE_RENDERERS:
            raise ValueError(f"modality '{self.config.modality}' has no images")
        key = (state, kind)
        png = self._frames.get(key)
        if png is None:
            pieces = [(cell, *self._keys[i]) for i, cell in enumerate(state)]
            png = STATE_RENDERERS[self.config.modality](self._board, pieces, kind, self.config)
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
            self.image if self.config.modality != "text" else None,
            self._guide,
            prompts.closing(self._steps, self.config.max_steps),
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
        inst = self._require_episode()
        regret = self.regret()
        metrics: dict[str, Any] = {
            "optimal_steps": self._dists[0],
            "num_geoms": len(inst.geoms),
            "final_distance": self._dists[-1],
            "regret": regret,
            "mean_regret": fmean(regret),
            **self._counts,
        }
        return EpisodeResult(success=self._solved, steps=self._steps, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """Mean regret curve (frozen after each episode's end) and success by complexity cell."""
        rows = summaries.scored_rows(episodes, ("num_geoms", "optimal_steps"))
        if not rows:
            return {}
        stats = summaries.outcome_stats
        cells = summaries.grouped(rows, lambda e: (e["metrics"]["num_geoms"], e["metrics"]["optimal_steps"]))
        by_geoms = summaries.grouped(rows, lambda e: e["metrics"]["num_geoms"])
        by_length = summaries.grouped(rows, lambda e: e["metrics"]["optimal_steps"])
        return {
            "regret_curve": summaries.regret_curve(rows),
            "actions_per_episode": summaries.actions_per_episode(rows, COUNTERS),
            "by_cell": [{"num_geoms": g, "optimal_steps": L, **stats(v)} for (g, L), v in cells.items()],
            "by_num_geoms": [{"num_geoms": g, **stats(v)} for g, v in by_geoms.items()],
            "by_optimal_steps": [{"optimal_steps": L, **stats(v)} for L, v in by_length.items()],
        }
