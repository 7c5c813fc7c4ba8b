"""Reading a reply: the lines of a solver's reply and the actions they name, and the cuts of ours."""

from __future__ import annotations

import re
from dataclasses import dataclass

WAIT_MESSAGE = "I am waiting for the right moment on the timer; nothing to press this turn."
EMPTY_SOLVER_REPLY = (
    "Your reply was empty: no message was sent and no action was taken (the turn still counts)."
)
EMPTY_EXPERT_REPLY = "The expert's reply was empty; the solver hears nothing."
# A reply's lines: line breaks, and the two characters backslash-n a person types at a terminal (the
# authors' human agent splits on those)
LINE_SPLIT = re.compile(r"\r\n|\r|\n|\\n")
# what the solver is told about an action (the authors' environment messages, in our words)
ACTION_DONE = "The action was carried out."
ACTION_MISTAKE = "That action was a mistake."
WAIT = "wait"


@dataclass(frozen=True)
class SolverReply:
    """A non-empty solver reply, read: its lines and the action each line names (if any)."""

    text: str
    lines: list[str]
    named: list[tuple[str, str]]  # (line, action) for the lines that name an action
    note: str | None  # the one-action-per-line note, when a line names more than one


@dataclass(frozen=True)
class ExpertReply:
    text: str


def actions_in(line: str, names: list[str]) -> list[str]:
    """Every action named in `line`, in the module's own order: as the authors' `execute_action`,
    a name counts wherever it occurs in the line, upper or lower case."""
    lowered = line.lower()
    return [n for n in names if n.lower() in lowered]


def find_action(line: str, names: list[str]) -> str | None:
    """The action a line carries out: the first of the module's actions (in its order) it names."""
    found = actions_in(line, names)
    return found[0] if found else None


def crowded_lines_note(lines: list[str], names: list[str]) -> str | None:
    """A note for lines that name more than one action: only the first of each line is carried out."""
    crowded = []
    for line in lines:
        found = list(dict.fromkeys(actions_in(line, names)))
        if len(found) > 1:
            crowded.append(f"'{line.strip()[:80]}' ({found[0]}; not {', '.join(found[1:])})")
    if not crowded:
        return None
    return (
        "One action per line: only the first action named on a line is carried out. "
        f"Lines with more than one: {'; '.join(crowded)}."
    )


def cut_words(text: str, limit: int) -> str:
    """`text` up to its `limit`-th word (whitespace and line breaks kept), marked when cut."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= limit:
        return text
    return text[: words[limit - 1].end()] + f" [cut at {limit} words]"


def cut_chars(text: str, limit: int | None) -> str:
    """`text` without surrounding whitespace, cut after `limit` characters and marked when cut
    (`message_chars`, ours; the original never cuts a message)."""
    text = text.strip()
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + " [message cut]"
