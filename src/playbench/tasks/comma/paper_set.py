"""The paper's puzzle set: the authors' `config/puzzles_final.json`, read from their clone.

It holds 100 puzzles of each of eight of our modules (wire, keypad, maze, memory, password, who, LED,
colour; its Telehealth and ATM puzzles are not COMMA's paper puzzles, and it has no button or dog, which
stay generated). Each entry gives what their module reads from it; what their module draws at run
time instead (LED letters, memory displays after the first, colour recolouring, the timer) comes from
a seed of ours per instance, and the maze's heading (their moves are absolute, the paper's turn) too.
Converted at load time into our instances; the file itself is never shipped.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.originals import head_commit
from playbench.core.task import derive_seed
from playbench.tasks.comma.originals import COMMIT

# their module's class name (the entry's one key) -> our module
KEYS: dict[str, str] = {
    "SimpleWirePuzzle": "wire",
    "KeyPadPuzzle": "keypad",
    "MazePuzzle": "maze",
    "MemoryPuzzle": "memory",
    "PasswordPuzzle": "password",
    "WhoPuzzle": "who",
    "LedPuzzle": "led",
    "ColourPuzzle": "color",
}
PAPER_MODULES = frozenset(KEYS.values())
# the serial number on the module: their experiment configs' SERIAL_NUMBER (config/experiments_AI/)
SERIAL = "123456"
MEMORY_LABELS = [3, 1, 2, 4]  # their memory buttons, left to right, in every puzzle
KEYPAD_PLACES = (0, 2, 1, 3)  # their keys top-left, bottom-left, top-right, bottom-right; ours by rows


@cache
def read_set(path: str) -> dict[str, list[dict[str, Any]]]:
    """Our module -> its entries, in the file's order (the other puzzles left out)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ConfigError(f"comma: puzzle set {p} is missing (the authors' config/puzzles_final.json)")
    try:
        entries = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"comma: puzzle set {p} is not readable JSON ({exc})") from None
    if not isinstance(entries, list):
        raise ConfigError(f"comma: puzzle set {p} is not a list of puzzles")
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in sorted(PAPER_MODULES)}
    for entry in entries:
        if not isinstance(entry, dict) or len(entry) != 1:
            raise ConfigError(f"comma: puzzle set {p}: an entry is not {{class name: parameters}}")
        ((key, value),) = entry.items()
        if key in KEYS:
            out[KEYS[key]].append(value)
    return out


def set_stamp(path: str) -> str:
    """`original@<commit>` of the clone the file is in (the pinned commit when it is no git checkout)."""
    for folder in Path(path).expanduser().resolve().parents:
        if (folder / ".git").exists():
            commit = head_commit(folder)
            return f"original@{(commit or COMMIT)[:7]}"
    return f"original@{COMMIT[:7]}"


def params_for(name: str, entry: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Our module's parameters for one of their entries (`rng` draws what their module draws)."""
    if name == "wire":
        return {"colors": [str(c).lower() for c in entry["colors"]], "serial": SERIAL}
    if name == "who":
        return {"display": str(entry["display_text"]), "labels": list(entry["button_texts"])}
    if name == "memory":
        return {
            "labels": MEMORY_LABELS,
            "seed": rng.randrange(2**31),
            "displays": [int(entry["display_text"])],
        }
    if name == "color":
        return {"grid": [str(c).lower() for c in entry["colors"]], "seed": rng.randrange(2**31)}
    if name == "led":
        from playbench.tasks.comma.modules.led import _stage

        colors = [str(c).lower() for c in entry["led_colors"]][: int(entry["num_stages"])]
        return {"colors": colors, "letters": [_stage(rng, c) for c in colors]}
    if name == "keypad":
        from playbench.tasks.comma.modules.keypad import TABLES

        column = int(entry["strip_num"])
        keys = [TABLES[6][column][int(i)] for i in entry["image_nums"]]  # their placement order
        return {"columns": 6, "column": column, "symbols": [keys[k] for k in KEYPAD_PLACES]}
    if name == "maze":
        from playbench.tasks.comma.modules.maze import HEADINGS, PAPER_SPHERES

        return {
            "layout": ["".join("." if v == 0 else "#" for v in row) for row in entry["maze"]],
            "torus": str(entry["torus_color"]).lower(),
            "spheres": {color: list(cell) for color, cell in PAPER_SPHERES.items()},
            "mouse": [int(entry["start_x"]), int(entry["start_y"])],  # their (row, column)
            "heading": rng.choice(HEADINGS),
        }
    if name == "password":
        answer = str(entry["answer_word"]).upper()
        # their slot cycles through the answer's letter and its neighbours (wrapping): it starts a
        # letter before, and shows the entry's current letter
        starts = [chr((ord(c) - ord("A") - 1) % 26 + ord("A")) for c in answer]
        current = [str(c).upper() for c in entry["current_letters"]]
        shown = [(ord(c) - ord(s)) % 26 for c, s in zip(current, starts, strict=True)]
        return {"starts": starts, "shown": shown, "answer": answer}
    raise ConfigError(f"comma: the authors' set has no {name} puzzles")


def paper_instance_params(path: str, name: str, index: int) -> dict[str, Any] | None:
    """Parameters of instance `index` of module `name` from the set, or None past its end."""
    entries = read_set(path).get(name, [])
    if index >= len(entries):
        return None
    rng = random.Random(derive_seed("comma-paper", name, index))
    try:
        return json.loads(json.dumps(params_for(name, entries[index], rng)))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ConfigError(
            f"comma: puzzle set {path}: {name} puzzle {index} is not readable ({exc})"
        ) from None


def set_size(path: str, name: str) -> int:
    return len(read_set(path).get(name, []))
