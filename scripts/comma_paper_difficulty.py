"""Compute the difficulty figures of COMMA's paper set from the authors' clone (issue 30, twins).

Reads `config/puzzles_final.json` of a `pschwendy/multimodal_comms` clone as data (never runs it),
converts each of its 800 COMMA puzzles into our instance as `dataset` does (`comma/paper_set.py`,
`comma/instances.py`) and writes, per puzzle, only figures: its id, module, difficulty statistics
(`comma/twin.py`), the oracle pair's turns and a digest of its content. Then pin the file's sha256 in
`comma/twin.py` (`FIGURES_SHA256`).

    .venv/bin/python scripts/comma_paper_difficulty.py CLONE [OUT]

OUT defaults to src/playbench/tasks/comma/data/paper_difficulty.json.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from playbench.tasks.comma.paper_figures import figures_from_clone, write_figures

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/playbench/tasks/comma/data/paper_difficulty.json"


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    clone = Path(argv[0])
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUT
    figures = figures_from_clone(clone)
    write_figures(figures, out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    print(
        f"{len(figures['records'])} records from {clone} (commit {figures['source']['commit'][:7]}) -> {out}"
    )
    print(f"sha256 {digest}: pin it as FIGURES_SHA256 in comma/twin.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
