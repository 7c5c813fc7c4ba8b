"""Optimal solver of the classic numbered sliding tile puzzle (`ivispar/stp`).

A state is a tuple with the cell of every tile: ``state[k - 1]`` is where tile ``k`` lies, cells
numbered as in `board.Board` (``row * width + col``, row 0 at the bottom). The blank is the one
cell the tuple leaves out. The goal is fixed per board: tiles 1..n row by row from the top-left,
the blank at the bottom-right.

The search is IDA*. Its default heuristic is an additive pattern database: the tiles are split
into disjoint groups of at most five, and for each group a table gives the exact number of moves
of that group's tiles needed to bring them home when every other tile is treated as
interchangeable with the blank. Moves of one group's tiles never count in another group, so the
sum is admissible. On square boards the reflection in the main diagonal maps the goal to itself,
so the tables looked up for the mirrored state give a second estimate and the search takes the
larger. On 4x4 this expands tens of times fewer nodes than Manhattan distance plus linear
conflicts, which is also available (``heuristic="lc"``) and serves as a cross-check. Every move
shifts the blank by one cell, so a state's distance has the parity of its Manhattan sum and each
deepening step adds 2.

Tables are built with numpy, breadth-first over (group positions, region the blank can reach
without moving a group tile), which keeps the blank out of the index; they are built on first use
per board and kept for the life of the process (about a second for 4x4).
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

import numpy as np

from playbench.tasks.ivispar.board import OPPOSITE, Board, get_board

State = tuple[int, ...]
Heuristic = Literal["pdb", "lc"]

MAX_CELLS = 64  # blank regions are 64-bit masks
CACHE_CAP = 1_000_000  # cached distances per solver before the caches are flushed
TABLE_BITS = 20  # a group's table has at most 2**20 entries


# --- goal and rules ----------------------------------------------------------------------------
@lru_cache(maxsize=64)
def goal_state(width: int, height: int) -> State:
    """Tiles 1..n row-major from the top-left; the blank ends at the bottom-right cell."""
    out = []
    for k in range(1, width * height):
        top_row, col = divmod(k - 1, width)
        out.append((height - 1 - top_row) * width + col)
    return tuple(out)


def blank_of(board: Board, state: State) -> int:
    """The empty cell (cells 0..C-1 sum to C(C-1)/2; the tiles hold all but one)."""
    return board.cells * (board.cells - 1) // 2 - sum(state)


def slide(state: State, tile: int, blank: int) -> State:
    """The state after `tile` moves into the empty cell `blank`."""
    return state[: tile - 1] + (blank,) + state[tile:]


def tile_moves(board: Board, state: State) -> list[tuple[int, int]]:
    """Every (tile, direction index) that changes the state, by tile number."""
    blank = blank_of(board, state)
    at = {cell: k + 1 for k, cell in enumerate(state)}
    out = []
    for d, n in enumerate(board.neighbors[blank]):
        if n >= 0:
            # the tile on n moves the opposite way to the blank's step
            out.append((at[n], OPPOSITE[d]))
    out.sort()
    return out


def is_solvable(board: Board, state: State) -> bool:
    """Permutation parity plus the blank's row/column distance decide it (Johnson and Story 1879)."""
    goal = goal_state(board.width, board.height)
    cells = board.cells
    perm = list(range(cells))
    for s, g in zip(state, goal, strict=True):
        perm[s] = g
    b_s, b_g = blank_of(board, state), blank_of(board, goal)
    perm[b_s] = b_g
    seen = [False] * cells
    swaps = 0
    for i in range(cells):
        j = i
        length = 0
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        swaps += max(0, length - 1)
    return swaps % 2 == board.manhattan(b_s, b_g) % 2


# --- heuristics --------------------------------------------------------------------------------
def manhattan(board: Board, state: State) -> int:
    goal = goal_state(board.width, board.height)
    return sum(board.manhattan(a, b) for a, b in zip(state, goal, strict=True))


def _conflict_moves(goal_order: list[int]) -> int:
    # Tiles in their goal line but in the wrong order: all but a longest increasing subsequence
    # must leave the line and come back, two extra moves each (the exact linear-conflict count).
    tails: list[int] = []
    for x in goal_order:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return 2 * (len(goal_order) - len(tails))


def linear_conflict(board: Board, state: State) -> int:
    """Manhattan distance plus linear conflicts in every row and column (admissible)."""
    grid = _grid(board, state)
    lines = _LineConflicts(board)
    w = board.width
    return (
        manhattan(board, state)
        + sum(lines.row(r, tuple(grid[r * w : (r + 1) * w])) for r in range(board.height))
        + sum(lines.col(c, tuple(grid[c::w])) for c in range(w))
    )


class _LineConflicts:
    """Linear-conflict moves of one row or column, memoised by the line's contents."""

    def __init__(self, board: Board) -> None:
        self.width = board.width
        goal = goal_state(board.width, board.height)
        self.goal_col = (0,) + tuple(g % board.width for g in goal)
        self.goal_row = (0,) + tuple(g // board.width for g in goal)
        self._rows: dict[tuple[int, tuple[int, ...]], int] = {}
        self._cols: dict[tuple[int, tuple[int, ...]], int] = {}

    def row(self, r: int, tiles: tuple[int, ...]) -> int:
        key = (r, tiles)
        v = self._rows.get(key)
        if v is None:
            v = _conflict_moves([self.goal_col[t] for t in tiles if t and self.goal_row[t] == r])
            self._rows[key] = v
        return v

    def col(self, c: int, tiles: tuple[int, ...]) -> int:
        key = (c, tiles)
        v = self._cols.get(key)
        if v is None:
            # tiles listed bottom to top, so goal rows of an ordered column increase
            v = _conflict_moves([self.goal_row[t] for t in tiles if t and self.goal_col[t] == c])
            self._cols[key] = v
        return v


def _grid(board: Board, state: State) -> list[int]:
    grid = [0] * board.cells
    for k, cell in enumerate(state):
        grid[cell] = k + 1
    return grid


# --- pattern databases -------------------------------------------------------------------------
def field_bits(cells: int) -> int:
    return max(1, (cells - 1).bit_length())


def partition(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """Disjoint tile groups for the additive pattern database.

    4x4 uses the compact 5-5-5 split (top-left block, right side, bottom-left block); other boards
    walk the goal in bands of two rows, column by column, and cut that order into groups as large
    as the table size allows, which keeps each group's tiles close together.
    """
    n = width * height - 1
    if (width, height) == (4, 4):
        return ((1, 2, 3, 5, 6), (4, 7, 8, 11, 12), (9, 10, 13, 14, 15))
    size = max(1, TABLE_BITS // field_bits(width * height))
    order = sorted(
        range(1, n + 1),
        key=lambda k: ((k - 1) // width // 2, (k - 1) % width, (k - 1) // width),
    )
    return tuple(tuple(sorted(order[i : i + size])) for i in range(0, n, size))


def build_pattern_table(width: int, height: int, group: tuple[int, ...]) -> bytes:
    """Exact moves of `group`'s tiles to their goals, indexed by their cells packed in bit fields.

    Breadth-first by cost over (group cells, blank region): within a region the blank moves for
    free (the other tiles are interchangeable with it), and a group tile may step into any cell of
    the region, which costs one and leaves the blank where the tile was. Unused indices hold 255.
    """
    cells = width * height
    if cells > MAX_CELLS:
        raise ValueError(f"pattern tables need at most {MAX_CELLS} cells, got {width}x{height}")
    bits = field_bits(cells)
    k = len(group)
    board = get_board(width, height)
    goal = goal_state(width, height)
    # the narrowest mask type that holds a bit per cell: the gathers below are memory bound
    mask = np.uint16 if cells <= 16 else np.uint32 if cells <= 32 else np.uint64
    everything = (1 << cells) - 1
    col0 = sum(1 << (r * width) for r in range(height))
    col_last = sum(1 << (r * width + width - 1) for r in range(height))
    full, not_col0, not_col_last = mask(everything), mask(everything & ~col0), mask(everything & ~col_last)
    one, w = mask(1), mask(width)
    fmask = (1 << bits) - 1

    def flood(region: np.ndarray, free: np.ndarray) -> np.ndarray:
        while True:
            grown = (
                region
                | ((region << one) & not_col0)
                | ((region >> one) & not_col_last)
                | ((region << w) & full)
                | (region >> w)
            ) & free
            if np.array_equal(grown, region):
                return region
            region = grown

    seen = np.zeros(1 << (bits * k), dtype=mask)  # blank cells met so far, per index
    pending = np.zeros_like(seen)  # blank cells reached by the next cost level
    table = np.full(1 << (bits * k), 255, dtype=np.uint8)
    # neighbour of every cell in each direction (-1 off the board) and that neighbour's bit
    steps = np.array(board.neighbors, dtype=np.int64).T
    step_bits = np.where(steps >= 0, one << np.maximum(steps, 0).astype(mask), mask(0))
    idx = np.array([sum(goal[t - 1] << (bits * i) for i, t in enumerate(group))], dtype=np.int64)
    seeds = np.array([1 << blank_of(board, goal)], dtype=mask)
    cost = 0
    while len(idx):
        pos = [(idx >> (bits * i)) & fmask for i in range(k)]
        occupied = np.zeros(len(idx), dtype=mask)
        for p in pos:
            occupied |= one << p.astype(mask)
        region = flood(seeds, full & ~occupied)
        region &= ~seen[idx]
        seen[idx] |= region
        table[idx] = np.minimum(table[idx], min(cost, 254))
        nxt_idx, nxt_seed = [], []
        for i, p in enumerate(pos):
            vacated = one << p.astype(mask)
            for d in range(4):
                ok = (region & step_bits[d][p]) != 0
                nxt_idx.append(idx[ok] + ((steps[d][p[ok]] - p[ok]) << (bits * i)))
                nxt_seed.append(vacated[ok])
        cand = np.concatenate(nxt_idx)
        cseed = np.concatenate(nxt_seed)
        fresh = (cseed & ~seen[cand]) != 0
        np.bitwise_or.at(pending, cand[fresh], cseed[fresh])
        idx = np.flatnonzero(pending)
        seeds = pending[idx]
        pending[idx] = 0
        cost += 1
    return table.tobytes()


@lru_cache(maxsize=8)
def pattern_database(width: int, height: int) -> tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, ...]]:
    """(tables, group of each tile, bit shift of each tile), index 0 unused; built once per board."""
    groups = partition(width, height)
    bits = field_bits(width * height)
    tables = tuple(build_pattern_table(width, height, g) for g in groups)
    group_of = [0] * (width * height)
    shift = [0] * (width * height)
    for j, g in enumerate(groups):
        for i, t in enumerate(g):
            group_of[t] = j
            shift[t] = bits * i
    return tables, tuple(group_of), tuple(shift)


def pattern_heuristic(board: Board, state: State) -> int:
    """The additive pattern-database value of `state` and of its mirror image, whichever is larger."""
    tables, _, _ = pattern_database(board.width, board.height)
    direct = sum(tables[j][i] for j, i in enumerate(_pattern_indices(board, state)))
    mirror = sum(tables[j][i] for j, i in enumerate(_pattern_indices(board, _mirrored(board, state))))
    return max(direct, mirror)


def _pattern_indices(board: Board, state: State) -> list[int]:
    tables, group_of, shift = pattern_database(board.width, board.height)
    idx = [0] * len(tables)
    for k, cell in enumerate(state):
        idx[group_of[k + 1]] += cell << shift[k + 1]
    return idx


# --- the solver --------------------------------------------------------------------------------
class TileSolver:
    """Shortest distances and plans to the standard goal on one board.

    Distances and next moves are cached per state (the goal is fixed, so one solver per board
    serves every instance); moves are tile numbers, the tile that slides into the blank.
    """

    def __init__(self, board: Board, heuristic: Heuristic = "pdb") -> None:
        if board.cells > MAX_CELLS:
            raise ValueError(
                f"boards of at most {MAX_CELLS} cells are supported, got {board.width}x{board.height}"
            )
        if heuristic not in ("pdb", "lc"):
            raise ValueError(f"unknown heuristic {heuristic!r}; accepted: pdb, lc")
        self.board = board
        self.kind = heuristic
        self.goal = goal_state(board.width, board.height)
        w = board.width
        self._md = [(0,) * board.cells] + [
            tuple(board.manhattan(c, g) for c in range(board.cells)) for g in self.goal
        ]
        self._steps = tuple(tuple(n for n in board.neighbors[c] if n >= 0) for c in range(board.cells))
        self._row_of = tuple(c // w for c in range(board.cells))
        self._lines = _LineConflicts(board) if heuristic == "lc" else None
        self._dist: dict[State, int] = {self.goal: 0}
        self._next: dict[State, int] = {}
        self._mirror = _mirror_tables(board)
        self.nodes = 0  # search nodes expanded, for benchmarks

    # --- queries ---------------------------------------------------------------------------
    def heuristic(self, state: State) -> int:
        if self.kind == "lc":
            return linear_conflict(self.board, state)
        return pattern_heuristic(self.board, state)

    def distance(self, state: State) -> int:
        """Length of a shortest move sequence from `state` to the goal (ValueError if unsolvable)."""
        known = self._dist.get(state)
        if known is not None:
            return known
        return len(self._solve(state))

    def solve(self, state: State) -> list[int]:
        """The first shortest plan IDA* finds, searched afresh: the same answer whatever is cached."""
        return self._solve(state)

    def distance_near(self, state: State, neighbor_distance: int) -> int:
        """Distance of a state one move away from a state whose distance is known.

        It is `neighbor_distance - 1` or `+ 1` (never equal: each move flips the parity), so one
        search bounded by the smaller value decides, and often the heuristic alone does.
        """
        known = self._dist.get(state)
        if known is not None:
            return known
        lower = neighbor_distance - 1
        if lower >= 0 and self.heuristic(state) <= lower:
            path = self._search(state, lower)
            if path is not None:
                self._record(state, path)
                return lower
        self._remember(state, neighbor_distance + 1)
        return neighbor_distance + 1

    def plan(self, state: State) -> list[int]:
        """One shortest plan (tile numbers in order), following cached moves where known."""
        if state != self.goal and state not in self._next:
            self._solve(state)
        out: list[int] = []
        while state != self.goal:
            tile = self._next[state]
            out.append(tile)
            state = slide(state, tile, blank_of(self.board, state))
        return out

    def next_move(self, state: State) -> int | None:
        """The tile to move next on a shortest plan, or None at the goal."""
        if state == self.goal:
            return None
        if state not in self._next:
            self._solve(state)
        return self._next[state]

    # --- search ----------------------------------------------------------------------------
    def _solve(self, state: State) -> list[int]:
        cells = self.board.cells
        if len(state) != cells - 1 or len(set(state)) != len(state) or not all(0 <= c < cells for c in state):
            raise ValueError("a state lists one distinct cell of the board per tile")
        if not is_solvable(self.board, state):
            raise ValueError("the goal is not reachable from this state (wrong permutation parity)")
        h = self.heuristic(state)
        known = self._dist.get(state)
        # the distance has the Manhattan sum's parity; a known distance skips the failing rounds
        bound = known if known is not None else h + (manhattan(self.board, state) - h) % 2
        while True:
            path = self._search(state, bound)
            if path is not None:
                self._record(state, path)
                return path
            bound += 2

    def _remember(self, state: State, d: int) -> None:
        if len(self._dist) >= CACHE_CAP:
            self._dist = {self.goal: 0}
            self._next = {}
        self._dist[state] = d

    def _record(self, root: State, path: list[int]) -> None:
        if len(self._dist) + len(path) >= CACHE_CAP:
            self._dist = {self.goal: 0}
            self._next = {}
        state = root
        remaining = len(path)
        for tile in path:
            self._dist[state] = remaining
            self._next[state] = tile
            state = slide(state, tile, blank_of(self.board, state))
            remaining -= 1

    def _search(self, root: State, bound: int) -> list[int] | None:
        """Tiles of a plan of length <= bound, or None if there is none.

        Nothing cached is spliced in, so the plan found depends on the root and the bound alone;
        instance generation relies on that.
        """
        grid = _grid(self.board, root)
        blank = blank_of(self.board, root)
        old_limit = sys.getrecursionlimit()
        if bound + 100 > old_limit:
            sys.setrecursionlimit(bound + 100)
        try:
            if self.kind == "lc":
                return self._search_lc(root, grid, blank, bound)
            return self._search_pdb(root, grid, blank, bound)
        finally:
            if bound + 100 > old_limit:
                sys.setrecursionlimit(old_limit)

    def _search_pdb(self, root: State, grid: list[int], blank: int, bound: int) -> list[int] | None:
        tables, group_of, shift = pattern_database(self.board.width, self.board.height)
        idx = _pattern_indices(self.board, root)
        steps = self._steps
        mirror_tile, mirror_cell = self._mirror
        ridx = _pattern_indices(self.board, _mirrored(self.board, root))
        path: list[int] = []
        nodes = 0

        def dfs(blank: int, g: int, hd: int, hr: int, prev: int) -> bool:
            nonlocal nodes
            if hd == 0:
                return True
            nodes += 1
            g1 = g + 1
            for n in steps[blank]:
                if n == prev:
                    continue
                t = grid[n]
                j = group_of[t]
                table = tables[j]
                old = idx[j]
                new = old + ((blank - n) << shift[t])
                hd1 = hd + table[new] - table[old]
                if g1 + hd1 > bound:
                    continue
                m = mirror_tile[t]
                jr = group_of[m]
                rtable = tables[jr]
                rold = ridx[jr]
                rnew = rold + ((mirror_cell[blank] - mirror_cell[n]) << shift[m])
                hr1 = hr + rtable[rnew] - rtable[rold]
                if g1 + hr1 > bound:
                    continue
                grid[blank] = t
                grid[n] = 0
                idx[j] = new
                ridx[jr] = rnew
                path.append(t)
                if dfs(n, g1, hd1, hr1, blank):
                    return True
                path.pop()
                grid[n] = t
                grid[blank] = 0
                idx[j] = old
                ridx[jr] = rold
            return False

        hd0 = sum(tables[j][i] for j, i in enumerate(idx))
        hr0 = sum(tables[j][i] for j, i in enumerate(ridx))
        exact = self._dist.get(root)
        if max(hd0, hr0) > bound or (exact is not None and exact > bound):
            return None
        found = dfs(blank, 0, hd0, hr0, -1)
        self.nodes += nodes
        return path if found else None

    def _search_lc(self, root: State, grid: list[int], blank: int, bound: int) -> list[int] | None:
        lines = self._lines
        assert lines is not None
        md, steps, w, row_of = self._md, self._steps, self.board.width, self._row_of
        row_lc, col_lc = lines.row, lines.col
        path: list[int] = []
        nodes = 0

        def dfs(blank: int, g: int, h: int, prev: int) -> bool:
            nonlocal nodes
            if h == 0:
                return True
            nodes += 1
            g1 = g + 1
            for n in steps[blank]:
                if n == prev:
                    continue
                t = grid[n]
                dh = md[t][blank] - md[t][n]
                # a vertical slide changes two rows' contents, a horizontal one two columns'
                if row_of[n] != row_of[blank]:
                    r1, r2 = row_of[n], row_of[blank]
                    before = row_lc(r1, tuple(grid[r1 * w : r1 * w + w])) + row_lc(
                        r2, tuple(grid[r2 * w : r2 * w + w])
                    )
                    grid[blank] = t
                    grid[n] = 0
                    after = row_lc(r1, tuple(grid[r1 * w : r1 * w + w])) + row_lc(
                        r2, tuple(grid[r2 * w : r2 * w + w])
                    )
                else:
                    c1, c2 = n % w, blank % w
                    before = col_lc(c1, tuple(grid[c1::w])) + col_lc(c2, tuple(grid[c2::w]))
                    grid[blank] = t
                    grid[n] = 0
                    after = col_lc(c1, tuple(grid[c1::w])) + col_lc(c2, tuple(grid[c2::w]))
                h1 = h + dh + after - before
                if g1 + h1 <= bound:
                    path.append(t)
                    if dfs(n, g1, h1, blank):
                        return True
                    path.pop()
                grid[n] = t
                grid[blank] = 0
            return False

        h0 = linear_conflict(self.board, root)
        if h0 > bound:
            return None
        found = dfs(blank, 0, h0, -1)
        self.nodes += nodes
        return path if found else None


def _mirror_tables(board: Board) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Tile and cell maps of the reflection in the main diagonal (square boards only).

    It maps the goal to itself (tile k at top row r, column c trades places with the tile at row c,
    column r; the blank stays in the corner), so a state and its mirror image are equally far
    from the goal and the mirror's pattern value is a second admissible estimate.
    """
    w, h = board.width, board.height
    if w != h:  # no such symmetry: the identity keeps the search code uniform
        return tuple(range(board.cells)), tuple(range(board.cells))
    tile = [0] * board.cells
    for k in range(1, board.cells):
        r, c = divmod(k - 1, w)
        tile[k] = c * w + r + 1
    cell = [0] * board.cells
    for x in range(board.cells):
        col, row = x % w, x // w
        top = h - 1 - row  # row counted from the top
        cell[x] = (h - 1 - col) * w + top
    return tuple(tile), tuple(cell)


def _mirrored(board: Board, state: State) -> State:
    tile, cell = _mirror_tables(board)
    out = [0] * len(state)
    for k, x in enumerate(state):
        out[tile[k + 1] - 1] = cell[x]
    return tuple(out)


@lru_cache(maxsize=8)
def get_solver(width: int, height: int) -> TileSolver:
    """The shared solver of one board size (its caches serve every task and the generator)."""
    return TileSolver(get_board(width, height))


# --- small boards: exhaustive search (tests) ---------------------------------------------------
def neighbors_of(board: Board, state: State) -> Iterator[State]:
    blank = blank_of(board, state)
    at = {cell: k + 1 for k, cell in enumerate(state)}
    for n in board.neighbors[blank]:
        if n >= 0:
            yield slide(state, at[n], blank)


def bfs_distances(board: Board) -> dict[State, int]:
    """Exact distance of every solvable state (boards up to 3x3 only)."""
    from collections import deque

    if board.cells > 9:
        raise ValueError("exhaustive search is for boards of at most 9 cells")
    goal = goal_state(board.width, board.height)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for t in neighbors_of(board, s):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist
