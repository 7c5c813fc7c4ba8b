"""Executors run a batch of episode jobs and hand each output back as soon as it is finished.

The seam: an executor receives plain-data jobs and model settings and calls `on_result` in the
driver process, which alone appends to the run's shared files (episodes.jsonl, the summary). A Ray
executor only has to ship jobs to workers that call `run_episode` with their own ModelPool and return
the outputs. An executor whose workers share the driver's disk may have them write each episode's own
files into `run_dir` first and return the record alone (`EpisodeOutput.record_only`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from playbench.core.errors import ConfigError
from playbench.runner.cost_cap import CostCap, CostCapReached
from playbench.runner.episode import EpisodeJob, EpisodeOutput, run_episode
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.runner.steady_gc import steady_gc

ResultCallback = Callable[[EpisodeOutput], None]


class Executor(Protocol):
    name: str

    async def run(
        self,
        jobs: Sequence[EpisodeJob],
        settings: ModelSettings,
        on_result: ResultCallback,
        save_images: bool,
        run_dir: Path | None = None,
    ) -> None: ...


class LocalExecutor:
    """Episodes as asyncio tasks in this process, at most `concurrency` at once."""

    name = "local"

    def __init__(
        self,
        concurrency: int = 1,
        pool: ModelPool | None = None,
        gate: asyncio.Semaphore | None = None,
        cost_cap: CostCap | None = None,
        cost_scope: str = "",
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1 (got {concurrency})")
        self.concurrency = concurrency
        self.shared_pool = pool  # owned by the caller (several runs sharing model budgets)
        self.shared_gate = gate  # owned by the caller (a sweep's cells sharing one --concurrency)
        # --max-cost: episodes start only within the limit; one whose call would pass it is abandoned
        self.cost_cap = cost_cap
        self.cost_scope = cost_scope  # the run directory: a sweep's cells share one cap
        self.models_used: dict[str, Any] = {}

    async def run(
        self,
        jobs: Sequence[EpisodeJob],
        settings: ModelSettings,
        on_result: ResultCallback,
        save_images: bool,
        run_dir: Path | None = None,  # noqa: ARG002 - one process: the driver's store writes every file
    ) -> None:
        cap = self.cost_cap
        pool = self.shared_pool or ModelPool(settings, cost_cap=cap)
        gate = self.shared_gate or asyncio.Semaphore(self.concurrency)

        async def one(job: EpisodeJob) -> None:
            async with gate:
                if cap is None:
                    output = await run_episode(job, pool, save_images=save_images)
                else:
                    key, task = (self.cost_scope, job.key), (self.cost_scope, job.task_id)
                    if not await cap.start(key, task):
                        return
                    try:
                        output = await run_episode(job, pool, save_images=save_images)
                    except CostCapReached:
                        await cap.end(key, task, None, abandoned=True)
                        return
                    await cap.end(key, task, (output.record.get("usage") or {}).get("cost"))
            on_result(output)

        try:
            with steady_gc():
                await asyncio.gather(*(one(job) for job in jobs))
        finally:
            # what each model was (transport, budget, adaptive concurrency), for the run's summary
            self.models_used = pool.describe()
            if self.shared_pool is None:
                await pool.aclose()


def prepare_worker(specs: Sequence[Any], paths: Sequence[str]) -> None:
    """In a worker process (Ray actor or spawned worker): the driver's import folders and the registry
    entries of the tasks being run, so tasks registered only in the driver (a test's, a notebook's) work.
    Folders are appended, not prepended: the worker's installed packages keep precedence."""
    import os
    import sys

    for path in paths:
        if path not in sys.path and os.path.isdir(path):
            sys.path.append(path)
    from playbench.core import registry

    registry._ensure_loaded()
    for spec in specs:
        if spec.id not in registry._REGISTRY:
            registry.register(
                spec.id, spec.entry_point, spec.description, spec.default, fixed=spec.fixed, **spec.kwargs
            )


def _make_local(concurrency: int, **options: Any) -> Executor:
    return LocalExecutor(concurrency)


def _make_ray(concurrency: int, **options: Any) -> Executor:
    from playbench.runner.ray_executor import RayExecutor  # Ray is an optional extra

    return RayExecutor(concurrency, **options)


def _make_processes(concurrency: int, **options: Any) -> Executor:
    from playbench.runner.process_executor import ProcessExecutor

    return ProcessExecutor(concurrency, workers=options.get("workers"))


EXECUTORS: dict[str, Callable[..., Executor]] = {
    "local": _make_local,
    "processes": _make_processes,
    "ray": _make_ray,
}


def make_executor(name: str, concurrency: int, **options: Any) -> Executor:
    """`options` are executor-specific, e.g. `address` for Ray (from `--ray-address`)."""
    if name not in EXECUTORS:
        raise ConfigError(f"unknown executor '{name}' (available: {', '.join(sorted(EXECUTORS))})")
    return EXECUTORS[name](concurrency, **options)
