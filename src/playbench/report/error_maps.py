"""Error maps: where in an episode the agent first left every optimal path, and how far from the goal
it was at every turn.

Computed at report time, never while playing: a recorded episode's actions are replayed through a
fresh task, rebuilt from the run directory as `playbench.results.replay` rebuilds it (config.json's
run configuration planned again; the job with the record's key; the episode seed the runner set), and
the task's `progress()` hook (`core/task.py`) is asked after reset and after every turn. Any task that
implements the hook gets error maps; a task without it gets none, at no cost (the class is checked
before anything is built). Reading a run never changes it: nothing is cached on disk, only in memory.

Definitions (unit-cost moves; `d` is the oracle's distance to the goal, `Progress.distance`):
- a turn **moved** when it changed the game state: the task's `state_digest()` differs before and after
  (a task without `state()`: the turn was valid and changed the distance or the fraction). Invalid and
  unparseable turns never move; a judge's answers and other turns after the play never move.
- a moving turn **departs** (left every optimal path) when it did not bring `d` down by exactly the
  number of unit moves it made: `d_after != d_before - k`, with `k` the step's `moves` when its info
  reports one (iVISPAR's parser=paper repeats a move), else 1. `first_departure` is the first such turn
  (its turn and the task's step), None if there is none. A turn that did not move (an invalid or
  unparseable action, a no-op) is a wasted step but never a departure: the agent is still where an
  optimal path passes.
- **moves taken**: the task's step count at the end, plus `k - 1` for every step of `k > 1` unit moves.
- **wasted steps** = moves taken - (d at the start - d at the end): 0 for an optimal episode; a detour
  (one move off the path and one back) costs 2; an invalid action costs 1.
- for a task with only a fraction (`Progress.fraction`), the curve and the final fraction; no departure
  or waste is defined.

A replay that disagrees with the record (a turn's validity differs, the seat to move differs, the
task ends early) keeps going where it can and says so in `warnings`, naming the turn; such an episode
is shown but left out of the aggregates (`report/error_summary.py`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.judge import JUDGE_ROLE
from playbench.core.task import Task, derive_seed
from playbench.core.types import Progress
from playbench.runner.reader import RunReader, key_filename, record_key, record_sort_key, resolve_inside

# Episodes replayed per run and task for the report (the first ones in instance and trial order); the
# rest are counted as `skipped` and said in report.md. Measured on one core: an iVISPAR geom-puzzle
# episode replays in about 2 ms (median; 6 ms mean for 20-step random play), a 4x4 tile-puzzle episode
# in 15 ms median, 0.35 s mean and up to 4 s for random play far from the goal (each state's exact
# distance is an IDA* search), so the cap bounds a report at a few minutes.
MAX_EPISODES = 500
MEMO_SIZE = 20_000  # episode maps kept in memory (per process) so report.md, the JSON and plots share them
NO_MOVE = ("invalid", "unparseable")


@dataclass
class Point:
    """The state after one turn (turn 0: after reset)."""

    turn: int
    step: int | None  # the task's step count after the turn
    role: str | None
    distance: int | None
    fraction: float | None
    validity: str | None  # as replayed (None at the start)
    moved: bool = False
    departure: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class EpisodeMap:
    """One episode's error map; see the module docstring for the definitions."""

    task: str
    instance_id: str
    trial: int
    points: list[Point] = field(default_factory=list)
    first_departure: dict[str, Any] | None = None  # {"turn", "step"}
    wasted_steps: int | None = None
    moves_taken: int = 0
    complete: bool = False  # every recorded turn was replayed
    warnings: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        """Replayed in full and in agreement with the record (what the aggregates count)."""
        return self.complete and not self.warnings and bool(self.points)

    @property
    def has_distance(self) -> bool:
        return bool(self.points) and self.points[0].distance is not None

    @property
    def start_distance(self) -> int | None:
        return self.points[0].distance if self.points else None

    @property
    def final_distance(self) -> int | None:
        return self.points[-1].distance if self.points else None

    @property
    def final_fraction(self) -> float | None:
        return self.points[-1].fraction if self.points else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "instance_id": self.instance_id,
            "trial": self.trial,
            "start_distance": self.start_distance,
            "final_distance": self.final_distance,
            "final_fraction": self.final_fraction,
            "first_departure": self.first_departure,
            "wasted_steps": self.wasted_steps,
            "moves_taken": self.moves_taken,
            "complete": self.complete,
            "warnings": list(self.warnings),
            "points": [p.to_dict() for p in self.points],
        }


# --- which tasks, and their jobs ---------------------------------------------------------------
@lru_cache(maxsize=256)
def has_progress(task_id: str) -> bool:
    """Whether `task_id`'s class implements `progress()` (an unknown task: no)."""
    from playbench.core.registry import get_spec

    try:
        cls = get_spec(task_id).load_class()
    except Exception:
        return False
    return cls.progress is not Task.progress


def _config_text(config: dict[str, Any] | None) -> str | None:
    run = config.get("run") if isinstance(config, dict) else None
    return json.dumps(run, sort_keys=True, default=str) if isinstance(run, dict) else None


@lru_cache(maxsize=32)
def _planned(config_text: str, task_id: str) -> tuple[dict[str, Any], str | None]:
    """The run's jobs of `task_id` by instance id (trial 0), or why they cannot be planned again."""
    from playbench.runner.run import RunConfig, plan

    try:
        run_config = RunConfig.from_dict(json.loads(config_text))
        run_config.tasks = [task_id]
        run_config.trials = 1
        jobs, _ = plan(run_config)
    except Exception as exc:  # the run's configuration no longer plans on this machine
        message = str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
        return {}, f"{task_id}: the run's configuration cannot be planned again ({message})"
    return {job.instance_id: job for job in jobs}, None


def job_for(config: dict[str, Any] | None, record: dict[str, Any]) -> tuple[Any, str | None]:
    """The episode job of `record` as its run planned it, or (None, why not)."""
    text = _config_text(config)
    if text is None:
        return None, "the run has no readable config.json, so its episodes cannot be replayed"
    jobs, problem = _planned(text, str(record["task"]))
    if problem:
        return None, problem
    job = jobs.get(str(record["instance_id"]))
    if job is None:
        return None, f"the run's configuration no longer plans {record_key(record)}"
    return dataclasses.replace(job, trial=int(record["trial"])), None


# --- one episode -------------------------------------------------------------------------------
def _digest(task: Task) -> str | None:
    try:
        return task.state_digest()
    except Exception:  # no state() (ConfigError), or one that cannot be digested: judged by progress
        return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def replay_episode(
    config: dict[str, Any] | None, record: dict[str, Any], turns: list[dict[str, Any]]
) -> EpisodeMap | None:
    """The error map of one recorded episode (`turns`: its trajectory lines), or None when its task
    defines no progress. A replay that cannot start or go on is a map with a warning, never an error."""
    task_id = str(record.get("task"))
    if not has_progress(task_id):
        return None
    out = EpisodeMap(task_id, str(record.get("instance_id")), int(record.get("trial") or 0))
    job, problem = job_for(config, record)
    if job is None:
        out.warnings.append(str(problem))
        return out
    from playbench.core.registry import make_task

    try:
        task = make_task(job.task_id, **job.task_options)
        task.episode_seed = derive_seed(job.seed, job.trial)
        task.reset(task.load_instance(job.instance))
        first = task.progress()
    except Exception as exc:
        out.warnings.append(f"the episode could not be set up again: {type(exc).__name__}: {exc}")
        return out
    if first is None:  # this configuration of the task defines none
        return None
    _walk(task, first, turns, out)
    return out


def _walk(task: Task, first: Progress, turns: list[dict[str, Any]], out: EpisodeMap) -> None:
    steps0 = _int(getattr(task, "steps", None))
    out.points.append(Point(0, steps0 or 0, None, first.distance, first.fraction, None))
    digest = _digest(task)
    extra_moves = 0
    last_step = steps0 or 0
    played = [t for t in turns if "role" in t]  # a crash's traceback line is not a turn
    for index, line in enumerate(played, 1):
        turn = _int(line.get("turn")) or index
        action = line.get("action")
        if not isinstance(action, str):
            out.warnings.append(f"turn {turn}: no action on record; the replay stops there")
            return
        if task.done:
            out.warnings.append(
                f"turn {turn}: the replayed episode had already ended; the replay stops there"
            )
            return
        role = task.current_role()
        if line.get("role") and line.get("role") != role:
            out.warnings.append(
                f"turn {turn}: the record's seat is {line.get('role')}, the replay's {role}; the replay stops there"
            )
            return
        judging = role == JUDGE_ROLE
        try:
            result = task.step(action)
            progress = task.progress() or Progress()
        except Exception as exc:
            out.warnings.append(f"turn {turn}: the replay failed: {type(exc).__name__}: {exc}")
            return
        validity = str(result.validity)
        recorded = line.get("validity")
        if recorded is not None and recorded != validity:
            out.warnings.append(f"turn {turn}: replayed as {validity}, recorded as {recorded}")
        before = out.points[-1]
        new_digest = _digest(task)
        if judging or validity in NO_MOVE:
            moved = False
        elif digest is not None and new_digest is not None:
            moved = new_digest != digest
        else:
            moved = (progress.distance, progress.fraction) != (before.distance, before.fraction)
        digest = new_digest
        k = _int(result.info.get("moves")) if isinstance(result.info, dict) else None
        k = k if k is not None and k >= 1 else 1
        step = _int(result.info.get("step")) if isinstance(result.info, dict) else None
        if step is None:
            step = last_step + (0 if judging else 1)
        if moved and k > 1 and step > last_step:
            extra_moves += k - 1
        last_step = step
        departs = (
            moved
            and before.distance is not None
            and progress.distance is not None
            and progress.distance != before.distance - k
        )
        out.points.append(
            Point(turn, step, role, progress.distance, progress.fraction, validity, moved, departs)
        )
        if departs and out.first_departure is None:
            out.first_departure = {"turn": turn, "step": step}
    out.complete = True
    out.moves_taken = last_step + extra_moves
    d0, d1 = out.points[0].distance, out.points[-1].distance
    if d0 is not None and d1 is not None:
        out.wasted_steps = out.moves_taken - (d0 - d1)


# --- runs --------------------------------------------------------------------------------------
_memo: OrderedDict[tuple[Any, ...], EpisodeMap | None] = OrderedDict()


def _memo_key(run: dict[str, Any], record: dict[str, Any]) -> tuple[Any, ...] | None:
    base = Path(str(run.get("path")))
    rel = record.get("trajectory")
    rel = rel if isinstance(rel, str) else f"trajectories/{key_filename(record_key(record))}.jsonl"
    path = resolve_inside(base, rel)
    if path is None:
        return None
    stat = path.stat()
    text = _config_text(run.get("config")) or ""
    return (
        str(base.resolve()),
        record_key(record),
        stat.st_mtime_ns,
        stat.st_size,
        hashlib.sha1(text.encode()).hexdigest(),
    )


def run_episode_map(run: dict[str, Any], record: dict[str, Any]) -> EpisodeMap | None:
    """`replay_episode` of one record of a loaded run (`report.tables.load_run`), reading its trajectory;
    remembered in memory while the files stay the same."""
    if not has_progress(str(record.get("task"))):
        return None
    key = _memo_key(run, record)
    if key is not None and key in _memo:
        _memo.move_to_end(key)
        return _memo[key]
    turns, warnings = RunReader(run["path"]).trajectory(record)
    result = replay_episode(run.get("config"), record, turns)
    if result is not None:
        result.warnings = [*warnings, *result.warnings]
    if key is not None:
        _memo[key] = result
        if len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return result


@dataclass
class Group:
    """The error maps of one run's task, agent and model (a summary.json entry's episodes)."""

    run: str
    task: str
    agent: str
    model: str | None
    records: list[dict[str, Any]]  # the scored records replayed, in the order of `maps`
    maps: list[EpisodeMap]
    skipped: int = 0  # scored episodes over MAX_EPISODES, not replayed
    errored: int = 0  # episodes that ended with an error: missing, not failed
    modality: str = ""  # the task's `modality` option, else its id (pairs for modality gaps)
    entry_point: str = ""

    @property
    def label(self) -> str:
        model = f" · {self.model}" if self.model else ""
        return f"{self.task} · {self.agent}{model} ({self.run})"


def run_groups(runs: list[dict[str, Any]], limit: int = MAX_EPISODES) -> list[Group]:
    """Every (run, task, agent, model) whose task defines progress, with its episodes' error maps
    (scored episodes only, the first `limit` in instance and trial order)."""
    from playbench.core.registry import get_spec

    out: list[Group] = []
    for run in runs:
        by_group: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
        for record in run.get("records") or []:
            if has_progress(str(record.get("task"))):
                key = (str(record["task"]), str(record.get("agent")), record.get("model"))
                by_group.setdefault(key, []).append(record)
        resolved = (run.get("config") or {}).get("task_options_resolved") or {}
        for (task, agent, model), records in sorted(
            by_group.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")
        ):
            scored = sorted((r for r in records if not r.get("error")), key=record_sort_key)
            chosen = scored[:limit]
            maps, kept = [], []
            for record in chosen:
                m = run_episode_map(run, record)
                if m is not None:
                    maps.append(m)
                    kept.append(record)
            if not maps:
                continue
            options = resolved.get(task) if isinstance(resolved.get(task), dict) else {}
            entry, modality = task, None
            try:
                spec = get_spec(task)
                entry = spec.entry_point
                value = spec.load_class().Config(**{**spec.options, **options}).model_dump().get("modality")
                modality = value if isinstance(value, str) else None
            except Exception:  # options this version no longer takes: the task id names the modality
                pass
            out.append(
                Group(
                    run=str(run.get("name")),
                    task=task,
                    agent=agent,
                    model=model,
                    records=kept,
                    maps=maps,
                    skipped=len(scored) - len(chosen),
                    errored=len(records) - len(scored),
                    modality=modality or task,
                    entry_point=entry,
                )
            )
    return out
