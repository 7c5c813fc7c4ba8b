"""Agents turn observations into actions. `build_agent` makes one from an AgentSpec."""

from __future__ import annotations

from collections.abc import Callable

from playbench.agents.base import Agent, AgentSpec, AgentStopped
from playbench.agents.human import HumanAgent
from playbench.agents.llm import LLM_OPTIONS, LLMAgent, read_model_options
from playbench.agents.registry import BUILTIN_NAMES, get_agent_entry, register_agent, registered_agents
from playbench.agents.simple import OracleAgent, RandomAgent, ReplayAgent
from playbench.core.errors import ConfigError
from playbench.models.base import ChatModel

AGENTS = {
    "random": "uniform over the legal actions the task offers (the papers' random baselines)",
    "oracle": "the task's optimal solver",
    "replay:FILE": 'actions from a JSONL file of {"instance_id": ..., "actions": [...]}',
    "human": "a person at the terminal",
    "llm": "a model (needs --model provider:name)",
}


def _accepted() -> str:
    return ", ".join([*AGENTS, *registered_agents()])


def parse_agent(name: str, model: str | None = None, options: dict | None = None) -> AgentSpec:
    """Validate an agent name and its options early, before any episode runs."""
    base = name.split(":", 1)[0]
    options = dict(options or {})
    entry = get_agent_entry(base) if base not in BUILTIN_NAMES else None
    if base not in BUILTIN_NAMES and entry is None:
        raise ConfigError(f"unknown agent '{name}' (accepted: {_accepted()})")
    if base == "replay" and ":" not in name:
        raise ConfigError("agent 'replay' needs a file: --agent replay:FILE.jsonl")
    needs_model = base == "llm" or (entry is not None and entry.needs_model)
    if needs_model and not model:
        raise ConfigError(f"agent '{base}' needs --model provider:model (e.g. openai:gpt-4o)")
    if not needs_model and model:
        raise ConfigError(f"--model is only used by model-driven agents, not by '{name}'")
    accepted = set(entry.options if entry is not None else ()) | (set(LLM_OPTIONS) if needs_model else set())
    if not accepted and options:
        raise ConfigError(f"agent options ({', '.join(options)}) are only accepted by model-driven agents")
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(
            f"agent '{base}' does not take option(s) {', '.join(unknown)} (accepted: {', '.join(sorted(accepted))})"
        )
    if needs_model:
        read_model_options(options)  # every model option's value checked before anything runs
    spec = AgentSpec(name=name, model=model, options=options)
    check = getattr(entry.load_class(), "check_options", None) if entry is not None else None
    if check is not None:
        check(spec)  # a suite agent's own validation of option values, before any episode runs
    if base == "replay":
        ReplayAgent(name.split(":", 1)[1])  # fail now on a missing or malformed file
    return spec


def build_agent(spec: AgentSpec, get_model: Callable[[str], ChatModel] | None = None) -> Agent:
    base, _, arg = spec.name.partition(":")
    if base == "random":
        return RandomAgent()
    if base == "oracle":
        return OracleAgent()
    if base == "replay":
        return ReplayAgent(arg)
    if base == "human":
        return HumanAgent()
    entry = None if base == "llm" else get_agent_entry(base)
    if base != "llm" and entry is None:
        raise ConfigError(f"unknown agent '{spec.name}' (accepted: {_accepted()})")
    if get_model is None or (spec.model is None and (entry is None or entry.needs_model)):
        raise ConfigError(f"agent '{base}' needs --model provider:model")
    if entry is None:
        captioner = spec.options.get("captioner")
        return LLMAgent(
            get_model(spec.model), spec.options, captioner=get_model(captioner) if captioner else None
        )
    return entry.load_class()(spec, get_model)


__all__ = [
    "AGENTS",
    "Agent",
    "AgentSpec",
    "AgentStopped",
    "build_agent",
    "parse_agent",
    "register_agent",
    "registered_agents",
]
