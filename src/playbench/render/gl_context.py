"""The process's one OpenGL context and the one thread that may use it (`gl3d` is the renderer's
front: see its docstring)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

SYSTEM_LIBRARIES = "libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri"


class GLUnavailable(RuntimeError):
    """No usable OpenGL context in this process (missing libraries, or a forked child)."""


# An OpenGL context is current in one thread only, and GL calls made from another thread go
# nowhere without an error (reads then return stale pixels). So all GL work runs in one thread
# owned by this module; callers in any thread hand it their work and wait for the result.

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_gl_thread: int | None = None
_ctx: Any = None
_ctx_pid: int | None = None


def _check_fork() -> None:
    if _ctx_pid is not None and _ctx_pid != os.getpid():
        # The parent's context is unusable here and calling into it would hang.
        raise GLUnavailable(
            "this process was forked after the OpenGL context was created; a forked child cannot "
            "render. Start worker processes with the 'spawn' method (multiprocessing, or "
            "concurrent.futures with mp_context=multiprocessing.get_context('spawn'))."
        )


def _mark_gl_thread() -> None:
    global _gl_thread
    _gl_thread = threading.get_ident()


def run_gl(fn: Callable[[], T]) -> T:
    """Run `fn()` in the GL thread and return its result (re-raising its exception).

    Everything that touches the context or GL objects must go through here; `Scene.render`
    and the other functions of this module already do.
    """
    global _executor
    _check_fork()
    if threading.get_ident() == _gl_thread:
        return fn()
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(1, thread_name_prefix="playbench-gl", initializer=_mark_gl_thread)
        executor = _executor
    return executor.submit(fn).result()


def get_context() -> Any:
    """The process's moderngl context, created headless (EGL) on first use.

    Only valid inside `run_gl`: use it from the GL thread alone.
    """
    global _ctx, _ctx_pid
    _check_fork()
    if threading.get_ident() != _gl_thread:
        raise RuntimeError("gl3d.get_context() must be called inside gl3d.run_gl(...)")
    if _ctx is None:
        try:
            import moderngl

            ctx = moderngl.create_standalone_context(backend="egl")
        except Exception as exc:  # ImportError, no libEGL, no EGL device: all mean the same here
            raise GLUnavailable(
                f"cannot create a headless OpenGL context (EGL): {exc}. 3D rendering needs the "
                f"system libraries {SYSTEM_LIBRARIES} (Debian/Ubuntu names, e.g. "
                f"`apt-get install {SYSTEM_LIBRARIES}`) and the Python package moderngl."
            ) from exc
        _ctx, _ctx_pid = ctx, os.getpid()
    return _ctx


def gl_info() -> dict[str, str]:
    """Vendor, renderer and version of the context, creating it if needed (e.g. to log which
    OpenGL drew a run, or to check that 3D rendering works here)."""

    def read() -> dict[str, str]:
        info = get_context().info
        return {k: str(info[k]) for k in ("GL_VENDOR", "GL_RENDERER", "GL_VERSION")}

    return run_gl(read)
