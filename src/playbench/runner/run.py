"""A run: plan the episodes, skip the finished ones, execute the rest, write the summary."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import playbench
from playbench.agents import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.originals import resolve_options
from playbench.core.registry import TaskSpec, resolve
from playbench.report.summary import summarize
from playbench.runner.episode import EpisodeJob, EpisodeOutput
from playbench.runner.executors import Executor, make_executor
from playbench.runner.fidelity import task_stamp
from playbench.runner.model_pool import ModelSettings
from playbench.runner.protocol import apply_model_side
from playbench.runner.reader import record_key
from playbench.runner.store import RunStore, WriteBehind

# What must match for a directory to be resumed: changing any of these would mix two experiments.
IDENTITY_FIELDS = ("agents", "seed", "task_options")


@dataclass
class RunConfig:
    tasks: list[str]
    agents: dict[str, AgentSpec]  # role or "*" -> agent
    out: str
    episodes: int | None = None
    seed: int = 0
    trials: int = 1
    concurrency: int = 1
    executor: str = "local"
    executor_options: dict[str, Any] = field(default_factory=dict)  # e.g. {"address": "ray://..."}
    task_options: dict[str, Any] = field(default_factory=dict)  # "key" or "task/id:key" -> value
    models: ModelSettings = field(default_factory=ModelSettings)
    save_images: bool = True
    save_calls: bool = True  # every model call's request and response beside the trajectory
    retry_errors: bool = True  # an errored episode runs again on resume; its last record wins
    instance_ids: list[str] | None = None  # play only these instances of the set
    preset: str | None = None  # the paper preset this run follows (`playbench reproduce`)
    max_cost: float | None = None  # USD this command may spend (`--max-cost`, runner/cost_cap.py)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["agents"] = {role: spec.to_dict() for role, spec in self.agents.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The configuration a run directory's config.json holds under "run" (unknown keys ignored)."""
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values["agents"] = {
            role: AgentSpec.from_dict(spec) for role, spec in (data.get("agents") or {}).items()
        }
        settings = data.get("models") or {}
        values["models"] = ModelSettings(
            **{k: v for k, v in settings.items() if k in ModelSettings.__dataclass_fields__}
        )
        return cls(**values)


def options_for_tasks(specs: list[TaskSpec], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Route `--set` values: `key=v` goes to every task that has the option, `task/id:key=v` to one."""
    routed: dict[str, dict[str, Any]] = {s.id: dict(s.options) for s in specs}
    classes = {s.id: s.load_class() for s in specs}
    for raw_key, value in options.items():
        if ":" in raw_key:
            task_id, _, key = raw_key.partition(":")
            if task_id not in routed:
                raise ConfigError(f"--set {raw_key}: task '{task_id}' is not part of this run")
            routed[task_id][key] = value
            next(s for s in specs if s.id == task_id).check_overrides({key: value})
            continue
        takers = [tid for tid, cls in classes.items() if raw_key in cls.Config.model_fields]
        if not takers:
            accepted = sorted({f for cls in classes.values() for f in cls.Config.model_fields})
            raise ConfigError(
                f"--set {raw_key}: no selected task has this option (accepted: {', '.join(accepted) or 'none'})"
            )
        for tid in takers:
            next(s for s in specs if s.id == tid).check_overrides({raw_key: value})
            routed[tid][raw_key] = value
    return routed


@dataclass
class RunPlan:
    """The episodes of a run, each task's options, and each task's model side (config.json's record)."""

    jobs: list[EpisodeJob]
    routed: dict[str, dict[str, Any]]
    model_side: dict[str, Any] = field(default_factory=dict)
    # per task: texts / data / model side (`runner/fidelity.py`)
    fidelity: dict[str, dict[str, str]] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)  # to print once before the run (texts: ours, ...)


def plan(config: RunConfig) -> tuple[list[EpisodeJob], dict[str, dict[str, Any]]]:
    """The episodes to play and each task's options (see `plan_run`)."""
    p = plan_run(config)
    return p.jobs, p.routed


def _user_keys(task_id: str, options: dict[str, Any]) -> set[str]:
    """The task options the user set for `task_id` (`key` or `task/id:key`)."""
    keys = set()
    for raw in options:
        target, sep, key = raw.partition(":")
        if not sep:
            keys.add(raw)
        elif target == task_id:
            keys.add(key)
    return keys


def plan_run(config: RunConfig) -> RunPlan:
    if config.trials < 1:
        raise ConfigError(f"--trials must be at least 1 (got {config.trials})")
    if config.episodes is not None and config.episodes < 1:
        raise ConfigError(f"--episodes must be at least 1 (got {config.episodes})")
    if config.concurrency > 1 and any(a.name == "human" for a in config.agents.values()):
        raise ConfigError("the human agent plays one episode at a time: use --concurrency 1")
    specs = resolve(config.tasks)
    routed = options_for_tasks(specs, config.task_options)
    jobs: list[EpisodeJob] = []
    model_side: dict[str, Any] = {}
    fidelity: dict[str, dict[str, str]] = {}
    notices: list[str] = []
    for spec in specs:
        cls = spec.load_class()
        # the authors' clone in the originals folder: texts=original and data paths where the user set none
        routed[spec.id], said = resolve_options(
            cls.originals, routed[spec.id], _user_keys(spec.id, config.task_options)
        )
        notices += [n for n in said if n not in notices]
        task = cls(**routed[spec.id])
        task.preflight()
        uses_oracle = any(a.name == "oracle" for a in config.agents.values())
        if uses_oracle and not type(task).has_oracle():
            raise ConfigError(f"task {spec.id} has no oracle, so the 'oracle' agent cannot play it")
        # the original's model-side settings for every model-driven seat; a family rule's task
        # options (a frame size for some models) apply where the user set none
        agents, implied, record = apply_model_side(
            task, config.agents, _user_keys(spec.id, config.task_options)
        )
        if implied:
            spec.check_overrides(implied)
            routed[spec.id].update(implied)
            task = spec.load_class()(**routed[spec.id])
        if record:
            model_side[spec.id] = record
        fidelity[spec.id] = task_stamp(task, record)
        instances = task.instances(config.episodes, config.seed)
        if config.instance_ids is not None:
            wanted = set(config.instance_ids)
            instances = [i for i in instances if i.id in wanted]
            missing = wanted - {i.id for i in instances}
            if missing:
                raise ConfigError(
                    f"instance(s) {', '.join(sorted(missing))} not in {spec.id}'s set for seed {config.seed}"
                )
        for instance in instances:
            data = instance.model_dump(mode="json")
            for trial in range(config.trials):
                jobs.append(
                    EpisodeJob(spec.id, routed[spec.id], data, trial, config.seed, agents, config.save_calls)
                )
    return RunPlan(jobs, routed, model_side, fidelity, notices)


def git_revision() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(playbench.__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def refuse_foreign_config(out: str | Path) -> None:
    """A folder holding a config.json playbench did not write (another tool's, or a damaged one) is never
    written into: refused before anything (a lock file included) is created there."""
    path = Path(out) / "config.json"
    if not path.exists():
        return
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        previous = None
    if not (isinstance(previous, dict) and "run" in previous and "playbench_version" in previous):
        raise ConfigError(f"{path} was not written by playbench; use another --out (or move that file away)")


def _check_identity(store: RunStore, config_dict: dict[str, Any]) -> None:
    previous = store.read_json("config.json")
    if not previous or not store.records():
        return
    for name in IDENTITY_FIELDS:
        if previous.get("run", {}).get(name) != config_dict.get(name):
            raise ConfigError(
                f"{store.out} already holds episodes of a run with a different '{name}' "
                f"({previous.get('run', {}).get(name)!r} vs {config_dict.get(name)!r}); use another --out"
            )


async def execute(
    config: RunConfig,
    executor: Executor | None = None,
    on_progress: Callable[[EpisodeOutput, int, int], None] | None = None,
    argv: list[str] | None = None,
) -> dict[str, Any]:
    """Run every missing episode of `config` and return the summary (also written to summary.json)."""
    run_plan = plan_run(config)
    refuse_foreign_config(config.out)
    store = RunStore(config.out)  # refuses at once if another process writes this directory
    try:
        return await _execute_locked(config, store, run_plan, executor, on_progress, argv)
    finally:
        store.close()


async def _execute_locked(
    config: RunConfig,
    store: RunStore,
    run_plan: RunPlan,
    executor: Executor | None,
    on_progress: Callable[[EpisodeOutput, int, int], None] | None,
    argv: list[str] | None,
) -> dict[str, Any]:
    jobs, routed = run_plan.jobs, run_plan.routed
    config_dict = config.to_dict()
    _check_identity(store, config_dict)
    records, warnings = store.reader.records_with_warnings()
    for warning in warnings:  # a damaged line's episode runs again; say so rather than hide it
        print(f"playbench: warning: {warning}; its episode will run again", file=sys.stderr)
    done = {record_key(r) for r in records if not config.retry_errors or r.get("error") is None}
    todo = [job for job in jobs if job.key not in done]
    config_record = {
        "run": config_dict,
        "task_options_resolved": routed,
        # per task and seat: every model setting sent, its value and its source (paper / user /
        # provider default / playbench default / provider rule)
        "model_side": run_plan.model_side,
        # per task: texts (original@commit / ours), data (original@commit / ours / generated), model side
        "fidelity": run_plan.fidelity,
        "command": argv if argv is not None else sys.argv,
        "playbench_version": playbench.__version__,
        "git_revision": git_revision(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "written_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "planned_episodes": len(jobs),
        "skipped_finished": len(jobs) - len(todo),
    }
    store.write_json("config.json", config_record)  # the latest command's
    store.append_json_line("config_history.jsonl", config_record)  # every command that ran here
    cap = None
    if config.max_cost is not None:
        executor, cap = _capped_executor(config, executor, records)
    executor = executor or make_executor(config.executor, config.concurrency, **config.executor_options)
    finished = 0
    writer = WriteBehind(store)

    def on_result(output: EpisodeOutput) -> None:
        nonlocal finished
        writer.write(output)
        finished += 1
        if on_progress is not None:
            on_progress(output, finished, len(todo))

    try:
        try:
            await executor.run(todo, config.models, on_result, config.save_images, run_dir=store.out)
        finally:
            writer.drain()
    finally:
        planned = {job.key for job in jobs}
        records = [r for r in store.records() if record_key(r) in planned]
        summary = summarize(records, routed)
        summary["planned"] = len(jobs)
        summary["run_this_time"] = finished
        if cap is not None:
            summary["cost_cap"] = cap.to_dict()
        models_used = getattr(executor, "models_used", None)
        if models_used:  # per model spec: provider, transport, budgets (never a key)
            summary["models"] = models_used
        store.write_json("summary.json", summary)
    return summary


def _capped_executor(
    config: RunConfig, executor: Executor | None, records: list[dict[str, Any]]
) -> tuple[Executor, Any]:
    """The local executor under `config.max_cost` (a sweep's shared one, or a new one), its cap filled
    with this run's estimates."""
    from playbench.runner.cost_cap import CostCap, prepare
    from playbench.runner.executors import LocalExecutor

    if config.max_cost is None or not config.max_cost > 0:
        raise ConfigError(f"--max-cost must be a positive amount of USD (got {config.max_cost!r})")
    if executor is None:
        if config.executor != "local":
            raise ConfigError(f"--max-cost needs the local executor (got --executor {config.executor})")
        executor = LocalExecutor(config.concurrency, cost_cap=CostCap(config.max_cost))
    cap = getattr(executor, "cost_cap", None)
    if cap is None:
        raise ConfigError(f"--max-cost needs the local executor (got {getattr(executor, 'name', executor)})")
    executor.cost_scope = str(config.out)  # type: ignore[attr-defined]
    prepare(cap, config, records)
    return executor, cap


async def execute_many(
    configs: list[RunConfig],
    on_progress: list[Callable[[EpisodeOutput, int, int], None] | None] | None = None,
    argv: list[str] | None = None,
    shared_concurrency: int | None = None,
    cost_cap: Any = None,
) -> list[dict[str, Any]]:
    """Run several configurations at once (a sweep), each into its own directory.

    With the local executor all runs share one ModelPool whose per-provider budget
    (`ModelSettings.concurrency` requests in flight) covers every model of that provider, and with
    `shared_concurrency` at most that many episodes are in flight over all the runs together (a
    sweep file's cells); without it each run keeps its own `concurrency`.
    Other executors run the configurations one after another.
    """
    if not configs:
        return []
    callbacks = on_progress or [None] * len(configs)
    if any(c.executor != "local" for c in configs):
        if any(c.max_cost is not None for c in configs):
            raise ConfigError("--max-cost needs the local executor")
        return [await execute(c, on_progress=cb, argv=argv) for c, cb in zip(configs, callbacks, strict=True)]
    from playbench.runner.executors import LocalExecutor
    from playbench.runner.model_pool import ModelPool

    cap = cost_cap  # one budget over every cell (and, passed in, over a whole command's runs)
    if cap is None and configs[0].max_cost is not None:
        from playbench.runner.cost_cap import CostCap

        cap = CostCap(configs[0].max_cost)
    pool = ModelPool(configs[0].models, share_provider_budget=True, cost_cap=cap)
    gate = asyncio.Semaphore(shared_concurrency) if shared_concurrency else None
    try:
        return list(
            await asyncio.gather(
                *(
                    execute(
                        c,
                        executor=LocalExecutor(c.concurrency, pool=pool, gate=gate, cost_cap=cap),
                        on_progress=cb,
                        argv=argv,
                    )
                    for c, cb in zip(configs, callbacks, strict=True)
                )
            )
        )
    finally:
        await pool.aclose()
