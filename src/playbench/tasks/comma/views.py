"""What each seat receives: the solver's and the expert's observations.

With `texts=ours`, our words: the solver's prompt (and our notes) as instructions, then the module's
picture, the actions, the conversation and a cue; the expert's prompt and the manual as instructions,
then the conversation. With `texts=original`, the authors' request (`original_views.py`). Both seats'
observations carry the same public facts (`data`) either way.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from playbench.core.types import ImagePart, Observation, Part, TextPart, Turn
from playbench.tasks.comma import original_views, prompts
from playbench.tasks.comma.config import CommaConfig
from playbench.tasks.comma.module import MAX_WAIT

if TYPE_CHECKING:
    from playbench.tasks.comma.task import CommaTask

_LINE_STARTS_ITEM = re.compile(r"\s*(?:[-|*]|\d+\.)\s")


def reflow(manual: str) -> str:
    """The manual with its hard-wrapped sentences joined into one line per paragraph, list item or
    table row, so a terminal (or a model) reads it as written rather than broken at column 100."""
    out: list[str] = []
    for line in manual.splitlines():
        previous = out[-1] if out else ""
        continues = (
            line.strip()
            and previous.strip()
            and not _LINE_STARTS_ITEM.match(line)
            and not previous.rstrip().endswith(":")
            and not previous.strip().isupper()
            and not previous.lstrip().startswith("|")
        )
        if continues:
            out[-1] = previous.rstrip() + " " + line.strip()
        else:
            out.append(line.rstrip())
    return "\n".join(out).strip()


def solver_format_text(config: CommaConfig) -> str:
    """`solver_hints` (ours): how replies are read, and the limits."""
    limit = config.mistake_limit
    every = config.expert_answers == "every_turn"
    return prompts.SOLVER_FORMAT.format(
        answered=prompts.ANSWERED_EVERY_TURN if every else prompts.ANSWERED_MESSAGES,
        max_steps=config.max_steps,
        mistake_clause=f" or after {limit} mistakes" if limit is not None else "",
        seconds=config.seconds_per_turn,
    )


def wait_note() -> str:
    """How to let the simulated timer run (ours; the real-time modules unless `turn_clock`)."""
    return prompts.WAIT_NOTE.format(max_wait=MAX_WAIT)


# --- the solver ------------------------------------------------------------------------------------
def solver_observation(task: CommaTask) -> Observation:
    """What the original's solver gets: the module's picture, the actions with the line on how to
    write one, and the conversation with what its actions did. `solver_hints` (ours) adds the
    turn, the limits and the mistakes so far, and last turn's results on their own."""
    s = task.session
    config = task.config
    hints: list[Part] = []
    if config.solver_hints:
        limit = f" (limit {config.mistake_limit})" if config.mistake_limit is not None else ""
        hints.append(
            TextPart(
                f"{task.module.title}. Conversation turn {s.turns + 1} of {config.max_steps}. "
                f"Mistakes so far: {s.mistakes}{limit}."
            )
        )
        if task.last_feedback:
            hints.append(TextPart("What happened last turn:\n" + task.last_feedback))
    actions = task.module.actions()
    if task.words is not None:
        # our notes, when on, between their action list and their text
        notes = [wait_note()] if s.waits_allowed else []
        if config.solver_hints:
            notes.append(solver_format_text(config))
        parts = original_views.solver_parts(task, hints, notes)
        instructions = task.words.system
    else:
        parts = [*hints, *_our_solver_parts(task, actions)]
        instructions = _our_solver_instructions(task)
    return Observation(
        role="solver",
        parts=parts,
        instructions=instructions,
        legal_actions=actions,
        feedback=task.last_feedback,
        step=s.turns,
        data={
            **public_facts(task),
            "turn": s.turns + 1,
            "mistakes": s.mistakes,
            "clock": s.clock,  # the timer drawn on the module
            "waits": s.waits_allowed,
            "actions": list(actions),
            "messages": {"solver": s.solver_messages, "expert": s.expert_messages},
        },
    )


def _our_solver_instructions(task: CommaTask) -> str:
    text = prompts.SOLVER
    if task.session.waits_allowed:
        text += "\n\n" + wait_note()
    if task.config.solver_hints:
        text += "\n\n" + solver_format_text(task.config)
    return text


def _our_solver_parts(task: CommaTask, actions: list[str]) -> list[Part]:
    transcript = task.session.transcript("solver") or "(nothing has been said yet)"
    return [
        ImagePart(task.module_png(), label="module"),
        TextPart(
            "The actions available now:\n" + ("\n".join(actions) or "(none)") + "\n\n" + prompts.ACTION_FORMAT
        ),
        TextPart("Conversation so far:\n" + transcript),
        TextPart("Your reply:"),
    ]


# --- the expert ------------------------------------------------------------------------------------
def expert_observation(task: CommaTask) -> Observation:
    """The expert's prompt, the module's manual (its page as a picture on the keypad) and the
    conversation without the results of the solver's actions."""
    if task.words is not None:
        turns, parts = original_views.expert_request(task)
        return _expert_observation(task, task.words.system, parts, turns)
    s = task.session
    title = task.module.title
    instructions = prompts.EXPERT
    if task.config.expert_word_limit is not None:
        instructions += " " + prompts.EXPERT_WORD_LIMIT.format(limit=task.config.expert_word_limit)
    instructions += f"\n\nMANUAL - {title}\n\n{reflow(task.expert_manual_text())}"
    parts: list[Part] = []
    page = task.manual_png()
    if page is not None:
        parts.append(ImagePart(page, label="manual"))
    parts += [
        TextPart(f"Conversation so far ({title}):\n" + (s.transcript("expert") or "(none)")),
        TextPart("Your reply to the solver:"),
    ]
    return _expert_observation(task, instructions, parts)


def _expert_observation(
    task: CommaTask, instructions: str, parts: list[Part], turns: list[Turn] | None = None
) -> Observation:
    sent = [*(p for turn in turns or [] for p in turn.parts), *parts]
    return Observation(
        role="expert",
        parts=parts,
        instructions=instructions,
        legal_actions=[],
        step=task.session.turns,
        turns=turns,
        data={
            **public_facts(task),
            "turn": task.session.turns,
            "expert_word_limit": task.config.expert_word_limit,
            "manual_image": any(isinstance(p, ImagePart) for p in sent),
        },
    )


def public_facts(task: CommaTask) -> dict[str, Any]:
    """What both seats know from their instructions: the puzzle and the limits."""
    return {
        "module": task.instance.module,
        "title": task.module.title,
        "turn_limit": task.config.max_steps,
        "mistake_limit": task.config.mistake_limit,
        "seconds_per_turn": task.config.seconds_per_turn,
    }
