"""The games of a study: the web app's `PlayManager` (journals that survive restarts, the runner's own
`run_episode`, `RunStore` records) with the run directory, seats, trials and instances fixed by the
study's design instead of a setup form, a per-episode time limit, and an owner for every game."""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
import sys
import time
from typing import Any

import playbench
from playbench.agents import AgentSpec, AgentStopped
from playbench.core.errors import ConfigError
from playbench.core.registry import get_spec
from playbench.core.task import instance_set_digest
from playbench.runner.reader import RunReader
from playbench.runner.store import RunStore
from playbench.study.config import SlotData, Study, user_options
from playbench.web.play import WRITE_WAIT_S, PlayManager
from playbench.web.play_session import PlaySession, PlaySetup

STUDY_IDLE_S = 7 * 24 * 3600.0  # a game waits for its participant this long (a break is allowed)
LIVE = ("paused", "starting", "running")
KEEP_FINISHED_S = 600.0  # a finished game's page stays answerable this long, then it is forgotten

Key = tuple[str, str, int]


def slot_key(slot: SlotData) -> Key:
    return (slot.task, slot.instance_id, slot.trial)


def session_key(session: PlaySession) -> Key:
    return (session.setup.task_id, session.setup.instance_id, session.trial)


def owner(session: PlaySession) -> str | None:
    """The pseudonym of the person playing the game (its seat `human:<pseudonym>`)."""
    for seat in session.seats.values():
        if seat.human and seat.spec.name.startswith("human:"):
            return seat.spec.name.split(":", 1)[1]
    return None


class StudyManager(PlayManager):
    def __init__(self, study: Study, idle_timeout: float = STUDY_IDLE_S) -> None:
        self.study = study
        config = study.config
        self.routed = study.routed_options()
        self.instances: dict[str, dict[str, dict[str, Any]]] = {}
        self.roles: dict[str, tuple[str, ...]] = {}
        n = len(next(iter(config.instances.values())))
        for tid in config.tasks:
            spec = get_spec(tid)
            task = spec.make(**user_options(spec, self.routed[tid]))
            found = task.instances(n, config.seed)[:n]
            if [i.id for i in found] != config.instances[tid] or instance_set_digest(found) != config.digests[
                tid
            ]:
                raise ConfigError(
                    f"{tid}'s instances for seed {config.seed} are not the ones this study was made with "
                    "(a different playbench version or suite data?): serve it with the version that made it"
                )
            self.instances[tid] = {i.id: i.model_dump(mode="json") for i in found}
            self.roles[tid] = tuple(task.roles)
        if config.partner_model:
            from playbench.models import make_model

            make_model(config.partner_model)  # a bad spec or a missing API key stops the server now
        study.run_dir.mkdir(exist_ok=True)
        super().__init__(study.dir, idle_timeout, folder="")
        self.done: set[Key] = {
            (r["task"], str(r["instance_id"]), int(r["trial"])) for r in RunReader(study.run_dir).records()
        }
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._write_study_config()

    # --- what a participant is to play ------------------------------------------------------------
    def slots(self, pseudonym: str) -> list[SlotData]:
        plan = self.study.config.plan(pseudonym)
        return list(plan.slots) if plan else []

    def progress(self, pseudonym: str) -> tuple[int, SlotData | None]:
        """(episodes finished, the next slot to play or None when all are done)."""
        slots = self.slots(pseudonym)
        finished = sum(slot_key(s) in self.done for s in slots)
        upcoming = next((s for s in slots if slot_key(s) not in self.done), None)
        return finished, upcoming

    def session_of(self, pseudonym: str, slot: SlotData) -> PlaySession | None:
        """The participant's game of this slot that is in progress (or just finished), if any."""
        key = slot_key(slot)
        found = [s for s in self.sessions.values() if session_key(s) == key and owner(s) == pseudonym]
        live = [s for s in found if s.status in LIVE]
        return (live or sorted(found, key=lambda s: s.created))[-1] if found else None

    def owned(self, sid: str, pseudonym: str) -> PlaySession | None:
        """The game `sid` if it is this participant's, else None (whether or not it exists)."""
        session = self.sessions.get(sid)
        return session if session is not None and owner(session) == pseudonym else None

    def start_slot(self, pseudonym: str, slot: SlotData) -> PlaySession:
        """Start the participant's game of `slot`, or give back the one already going (never a second)."""
        if slot_key(slot) in self.done:
            raise ConfigError("this episode is already recorded")
        current = self.session_of(pseudonym, slot)
        if current is not None and current.status in LIVE:
            self.resume(current)
            return current
        self._forget_finished()
        config = self.study.config
        spec = get_spec(slot.task)
        options = self.routed[slot.task]
        seats = config.seats(self.roles[slot.task], pseudonym)
        setup = PlaySetup(slot.task, user_options(spec, options), config.seed, slot.instance_id, seats)
        sid = secrets.token_urlsafe(16)
        session = PlaySession(
            sid,
            setup,
            dict(options),
            self.instances[slot.task][slot.instance_id],
            slot.trial,
            self.study.run_dir,
            self.idle_timeout,
        )
        self.sessions[sid] = session
        session.start(self.pool, self._record)
        self._limit(session)
        return session

    def resume(self, session: PlaySession) -> None:
        if session.status == "paused":
            super().resume(session)
            self._limit(session)

    # --- the time limit -----------------------------------------------------------------------------
    def deadline(self, session: PlaySession) -> float | None:
        limit = self.study.config.time_limit_s
        return session.created + limit if limit else None

    def _limit(self, session: PlaySession) -> None:
        deadline = self.deadline(session)
        if deadline is None or session.sid in self._timers:
            return
        loop = asyncio.get_running_loop()
        self._timers[session.sid] = loop.call_later(
            max(0.0, deadline - time.time()), self._expire, session.sid
        )

    def _expire(self, sid: str) -> None:
        self._timers.pop(sid, None)
        session = self.sessions.get(sid)
        if session is None or session.status not in ("starting", "running"):
            return
        if session._replay:  # a resumed game is still replaying its journal: end it once that is done
            self._timers[sid] = asyncio.get_running_loop().call_later(0.2, self._expire, sid)
            return
        session.quit_requested = "time limit"
        minutes = round((self.study.config.time_limit_s or 0) / 60, 1)
        for seat in session.seats.values():
            if seat.future is not None and not seat.future.done():
                seat.future.set_exception(AgentStopped(f"the time limit of {minutes:g} minutes ran out"))
        session.changed()

    # --- records ------------------------------------------------------------------------------------
    def _record(self, session: PlaySession, output: Any) -> None:
        key = session_key(session)
        if key in self.done:  # never twice (the journal is removed right after this)
            return
        store = RunStore(self.study.run_dir, wait=WRITE_WAIT_S)
        try:
            store.write(output)
        finally:
            store.close()
        self.done.add(key)
        session.images.clear()  # the finished page shows no image; the run directory has them all
        timer = self._timers.pop(session.sid, None)
        if timer is not None:
            timer.cancel()

    def write_summary(self) -> None:
        """summary.json of the whole study (written when the server stops and by the admin's export:
        recomputing it after every episode of a busy study would cost more than it gives)."""
        from playbench.report.summary import summarize

        store = RunStore(self.study.run_dir, wait=WRITE_WAIT_S)
        try:
            store.write_json("summary.json", summarize(store.records(), self.routed))
        finally:
            store.close()

    def _forget_finished(self) -> None:
        now = time.time()
        for sid, s in list(self.sessions.items()):
            if s.status not in LIVE and now - s.updated > KEEP_FINISHED_S:
                del self.sessions[sid]

    def _write_study_config(self) -> None:
        from playbench.runner.run import RunConfig, git_revision

        config = self.study.config
        store = RunStore(self.study.run_dir, wait=WRITE_WAIT_S)
        try:
            if store.read_json("config.json") is not None:
                return
            agents: dict[str, AgentSpec] = {"*": AgentSpec("human")}
            partner = config.partner_spec()
            if partner is not None:
                agents = {config.seat or "first role": AgentSpec("human"), "*": partner}
            run = RunConfig(
                tasks=list(config.tasks),
                agents=agents,
                out=str(self.study.run_dir),
                seed=config.seed,
                task_options=dict(config.task_options),
                instance_ids=[i for ids in config.instances.values() for i in ids],
            )
            store.write_json(
                "config.json",
                {
                    "run": run.to_dict(),
                    "task_options_resolved": self.routed,
                    "study": {
                        "title": config.title,
                        "participants": config.participants,
                        "per_participant": config.per_participant,
                        "plays_per_instance": config.plays_per_instance,
                        "seat": config.seat,
                        "partner": partner.label if partner else None,
                        "time_limit_s": config.time_limit_s,
                        "design": "cyclic blocks over the tasks' interleaved instances, Williams-square order",
                    },
                    "command": ["playbench", "serve", "--study", str(self.study.dir)],
                    "playbench_version": playbench.__version__,
                    "git_revision": git_revision(),
                    "python": sys.version.split()[0],
                    "written_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                    "source": "study",
                },
            )
        finally:
            store.close()

    async def aclose(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        await super().aclose()
        try:
            if self.done:
                self.write_summary()
        except Exception as exc:  # the records are safe; only the summary file is missing
            print(f"playbench serve: warning: summary.json not written: {exc}", file=sys.stderr)
