"""The originals folder: the user's clones of the authors' repositories, read as data, never executed.

Each suite registers the repository it reads (`register_original`, from its light `registration.py`)
with the commit its fidelity table names, the files it needs and its text map. A task class says how it
uses the clone (`Task.originals`: which data options default to which path inside it, whether it reads
texts from it). `resolve_options` fills those defaults at plan time, so a run's jobs carry plain paths:
an explicit option wins; `texts` becomes `original` when the clone is there, else `ours` with one notice.

`playbench originals` lists each repository's state (`status`); `playbench originals fetch` clones them
with git (`fetch`). The folder is `~/.cache/playbench/originals`, or `$PLAYBENCH_ORIGINALS`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError

ENV = "PLAYBENCH_ORIGINALS"
DEFAULT_DIR = "~/.cache/playbench/originals"
TEXTS = ("original", "ours")
_HEX = re.compile(r"^[0-9a-f]{40}$")


def originals_dir() -> Path:
    """The originals folder: `$PLAYBENCH_ORIGINALS` if set, else ~/.cache/playbench/originals."""
    return Path(os.environ.get(ENV) or DEFAULT_DIR).expanduser()


@dataclass(frozen=True)
class TextRef:
    """One text a model receives that the original defines: our id, and where the clone holds it.

    `symbol` names it inside `file` (see `original_texts.read_text`): `NAME` (a module-level
    assignment), `Class.NAME`, `func:NAME` / `Class.method:NAME` (an assignment inside a function;
    `NAME#2` the second one), `func:return` (its first returned value), `func:#N` (its N-th string
    literal in source order); `SYMBOL@k` the k-th text inside the fields of the f-string SYMBOL names (whose
    fields that cannot be named, such as `{f"..." if x else ""}`, read as `{#1}`, `{#2}`, ...); a trailing
    `[key][0]` indexes a dict or list; in a JSON file a key path `a.b.0`; in any other file `` (the whole
    file)."""

    id: str
    file: str
    symbol: str
    filled: str = ""  # how ours fills it, for the suite README's text map


@dataclass(frozen=True)
class OriginalRepo:
    """An authors' repository a suite reads from its clone."""

    name: str  # the clone's folder in the originals folder
    url: str
    commit: str  # the full commit the suite's fidelity table names
    suites: tuple[str, ...]
    needs: tuple[str, ...] = ()  # files and folders the suites read (status checks each one)
    sparse: bool = False  # fetch checks out `needs` only (a repository too large to take whole)
    texts: tuple[TextRef, ...] = ()  # the suites' text maps; status checks that each one reads
    # task id -> digest of its default instance set when read from the clone at `commit`
    digests: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _HEX.match(self.commit):
            raise ValueError(
                f"original {self.name}: commit must be 40 lowercase hex digits (got {self.commit!r})"
            )

    @property
    def short(self) -> str:
        return self.commit[:7]


_REPOS: dict[str, OriginalRepo] = {}


def register_original(repo: OriginalRepo) -> None:
    _REPOS[repo.name] = repo


def original_repos() -> list[OriginalRepo]:
    """Every registered repository (the built-in suites' and plugins')."""
    import playbench.tasks  # noqa: F401 - the suites register theirs on import

    return list(_REPOS.values())


def get_repo(name: str) -> OriginalRepo:
    original_repos()
    if name not in _REPOS:
        known = ", ".join(sorted(_REPOS)) or "none"
        raise ConfigError(f"no original repository named {name!r} (known: {known})")
    return _REPOS[name]


def head_commit(path: Path) -> str | None:
    """The commit a clone has checked out, read from its .git files (no git needed), or None."""
    git = path / ".git"
    if git.is_file():  # a worktree or submodule: "gitdir: ..."
        text = git.read_text(errors="replace").strip()
        if not text.startswith("gitdir:"):
            return None
        git = (path / text.split(":", 1)[1].strip()).resolve()
    head = git / "HEAD"
    if not head.is_file():
        return None
    text = head.read_text(errors="replace").strip()
    if _HEX.match(text):
        return text
    if not text.startswith("ref:"):
        return None
    ref = text.split(":", 1)[1].strip()
    for base in (git, _common_dir(git)):
        ref_file = base / ref
        if ref_file.is_file():
            value = ref_file.read_text(errors="replace").strip()
            return value if _HEX.match(value) else None
        packed = base / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(errors="replace").splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref and _HEX.match(parts[0]):
                    return parts[0]
    return None


def _common_dir(git: Path) -> Path:
    common = git / "commondir"
    if common.is_file():
        return (git / common.read_text().strip()).resolve()
    return git


@dataclass(frozen=True)
class Clone:
    """A clone of an original repository on this machine."""

    repo: OriginalRepo
    path: Path
    commit: str | None  # checked out (None: not a git checkout, e.g. an unpacked archive)

    @property
    def stamp(self) -> str:
        """`original@<commit>` as runs record it (the pinned commit when the folder has no .git)."""
        return f"original@{(self.commit or self.repo.commit)[:7]}"

    @property
    def at_pinned_commit(self) -> bool:
        return self.commit is None or self.commit == self.repo.commit

    def file(self, relative: str) -> Path:
        """A file of the clone; a missing one is a ConfigError naming it."""
        p = self.path / relative
        if not p.exists():
            raise ConfigError(f"{self.repo.name} clone {self.path}: {relative} is missing")
        return p


def find_clone(repo: OriginalRepo | str, path: str | Path | None = None) -> Clone | None:
    """The clone at `path`, or the originals folder's; None when that folder does not exist."""
    repo = get_repo(repo) if isinstance(repo, str) else repo
    where = Path(path).expanduser() if path is not None else originals_dir() / repo.name
    if not where.is_dir():
        return None
    return Clone(repo, where, head_commit(where))


def open_clone(repo: OriginalRepo | str, path: str | Path | None = None) -> Clone:
    """`find_clone`, or a ConfigError saying where it looked and how to get one."""
    repo = get_repo(repo) if isinstance(repo, str) else repo
    clone = find_clone(repo, path)
    if clone is None:
        where = Path(path).expanduser() if path is not None else originals_dir() / repo.name
        raise ConfigError(
            f"no clone of {repo.url} at {where} (texts=original and the authors' data read it): "
            f"run `playbench originals fetch`, or give the clone's path"
        )
    return clone


# --- how a task uses its clone ---------------------------------------------------------------


@dataclass(frozen=True)
class OriginalsUse:
    """What a task class reads from a repository's clone (`Task.originals`).

    `data`: option name -> path inside the clone, filled at plan time when the user set none (and the
    option is None). `texts`: the task has the `texts` and `originals` options (`TextsOptions`)."""

    repo: str
    data: dict[str, str] = field(default_factory=dict)
    texts: bool = True


def resolve_options(
    use: OriginalsUse | None, options: dict[str, Any], user_keys: set[str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """`options` with the clone's defaults filled in, and the notices to print once per run.

    `texts` unset becomes `original` when the clone is there, else `ours` (a notice); `texts=original`
    without a clone is a ConfigError. Data options unset become paths inside the clone when it is there."""
    if use is None:
        return options, []
    user_keys = user_keys or set()
    repo = get_repo(use.repo)
    out = dict(options)
    notices: list[str] = []
    if use.texts and out.get("originals") is None and out.get("texts") != "ours":
        # a data option that names a whole git clone (`source=PATH`) names the texts' clone too; a folder
        # of the data alone (no .git) does not
        for key, inside in use.data.items():
            if (
                inside == ""
                and key in user_keys
                and out.get(key)
                and (Path(out[key]).expanduser() / ".git").exists()
            ):
                out["originals"] = str(out[key])
    # an `originals=PATH` the user gave is the clone for the data defaults too
    clone = find_clone(repo, out.get("originals") if use.texts else None)
    if clone is not None:
        for key, inside in use.data.items():
            if key not in user_keys and out.get(key) is None:
                out[key] = str(clone.path / inside) if inside else str(clone.path)
    if use.texts:
        texts = out.get("texts")
        if texts is None:
            if clone is not None:
                out["texts"] = "original"
            else:
                out["texts"] = "ours"
                notices.append(
                    f"texts: playbench's paraphrases for {', '.join(repo.suites)} (no clone of {repo.url} "
                    f"in {originals_dir()}; `playbench originals fetch` gets the authors' exact words)"
                )
        elif texts == "original" and clone is None:
            open_clone(repo, out.get("originals"))  # raises, saying where it looked
        if out["texts"] == "original" and clone is not None:
            out["originals"] = str(clone.path)
            if not clone.at_pinned_commit:
                notices.append(
                    f"texts: the clone {clone.path} is at {clone.commit and clone.commit[:7]}, "
                    f"not {repo.short} (the commit playbench's fidelity table names)"
                )
    return out, notices


def texts_stamp(use: OriginalsUse | None, options: dict[str, Any]) -> str:
    """`original@<commit>` or `ours`, for the fidelity stamp (after `resolve_options`)."""
    if use is None or not use.texts:
        return "ours"
    if options.get("texts") != "original":
        return "ours"
    clone = find_clone(use.repo, options.get("originals"))
    return clone.stamp if clone is not None else "ours"


# --- status and fetch ------------------------------------------------------------------------


@dataclass
class RepoStatus:
    repo: OriginalRepo
    path: Path
    present: bool
    commit: str | None = None
    missing: list[str] = field(default_factory=list)  # needed files and folders absent
    text_errors: list[str] = field(default_factory=list)  # mapped texts that do not read

    @property
    def ok(self) -> bool:
        return self.present and not self.missing and not self.text_errors

    def line(self) -> str:
        head = f"{self.repo.name:<18} {', '.join(self.repo.suites):<10} "
        if not self.present:
            return head + f"absent ({self.path}; `playbench originals fetch`)"
        at = self.commit[:7] if self.commit else "no .git"
        pin = "" if self.commit in (None, self.repo.commit) else f" (pinned {self.repo.short})"
        state = "OK" if self.ok else "INCOMPLETE"
        text = f"{len(self.repo.texts) - len(self.text_errors)}/{len(self.repo.texts)} texts"
        return head + f"{state:<10} at {at}{pin}, {text}: {self.path}"


def status(folder: Path | None = None) -> list[RepoStatus]:
    """Each registered repository's clone in `folder` (default: the originals folder)."""
    from playbench.core.original_texts import TextSource

    folder = folder if folder is not None else originals_dir()
    rows = []
    for repo in original_repos():
        path = folder / repo.name
        row = RepoStatus(repo, path, path.is_dir())
        if row.present:
            row.commit = head_commit(path)
            row.missing = [n for n in repo.needs if not (path / n).exists()]
            source = TextSource(Clone(repo, path, row.commit))
            for ref in repo.texts:
                try:
                    source.text(ref)
                except ConfigError as exc:
                    row.text_errors.append(str(exc))
        rows.append(row)
    return rows


Runner = Callable[[list[str]], None]


def _git(args: list[str]) -> None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=1800)
    except FileNotFoundError:
        raise ConfigError("`playbench originals fetch` needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(f"git {' '.join(args[:2])} took more than 30 minutes; stopped") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ConfigError(f"git {args[0]} failed: {last}")


def fetch(
    folder: Path | None = None,
    names: list[str] | None = None,
    urls: dict[str, str] | None = None,
    run: Runner = _git,
    say: Callable[[str], None] = print,
) -> list[RepoStatus]:
    """Clone each repository (all, or `names`) into `folder` at its pinned commit, with git.

    An existing clone is brought to the pinned commit (fetching it if absent). `urls` replaces a
    repository's address (a mirror; the tests' local repositories). A large repository (`sparse`) is
    a partial clone with only its needed paths checked out."""
    folder = folder if folder is not None else originals_dir()
    repos = original_repos()
    if names:
        known = {r.name.lower(): r for r in repos}
        unknown = [n for n in names if n.lower() not in known]
        if unknown:
            raise ConfigError(
                f"no original repository named {', '.join(unknown)} (known: {', '.join(sorted(r.name for r in repos))})"
            )
        repos = [known[n.lower()] for n in names]
    if shutil.which("git") is None and run is _git:
        raise ConfigError("`playbench originals fetch` needs git, which is not installed")
    folder.mkdir(parents=True, exist_ok=True)
    for repo in repos:
        dest = folder / repo.name
        url = (urls or {}).get(repo.name, repo.url)
        if dest.exists() and head_commit(dest) == repo.commit:
            say(f"{repo.name}: already at {repo.short} ({dest})")
            continue
        if not dest.exists():
            say(f"{repo.name}: cloning {url} ...")
            partial = ["--filter=blob:none", "--no-checkout"] if repo.sparse else ["--no-checkout"]
            try:
                run(["clone", "--quiet", *partial, url, str(dest)])
            except ConfigError as exc:
                shutil.rmtree(dest, ignore_errors=True)  # no half clone is left to look present
                raise ConfigError(
                    f"{repo.name}: cannot clone {url} ({exc}); is the network reachable?"
                ) from None
            if repo.sparse and repo.needs:
                run(["-C", str(dest), "sparse-checkout", "set", "--no-cone", *repo.needs])
        elif not (dest / ".git").exists():
            raise ConfigError(f"{repo.name}: {dest} exists and is not a git clone; move it away first")
        try:
            run(["-C", str(dest), "checkout", "--quiet", repo.commit])
        except ConfigError:
            run(["-C", str(dest), "fetch", "--quiet", "origin", repo.commit])
            run(["-C", str(dest), "checkout", "--quiet", repo.commit])
        say(f"{repo.name}: at {repo.short} ({dest})")
    return [row for row in status(folder) if row.repo in repos]
