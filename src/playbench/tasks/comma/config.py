"""COMMA's options (`--set key=value`) and its instances."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from playbench.core.original_texts import TextsOptions
from playbench.core.task import Instance
from playbench.tasks.comma.modules import NAMES


class CommaConfig(TextsOptions):
    """Options (`--set key=value`); the registered tasks fix `module`. `texts` and `originals`
    (`TextsOptions`): the authors' words from their clone or ours."""

    module: str = "all"  # a module name, or "all" for instances of every module
    max_steps: int = 20  # conversation turns (solver replies) per episode, as in the paper's tables
    mistake_limit: int | None = None  # end the episode at this many strikes (the authors' code: 3)
    expert_word_limit: int | None = None  # cut each expert message after this many words
    seconds_per_turn: int = 7  # simulated seconds the timer runs down per conversation turn
    instances_per_module: int = 100  # size of the default set, per module
    judge: bool = False  # a judge labels failed episodes (set by --judge-model)
    # the paper's protocol is the default; the options below restore extensions of ours
    expert_answers: Literal["every_turn", "messages"] = (
        "every_turn"  # "messages": only replies without actions
    )
    rich_feedback: bool = False  # tell the solver what each action did and why it was a mistake
    stop_at_strike: bool = False  # a strike ends the reply: its later action lines are not carried out
    solver_hints: bool = False  # the solver sees the turn, limits, mistakes, how replies are read, [turn N]
    turn_clock: bool = False  # time passes only with turns: no wait_N_seconds lines
    button_colors: Literal["yellow", "all"] = "yellow"  # "all": red, blue and white buttons too (our rules)
    keypad_columns: Literal[6, 4] = 6  # 4: our earlier four-column symbol table
    expert_manual: Literal["image", "text"] = "image"  # "text": the keypad's columns described in words
    mark_cut_wires: bool = False  # draw a gap in a cut wire (the original's picture does not change)
    keypad_lights: bool = False  # keys pressed in order light up (the original's keys show nothing)
    message_chars: int | None = None  # cut each message after this many characters (the original: never)
    maze_layout: Literal["paper", "generated"] = "paper"  # "generated": our random perfect mazes
    # the authors' puzzle set (their config/puzzles_final.json; the clone's by default): the instances
    # of the eight puzzles it holds; None: generated (button and dog always are)
    puzzles: str | None = None
    # "twin": one new puzzle per puzzle of the authors' set, matched in difficulty (twin.py), drawn with
    # the run's seed; needs no clone. "default": the set above (the authors' or generated)
    dataset: Literal["default", "twin"] = "default"

    @field_validator("module")
    @classmethod
    def _known_module(cls, value: str) -> str:
        if value != "all" and value not in NAMES:
            raise ValueError(f"must be 'all' or one of {', '.join(NAMES)}")
        return value

    @field_validator("max_steps", "instances_per_module", "seconds_per_turn")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("mistake_limit", "expert_word_limit", "message_chars")
    @classmethod
    def _positive_or_none(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("must be at least 1 (or null for no limit)")
        return value


class CommaInstance(Instance):
    module: str
    params: dict[str, Any]
    start_clock: int  # seconds on the timer at the first turn
