"""One live game in the browser (`PlaySession`): its seats, the browser-backed agent of a human seat,
the watched agent of any other seat, and the journal that lets an unfinished game resume after a
restart (`play.py` starts, resumes and records sessions)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playbench.agents import Agent, AgentSpec, AgentStopped, build_agent
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext
from playbench.core.types import Action, Observation
from playbench.runner.episode import EpisodeJob, run_episode
from playbench.runner.model_pool import ModelPool

UNFINISHED = "unfinished"  # run-directory folder of the journals of games in progress
MAX_ACTION_CHARS = 20_000


def is_human(spec: AgentSpec) -> bool:
    """A seat a person plays: `human`, or `human:<pseudonym>` (a study participant, `playbench.study`)."""
    return spec.name == "human" or spec.name.startswith("human:")


@dataclass
class PlaySetup:
    task_id: str
    options: dict[str, Any]  # the `--set` values the player gave
    seed: int
    instance_id: str
    seats: dict[str, AgentSpec]  # every role -> its agent; the human seats are AgentSpec("human")

    @property
    def human_roles(self) -> list[str]:
        return [role for role, spec in self.seats.items() if is_human(spec)]


class Seat:
    def __init__(self, role: str, spec: AgentSpec) -> None:
        self.role = role
        self.spec = spec
        self.human = is_human(spec)
        self.pending: Observation | None = None
        self.future: asyncio.Future[str] | None = None
        self.moves = 0  # moves this seat has made; a submission must name the move it answers
        self.history: list[dict[str, Any]] = []
        self.joined = False


class BrowserAgent(Agent):
    """A human seat: shows the observation to whichever browser holds the seat and waits for its move."""

    name = "human"

    def __init__(self, session: PlaySession, seat: Seat) -> None:
        self.session = session
        self.seat = seat

    async def act(self, observation: Observation) -> Action:
        seat = self.seat
        if self.session.quit_requested is not None:
            raise AgentStopped(f"the {self.session.quit_requested} ended the episode")
        replayed = self.session.replayed_move(seat.role)
        if replayed is not None:  # a move made before the server restarted
            seat.moves += 1
            seat.history.append({"step": observation.step, "action": replayed})
            return Action(text=replayed)
        seat.pending = observation
        seat.future = asyncio.get_running_loop().create_future()
        self.session.turn_role = seat.role
        self.session.remember_images(observation)
        self.session.changed()
        try:
            text = await asyncio.wait_for(seat.future, self.session.idle_timeout)
        except TimeoutError:
            minutes = round(self.session.idle_timeout / 60)
            raise AgentStopped(f"no move from the browser for {minutes} minutes") from None
        finally:
            seat.pending = None
            seat.future = None
            self.session.changed()
        seat.moves += 1
        seat.history.append({"step": observation.step, "action": text})
        self.session.journal_move(seat.role, text)
        return Action(text=text)


class WatchedAgent(Agent):
    """Any other seat's agent, built as the runner builds it; marks whose turn it is while it thinks."""

    def __init__(self, session: PlaySession, role: str, inner: Agent) -> None:
        self.session = session
        self.role = role
        self.inner = inner
        self.name = inner.name

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        await self.inner.reset(ctx)

    async def act(self, observation: Observation) -> Action:
        if self.session.quit_requested is not None:
            raise AgentStopped(f"the {self.session.quit_requested} ended the episode")
        replayed = self.session.replayed_move(self.role)
        if replayed is not None:
            return Action(text=replayed)
        self.session.turn_role = self.role
        self.session.changed()
        action = await self.inner.act(observation)
        self.session.journal_move(self.role, action.text)
        return action


class PlaySession:
    def __init__(
        self,
        sid: str,
        setup: PlaySetup,
        task_options: dict[str, Any],
        instance: dict[str, Any],
        trial: int,
        run_dir: Path,
        idle_timeout: float,
    ) -> None:
        self.sid = sid
        self.setup = setup
        self.task_options = task_options  # the task's registered variant options plus the player's
        self.instance = instance
        self.trial = trial
        self.run_dir = run_dir
        self.idle_timeout = idle_timeout
        self.seats = {role: Seat(role, spec) for role, spec in setup.seats.items()}
        self.status = "starting"  # starting | running | finished | error
        self.turn_role: str | None = None
        self.record: dict[str, Any] | None = None
        self.error: str | None = None
        self.quit_requested: str | None = None  # the seat that ended the game
        self.images: dict[str, bytes] = {}
        self.version = 0
        self.created = time.time()
        self.updated = self.created  # the last move (or the start): shown under "Games in progress"
        self._event = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        # every move so far, journalled in the run directory so a restarted server can resume the game
        self.moves: list[dict[str, str]] = []
        self._replay: list[dict[str, str]] = []

    # --- the journal of an unfinished game --------------------------------------------------------
    @property
    def journal_path(self) -> Path:
        return self.run_dir / UNFINISHED / f"{self.sid}.json"

    def journal(self) -> dict[str, Any]:
        return {
            "sid": self.sid,
            "setup": {
                "task_id": self.setup.task_id,
                "options": self.setup.options,
                "seed": self.setup.seed,
                "instance_id": self.setup.instance_id,
                "seats": {role: spec.to_dict() for role, spec in self.setup.seats.items()},
            },
            "task_options": self.task_options,
            "instance": self.instance,
            "trial": self.trial,
            "created": self.created,
            "updated": self.updated,
            "moves": self.moves,
        }

    def write_journal(self) -> None:
        if self.status == "discarded":  # a discarded game never writes its journal again
            return
        path = self.journal_path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.journal(), ensure_ascii=False))
        os.replace(tmp, path)  # a crash leaves the old journal or the new one, never half of one

    def journal_move(self, role: str, text: str) -> None:
        self.moves.append({"role": role, "text": text})
        self.updated = time.time()
        self.write_journal()

    def replayed_move(self, role: str) -> str | None:
        """The next journalled move if it is this seat's (the game is deterministic given its moves,
        so replaying them rebuilds it exactly); else None and the game goes on live."""
        if self._replay and self._replay[0]["role"] == role:
            return self._replay.pop(0)["text"]
        self._replay.clear()  # a mismatch: play on live rather than feed moves to the wrong seat
        return None

    @classmethod
    def from_journal(cls, data: dict[str, Any], run_dir: Path, idle_timeout: float) -> PlaySession:
        raw = data["setup"]
        setup = PlaySetup(
            str(raw["task_id"]),
            dict(raw.get("options") or {}),
            int(raw["seed"]),
            str(raw["instance_id"]),
            {role: AgentSpec.from_dict(spec) for role, spec in raw["seats"].items()},
        )
        session = cls(
            str(data["sid"]),
            setup,
            dict(data["task_options"]),
            dict(data["instance"]),
            int(data["trial"]),
            run_dir,
            idle_timeout,
        )
        session.created = float(data.get("created") or time.time())
        session.updated = float(data.get("updated") or session.created)
        session.moves = [{"role": str(m["role"]), "text": str(m["text"])} for m in data.get("moves") or []]
        session._replay = list(session.moves)
        session.status = "paused"  # resumed when a browser opens it
        return session

    # --- state changes and waiting ------------------------------------------------------------
    def changed(self) -> None:
        self.version += 1
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait(self, since: int, timeout: float) -> int:
        """Return as soon as the state differs from version `since`, or after `timeout` seconds."""
        if self.version != since:
            return self.version
        event = self._event
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return self.version

    def remember_images(self, observation: Observation) -> None:
        for image in observation.all_images:  # the task's own earlier turns' images too
            self.images.setdefault(image.digest, image.png)

    # --- moves -----------------------------------------------------------------------------------
    def submit(self, role: str, move: int, text: str) -> None:
        seat = self._human_seat(role)
        if seat.future is None or seat.future.done():
            raise ConfigError("it is not your turn")
        if move != seat.moves:
            raise ConfigError("that move answered an earlier position; the page has been refreshed")
        if len(text) > MAX_ACTION_CHARS:
            raise ConfigError(f"a move can be at most {MAX_ACTION_CHARS} characters long")
        seat.future.set_result(text)

    def discard(self) -> None:
        """Drop the game: its episode stops (nothing is recorded) and its journal is never written again."""
        self.status = "discarded"
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()
        self.changed()

    def quit(self, role: str) -> None:
        """End the game for everyone: now if a person is to move, else when an agent's move is in."""
        self._human_seat(role)
        if self.status in ("finished", "error", "discarded"):
            return
        self.quit_requested = role
        for seat in self.seats.values():
            if seat.future is not None and not seat.future.done():
                seat.future.set_exception(AgentStopped(f"the {role} ended the episode"))
        self.changed()

    def _human_seat(self, role: str) -> Seat:
        seat = self.seats.get(role)
        if seat is None or not seat.human:
            raise ConfigError(f"'{role}' is not a human seat of this game")
        return seat

    # --- the episode -----------------------------------------------------------------------------
    def start(self, pool: ModelPool, on_finish: Any) -> None:
        self._runner = asyncio.get_running_loop().create_task(self._run(pool, on_finish))

    def _make_agent(self, pool: ModelPool) -> Any:
        def make(spec: AgentSpec, role: str, get_model: Any = None) -> Agent:
            seat = self.seats[role]
            if seat.human:
                return BrowserAgent(self, seat)
            # the runner's get_model records the partner's model calls in the game's calls file
            return WatchedAgent(self, role, build_agent(spec, get_model or pool.get))

        return make

    async def _run(self, pool: ModelPool, on_finish: Any) -> None:
        self.status = "running"
        self.changed()
        self.write_journal()
        try:
            from playbench.core.originals import resolve_options
            from playbench.core.registry import get_spec, make_task
            from playbench.runner.protocol import apply_model_side

            # the originals folder's texts and data, as in any run (the options the game set win)
            cls = get_spec(self.setup.task_id).load_class()
            self.task_options, _ = resolve_options(cls.originals, self.task_options)
            # a partner model gets the task's model side, as in any run (its task options are the game's)
            task = make_task(self.setup.task_id, **self.task_options)
            task.preflight()
            agents, _, _ = apply_model_side(task, self.setup.seats, set(self.task_options))
            job = EpisodeJob(
                task_id=self.setup.task_id,
                task_options=self.task_options,
                instance=self.instance,
                trial=self.trial,
                seed=self.setup.seed,
                agents=agents,
            )
            output = await run_episode(job, pool, save_images=True, make_agent=self._make_agent(pool))
            on_finish(self, output)
            self.journal_path.unlink(missing_ok=True)  # recorded: nothing left to resume
            self.record = output.record
            self.status = "finished"
        except Exception as exc:  # the game must end with a message, whatever went wrong
            self.error = f"{type(exc).__name__}: {exc}"
            self.status = "error"
            print(f"playbench serve: game {self.sid} failed: {self.error}", file=sys.stderr)
        finally:
            self.turn_role = None
            self.changed()
