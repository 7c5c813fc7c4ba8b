"""The run directory: append-only episodes.jsonl, per-episode trajectories, config and summary.

Crash safety: an episode's images, calls file and trajectory are written first (the JSONL files via a
temporary file and an atomic rename), then its one line is appended to episodes.jsonl with a single
`write` on an O_APPEND descriptor. A kill at any moment leaves either no line (the episode runs
again on resume, overwriting its files) or a whole line. A torn last line, which only a crash of
the machine itself could leave, is cut off when the directory is opened for writing (readers skip it).

One writer at a time: the store holds an exclusive `flock` on `DIR/.playbench.lock` from opening
to `close()`, so a second process writing the same directory is refused at once, naming the
holder. The kernel drops the lock when its process dies, even by `kill -9`, so a killed run never
blocks its own resume.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections import deque
from concurrent import futures
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.paths import writable_dir
from playbench.core.records import finite_json
from playbench.runner.episode import EpisodeOutput
from playbench.runner.reader import EPISODES, TRAJECTORIES, EpisodeKey, RunReader

LOCK = ".playbench.lock"


class RunStore:
    """The writer of a run directory. Its reading side is a `RunReader`."""

    def __init__(self, out: str | Path, wait: float = 0.0) -> None:
        """Open `out` for writing, waiting up to `wait` seconds for another writer to finish."""
        self.out = writable_dir(out, "run directory")
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / TRAJECTORIES).mkdir(exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"run directory '{out}' cannot be made: {exc.strerror or exc}") from None
        self._lock_fd: int | None = None
        self._lock(wait)
        self.episodes_path = self.out / EPISODES
        self._repair_tail()
        self._fd: int | None = None
        self.reader = RunReader(self.out)

    def _lock(self, wait: float) -> None:
        path = self.out / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 512, 0).decode(errors="replace").strip() or "another process"
                    os.close(fd)
                    raise ConfigError(
                        f"run directory '{self.out}' is being written by {holder}; wait for it to end "
                        "or use another --out"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"playbench pid {os.getpid()} ({' '.join(sys.argv[:3])[:200]})".encode(), 0)
        self._lock_fd = fd

    def _repair_tail(self) -> None:
        if not self.episodes_path.exists():
            return
        data = self.episodes_path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with open(self.episodes_path, "r+b") as fh:
                fh.truncate(cut)

    def records(self) -> list[dict[str, Any]]:
        return self.reader.records()

    def finished_keys(self, include_errors: bool = True) -> set[EpisodeKey]:
        return self.reader.finished_keys(include_errors)

    def write(self, output: EpisodeOutput) -> None:
        """An episode on record: its own files (unless a worker process wrote them), then its line."""
        if not output.files_written:
            write_episode_files(self.out, output)
        self.append(output.record)

    def append(self, record: dict[str, Any]) -> None:
        line = (finite_json(record, ensure_ascii=False) + "\n").encode()
        if self._fd is None:
            self._fd = os.open(self.episodes_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        written = os.write(self._fd, line)
        if written != len(line):  # only a full disk does this; say so rather than leave a torn line
            raise OSError(f"short write to {self.episodes_path}: {written} of {len(line)} bytes")

    def close(self) -> None:
        """Finish writing and release the directory (the lock file stays; only a held lock counts)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read_json(self, name: str) -> dict[str, Any] | None:
        return self.reader.json_with_warning(name)[0] or None

    def append_json_line(self, name: str, data: dict[str, Any]) -> None:
        """One JSON line added to `name` (a history such as config_history.jsonl), whole or not at all."""
        line = (finite_json(data, ensure_ascii=False, default=str) + "\n").encode()
        fd = os.open(self.out / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        _write_whole(self.out / name, finite_json(data, indent=2, ensure_ascii=False, default=str) + "\n")


def write_episode_files(out: str | Path, output: EpisodeOutput) -> None:
    """An episode's own files in run directory `out`: its images, calls file and trajectory (never its
    line in episodes.jsonl, which only the store's writer appends, after these). Paths come from the
    record's `trajectory` and `calls`, which the runner names from the episode's key, never the model.
    Called by the store, or by the worker process that played the episode (`--executor processes`)."""
    out = Path(out)
    rec = output.record
    traj_path = out / rec["trajectory"]
    if output.images:
        folder = traj_path.with_suffix("")
        folder.mkdir(parents=True, exist_ok=True)
        for name, png in output.images.items():
            target = folder / name
            if not target.exists():
                target.write_bytes(png)
    if rec.get("calls"):
        _write_lines(out / rec["calls"], output.calls)
    _write_lines(traj_path, output.step_lines)


def _write_lines(path: Path, lines: list[str]) -> None:
    """A JSONL file written whole from its lines (JSON text)."""
    _write_whole(path, "\n".join(lines) + "\n" if lines else "")


def _write_whole(path: Path, text: str) -> None:
    """`text` as the file `path` in UTF-8, whole or not at all: a temporary file, then an atomic rename.

    Written with `os` calls rather than a text-mode `open` (which adds its own system calls, a buffer
    and the locale's encoding): a fifth less time per episode, and fewer points where the writing thread
    gives up the GIL and must win it back from the event loop."""
    tmp = f"{path}.tmp"
    data = memoryview(text.encode())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while data:  # a regular file takes it all at once; loop rather than assume
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)


class WriteBehind:
    """A run's episodes written on one background thread, in the order they finished.

    Why: writing an episode (its trajectory's JSON, its files, its line) takes about 0.7 ms, and in a
    run whose episodes keep in step (same length, same latency) many finish in the same turn of the
    event loop; written there, 128 of them held every other episode's reply for ~90 ms. On a thread
    the loop goes on (file I/O releases the GIL; the JSON encoder holds it for one step at a time).

    The order and crash safety are the store's: one thread writes everything, each episode's files
    before its line. An episode finished but not yet written when the process is killed is simply not
    on record, as one still playing would be, and runs again on resume. A failed write (a full disk)
    is raised by the next `write` or by `drain`, which waits for everything queued.
    """

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._thread = futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="playbench-store")
        self._pending: deque[Any] = deque()  # futures, oldest first

    def _raise_failures(self, wait: bool) -> None:
        if wait:
            futures.wait(self._pending)
        # one thread writes in order, so the finished writes are the oldest: look no further than the
        # first unfinished one (scanning every pending write made each write cost more as they queued)
        while self._pending and self._pending[0].done():
            self._pending.popleft().result()  # the first failed write's own error (a run stops at it)

    def write(self, output: EpisodeOutput) -> None:
        self._raise_failures(wait=False)
        self._pending.append(self._thread.submit(self.store.write, output))

    def drain(self) -> None:
        """Wait for every queued episode to be written (raising the first failure), then stop."""
        try:
            self._raise_failures(wait=True)
        finally:
            self._thread.shutdown(wait=True)
