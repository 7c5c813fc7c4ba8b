"""Baselines that need no model: random, oracle and replay."""

from __future__ import annotations

import json
import random

from playbench.agents.base import Agent, AgentStopped
from playbench.core.errors import ConfigError
from playbench.core.paths import readable_file
from playbench.core.task import EpisodeContext, derive_seed
from playbench.core.types import Action, Observation


class RandomAgent(Agent):
    """Uniform over the observation's legal actions, as the papers' random baselines.

    Seeded per (run seed, instance, trial, role) and not by task id, so the same instance shown in
    another modality (ivispar/sgp, -2d, -3d) gets the same random moves, as a modality-blind
    baseline should; a rerun picks the same actions.
    """

    name = "random"

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.rng = random.Random(derive_seed("random-agent", ctx.seed, ctx.instance_id, ctx.trial, ctx.role))

    async def act(self, observation: Observation) -> Action:
        if not observation.legal_actions:
            return Action(text="", rationale="no legal action was offered")
        return Action(text=self.rng.choice(observation.legal_actions))


class OracleAgent(Agent):
    """Plays the task's own optimal solver."""

    name = "oracle"

    async def act(self, observation: Observation) -> Action:
        oracle = self.ctx.oracle
        move = oracle() if oracle is not None else None
        if move is None:
            raise AgentStopped("the oracle has no move from this state")
        return Action(text=move)


class ReplayAgent(Agent):
    """Replays actions from a JSONL file of `{"instance_id": ..., "actions": [...]}` lines.

    A line may also carry `task`, `trial` and `role` to disambiguate; missing ones match anything. A line
    of `playbench instances` output (`{"id": ..., "solution": [...]}`) replays its solution, each move
    written as the task's parser reads it (`Task.solution_reply`).
    """

    name = "replay"

    def __init__(self, path: str) -> None:
        self.path = readable_file(path, "replay file")
        try:
            text = self.path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"replay file '{path}' cannot be read: {exc}") from None
        self.entries: list[dict] = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"replay file '{path}' line {lineno} is not JSON: {exc.msg}") from None
            if (
                isinstance(entry, dict)
                and "instance_id" not in entry
                and isinstance(entry.get("solution"), list)
            ):
                # an instance as `playbench instances` prints it: its solution is the replay
                entry = {"instance_id": entry.get("id"), "solution": entry["solution"]}
            if (
                not isinstance(entry, dict)
                or entry.get("instance_id") is None
                or not isinstance(entry.get("actions", entry.get("solution")), list)
            ):
                raise ConfigError(
                    f"replay file '{path}' line {lineno} needs an object with 'instance_id' and an 'actions' list "
                    "(or an instance line with 'id' and a 'solution' list)"
                )
            self.entries.append(entry)

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        for entry in self.entries:
            if (
                str(entry["instance_id"]) == ctx.instance_id
                and entry.get("task", ctx.task_id) == ctx.task_id
                and int(entry.get("trial", ctx.trial)) == ctx.trial
                and entry.get("role", ctx.role) == ctx.role
            ):
                if "actions" in entry:
                    self.queue = [str(a) for a in entry["actions"]]
                else:
                    from playbench.core.registry import get_spec

                    reply = get_spec(ctx.task_id).load_class().solution_reply
                    self.queue = [reply(str(move)) for move in entry["solution"]]
                return
        raise ConfigError(f"replay file '{self.path}' has no actions for instance '{ctx.instance_id}'")

    async def act(self, observation: Observation) -> Action:
        if not self.queue:
            raise AgentStopped("the replay file's actions for this instance are used up")
        return Action(text=self.queue.pop(0))
