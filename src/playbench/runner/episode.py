"""One episode: the only loop in playbench. Jobs and outputs are plain data so any executor can carry them."""

from __future__ import annotations

import inspect
import json
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from playbench.agents import Agent, AgentSpec, AgentStopped, build_agent
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.registry import make_task
from playbench.core.task import EpisodeContext, Task, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import ImagePart, TextPart, Usage
from playbench.models.base import ChatModel, ModelError
from playbench.runner.calls import CALLS_SUFFIX, CallRecorder
from playbench.runner.model_pool import ModelPool
from playbench.runner.reader import EpisodeKey, key_filename

# A task's own cap should end every episode long before this; it only guards against a task bug.
HARD_STEP_LIMIT = 10_000


@dataclass
class EpisodeJob:
    task_id: str
    task_options: dict[str, Any]
    instance: dict[str, Any]
    trial: int
    seed: int
    agents: dict[str, dict[str, Any]]  # role (or "*" for every role) -> AgentSpec as a dict
    record_calls: bool = True  # write every model call beside the trajectory (off: --no-calls)

    @property
    def instance_id(self) -> str:
        return str(self.instance["id"])

    @property
    def key(self) -> EpisodeKey:
        return (self.task_id, self.instance_id, self.trial)

    def agent_for(self, role: str) -> AgentSpec:
        data = self.agents.get(role) or self.agents.get("*")
        if data is None:
            raise PlaybenchError(f"no agent was given for role '{role}' of {self.task_id}")
        return AgentSpec.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """The job as keyword arguments, for a worker (which receives a copy: its fields are plain
        data, shared, not deep-copied here, which took most of a large run's dispatch time)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class EpisodeOutput:
    """A played episode: its record, trajectory, images and calls, as the run directory stores them.

    The trajectory is given either as data (`steps=`: a test's, a hand-made episode's) or, from
    `run_episode`, as its JSONL lines (`step_lines=`), each encoded when its turn ended: a run's
    episodes that end together then have nothing left to encode (on one event loop that burst held
    every other episode), and lines, unlike dicts, give the garbage collector nothing to walk.
    `steps` and `step_lines` read either form (the other decoded or encoded when first asked for).

    `files_written`: the episode's own files (trajectory, calls, images) are already in the run
    directory, written by the worker process that played it; such an output carries only its record
    (`record_only`), and the store appends its line."""

    __slots__ = ("record", "images", "calls", "files_written", "_steps", "_step_lines")

    def __init__(
        self,
        record: dict[str, Any],
        steps: list[dict[str, Any]] | None = None,
        images: dict[str, bytes] | None = None,
        calls: list[str] | None = None,
        step_lines: list[str] | None = None,
        files_written: bool = False,
    ) -> None:
        if steps is not None and step_lines is not None:
            raise ValueError("an episode's trajectory is given as steps or as step_lines, not both")
        self.record = record
        self.images = images if images is not None else {}  # file name inside the episode folder -> PNG
        self.calls = calls if calls is not None else []  # the calls file's lines, as JSON text
        self.files_written = files_written
        if steps is None and step_lines is None:
            step_lines = []
        self._steps, self._step_lines = steps, step_lines

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The trajectory's steps as data."""
        if self._steps is None:
            self._steps = [json.loads(line) for line in self._step_lines or []]
        return self._steps

    @property
    def step_lines(self) -> list[str]:
        """The trajectory file's lines, as JSON text."""
        if self._step_lines is None:
            self._step_lines = [json.dumps(step, ensure_ascii=False) for step in self._steps or []]
        return self._step_lines

    def record_only(self) -> EpisodeOutput:
        """This episode as sent once its files are written: the record alone."""
        return EpisodeOutput(self.record, files_written=True)

    def __getstate__(self) -> dict[str, Any]:  # to a worker's driver: the compact form only
        return {
            "record": self.record,
            "images": self.images,
            "calls": self.calls,
            "step_lines": self.step_lines,
            "files_written": self.files_written,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]


def _oracle_for(task: Task, role: str) -> Callable[[], str | None]:
    return lambda: task.oracle_action(role)


AgentFactory = Callable[..., Agent | None]


def _supplied_agent(
    make_agent: AgentFactory, spec: AgentSpec, role: str, get_model: Callable[[str], ChatModel]
) -> Agent | None:
    """`make_agent(spec, role, get_model)`, or `make_agent(spec, role)` for a factory that takes no
    `get_model` (whose models' calls then go unrecorded)."""
    try:
        takes_models = len(inspect.signature(make_agent).parameters) >= 3
    except (TypeError, ValueError):
        takes_models = False
    return make_agent(spec, role, get_model) if takes_models else make_agent(spec, role)


async def run_episode(
    job: EpisodeJob, models: ModelPool, save_images: bool = True, make_agent: AgentFactory | None = None
) -> EpisodeOutput:
    """Play one episode. `make_agent(spec, role[, get_model])` may supply an agent for a seat (the web
    app's browser-backed human); returning None builds the agent from its spec as usual. Every seat's
    models come through `get_model`, which records their calls (`runner/calls.py`)."""
    started = time.perf_counter()
    stem = key_filename(job.key)
    recorder = CallRecorder(stem, record=job.record_calls)
    steps: list[str] = []  # each turn's trajectory line, encoded as the turn ends (EpisodeOutput)
    turns = 0  # played turns (a crash's traceback line is not one)
    images: dict[str, bytes] = {}

    def refs(parts: list[Any]) -> list[dict[str, str]]:
        """The trajectory's references to the images among `parts`, each image kept once for saving."""
        out = []
        for image in (p for p in parts if isinstance(p, ImagePart)):
            name = f"{image.digest}.png"
            if save_images:
                images.setdefault(name, image.png)
            out.append({"file": f"{stem}/{name}", "label": image.label})
        return out

    usage = Usage()
    usage_by_role: dict[str, Usage] = {}
    error: str | None = None
    error_kind: str | None = None
    stopped = False
    task: Task | None = None
    role_labels: dict[str, str] = {}
    instructed: set[str] = set()
    agents: dict[str, Agent] = {}
    last_step: int | None = None  # the task's step count, carried over turns that do not report it
    try:
        task = make_task(job.task_id, **job.task_options)
        task.episode_seed = derive_seed(job.seed, job.trial)
        task.reset(task.load_instance(job.instance))
        for role in task.roles:
            spec = job.agent_for(role)
            role_labels[role] = spec.label
            get_model = recorder.getter(role, models.get)
            agent = _supplied_agent(make_agent, spec, role, get_model) if make_agent is not None else None
            if agent is None:
                agent = build_agent(spec, get_model)
            ctx = EpisodeContext(
                task_id=job.task_id,
                instance_id=job.instance_id,
                role=role,
                trial=job.trial,
                seed=derive_seed(job.seed, job.trial),
                oracle=_oracle_for(task, role),
            )
            await agent.reset(ctx)
            agents[role] = agent
        while not task.done:
            if len(steps) >= HARD_STEP_LIMIT:
                raise PlaybenchError(f"{job.task_id} did not end after {HARD_STEP_LIMIT} steps")
            role = task.current_role()
            obs = task.observe(role)
            recorder.turn = len(steps) + 1
            calls_before = len(recorder.calls)
            try:
                action = await agents[role].act(obs)
            except AgentStopped:
                stopped = True
                break
            usage.add(action.usage)
            usage_by_role.setdefault(role, Usage()).add(action.usage)
            result = task.step(action.text)

            image_refs = refs(obs.parts)
            # a task's own earlier turns (Observation.turns): what the model was sent before this turn's
            # message, each with its text and images
            earlier = None
            if obs.turns is not None:
                earlier = [
                    {
                        "role": t.role,
                        "text": "\n".join(p.text for p in t.parts if isinstance(p, TextPart)),
                        "images": refs(t.parts),
                    }
                    for t in obs.turns
                ]
            first_turn = role not in instructed
            instructed.add(role)
            task_step = result.info.get("step")
            if isinstance(task_step, int) and not isinstance(task_step, bool):
                last_step = task_step
            step = StepRecord(
                turn=len(steps) + 1,
                step=last_step,
                role=role,
                observation=obs.text,
                images=image_refs,
                feedback_before=obs.feedback,
                raw_output=action.raw,
                action=action.text,
                rationale=action.rationale,
                parsed=result.parsed,
                validity=str(result.validity),
                reason=result.reason,
                feedback=result.feedback,
                info=result.info,
                usage=action.usage.to_dict(),
                calls=len(recorder.calls) - calls_before,
                instructions=obs.instructions if first_turn else None,
                turns_before=earlier,
            ).to_dict()
            steps.append(_step_line(step))
            turns += 1
    except ModelError as exc:
        error, error_kind = str(exc), exc.kind
        usage.retries += max(0, getattr(exc, "attempts", 0) - 1)  # the failed call's retries count too
    except PlaybenchError as exc:
        error, error_kind = str(exc), "exception"
    except Exception as exc:  # a bug in a task or agent must not take the whole run down
        error, error_kind = f"{type(exc).__name__}: {exc}", "exception"
        crash = {"turn": len(steps) + 1, "error": error, "traceback": traceback.format_exc()}
        steps.append(json.dumps(crash, ensure_ascii=False))
    for agent in agents.values():
        try:
            await agent.close()
        except Exception as exc:  # cleaning up must not lose the episode
            if error is None:
                error, error_kind = f"closing the agent failed: {type(exc).__name__}: {exc}", "exception"

    success, n_steps, metrics, optimal = False, turns, {}, job.instance.get("optimal_steps")
    termination: str = Termination.UNFINISHED
    if task is not None:
        try:
            outcome = task.outcome()
            success, n_steps, metrics = outcome.success, outcome.steps, outcome.metrics
            termination = outcome.termination or termination
        except Exception as exc:
            if error is None:
                error, error_kind = f"outcome failed: {type(exc).__name__}: {exc}", "exception"
    if stopped:
        termination = Termination.AGENT_STOPPED
    if error is not None:
        success = False
        termination = Termination.ERROR
    agent_label = " / ".join(dict.fromkeys(role_labels.values())) or job.agent_for("*").label
    models_used = sorted({AgentSpec.from_dict(a).model for a in job.agents.values() if a.get("model")})
    record = EpisodeRecord(
        task=job.task_id,
        instance_id=job.instance_id,
        seed=job.seed,
        trial=job.trial,
        agent=agent_label,
        model=", ".join(models_used) or None,
        roles=role_labels,
        success=bool(success),
        steps=int(n_steps),
        turns=turns,
        optimal_steps=optimal,
        metrics=metrics,
        termination=str(termination),
        error=error,
        error_kind=error_kind if error is not None else None,
        truncated_replies=recorder.truncated_replies,
        usage=usage.to_dict(),
        usage_by_role={role: u.to_dict() for role, u in usage_by_role.items()},
        usage_by_model=recorder.usage_by_model(),
        usage_breakdown=recorder.usage_breakdown(),
        duration_s=round(time.perf_counter() - started, 4),
        trajectory=f"trajectories/{stem}.jsonl",
        calls=f"trajectories/{stem}{CALLS_SUFFIX}" if job.record_calls else None,
    ).to_dict()
    if save_images:
        for name, png in recorder.images.items():
            images.setdefault(name, png)
    return EpisodeOutput(record=record, images=images, calls=recorder.calls, step_lines=steps)


def _step_line(step: dict[str, Any]) -> str:
    """A step's trajectory line, encoded once; values in the task's `info` that JSON cannot hold are
    written as their text."""
    try:
        return json.dumps(step, ensure_ascii=False)
    except (TypeError, ValueError):
        step["info"] = json.loads(json.dumps(step["info"], default=str))
        return json.dumps(step, ensure_ascii=False)
