"""Theory of Space exploration scores: the information gain after every turn (the authors'
per-turn measure, `solver.py`) and the exploration's metrics and outcome.

`ScoringMixin` is a part of `TosTask` (exploration.py), which mixes it in and holds the episode's
state (set by `TosTask._begin`).
"""

from __future__ import annotations

from typing import Any

from playbench.core.types import EpisodeResult
from playbench.tasks.tos.grammar import INVALID_PENALTY, Outcome
from playbench.tasks.tos.instances import oracle_poses
from playbench.tasks.tos.solver import PositionSolver, observation_triples, query_triple
from playbench.tasks.tos.world import visible_items


class ScoringMixin:
    """`TosTask`'s scores (its attributes are set by `TosTask._begin`)."""

    _solver: PositionSolver | None
    _gains: list[float]
    _unexplored: Any
    _last_visible: frozenset[str]
    _worlds: list[Any]
    _observed: frozenset[str]
    _phase1_observed: frozenset[str] | None
    _steps: int
    config: Any
    world: Any

    # --- information gain ------------------------------------------------------------------
    def _track_information(self, out: Outcome) -> float:
        """The first exploration's information gain after this turn (their `information_gain`),
        and what the uncertainty probe needs: the points seen so far and the last view."""
        if self._solver is None:
            self._solver = PositionSolver.for_world(self.world)
        if out.observed_at is not None:
            seen = visible_items(self.world, out.observed_at)
            self._solver.add(observation_triples(self.world, out.observed_at, seen))
            self._unexplored.observe(out.observed_at)
            self._last_visible = frozenset(it.name for it in seen)
        if out.query is not None and out.query["name"] != "initial_pos":
            self._solver.add([query_triple(out.query["name"], out.query["x"], out.query["y"])])
        gain = self._solver.information_gain()
        self._gains.append(gain)
        return gain

    # --- results ---------------------------------------------------------------------------
    def _coverage(self, seen: frozenset[str]) -> float:
        """The share of the first world's objects in `seen` (the metric `coverage`)."""
        objs = {o.name for o in self._worlds[0].objects}
        return len(seen & objs) / len(objs)

    def _exploration_metrics(self) -> dict[str, Any]:
        world = self._worlds[0]
        objs = {o.name for o in world.objects}
        gates = {g.name for g in world.gates}
        seen = self._observed if self._phase1_observed is None else self._phase1_observed
        counts = self._phase1_counts or self._counts
        turns = self._phase_steps if self._phase1_counts is None else self._phase1_steps
        replies = self._replies
        return {
            "coverage": self._coverage(seen),
            "gate_coverage": len(seen & gates) / len(gates) if gates else 1.0,
            "all_observed": objs <= seen,
            "cost": self._phase1_cost if self._phase1_counts is not None else self._cost,
            "oracle_cost": float(len(oracle_poses(world, allow_return=self.config.return_action))),
            "exploration_steps": turns,
            "observe_actions": counts["observe"],
            "query_actions": counts["query"],
            "move_actions": counts["move"],
            "rotate_actions": counts["rotate"],
            "invalid_actions": self._invalid,
            "unparseable_actions": self._unparseable,
            "failed_turns": self._failed_turns,
            # the authors' reward penalty for invalid replies, reported apart from the cost
            "invalid_penalty": INVALID_PENALTY * (self._invalid + self._unparseable),
            "valid_action_ratio": 1.0 - (self._invalid + self._unparseable) / replies if replies else 1.0,
            "terminated_by_agent": self._terminated_by_agent,
            # theirs: the solver's information gain after the last valid reply, and after each one
            "information_gain": self._gains[-1] if self._gains else None,
            "information_gain_per_turn": list(self._gains),
        }

    def _outcome(self) -> EpisodeResult:
        metrics = self._exploration_metrics()
        metrics["cost_efficiency"] = (
            metrics["oracle_cost"] / metrics["cost"] if metrics["all_observed"] and metrics["cost"] else 0.0
        )
        metrics["rooms"] = len(self._worlds[0].rooms)
        return EpisodeResult(success=bool(metrics["all_observed"]), steps=self._steps, metrics=metrics)
