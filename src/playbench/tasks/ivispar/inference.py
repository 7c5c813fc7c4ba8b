"""iVISPAR's auxiliary task: read a board image and list every geom (`ivispar/board-inference`).

One episode = one reply. The board shown is the start arrangement of an `ivispar/sgp` instance,
so the task runs over the same boards as the puzzle (the paper's 300 by default). Replies are
read by `inference_scoring.parse_solution` and scored by `inference_scoring.score_board`
(Hungarian matching, paper §4.7). Rules and choices: the suite README, "Board-state inference".
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.model_side import ModelSide
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, Part, StepResult, TextPart, Validity
from playbench.tasks.ivispar import sgp
from playbench.tasks.ivispar.board import SHAPE_GLYPH, Board, get_board
from playbench.tasks.ivispar.inference_scoring import (
    SOLUTION_TEMPLATE,
    BoardScore,
    ParsedSolution,
    Triplet,
    parse_solution,
    score_board,
    solution_line,
)
from playbench.tasks.ivispar.model_side import ivispar_model_side
from playbench.tasks.ivispar.originals import PAPER_BOARDS_COMMIT
from playbench.tasks.ivispar.schema import (
    ORIGINAL_IMAGE_WIDTH,
    BoardSize,
    GeomSpec,
    SGPConfig,
    SGPInstance,
)
from playbench.tasks.ivispar.twin import difficulty as board_difficulty

TASK_NAME = "ivispar/board-inference"
RANDOM_LISTINGS = 20  # board listings offered as legal actions (the random baseline's choices)

# The paper's error types in the order of its tables 4-5; `summarize` reports them in this order.
ERROR_KEYS: tuple[str, ...] = (
    "correct",
    "missed",
    "hallucinated",
    "coord_errors",
    "color_errors",
    "shape_errors",
    "format_errors",
)


class BoardInferenceConfig(TaskConfig):
    """Options of `ivispar/board-inference`; names and checks are those of `ivispar/sgp`.

    The validators delegate to `SGPConfig`'s so that both tasks accept and reject the same values
    with the same messages. Field order matters: the cross-field checks of `num_geoms` and
    `optimal_length` read the board and vocabulary validated before them.
    """

    modality: Literal["2d", "3d"] = "2d"
    dataset: Literal["paper", "generated", "twin"] = "paper"
    board_size: BoardSize = Field(default_factory=lambda: [4, 4])
    colors: list[str] = Field(default_factory=lambda: ["green", "red", "blue", "yellow"])
    shapes: list[str] = Field(default_factory=lambda: ["cube", "sphere", "pyramid", "cylinder"])
    num_geoms: int | None = None
    optimal_length: int | None = None
    labels: bool = True
    image_size: int = Field(ORIGINAL_IMAGE_WIDTH, ge=96, le=4096)
    extra_facts: bool = False  # state our facts the paper's prompt omits (label places, glyphs, ...)

    @field_validator("colors", "shapes", mode="before")
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        return SGPConfig._split_names(value)

    @field_validator("colors")
    @classmethod
    def _valid_colors(cls, value: list[str]) -> list[str]:
        return SGPConfig._valid_colors(value)

    @field_validator("shapes")
    @classmethod
    def _valid_shapes(cls, value: list[str]) -> list[str]:
        return SGPConfig._valid_shapes(value)

    @field_validator("num_geoms")
    @classmethod
    def _valid_num_geoms(cls, value: int | None, info: ValidationInfo) -> int | None:
        return SGPConfig._valid_num_geoms(value, info)

    @field_validator("optimal_length")
    @classmethod
    def _valid_length(cls, value: int | None, info: ValidationInfo) -> int | None:
        return SGPConfig._valid_length(value, info)

    @model_validator(mode="after")
    def _paper_board(self) -> BoardInferenceConfig:
        if self.dataset in ("paper", "twin") and list(self.board_size) != [4, 4]:
            raise ValueError(
                f"dataset={self.dataset} is the paper's 4x4 boards (or their twins); set dataset=generated "
                "for other board sizes"
            )
        return self

    def sgp_config(self, modality: str | None = None) -> SGPConfig:
        """The equivalent `ivispar/sgp` options (what the generator and the renderers take)."""
        return SGPConfig(
            modality=modality or self.modality,
            dataset=self.dataset,
            board_size=list(self.board_size),
            colors=list(self.colors),
            shapes=list(self.shapes),
            num_geoms=self.num_geoms,
            optimal_length=self.optimal_length,
            labels=self.labels,
            image_size=self.image_size,
        )


class BoardInferenceInstance(Instance):
    """An `ivispar/sgp` instance seen as a one-answer task.

    It keeps every puzzle field; the puzzle's shortest solution length moves to `optimal_length`
    because `optimal_steps` is this task's own: one reply.
    """

    optimal_steps: int | None = 1
    board_size: BoardSize = Field(default_factory=lambda: [4, 4])
    geoms: list[GeomSpec]
    num_geoms: int | None = None
    optimal_length: int | None = None
    interference: int | None = None
    seed: int | None = None
    rep: int | None = None
    solution: list[str] | None = None

    @field_validator("optimal_steps")
    @classmethod
    def _one_reply(cls, value: int | None) -> int:
        if value not in (None, 1):
            raise ValueError(f"board inference takes exactly one reply, so optimal_steps is 1 (got {value})")
        return 1

    @model_validator(mode="after")
    def _valid_puzzle(self) -> BoardInferenceInstance:
        # The puzzle's own checks (tiles, distinct geoms, stored solution) apply unchanged.
        try:
            puzzle = self.puzzle()
        except ValidationError as exc:
            raise ValueError(
                "; ".join(f"{'.'.join(map(str, e['loc'])) or 'puzzle'}: {e['msg']}" for e in exc.errors())
            ) from None
        self.board_size = list(puzzle.board_size)
        self.num_geoms = puzzle.num_geoms
        return self

    def puzzle(self) -> SGPInstance:
        """The `ivispar/sgp` instance this board comes from."""
        data = self.model_dump(exclude={"optimal_steps", "optimal_length"})
        return SGPInstance.model_validate({**data, "optimal_steps": self.optimal_length})

    @classmethod
    def from_puzzle(cls, puzzle: SGPInstance) -> BoardInferenceInstance:
        data = puzzle.model_dump(exclude={"optimal_steps"})
        return cls.model_validate({**data, "optimal_steps": 1, "optimal_length": puzzle.optimal_steps})

    def truth(self) -> list[Triplet]:
        """The geoms of the board shown (the start arrangement)."""
        return [Triplet(g.start, g.color, g.shape) for g in self.geoms]


# --- prompts -------------------------------------------------------------------------------


PAPER_EXAMPLE = (
    ("a3", "green", "sphere"),
    ("d1", "blue", "cylinder"),
    ("b4", "yellow", "cube"),
    ("c2", "red", "pyramid"),
)


def example_listing(board: Board, colors: list[str], shapes: list[str]) -> str:
    """A well-formed answer for the instructions (never the board shown): the paper's example
    when it fits the board and vocabulary, else one built from the vocabulary."""
    fits = all(
        c in colors and s in shapes and board.width >= 4 and board.height >= 4 for _, c, s in PAPER_EXAMPLE
    )
    if fits:
        return solution_line(Triplet(*t) for t in PAPER_EXAMPLE)
    combos = list(
        dict.fromkeys(
            (colors[i % len(colors)], shapes[(i + 2) % len(shapes)]) for i in range(len(colors) * len(shapes))
        )
    )
    w, h = board.width, board.height
    spots = [(1, h - 1), (w - 1, 0), (0, 1), (w - 2, h - 2)]
    cells = list(dict.fromkeys(board.cell(c, r) for c, r in spots))
    count = min(4, len(combos), len(cells), board.cells - 1)
    return solution_line(Triplet(board.coord(cells[i]), *combos[i]) for i in range(count))


def instructions(
    board: Board, colors: list[str], shapes: list[str], modality: str, labels: bool, extra_facts: bool = False
) -> str:
    """The system prompt: our wording of the auxiliary prompt of the paper's appendix A.1.1, with
    its facts only; `extra_facts` adds ours (where the labels are, which glyph draws which shape,
    that only the last `Solution:` is read)."""
    last_col, rows = board.column_letters[-1], board.height
    lines = [
        "You are a highly capable AI with excellent spatial reasoning. Your task:",
        "",
        "## Task",
        f"1. You are given an image of coloured geometric objects on a {board.width} by {board.height} board.",
        "2. Analyse the board state and find where every object on the board stands.",
        "3. Reply with a list of chess-style coordinates, each with its object.",
        "",
        "## The board",
        "The board's columns, rows and fields are labelled. Columns "
        f"a-{last_col} run from left to right in the image; rows 1-{rows} run from bottom to top in the image.",
    ]
    if extra_facts and modality == "2d" and labels:
        lines.append(
            "The letters are printed below the board, the numbers to its left, and every empty tile "
            "shows its own name."
        )
    lines += [
        "",
        "## The objects",
        "The objects on the board are each defined by their colour and shape, no two alike:",
        f"Colours: {', '.join(colors)}",
        f"Shapes: {', '.join(shapes)}",
    ]
    if extra_facts and modality == "2d":
        drawn = [f"a {s} as a {SHAPE_GLYPH[s]}" for s in shapes]
        lines.append(f"The picture is seen from above: it draws {', '.join(drawn)}.")
    lines += [
        "",
        "## Answer format",
        "Begin your answer with 'Solution: ' and list every object, in any order, separated by a comma and "
        "one space (', '). Write each object in exactly this form:",
        "<coordinate> <object_color> <object_shape>",
        f"- coordinate: a letter a-{last_col} followed by a digit 1-{rows};",
        f"- object_color: exactly one of {', '.join(colors)};",
        f"- object_shape: exactly one of {', '.join(shapes)}.",
        "List only coordinates that hold an object; say nothing about empty squares.",
        "Use no quotation marks and no angle brackets < >.",
        "Add no text, reasoning or punctuation after the list.",
        "",
        "## Example",
        example_listing(board, colors, shapes),
        "",
        "## Check",
        "No two objects are on the same coordinate. Every object listed has one of the allowed colours "
        "and shapes.",
    ]
    if extra_facts:
        lines += [
            "",
            "If you think out loud, do it before the list: only the last 'Solution:' in your reply is read.",
        ]
    return "\n".join(lines)


# --- the task ------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnreadSolution(ParseError):
    """A reply from which no entry could be read; it is still scored (its format errors count)."""

    solution: ParsedSolution = field(default_factory=lambda: ParsedSolution(found=False))


class BoardInferenceTask(EpisodeTask):
    """Name the tile, colour and shape of every geom in one board image, in one reply."""

    Config: ClassVar[type[TaskConfig]] = BoardInferenceConfig
    InstanceModel: ClassVar[type[Instance]] = BoardInferenceInstance
    instance_label: ClassVar[str] = "board-inference"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: BoardInferenceConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        if not isinstance(self.config, BoardInferenceConfig):
            raise ConfigError(
                f"BoardInferenceTask needs a BoardInferenceConfig, got {type(self.config).__name__}"
            )
        # The renderer is looked up when an image is needed, not here: the 3D renderer registers
        # itself in sgp.STATE_RENDERERS and may not have done so when the task is built.
        self._render_config = self.config.sgp_config()

    # --- instances -------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        # The puzzle task's generator, so that both tasks see the same boards for the same seed;
        # text modality because generation never depends on it and needs no renderer.
        puzzles = sgp.SlidingGeomTask(self.config.sgp_config("text")).instances(n, seed)
        out: list[Instance] = []
        for p in puzzles:
            assert isinstance(p, SGPInstance)
            out.append(BoardInferenceInstance.from_puzzle(p))
        return out

    def difficulty(self, instance: Instance) -> dict[str, Any]:
        """The puzzle's statistics (`twin.difficulty`), so a board's twin is matched as in `ivispar/sgp`."""
        board = self.coerce_instance(instance)
        assert isinstance(board, BoardInferenceInstance)
        return board_difficulty(board.puzzle())

    # --- episode ---------------------------------------------------------------------------
    def coerce_instance(self, instance: Instance | dict[str, Any]) -> Instance:
        # A puzzle instance is accepted as the board it starts from (its optimal_steps is the
        # puzzle's, so it cannot be read as a board-inference instance field by field).
        if isinstance(instance, SGPInstance):
            return BoardInferenceInstance.from_puzzle(instance)
        return super().coerce_instance(instance)

    def _begin(self, instance: BoardInferenceInstance) -> None:
        self._board = get_board(*instance.board_size)
        self._truth = instance.truth()
        # the configured vocabulary plus anything a loaded instance adds, as in ivispar/sgp
        self._colors = list(dict.fromkeys([*self.config.colors, *(g.color for g in instance.geoms)]))
        self._shapes = list(dict.fromkeys([*self.config.shapes, *(g.shape for g in instance.geoms)]))
        self._instructions = instructions(
            self._board,
            self._colors,
            self._shapes,
            self.config.modality,
            self.config.labels,
            self.config.extra_facts,
        )
        self._png: bytes | None = None
        self._listings: list[str] | None = None
        self._answer: list[Triplet] = []  # the entries read from the reply, in its order
        self._score = score_board(self._truth, [])
        self._feedback = ""

    def data_origin(self) -> str:
        """The paper's boards ship converted from the submission copy; the prompt is ours (the
        repositories hold only an older variant of this task's prompt, not the paper's)."""
        if self.config.dataset == "paper":
            return f"original@{PAPER_BOARDS_COMMIT}, converted"
        return "generated"

    def model_side(self) -> ModelSide:
        """The authors' settings for their image calls (`model_side.py`): one board image per episode."""
        return ivispar_model_side(vision=True)

    def state(self) -> dict[str, Any]:
        """The board (hidden: it is the question) and the entries read from the answer."""
        self._require_episode()
        return {
            "board": [list(t) for t in self._truth],
            "answer": [list(t) for t in self._answer],
        }

    # --- acting ----------------------------------------------------------------------------
    def _parse(self, text: str) -> ParsedSolution | ParseError:
        parsed = parse_solution(text, self._board, self._colors, self._shapes)
        if not parsed.triplets:
            # the agent is shown the scored feedback of `_answer_with`, which says more than this
            return UnreadSolution("No geom could be read from the reply.", solution=parsed)
        return parsed

    def _apply(self, parsed: ParsedSolution) -> StepResult:
        return self._answer_with(parsed)

    def _on_parse_error(self, error: ParseError) -> StepResult:
        # An unreadable answer is still the one answer: scored (every geom missed), then the end.
        assert isinstance(error, UnreadSolution)
        return self._answer_with(error.solution)

    def _answer_with(self, parsed: ParsedSolution) -> StepResult:
        score = score_board(self._truth, parsed.triplets, format_errors=len(parsed.issues))
        self._answer, self._score = list(parsed.triplets), score
        self._feedback = _feedback(parsed, score)
        info: dict[str, Any] = {
            **score.metrics(),
            "format_issues": [{"kind": i.kind, "text": i.text} for i in parsed.issues],
        }
        if parsed.triplets:
            return StepResult(Validity.EFFECTIVE, self._feedback, parsed=parsed.text, info=info)
        return StepResult(Validity.UNPARSEABLE, self._feedback, reason="format", info=info)

    def _check_end(self, result: StepResult) -> Termination:
        # One answer ends the episode, read or not, right or wrong (`success` says which):
        # the question was answered.
        return Termination.GOAL_REACHED

    def _oracle(self, role: str) -> str | None:
        board = self._board
        ordered = sorted(self._truth, key=lambda t: board.sort_key(board.parse_coord(t.coord)))
        return solution_line(ordered)

    # --- observing -------------------------------------------------------------------------
    def legal_actions(self) -> list[str]:
        """`RANDOM_LISTINGS` random board listings: the random baseline's answers.

        Each has the true number of geoms, distinct colour x shape combinations drawn uniformly from
        the vocabulary and distinct tiles drawn uniformly from the board, seeded by the instance id.
        They do not change after the answer, since the board never changes.
        """
        inst = self.instance
        if self._listings is None:
            rng = random.Random(derive_seed(TASK_NAME, "random-listings", inst.id))
            board = self._board
            combos = [(c, s) for c in self._colors for s in self._shapes]
            count = min(len(self._truth), len(combos), board.cells)
            listings = []
            for _ in range(RANDOM_LISTINGS):
                cells = sorted(rng.sample(range(board.cells), count), key=board.sort_key)
                geoms = rng.sample(combos, count)
                listings.append(
                    solution_line(Triplet(board.coord(c), *g) for c, g in zip(cells, geoms, strict=True))
                )
            self._listings = listings
        return list(self._listings)

    def image(self) -> bytes:
        """PNG of the board shown, framed as the current state, in the configured modality."""
        inst = self.instance
        if self._png is None:
            modality = self.config.modality
            renderer = sgp.STATE_RENDERERS.get(modality)
            if renderer is None:
                known = ", ".join(sorted(sgp.STATE_RENDERERS)) or "none"
                raise ConfigError(
                    f"modality '{modality}' has no image renderer in this installation (available: {known})"
                )
            pieces = [(self._board.parse_coord(g.start), g.color, g.shape) for g in inst.geoms]
            self._png = renderer(self._board, pieces, "current", self._render_config)
        return self._png

    def _observe(self, role: str) -> Observation:
        # the image and nothing else beyond a title: the instructions hold the task and the format
        parts: list[Part] = [TextPart("The board:"), ImagePart(self.image(), label="current")]
        return Observation(
            role=role,
            parts=parts,
            instructions=self._instructions,
            legal_actions=self.legal_actions(),
            feedback=self._feedback,
            step=self._steps,
            data={
                "board_size": [self._board.width, self._board.height],
                "colors": list(self._colors),
                "shapes": list(self._shapes),
                # the entries read from the answer, once given (the board itself is the question)
                "answer": [t.text for t in self._answer],
            },
        )

    # --- results ---------------------------------------------------------------------------
    def _outcome(self) -> EpisodeResult:
        score = self._score
        return EpisodeResult(success=self.done and score.success, steps=self._steps, metrics=score.metrics())

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """Mean error counts per episode (tables 4-5), pooled accuracy (table 2), and both by geom count.

        `pooled_accuracy` is total correct / total geoms, which is how the paper's table 2 relates
        to its tables 4-5 (e.g. 5.50 correct of 6.5 geoms = 84.6 %); the per-episode mean of
        `accuracy` is in the generic metrics.
        """
        rows = [
            e["metrics"]
            for e in episodes
            if isinstance(e.get("metrics"), dict)
            and isinstance(e["metrics"].get("num_geoms"), int)
            and all(isinstance(e["metrics"].get(k), int | float) for k in ERROR_KEYS)
        ]
        if not rows:
            return {}

        def stats(items: list[dict[str, Any]]) -> dict[str, Any]:
            geoms = sum(m["num_geoms"] for m in items)
            return {
                "n": len(items),
                "mean_num_geoms": fmean(m["num_geoms"] for m in items),
                **{k: fmean(m[k] for m in items) for k in ERROR_KEYS},
                "pooled_accuracy": sum(m["correct"] for m in items) / geoms if geoms else None,
            }

        groups: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for m in rows:
            groups[m["num_geoms"]].append(m)
        overall = stats(rows)
        return {
            "errors_per_episode": {k: overall[k] for k in ERROR_KEYS},
            "pooled_accuracy": overall["pooled_accuracy"],
            "by_num_geoms": [{"num_geoms": g, **stats(v)} for g, v in sorted(groups.items())],
        }


def _feedback(parsed: ParsedSolution, score: BoardScore) -> str:
    if not parsed.found:
        return (
            "No 'Solution:' was found in the reply, so no geom could be read (1 format error). "
            f"All {score.num_geoms} geoms count as missed. Expected: {SOLUTION_TEMPLATE}"
        )
    read = f"Read {score.predicted} geom{'s' if score.predicted != 1 else ''} from the solution"
    text = (
        f"{read}. Of the {score.num_geoms} geoms on the board: {score.correct} correct, "
        f"{score.mismatched} matched with mistakes ({score.coord_errors} coordinate, "
        f"{score.color_errors} colour, {score.shape_errors} shape), {score.missed} missed; "
        f"{score.hallucinated} hallucinated. Format errors: {score.format_errors}"
    )
    if parsed.issues:
        shown = "; ".join(i.describe() for i in parsed.issues[:3])
        more = f"; and {len(parsed.issues) - 3} more" if len(parsed.issues) > 3 else ""
        text += f" ({shown}{more})"
    text += "."
    if score.success:
        text += " The board was read exactly."
    return text
