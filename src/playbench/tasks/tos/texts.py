"""The words of a Theory of Space episode: the authors' (`texts=original`, read from their clone by
the text map in `originals.py`) or ours (`texts=ours`, the paraphrases in `prompts.py`).

`TosTexts.ours()` gives our words; `TosTexts.original(source)` the authors', filled exactly as their
environment fills them (`env.py`, `PromptManager` in `prompts/prompter.py`): the system message, the
format footer that closes every exploration observation, the steps-left line, the answer to `Term()`,
the result of an invalid reply and the false-belief instruction; `feedback` holds the sentences of a
turn's result (`feedback.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from playbench.core.original_texts import TextSource, fill
from playbench.tasks.tos import prompts
from playbench.tasks.tos.feedback import OURS, Feedback
from playbench.tasks.tos.originals import REPO

REFS = {ref.id: ref for ref in REPO.texts}


@dataclass(frozen=True)
class TosTexts:
    """The texts one task uses; `stamp` is `ours` or `original@<commit>`."""

    stamp: str
    system: str | None  # the system message (None: ours, the task's instructions)
    footer: str | None  # the format footer (None: ours, the status line)
    steps_left_template: str
    task_finished: str
    invalid_action: str | None
    false_belief_template: str
    feedback: Feedback = OURS

    @property
    def original(self) -> bool:
        return self.stamp != "ours"

    @classmethod
    def ours(cls) -> TosTexts:
        return cls(
            stamp="ours",
            system=None,
            footer=None,
            steps_left_template=prompts.STEPS_LEFT,
            task_finished=prompts.TASK_FINISHED,
            invalid_action=None,
            false_belief_template=prompts.FALSE_BELIEF,
        )

    @classmethod
    def original_from(cls, source: TextSource) -> TosTexts:
        """Every text of the map, read now (a missing one is a ConfigError naming file and symbol)."""
        text = {key: source.text(ref) for key, ref in REFS.items()}
        labels = {"THINK_LABEL": text["think_label"], "ANSWER_LABEL": text["answer_label"]}
        footer = fill(
            text["format_footer"],
            {
                **labels,
                "think": text["footer_think"],
                "answer_hint": text["footer_answer"],
            },
            "format_footer",
        )
        return cls(
            stamp=source.stamp,
            system=fill(text["system"], labels, "system"),
            footer=footer,
            steps_left_template=text["steps_left"],
            task_finished=text["task_finished"],
            invalid_action=text["invalid_action"],
            false_belief_template=text["false_belief"],
            feedback=Feedback.from_original(text),
        )

    def steps_left(self, left: int) -> str:
        if self.original:
            return fill(self.steps_left_template, {"remaining_steps": left}, "steps_left")
        return self.steps_left_template.format(left=left)

    def false_belief(self, n_changes: int, max_steps: int) -> str:
        """The second exploration's instruction (theirs: `.format(n_changes=, max_steps=)`; their
        format footer follows it, here as the observation's closing status)."""
        if self.original:
            return fill(self.false_belief_template, {"n_changes": n_changes, "max_steps": max_steps})
        return self.false_belief_template.format(n=n_changes, max_steps=max_steps)
