"""The failure judge (ours, `judge=true`): one label per failed episode, and its metrics.

The authors' `judge.py` is another protocol (see the README's fidelity table); its words are ours.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from playbench.core.judge import JudgePhase, JudgeQuestion
from playbench.core.termination import Termination
from playbench.core.types import TextPart
from playbench.tasks.comma import prompts
from playbench.tasks.comma.views import reflow

if TYPE_CHECKING:
    from playbench.tasks.comma.task import CommaTask

JUDGE_KIND = "failure_label"
# how the judge's prompt names a failed episode's end (the words it has always read)
FAILED_BY = {
    Termination.STEP_CAP: "turn limit",
    Termination.MISTAKE_LIMIT: "mistake limit",
    Termination.TIME_LIMIT: "time out",
}


def parse_judge_label(text: str) -> str | None:
    """The judge's category: the one after 'label:', else the only category named; None otherwise."""
    # "role-play" / "role play" are common spellings of the paper's "roleplay"
    lowered = text.lower().replace("_", " ").replace("-", " ").replace("role play", "roleplay")
    spans = {
        label: [m.start() for m in re.finditer(re.escape(label), lowered)] for label in prompts.JUDGE_LABELS
    }
    spans["repetition loop"] += [m.start() for m in re.finditer(r"\brepetition\b(?! loop)", lowered)]
    marker = lowered.rfind("label:")
    if marker >= 0:
        after = [
            (min(p for p in pos if p > marker), label)
            for label, pos in spans.items()
            if any(p > marker for p in pos)
        ]
        if after:
            return min(after)[1]
    named = [label for label, pos in spans.items() if pos]
    return named[0] if len(named) == 1 else None


def judge_questions(task: CommaTask) -> list[JudgeQuestion]:
    """The one question about a failed episode: the puzzle, the manual, the outcome, the transcript."""
    if task.module.solved:
        return []  # only failed episodes are labelled
    s = task.session
    text = (
        f"Puzzle: {task.module.title}.\n"
        f"Manual the expert held:\n{reflow(task.module.manual())}\n\n"
        f"Outcome: failed ({FAILED_BY.get(task.termination, '')}) after {s.turns} turns with "
        f"{s.mistakes} mistakes; progress {task.module.partial_score():.0%}.\n\n"
        f"Transcript:\n{s.transcript('judge')}"
    )
    # the oracle judge is a rule: the automatic loop detector, else the most common category
    label = "repetition loop" if s.repeated_mistakes else "miscommunication"
    return [
        JudgeQuestion(
            kind=JUDGE_KIND,
            prompt=[TextPart(text), TextPart("Your verdict (label: <category>):")],
            read=parse_judge_label,
            expected="'label: ' followed by one of " + ", ".join(prompts.JUDGE_LABELS),
            oracle=f"label: {label}",
            instructions=prompts.JUDGE,
            legal_actions=[f"label: {name}" for name in prompts.JUDGE_LABELS],
        )
    ]


def judge_metrics(judge: JudgePhase | None) -> dict[str, Any]:
    """The judge's label and one flag per category, once it has replied (else nothing)."""
    if judge is None or not judge.replied(JUDGE_KIND):
        return {}
    labels = judge.values(JUDGE_KIND)
    label = labels[0] if labels else None
    metrics: dict[str, Any] = {"judge_label": label or "unparseable", "judge_unparseable": label is None}
    for name in prompts.JUDGE_LABELS:
        metrics[f"judge_{name.replace(' ', '_')}"] = label == name
    return metrics
