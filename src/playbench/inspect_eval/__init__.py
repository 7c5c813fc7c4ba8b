"""Every playbench task as an Inspect AI task (`inspect eval playbench/ivispar_sgp --model openai/gpt-4o`).

Needs the `inspect` extra: `pip install 'playbench[inspect]'`. See `tasks.py` (the task factory),
`registry.py` (one Inspect task per playbench id), `solver.py`, `scorer.py` and `adapter.py`
(Inspect's model API behind playbench's ChatModel).
"""

from __future__ import annotations

try:
    import inspect_ai  # noqa: F401
except ImportError:  # pragma: no cover - exercised in a subprocess without inspect_ai
    raise ImportError(
        "playbench.inspect_eval needs Inspect AI, which is not installed: pip install 'playbench[inspect]'"
    ) from None

from playbench.inspect_eval.tasks import inspect_task_name, playbench_task  # noqa: E402

__all__ = ["inspect_task_name", "playbench_task"]
