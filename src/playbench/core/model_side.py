"""The model side of a task's protocol: what the original sent to the model, declared by the task.

The world side (rules, instances, observations, parsing, metrics) lives in the task itself; the model
side is the generation settings the authors' code used on every call: sampling, the output cap, the
conversation's shape and how images went on the wire. A task declares them with `Task.model_side()`;
the runner applies them to every model-driven seat on every run (not only `playbench reproduce`),
a value the user gives wins, and each effective setting is recorded with where it came from.

Settings are agent options (the `llm` agent's and the suite agents' names):

- `temperature`, `top_p`, `seed`: sampling; absent means the provider's default.
- `max_tokens`: the cap on the visible answer; `None` declares that the original sent no cap.
- `history`: earlier (observation, reply) exchanges kept as a real chat (0: each turn alone; "all":
  every one; a task that packs its past into one message, as iVISPAR's past states, declares 0). A
  task whose original kept a cleaned reply, or dropped a re-asked exchange, says so per turn in
  `Observation.reply_in_history` and `Observation.reask`.
- `image_format`: "png" or "jpeg", the encoding images are sent in; `image_detail`: OpenAI's image
  detail ("low", "high", "auto"; absent: none sent).
- `reasoning_effort`, `reasoning_tokens`: where an original asked for reasoning. The output budget
  requested is `max_tokens` plus the reasoning budget: `reasoning_tokens`, else the provider's
  allowance for a reasoning model; `reasoning_tokens: 0` declares that the original's cap was the
  whole budget, reasoning included (ToS's 32,768 for GPT-5).
- `extra_body`: request fields of the original's that no setting above names (vLLM's `top_k`).

A `FamilyRule` holds what an original set for some models only (by a regular expression searched in
the model name): settings, and task options (MM-Escape's 1960 x 980 frames for Claude models).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Every setting a task may declare, in the order they are shown.
MODEL_SETTINGS = (
    "temperature",
    "top_p",
    "seed",
    "max_tokens",
    "history",
    "image_format",
    "image_detail",
    "reasoning_effort",
    "reasoning_tokens",
    "extra_body",
)

# Where an effective setting came from, as config.json, the report and the web run page say it.
FROM_PAPER = "paper"  # the task's declaration: the paper, or the authors' code where the paper is silent
FROM_USER = "user"  # the command line, a sweep file or an agent option
FROM_PROVIDER = "provider default"  # nothing is sent; the provider's own default applies
FROM_PLAYBENCH = "playbench default"  # neither declared nor given: playbench's fallback
FROM_PROVIDER_RULE = "provider rule"  # a provider's constraint changed or dropped a value

# What a seat gets when neither the task nor the user says anything.
FALLBACKS: dict[str, Any] = {"max_tokens": 1024, "history": 0}
# ... per seat: a judge answers at temperature 0 unless the task or the user says otherwise
ROLE_FALLBACKS: dict[str, dict[str, Any]] = {"judge": {"temperature": 0.0}}


@dataclass(frozen=True)
class FamilyRule:
    """Settings an original used for some models only. `pattern` is searched, ignoring case, in the
    model name (what follows `provider:`); `task_options` are task options it implies."""

    pattern: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    task_options: Mapping[str, Any] = field(default_factory=dict)
    roles: tuple[str, ...] = ()  # the seats it applies to; () for every model-driven seat

    def matches(self, model_name: str, role: str) -> bool:
        if self.roles and role not in self.roles:
            return False
        return re.search(self.pattern, model_name, re.IGNORECASE) is not None


@dataclass(frozen=True)
class ModelSide:
    """A task's model-side protocol. `settings` apply to every model-driven seat, `roles` add or
    override per seat, `families` per model family (the first matching rule of each setting wins);
    `source` names where the original states them (paper section, authors' file and commit)."""

    settings: Mapping[str, Any] = field(default_factory=dict)
    roles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    families: tuple[FamilyRule, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        named = [*self.settings, *(k for r in self.roles.values() for k in r)]
        named += [k for rule in self.families for k in rule.settings]
        unknown = sorted(set(named) - set(MODEL_SETTINGS))
        if unknown:
            raise ValueError(
                f"unknown model-side setting(s) {unknown} (accepted: {', '.join(MODEL_SETTINGS)})"
            )

    def for_seat(self, role: str, model_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """(settings, task options) the original used for this seat and model."""
        settings = {**self.settings, **self.roles.get(role, {})}
        task_options: dict[str, Any] = {}
        claimed: set[str] = set()
        for rule in self.families:
            if not rule.matches(model_name, role):
                continue
            for key, value in rule.settings.items():
                if key not in claimed:
                    settings[key] = value
                    claimed.add(key)
            for key, value in rule.task_options.items():
                task_options.setdefault(key, value)
        return settings, task_options


@dataclass
class EffectiveSetting:
    value: Any
    source: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {"value": self.value, "source": self.source}
        if self.note:
            out["note"] = self.note
        return out


def model_name(spec: str) -> str:
    """The model's name in a spec: `openai:gpt-4o@http://host/v1` -> `gpt-4o`."""
    name = spec.split(":", 1)[-1]
    for marker in ("@http://", "@https://"):
        name = name.split(marker, 1)[0]
    return name


def resolve_settings(
    side: ModelSide | None, role: str, spec: str, user: Mapping[str, Any]
) -> tuple[dict[str, EffectiveSetting], dict[str, Any]]:
    """Every model setting of one seat with its source, and the task options a family rule implies.

    The user's value wins over the task's declaration, which wins over playbench's fallback; a
    setting nobody gives is the provider's default (nothing is sent)."""
    declared, task_options = side.for_seat(role, model_name(spec)) if side is not None else ({}, {})
    out: dict[str, EffectiveSetting] = {}
    for name in MODEL_SETTINGS:
        if name in user:
            out[name] = EffectiveSetting(user[name], FROM_USER)
        elif name in declared:
            out[name] = EffectiveSetting(declared[name], FROM_PAPER)
        elif name in ROLE_FALLBACKS.get(role, {}):
            out[name] = EffectiveSetting(ROLE_FALLBACKS[role][name], FROM_PLAYBENCH)
        elif name in FALLBACKS:
            out[name] = EffectiveSetting(FALLBACKS[name], FROM_PLAYBENCH)
        else:
            out[name] = EffectiveSetting(None, FROM_PROVIDER)
    return out, task_options
