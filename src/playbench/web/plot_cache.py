"""The run and compare pages' figures, drawn once per set of runs and served from memory."""

from __future__ import annotations

import hashlib
import tempfile
import threading
from typing import Any

MAX_PLOT_SETS = 32


class PlotCache:
    """Figures from `report.plots.write_plots`, made once per set of runs and their contents.

    matplotlib's style context changes global state, so figures are drawn one set at a time.
    """

    def __init__(self) -> None:
        self._sets: dict[str, list[tuple[str, bytes]]] = {}
        self._lock = threading.Lock()

    def figures(self, runs: list[dict[str, Any]]) -> tuple[str, list[tuple[str, bytes]]]:
        from playbench.report.plots import write_plots

        stamp = "|".join(f"{r['path']}:{len(r['records'])}:{hash_records(r['records'])}" for r in runs)
        token = hashlib.sha1(stamp.encode()).hexdigest()[:16]
        with self._lock:
            if token not in self._sets:
                with tempfile.TemporaryDirectory(prefix="playbench-plots-") as tmp:
                    paths = write_plots([_plain_run(r) for r in runs], tmp)
                    figures = [(p.stem, p.read_bytes()) for p in paths if p.suffix == ".png"]
                if len(self._sets) >= MAX_PLOT_SETS:
                    self._sets.pop(next(iter(self._sets)))
                self._sets[token] = figures
            return token, self._sets[token]

    def get(self, token: str, index: int) -> bytes | None:
        figures = self._sets.get(token)
        if figures is None or not 0 <= index < len(figures):
            return None
        return figures[index][1]


def hash_records(records: list[dict[str, Any]]) -> str:
    h = hashlib.sha1()
    for r in records:
        h.update(
            f"{r.get('task')}|{r.get('instance_id')}|{r.get('trial')}|{r.get('success')}|{r.get('steps')};".encode()
        )
    return h.hexdigest()[:12]


def _plain_run(run: dict[str, Any]) -> dict[str, Any]:
    return {k: run[k] for k in ("path", "name", "config", "summary", "records")}
