"""Agents turn observations into actions. `build_agent` makes one from an AgentSpec."""

from __future__ import annotations

from collections.abc import Callable

from playbench.agents.base import Agent, AgentSpec, AgentStopped
from playbench.agents.human import HumanAgent
from playbench.agents.llm import LLMAgent
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


def parse_agent(name: str, model: str | None = None, options: dict | None = None) -> AgentSpec:
    """Validate an agent name early, before any episode runs."""
    base = name.split(":", 1)[0]
    if base not in {"random", "oracle", "replay", "human", "llm"}:
        raise ConfigError(f"unknown agent '{name}' (accepted: {', '.join(AGENTS)})")
    if base == "replay" and ":" not in name:
        raise ConfigError("agent 'replay' needs a file: --agent replay:FILE.jsonl")
    if base == "llm" and not model:
        raise ConfigError("agent 'llm' needs --model provider:model (e.g. openai:gpt-4o)")
    if base != "llm" and model:
        raise ConfigError(f"--model is only used by the llm agent, not by '{name}'")
    if base != "llm" and options:
        raise ConfigError(f"agent options ({', '.join(options)}) are only accepted by the llm agent")
    spec = AgentSpec(name=name, model=model, options=dict(options or {}))
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
    if base == "llm":
        if get_model is None or spec.model is None:
            raise ConfigError("agent 'llm' needs --model provider:model")
        return LLMAgent(get_model(spec.model), spec.options)
    raise ConfigError(f"unknown agent '{spec.name}' (accepted: {', '.join(AGENTS)})")


__all__ = ["AGENTS", "Agent", "AgentSpec", "AgentStopped", "build_agent", "parse_agent"]
