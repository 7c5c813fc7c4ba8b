"""One playbench task as an Inspect eval: its options checked, its episodes planned, its results kept.

`EvalSetup` is built once per Inspect task (from `-T` options) and shared by the solver and the
scorer. It plans with playbench's own `plan_run` (the same instances, seeds and task options as
`playbench run`), once per model: the task's model side (sampling, output cap, history, images, the
model-family rules) depends on the model's name, which only the eval's `--model` says. With
`out=DIR` every finished episode is also written to an ordinary playbench run directory.
"""

from __future__ import annotations

import datetime as dt
import platform
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import GenerateConfig

import playbench
from playbench.agents import AgentSpec, parse_agent
from playbench.agents.registry import BUILTIN_NAMES, get_agent_entry
from playbench.core.errors import ConfigError, PlaybenchError
from playbench.core.model_side import MODEL_SETTINGS
from playbench.core.registry import get_spec
from playbench.report.summary import summarize
from playbench.runner.episode import EpisodeJob, EpisodeOutput
from playbench.runner.reader import RunReader, record_key
from playbench.runner.run import RunConfig, RunPlan, git_revision, plan_run, refuse_foreign_config
from playbench.runner.store import RunStore

# The spec a model-driven agent is checked and planned with before the eval's model is known: the
# instances do not depend on it; the model side is planned again with the real model's spec.
PLACEHOLDER_SPEC = "inspect:model"
# Inspect's eval-wide generation settings (`inspect eval --temperature ...`) that are playbench model
# settings: the user's values, which win over the task's declaration as on playbench's command line.
GENERATE_SETTINGS = ("temperature", "top_p", "max_tokens", "seed", "reasoning_effort", "reasoning_tokens")
# Options of the Inspect task itself; every other `-T key=value` is a task option (`--set`).
EVAL_OPTIONS = ("task", "seed", "episodes", "trials", "agent", "agent_opts", "out")


class PlaybenchInspectError(PrerequisiteError):
    """A bad task id or option: Inspect prints its message without a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        Exception.__init__(self, message)


def cli_words(message: str) -> str:
    """playbench's messages name its own flags; in Inspect the same values are `-T` options."""
    for flag, option in (("--set ", "-T "), ("--episodes", "-T episodes"), ("--agent-opt", "-T agent_opts")):
        message = message.replace(flag, option)
    return message


def needs_model(agent: str) -> bool:
    base = agent.split(":", 1)[0]
    if base in BUILTIN_NAMES:
        return base == "llm"
    entry = get_agent_entry(base)
    return entry is not None and entry.needs_model


def generate_settings(config: GenerateConfig) -> dict[str, Any]:
    """The model settings an Inspect GenerateConfig sets (None: not set)."""
    return {name: getattr(config, name) for name in GENERATE_SETTINGS if getattr(config, name) is not None}


def check_same_run(out: str, seed: int, agent: str, task_options: dict[str, Any]) -> None:
    """A run directory holding episodes of another experiment (another seed, agent or task options) is
    refused, as `playbench run` refuses it: its summary would mix the two."""
    reader = RunReader(out)
    previous = (reader.json_with_warning("config.json")[0] or {}).get("run") or {}
    if not previous or not reader.records():
        return
    theirs = {
        "seed": previous.get("seed"),
        "agent": ((previous.get("agents") or {}).get("*") or {}).get("name"),
        "task_options": previous.get("task_options"),
    }
    ours = {"seed": seed, "agent": agent, "task_options": task_options}
    for name, value in ours.items():
        if theirs[name] != value:
            raise ConfigError(
                f"-T out={out} already holds episodes of a run with a different {name} "
                f"({theirs[name]!r} vs {value!r}); use another out"
            )


@dataclass
class EvalSetup:
    task_id: str
    seed: int = 0
    episodes: int | None = None
    agent: str = "llm"
    agent_opts: dict[str, Any] = field(default_factory=dict)
    task_options: dict[str, Any] = field(default_factory=dict)
    out: str | None = None
    base_plan: RunPlan | None = None
    _plans: dict[tuple[str, str], RunPlan] = field(default_factory=dict)
    _config_written: set[str] = field(default_factory=set)

    @classmethod
    def build(
        cls,
        task_id: str,
        seed: int = 0,
        episodes: int | None = None,
        agent: str = "llm",
        agent_opts: dict[str, Any] | None = None,
        out: str | None = None,
        task_options: dict[str, Any] | None = None,
    ) -> EvalSetup:
        """Check every option and plan the episodes; a PlaybenchInspectError naming the bad value."""
        try:
            if not isinstance(task_id, str):
                raise ConfigError(
                    f"-T task must be a playbench task id such as ivispar/sgp (got {task_id!r})"
                )
            get_spec(task_id)
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ConfigError(f"-T seed must be an integer (got {seed!r})")
            if episodes is not None and (isinstance(episodes, bool) or not isinstance(episodes, int)):
                raise ConfigError(f"-T episodes must be an integer >= 1 (got {episodes!r})")
            if not isinstance(agent, str) or agent.split(":", 1)[0] == "human":
                raise ConfigError(
                    f"-T agent={agent!r} cannot play inside Inspect (accepted: llm, random, oracle, "
                    "replay:FILE and the suites' agents)"
                )
            if agent_opts is not None and not isinstance(agent_opts, dict):
                raise ConfigError(
                    f"-T agent_opts must be a mapping such as {{history: 2}} (got {agent_opts!r})"
                )
            if out is not None:
                refuse_foreign_config(out)
                check_same_run(out, seed, agent, task_options or {})
            setup = cls(
                task_id,
                seed,
                episodes,
                agent,
                dict(agent_opts or {}),
                dict(task_options or {}),
                None if out is None else str(out),
            )
            setup.base_plan = plan_run(setup.run_config(setup.agent_spec(PLACEHOLDER_SPEC, {})))
        except PlaybenchError as exc:
            raise PlaybenchInspectError(f"playbench: {cli_words(str(exc))}") from None
        return setup

    # --- planning --------------------------------------------------------------------------------
    def agent_spec(self, model_spec: str, generate: dict[str, Any]) -> AgentSpec:
        """The agent of every seat: `-T agent`, with the eval's generation settings and `-T agent_opts`
        (which win) as its options when it is model-driven."""
        if not needs_model(self.agent):
            return parse_agent(self.agent, None, self.agent_opts)
        options = {**{k: v for k, v in generate.items() if k in MODEL_SETTINGS}, **self.agent_opts}
        return parse_agent(self.agent, model_spec, options)

    def run_config(self, agent: AgentSpec, out: str | None = None) -> RunConfig:
        return RunConfig(
            tasks=[self.task_id],
            agents={"*": agent},
            out=out or self.out or "inspect",
            episodes=self.episodes,
            seed=self.seed,
            task_options=self.task_options,
        )

    def plan_for(self, model_spec: str, generate: dict[str, Any]) -> RunPlan:
        """The run's plan for this model and these eval-wide settings (once each)."""
        key = (model_spec, repr(sorted(generate.items())))
        if key not in self._plans:
            try:
                self._plans[key] = plan_run(self.run_config(self.agent_spec(model_spec, generate)))
            except PlaybenchError as exc:
                raise PlaybenchInspectError(f"playbench: {cli_words(str(exc))}") from None
        return self._plans[key]

    def job(self, plan: RunPlan, instance_id: str, trial: int) -> EpisodeJob:
        """The episode of `instance_id` at `trial`: its seed is `derive_seed(seed, trial)` as in
        `playbench run --trials`."""
        for job in plan.jobs:
            if job.instance_id == instance_id:
                return replace(job, trial=trial)
        raise PlaybenchInspectError(f"playbench: instance {instance_id!r} is not in {self.task_id}'s plan")

    def instances(self) -> list[dict[str, Any]]:
        assert self.base_plan is not None
        return [job.instance for job in self.base_plan.jobs]

    # --- the run directory (-T out=DIR) ------------------------------------------------------------
    def write(self, output: EpisodeOutput, plan: RunPlan, model_spec: str, generate: dict[str, Any]) -> None:
        """One finished episode into the run directory, its config.json and summary.json brought up to
        date, so `playbench report DIR` reads it like any run."""
        assert self.out is not None
        with RunStore(self.out, wait=30.0) as store:
            if model_spec not in self._config_written:
                config = self.run_config(self.agent_spec(model_spec, generate), self.out)
                record = {
                    "run": config.to_dict(),
                    "task_options_resolved": plan.routed,
                    "model_side": plan.model_side,
                    "fidelity": plan.fidelity,
                    "command": sys.argv,
                    "harness": "inspect_ai",
                    "inspect_model": model_spec,
                    "playbench_version": playbench.__version__,
                    "git_revision": git_revision(),
                    "python": sys.version.split()[0],
                    "platform": platform.platform(),
                    "written_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                    "planned_episodes": len(plan.jobs),
                }
                store.write_json("config.json", record)
                store.append_json_line("config_history.jsonl", record)
                self._config_written.add(model_spec)
            store.write(output)
            planned = {job.instance_id for job in plan.jobs}
            records = [r for r in store.records() if record_key(r)[1] in planned]
            summary = summarize(records, plan.routed)
            summary["planned"] = len(plan.jobs)
            store.write_json("summary.json", summary)
