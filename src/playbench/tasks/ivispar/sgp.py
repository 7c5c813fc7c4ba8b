"""The iVISPAR Sliding Geom Puzzle as a playbench task (`ivispar/sgp`, `ivispar/sgp-2d`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, ClassVar

from playbench.core.errors import ConfigError
from playbench.core.original_texts import texts_source
from playbench.core.originals import OriginalsUse
from playbench.core.task import Instance, TaskConfig
from playbench.core.types import Part, Turn, Validity
from playbench.tasks.ivispar import prompts, render2d, summaries
from playbench.tasks.ivispar.actions import FORMAT_HINT, ParsedMove, ParseFailure, parse_move, shorten
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
from playbench.tasks.ivispar.original_prompts import OriginalPrompts, check_paper_setting
from playbench.tasks.ivispar.originals import NAME as ORIGINALS_NAME
from playbench.tasks.ivispar.originals import PAPER_BOARDS_COMMIT
from playbench.tasks.ivispar.paper_data import paper_instances
from playbench.tasks.ivispar.paper_parse import PaperCommand, decode, extract_command
from playbench.tasks.ivispar.puzzle import SlidingPuzzleTask
from playbench.tasks.ivispar.schema import DEFAULT_REPS, SGPConfig, SGPInstance
from playbench.tasks.ivispar.solver import Solver
from playbench.tasks.ivispar.twin import difficulty as board_difficulty
from playbench.tasks.ivispar.twin import twin_instances

# Counters of the paper's Table 3, in its order.
COUNTERS: tuple[str, ...] = (
    "actions_effective",
    "actions_ineffective",
    "actions_occupied",
    "actions_out_of_bounds",
    "actions_illegal",
)
# Steps the original logs in none of those classes (parser=paper): a command naming no geom on the
# board, one without a direction, or one repeated zero times.
OTHER_COUNTERS: tuple[str, ...] = ("actions_unclassified",)
PAPER_FORMAT_HINT = "end your reply with 'action: move <object color> <object shape> <direction>'"

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


class SlidingGeomTask(SlidingPuzzleTask):
    """Rearrange coloured geoms on a grid into a goal arrangement, one single-tile move at a time."""

    Config: ClassVar[type[TaskConfig]] = SGPConfig
    # texts=original reads the authors' words from their clone (`originals.py`); no data from it
    originals: ClassVar[OriginalsUse | None] = OriginalsUse(repo=ORIGINALS_NAME)
    InstanceModel: ClassVar[type[Instance]] = SGPInstance
    instance_label: ClassVar[str] = "ivispar"
    COUNTERS = COUNTERS
    OTHER_COUNTERS = OTHER_COUNTERS
    FORMAT_HINT = FORMAT_HINT

    config: SGPConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not isinstance(self.config, SGPConfig):
            raise ConfigError(f"SlidingGeomTask needs an SGPConfig, got {type(self.config).__name__}")
        if self.config.modality != "text" and self.config.modality not in STATE_RENDERERS:
            raise ConfigError(f"modality '{self.config.modality}' has no renderer")
        # Solvers (and their distance caches) are kept across episodes of the same goal, e.g. trials.
        self._solvers: OrderedDict[tuple[int, int, State], Solver] = OrderedDict()
        self._original: OriginalPrompts | None = None
        self._texts_read = False

    # --- texts and data origin ---------------------------------------------------------------
    def original_prompts(self) -> OriginalPrompts | None:
        """The authors' texts (texts=original, or texts unset with a clone in the originals folder),
        read once; None: ours."""
        if not self._texts_read:
            assert self.originals is not None
            source = texts_source(self.config, self.originals)
            if source is not None:
                check_paper_setting(self.config)
                self._original = OriginalPrompts(source, self.config.modality, self.config.prompt_agent)
            self._texts_read = True
        return self._original

    def preflight(self) -> None:
        """Read every text of texts=original now: a missing one fails before the first episode."""
        self.original_prompts()

    def data_origin(self) -> str:
        if self.config.dataset == "paper":  # shipped converted from the submission copy's configs
            return f"original@{PAPER_BOARDS_COMMIT}, converted"
        return "generated"

    # --- instances -------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        cfg = self.config
        if cfg.dataset == "paper":  # the shipped boards; the seed plays no part
            return list(paper_instances(n, cfg.num_geoms, cfg.optimal_length))
        if cfg.dataset == "twin":  # one new board per paper board, matched in difficulty
            return list(twin_instances(n, seed, cfg.num_geoms, cfg.optimal_length))
        board = get_board(*cfg.board_size)
        cells = cell_order(cfg.geom_counts(), cfg.lengths())
        total = DEFAULT_REPS * len(cells) if n is None else n
        out: list[Instance] = []
        for idx in range(total):
            rep, k = divmod(idx, len(cells))
            geoms, length = cells[k]
            out.append(
                make_instance(
                    board, cfg.colors, cfg.shapes, geoms, length, seed, rep, interference=cfg.interference
                )
            )
        return out

    def difficulty(self, instance: Instance) -> dict[str, Any]:
        """Geoms, optimal length, board, colour and shape mix, geoms to move, blocked goals (`twin.py`)."""
        board = self.coerce_instance(instance)
        assert isinstance(board, SGPInstance)
        return board_difficulty(board)

    # --- episode ---------------------------------------------------------------------------
    def _begin(self, instance: SGPInstance) -> None:
        self._board = instance.board()
        keys = instance.geom_keys()
        self._keys = keys
        self._index = {key: i for i, key in enumerate(keys)}
        # the prompt lists the configured vocabulary plus anything a loaded instance adds to it
        colors = list(self.config.colors) + [c for c, _ in keys if c not in self.config.colors]
        shapes = list(self.config.shapes) + [s for _, s in keys if s not in self.config.shapes]
        self._colors = list(dict.fromkeys(colors))
        self._shapes = list(dict.fromkeys(shapes))
        original = self.original_prompts()
        if original is not None:
            if self._colors != self.config.colors or self._shapes != self.config.shapes:
                raise ConfigError(
                    f"instance {instance.id} has geoms outside the paper's vocabulary, which the original's "
                    "instructions list: use texts=ours"
                )
            self._instructions = original.system
        else:
            self._instructions = prompts.instructions(
                self._board, self._colors, self._shapes, self.config.modality, self.config.extra_facts
            )
        self._legal: dict[State, list[str]] = {}
        goal = instance.goal_state()
        self._start(self._solver_for(self._board, goal), goal, instance.start_state(), self.config.max_steps)

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

    def _read(self, text: str) -> ParsedMove | PaperCommand | ParseFailure:
        if self.config.parser == "lenient":
            return parse_move(text)
        command = extract_command(text)
        if command is None:
            return ParseFailure(
                "no 'action: move ' in the reply (the text after the last one is read)",
                shorten(text.strip().splitlines()[-1] if text.strip() else ""),
            )
        return decode(command)

    def _format_hint(self) -> str:
        return PAPER_FORMAT_HINT if self.config.parser == "paper" else FORMAT_HINT

    def _move(
        self, move: ParsedMove | PaperCommand, info: dict[str, Any]
    ) -> tuple[Validity, str | None, str]:
        if isinstance(move, PaperCommand):
            return self._paper_move(move, info)
        color, shape, direction = move.color, move.shape, move.direction
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
        return (
            self._classify(moved(state, i, dest), self._counts),
            None,
            f"{cmd}: the {name} moved from {board.coord(src)} to {board.coord(dest)}.",
        )

    def _paper_move(self, cmd: PaperCommand, info: dict[str, Any]) -> tuple[Validity, str | None, str]:
        """A decoded command applied as the original's simulator does (see `paper_parse`): the named
        geom moves `repetition` times; each failed move is logged occupied or out of bounds; the
        step is effective or ineffective by the distance before and after it."""
        said = f"'{cmd.text}'"
        i = self._index.get((cmd.color, cmd.shape))
        if i is None or not cmd.direction or not cmd.repetition:
            self._counts["actions_unclassified"] += 1
            if i is None:
                named = cmd.geom.strip()
                why = (
                    f"'{named}' is not a geom on the board" if cmd.color else "it names no geom on the board"
                )
                reason = "unknown_geom"
            elif not cmd.direction:
                why, reason = "it names no direction (up, down, left or right)", "no_direction"
            else:
                why, reason = "it repeats the move zero times (or more times than can be counted)", "no_move"
            return Validity.INVALID, reason, f"{said} moved nothing: {why}. The board did not change."
        board, state = self._board, self._state
        name = f"{cmd.color} {cmd.shape}"
        src = state[i]
        step, here, done = DIR_INDEX[cmd.direction], src, 0
        failure = None
        while done < cmd.repetition:
            dest = board.neighbors[here][step]
            if dest < 0 or dest in state:
                failure = "out_of_bounds" if dest < 0 else "occupied"
                break
            state = moved(state, i, dest)
            here, done = dest, done + 1
        info.update(geom=name, source=board.coord(src), destination=board.coord(here), moves=done)
        text = f"{said}: "
        if done:
            text += f"the {name} moved {cmd.direction} from {board.coord(src)} to {board.coord(here)}"
            text += f" ({done} moves)" if done > 1 else ""
        if failure is not None:
            failed = cmd.repetition - done
            self._counts[f"actions_{failure}"] += failed
            target = board.neighbors[here][step]
            why = (
                f"moving {cmd.direction} from {board.coord(here)} would leave the board"
                if failure == "out_of_bounds"
                else f"{board.coord(target)} is occupied by the {' '.join(self._keys[state.index(target)])}"
            )
            times = f" ({failed} times)" if failed > 1 else ""
            text += ("; then " if done else "") + f"the move failed{times}: {why}"
        if not done:
            return Validity.INVALID, failure, text + ". The board did not change."
        return self._classify(state, self._counts, moves=done), None, text + "."

    def _oracle(self, role: str) -> str | None:
        move = self._solver.next_move(self._state)
        if move is None:
            return None
        color, shape = self._keys[move[0]]
        return f"action: move {color} {shape} {DIRECTIONS[move[1]]}"

    # --- observing -------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """Every move that changes the current state (what the random baseline samples from)."""
        cached = self._legal.get(self._state)
        if cached is None:
            keys = self._keys
            cached = [
                f"action: move {keys[i][0]} {keys[i][1]} {DIRECTIONS[d]}"
                for i, d, _ in state_changing_moves(self._board, self._state)
            ]
            self._legal[self._state] = cached
        return list(cached)

    def _listing_text(self, state: State) -> str:
        """`<COORDINATE> <color> <shape>` for every geom, one per line, in board-coordinate order
        (column, then row), as the paper's Figure 2 shows the text states."""
        board, keys = self._board, self._keys
        order = sorted(range(len(state)), key=lambda i: board.sort_key(state[i]))
        return "\n".join(f"{board.coord(state[i]).upper()} {keys[i][0]} {keys[i][1]}" for i in order)

    def _positions_data(self, state: State) -> dict[str, str]:
        """Geom (`<color> <shape>`) -> its coordinate, in the instance's geom order."""
        board, keys = self._board, self._keys
        return {f"{c} {s}": board.coord(cell) for (c, s), cell in zip(keys, state, strict=True)}

    def _renderer(self) -> Callable[[State, str], bytes] | None:
        render = STATE_RENDERERS.get(self.config.modality)
        if render is None:
            return None
        return lambda state, kind: render(
            self._board, [(cell, *self._keys[i]) for i, cell in enumerate(state)], kind, self.config
        )

    def _no_action_note(self) -> str:
        original = self.original_prompts()
        return original.no_action if original is not None else super()._no_action_note()

    def _view(self, past: list[tuple[State, str, str]]) -> tuple[list[Turn] | None, list[Part]]:
        """texts=original: their agent class's conversation (`original_prompts.py`); ours: see
        `SlidingPuzzleTask._view`. `conversation=packed` puts their turns' parts in one user message."""
        original = self.original_prompts()
        if original is None:
            return super()._view(past)
        cfg = self.config
        turns, parts = original.view(
            self._goal,
            self._state,
            past,
            self.listing,
            self.image if self._renderer() is not None else None,
            results=cfg.move_results,
            counter=self._counter() if cfg.step_counter else None,
        )
        if cfg.conversation == "packed" and turns is not None:
            return None, [p for turn in turns for p in turn.parts] + parts
        return turns, parts

    def _block(self, goal: str | None, current: str | None) -> str:
        if goal is None or current is None:
            return prompts.vision_block()
        return prompts.text_block(goal, current)

    # --- results ---------------------------------------------------------------------------
    def _extra_metrics(self) -> dict[str, Any]:
        return {"num_geoms": len(self._keys)}

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
            "episodes_without_step_deviation": summaries.without_step_deviation(rows),
            "by_cell": [{"num_geoms": g, "optimal_steps": L, **stats(v)} for (g, L), v in cells.items()],
            "by_num_geoms": [{"num_geoms": g, **stats(v)} for g, v in by_geoms.items()],
            "by_optimal_steps": [{"optimal_steps": L, **stats(v)} for L, v in by_length.items()],
        }
