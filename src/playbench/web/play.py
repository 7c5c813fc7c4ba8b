"""Live play in the browser: an episode runs in the server's event loop through the runner's own
`run_episode`, with a browser-backed agent in every human seat, and is written with `RunStore`,
so a browser game is an ordinary run directory (agent `human`) that replays and reports like any.

A seat is taken by opening the session page with `?seat=ROLE`; two human seats of a two-role task
can be played from two browsers. The other seats are played by any agent (random, oracle, a model,
a suite's agent) built exactly as the runner builds them.

Here: the setup of a game, `PlayManager` (starting, resuming, recording and discarding games) and the
task and instance choices of the forms; one game, its seats and its journal are in `play_session.py`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import re
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import playbench
from playbench.agents import AgentSpec, parse_agent, registered_agents
from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.registry import TaskSpec, get_spec
from playbench.core.task import Task
from playbench.runner.model_pool import ModelPool
from playbench.runner.reader import RunReader
from playbench.runner.store import RunStore
from playbench.web.play_session import UNFINISHED, PlaySession, PlaySetup

WRITE_WAIT_S = 10.0

PLAY_FOLDER = "web-play"
IDLE_TIMEOUT_S = 3 * 3600.0  # a seat left alone this long ends the episode (recorded as abandoned)
MAX_SESSIONS = 200
INSTANCE_CHOICES = 500
# Agents a web form may put in the other seats. `replay:FILE` is left out on purpose: a form must
# never name a file on the server.
BUILTIN_PARTNERS = ("human", "random", "oracle", "llm")


def partner_choices(task_id: str | None = None) -> list[str]:
    """The agents offered for the other seats; for a task, a suite's own agents only with its own tasks
    (a VisEscape agent cannot sit in a COMMA seat)."""
    agents = registered_agents()
    if task_id is None:
        return [*BUILTIN_PARTNERS, *agents]
    suite = task_id.split("/", 1)[0]
    own = [name for name, entry in agents.items() if suite in entry.entry_point.split(":", 1)[0].split(".")]
    return [*BUILTIN_PARTNERS, *own]


def prepare(
    task_id: str,
    options: dict[str, Any],
    seed: int,
    instance_id: str | None,
    seat: str | None,
    partner: str | None,
    partner_model: str | None,
) -> tuple[PlaySetup, TaskSpec, Task, dict[str, Any]]:
    """Check a play request the way the CLI checks `playbench play`; every problem is a ConfigError."""
    spec = get_spec(task_id)
    task = spec.make(**options)
    roles = tuple(task.roles)
    instances = task.instances(None, seed)
    if not instances:
        raise ConfigError(f"{task_id} has no instances for seed {seed}")
    chosen = instances[0] if not instance_id else next((i for i in instances if i.id == instance_id), None)
    if chosen is None:
        raise ConfigError(f"instance '{instance_id}' is not in {task_id}'s set for seed {seed}")
    if len(roles) == 1:
        seats = {roles[0]: AgentSpec("human")}
    else:
        seat = seat or roles[0]
        if seat not in roles:
            raise ConfigError(f"{task_id} has the roles {', '.join(roles)}; '{seat}' is not one of them")
        partner = (partner or "human").strip()
        offered = partner_choices(task_id)
        if partner.split(":", 1)[0] not in offered:
            raise ConfigError(f"partner '{partner}' is not offered here (choose one of {', '.join(offered)})")
        partner_spec = parse_agent(partner, (partner_model or "").strip() or None)
        if partner_spec.name == "oracle" and not task.has_oracle():
            raise ConfigError(f"{task_id} has no oracle, so the oracle cannot take a seat")
        if partner_spec.model:
            from playbench.models import make_model

            make_model(partner_spec.model)  # a bad spec or missing API key is reported now, not mid-game
        seats = {role: AgentSpec("human") if role == seat else partner_spec for role in roles}
    return PlaySetup(task_id, options, seed, chosen.id, seats), spec, task, chosen.model_dump(mode="json")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text).strip("_") or "x"


class PlayManager:
    """The games of one server: where they are recorded, their sessions and the shared model pool."""

    def __init__(
        self, play_root: Path, idle_timeout: float = IDLE_TIMEOUT_S, folder: str = PLAY_FOLDER
    ) -> None:
        # the run directories are `<play_root>/<folder>/<run>` (folder "": `<play_root>/<run>`, a study's)
        self.play_root = play_root / folder
        self.idle_timeout = idle_timeout
        self.sessions: dict[str, PlaySession] = {}
        self.pool = ModelPool()
        self._reserved: dict[tuple[str, str, str], set[int]] = {}
        self._restore_unfinished()

    def _restore_unfinished(self) -> None:
        """Games a previous server left unfinished: offered on the play page, resumed on opening."""
        for path in sorted(self.play_root.glob(f"*/{UNFINISHED}/*.json")):
            run_dir = path.parent.parent
            if self.owned_journal(path) is None:  # a symlink, or a folder linked in from elsewhere
                print(
                    f"playbench serve: warning: {path} is not a journal of this folder; left alone",
                    file=sys.stderr,
                )
                continue
            try:
                data = json.loads(path.read_text())
                session = PlaySession.from_journal(data, run_dir, self.idle_timeout)
                if "updated" not in data:  # written before journals kept the last move's time
                    session.updated = path.stat().st_mtime
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                print(f"playbench serve: warning: cannot resume {path}: {exc}", file=sys.stderr)
                continue
            if session.sid != path.stem:
                continue
            if any(
                r["task"] == session.setup.task_id
                and str(r["instance_id"]) == session.setup.instance_id
                and int(r["trial"]) == session.trial
                for r in RunReader(run_dir).records()
            ):
                # already recorded: the server stopped between the record and removing the journal,
                # which is done now (nothing is left to resume; it would stay on disk for ever)
                path.unlink(missing_ok=True)
                continue
            self.sessions[session.sid] = session
            key = (str(run_dir), session.setup.task_id, session.setup.instance_id)
            self._reserved.setdefault(key, set()).add(session.trial)

    def resume(self, session: PlaySession) -> None:
        """Start a game restored from its journal (its moves are replayed, then play goes on)."""
        if session.status == "paused":
            session.status = "starting"
            session.start(self.pool, self._record)

    def run_dir_for(self, setup: PlaySetup, task_options: dict[str, Any]) -> Path:
        identity = json.dumps(
            {
                "task": setup.task_id,
                "agents": {r: s.to_dict() for r, s in sorted(setup.seats.items())},
                "options": task_options,
                "seed": setup.seed,
            },
            sort_keys=True,
            default=str,
        )
        digest = hashlib.sha1(identity.encode()).hexdigest()[:8]
        if len(setup.seats) == 1:
            seats = "human"
        else:
            seats = "-".join(f"{role}={spec.label}" for role, spec in setup.seats.items())
        return self.play_root / _slug(f"{setup.task_id.replace('/', '__')}-{seats}-s{setup.seed}-{digest}")

    def start(self, setup: PlaySetup, spec: TaskSpec, instance: dict[str, Any]) -> PlaySession:
        self._forget_old()
        task_options = {**spec.options, **setup.options}
        run_dir = self.run_dir_for(setup, task_options)
        self._write_config(run_dir, setup, task_options)
        trial = self._next_trial(run_dir, setup.task_id, str(instance["id"]))
        sid = secrets.token_urlsafe(12)
        session = PlaySession(sid, setup, task_options, instance, trial, run_dir, self.idle_timeout)
        self.sessions[sid] = session
        session.start(self.pool, self._record)
        return session

    def _next_trial(self, run_dir: Path, task_id: str, instance_id: str) -> int:
        """Each game of an instance is a new trial, so earlier games stay on record; two games started
        at once never share a trial number."""
        key = (str(run_dir), task_id, instance_id)
        used = set(self._reserved.get(key, set()))
        used |= {
            int(r["trial"])
            for r in RunReader(run_dir).records()
            if r["task"] == task_id and str(r["instance_id"]) == instance_id
        }
        trial = max(used) + 1 if used else 0
        self._reserved.setdefault(key, set()).add(trial)
        return trial

    def _write_config(self, run_dir: Path, setup: PlaySetup, task_options: dict[str, Any]) -> None:
        from playbench.runner.run import RunConfig, git_revision

        # the server writes a play folder only for a moment; a run in it (playbench play) is waited for
        store = RunStore(run_dir, wait=WRITE_WAIT_S)
        if store.read_json("config.json") is None:
            config = RunConfig(
                tasks=[setup.task_id],
                agents=dict(setup.seats),
                out=str(run_dir),
                seed=setup.seed,
                task_options=dict(setup.options),
            )
            store.write_json(
                "config.json",
                {
                    "run": config.to_dict(),
                    "task_options_resolved": {setup.task_id: task_options},
                    "command": ["playbench", "serve", "(browser play)"],
                    "playbench_version": playbench.__version__,
                    "git_revision": git_revision(),
                    "python": sys.version.split()[0],
                    "written_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                    "source": "web",
                },
            )
        store.close()

    def _record(self, session: PlaySession, output: Any) -> None:
        from playbench.report.summary import summarize

        store = RunStore(session.run_dir, wait=WRITE_WAIT_S)
        try:
            store.write(output)
            store.write_json(
                "summary.json", summarize(store.records(), {session.setup.task_id: session.task_options})
            )
        finally:
            store.close()

    def get(self, sid: str) -> PlaySession | None:
        return self.sessions.get(sid)

    def owned_journal(self, path: Path) -> Path | None:
        """`path` if it is a journal file this server owns, else None: a regular file (not a symlink)
        named `<game>.json` in the `unfinished` folder of a run directory directly inside the play
        folder, all of it still there once symlinks are resolved."""
        try:
            below = path.relative_to(self.play_root).parts  # (run directory, "unfinished", file)
            if len(below) != 3 or below[1] != UNFINISHED or path.suffix != ".json":
                return None
            if path.is_symlink() or not path.is_file():
                return None
            root = self.play_root.resolve(strict=True)
            real = path.resolve(strict=True)
        except (OSError, RuntimeError, ValueError):
            return None
        # no symlinked run directory or folder on the way either: the file is where its path says
        return real if real == root.joinpath(*below) else None

    def discard(self, sid: str) -> PlaySession:
        """End a game in progress without recording it and remove its journal, so it is no longer
        offered. The path removed is the session's own journal (the server's run directory and the
        game's id, never a path from a request), and only if `owned_journal` accepts it; the run's
        finished episodes are not touched."""
        session = self.sessions.get(sid)
        if session is None or session.status not in ("paused", "starting", "running"):
            raise ConfigError("this game is not in progress, so there is nothing to discard")
        session.discard()
        journal = self.owned_journal(session.journal_path)
        if journal is not None:
            journal.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the folder goes once it holds no other game
            session.journal_path.parent.rmdir()
        key = (str(session.run_dir), session.setup.task_id, session.setup.instance_id)
        self._reserved.get(key, set()).discard(session.trial)  # never recorded: the trial is free again
        return session

    def active(self) -> list[PlaySession]:
        return sorted(
            (s for s in self.sessions.values() if s.status in ("paused", "starting", "running")),
            key=lambda s: s.updated,
            reverse=True,
        )

    def _forget_old(self) -> None:
        if len(self.sessions) < MAX_SESSIONS:
            return
        finished = sorted(
            (s for s in self.sessions.values() if s.status in ("finished", "error", "discarded")),
            key=lambda s: s.created,
        )
        for s in finished[: len(self.sessions) - MAX_SESSIONS + 1]:
            del self.sessions[s.sid]
        if len(self.sessions) >= MAX_SESSIONS:
            raise ConfigError(f"{MAX_SESSIONS} games are in progress; finish or end some first")

    async def aclose(self) -> None:
        for session in self.sessions.values():
            if session._runner is not None and not session._runner.done():
                session._runner.cancel()
        await self.pool.aclose()


@dataclass
class InstanceChoice:
    id: str
    label: str


@dataclass
class TaskInfo:
    spec: TaskSpec
    roles: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)  # option -> its default
    has_oracle: bool = False
    error: str | None = None


def task_info(spec: TaskSpec, options: dict[str, Any] | None = None) -> TaskInfo:
    try:
        cls = spec.load_class()
        defaults = {
            name: spec.options.get(name, f.get_default(call_default_factory=True))
            for name, f in cls.Config.model_fields.items()
        }
        task = spec.make(**(options or {}))
        return TaskInfo(spec, tuple(task.roles), defaults, task.has_oracle())
    except PlaybenchError as exc:
        return TaskInfo(spec, error=str(exc))
    except Exception as exc:  # a broken suite must not take the play page down
        return TaskInfo(spec, error=f"{type(exc).__name__}: {exc}")


def instance_choices(task: Task, seed: int) -> list[InstanceChoice]:
    out = []
    for inst in task.instances(None, seed)[:INSTANCE_CHOICES]:
        label = inst.id + (f" (optimal {inst.optimal_steps} steps)" if inst.optimal_steps is not None else "")
        out.append(InstanceChoice(inst.id, label))
    return out
