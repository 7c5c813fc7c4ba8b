"""The paper's protocol as the authors' runner plays it, shared by every VisEscape room task.

What the original runner (`src/vis_escape/experiment/agent/baseagent/experiment_runner.py` and
`visescaper/experiment_runner.py`, pull-ups/VisEscape-demo at 9f65b99) keeps and shows each turn,
restated in our words with the same facts:

- an *action log*: every action as text (an answer typed at a lock is logged as
  "At Numberlock_A, try 8056"); the *recent actions* are the last 10 entries whose text does not
  contain "turn"; the *action memory* (salient actions) is every action other than inspect / turn /
  step back, prefixed with where it was taken ("At Safe, open"); the *previous action* is the bare
  action (or answer);
- the view as "NORTH side of room - [image]", the inventory (the items held, or
  none), the hint when one is due, the available actions as a list, and at a lock that takes a
  typed answer the <ANSWER> note; no result text, no answer format, no state words;
- progress is a change of the game's triggers. The first step is never compared; after it, a step
  that adds no trigger adds one to the stall counter and one that does resets it and clears the hint.
  A hint is due while the counter exceeds 30; the episode stops when it reaches 100;
- HCR counts the hint streaks that ended in progress (`get_score.py`'s `solved_hints_num`), over the
  progress made;
- a reply the agents cannot read (no `[ACTION]`, no available action in its first 20 characters) at a view
  that takes no typed answer ends their turn after that one call with the first action of their shuffled
  list: the line that logs the failure names the chosen action, which only an `[ACTION]` reply sets, and
  the error that raises is handled by playing that first action (`baseagent/agent.py`,
  `visescaper/agent.py`). At a lock that takes an answer, or after an unavailable `[ACTION]` reply in the
  same turn, they ask again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from playbench.core.model_side import FamilyRule, ModelSide
from playbench.core.task import derive_seed
from playbench.core.termination import Termination
from playbench.core.types import ImagePart, Part, StepResult, TextPart, Validity

# The model side of both room tasks: what the authors' agents sent (pull-ups/VisEscape-demo at 9f65b99,
# `src/vis_escape/experiment/agent/inference.py`); the paper (App. B.1) names model versions only.
# - sampling: no temperature, top_p or seed on the action, retry, feedback and memory calls (:56-59,
#   :114-128, :177-180): not declared, so the provider's default applies (captions at temperature 0 are
#   the paper agents' own call, `utils.py:67`);
# - output cap: none sent (max_tokens None);
# - conversation: every call one user message; the past actions are text inside it (the runner's
#   `experiment_runner.py`, the last 10 non-turn actions), so no chat is kept (history 0);
# - images: the PNG assets re-encoded as JPEG at Pillow's default quality 75, not resized (:8-16);
#   `detail: "low"` when "gpt" is in the model name, else no detail field (:110-112).
MODEL_SIDE = ModelSide(
    settings={"max_tokens": None, "history": 0, "image_format": "jpeg"},
    families=(FamilyRule("gpt", settings={"image_detail": "low"}),),
    source=(
        "authors' code, pull-ups/VisEscape-demo@9f65b99: src/vis_escape/experiment/agent/inference.py "
        "(no sampling or output cap :56-59 :114-128 :177-180; JPEG :14; detail low for 'gpt' :110-112; "
        "one user message per call) and baseagent/experiment_runner.py:131 (past actions as prompt text); "
        "the paper (App. B.1) states no sampling"
    ),
)

# the original init prompt, in our words (same facts)
INIT_PROMPT = (
    "You are an AI agent in a room escape game. Four walls surround the room; you look at another wall "
    'with "turn_to_[direction]". Each wall has objects you can interact with, and "inspect [object]" '
    "looks at one closely. Read the information and the task below carefully and reply accordingly."
)
REPLY_FORMAT = "Give your action in an [ACTION] section: only the chosen action there, no other text."
ANSWER_SLOT = "<ANSWER> [the answer]"  # the answer among the actions (ours; the original's: texts=original)
ANSWER_NOTE = (
    "<ANSWER> enters an answer into the lock in front of you; use it as <ANSWER>your answer</ANSWER>."
)
HINT_GUIDE = "If there is a hint message, choose the action that carries out its guideline."
INSTRUCTIONS = f"{INIT_PROMPT}\n{REPLY_FORMAT}"


# What a rejected reply leads to (the task options `unreadable` and `fallback`)
Unreadable = Literal["fallback", "ask_again"]
Fallback = Literal["random_action", "spend_step"]


def unreadable_ends_turn(unreadable: str, *, unparseable: bool, takes_answer: bool, streak: int) -> bool:
    """Whether a rejected reply goes to the fallback at once, without the free retries: an unreadable
    reply at a view that takes no typed answer, the first rejected reply of its turn (`streak` counts
    this one), as the original agents play their first shuffled action after that one call
    (`unreadable=fallback`, the default; `ask_again` retries it as an unavailable reply)."""
    return unreadable == "fallback" and unparseable and not takes_answer and streak == 1


def fallback_choice(episode_seed: int, instance_id: str, step: int, available: Sequence[str]) -> str:
    """The fallback's random available action, drawn from the episode's seed (the run seed and the
    trial, `Task.episode_seed`), the instance and the step."""
    rng = random.Random(derive_seed("visescape-fallback", episode_seed, instance_id, step))
    return rng.choice(list(available))


def fallback_note(chosen: str, at_once: bool, rejection: str) -> str:
    """The step's feedback when the fallback played `chosen`."""
    if at_once:
        return f"No action was found in your reply, so the action {chosen!r} was taken instead."
    return f"{rejection} Retries used up: the action {chosen!r} was taken instead."


def action_list(actions: Sequence[str]) -> str:
    """The actions as the original prints them (a Python list)."""
    return "[" + ", ".join(repr(a) for a in actions) + "]"


def inventory_text(names: Sequence[str]) -> str:
    return (
        f"<Inventory>You hold {', '.join(names)}.</Inventory>"
        if names
        else "<Inventory>You hold nothing.</Inventory>"
    )


@dataclass
class LogEntry:
    step: int
    action: str  # as the recent-actions list shows it
    salient: str | None  # as the action memory shows it, None for inspect / turn / step back


@dataclass
class ActionLog:
    """The runner's action history, action memory and previous action."""

    entries: list[LogEntry] = field(default_factory=list)
    previous: str | None = None

    def record(self, step: int, action: str, location: str, answered: bool) -> None:
        shown = f"{location}try {action}" if answered else action
        salient = None
        if "inspect" not in action and "turn" not in action and "step_back" not in action:
            salient = f"{location}try {action}" if answered else f"{location}{action}"
        self.entries.append(LogEntry(step, shown, salient))
        self.previous = action

    def recent(self, n: int) -> list[str]:
        kept = [e.action for e in self.entries if "turn" not in e.action]
        return kept[-n:] if n > 0 else []

    def salient(self) -> list[dict[str, Any]]:
        return [{"step": e.step, "action": e.salient} for e in self.entries if e.salient is not None]


@dataclass
class Progress:
    """The stall counter, the hint shown and HCR's hint streaks, as the original runner counts them."""

    hint_after: int = 30
    counter: int = 0
    steps: int = 0
    hints_shown: list[str] = field(default_factory=list)  # the hint of every step (or "")
    given: list[str] = field(default_factory=list)  # distinct hints given, in order
    hint: str = ""

    def due(self, hints: bool) -> bool:
        return hints and self.counter > self.hint_after

    def note_hint(self, text: str | None) -> None:
        """Before a step: the hint shown with it ("" when none)."""
        self.hint = text or ""
        self.hints_shown.append(self.hint)
        if self.hint and self.hint not in self.given:
            self.given.append(self.hint)

    def after_step(self, changed: bool) -> None:
        self.steps += 1
        if self.steps == 1:
            return  # the runner compares from the second step on
        if changed:
            self.counter = 0
            self.hint = ""
        else:
            self.counter += 1

    def solved_hints(self) -> int:
        """`get_solved_hints_num`: hint streaks followed by a step without a hint."""
        num, received = 0, False
        for hint in self.hints_shown:
            if hint:
                received = True
            elif received:
                num += 1
                received = False
        return num


def observation_parts(
    *,
    first: bool,
    direction: str,
    view: list[Part],
    log: ActionLog,
    history: int,
    inventory: Sequence[str],
    available: Sequence[str],
    takes_answer: bool,
    hint: str | None,
    extra: Sequence[str] = (),
) -> list[Part]:
    """The turn's message as the original base agent's prompt carries it (the init prompt is the
    task's instructions). `view` is the image (or a caption text) shown inside the observation tag;
    `extra` are our options' additions (result text, answer format), placed before the actions."""
    parts: list[Part] = []
    if first:
        parts.append(TextPart(f"<Current Observation>{direction} side of room - "))
        parts += view
        parts.append(TextPart("</Current Observation>"))
        parts += [TextPart(x) for x in extra]
        parts.append(
            TextPart(
                "Choose the next action to progress in the game; you can take one of these actions:\n"
                + action_list(available)
            )
        )
        return parts
    salient = [s["action"] for s in log.salient()]
    if salient:
        parts.append(TextPart("<Action Memory>\n" + "\n".join(salient) + "</Action Memory>"))
    recent = log.recent(history)
    if recent:
        parts.append(
            TextPart("<Recent actions(from oldest to latest)>\n" + "\n".join(recent) + "</Recent actions>")
        )
    parts.append(TextPart(f"<Current Observation>{direction} side of room - "))
    parts += view
    parts.append(TextPart("</Current Observation>"))
    parts.append(TextPart(inventory_text(inventory)))
    parts.append(TextPart(f"<Your action before this turn>{log.previous}</Your action before this turn>"))
    if hint:
        parts.append(TextPart(f"<Hint Message>\n{hint}</Hint Message>"))
    parts += [TextPart(x) for x in extra]
    shown = list(available) + ([ANSWER_SLOT] if takes_answer else [])
    lines = [
        "Choose the next action to progress in the game; it must be one of these actions:",
        action_list(shown),
    ]
    if takes_answer:
        lines.append(ANSWER_NOTE)
    if hint:
        lines.append(HINT_GUIDE)
    if takes_answer:
        lines.append(
            "In [ACTION] give only the chosen action (at this lock, the answer as <ANSWER>your answer</ANSWER>), no other text."
        )
    parts.append(TextPart("\n".join(lines)))
    return parts


def image_view(png: bytes) -> list[Part]:
    return [ImagePart(png, label="view")]


class PaperEnding:
    """How a room episode counts steps and ends, as the original runner does it: every played action
    is a step, a rejected reply only once its free retries are spent; the room cleared ends it, then
    the stall (checked before the step cap, as the runner does), then the cap. Mixed into both room
    tasks, which say when the room is cleared and hold `config.patience` / `config.max_steps` and
    `_progress.counter`."""

    config: Any
    _progress: Any

    def _cleared(self) -> bool:
        raise TypeError(f"{type(self).__name__} must say when its room is cleared")

    def _counts_step(self, role: str, result: StepResult) -> bool:
        played = result.validity in (Validity.EFFECTIVE, Validity.INEFFECTIVE)
        return played or bool(result.info.get("step_spent"))

    def _check_end(self, result: StepResult) -> Termination | None:
        if self._cleared():
            return Termination.GOAL_REACHED
        if self._progress.counter >= self.config.patience:
            return Termination.NO_PROGRESS
        return None

    def _end_feedback(self, termination: Termination) -> str:
        if termination == Termination.GOAL_REACHED:
            return "You escaped the room!"
        if termination == Termination.STEP_CAP:
            return f"The step limit of {self.config.max_steps} is reached; the game is over."
        return f"Nothing new happened in the last {self.config.patience} steps; the game is over."
