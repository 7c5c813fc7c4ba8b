"""`--executor processes --workers N`: episodes in N worker processes on this machine.

One Python process runs one event loop on one core; a run whose harness (task, agent, HTTP client) needs
more CPU than a core gives spreads over worker processes instead. Each worker is started fresh (`spawn`,
never forked: a forked OpenGL context hangs), runs its own event loop with up to `ceil(concurrency / N)`
episodes in flight, pulling jobs from one shared queue. A worker writes each finished episode's own
files (trajectory, calls, images) into the run directory, then sends its record to the driver, which
alone appends to the run's shared files (episodes.jsonl, the summary): files before the line, as with
every executor. Why the worker writes: creating two files per episode was most of the driver's work
(a new file costs ~0.1 ms of CPU on a quiet ext4, up to ~0.5 ms just after many deletions), and the
driver is the one part that does not grow with the workers; with two workers on two cores it held the gain to ~1.3x. Each provider's
request budget (`--model-concurrency`) is one semaphore shared by all workers, so N workers never send
more requests at once than one process would.

Results are those of the local executor for the same seeds: an episode depends only on its job. (The
`mock:` provider's reply sequence is per process: with several workers its replies are dealt out in a
different order, as with Ray.) A worker that dies loses only the episodes it had in flight: they are not
recorded (files written without their line are overwritten when the episode runs again), so a resume
plays them; the run then stops with a message naming the worker's exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import math
import multiprocessing
import os
import queue
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError, PlaybenchError
from playbench.models.base import ChatModel, GenerationParams, Message, ModelResponse
from playbench.runner.episode import EpisodeJob, EpisodeOutput, run_episode
from playbench.runner.executors import ResultCallback, prepare_worker
from playbench.runner.model_pool import ModelPool, ModelSettings
from playbench.runner.steady_gc import steady_gc
from playbench.runner.store import write_episode_files

POLL_S = 0.5  # how often the driver checks its workers are alive while it waits for results
RESULTS_PIPE_BYTES = 1 << 20  # room in the results pipe (`_widen`)
RESULTS_PER_HAND_OFF = 64  # finished episodes passed to the driver's event loop at once, at most


class _SharedGate(ChatModel):
    """A model whose calls also hold a slot of its provider's budget shared by every worker process."""

    def __init__(self, inner: ChatModel, gate: Any) -> None:
        super().__init__(inner.model)
        self.provider = inner.provider
        self.inner, self.gate = inner, gate

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        if not self.gate.acquire(block=False):  # the common case costs no thread hop
            await asyncio.get_running_loop().run_in_executor(None, self.gate.acquire)
        try:
            return await self.inner.generate(messages, params)
        finally:
            self.gate.release()

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "shared_provider_budget": True}

    async def aclose(self) -> None:
        await self.inner.aclose()


class _WorkerPool(ModelPool):
    def __init__(self, settings: ModelSettings, gates: dict[str, Any]) -> None:
        super().__init__(settings)
        self.shared_gates = gates

    def get(self, spec: str) -> ChatModel:
        fresh = spec not in self._models
        model = super().get(spec)
        gate = self.shared_gates.get(model.provider)
        if fresh and gate is not None:
            model = self._models[spec] = _SharedGate(model, gate)
        return model


def _worker_main(
    index: int,  # noqa: ARG001 - the process's name says it; kept for a debugger
    jobs: Any,
    results: Any,
    settings: dict[str, Any],
    gates: dict[str, Any],
    specs: list[Any],
    paths: list[str],
    slots: int,
    save_images: bool,
    run_dir: str | None,
) -> None:
    prepare_worker(specs, paths)

    async def main() -> None:
        from concurrent.futures import ThreadPoolExecutor

        pool = _WorkerPool(ModelSettings(**settings), gates)
        loop = asyncio.get_running_loop()
        # every lane may wait on the job queue or a provider slot in a thread at once
        loop.set_default_executor(ThreadPoolExecutor(max_workers=2 * slots + 4))

        async def lane() -> None:
            while True:
                job = await loop.run_in_executor(None, jobs.get)
                if job is None:
                    return
                output = await run_episode(EpisodeJob(**job), pool, save_images=save_images)
                if run_dir is not None:  # in the loop's turn: on a writer thread, GIL hand-offs cost more
                    output = _write_files(run_dir, output)
                results.put(output)  # synchronous: on record before the next job starts

        try:
            with steady_gc():
                await asyncio.gather(*(lane() for _ in range(slots)))
        finally:
            await pool.aclose()

    asyncio.run(main())


def _write_files(run_dir: str, output: EpisodeOutput) -> EpisodeOutput:
    """In a worker: the episode's own files written, and what is left to send (its record alone). A
    write that fails (a full disk) sends the whole episode instead, so the driver's store meets the
    same error and stops the run with it, as a run in one process would, rather than this worker dying."""
    try:
        write_episode_files(run_dir, output)
    except OSError:
        return output
    return output.record_only()


def _widen(results: Any) -> None:
    """Give the results pipe room for many episodes (Linux: up to fs.pipe-max-size, 1 MiB by default).
    An episode's result is often bigger than a pipe's default 64 KiB, so a worker's `put` waited for the
    driver to read it, holding that worker's event loop. Measured with two workers on two cores (1,024
    text episodes in flight): 17% of each worker's time went to `put`, 10% with room, and the run was
    ~6% faster (mean of three runs each)."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:
        return
    for size in (RESULTS_PIPE_BYTES, 256 * 1024):
        with contextlib.suppress(OSError):  # above the system's limit: the next size, else as it was
            fcntl.fcntl(results._writer.fileno(), setsize, size)
            return


def _get_results(results: Any) -> list[EpisodeOutput]:
    """The results there are, waiting up to POLL_S seconds for the first, else queue.Empty (the driver
    then checks its workers). Episodes in step finish in bursts: one hand-off to the event loop for a
    burst, rather than one each, is most of what the driver spends per episode besides writing it."""
    reader = results._reader  # SimpleQueue.get has no timeout; its reader end has poll
    if not reader.poll(POLL_S):
        raise queue.Empty
    out = [results.get()]
    while len(out) < RESULTS_PER_HAND_OFF and reader.poll(0):
        out.append(results.get())
    return out


def _providers(jobs: Sequence[EpisodeJob]) -> set[str]:
    out = set()
    for job in jobs:
        for agent in job.agents.values():
            for value in [agent.get("model"), *(agent.get("options") or {}).values()]:
                if isinstance(value, str) and ":" in value:
                    out.add(value.split(":", 1)[0])
    return out


class ProcessExecutor:
    """Episodes in `workers` spawned processes (default: the machine's cores), one event loop each."""

    name = "processes"

    def __init__(self, concurrency: int = 1, workers: int | None = None) -> None:
        if concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1 (got {concurrency})")
        workers = workers if workers is not None else (os.cpu_count() or 1)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ConfigError(f"--workers must be an integer >= 1 (got {workers!r})")
        self.concurrency, self.workers = concurrency, workers

    async def run(
        self,
        jobs: Sequence[EpisodeJob],
        settings: ModelSettings,
        on_result: ResultCallback,
        save_images: bool,
        run_dir: Path | None = None,
    ) -> None:
        if not jobs:
            return
        from playbench.core.registry import get_spec
        from playbench.runner.ray_executor import _driver_paths

        ctx = multiprocessing.get_context("spawn")
        n = min(self.workers, len(jobs))
        slots = max(1, math.ceil(self.concurrency / n))
        # Results come back through a SimpleQueue, whose put writes the pipe in the caller: a worker that
        # dies in its next episode (os._exit, an out-of-memory kill) has already delivered the last
        # one. A Queue's put hands the object to a feeder thread, which such a death could cut off.
        job_queue, result_queue = ctx.Queue(), ctx.SimpleQueue()
        _widen(result_queue)
        gates = {p: ctx.BoundedSemaphore(settings.concurrency) for p in sorted(_providers(jobs))}
        specs = [get_spec(t) for t in sorted({j.task_id for j in jobs})]
        workers = [
            ctx.Process(
                target=_worker_main,
                args=(
                    i,
                    job_queue,
                    result_queue,
                    asdict(settings),
                    gates,
                    specs,
                    _driver_paths(),
                    slots,
                    save_images,
                    None if run_dir is None else str(run_dir),
                ),
                name=f"playbench-worker-{i}",
                daemon=True,
            )
            for i in range(n)
        ]
        for w in workers:
            w.start()
        loop = asyncio.get_running_loop()
        received = 0
        try:
            # queued once the workers are starting: their imports overlap with this
            for job in jobs:
                job_queue.put(job.to_dict())
            for _ in range(n * slots):
                job_queue.put(None)  # one stop per lane
            while received < len(jobs):
                try:
                    outputs = await loop.run_in_executor(None, _get_results, result_queue)
                except queue.Empty:
                    dead = [w for w in workers if not w.is_alive() and w.exitcode not in (0, None)]
                    if dead or all(not w.is_alive() for w in workers):
                        codes = ", ".join(f"{w.name} exit code {w.exitcode}" for w in dead) or "all exited"
                        raise PlaybenchError(
                            f"a worker process stopped ({codes}) with {len(jobs) - received} episode(s) "
                            "unfinished; they are not recorded, so the same command again plays them"
                        ) from None
                    continue
                for output in outputs:
                    received += 1
                    on_result(output)
        finally:
            for w in workers:
                w.join(timeout=5 if received >= len(jobs) else 0.1)
                if w.is_alive():
                    w.terminate()
                    with contextlib.suppress(Exception):
                        w.join(timeout=5)
            job_queue.close()
            result_queue.close()
