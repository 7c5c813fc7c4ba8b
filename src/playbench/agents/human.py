"""A person at the terminal. Images are written to files whose paths are printed."""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from playbench.agents.base import Agent, AgentStopped
from playbench.core.task import EpisodeContext
from playbench.core.types import Action, Observation, TextPart

QUIT_WORDS = {"quit", "exit", ":q"}


class HumanAgent(Agent):
    """Shows a person exactly what a model would get (the instructions, then each turn's parts in
    order), so a human baseline sees no more than the models it is compared with: no list of legal
    moves, no separate feedback line, no image labels, no step counter beyond what the prompt says."""

    name = "human"

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        console: Console | None = None,
        image_dir: str | None = None,
    ) -> None:
        self.input_fn = input_fn or input
        self.console = console or Console(file=sys.stderr)
        # a folder of our own making is made at the first image and removed when the episode ends;
        # a given one is the caller's
        self._own_dir = image_dir is None
        self.image_dir: Path | None = None if image_dir is None else Path(image_dir)

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.shown_instructions = False
        self.turns = 0
        self.console.rule(f"{ctx.task_id} · instance {ctx.instance_id} · role {ctx.role}")

    async def act(self, observation: Observation) -> Action:
        c = self.console
        if not self.shown_instructions and observation.instructions:
            c.print(observation.instructions, markup=False)
            self.shown_instructions = True
        self.turns += 1
        c.rule(f"your turn ({self.turns})")
        # the observation's parts in their order, as a model gets them: text as text, each image as a
        # file (named by turn and position, not by its label, which a model never sees)
        for i, part in enumerate(observation.shown_parts()):
            if isinstance(part, TextPart):
                if part.text:
                    c.print(part.text, markup=False)
                continue
            if self.image_dir is None:
                self.image_dir = Path(tempfile.mkdtemp(prefix="playbench-human-"))
            self.image_dir.mkdir(parents=True, exist_ok=True)
            path = self.image_dir / f"turn{self.turns:03d}-{i}.png"
            path.write_bytes(part.png)
            c.print(f"[dim]image:[/dim] {path}", highlight=False)
        try:
            line = await asyncio.to_thread(self.input_fn, "your action (or 'quit')> ")
        except EOFError:
            raise AgentStopped("the player closed the input") from None
        if line.strip().lower() in QUIT_WORDS:
            raise AgentStopped("the player quit")
        return Action(text=line)

    async def close(self) -> None:
        if self._own_dir and self.image_dir is not None:
            shutil.rmtree(self.image_dir, ignore_errors=True)
            self.image_dir = None
