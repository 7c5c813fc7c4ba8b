"""What the geom and the numbered tile puzzles share: one move per step, a shortest-distance
oracle, every action classified, the goal/current/past states shown in text or images.

The kernel's episode template (`EpisodeTask`) owns the order of a step, the step count, the
`max_steps` cap and the refusal after the end. A subclass reads and applies its own moves and draws
its own states; the puzzle bookkeeping (history window, distances, regret, counters, caches) lives
here once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable
from statistics import fmean
from typing import Any, ClassVar, Protocol

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.model_side import ModelSide
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, Observation, Part, Progress, StepResult, Turn, Validity
from playbench.tasks.ivispar import views
from playbench.tasks.ivispar.actions import ParseFailure
from playbench.tasks.ivispar.model_side import ivispar_model_side

State = tuple[int, ...]

# The past action shown for a reply no command was found in (parser=paper), in our words; with
# texts=original the geom puzzle shows the original agents' note, cleaned as every command is.
NO_ACTION_NOTE = "no action could be read from this reply"


class DistanceOracle(Protocol):
    def distance(self, state: Any) -> int: ...

    def distance_near(self, state: Any, near: int) -> int: ...


class ParsedMove(Protocol):
    text: str


class SlidingPuzzleTask(EpisodeTask):
    """Template for a single-player sliding puzzle; see the module docstring."""

    roles: ClassVar[tuple[str, ...]] = ("player",)
    COUNTERS: ClassVar[tuple[str, ...]]  # action classes, in the paper's Table 3 order
    OTHER_COUNTERS: ClassVar[tuple[str, ...]] = ()  # actions in none of those classes
    FORMAT_HINT: ClassVar[str]

    @classmethod
    def solution_reply(cls, move: str) -> str:
        """A move of an instance's `solution` (`move green cylinder left`) as the reply the parser reads."""
        return f"action: {move}"

    # --- what a puzzle provides ------------------------------------------------------------
    @abstractmethod
    def _read(self, text: str) -> ParsedMove | ParseFailure:
        """The move a reply names, or why none could be read."""

    @abstractmethod
    def _move(self, move: Any, info: dict[str, Any]) -> tuple[Validity, str | None, str]:
        """Apply a parsed move to `self._state` (when legal) and count it in `self._counts`;
        return (validity, reason, feedback)."""

    @abstractmethod
    def _listing_text(self, state: State) -> str: ...

    @abstractmethod
    def _positions_data(self, state: State) -> Any:
        """`state` as JSON-able data (what `state()` and `Observation.data` hold), built afresh."""

    @abstractmethod
    def _block(self, goal: str | None, current: str | None) -> str:
        """The step's text after the states (`views.state_parts`)."""

    @abstractmethod
    def legal_actions(self) -> list[str]: ...

    def _renderer(self) -> Callable[[State, str], bytes] | None:
        """(state, kind) -> PNG in this task's image modality, or None for text."""
        return None

    def _extra_metrics(self) -> dict[str, Any]:
        """Metrics of this puzzle, listed after `optimal_steps`."""
        return {}

    # --- episode bookkeeping ---------------------------------------------------------------
    def _start(self, solver: DistanceOracle, goal: State, state: State, cap: int) -> None:
        """Called by a subclass's `_begin` once the board is known."""
        self._solver = solver
        self._goal = goal
        self._state = state
        self._before = state  # the state the current step starts from (for the history window)
        self._unread = ""  # the unreadable reply of the current step, as the history shows it
        self._dists = [solver.distance(state)]
        self._cap = cap
        self._history: list[tuple[State, str, str]] = []  # (state before, action shown, feedback)
        self._counts = dict.fromkeys(self.COUNTERS + self.OTHER_COUNTERS, 0)
        self._feedback = ""
        self._listings: dict[State, str] = {}
        self._positions_cache: dict[State, Any] = {}
        self._frames: dict[tuple[Hashable, str], bytes] = {}
        if state == goal:  # a loaded instance may start solved: nothing to play
            self.end(Termination.GOAL_REACHED)

    @property
    def board_state(self) -> State:
        """The current state: the cell of every piece, in the instance's order."""
        self._require_episode()
        return self._state

    @property
    def distance(self) -> int:
        """Shortest number of moves from the current state to the goal."""
        self._require_episode()
        return self._dists[-1]

    def progress(self) -> Progress:
        """The oracle's distance from the current state to the goal, for error maps: the exact
        shortest number of single moves, which the puzzle computes at every step anyway (the
        effective/ineffective class needs it), so asking costs a look-up."""
        self._require_episode()
        return Progress(distance=self._dists[-1])

    def model_side(self) -> ModelSide:
        """The authors' generation settings for this modality (`model_side.py`); the tile puzzle,
        which has no original, takes the geom puzzle's."""
        return ivispar_model_side(vision=getattr(self.config, "modality", "text") != "text")

    def state(self) -> dict[str, Any]:
        """The board and its goal: the whole game state (the goal never changes in an episode)."""
        self._require_episode()
        return {"board": self._positions(self._state), "goal": self._positions(self._goal)}

    def _step_cap(self) -> int:
        return self._cap

    def _format_hint(self) -> str:
        return self.FORMAT_HINT

    def _parse(self, text: str) -> ParsedMove | ParseError:
        parsed = self._read(text)
        if isinstance(parsed, ParseFailure):
            return ParseError(
                f"Could not read a move: {parsed.reason}. Please {self._format_hint()}. The board did not change.",
                reason="format",
                snippet=parsed.snippet,
            )
        return parsed

    def _on_parse_error(self, error: ParseError) -> StepResult:
        self._counts["actions_illegal"] += 1
        if self.config.parser == "paper":
            # the original shows the model a fixed note in place of an action it could not find
            self._unread = self._no_action_note()
        else:
            self._unread = f"'{error.snippet}' (not a valid move)" if error.snippet else "(no move given)"
        return super()._on_parse_error(error)

    def _no_action_note(self) -> str:
        """The past action shown for a reply without a command (parser=paper)."""
        return NO_ACTION_NOTE

    def _apply(self, parsed: Any) -> StepResult:
        info: dict[str, Any] = {}
        validity, reason, feedback = self._move(parsed, info)
        return StepResult(validity, feedback, parsed=parsed.text, reason=reason, info=info)

    def _check_end(self, result: StepResult) -> Termination | None:
        return Termination.GOAL_REACHED if self._state == self._goal else None

    def _end_feedback(self, termination: Termination) -> str:
        if termination == Termination.GOAL_REACHED:
            return "The goal state is reached."
        if termination == Termination.STEP_CAP:
            return f"The limit of {self._cap} moves is reached."
        return ""

    def _after_step(self, role: str, result: StepResult) -> None:
        self._dists.append(self._solver.distance(self._state))  # cached by _move or earlier steps
        shown = result.parsed if result.parsed is not None else self._unread
        self._history.append((self._before, shown, result.feedback))
        self._before = self._state
        self._feedback = result.feedback
        result.info.update(step=self._steps, distance=self._dists[-1], solved=self.solved)

    @property
    def solved(self) -> bool:
        """Whether the board equals the goal."""
        self._require_episode()
        return self._state == self._goal

    def _classify(self, new: State, counters: dict[str, int], moves: int = 1) -> Validity:
        """Move to `new` (`moves` single moves away) and count the step effective when it brings the
        goal closer, ineffective when it takes it further (the original's classes compare the
        distance before and after a step; a step of several moves that keeps it is in neither)."""
        d_old = self._dists[-1]
        d_new = self._solver.distance_near(new, d_old) if moves == 1 else self._solver.distance(new)
        self._state = new
        if d_new < d_old:
            counters["actions_effective"] += 1
            return Validity.EFFECTIVE
        if d_new > d_old:
            counters["actions_ineffective"] += 1
        return Validity.INEFFECTIVE

    # --- observing -------------------------------------------------------------------------
    def _positions(self, state: State) -> Any:
        """`_positions_data(state)`, built once per state; each caller gets its own copy."""
        data = self._positions_cache.get(state)
        if data is None:
            data = self._positions_cache[state] = self._positions_data(state)
        return _copy(data)

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

    def _past(self) -> list[tuple[State, str, str]]:
        window = self.config.past_window
        return list(self._history[-window:]) if window > 0 else []

    def _state_parts(self, past: list[tuple[State, str, str]]) -> list[Part]:
        """The observation packed in one user message (`views.state_parts`, our words;
        `conversation=packed`)."""
        cfg = self.config
        return views.state_parts(
            self._goal,
            self._state,
            past,
            self.listing,
            self.image if self._renderer() is not None else None,
            self._block,
            results=cfg.move_results,
            counter=self._counter() if cfg.step_counter else None,
        )

    def _view(self, past: list[tuple[State, str, str]]) -> tuple[list[Turn] | None, list[Part]]:
        """(turns, parts) of an observation: the conversation before the last user message and that
        message's parts, in our words. Default (`conversation=chat`): the original's default agent's
        chat shape (`views.state_turns`); `conversation=packed`: no turns, one user message holding
        everything. A puzzle with the original's texts rebuilds their chat."""
        cfg = self.config
        if cfg.conversation == "packed":
            return None, self._state_parts(past)
        return views.state_turns(
            self._goal,
            self._state,
            past,
            self.listing,
            self.image if self._renderer() is not None else None,
            self._block,
            results=cfg.move_results,
            counter=self._counter() if cfg.step_counter else None,
        )

    def _observe(self, role: str) -> Observation:
        past = self._past()
        cfg = self.config
        turns, parts = self._view(past)
        board = self.instance.board_size
        data = {
            "board_size": list(board),
            "goal": self._positions(self._goal),
            "current": self._positions(self._state),
            # oldest first, as shown: the state a move was made from, the move and its feedback
            "past": [{"state": self._positions(s), "action": shown, "result": fb} for s, shown, fb in past],
            "max_steps": self._cap,
        }
        return Observation(
            role=role,
            parts=parts,
            instructions=self._instructions,
            legal_actions=[] if self.done else self.legal_actions(),
            # the original shows no verdict: the model sees only the new board (our option
            # move_results shows it)
            feedback=self._feedback if cfg.move_results else "",
            step=self._steps,
            data=data,
            turns=turns,
        )

    def _counter(self) -> str:
        return f"This is action {self._steps + 1} of at most {self._cap}."

    # --- results ---------------------------------------------------------------------------
    def regret(self) -> list[int]:
        """R(t) = d(s_t) - (d(s_0) - t) for t = 0..steps (the episode stops at the goal)."""
        d0 = self._dists[0]
        return [d - (d0 - t) for t, d in enumerate(self._dists)]

    @property
    def step_deviation(self) -> int | None:
        """The paper's "step deviation": the distance left after L actions, L = d(s_0) (the
        original's `evaluate_episodes_sgp.py`, `check_spl_at_episode_total_shortest_path_length`).
        None for an episode of fewer than L actions (solved early by repeated moves, or cut by a
        smaller cap): the original has no value there and its means leave the episode out."""
        length = self._dists[0]
        return self._dists[length] if length < len(self._dists) else None

    def _outcome(self) -> EpisodeResult:
        regret = self.regret()
        metrics: dict[str, Any] = {
            "optimal_steps": self._dists[0],
            **self._extra_metrics(),
            "step_deviation": self.step_deviation,
            "final_distance": self._dists[-1],
            "min_distance": min(self._dists),
            "regret": regret,
            "mean_regret": fmean(regret),
            **self._counts,
        }
        return EpisodeResult(success=self.solved, steps=self._steps, metrics=metrics)


def _copy(value: Any) -> Any:
    """A copy of positions data: a flat mapping (geoms) or a list of rows (tiles). Much cheaper
    than `deepcopy`, which would double the cost of an observation."""
    if isinstance(value, dict):
        return dict(value)
    return [list(row) for row in value]
