"""Inspect tasks built from playbench task ids.

`playbench_task("ivispar/sgp", seed=0, episodes=3)` is an Inspect `Task`: one sample per instance of
the task's default set for the seed (the first `episodes` of them, as `playbench run --episodes`),
sample id = instance id; `trials` sets Inspect's epochs (epoch k plays trial k-1); every other
keyword is a task option (`playbench run --set key=value`). `registry.py` registers one such task
per playbench task id, and the generic `playbench/task` (`-T task=ivispar/sgp-2d`).
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from playbench.inspect_eval.scorer import playbench_scorer
from playbench.inspect_eval.setup import EvalSetup, PlaybenchInspectError
from playbench.inspect_eval.solver import playbench_solver


def inspect_task_name(task_id: str) -> str:
    """The Inspect name of a playbench task id, without the `playbench/` namespace: every `/`, `-` and
    `.` becomes `_` (`ivispar/sgp-2d` -> `ivispar_sgp_2d`)."""
    return task_id.replace("/", "_").replace("-", "_").replace(".", "_")


def playbench_task(
    task_id: str,
    seed: int = 0,
    episodes: int | None = None,
    trials: int | None = None,
    agent: str = "llm",
    agent_opts: dict[str, Any] | None = None,
    out: str | None = None,
    **options: Any,
) -> Task:
    """The Inspect Task that plays `task_id`'s instances with playbench's agent and scores its success."""
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, int) or trials < 1):
        raise PlaybenchInspectError(f"playbench: -T trials must be an integer >= 1 (got {trials!r})")
    setup = EvalSetup.build(task_id, seed, episodes, agent, agent_opts, out, options)
    samples = [
        Sample(
            id=str(instance["id"]),
            input=f"Play {task_id} instance {instance['id']} (seed {seed}) to its end.",
            target="success",
            metadata={
                "task": task_id,
                "instance_id": str(instance["id"]),
                "optimal_steps": instance.get("optimal_steps"),
                "instance": json.loads(json.dumps(instance)),
            },
        )
        for instance in setup.instances()
    ]
    assert setup.base_plan is not None
    return Task(
        dataset=MemoryDataset(samples, name=task_id),
        solver=playbench_solver(setup),
        scorer=playbench_scorer(),
        epochs=trials,
        name=f"playbench/{inspect_task_name(task_id)}",
        metadata={
            "playbench_task": task_id,
            "seed": seed,
            "episodes": episodes,
            "agent": agent,
            "agent_opts": setup.agent_opts,
            "task_options": setup.base_plan.routed.get(task_id),
            "fidelity_data_texts": setup.base_plan.fidelity.get(task_id),
            "out": out,
        },
    )


@task(name="task")
def generic_task(task: str | None = None, **options: Any) -> Task:
    """Any playbench task: `inspect eval playbench/task -T task=ivispar/sgp-2d -T episodes=3`."""
    if task is None:
        raise PlaybenchInspectError(
            "playbench: playbench/task needs -T task=TASK_ID (a playbench task id; `playbench list` shows them)"
        )
    return playbench_task(task, **options)
