"""What the geom and the numbered tile puzzles share: one move per step, a shortest-distance
oracle, every action classified, the goal/current/past states shown in text or images.

A subclass parses and applies its own moves and draws its own states; the episode bookkeeping
(step cap, history window, distances, regret, counters, caches) lives here once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable
from statistics import fmean
from typing import Any, ClassVar, Protocol

from playbench.core.task import Task
from playbench.core.types import EpisodeResult, Observation, StepResult, Validity
from playbench.tasks.ivispar import views
from playbench.tasks.ivispar.actions import ParseFailure

State = tuple[int, ...]


class DistanceOracle(Protocol):
    def distance(self, state: Any) -> int: ...

    def distance_near(self, state: Any, near: int) -> int: ...


class ParsedMove(Protocol):
    text: str


class SlidingPuzzleTask(Task):
    """Template for a single-player sliding puzzle; see the module docstring."""

    roles: ClassVar[tuple[str, ...]] = ("player",)
    COUNTERS: ClassVar[tuple[str, ...]]  # action classes, in the paper's Table 3 order
    FORMAT_HINT: ClassVar[str]
    LISTING_SEP: ClassVar[str] = ": "

    _inst: Any = None

    # --- what a puzzle provides ------------------------------------------------------------
    @abstractmethod
    def _parse(self, text: str) -> ParsedMove | ParseFailure: ...

    @abstractmethod
    def _apply(self, move: Any, info: dict[str, Any]) -> tuple[Validity, str | None, str]:
        """Apply a parsed move to `self._state` (when legal) and count it in `self._counts`."""

    @abstractmethod
    def _listing_text(self, state: State) -> str: ...

    @abstractmethod
    def _closing(self) -> str: ...

    def _renderer(self) -> Callable[[State, str], bytes] | None:
        """(state, kind) -> PNG in this task's image modality, or None for text."""
        return None

    # --- episode bookkeeping ---------------------------------------------------------------
    def _start(self, instance: Any, solver: DistanceOracle, goal: State, state: State, cap: int) -> None:
        self._inst = instance
        self._solver = solver
        self._goal = goal
        self._state = state
        self._dists = [solver.distance(state)]
        self._cap = cap
        self._steps = 0
        self._solved = state == goal
        self._history: list[tuple[State, str, str]] = []  # (state before, action shown, feedback)
        self._counts = dict.fromkeys(self.COUNTERS, 0)
        self._feedback = ""
        self._listings: dict[State, str] = {}
        self._frames: dict[tuple[Hashable, str], bytes] = {}

    def _require_episode(self) -> Any:
        if self._inst is None:
            raise RuntimeError("call reset(instance) before playing")
        return self._inst

    @property
    def done(self) -> bool:
        self._require_episode()
        return self._solved or self._steps >= self._cap

    @property
    def state(self) -> State:
        return self._state

    @property
    def distance(self) -> int:
        """Shortest number of moves from the current state to the goal."""
        return self._dists[-1]

    @property
    def max_steps(self) -> int:
        """This episode's action cap."""
        return self._cap

    def step(self, action_text: str) -> StepResult:
        self._require_episode()
        if self.done:
            return StepResult(
                Validity.INVALID, "The episode is over; no more moves are accepted.", reason="episode_over"
            )
        text = action_text if isinstance(action_text, str) else str(action_text)
        before = self._state
        parsed = self._parse(text)
        info: dict[str, Any] = {}
        if isinstance(parsed, ParseFailure):
            validity, reason, canonical = Validity.UNPARSEABLE, "format", None
            shown = f"'{parsed.snippet}' (not a valid move)" if parsed.snippet else "(no move given)"
            feedback = f"Could not read a move: {parsed.reason}. Please {self.FORMAT_HINT}. The board did not change."
            self._counts["actions_illegal"] += 1
        else:
            canonical = shown = parsed.text
            validity, reason, feedback = self._apply(parsed, info)
        self._steps += 1
        self._dists.append(self._solver.distance(self._state))  # cached by _apply or earlier steps
        if self._state == self._goal:
            self._solved = True
            feedback += " The goal state is reached."
        elif self._steps >= self._cap:
            feedback += f" The limit of {self._cap} moves is reached."
        self._history.append((before, shown, feedback))
        self._feedback = feedback
        info.update(step=self._steps, distance=self._dists[-1], solved=self._solved)
        return StepResult(validity, feedback, parsed=canonical, reason=reason, info=info)

    def _classify(self, new: State, counters: dict[str, int]) -> Validity:
        """Move to `new` and count it effective when it brings the goal closer."""
        d_new = self._solver.distance_near(new, self._dists[-1])
        self._state = new
        effective = d_new < self._dists[-1]
        counters["actions_effective" if effective else "actions_ineffective"] += 1
        return Validity.EFFECTIVE if effective else Validity.INEFFECTIVE

    # --- observing -------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[str]: ...

    def listing(self, state: State) -> str:
        text = self._listings.get(state)
        if text is None:
            text = self._listing_text(state)
            self._listings[state] = text
        return text

    def image(self, state: State, kind: str) -> bytes:
        """PNG of `state` in this task's image modality, cached for the episode."""
        render = self._renderer()
        if render is None:
            raise ValueError(f"modality '{self.config.modality}' has no images")
        key = (state, kind)
        png = self._frames.get(key)
        if png is None:
            png = self._frames[key] = render(state, kind)
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
            self.image if self._renderer() is not None else None,
            self._guide,
            self._closing(),
            listing_sep=self.LISTING_SEP,
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

    def _outcome(self, **extra: Any) -> EpisodeResult:
        self._require_episode()
        regret = self.regret()
        metrics: dict[str, Any] = {
            "optimal_steps": self._dists[0],
            **extra,
            "final_distance": self._dists[-1],
            "regret": regret,
            "mean_regret": fmean(regret),
            **self._counts,
        }
        return EpisodeResult(success=self._solved, steps=self._steps, metrics=metrics)
