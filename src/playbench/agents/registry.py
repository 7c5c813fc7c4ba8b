"""Agents a suite brings (e.g. VisEscape's memory agent), registered by string entry point.

A registered class is built as `Class(spec, get_model)`: `spec.model` is `--model`, `spec.options`
holds the llm options plus the names it declared (`--agent-opt key=value`) and `captioner`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playbench.core.loading import load_object

AGENT_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
BUILTIN_NAMES = {"random", "oracle", "replay", "human", "llm"}


@dataclass(frozen=True)
class AgentEntry:
    name: str
    entry_point: str  # "package.module:Class"
    description: str
    needs_model: bool
    options: tuple[str, ...]

    def load_class(self) -> type:
        return load_object(self.entry_point, f"agent '{self.name}'")


_AGENTS: dict[str, AgentEntry] = {}


def register_agent(
    name: str,
    entry_point: str,
    description: str = "",
    needs_model: bool = True,
    options: tuple[str, ...] | list[str] = (),
) -> AgentEntry:
    if not AGENT_NAME.match(name) or name in BUILTIN_NAMES:
        raise ValueError(f"agent name '{name}' must be lowercase, start with a letter and not be built in")
    if name in _AGENTS:
        raise ValueError(f"agent '{name}' is already registered")
    entry = AgentEntry(name, entry_point, description, needs_model, tuple(options))
    _AGENTS[name] = entry
    return entry


def registered_agents() -> dict[str, AgentEntry]:
    from playbench.core.registry import all_specs

    all_specs()  # importing the suites is what registers their agents
    return dict(sorted(_AGENTS.items()))


def get_agent_entry(name: str) -> AgentEntry | None:
    return registered_agents().get(name)
