"""The observation layout the puzzle tasks share, in the original's order (`agent_systems.py` of
`anon148/iVISPAR`): the past states, oldest first, each followed by the action taken in it; then,
with images, the goal image, the active (current) image and the step's text; in text, the step's
text, which holds the goal and active states.

`state_turns` sends it as the original's default agent (GPT4Agent) sent it, a conversation rebuilt
at every step: each past state a user turn and the action taken in it an assistant turn, numbered
from 1 over the window (text), then in vision the goal and the active image as two user turns, and
the step's text as the last user message. `state_parts` packs the same in one user message (option
`conversation=packed`). The labels are ours in both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from playbench.core.types import ImagePart, Part, TextPart, Turn


def state_parts(
    goal: Any,
    current: Any,
    past: Sequence[tuple[Any, str, str]],
    listing: Callable[[Any], str],
    image: Callable[[Any, str], bytes] | None,
    block: Callable[[str | None, str | None], str],
    results: bool = False,
    counter: str | None = None,
) -> list[Part]:
    """The parts of one observation packed in one user message (`conversation=packed`).

    `past` holds (state, action as shown, feedback) entries, oldest first. With `image`, states are
    images and `block(None, None)` is the text after them; otherwise each state is `listing(state)`
    and `block(goal listing, current listing)` is the step's text. `results` adds each past
    action's feedback (our extension), `counter` a last line (our step counter)."""
    parts: list[Part] = []
    for k, (state, shown, feedback) in enumerate(past, 1):
        result = f"\nResult: {feedback}" if results else ""
        if image is not None:
            parts.append(ImagePart(image(state, "past"), label="past"))
            parts.append(TextPart(f"Your action there: {shown}{result}"))
        else:
            parts.append(TextPart(f"Previous state {k}:\n{listing(state)}"))
            parts.append(TextPart(f"Your action in state {k}: {shown}{result}"))
    if image is not None:
        parts.append(ImagePart(image(goal, "goal"), label="goal"))
        parts.append(ImagePart(image(current, "current"), label="current"))
        parts.append(TextPart(block(None, None)))
    else:
        parts.append(TextPart(block(listing(goal), listing(current))))
    if counter:
        parts.append(TextPart(counter))
    return parts


def state_turns(
    goal: Any,
    current: Any,
    past: Sequence[tuple[Any, str, str]],
    listing: Callable[[Any], str],
    image: Callable[[Any, str], bytes] | None,
    block: Callable[[str | None, str | None], str],
    results: bool = False,
    counter: str | None = None,
) -> tuple[list[Turn], list[Part]]:
    """(earlier turns, parts of the last user message) of one observation, in the original's chat shape.

    Arguments as for `state_parts`. Each past state is a user turn (an image, or `Previous state k:`
    and its listing) and the action taken in it an assistant turn; `results` adds each action's
    feedback as a user turn after it (our extension); with images the goal and the active image
    follow as two user turns. The last user message is the step's text, then `counter`."""
    turns: list[Turn] = []
    for k, (state, shown, feedback) in enumerate(past, 1):
        if image is not None:
            turns.append(Turn("user", [ImagePart(image(state, "past"), label="past")]))
            turns.append(Turn("assistant", [TextPart(f"Action taken: {shown}")]))
        else:
            turns.append(Turn("user", [TextPart(f"Previous state {k}:\n{listing(state)}")]))
            turns.append(Turn("assistant", [TextPart(f"Action taken in state {k}: {shown}")]))
        if results:
            turns.append(Turn("user", [TextPart(f"Result: {feedback}")]))
    if image is not None:
        turns.append(Turn("user", [ImagePart(image(goal, "goal"), label="goal")]))
        turns.append(Turn("user", [ImagePart(image(current, "current"), label="current")]))
        parts: list[Part] = [TextPart(block(None, None))]
    else:
        parts = [TextPart(block(listing(goal), listing(current)))]
    if counter:
        parts.append(TextPart(counter))
    return turns, parts
