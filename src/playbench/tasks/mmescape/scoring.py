"""MM-Escape's scoring: the judge's questions (story score, consistency of each grab's rationale),
an episode's metrics, and the paper's Table 8 summary.

`ScoringMixin` is a part of `EscapeTask` (task.py), which mixes it in and holds the episode's state.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from playbench.core.judge import JudgeQuestion
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, TextPart
from playbench.tasks.mmescape import prompts
from playbench.tasks.mmescape.chain import Chain, solution_order


class ScoringMixin:
    """`EscapeTask`'s judging and results (its attributes are set by `EscapeTask._begin`)."""

    _chains: list[Chain]
    _story_answer: str | None
    _interactions: list[tuple[str, str]]
    _state: Any
    _rules: Any
    _props: list[str]
    _key_props: list[str]
    _obtained: set[str]
    _grabs: int
    _grab_successes: int
    _core_step: int | None
    _invalid: int
    _unparseable: int
    _steps: int
    _termination: Any
    instance: Any
    config: Any
    judge: Any

    def _judge_questions(self) -> list[JudgeQuestion]:
        questions: list[JudgeQuestion] = []
        truth = "\n".join(t for t in (self._level_story(c) for c in self._chains) if t)
        if self._story_answer is not None and truth:
            text = prompts.STORY_JUDGE.format(truth=truth, recovered=self._story_answer or "(no answer)")
            questions.append(
                JudgeQuestion(
                    kind="story",
                    prompt=[TextPart(text)],
                    read=parse_story_score,
                    expected='{"score": 0-5}',
                    oracle='{"score": 5}',
                    legal_actions=[json.dumps({"score": s}) for s in range(6)],
                )
            )
        for rationale, response in self._interactions[: self.config.judge_max_interactions]:
            text = prompts.CONSISTENCY_JUDGE.format(rationale=rationale or "(none given)", response=response)
            questions.append(
                JudgeQuestion(
                    kind="consistency",
                    prompt=[TextPart(text)],
                    read=parse_consistency,
                    expected='{"Consistency": 0 or 1}',
                    oracle='{"Consistency": 1}',
                    legal_actions=['{"Consistency": 1}', '{"Consistency": 0}'],
                )
            )
        return questions

    def _outcome(self) -> EpisodeResult:
        inst = self.instance
        steps = self._steps  # actions taken in the play phase
        escaped = self._state.escaped
        # a game ended by unusable replies counts at the level's cap, as the paper's tables put every
        # such game (0 % escapes at exactly 50 / 75 / 100 steps); the actions taken are `steps_taken`
        scored_steps = self._play_cap() if self._termination == Termination.MISTAKE_LIMIT else steps
        props = [p for p in self._props if p in self._obtained]
        no_grab_rate = 0.0 if self.config.paper_protocol else None
        metrics: dict[str, Any] = {
            "escaped": escaped,
            "prop_gain": self._prop_gain(),
            "prop_gain_with_exit": len(props) / len(self._props) if self._props else 1.0,
            "grab_attempts": self._grabs,
            "grab_successes": self._grab_successes,
            "grab_success_rate": self._grab_successes / self._grabs if self._grabs else no_grab_rate,
            "grab_success_rate_eval": self._eval_grab_success_rate(),
            "grab_ratio": self._grabs / steps if steps else 0.0,
            "steps_taken": steps,
            "moving_distance": round(self._state.moved, 4),
            "optimal_distance": inst.optimal_distance,
            "optimal_steps": inst.optimal_steps,
            "rooms_escaped": len(self._state.doors_open),
            "steps_to_core_prop": self._core_step,
            "steps_core_to_exit": (steps - self._core_step)
            if escaped and self._core_step is not None
            else None,
            "exit_visible_at_start": inst.exit_visible_at_start,
            "invalid_actions": self._invalid,
            "unparseable_actions": self._unparseable,
            "scene": inst.rooms[0].scene,
            "level": inst.level,
        }
        if self.config.debrief:
            metrics["story_answered"] = self._story_answer is not None
        if self.config.judge:
            judge = self.judge
            scores = judge.values("story") if judge else []
            verdicts = judge.values("consistency") if judge else []
            metrics["story_score"] = scores[-1] if scores else None
            metrics["consistency_rate"] = sum(verdicts) / len(verdicts) if verdicts else None
            metrics["judged_interactions"] = len(verdicts)
            metrics["judge_unparseable"] = judge.unreadable if judge else 0
        return EpisodeResult(success=escaped, steps=scored_steps, metrics=metrics)

    def _prop_gain(self) -> float | None:
        """The paper's prop gain: the share of the key props (`chain.key_props`) obtained so far;
        None when the chain has none (level 1)."""
        if not self._key_props:
            return None
        return sum(1 for p in self._key_props if p in self._obtained) / len(self._key_props)

    def _eval_grab_success_rate(self) -> float:
        """Grab success rate as the authors' eval_rst.py computes it: an escape counts one success per
        link of the chain (1, 2, 3 for levels 1, 2, 3); a failure counts the keys and notes in the bag;
        0 without grabs."""
        if not self._grabs:
            return 0.0
        if self._state.escaped:
            hits = sum(len(solution_order(c)[0]) for c in self._chains)
        else:
            hits = sum(1 for i in self._state.bag if self._rules.items[i].type in ("key", "paper"))
        return hits / self._grabs

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        """The paper's Table 8: correlation of moving distance with the optimal distance, plus
        escape rate by scene type and by whether the exit was visible from the start."""
        rows = [e for e in episodes if not e.get("error") and isinstance(e.get("metrics"), dict)]
        if not rows:
            return {}
        out: dict[str, Any] = {
            "distance_correlation": distance_correlation(rows),
            "distance_correlation_escaped": distance_correlation([r for r in rows if r.get("success")]),
        }
        for key, name in (
            ("scene", "escape_rate_by_scene"),
            ("exit_visible_at_start", "escape_rate_by_exit_visible"),
        ):
            groups: dict[str, list[bool]] = {}
            for r in rows:
                groups.setdefault(str(r["metrics"].get(key)), []).append(bool(r.get("success")))
            out[name] = {g: {"n": len(v), "escape_rate": sum(v) / len(v)} for g, v in sorted(groups.items())}
        return out


def distance_correlation(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Pearson correlation between moving distance and optimal distance over episodes."""
    pairs = [
        (float(r["metrics"]["moving_distance"]), float(r["metrics"]["optimal_distance"]))
        for r in rows
        if r["metrics"].get("moving_distance") is not None
        and r["metrics"].get("optimal_distance") is not None
    ]
    n = len(pairs)
    if n < 3:
        return {"n": n, "pearson_r": None}
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return {"n": n, "pearson_r": None}
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    return {"n": n, "pearson_r": sxy / math.sqrt(sxx * syy)}


_CONSISTENCY = re.compile(r"consistency[\"']?\s*[:=]\s*[\"']?\s*([01])\b", re.IGNORECASE)
_SCORE = re.compile(r"score[\"']?\s*[:=]\s*[\"']?\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def parse_consistency(text: str) -> int | None:
    """The judge's 0/1 verdict: `{"Consistency": 1}`, `Consistency: 0`, or a bare 0/1."""
    matches = _CONSISTENCY.findall(text or "")
    if matches:
        return int(matches[-1])
    bare = (text or "").strip().strip(".").strip()
    return int(bare) if bare in ("0", "1") else None


def parse_story_score(text: str) -> float | None:
    """The judge's story score in [0, 5]: `{"score": 4}`, `Score: 3.5`, or a bare number."""
    matches = _SCORE.findall(text or "")
    candidates = matches[-1:] if matches else re.findall(r"^\s*(\d+(?:\.\d+)?)\s*$", text or "")
    for c in candidates:
        value = float(c)
        if 0.0 <= value <= 5.0:
            return value
    return None
