"""Compute the Theory of Space paper set's difficulty figures from the authors' clone (read as data).

    .venv/bin/python scripts/tos_paper_figures.py ~/.cache/playbench/originals/Theory-of-Space

reads `room_data/3-room/run*/meta_data.json` (the paper's 100 three-room scenes; `--set` names another
folder), and writes `src/playbench/tasks/tos/data/paper_difficulty.json`: per scene its folder name, rooms,
objects and the oracle's exploration cost (no names, positions or images), with the clone's commit. It
prints the file's sha256: set `PAPER_FIGURES_SHA256` in `src/playbench/tasks/tos/twins.py` to it, so
`dataset=twin` without a clone matches the paper's scenes (and gives the twin it gives with the clone).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from playbench.core.originals import head_commit
from playbench.tasks.tos.twins import PAPER_FIGURES, figures_from_scenes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path, help="the authors' clone (mll-lab-nu/Theory-of-Space)")
    parser.add_argument("--set", default="room_data/3-room", help="the scene folder inside the clone")
    parser.add_argument("--out", type=Path, default=PAPER_FIGURES, help="where to write the figures")
    args = parser.parse_args(argv)
    root = args.clone.expanduser() / args.set
    if not root.is_dir():
        print(f"error: {root} is not a folder (is {args.clone} a clone of Theory-of-Space?)", file=sys.stderr)
        return 2
    data = figures_from_scenes(root, head_commit(args.clone.expanduser()))
    text = json.dumps(data, indent=1) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"{len(data['records'])} scenes -> {args.out}")
    print(f"sha256 {hashlib.sha256(text.encode()).hexdigest()}  (PAPER_FIGURES_SHA256 in tos/twins.py)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
