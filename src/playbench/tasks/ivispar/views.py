"""The observation layout the puzzle tasks share: goal, past window, current, in text or images."""

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
    guide: str,
    closing: str,
    listing_sep: str = ": ",
) -> list[Part]:
    """Goal first, then the `past` (state, move, result) entries oldest first, then the current
    state last, then `closing`. With `image` set, states are images introduced by `guide`;
    otherwise each state is `listing(state)` after its title and `listing_sep`."""
    parts: list[Part] = [TextPart(guide)] if image is not None else []

    def show(title: str, state: Any, kind: str) -> None:
        if image is not None:
            parts.append(TextPart(f"{title}:"))
            parts.append(ImagePart(image(state, kind), label=kind))
        else:
            parts.append(TextPart(f"{title}{listing_sep}{listing(state)}"))

    show("Goal state", goal, "goal")
    for k, (state, shown, feedback) in enumerate(past):
        ago = len(past) - k
        show(f"Past state ({ago} move{'s' if ago > 1 else ''} ago)", state, "past")
        parts.append(TextPart(f"Your move from that state: {shown}\nResult: {feedback}"))
    show("Current state", current, "current")
    parts.append(TextPart(closing))
    return parts
