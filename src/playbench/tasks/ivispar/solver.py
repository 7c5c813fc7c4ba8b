"""Optimal solver for the Sliding Geom Puzzle.

IDA* with a per-iteration transposition table and the sum of Manhattan distances as heuristic.
Every move changes that sum by exactly one, so the true distance has the heuristic's parity and
each deepening step adds 2. Moves that keep f constant (towards a geom's goal) are tried first,
which is A*'s "prefer larger g" tie-breaking: on interference-free states the first dive is the
answer. Results are cached per state: the distance, and the next move on one shortest path for
every state on a path found, so an oracle playing along a cached plan costs nothing.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator
from functools import lru_cache

from playbench.tasks.ivispar.board import Board, State, get_board, moved, occupancy

Move = tuple[int, int]  # (geom index, direction index)
LOWER_BOUND_CAP = 500_000  # learnt lower bounds kept per solver before the memo is flushed


Steps = tuple[tuple[tuple[int, int], ...], ...]  # per cell, the (direction, neighbour) moves of a kind


@lru_cache(maxsize=1024)
def goal_tables(width: int, height: int, goal_cell: int) -> tuple[tuple[int, ...], Steps, Steps]:
    """For a geom whose goal is `goal_cell`: each cell's Manhattan distance to it, and each cell's moves
    towards it and away from it. A board has few cells, so building these once per cell (not per
    solver, i.e. per episode) takes a solver's start-up from ~0.5 ms to microseconds."""
    board = get_board(width, height)
    nbrs = board.neighbors
    md = tuple(board.manhattan(c, goal_cell) for c in range(board.cells))
    toward = tuple(
        tuple((d, n) for d, n in enumerate(nbrs[c]) if n >= 0 and md[n] < md[c]) for c in range(board.cells)
    )
    away = tuple(
        tuple((d, n) for d, n in enumerate(nbrs[c]) if n >= 0 and md[n] > md[c]) for c in range(board.cells)
    )
    return md, toward, away


class Solver:
    """Shortest-path distances and plans to one goal on one board."""

    def __init__(self, board: Board, goal: State) -> None:
        self.board = board
        self.goal = goal
        # per geom, the tables of its goal cell: shared by every solver with a geom going there
        tables = [goal_tables(board.width, board.height, g) for g in goal]
        self._md = [t[0] for t in tables]
        self._toward = [t[1] for t in tables]
        self._away = [t[2] for t in tables]
        self._dist: dict[State, int] = {goal: 0}
        self._next: dict[State, Move] = {}
        # Lower bounds learnt from failed searches: a state reached in g moves by a search that
        # found no path within `bound` is more than `bound - g` away (else the root would have one).
        self._lower: dict[State, int] = {}
        self.nodes = 0  # search nodes expanded, for benchmarks

    # --- queries ---------------------------------------------------------------------------
    def heuristic(self, state: State) -> int:
        md = self._md
        return sum(md[i][c] for i, c in enumerate(state))

    def distance(self, state: State) -> int:
        """Length of a shortest move sequence from `state` to the goal."""
        known = self._dist.get(state)
        if known is not None:
            return known
        h = self.heuristic(state)
        bound = h
        limit = _bound_limit(self.board, len(state))
        while bound <= limit:
            path = self._search(state, bound, h)
            if path is not None:
                self._record(state, path)
                return bound
            bound += 2
        raise ValueError("the goal is not reachable from this state")

    def distance_near(self, state: State, neighbor_distance: int) -> int:
        """Distance of a state one move away from a state whose distance is known.

        Moves are reversible, so the answer is `neighbor_distance ± 1` (never equal, by parity);
        one bounded search for the smaller value decides, and often the heuristic alone does.
        """
        known = self._dist.get(state)
        if known is not None:
            return known
        lower = neighbor_distance - 1
        h = self.heuristic(state)
        if h > lower:
            d = neighbor_distance + 1
        else:
            path = self._search(state, lower, h)
            if path is not None:
                self._record(state, path)
                return lower
            d = neighbor_distance + 1
        self._dist[state] = d
        return d

    def plan(self, state: State) -> list[Move]:
        """One shortest move sequence from `state` to the goal."""
        d = self.distance(state)
        if d and state not in self._next:
            path = self._search(state, d, self.heuristic(state))
            if path is None:  # pragma: no cover - distance() guarantees a path of length d
                raise RuntimeError("solver cache is inconsistent")
            self._record(state, path)
        out: list[Move] = []
        nbrs = self.board.neighbors
        while state != self.goal:
            i, d_ = self._next[state]
            out.append((i, d_))
            state = moved(state, i, nbrs[state[i]][d_])
        return out

    def next_move(self, state: State) -> Move | None:
        if state == self.goal:
            return None
        if state not in self._next:
            self.plan(state)
        return self._next[state]

    # --- search ----------------------------------------------------------------------------
    def _record(self, root: State, path: list[Move]) -> None:
        nbrs = self.board.neighbors
        state = root
        remaining = len(path)
        for i, d in path:
            self._dist[state] = remaining
            self._next[state] = (i, d)
            state = moved(state, i, nbrs[state[i]][d])
            remaining -= 1

    def _search(self, root: State, bound: int, h_root: int) -> list[Move] | None:
        """A path of length <= bound, or None when none exists (callers know d >= bound)."""
        toward, away = self._toward, self._away
        dist, nxt, lower, nbrs = self._dist, self._next, self._lower, self.board.neighbors
        seen: dict[State, int] = {}
        path: list[Move] = []

        def dfs(state: State, g: int, h: int, occ: int) -> bool:
            if h == 0:
                return True
            self.nodes += 1
            known = dist.get(state)
            if known is not None:
                if g + known > bound:
                    return False
                if state in nxt:  # splice a cached shortest path
                    s = state
                    while s in nxt:
                        i, d = nxt[s]
                        path.append((i, d))
                        s = moved(s, i, nbrs[s[i]][d])
                    return True
            prev = seen.get(state)
            if prev is not None and prev <= g:
                return False
            lb = lower.get(state)
            if lb is not None and g + lb > bound:
                seen[state] = g
                return False
            seen[state] = g
            g1 = g + 1
            for i, c in enumerate(state):
                for d, n in toward[i][c]:
                    if not (occ >> n) & 1:
                        path.append((i, d))
                        if dfs(state[:i] + (n,) + state[i + 1 :], g1, h - 1, occ ^ (1 << c) ^ (1 << n)):
                            return True
                        path.pop()
            if bound - g - h >= 2:  # a detour costs 2: one step away and one back
                for i, c in enumerate(state):
                    for d, n in away[i][c]:
                        if not (occ >> n) & 1:
                            path.append((i, d))
                            if dfs(state[:i] + (n,) + state[i + 1 :], g1, h + 1, occ ^ (1 << c) ^ (1 << n)):
                                return True
                            path.pop()
            return False

        if h_root > bound:
            return None
        old_limit = sys.getrecursionlimit()
        need = bound + 100
        if need > old_limit:
            sys.setrecursionlimit(need)
        try:
            found = dfs(root, 0, h_root, occupancy(root))
        finally:
            if need > old_limit:
                sys.setrecursionlimit(old_limit)
        if found:
            return path
        if len(lower) + len(seen) > LOWER_BOUND_CAP:
            lower.clear()
        for state, g in seen.items():
            lb = bound - g + 2  # parity: distances of a state all share its heuristic's parity
            if lower.get(state, 0) < lb:
                lower[state] = lb
        return None


def _bound_limit(board: Board, n: int) -> int:
    # Far above any real distance (each geom rarely needs more than a few tours of the board), so
    # only an unsolvable state, which instance validation rules out, can reach it.
    return 4 * n * board.cells + 4 * board.cells


# --- reachability ----------------------------------------------------------------------------
def is_solvable(board: Board, start: State, goal: State) -> bool:
    """Whether `goal` is reachable from `start`.

    With two or more free cells on a board whose sides are both >= 2 every arrangement is
    reachable (Kornhauser, Miller and Spirakis 1984). With one free cell the classic parity rule
    of the 15-puzzle decides, except on boards so small that we simply enumerate them.
    """
    free = board.cells - len(start)
    if start == goal:
        return True
    if free <= 0:
        return False
    if board.width == 1 or board.height == 1:
        return _bfs_reachable(board, start, goal)
    if free >= 2:
        return True
    if board.cells <= 6:
        return _bfs_reachable(board, start, goal)
    return _parity_solvable(board, start, goal)


def _parity_solvable(board: Board, start: State, goal: State) -> bool:
    # Treat the free cell as a tile: every move swaps it with a neighbour, flipping the
    # permutation's sign and the free cell's colour on the checkerboard.
    cells = board.cells
    blank_s = (set(range(cells)) - set(start)).pop()
    blank_g = (set(range(cells)) - set(goal)).pop()
    perm = list(range(cells))
    for s, g in zip(start, goal, strict=True):
        perm[s] = g
    perm[blank_s] = blank_g
    seen = [False] * cells
    transpositions = 0
    for i in range(cells):
        if seen[i]:
            continue
        j, length = i, 0
        while not seen[j]:
            seen[j] = True
            j = perm[j]
            length += 1
        transpositions += length - 1
    return transpositions % 2 == board.manhattan(blank_s, blank_g) % 2


def _successors(board: Board, state: State) -> Iterator[State]:
    occ = occupancy(state)
    nbrs = board.neighbors
    for i, c in enumerate(state):
        for n in nbrs[c]:
            if n >= 0 and not (occ >> n) & 1:
                yield moved(state, i, n)


def _bfs_reachable(board: Board, start: State, goal: State, cap: int = 2_000_000) -> bool:
    seen = {start}
    queue = deque([start])
    while queue:
        for t in _successors(board, queue.popleft()):
            if t == goal:
                return True
            if t not in seen:
                if len(seen) >= cap:
                    raise ValueError("board too large to decide reachability by enumeration")
                seen.add(t)
                queue.append(t)
    return False


def bfs_distances(board: Board, goal: State) -> dict[State, int]:
    """Exact distance of every state that can reach `goal` (small boards only; used by tests)."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for t in _successors(board, s):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist
