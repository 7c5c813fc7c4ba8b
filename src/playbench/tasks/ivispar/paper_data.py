"""The paper's 300 boards: conversion from the authors' config files and loading of our shipped copy.

The boards the paper ran (section 4.1: 4x4, 2..11 geoms x optimal length 2..11, three boards per
cell, interference 0) are the files `Data/Configs/Main/config_ICML_*.json` of the authors'
anonymised submission repository `anon148/iVISPAR` (MIT licence, (c) 2024 Julius Mayer; see
`data/ATTRIBUTION.md`). They were converted once into `data/paper_boards.json` by this module:

    python -m playbench.tasks.ivispar.paper_data DIR_WITH_THE_CONFIGS [OUT_FILE]

The original format (one JSON object per board): `config_instance_id` (e.g.
`ICML_b_4_g_10_c1_10_c2_0_i_1`: board 4, 10 geoms, optimal length c1 = 10, interference c2 = 0,
instance 1), `grid_size`, `complexity_c1`, `complexity_c2` and `landmarks`, one per geom with
`geom_nr`, `body` (the shape), `color`, `start_coordinate` and `goal_coordinate` as `[x, y]` with
x the column (0 = a) and y the row (0 = row 1); `shortest_move_sequence` and
`random_valid_move_sequence` are move lists that begin with the word `start`.

Each board becomes an `SGPInstance` whose `id` is the original `config_instance_id`, with the geoms
in the original's `geom_nr` order, `optimal_steps` = `complexity_c1`, `interference` =
`complexity_c2`, `rep` = instance number - 1, and `solution` = the stored shortest sequence. The
conversion checks every board with our solver: the shortest distance from the start and the
Manhattan sum both equal `complexity_c1`, and the stored sequence replays to the goal.
The first 20 moves of each stored random sequence (what the original's random baseline replayed
under the 20-action cap) are kept beside the boards, keyed by id.

Order of the shipped set: rep-major (all boards `..._i_1`, then `_i_2`, then `_i_3`); inside a rep
position `q * 10 + a` holds `2 + a` geoms and optimal length `2 + (q + a) mod 10`, the order of the
generated default set (`generator.cell_order`), so every prefix of 10 boards covers every geom
count and every length once.
"""

from __future__ import annotations

import json
import re
import sys
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.tasks.ivispar.board import manhattan_sum
from playbench.tasks.ivispar.generator import cell_order
from playbench.tasks.ivispar.schema import DEFAULT_GEOMS, DEFAULT_LENGTHS, DEFAULT_REPS, SGPInstance

DATA_FILE = "paper_boards.json"
RANDOM_PREFIX = 20  # moves kept of each stored random sequence: the paper's action cap
SOURCE = "anon148/iVISPAR, Data/Configs/Main/config_ICML_*.json (MIT licence, (c) 2024 Julius Mayer)"
_NAME = re.compile(r"^ICML_b_(\d+)_g_(\d+)_c1_(\d+)_c2_(\d+)_i_(\d+)$")


def coordinate(xy: list[float] | tuple[float, float]) -> str:
    """The original's `[x, y]` (x = column from 0, y = row from 0) as our chess name (`[3, 0]` = `d1`)."""
    x, y = int(xy[0]), int(xy[1])
    if x != xy[0] or y != xy[1] or x < 0 or y < 0 or x >= 26:
        raise ValueError(f"coordinate {list(xy)} is not a board tile")
    return f"{chr(ord('a') + x)}{y + 1}"


def _moves(sequence: list[str], name: str, what: str) -> list[str]:
    if not sequence or sequence[0] != "start":
        raise ValueError(f"{name}: {what} does not begin with 'start'")
    return [" ".join(m.lower().split()) for m in sequence[1:]]


def convert_config(config: dict[str, Any]) -> tuple[SGPInstance, list[str]]:
    """One original board as our instance, and the first moves of its stored random sequence.

    ValueError when the board is not what its name and fields say (checked with our solver)."""
    from playbench.tasks.ivispar.solver import Solver

    name = str(config.get("config_instance_id", ""))
    match = _NAME.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not an ICML config name (ICML_b_<n>_g_<n>_c1_<n>_c2_<n>_i_<n>)")
    size, geoms, c1, c2, rep = (int(v) for v in match.groups())
    if config.get("experiment_type") not in (None, "SlidingGeomPuzzle"):
        raise ValueError(f"{name}: experiment_type {config.get('experiment_type')!r} is not a geom puzzle")
    if (config.get("grid_size"), config.get("complexity_c1"), config.get("complexity_c2")) != (size, c1, c2):
        raise ValueError(f"{name}: grid_size/complexity fields disagree with the name")
    landmarks = sorted(config["landmarks"], key=lambda lm: int(lm["geom_nr"]))
    if len(landmarks) != geoms:
        raise ValueError(f"{name}: {len(landmarks)} landmarks, the name says {geoms}")
    instance = SGPInstance(
        id=name,
        board_size=[size, size],
        geoms=[
            {
                "shape": lm["body"],
                "color": lm["color"],
                "start": coordinate(lm["start_coordinate"]),
                "goal": coordinate(lm["goal_coordinate"]),
            }
            for lm in landmarks
        ],
        optimal_steps=c1,
        num_geoms=geoms,
        interference=c2,
        rep=rep - 1,
        solution=_moves(config["shortest_move_sequence"], name, "shortest_move_sequence"),
    )
    board, start, goal = instance.board(), instance.start_state(), instance.goal_state()
    distance = Solver(board, goal).distance(start)
    manhattan = manhattan_sum(board, start, goal)
    if distance != c1 or manhattan + c2 != c1:
        raise ValueError(
            f"{name}: our solver finds distance {distance} and Manhattan sum {manhattan}, "
            f"the config says optimal length {c1} with interference {c2}"
        )
    random_moves = _moves(config.get("random_valid_move_sequence") or ["start"], name, "the random sequence")
    return instance, random_moves[:RANDOM_PREFIX]


def paper_order(instances: list[SGPInstance]) -> list[SGPInstance]:
    """The shipped order (module docstring): rep-major, cells in `generator.cell_order`."""
    position = {cell: k for k, cell in enumerate(cell_order(DEFAULT_GEOMS, DEFAULT_LENGTHS))}

    def key(inst: SGPInstance) -> tuple[int, int, str]:
        cell = (len(inst.geoms), inst.optimal_steps or 0)
        return inst.rep or 0, position.get(cell, len(position)), inst.id

    return sorted(instances, key=key)


def build(configs: list[dict[str, Any]]) -> dict[str, Any]:
    """The content of `data/paper_boards.json` from the original config objects."""
    converted = [convert_config(c) for c in configs]
    ids = [inst.id for inst, _ in converted]
    if len(set(ids)) != len(ids):
        raise ValueError("two configs share a config_instance_id")
    random_moves = {inst.id: moves for inst, moves in converted}
    boards = paper_order([inst for inst, _ in converted])
    return {
        "source": SOURCE,
        "converted_by": "python -m playbench.tasks.ivispar.paper_data (see ATTRIBUTION.md)",
        "coordinates": "original [x, y] -> column letter a+x, row y+1",
        "order": "rep-major (i_1, i_2, i_3); inside a rep: position q*10+a = 2+a geoms, length 2+(q+a) mod 10",
        "boards": [inst.model_dump(mode="json") for inst in boards],
        "random_moves": {i.id: random_moves[i.id] for i in boards},
    }


def write(content: dict[str, Any], out: Path) -> None:
    """One board per line, so that a change to the set shows as a readable diff."""
    lines = ["{"]
    for key in ("source", "converted_by", "coordinates", "order"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(content[key])},")
    lines.append('  "boards": [')
    boards = content["boards"]
    for k, b in enumerate(boards):
        lines.append("    " + json.dumps(b, separators=(",", ":")) + ("," if k < len(boards) - 1 else ""))
    lines.append("  ],")
    lines.append('  "random_moves": {')
    items = list(content["random_moves"].items())
    for k, (i, moves) in enumerate(items):
        lines.append(f"    {json.dumps(i)}: {json.dumps(moves)}" + ("," if k < len(items) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    out.write_text("\n".join(lines) + "\n")


# --- the shipped set -------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _shipped() -> dict[str, Any]:
    text = resources.files("playbench.tasks.ivispar").joinpath("data", DATA_FILE).read_text()
    return json.loads(text)


@cache
def _board(index: int) -> SGPInstance:
    # validated when first asked for: all 300 took most of a small run's start-up (0.1 s)
    return SGPInstance.model_validate(_shipped()["boards"][index])


def _matching(num_geoms: int | None, optimal_length: int | None) -> list[int]:
    """The indices of the shipped boards with the given filters, chosen on the shipped fields
    (which validation keeps as they are)."""
    return [
        i
        for i, b in enumerate(_shipped()["boards"])
        if (num_geoms is None or b["num_geoms"] == num_geoms)
        and (optimal_length is None or b["optimal_steps"] == optimal_length)
    ]


def paper_boards(num_geoms: int | None = None, optimal_length: int | None = None) -> list[SGPInstance]:
    """The paper's boards in the shipped order (copies), optionally only one geom count / length."""
    return [_board(i).model_copy(deep=True) for i in _matching(num_geoms, optimal_length)]


def paper_instances(n: int | None, num_geoms: int | None, optimal_length: int | None) -> list[SGPInstance]:
    """The first `n` paper boards (all if None) with the given filters; ConfigError past the end."""
    matching = _matching(num_geoms, optimal_length)
    which = "".join(
        [
            f" with {num_geoms} geoms" if num_geoms is not None else "",
            f" of optimal length {optimal_length}" if optimal_length is not None else "",
        ]
    )
    if not matching:
        raise ConfigError(
            f"the paper's dataset has no board{which} (it has 2..11 geoms and lengths 2..11); "
            "set dataset=generated to generate one"
        )
    if n is not None and n > len(matching):
        raise ConfigError(
            f"the paper's dataset has {len(matching)} boards{which}, {n} were asked for; "
            "set dataset=generated for more"
        )
    # only the boards asked for are validated and copied
    return [_board(i).model_copy(deep=True) for i in (matching if n is None else matching[:n])]


def paper_random_moves() -> dict[str, list[str]]:
    """Instance id -> the first 20 moves of the original's stored random sequence for that board."""
    return {k: list(v) for k, v in _shipped()["random_moves"].items()}


PAPER_SET_SIZE = DEFAULT_REPS * len(DEFAULT_GEOMS) * len(DEFAULT_LENGTHS)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or len(args) > 2:
        print("usage: python -m playbench.tasks.ivispar.paper_data CONFIG_DIR [OUT_FILE]", file=sys.stderr)
        return 2
    src = Path(args[0])
    out = Path(args[1]) if len(args) > 1 else Path(__file__).parent / "data" / DATA_FILE
    files = sorted(src.glob("config_ICML_*.json"))
    if not files:
        print(f"no config_ICML_*.json files in {src}", file=sys.stderr)
        return 2
    content = build([json.loads(f.read_text()) for f in files])
    write(content, out)
    print(f"converted {len(content['boards'])} boards into {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
