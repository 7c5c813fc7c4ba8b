"""What each seat receives with `texts=original`: the authors' request, built from their words.

The solver's user message is, as their GPT-4o agent sends it: the module's picture, the action list with
its format line, then one text with the solver's prompt, the conversation and the cue `SOLVER: `. The
expert's is one text with the expert's prompt, the manual, the conversation and the cue `EXPERT: ` (on
the keypad, beside the manual page, with their lead-in); with `expert_word_limit`, their word-limit
request follows as a second user message, as their agent sends it (`Observation.turns`). The system
message is theirs. Our extensions, when their options are on, add texts of ours as parts of their own:
the wait note of the real-time modules (by default on button and dog, which the paper's set does not
hold) and `solver_hints`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playbench.core.types import ImagePart, Part, TextPart, Turn

if TYPE_CHECKING:
    from playbench.tasks.comma.task import CommaTask


def solver_parts(task: CommaTask, hints: list[Part], notes: list[str]) -> list[Part]:
    """The solver's user message: our `hints` (if any), the picture, their action list, our `notes`
    (if any), their text."""
    words = task.words
    assert words is not None
    s = task.session
    parts: list[Part] = list(hints)
    parts.append(ImagePart(task.module_png(), label="module"))
    parts.append(TextPart(words.action_string(task.module.actions())))
    parts += [TextPart(note) for note in notes]
    text = words.conversation(words["solver_prompt"], "", s.original_lines("solver"), words.label("solver"))
    parts.append(TextPart(text))
    return parts


def expert_manual(task: CommaTask) -> str:
    """The manual text the expert reads: theirs, but ours where an option of ours changes the puzzle
    beyond it (`button_colors=all`'s other buttons, `expert_manual=text`'s written columns)."""
    words = task.words
    assert words is not None
    name = task.instance.module
    if (name == "button" and task.config.button_colors == "all") or (
        name == "keypad" and task.config.expert_manual == "text"
    ):
        return task.expert_manual_text()
    return words.manual(name)


def expert_request(task: CommaTask) -> tuple[list[Turn] | None, list[Part]]:
    """The expert's user messages as (earlier turns, last message): one message, or with
    `expert_word_limit` their request in a message of its own after it."""
    words = task.words
    assert words is not None
    limit = task.config.expert_word_limit
    text = words.conversation(
        words.expert_prompt(limit),
        expert_manual(task),
        task.session.original_lines("expert"),
        words.label("expert"),
    )
    page = task.manual_png()
    parts: list[Part] = []
    if page is not None:
        parts += [ImagePart(page, label="manual"), TextPart(words.beside_manual_page(text))]
    else:
        parts.append(TextPart(text))
    if limit is None:
        return None, parts
    return [Turn("user", parts)], [TextPart(words.word_limit(limit))]
