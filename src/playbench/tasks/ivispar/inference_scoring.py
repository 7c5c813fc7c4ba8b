"""Reading and scoring board descriptions for the board-state inference task (paper §4.7).

Pure functions, no task state: `parse_solution` turns a free-form reply into `<coordinate> <color>
<shape>` triplets plus one format issue per element it rejects, and `score_board` matches those
triplets against the true board with the Hungarian algorithm. Nothing in a reply is evaluated;
parsing is plain string work. The rules and the reasons for them are in the suite README
("Board-state inference").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from scipy.optimize import linear_sum_assignment

from playbench.tasks.ivispar.board import (
    COLOR_ALIASES,
    GEOM_COLORS,
    SHAPE_ALIASES,
    SHAPES,
    Board,
    normalize_color,
    normalize_shape,
)

SOLUTION_TEMPLATE = "Solution: <coordinate> <color> <shape>, <coordinate> <color> <shape>, ..."

# `Solution:` in any case; markdown emphasis or quotes between the word and the colon
# (`**Solution**:`) are tolerated because they are decoration, not a different answer.
_SOLUTION = re.compile(r"\bsolution[\s*_`'\"]*:", re.IGNORECASE)
# Commas are the instructed separator; newlines and semicolons also end an element so that a
# one-per-line or `;`-separated list is read element by element instead of as one long error.
_SEPARATORS = re.compile(r"[,;\n\r]+")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_NON_WORD = re.compile(r"[^a-z0-9\s]+")
_COORD = re.compile(r"[a-z][0-9]{1,2}")

# Words models use for an empty tile (paper E1: "a4 empty", "b1 no object", "a1 none none").
EMPTY_WORDS = frozenset(
    {"empty", "blank", "none", "nothing", "vacant", "unoccupied", "free", "no", "null", "nil"}
)
_KNOWN_COLORS = frozenset(GEOM_COLORS) | frozenset(COLOR_ALIASES)
_KNOWN_SHAPES = frozenset(SHAPES) | frozenset(SHAPE_ALIASES)
# Longer than this and an element is a sentence or a run-on list (paper E7), not a bad entry.
_MAX_ENTRY_TOKENS = 5

# Format issue kinds, with the paper's category (appendix A.6.1) they correspond to.
FORMAT_KINDS: dict[str, str] = {
    "empty_cell": "E1",
    "missing_attribute": "E2",
    "unknown_attribute": "E3",
    "reversed_order": "E4",
    "multiple_attributes": "E5",
    "out_of_bounds": "E6",
    "not_a_triplet": "E7",
    "no_solution": "E8",
    "empty_solution": "E8",
}
_KIND_TEXT: dict[str, str] = {
    "empty_cell": "mentions an empty tile (list occupied tiles only)",
    "missing_attribute": "lacks a colour or a shape",
    "unknown_attribute": "uses a colour or shape outside the vocabulary",
    "reversed_order": "gives the shape before the colour",
    "multiple_attributes": "gives more than one coordinate, colour or shape",
    "out_of_bounds": "names a tile that is not on the board",
    "not_a_triplet": "is not '<coordinate> <color> <shape>'",
    "no_solution": "has no 'Solution:'",
    "empty_solution": "lists nothing after 'Solution:'",
}


class Triplet(NamedTuple):
    """One geom as a reply states it (or as it really is): tile, colour and shape, canonical names."""

    coord: str
    color: str
    shape: str

    @property
    def text(self) -> str:
        return f"{self.coord} {self.color} {self.shape}"


@dataclass(frozen=True)
class FormatIssue:
    """One rejected element of a reply; `kind` is a key of `FORMAT_KINDS`."""

    kind: str
    text: str

    def describe(self) -> str:
        shown = f"'{_shorten(self.text)}' " if self.text else "the reply "
        return f"{shown}{_KIND_TEXT.get(self.kind, 'could not be read')}"


@dataclass
class ParsedSolution:
    """What a reply says: the triplets read in order and the elements that could not be read."""

    found: bool
    triplets: list[Triplet] = field(default_factory=list)
    issues: list[FormatIssue] = field(default_factory=list)

    @property
    def text(self) -> str | None:
        """The canonical `Solution: ...` line of the triplets read, or None if there are none."""
        if not self.triplets:
            return None
        return "Solution: " + ", ".join(t.text for t in self.triplets)


def solution_line(triplets: Iterable[Triplet]) -> str:
    return "Solution: " + ", ".join(t.text for t in triplets)


def parse_solution(reply: str, board: Board, colors: Sequence[str], shapes: Sequence[str]) -> ParsedSolution:
    """Read the list after the LAST `Solution:` of `reply` (see the README for every rule).

    `colors` and `shapes` are the episode's vocabulary (canonical names); a colour or shape outside
    it is a format error even if it is a real one, as in the paper (E3).
    """
    text = reply if isinstance(reply, str) else str(reply)
    matches = list(_SOLUTION.finditer(text))
    if not matches:
        return ParsedSolution(found=False, issues=[FormatIssue("no_solution", "")])
    tail = text[matches[-1].end() :]
    vocab_colors, vocab_shapes = frozenset(colors), frozenset(shapes)
    out = ParsedSolution(found=True)
    for element in _SEPARATORS.split(tail):
        raw = " ".join(element.split())
        tokens = _NON_WORD.sub(" ", _LIST_MARKER.sub("", element).lower()).split()
        if not tokens:  # blank lines, trailing commas, code fences: nothing was said
            continue
        triplet = _triplet(tokens, board, vocab_colors, vocab_shapes)
        if triplet is not None:
            out.triplets.append(triplet)
        else:
            out.issues.append(FormatIssue(_classify(tokens, board, vocab_colors, vocab_shapes), raw))
    if not out.triplets and not out.issues:
        out.issues.append(FormatIssue("empty_solution", ""))
    return out


def _on_board(token: str, board: Board) -> bool:
    if not _COORD.fullmatch(token):
        return False
    col, row = ord(token[0]) - ord("a"), int(token[1:])
    return col < board.width and 1 <= row <= board.height


def _triplet(
    tokens: list[str], board: Board, colors: frozenset[str], shapes: frozenset[str]
) -> Triplet | None:
    if len(tokens) != 3 or not _on_board(tokens[0], board):
        return None
    color, shape = normalize_color(tokens[1]), normalize_shape(tokens[2])
    if color not in colors or shape not in shapes:
        return None
    # "a03" is a3: the row is a number, and the canonical name makes it comparable to the truth
    return Triplet(f"{tokens[0][0]}{int(tokens[0][1:])}", color, shape)


def _classify(tokens: list[str], board: Board, colors: frozenset[str], shapes: frozenset[str]) -> str:
    """Which of the paper's systematic format errors (E1-E7) an unreadable element resembles.

    Only diagnostic: every kind counts as one format error. The order of the checks matters
    (a long run-on element that happens to contain 'none' is a non-list answer, not an empty tile).
    """
    if len(tokens) > _MAX_ENTRY_TOKENS:
        return "not_a_triplet"
    known_colors = _KNOWN_COLORS | colors
    known_shapes = _KNOWN_SHAPES | shapes
    coords = [t for t in tokens if _COORD.fullmatch(t)]
    n_colors = sum(t in known_colors for t in tokens)
    n_shapes = sum(t in known_shapes for t in tokens)
    if n_colors + n_shapes == 0 and any(t in EMPTY_WORDS for t in tokens):
        return "empty_cell"
    if len(coords) > 1 or n_colors > 1 or n_shapes > 1 or any(t.startswith("multi") for t in tokens):
        return "multiple_attributes"
    if coords and tokens[0] == coords[0] and not _on_board(coords[0], board):
        return "out_of_bounds"
    if len(tokens) == 3 and coords[:1] == tokens[:1]:
        second, third = normalize_shape(tokens[1]), normalize_color(tokens[2])
        if second in shapes and third in colors:
            return "reversed_order"
    # "b2 sphere" or "c1 none pyramid"; "b3 red block" names a wrong shape instead (E3)
    lacks_one = len(tokens) == 2 or (len(tokens) == 3 and any(t in EMPTY_WORDS for t in tokens[1:]))
    if coords[:1] == tokens[:1] and n_colors + n_shapes == 1 and lacks_one:
        return "missing_attribute"
    if len(tokens) == 3 and coords[:1] == tokens[:1]:
        return "unknown_attribute"
    return "not_a_triplet"


# --- scoring -------------------------------------------------------------------------------


@dataclass
class BoardScore:
    """The paper's error counts for one reply (§4.7, tables 4-5), plus bookkeeping.

    Every true geom is exactly one of: correct, missed, or matched with at least one mismatch
    (`mismatched`); so ``correct + missed + mismatched == num_geoms``. A mismatched pair adds one
    to each of `coord_errors`, `color_errors`, `shape_errors` that applies.
    """

    num_geoms: int
    predicted: int
    correct: int = 0
    missed: int = 0
    hallucinated: int = 0
    coord_errors: int = 0
    color_errors: int = 0
    shape_errors: int = 0
    format_errors: int = 0
    mismatched: int = 0
    pairs: list[tuple[Triplet, Triplet]] = field(default_factory=list)  # (true, predicted)

    @property
    def success(self) -> bool:
        """The whole board read exactly: every geom correct, nothing invented, nothing unreadable."""
        return self.correct == self.num_geoms and self.hallucinated == 0 and self.format_errors == 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.num_geoms if self.num_geoms else 1.0

    def metrics(self) -> dict[str, Any]:
        return {
            "num_geoms": self.num_geoms,
            "predicted": self.predicted,
            "correct": self.correct,
            "missed": self.missed,
            "hallucinated": self.hallucinated,
            "coord_errors": self.coord_errors,
            "color_errors": self.color_errors,
            "shape_errors": self.shape_errors,
            "format_errors": self.format_errors,
            "mismatched": self.mismatched,
            "accuracy": self.accuracy,
        }


def matchable(a: Triplet, b: Triplet) -> bool:
    """The paper's match rule: two geoms can be paired only if they share the colour or the shape."""
    return a.color == b.color or a.shape == b.shape


def score_board(truth: Sequence[Triplet], predicted: Sequence[Triplet], format_errors: int = 0) -> BoardScore:
    """Match `predicted` to `truth` (Hungarian algorithm) and count the paper's error types.

    Only pairs sharing the colour or the shape may be matched (the paper's rule). The matching
    chosen minimises ``mismatches + 1.25 * (missed + hallucinated)``, where a matched pair's
    mismatches count its wrong coordinate, colour and shape; ties go to the matching with fewer
    coordinate mismatches, so a prediction is paired with the geom on its own tile when that explains
    it equally well. Because a pair has at most two mismatches (< 2.5), any two leftover geoms that
    may be paired are; and no exact match is ever broken up to pair other geoms, so `correct` is
    the largest possible. Encoded in one integer matrix, see the suite README.
    """
    score = BoardScore(num_geoms=len(truth), predicted=len(predicted), format_errors=format_errors)
    n, m = len(truth), len(predicted)
    k = min(n, m)
    if k == 0:
        score.missed, score.hallucinated = n, m
        return score
    # Units: the coordinate tie-break is 1 and every other weight a multiple of k + 1, so the
    # tie-breaks (at most k in total) never outweigh the main objective. Pairing a geom with a
    # prediction saves one missed and one hallucinated (2 * unmatched); unpairable entries cost 0,
    # which is the same as leaving both unmatched, so the rectangular assignment over all rows
    # equals the best partial matching once those entries are dropped.
    scale = k + 1
    per_error, unmatched = 4 * scale, 5 * scale
    cost = np.zeros((n, m), dtype=np.int64)
    allowed = np.zeros((n, m), dtype=bool)
    for i, t in enumerate(truth):
        for j, p in enumerate(predicted):
            if matchable(t, p):
                coord_wrong = t.coord != p.coord
                errors = coord_wrong + (t.color != p.color) + (t.shape != p.shape)
                cost[i, j] = errors * per_error + coord_wrong - 2 * unmatched
                allowed[i, j] = True
    rows, cols = linear_sum_assignment(cost)
    matched_truth: set[int] = set()
    matched_pred: set[int] = set()
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        if not allowed[i, j]:
            continue
        t, p = truth[i], predicted[j]
        matched_truth.add(i)
        matched_pred.add(j)
        score.pairs.append((t, p))
        if t == p:
            score.correct += 1
            continue
        score.mismatched += 1
        score.coord_errors += t.coord != p.coord
        score.color_errors += t.color != p.color
        score.shape_errors += t.shape != p.shape
    score.missed = n - len(matched_truth)
    score.hallucinated = m - len(matched_pred)
    return score


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
