"""The contract every COMMA puzzle module implements; the conversation task drives any of them.

A module is the pure rules of one puzzle: a seeded generator of parameters, the state machine the
solver's actions drive, its picture, the manual the expert reads and an oracle. Everything about
turns, roles, limits and metrics lives in the task (`task.py`), never here.
"""

from __future__ import annotations

import json
import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image

MAX_WAIT = 59  # seconds one wait line may let the timer run
WAIT_LINE = re.compile(r"wait_(\d+)_seconds?", re.IGNORECASE)


def wait_line(seconds: int) -> str:
    """The line that lets a real-time module's timer run `seconds` before the reply's next line."""
    return f"wait_{seconds}_seconds"


@dataclass(frozen=True)
class ActionResult:
    """What executing one action line did."""

    feedback: str  # one sentence for the solver, e.g. "The wire is cut." or "Strike! ..."
    mistake: bool = False  # a strike: the action was wrong by the manual
    changed: bool = True  # False when the action had no effect (e.g. pressing an already solved stage)


def plain(value: Any) -> Any:
    """`value` as JSON data: tuples become lists, sets sorted lists, non-string keys JSON text."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"a module's state holds a {type(value).__name__}; override state() to describe it")


class PuzzleModule(ABC):
    """One instance of one puzzle. Constructed from its JSON-able parameters only, so it is
    deterministic in any process; `clock` is the simulated seconds left on the module timer."""

    name: ClassVar[str]  # "button", "dog", ... (the task id is comma/<name>)
    # presentation options of the task (not instance data), set by the task after construction and
    # left out of state(): e.g. the wire module's `mark_cut_wires`
    options: dict[str, Any] = {}  # noqa: RUF012 - replaced per instance, never mutated
    title: ClassVar[str]  # "Button Puzzle"
    realtime: ClassVar[bool] = False  # the clock matters to the rules (button, dog)
    derived: ClassVar[frozenset[str]] = frozenset()  # attributes fixed by the parameters, left out of state()

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    @classmethod
    @abstractmethod
    def generate(cls, rng: random.Random) -> dict[str, Any]:
        """Parameters of a fresh instance, JSON-able, drawn only from `rng`. A module with
        generation variants (the button's colours, the keypad's columns) takes them as keyword
        arguments named in `generation_options`; the task passes only those."""

    generation_options: ClassVar[tuple[str, ...]] = ()

    @classmethod
    @abstractmethod
    def manual(cls) -> str:
        """The manual text the expert receives (our own words, the paper's rules exactly). A module
        whose manual depends on its instance's variant may make this an instance method."""

    def manual_image(self) -> Image.Image | None:
        """A page of the manual that the original gives the expert as a picture (the keypad's symbol
        columns), or None. When the task shows it, the expert's text is `manual_beside_image()`."""
        return None

    def manual_beside_image(self) -> str:
        """The manual text that goes with `manual_image()` (default: the whole text manual)."""
        return self.manual()

    @abstractmethod
    def actions(self) -> list[str]:
        """Every action name the solver may use now, e.g. `cut_wire_3`, `press_top_left_button`.
        Matched case-insensitively inside the solver's lines; the random solver samples from it."""

    @abstractmethod
    def apply(self, action: str, clock: float) -> ActionResult:
        """Execute one action (an element of `actions()`), at `clock` seconds left."""

    @property
    @abstractmethod
    def solved(self) -> bool: ...

    @abstractmethod
    def partial_score(self) -> float:
        """Progress in [0, 1] as the paper scores this puzzle (1.0 when solved)."""

    @abstractmethod
    def render(self, clock: float) -> Image.Image:
        """The module as the solver sees it (RGB, deterministic), with the clock shown."""

    @abstractmethod
    def describe(self, clock: float) -> str:
        """The true visible state in words: what the oracle expert reads and what a perfect
        solver would report (e.g. "Wires top to bottom: red, blue, white")."""

    @abstractmethod
    def oracle_actions(self, clock: float) -> list[str]:
        """The correct action lines to play now (may be empty when the right move is to wait,
        e.g. until the timer shows a digit). Following them from any reachable state solves it.
        A real-time module also takes `waits=True`: its plan may then hold `wait_line(n)` lines
        (the timer runs n seconds before the next line), so it never needs to spend a turn waiting."""

    def oracle_instruction(self, clock: float) -> str:
        """What an expert who knew the true state would tell the solver this turn."""
        actions = self.oracle_actions(clock)
        if not actions:
            return "Wait: do nothing this turn."
        return "Execute these actions, one per line:\n" + "\n".join(actions)

    # --- optional hooks (defaults suit most modules) -----------------------------------------
    def action_vocabulary(self) -> list[str]:
        """Every action name this module can ever offer, also the ones not available right now
        (e.g. `release_button` while the button is not held). The task uses it to recognise an
        action line that names an action which is unavailable at the moment, answering "not
        available now" instead of forwarding the line to the expert. Default: `actions()`."""
        return self.actions()

    def state_key(self, clock: float) -> str:
        """What identifies the visible state for repetition-loop detection (a repeated incorrect
        (state, action) pair). Default: `describe(clock)`. A real-time module overrides it to keep
        only the part of the timer its rules read (the dog's last digit, whether the button's timer
        shows the release digit): the countdown never shows the same time twice, so the whole
        reading would make every state new and no repetition could ever be found."""
        return self.describe(clock)

    def state(self) -> dict[str, Any]:
        """The module's full state, hidden parts included, as JSON-able data (the task's `state()`
        holds it). Default: every attribute but `params` (wires cut, stage, position, ...), so a new
        module is covered without writing anything; a module leaves out tables derived from its
        parameters through `derived`."""
        return {
            k: plain(v)
            for k, v in sorted(vars(self).items())
            if k not in ("params", "options") and k not in self.derived
        }
