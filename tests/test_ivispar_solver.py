"""The optimal solver against brute-force breadth-first search on small boards."""

from __future__ import annotations

import itertools
import random

import pytest

from playbench.tasks.ivispar.board import get_board, manhattan_sum, moved, occupancy, state_changing_moves
from playbench.tasks.ivispar.solver import Solver, _parity_solvable, bfs_distances, is_solvable


def replay(board, state, plan):
    for i, d in plan:
        dest = board.neighbors[state[i]][d]
        assert dest >= 0 and not (occupancy(state) >> dest) & 1, "plan makes an illegal move"
        state = moved(state, i, dest)
    return state


@pytest.mark.parametrize("w, h, n", [(3, 3, 6), (2, 3, 5), (4, 4, 3), (2, 4, 6), (2, 2, 3), (3, 2, 2)])
def test_distances_and_plans_match_bfs(w, h, n):
    rng = random.Random(w * 100 + h * 10 + n)
    board = get_board(w, h)
    goal = tuple(rng.sample(range(board.cells), n))
    truth = bfs_distances(board, goal)
    states = rng.sample(sorted(truth), min(150, len(truth)))
    shared = Solver(board, goal)  # warm caches must not change answers
    for state in states:
        fresh = Solver(board, goal)
        d = fresh.distance(state)
        assert d == truth[state] == shared.distance(state)
        assert d >= manhattan_sum(board, state, goal)  # the heuristic never overestimates
        plan = shared.plan(state)
        assert len(plan) == d
        assert replay(board, state, plan) == goal


@pytest.mark.parametrize("w, h, n", [(3, 3, 7), (2, 3, 4)])
def test_distance_near_matches_bfs_along_random_walks(w, h, n):
    rng = random.Random(7)
    board = get_board(w, h)
    goal = tuple(rng.sample(range(board.cells), n))
    truth = bfs_distances(board, goal)
    solver = Solver(board, goal)
    state = rng.choice(sorted(truth))
    d = solver.distance(state)
    for _ in range(200):
        i, _, dest = rng.choice(state_changing_moves(board, state))
        state = moved(state, i, dest)
        d = solver.distance_near(state, d)
        assert d == truth[state]
        move = solver.next_move(state)
        if state == goal:
            assert move is None
        else:
            nxt = moved(state, move[0], board.neighbors[state[move[0]]][move[1]])
            assert truth[nxt] == truth[state] - 1


def test_one_free_cell_parity_rule_matches_enumeration():
    for w, h in [(2, 3), (2, 4)]:
        board = get_board(w, h)
        n = board.cells - 1
        goal = tuple(range(n))
        reachable = bfs_distances(board, goal)
        for start in itertools.islice(itertools.permutations(range(board.cells), n), 0, None, 7):
            assert _parity_solvable(board, start, goal) == (start in reachable)
            assert is_solvable(board, start, goal) == (start in reachable)


def test_two_by_two_with_one_free_cell_only_rotates():
    board = get_board(2, 2)
    goal = (0, 1, 3)
    reachable = bfs_distances(board, goal)
    assert len(reachable) < 24
    for start in itertools.permutations(range(4), 3):
        assert is_solvable(board, start, goal) == (start in reachable)


def test_interference_is_handled():
    # two geoms in one row must pass each other: Manhattan says 2, the truth is more
    board = get_board(3, 2)
    start = (board.parse_coord("a1"), board.parse_coord("b1"))
    goal = (board.parse_coord("b1"), board.parse_coord("a1"))
    solver = Solver(board, goal)
    d = solver.distance(start)
    assert d == bfs_distances(board, goal)[start]
    assert d > manhattan_sum(board, start, goal)
