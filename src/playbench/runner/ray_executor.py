"""Episodes on a Ray cluster: async actors run `run_episode`, the driver writes every output.

Each actor is a separate Ray worker process (started by the raylet, never forked from the driver),
so it creates its own OpenGL context when a task renders, and it holds its own `ModelPool`: the
per-model concurrency cap therefore holds per worker, not for the whole run. What crosses the wire
is plain data: jobs as dicts, `ModelSettings` as a dict, the registry entries of the tasks being
run (so tasks registered only in the driver work), the driver's `sys.path` directories (so their
modules import on the same machine) and `EpisodeOutput`s coming back.

See docs/RAY.md for cluster set-up and failure behaviour.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.runner.episode import EpisodeJob, EpisodeKey, EpisodeOutput, run_episode
from playbench.runner.executors import ResultCallback, prepare_worker
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.runner.steady_gc import steady_gc

INSTALL_HINT = "install the ray extra: pip install 'playbench[ray]'"
# How long cleanup waits for actors to close their model clients before killing them anyway.
CLOSE_TIMEOUT_S = 10.0
MAX_REASON_CHARS = 300


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"--executor ray needs Ray, which is not installed; {INSTALL_HINT}") from exc
    return ray


class EpisodeWorker:
    """The body of one Ray actor (decorated with `ray.remote` only when a run starts)."""

    def __init__(self, settings: dict[str, Any], specs: list[Any], paths: list[str]) -> None:
        prepare_worker(specs, paths)
        self.pool = ModelPool(ModelSettings(**settings))
        self._gc = contextlib.ExitStack()  # the actor lives for the run: its collector as a local run's
        self._gc.enter_context(steady_gc())

    async def run(self, job: dict[str, Any], save_images: bool) -> EpisodeOutput:
        return await run_episode(EpisodeJob(**job), self.pool, save_images=save_images)

    async def close(self) -> None:
        await self.pool.aclose()
        self._gc.close()


def _driver_paths() -> list[str]:
    """The driver's import folders that are not part of a Python installation (src/, tests/, cwd)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    out = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if os.path.isdir(path) and not any(path == p or path.startswith(p + os.sep) for p in prefixes):
            out.append(path)
    return list(dict.fromkeys(out))


def _reason(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}".strip()
    # The first line of a Ray error is often generic; the cause's own line is the useful part.
    cause = getattr(exc, "cause", None) or exc.__cause__
    if cause is not None and cause is not exc:
        text += f" (cause: {type(cause).__name__}: {str(cause).strip().splitlines()[0] if str(cause).strip() else ''})"
    return text[:MAX_REASON_CHARS].rstrip(". ")


class RayExecutor:
    """Episodes in `workers` Ray actors, at most `concurrency` in flight across the cluster.

    `address`: None starts a local cluster (or joins the one `RAY_ADDRESS` names, as Ray does);
    "auto" joins the cluster started on this machine with `ray start`; "ray://host:10001" connects
    through Ray Client. `workers` defaults to the cluster's CPU count, capped by `concurrency`.
    `num_cpus` sizes a local cluster started here (ignored when joining one).
    """

    name = "ray"

    def __init__(
        self,
        concurrency: int,
        address: str | None = None,
        workers: int | None = None,
        num_cpus: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1 (got {concurrency})")
        if workers is not None and workers < 1:
            raise ConfigError(f"Ray workers must be at least 1 (got {workers})")
        self.concurrency = concurrency
        self.address = address or None
        self.workers = workers
        self.num_cpus = num_cpus

    def _init(self, ray: Any) -> None:
        if ray.is_initialized():
            return
        options: dict[str, Any] = {
            "address": self.address,
            "ignore_reinit_error": True,
            "include_dashboard": False,
            "logging_level": logging.WARNING,
        }
        if self.address is None and not os.environ.get("RAY_ADDRESS") and self.num_cpus is not None:
            options["num_cpus"] = self.num_cpus
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.address or "a new local cluster"
            # A cluster with token authentication answers an unauthenticated driver with a
            # timeout, not a refusal, so the likely fix is named here.
            hint = (
                ""
                if self.address is None
                else (
                    "; if the cluster uses token authentication, set RAY_AUTH_MODE=token (and RAY_AUTH_TOKEN "
                    "unless ~/.ray/auth_token holds the token); see docs/RAY.md"
                )
            )
            raise ConfigError(f"cannot start or reach the Ray cluster at {where}: {exc}{hint}") from exc

    def _worker_count(self, ray: Any, n_jobs: int) -> int:
        wanted = self.workers
        if wanted is None:
            wanted = max(1, int(ray.cluster_resources().get("CPU", 1)))
        return max(1, min(wanted, self.concurrency, n_jobs))

    async def run(
        self,
        jobs: Sequence[EpisodeJob],
        settings: ModelSettings,
        on_result: ResultCallback,
        save_images: bool,
        run_dir: Path | None = None,  # noqa: ARG002 - workers on other machines: the driver writes
    ) -> None:
        if not jobs:
            return
        ray = _import_ray()
        self._init(ray)
        from playbench.core.registry import get_spec

        specs = [get_spec(task_id) for task_id in dict.fromkeys(job.task_id for job in jobs)]
        n_workers = self._worker_count(ray, len(jobs))
        per_worker = math.ceil(self.concurrency / n_workers)
        # Default actor resources: one CPU to be placed, none held while alive, so any number of
        # actors fits; SPREAD puts them on different nodes of a cluster.
        actor_class = ray.remote(EpisodeWorker).options(
            max_concurrency=per_worker, scheduling_strategy="SPREAD"
        )
        settings_data = settings.to_dict()
        if settings_data.get("cache_path"):
            # Workers of a cluster joined with `ray start` need not share the driver's cwd.
            settings_data["cache_path"] = os.path.abspath(settings_data["cache_path"])
        args = (settings_data, specs, _driver_paths())
        actors = [actor_class.remote(*args) for _ in range(n_workers)]
        try:
            await self._dispatch(ray, actors, per_worker, jobs, on_result, save_images)
        finally:
            await self._shutdown(ray, actors)

    async def _dispatch(
        self,
        ray: Any,
        actors: list[Any],
        per_worker: int,
        jobs: Sequence[EpisodeJob],
        on_result: ResultCallback,
        save_images: bool,
    ) -> None:
        queue = list(reversed(jobs))  # pop() from the end keeps the planned order
        load = dict.fromkeys(range(len(actors)), 0)  # live actor index -> episodes in flight
        in_flight: dict[asyncio.Future[Any], tuple[EpisodeJob, int]] = {}
        failures: list[tuple[EpisodeKey, str]] = []
        try:
            while queue or in_flight:
                while queue and load and len(in_flight) < self.concurrency:
                    index = min(load, key=load.__getitem__)
                    if load[index] >= per_worker:
                        break
                    job = queue.pop()
                    ref = actors[index].run.remote(job.to_dict(), save_images)
                    in_flight[asyncio.ensure_future(ref)] = (job, index)
                    load[index] += 1
                if not in_flight:
                    break  # every actor is dead; the rest of the queue is reported below
                done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    job, index = in_flight.pop(future)
                    if index in load:
                        load[index] -= 1
                    try:
                        output = future.result()
                    except ray.exceptions.RayError as exc:
                        failures.append((job.key, _reason(exc)))
                        if isinstance(exc, ray.exceptions.RayActorError):
                            load.pop(index, None)  # never send it more work
                        continue
                    on_result(output)
        finally:
            for future in in_flight:
                future.cancel()
        if failures or queue:
            lines = [
                f"{task} {instance_id} trial {trial}: {reason}"
                for (task, instance_id, trial), reason in failures[:5]
            ]
            more = f" (and {len(failures) - 5} more)" if len(failures) > 5 else ""
            not_run = f"; {len(queue)} episode(s) not started because every worker died" if queue else ""
            raise PlaybenchError(
                f"{len(failures)} episode(s) failed in Ray workers{more}{not_run}: {'; '.join(lines)}. "
                "Finished episodes are saved; run the same command again to run the rest."
            )

    async def _shutdown(self, ray: Any, actors: list[Any]) -> None:
        closing = [asyncio.ensure_future(actor.close.remote()) for actor in actors]
        # Best effort: a dead or busy actor must not hold up the run's end, or a Ctrl-C.
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait(closing, timeout=CLOSE_TIMEOUT_S)
        for future in closing:
            future.cancel()
        for actor in actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
