"""What a room task shows a model seat with `texts=original`: the authors' base agent's prompts, exact.

The `llm` agent sends a task's instructions as the system prompt (none when empty) and the observation's
parts as one user message. With the authors' texts a turn is therefore one text part (the base agent's
prompt, "[IMAGE]" in it) and the view's image after it, with no system prompt, as their vision call sends
it (`inference.py`); with a caption instead of the image (`observation=caption`) the text prompt with the
caption in it and their system prompt, as their text call. After an unavailable `[ACTION]` the next
request is their retry prompt, without the image (with the system prompt at a lock that takes an answer,
or in the caption setting); after an unreadable reply that is asked again, the last prompt once more,
without the image, with the system prompt (`baseagent/agent.py`).

Our options' additions (result text, answer format; off by default) follow the hint section.
"""

from __future__ import annotations

from collections.abc import Sequence

from playbench.core.types import ImagePart, Part, TextPart
from playbench.tasks.visescape import protocol as pc
from playbench.tasks.visescape.original_prompts import IMAGE, TheirPrompts


class OriginalTurns:
    """Builds the requests of one episode (it keeps the last prompt, which an unreadable reply repeats)."""

    def __init__(self, prompts: TheirPrompts) -> None:
        self.prompts = prompts
        self.last_prompt = ""

    def observe(
        self,
        *,
        first: bool,
        direction: str,
        view: list[Part],
        caption: str | None,
        log: pc.ActionLog,
        history: int,
        inventory: Sequence[str],
        available: Sequence[str],
        takes_answer: bool,
        hint: str | None,
        rejected: str | None,
        extra: Sequence[str] = (),
    ) -> tuple[list[Part], str]:
        """(parts, instructions). `rejected`: None (no rejected reply), "" (an unreadable reply, asked
        again) or the unavailable action the reply named."""
        p = self.prompts
        hint = hint or ""
        images = [x for x in view if isinstance(x, ImagePart)]
        text_call = caption is not None  # their Socratic setting: text calls, with the system prompt
        if rejected:
            self.last_prompt = p.base_retry(direction, rejected, list(available), hint)
            system = p.system_action if (takes_answer or text_call) else ""
            return [TextPart(self.last_prompt)], system
        if rejected == "" and self.last_prompt:
            return [TextPart(self.last_prompt)], p.system_action
        scene = caption if caption is not None else IMAGE
        if first:
            prompt = p.base_first(direction, scene, list(available))
        else:
            prompt = p.base_turn(
                direction=direction,
                scene=scene,
                salient=[s["action"] for s in log.salient()],
                recent=log.recent(history),
                inventory=", ".join(inventory),
                previous_action=log.previous,
                hint=hint,
                actions=list(available),
                puzzle=takes_answer,
                extra=extra,
            )
        self.last_prompt = prompt
        if text_call:
            return [TextPart(prompt)], p.system_action
        return [TextPart(prompt), *images], ""
