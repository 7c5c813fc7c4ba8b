"""COMMA metrics (paper §4.2 and Figure 5): per-episode turn-limit curves and the run aggregates.

An episode played with the 20-turn limit also tells what a run with any smaller limit k would have
scored: the same conversation cut after k turns. So each episode records, for k = 1..max_turns,
`success_at_kk` (disarmed within k turns) and `mistakes_at_kk` (strikes within k turns), and the
aggregates below turn them into the Figure 5 curves.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import fmean
from typing import TYPE_CHECKING, Any

from playbench.tasks.comma.prompts import JUDGE_LABELS

if TYPE_CHECKING:
    from playbench.tasks.comma.session import Session

Episode = dict[str, Any]


def success_key(k: int) -> str:
    return f"success_at_{k:02d}"


def mistakes_key(k: int) -> str:
    return f"mistakes_at_{k:02d}"


def turn_limit_metrics(solved_after: list[bool], mistakes_after: list[int], max_turns: int) -> dict[str, Any]:
    """Flat per-k metrics from the per-turn record; an episode that ended early keeps its last values."""
    out: dict[str, Any] = {}
    for k in range(1, max_turns + 1):
        upto = min(k, len(solved_after))
        out[success_key(k)] = bool(upto and solved_after[upto - 1])
        out[mistakes_key(k)] = int(mistakes_after[upto - 1]) if upto else 0
    return out


def episode_metrics(module: str, session: Session, max_turns: int) -> dict[str, Any]:
    """One episode's metrics: the paper's (success, partial score, mistakes, conversation length,
    repetition loops), our counts, and the turn-limit curve's per-k values."""
    s = session
    solved = s.module.solved
    metrics: dict[str, Any] = {
        "module": module,
        "partial_score": 1.0 if solved else float(s.module.partial_score()),
        "mistakes": s.mistakes,
        "conversation_length": s.turns if solved else max_turns,
        "turns_used": s.turns,
        "solver_messages": s.solver_messages,
        "expert_messages": s.expert_messages,
        "actions_executed": s.actions_executed,
        "repetition_loop": s.repeated_mistakes > 0,
        "repeated_mistakes": s.repeated_mistakes,
    }
    metrics.update(turn_limit_metrics(s.solved_after, s.mistakes_after, max_turns))
    return metrics


def module_of(episode: Episode) -> str:
    metrics = episode.get("metrics") or {}
    if isinstance(metrics.get("module"), str):
        return metrics["module"]
    return str(episode.get("instance_id", "?")).rsplit("-", 1)[0]


def scored(episodes: Iterable[Episode]) -> list[Episode]:
    """Episodes that carry COMMA metrics (an errored episode may not)."""
    return [e for e in episodes if isinstance(e.get("metrics"), dict) and "partial_score" in e["metrics"]]


def paper_stats(rows: list[Episode]) -> dict[str, Any]:
    """SR and PSR in percent, average mistakes (AM) and average conversation length (ACL)."""
    return {
        "n": len(rows),
        "SR": 100 * fmean(bool(e.get("success")) for e in rows),
        "PSR": 100 * fmean(float(e["metrics"]["partial_score"]) for e in rows),
        "AM": fmean(float(e["metrics"].get("mistakes", 0)) for e in rows),
        "ACL": fmean(float(e["metrics"].get("conversation_length", 0)) for e in rows),
        "repetition_loop_rate": fmean(bool(e["metrics"].get("repetition_loop")) for e in rows),
    }


def overall_stats(per_module: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The paper's "Overall" column: each metric averaged across the puzzles (each puzzle's own mean
    counts once), so a set with more episodes of one puzzle does not weigh that puzzle more."""
    stats = list(per_module.values())
    out: dict[str, Any] = {"n": sum(s["n"] for s in stats), "puzzles": len(stats)}
    for key in ("SR", "PSR", "AM", "ACL", "repetition_loop_rate"):
        out[key] = fmean(s[key] for s in stats)
    return out


def turn_curve(rows: list[Episode], max_turns: int | None = None) -> dict[str, list[float]]:
    """Figure 5: success rate and mean mistakes when the conversation is cut after k turns."""
    if max_turns is None:
        max_turns = max(
            (int(k.rsplit("_", 1)[1]) for e in rows for k in e["metrics"] if k.startswith("success_at_")),
            default=0,
        )
    ks, success, mistakes = [], [], []
    for k in range(1, max_turns + 1):
        have = [e for e in rows if success_key(k) in e["metrics"]]
        if not have:
            continue
        ks.append(k)
        success.append(fmean(bool(e["metrics"][success_key(k)]) for e in have))
        mistakes.append(fmean(float(e["metrics"][mistakes_key(k)]) for e in have))
    return {"k": ks, "success_rate": success, "mean_mistakes": mistakes}


def judge_counts(rows: list[Episode]) -> dict[str, int]:
    judged = [e["metrics"]["judge_label"] for e in rows if isinstance(e["metrics"].get("judge_label"), str)]
    return {label: judged.count(label) for label in (*JUDGE_LABELS, "unparseable") if label in judged}


def summarize(episodes: list[Episode], max_turns: int | None = None) -> dict[str, Any]:
    rows = scored(episodes)
    if not rows:
        return {}
    by_module: dict[str, list[Episode]] = {}
    for e in rows:
        by_module.setdefault(module_of(e), []).append(e)
    per_module = {name: paper_stats(items) for name, items in sorted(by_module.items())}
    out: dict[str, Any] = {
        "overall": overall_stats(per_module),
        "by_module": per_module,
        "turn_limit_curve": turn_curve(rows, max_turns),
    }
    counts = judge_counts(rows)
    if counts:
        out["judge_labels"] = counts
    return out
