"""Option and instance schemas of the Sliding Geom Puzzle (pydantic, JSON round-trip): `SGPConfig`
and `SGPInstance`, with the board-size type every iVISPAR schema shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from playbench.core.original_texts import TextsOptions
from playbench.core.task import Instance
from playbench.tasks.ivispar.board import (
    DIRECTIONS,
    GEOM_COLORS,
    MAX_SIDE,
    SHAPES,
    Board,
    State,
    get_board,
    normalize_color,
    normalize_shape,
)

DEFAULT_GEOMS = tuple(range(2, 12))  # the paper's dataset: 2..11 geoms
DEFAULT_LENGTHS = tuple(range(2, 12))  # and shortest paths of 2..11 moves
DEFAULT_REPS = 3
# The original's frame width: its agents send 1200x900 images (the simulator's screenshots, and
# `render_2D.py`'s 12 x 9 inch figure at 100 dpi); `image_size` is the width, the height 3/4 of it.
ORIGINAL_IMAGE_WIDTH = 1200
Parser = Literal["paper", "lenient"]
# how the past reaches the model: the original's chat of user and assistant turns, or one user message
Conversation = Literal["chat", "packed"]


def min_geoms_for(interference: int) -> int:
    """Fewest geoms the default grid uses at this interference.

    Few geoms on an open board can nearly always step around each other: on 4x4, two geoms
    never showed an interference of 4, three never one of 6. With interference + 1 geoms every
    default cell could be generated for every seed we tried.
    """
    return interference + 1 if interference else DEFAULT_GEOMS[0]


def min_manhattan_for(interference: int) -> int:
    """Smallest Manhattan sum (optimal length - interference) the default grid uses.

    A Manhattan sum of 1 never has interference (the one displaced geom's goal is free), and
    large detours need several displaced geoms to obstruct each other: a sum of I/2 + 2 has
    always been found on 4x4.
    """
    return interference // 2 + 2 if interference else 0


def parse_board_size(value: Any) -> Any:
    # `--set board_size=5x5` arrives as a plain string; accept "5x5" and "5,5" beside [5, 5].
    if isinstance(value, str):
        parts = value.lower().replace("x", ",").split(",")
        try:
            return [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"board size {value!r} must look like 4x4 or [4, 4]") from None
    return value


def check_board_size(value: list[int], max_side: int = MAX_SIDE) -> list[int]:
    if len(value) != 2:
        raise ValueError(f"board size must be [width, height], got {value}")
    w, h = value
    if not (2 <= w <= max_side and 2 <= h <= max_side):
        raise ValueError(f"board width and height must each be between 2 and {max_side}, got {w}x{h}")
    return [w, h]


# `[width, height]`, also given as "5x5" or "5,5"; one definition for every iVISPAR config and instance
BoardSize = Annotated[list[int], BeforeValidator(parse_board_size), AfterValidator(check_board_size)]


def _name_list(value: Any) -> Any:
    if isinstance(value, str):
        return [v for v in value.replace(",", " ").split() if v]
    return value


def _vocabulary(names: list[str], known: Sequence[str], one: str, many: str) -> list[str]:
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {one}(s) {', '.join(unknown)}; accepted: {', '.join(known)}")
    if not names:
        raise ValueError(f"at least one {one} is needed")
    if len(set(names)) != len(names):
        raise ValueError(f"{many} must not repeat, got {names}")
    return names


class SGPConfig(TextsOptions):
    """Options of `ivispar/sgp*` (see the suite README for their meaning). `texts` and `originals`
    (from `TextsOptions`): the authors' words from their clone, or ours."""

    modality: Literal["text", "2d", "3d"] = "text"
    # "paper": the 300 boards the paper ran (shipped, data/paper_boards.json); "generated": our
    # seeded generator with every knob below; "twin": one new board per paper board, matched in
    # difficulty (twin.py), drawn with the run's seed
    dataset: Literal["paper", "generated", "twin"] = "paper"
    board_size: BoardSize = Field(default_factory=lambda: [4, 4])
    past_window: int = Field(2, ge=0, le=50)
    max_steps: int = Field(20, ge=1, le=10_000)
    colors: list[str] = Field(default_factory=lambda: ["green", "red", "blue", "yellow"])
    shapes: list[str] = Field(default_factory=lambda: ["cube", "sphere", "pyramid", "cylinder"])
    num_geoms: int | None = None
    # declared before optimal_length, whose check reads it
    interference: int = Field(0, ge=0, le=100)
    optimal_length: int | None = None
    labels: bool = True
    image_size: int = Field(ORIGINAL_IMAGE_WIDTH, ge=96, le=4096)
    # RGB of any vocabulary colour in the images, e.g. {"red": [200, 40, 40]}; names stay the words
    # of the action grammar, the paper's free choice of RGB values is this mapping.
    color_rgb: dict[str, list[int]] = Field(default_factory=dict)
    # the protocol: "paper" reads replies as the original does; our extensions are off by default
    parser: Parser = "paper"
    move_results: bool = False  # show each past action's result (occupied, out of bounds, ...)
    step_counter: bool = False  # show the action number and the cap
    extra_facts: bool = False  # state our facts the original's prompt omits (board orientation, ...)
    # texts=original: whose wording and layout to send, of the authors' agent classes (GPT4Agent,
    # ClaudeAgent, GeminiAgent); they differ in indentation and in the past-action labels
    prompt_agent: Literal["gpt4", "claude", "gemini"] = "gpt4"
    # "chat": the original's conversation shape (GPT4Agent's with texts=ours; prompt_agent's with
    # texts=original), rebuilt at every step as Observation.turns; "packed": one user message
    conversation: Conversation = "chat"

    @field_validator("colors", "shapes", mode="before")
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        return _name_list(value)

    @field_validator("colors")
    @classmethod
    def _valid_colors(cls, value: list[str]) -> list[str]:
        return _vocabulary([normalize_color(c) for c in value], GEOM_COLORS, "color", "colors")

    @field_validator("color_rgb", mode="before")
    @classmethod
    def _valid_rgb(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f'color_rgb must be an object like {{"red": [200, 40, 40]}}, got {value!r}')
        out = {}
        for name, rgb in value.items():
            color = normalize_color(str(name))
            if color not in GEOM_COLORS:
                raise ValueError(f"color_rgb: unknown color {name!r}; accepted: {', '.join(GEOM_COLORS)}")
            if not (
                isinstance(rgb, list | tuple)
                and len(rgb) == 3
                and all(isinstance(c, int) and 0 <= c <= 255 for c in rgb)
            ):
                raise ValueError(f"color_rgb: {name!r} needs three integers 0-255, got {rgb!r}")
            out[color] = list(rgb)
        return out

    def palette(self) -> dict[str, tuple[int, int, int]]:
        """Colour name -> RGB used by the renderers."""
        return {**GEOM_COLORS, **{k: (v[0], v[1], v[2]) for k, v in self.color_rgb.items()}}

    @field_validator("shapes")
    @classmethod
    def _valid_shapes(cls, value: list[str]) -> list[str]:
        return _vocabulary([normalize_shape(x) for x in value], SHAPES, "shape", "shapes")

    @field_validator("num_geoms")
    @classmethod
    def _valid_num_geoms(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is None:
            return None
        limit = _max_geoms(info.data)
        if limit is None:  # an earlier field failed; its own error is reported
            return value
        if not 1 <= value <= limit:
            raise ValueError(
                f"num_geoms must be between 1 and {limit} (one free cell at least, and at most "
                f"colors x shapes distinct geoms), got {value}"
            )
        return value

    @field_validator("interference")
    @classmethod
    def _valid_interference(cls, value: int) -> int:
        if value % 2:
            # every move changes the Manhattan sum by one, so a shortest path and the sum share
            # their parity
            raise ValueError("interference must be even (optimal length and Manhattan sum share parity)")
        return value

    @field_validator("optimal_length")
    @classmethod
    def _valid_length(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is None:
            return None
        if value < 1:
            raise ValueError(f"optimal_length must be at least 1, got {value}")
        interference = info.data.get("interference") or 0
        if interference and value - interference < 2:
            raise ValueError(
                f"optimal_length must exceed the interference by at least 2 (a Manhattan sum of 0 or 1 "
                f"has no interference), got {value} with interference {interference}"
            )
        board = info.data.get("board_size")
        limit = _max_geoms(info.data)
        if board is None or limit is None:
            return value
        geoms = info.data.get("num_geoms") or min(max(DEFAULT_GEOMS), limit)
        # each geom can be at most one board diagonal away from its goal
        most = geoms * (board[0] + board[1] - 2)
        if value - interference > most:
            raise ValueError(
                f"optimal_length {value} is unreachable with {geoms} geoms on this board (max {most + interference})"
            )
        return value

    @model_validator(mode="after")
    def _grid_exists(self) -> SGPConfig:
        if self.dataset in ("paper", "twin") and (list(self.board_size) != [4, 4] or self.interference):
            raise ValueError(
                f"dataset={self.dataset} is the paper's 4x4 boards (or their twins) with interference 0; "
                "set dataset=generated for other board sizes or interference"
            )
        if self.interference and not self.geom_counts():
            raise ValueError(
                f"interference {self.interference} needs at least {min_geoms_for(self.interference)} geoms "
                "in the default grid, more than this board and vocabulary hold; set num_geoms"
            )
        if self.interference and not self.lengths():
            raise ValueError(
                f"no default optimal length (2..11) leaves a Manhattan sum of at least "
                f"{min_manhattan_for(self.interference)} at interference {self.interference}; set optimal_length"
            )
        return self

    # --- derived ---------------------------------------------------------------------------
    def geom_counts(self) -> tuple[int, ...]:
        if self.num_geoms is not None:
            return (self.num_geoms,)
        limit = _max_geoms(self.model_dump()) or 1
        if self.interference:
            low = min_geoms_for(self.interference)
            return tuple(g for g in range(low, max(DEFAULT_GEOMS) + 1) if g <= limit)
        counts = tuple(g for g in DEFAULT_GEOMS if g <= limit)
        return counts or (limit,)

    def lengths(self) -> tuple[int, ...]:
        if self.optimal_length is not None:
            return (self.optimal_length,)
        if self.interference:
            low = self.interference + min_manhattan_for(self.interference)
            return tuple(length for length in DEFAULT_LENGTHS if length >= low)
        return DEFAULT_LENGTHS


def _max_geoms(data: dict[str, Any]) -> int | None:
    board, colors, shapes = data.get("board_size"), data.get("colors"), data.get("shapes")
    if board is None or colors is None or shapes is None:
        return None
    return min(board[0] * board[1] - 1, len(colors) * len(shapes))


class GeomSpec(BaseModel):
    """One geom: its identity and its start and goal coordinates (chess style, e.g. `b3`)."""

    model_config = ConfigDict(extra="forbid")

    shape: str
    color: str
    start: str
    goal: str

    @field_validator("shape")
    @classmethod
    def _shape(cls, value: str) -> str:
        value = normalize_shape(value)
        if value not in SHAPES:
            raise ValueError(f"unknown shape {value!r}; accepted: {', '.join(SHAPES)}")
        return value

    @field_validator("color")
    @classmethod
    def _color(cls, value: str) -> str:
        value = normalize_color(value)
        if value not in GEOM_COLORS:
            raise ValueError(f"unknown color {value!r}; accepted: {', '.join(GEOM_COLORS)}")
        return value

    @field_validator("start", "goal")
    @classmethod
    def _coord(cls, value: str) -> str:
        return value.strip().lower()

    @property
    def name(self) -> str:
        return f"{self.color} {self.shape}"


class SGPInstance(Instance):
    """One puzzle. `optimal_steps` is the shortest solution length from the start arrangement."""

    board_size: BoardSize = Field(default_factory=lambda: [4, 4])
    geoms: list[GeomSpec]
    num_geoms: int | None = None
    interference: int | None = None  # optimal_steps minus the sum of Manhattan distances
    seed: int | None = None
    rep: int | None = None
    solution: list[str] | None = None  # one shortest move sequence, as action strings

    @model_validator(mode="after")
    def _consistent(self) -> SGPInstance:
        board = self.board()
        if not self.geoms:
            raise ValueError("an instance needs at least one geom")
        if len(self.geoms) > board.cells - 1:
            raise ValueError(
                f"{len(self.geoms)} geoms leave no free cell on a {board.width}x{board.height} board"
            )
        names = [g.name for g in self.geoms]
        if len(set(names)) != len(names):
            raise ValueError(f"every geom must have a distinct color and shape, got {names}")
        start, goal = self.start_state(), self.goal_state()
        for label, state in (("start", start), ("goal", goal)):
            if len(set(state)) != len(state):
                raise ValueError(f"two geoms share a {label} coordinate")
        if self.num_geoms is None:
            self.num_geoms = len(self.geoms)
        elif self.num_geoms != len(self.geoms):
            raise ValueError(f"num_geoms is {self.num_geoms} but {len(self.geoms)} geoms are listed")
        # local import: the solver module is only needed for this check
        from playbench.tasks.ivispar.solver import is_solvable

        if not is_solvable(board, start, goal):
            raise ValueError("the goal arrangement cannot be reached from the start arrangement")
        if self.solution is not None:
            _check_solution(self, board, start, goal)
        return self

    def board(self) -> Board:
        return get_board(self.board_size[0], self.board_size[1])

    def start_state(self) -> State:
        board = self.board()
        return tuple(board.parse_coord(g.start) for g in self.geoms)

    def goal_state(self) -> State:
        board = self.board()
        return tuple(board.parse_coord(g.goal) for g in self.geoms)

    def geom_keys(self) -> list[tuple[str, str]]:
        return [(g.color, g.shape) for g in self.geoms]


def _check_solution(inst: SGPInstance, board: Board, start: State, goal: State) -> None:
    index = {g.name: i for i, g in enumerate(inst.geoms)}
    state = list(start)
    nbrs = board.neighbors
    for action in inst.solution or []:
        parts = action.split()
        if (
            len(parts) != 4
            or parts[0] != "move"
            or f"{parts[1]} {parts[2]}" not in index
            or parts[3] not in DIRECTIONS
        ):
            raise ValueError(
                f"solution step {action!r} is not 'move <color> <shape> <direction>' for a listed geom"
            )
        i = index[f"{parts[1]} {parts[2]}"]
        dest = nbrs[state[i]][DIRECTIONS.index(parts[3])]
        if dest < 0 or dest in state:
            raise ValueError(f"solution step {action!r} is not legal")
        state[i] = dest
    if tuple(state) != goal:
        raise ValueError("the stored solution does not reach the goal")
    if inst.optimal_steps is not None and len(inst.solution or []) != inst.optimal_steps:
        raise ValueError("the stored solution's length differs from optimal_steps")
