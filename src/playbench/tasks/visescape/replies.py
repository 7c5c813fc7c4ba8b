"""Reading a reply as the original agents read it (`baseagent/agent.py`, `visescaper/agent.py`).

- At a lock that takes a typed answer, a reply containing "<ANSWER>" is an answer: the text after the
  first "<ANSWER>", up to "</ANSWER>" (or its first word when the tag is not closed), stripped.
- Otherwise the action is the first line after the first "[ACTION]", stripped, with every ":" removed.
- Without "[ACTION]", the first available action (in the listed order) whose text appears, ignoring case,
  in the reply's first 20 characters. We also take a one-line reply as the action it names (a person or
  a baseline types the bare action; the original's 20-character window misses long ones), so that a
  bare action that is not available is told so rather than "no action found".

The task then judges the action: one that is not available gets the retry message (the original
agents' retry prompt, in our words) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from playbench.tasks.visescape.protocol import action_list


@dataclass(frozen=True)
class Reply:
    action: str  # the action, or the answer text
    answer: bool = False  # typed at a lock (`<ANSWER>`)


def read_reply(text: str, available: Sequence[str], takes_answer: bool) -> Reply | None:
    if takes_answer and "<ANSWER>" in text:
        rest = text.split("<ANSWER>", 1)[1].strip()
        answer = rest.split("</ANSWER>")[0].strip() if "</ANSWER>" in rest else rest.split(" ")[0]
        return Reply(answer, answer=True)
    if "[ACTION]" in text:
        chosen = text.split("[ACTION]")[1].strip().replace(":", "")
        return Reply(chosen.split("\n")[0].strip() if "\n" in chosen else chosen)
    bare = text.strip()
    if bare in available:
        return Reply(bare)
    head = text[:20].lower()
    for action in available:
        if action.lower() in head:
            return Reply(action)
    if bare and "\n" not in bare:
        return Reply(bare)
    return None


def retry_feedback(action: str, available: Sequence[str]) -> str:
    """What the agent is told after an unavailable or unreadable reply (nothing changed)."""
    if not action:
        return (
            "No action was found in your reply. Nothing changed. Reply with one of the available actions "
            f"in an [ACTION] section: {action_list(available)}"
        )
    return (
        f"You chose '{action[:80]}', but that action is not available now: {action_list(available)}. "
        "Nothing changed. Choose an available action that is needed before your action becomes possible."
    )
