"""The paper set's difficulty figures, computed from the authors' clone (`scripts/comma_paper_difficulty.py`).

Each of the 800 COMMA puzzles of `config/puzzles_final.json` is converted into our instance exactly
as `dataset` does with the clone (`instances.paper_instance`), and only figures are kept: its id,
module, difficulty statistics (`twin.puzzle_statistics`), the oracle pair's turns and a digest of its
content (`twin.content_digest`). No word, colour list, layout or picture of the authors' is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playbench.core.originals import head_commit
from playbench.tasks.comma import paper_set
from playbench.tasks.comma.config import CommaConfig
from playbench.tasks.comma.instances import paper_instance
from playbench.tasks.comma.modules import NAMES, module_class
from playbench.tasks.comma.originals import COMMIT, PUZZLES, URL
from playbench.tasks.comma.twin import content_digest, puzzle_statistics


def figures_from_clone(clone: Path) -> dict[str, Any]:
    """The figures of the puzzle set in `clone` (a checkout of the authors' repository)."""
    path = str(clone / PUZZLES)
    config = CommaConfig(puzzles=path, texts="ours")
    records = []
    for name in (n for n in NAMES if n in paper_set.PAPER_MODULES):
        for index in range(paper_set.set_size(path, name)):
            instance = paper_instance(name, index, config)
            module = module_class(name)(instance.params)
            records.append(
                {
                    "id": instance.id,
                    "module": name,
                    **puzzle_statistics(module),
                    "optimal_steps": instance.optimal_steps,
                    "content": content_digest(module),
                }
            )
    commit = head_commit(clone) or COMMIT
    return {"source": {"repository": URL, "commit": commit, "file": PUZZLES}, "records": records}


def write_figures(figures: dict[str, Any], out: Path) -> None:
    """One record a line, keys in a fixed order, so the file's digest is the same on every machine."""
    lines = ["{", f'  "source": {json.dumps(figures["source"], sort_keys=True)},', '  "records": [']
    records = figures["records"]
    for k, record in enumerate(records):
        lines.append("    " + json.dumps(record, sort_keys=True) + ("," if k < len(records) - 1 else ""))
    lines += ["  ]", "}"]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
