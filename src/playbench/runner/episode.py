"""One episode: the only loop in playbench. Jobs and outputs are plain data so any executor can carry them."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from playbench.agents import Agent, AgentSpec, AgentStopped, build_agent
from playbench.core.errors import PlaybenchError
from playbench.core.records import EpisodeRecord, StepRecord
from playbench.core.registry import make_task
from playbench.core.task import EpisodeContext, Task, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import Usage
from playbench.models.base import ModelError
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
        return asdict(self)


@dataclass
class EpisodeOutput:
    record: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)  # file name inside the episode folder -> PNG


def _oracle_for(task: Task, role: str) -> Callable[[], str | None]:
    return lambda: task.oracle_action(role)


AgentFactory = Callable[[AgentSpec, str], Agent | None]


async def run_episode(
    job: EpisodeJob, models: ModelPool, save_images: bool = True, make_agent: AgentFactory | None = None
) -> EpisodeOutput:
    """Play one episode. `make_agent(spec, role)` may supply an agent for a seat (the web app's
    browser-backed human); returning None builds the agent from its spec as usual."""
    started = time.perf_counter()
    stem = key_filename(job.key)
    steps: list[dict[str, Any]] = []
    images: dict[str, bytes] = {}
    usage = Usage()
    usage_by_role: dict[str, Usage] = {}
    error: str | None = None
    stopped = False
    task: Task | None = None
    role_labels: dict[str, str] = {}
    instructed: set[str] = set()
    agents: dict[str, Agent] = {}
    try:
        task = make_task(job.task_id, **job.task_options)
        task.reset(task.load_instance(job.instance))
        for role in task.roles:
            spec = job.agent_for(role)
            role_labels[role] = spec.label
            agent = make_agent(spec, role) if make_agent is not None else None
            if agent is None:
                agent = build_agent(spec, models.get)
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
            try:
                action = await agents[role].act(obs)
            except AgentStopped:
                stopped = True
                break
            usage.add(action.usage)
            usage_by_role.setdefault(role, Usage()).add(action.usage)
            result = task.step(action.text)
            image_refs = []
            for image in obs.images:
                name = f"{image.digest}.png"
                if save_images:
                    images.setdefault(name, image.png)
                image_refs.append({"file": f"{stem}/{name}", "label": image.label})
            first_turn = role not in instructed
            instructed.add(role)
            steps.append(
                StepRecord(
                    step=len(steps) + 1,
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
                    info=_jsonable(result.info),
                    usage=action.usage.to_dict(),
                    instructions=obs.instructions if first_turn else None,
                ).to_dict()
            )
    except ModelError as exc:
        error = str(exc)
        usage.retries += max(0, getattr(exc, "attempts", 0) - 1)  # the failed call's retries count too
    except PlaybenchError as exc:
        error = str(exc)
    except Exception as exc:  # a bug in a task or agent must not take the whole run down
        error = f"{type(exc).__name__}: {exc}"
        steps.append({"step": len(steps) + 1, "error": error, "traceback": traceback.format_exc()})
    for agent in agents.values():
        try:
            await agent.close()
        except Exception as exc:  # cleaning up must not lose the episode
            error = error or f"closing the agent failed: {type(exc).__name__}: {exc}"

    success, n_steps, metrics, optimal = False, len(steps), {}, job.instance.get("optimal_steps")
    termination: str = Termination.UNFINISHED
    if task is not None:
        try:
            outcome = task.outcome()
            success, n_steps, metrics = outcome.success, outcome.steps, outcome.metrics
            termination = outcome.termination or termination
        except Exception as exc:
            error = error or f"outcome failed: {type(exc).__name__}: {exc}"
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
        optimal_steps=optimal,
        metrics=metrics,
        termination=str(termination),
        error=error,
        usage=usage.to_dict(),
        usage_by_role={role: u.to_dict() for role, u in usage_by_role.items()},
        duration_s=round(time.perf_counter() - started, 4),
        trajectory=f"trajectories/{stem}.jsonl",
    ).to_dict()
    return EpisodeOutput(record=record, steps=steps, images=images)


def _jsonable(info: dict[str, Any]) -> dict[str, Any]:
    """A step's `info` as JSON data: values JSON cannot hold are written as their text."""
    try:
        json.dumps(info)
        return info
    except (TypeError, ValueError):
        return json.loads(json.dumps(info, default=str))
