"""The observation layout the puzzle tasks share, in the original's order (`agent_systems.py` of
`anon148/iVISPAR`): the past states, oldest first, each followed by the action taken in it; then,
with images, the goal image, the active (current) image and the step's text; in text, the step's
text, which holds the goal and active states."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from playbench.core.types import ImagePart, Part, TextPart


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
    """The parts of one observation.

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
