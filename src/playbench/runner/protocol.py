"""The model side of the protocol, applied: each model-driven seat's effective settings for a task.

The task declares what its original sent (`Task.model_side`); the user's options win; a provider's
constraints come last (Anthropic's extended thinking takes no temperature but 1, OpenAI's reasoning
models no sampling settings). The result is the options each seat's agent is built with, the task
options a model-family rule implies, and the record config.json keeps: every setting, its value and
its source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from playbench.agents.base import AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.model_side import (
    FROM_PAPER,
    FROM_PROVIDER,
    FROM_PROVIDER_RULE,
    FROM_USER,
    MODEL_SETTINGS,
    EffectiveSetting,
    model_name,
    resolve_settings,
)
from playbench.core.task import Task


def _provider(spec: str) -> str:
    return spec.split(":", 1)[0].strip()


def _thinking(settings: Mapping[str, EffectiveSetting]) -> bool:
    effort = settings["reasoning_effort"].value
    return (effort is not None and effort != "none") or bool(settings["reasoning_tokens"].value)


def _drop(settings: dict[str, EffectiveSetting], name: str, why: str, spec: str) -> None:
    """A value the provider cannot take: the task's is dropped (and said so); the user's is an error."""
    current = settings[name]
    if current.source == FROM_USER:
        raise ConfigError(f"{spec}: {name}={current.value!r} cannot be sent: {why}")
    settings[name] = EffectiveSetting(
        None, FROM_PROVIDER_RULE, f"the paper's {current.value!r} dropped: {why}"
    )


def apply_provider_rules(spec: str, settings: dict[str, EffectiveSetting]) -> None:
    """Adjust settings to what the provider of `spec` accepts (in place)."""
    provider = _provider(spec)
    if provider == "anthropic" and _thinking(settings):
        why = "Anthropic's extended thinking takes temperature 1 only"
        temperature = settings["temperature"].value
        if temperature is not None and temperature != 1:
            _drop(settings, "temperature", why, spec)
        top_p = settings["top_p"].value
        if top_p is not None and top_p < 0.95:
            _drop(settings, "top_p", "Anthropic's extended thinking takes top_p >= 0.95 only", spec)
    if provider == "openai":
        from playbench.models.openai_provider import is_reasoning_model

        if is_reasoning_model(model_name(spec)):
            for name in ("temperature", "top_p"):
                current = settings[name]
                if current.value is not None and current.source == FROM_PAPER:
                    why = "OpenAI's reasoning models take no sampling settings"
                    _drop(settings, name, why, spec)


def seat_settings(
    task: Task, role: str, agent: AgentSpec
) -> tuple[AgentSpec, dict[str, EffectiveSetting], dict[str, Any]]:
    """(the seat's agent with its effective options, the settings with sources, implied task options)."""
    assert agent.model is not None
    user = {k: v for k, v in agent.options.items() if k in MODEL_SETTINGS}
    settings, task_options = resolve_settings(task.model_side(), role, agent.model, user)
    apply_provider_rules(agent.model, settings)
    options = dict(agent.options)
    for name, effective in settings.items():
        if effective.source != FROM_PROVIDER or name in options:
            options[name] = effective.value
    return replace(agent, options=options), settings, task_options


def apply_model_side(
    task: Task, agents: Mapping[str, AgentSpec], user_task_options: set[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """For one task: every seat's agent as job data, the task options model-family rules imply (those
    the user did not set), and the record of the model side for config.json."""
    job_agents = {role: spec.to_dict() for role, spec in agents.items()}
    implied: dict[str, Any] = {}
    seats: dict[str, Any] = {}
    side = task.model_side()
    for role in task.roles:
        agent = agents.get(role) or agents.get("*")
        if agent is None or agent.model is None:
            continue
        effective_agent, settings, task_options = seat_settings(task, role, agent)
        job_agents[role] = effective_agent.to_dict()
        for key, value in task_options.items():
            if key not in user_task_options:
                implied.setdefault(key, value)
        seats[role] = {
            "model": agent.model,
            "settings": {name: s.to_dict() for name, s in settings.items()},
        }
    record: dict[str, Any] = {}
    if seats:
        record = {"declared_by": side.source if side is not None else None, "seats": seats}
        if implied:
            record["task_options"] = implied
    return job_agents, implied, record


def describe_settings(settings: Mapping[str, Mapping[str, Any]]) -> str:
    """One line: `temperature=0 (paper), max_tokens=500 (paper), top_p (provider default)`."""
    parts = []
    for name in MODEL_SETTINGS:
        s = settings.get(name)
        if s is None:
            continue
        if s.get("source") == FROM_PROVIDER:
            continue
        value = "none" if s.get("value") is None else s.get("value")
        parts.append(f"{name}={value} ({s.get('source')})")
    return ", ".join(parts) or "provider defaults"
