"""Fresh twins of the authors' puzzle set (`dataset=twin`): one new puzzle per paper puzzle, as hard.

The paper set (`config/puzzles_final.json`, 100 puzzles of each of eight modules) is public. A twin
is drawn by our module generators and matched to its paper puzzle on every difficulty statistic
(`difficulty`): the module's own difficulty parameters, exactly (redrawn until equal), and the
oracle pair's turns (`optimal_steps`), exactly. The paper set's statistics ship as figures
(`data/paper_difficulty.json`: ids, numbers, category names and a digest of each puzzle's content,
no text of the authors'), computed once from the clone by `scripts/comma_paper_difficulty.py` and
pinned by digest here, so the twin needs no clone and is the same with or without one.

A draw whose content (what the authors' entry fixes, `content_digest`) equals any paper puzzle's of
its module is rejected, so every twin is new. A twin depends only on the run's seed and its paper
puzzle's id (`derive_seed`), never on how many are asked.
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import cache
from importlib import resources
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.task import derive_seed
from playbench.core.twins import twin_id
from playbench.tasks.comma.config import CommaConfig, CommaInstance
from playbench.tasks.comma.module import PuzzleModule
from playbench.tasks.comma.modules import module_class
from playbench.tasks.comma.modules.color import COLORS as COLOR_NAMES
from playbench.tasks.comma.modules.color import SIZE as COLOR_SIZE
from playbench.tasks.comma.modules.color import first_group
from playbench.tasks.comma.modules.maze import CENTER, HEADINGS, ROOMS, SPHERE_COLORS, carve, distances
from playbench.tasks.comma.modules.password import cycle_letters
from playbench.tasks.comma.modules.who import STEP1

FIGURES_FILE = "paper_difficulty.json"
# sha256 of the shipped figures: a changed file is a deliberate act (recompute with the script)
FIGURES_SHA256 = "c9178620f2db9503c259f5003c09720fad2a5c7121fe81c370d65d3e646431bd"
# Draws tried for one twin; the rarest paper puzzle (a long maze path, a rare LED colour mix) needs a
# few hundred. A draw whose statistics match costs one oracle game; the rest cost microseconds.
MAX_DRAWS = 20_000


# --- statistics ----------------------------------------------------------------------------------
def puzzle_statistics(module: PuzzleModule) -> dict[str, Any]:
    """The module's difficulty parameters: what its instance has as its difficulty (see the README)."""
    name = module.name
    if name == "wire":
        return {"wires": len(module.colors), "answer_wire": module.answer}  # type: ignore[attr-defined]
    if name == "keypad":
        return {"column": str(module.params["column"])}
    if name == "maze":
        return {"torus": module.torus, "path_length": module.start_distance}  # type: ignore[attr-defined]
    if name == "memory":
        return {"first_display": module.display}  # type: ignore[attr-defined]
    if name == "password":
        shown, answer = module.shown, module.answer  # type: ignore[attr-defined]
        target = [cycle_letters(s).index(a) for s, a in zip(module.starts, answer, strict=True)]  # type: ignore[attr-defined]
        return {"wrong_letters": sum(i != t for i, t in zip(shown, target, strict=True))}
    if name == "who":
        return {"read_position": STEP1[module.display], "answer_position": module.answer}  # type: ignore[attr-defined]
    if name == "led":
        colors = module.colors  # type: ignore[attr-defined]
        return {"stages": len(colors), "led_colors": len(set(colors))}
    if name == "color":
        grid = module.start  # type: ignore[attr-defined]
        return {
            "colors": len(set(grid)),
            "first_group_size": grid.count(first_group(grid)),
            "largest_group_size": max(map(grid.count, set(grid))),
        }
    raise ConfigError(f"comma: the authors' puzzle set holds no {name} puzzles, so it has no twin statistics")


def difficulty(instance: CommaInstance) -> dict[str, Any]:
    """The puzzle's statistics and the oracle pair's turns."""
    module = module_class(instance.module)(instance.params)
    return {**puzzle_statistics(module), "optimal_steps": instance.optimal_steps}


def content_digest(module: PuzzleModule) -> str:
    """A digest of what the authors' entry fixes (so two puzzles with equal digests are one puzzle)."""
    name = module.name
    p = module.params
    if name == "wire":
        key: Any = [module.colors, p["serial"]]  # type: ignore[attr-defined]
    elif name == "keypad":
        key = [p["column"], p["symbols"]]
    elif name == "maze":
        key = [p["layout"], p["torus"], p["mouse"]]
    elif name == "memory":
        key = [p["labels"], module.display]  # type: ignore[attr-defined]
    elif name == "password":
        key = [module.answer, module.current_word]  # type: ignore[attr-defined]
    elif name == "who":
        key = [p["display"], p["labels"]]
    elif name == "led":
        key = p["colors"]
    else:
        key = module.start  # type: ignore[attr-defined]
    return hashlib.sha256(json.dumps([name, key]).encode()).hexdigest()[:16]


# --- the shipped figures ---------------------------------------------------------------------------
@cache
def paper_figures() -> dict[str, Any]:
    """The paper set's difficulty records (`data/paper_difficulty.json`), checked against the pin."""
    raw = resources.files("playbench.tasks.comma").joinpath("data", FIGURES_FILE).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != FIGURES_SHA256:
        raise ConfigError(
            f"comma: data/{FIGURES_FILE} has digest {digest[:16]}..., not the pinned {FIGURES_SHA256[:16]}...; "
            "recompute it with scripts/comma_paper_difficulty.py and pin it in comma/twin.py"
        )
    return json.loads(raw)


def paper_records(name: str) -> list[dict[str, Any]]:
    """The records of module `name`'s paper puzzles, in the file's order."""
    return [r for r in paper_figures()["records"] if r["module"] == name]


@cache
def _paper_contents(name: str) -> frozenset[str]:
    return frozenset(r["content"] for r in paper_records(name))


# --- drawing a twin ----------------------------------------------------------------------------------
def _draw_params(name: str, target: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One candidate's parameters from our generator; the maze and the wire as described in the README."""
    from playbench.tasks.comma.paper_set import SERIAL

    cls = module_class(name)
    if name == "maze":
        # our perfect mazes (the authors' has one layout, so a start on it would not be new); the
        # torus as the paper puzzle's, the mouse on a square at its path length from the target
        layout = carve(rng)
        rooms = [
            (r, c) for r in range(0, 2 * ROOMS - 1, 2) for c in range(0, 2 * ROOMS - 1, 2) if (r, c) != CENTER
        ]
        spheres = dict(zip(SPHERE_COLORS, rng.sample(rooms, len(SPHERE_COLORS)), strict=True))
        torus = target["torus"]
        probe = cls(
            {
                "layout": layout,
                "torus": torus,
                "spheres": {k: list(v) for k, v in spheres.items()},
                "mouse": list(spheres[SPHERE_COLORS[0]]),
                "heading": HEADINGS[0],
            }
        )
        at = sorted(cell for cell, d in distances(layout, probe.target).items() if d == target["path_length"])  # type: ignore[attr-defined]
        mouse = rng.choice(at) if at else probe.target  # type: ignore[attr-defined]
        return {
            "layout": layout,
            "torus": torus,
            "spheres": {k: list(v) for k, v in spheres.items()},
            "mouse": list(mouse),
            "heading": rng.choice(HEADINGS),
        }
    if name == "color":
        # the authors' grids are plain uniform draws (15 of their 100 lack a colour, as (4/5)^16 x 5
        # predicts), so the twin draws its grid so, not with our generator's every-colour rule
        return {"grid": [rng.choice(COLOR_NAMES) for _ in range(COLOR_SIZE**2)], "seed": rng.randrange(2**31)}
    options = {"columns": 6} if name == "keypad" else {}
    params = cls.generate(rng, **options)
    if name == "wire":
        params["serial"] = SERIAL  # the paper's experiments' serial number: a condition, not the puzzle
    return params


def make_twin(record: dict[str, Any], seed: int, config: CommaConfig) -> CommaInstance:
    """The twin of one paper puzzle (its shipped record) for `seed`."""
    from playbench.tasks.comma.instances import (
        GENERATION_TURNS,
        START_CLOCK_MAX,
        START_CLOCK_MIN,
        oracle_turns,
    )

    name = record["module"]
    cls = module_class(name)
    wanted = {k: v for k, v in record.items() if k not in ("id", "module", "content", "optimal_steps")}
    rules = config.model_copy(
        update={
            "max_steps": GENERATION_TURNS,
            "mistake_limit": None,
            "expert_word_limit": None,
            "stop_at_strike": False,
        }
    )
    rng = random.Random(derive_seed("comma/twin", seed, record["id"]))
    for _ in range(MAX_DRAWS):
        params = json.loads(json.dumps(_draw_params(name, wanted, rng)))  # plain JSON, as after a round trip
        start = rng.randint(START_CLOCK_MIN, START_CLOCK_MAX)
        module = cls(params)
        if puzzle_statistics(module) != wanted or content_digest(module) in _paper_contents(name):
            continue
        if oracle_turns(cls(params), start, rules) == record["optimal_steps"]:
            return CommaInstance(
                id=twin_id(record["id"], seed),
                module=name,
                params=params,
                start_clock=start,
                optimal_steps=record["optimal_steps"],
            )
    raise ConfigError(
        f"comma: no twin of the authors' {record['id']} was found in {MAX_DRAWS} draws with seed {seed}"
    )


def twin_instance(name: str, index: int, seed: int, config: CommaConfig) -> CommaInstance:
    """The twin of paper puzzle `index` of module `name`; ConfigError past the set's end."""
    records = paper_records(name)
    if not records:
        raise ConfigError(
            f"comma/{name}: the authors' puzzle set holds no {name} puzzles, so dataset=twin has nothing to "
            "match; its default set is generated already (new for every --seed)"
        )
    if index >= len(records):
        raise ConfigError(
            f"comma/{name}: the authors' puzzle set holds {len(records)} {name} puzzles, so the twin has "
            f"{len(records)}, not {index + 1} (lower instances_per_module or --episodes)"
        )
    return make_twin(records[index], seed, config)
