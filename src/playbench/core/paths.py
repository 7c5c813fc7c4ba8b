"""Checks of the paths a user gives (run directories, report files, caches, data files): each bad
path is one ConfigError naming it and what is wrong, before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

from playbench.core.errors import ConfigError


def _first_existing_parent(path: Path) -> Path:
    for parent in [path, *path.parents]:
        if parent.exists():
            return parent
    return Path(".")


def writable_dir(path: str | Path, what: str) -> Path:
    """`path` as a directory that exists or can be created, and can be written."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{what} '{path}' is a file, not a directory")
    base = _first_existing_parent(p)
    if not base.is_dir():
        raise ConfigError(f"{what} '{path}': '{base}' is a file, so the directory cannot be made")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} '{path}': '{base}' is not writable")
    return p


def writable_file(path: str | Path, what: str) -> Path:
    """`path` as a file that can be (over)written: not a directory, its folder writable or creatable."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise ConfigError(f"{what} '{path}' is a directory, not a file")
    if p.exists() and not os.access(p, os.W_OK):
        raise ConfigError(f"{what} '{path}' is not writable")
    writable_dir(p.parent if str(p.parent) else Path("."), f"{what} '{path}': its folder")
    return p


def readable_file(path: str | Path, what: str) -> Path:
    """`path` as an existing, readable file."""
    p = Path(path).expanduser()
    if not p.exists():
        raise ConfigError(f"{what} '{path}' does not exist")
    if p.is_dir():
        raise ConfigError(f"{what} '{path}' is a directory, not a file")
    if not os.access(p, os.R_OK):
        raise ConfigError(f"{what} '{path}' is not readable")
    return p
