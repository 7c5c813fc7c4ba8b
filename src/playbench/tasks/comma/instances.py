"""COMMA's instances: generated ones (kept only if the oracle pair solves them within the paper's
turn limit) and the authors' set (`puzzles`, `paper_set.py`), with the oracle pair's turn count."""

from __future__ import annotations

import json
import random
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.tasks.comma import paper_set
from playbench.tasks.comma.config import CommaConfig, CommaInstance
from playbench.tasks.comma.module import PuzzleModule
from playbench.tasks.comma.modules import module_class
from playbench.tasks.comma.session import Session

# The timer starts between 06:00 and 09:59 (drawn per instance), so the minutes digit (6-9) never
# satisfies a "timer shows a 1/4/5" rule by itself and twenty turns never run it out.
START_CLOCK_MIN, START_CLOCK_MAX = 360, 599
GENERATION_ATTEMPTS = 200
# The oracle pair must solve an instance within this many turns for the generator to keep it. It is
# the paper's limit, fixed on purpose: the run's own `max_steps` and `mistake_limit` are conditions of
# play, so a run with a 5-turn limit (Figure 5's x axis) plays the same instances as the default one.
GENERATION_TURNS = 20


def make_instance(name: str, seed: int, index: int, config: CommaConfig) -> CommaInstance:
    """Instance `index` of module `name`: parameters and start time from a seed of its own, redrawn
    until the oracle pair solves it within GENERATION_TURNS turns at the configured clock step;
    `optimal_steps` is the number of conversation turns that pair needs. Only the clock step shapes
    the set (a real-time puzzle must be solvable at it); the turn and mistake limits do not."""
    cls = module_class(name)
    rng = random.Random(derive_seed("comma", name, seed, index))
    # conditions of play (the turn and mistake limits, the expert's word limit, what the players are
    # shown) leave the set alone; the clock and the turn protocol shape it (solvable, optimal_steps)
    rules = config.model_copy(
        update={
            "max_steps": GENERATION_TURNS,
            "mistake_limit": None,
            "expert_word_limit": None,
            "stop_at_strike": False,
        }
    )
    options = generation_options(cls, config)
    for _ in range(GENERATION_ATTEMPTS):
        params = json.loads(json.dumps(cls.generate(rng, **options)))  # plain JSON, as after a round trip
        start = rng.randint(START_CLOCK_MIN, START_CLOCK_MAX)
        steps = oracle_turns(cls(params), start, rules)
        if steps is not None:
            return CommaInstance(
                id=f"{name}-{index:04d}", module=name, params=params, start_clock=start, optimal_steps=steps
            )
    raise ConfigError(
        f"comma/{name}: no instance the oracle can solve within {GENERATION_TURNS} turns at "
        f"seconds_per_turn={config.seconds_per_turn} (real-time puzzles need a step coprime with 10)"
    )


def instance_for(name: str, seed: int, index: int, config: CommaConfig) -> CommaInstance:
    """Instance `index` of module `name`: from the authors' set (`puzzles`) when it holds the module,
    else generated."""
    if config.puzzles is not None and name in paper_set.PAPER_MODULES:
        return paper_instance(name, index, config)
    return make_instance(name, seed, index, config)


def paper_instance(name: str, index: int, config: CommaConfig) -> CommaInstance:
    """Puzzle `index` of module `name` in the authors' set, as our instance: the same for every seed
    (the set is fixed); the start time, and what their module draws while playing, from a seed of the
    puzzle's own. `optimal_steps` is the oracle pair's turns (None if it cannot solve it in 20)."""
    assert config.puzzles is not None
    params = paper_set.paper_instance_params(config.puzzles, name, index)
    if params is None:
        size = paper_set.set_size(config.puzzles, name)
        raise ConfigError(
            f"comma/{name}: the authors' puzzle set ({config.puzzles}) holds {size} {name} puzzles, "
            f"not {index + 1} (lower instances_per_module or --episodes, or --set puzzles=null)"
        )
    cls = module_class(name)
    try:
        module = cls(params)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ConfigError(f"comma: the authors' {name} puzzle {index} does not convert ({exc})") from None
    start = random.Random(derive_seed("comma-paper-clock", name, index)).randint(
        START_CLOCK_MIN, START_CLOCK_MAX
    )
    rules = config.model_copy(
        update={
            "max_steps": GENERATION_TURNS,
            "mistake_limit": None,
            "expert_word_limit": None,
            "stop_at_strike": False,
        }
    )
    steps = oracle_turns(module, start, rules)
    return CommaInstance(
        id=f"{name}-{index:04d}", module=name, params=params, start_clock=start, optimal_steps=steps
    )


def generation_options(cls: type[PuzzleModule], config: CommaConfig) -> dict[str, Any]:
    """The task options a module's generator takes (`PuzzleModule.generation_options`)."""
    values = {
        "palette": config.button_colors,
        "columns": config.keypad_columns,
        "layout": config.maze_layout,
    }
    return {name: values[name] for name in cls.generation_options}


def oracle_turns(module: PuzzleModule, start_clock: int, config: CommaConfig) -> int | None:
    """Conversation turns the oracle solver (with the oracle expert) needs, or None if it fails."""
    session = Session(module, start_clock, config)
    while session.ending(config.max_steps) is None:
        result = session.solver_turn(session.read_solver(session.oracle_solver_text()))
        if session.ending(config.max_steps) is None and session.expert_answers(result):
            session.expert_turn(session.read_expert(session.oracle_expert_text()))
    return session.turns if module.solved and session.mistakes == 0 else None
