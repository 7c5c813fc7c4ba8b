"""Theory of Space stepping: a reply read and run as the authors' environment runs it (`grammar.py`),
the exploration log it writes, the end of an exploration phase, and the passive mode's given log.

`SteppingMixin` is a part of `TosTask` (exploration.py), which mixes it in and holds the episode's
state (set by `TosTask._begin`); the hooks it calls (`_after_turn`, `_track_changed`, ...) are
`TosTask`'s, for the phases around the exploration to override.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playbench.core.episode import ParseError
from playbench.core.termination import Termination
from playbench.core.types import StepResult, TextPart, Validity
from playbench.core.types import Turn as ChatTurn
from playbench.tasks.tos.grammar import Invalid, Outcome, Turn, execute, parse_turn
from playbench.tasks.tos.proxies import scout_turns, strategist_turns
from playbench.tasks.tos.world import Pose


@dataclass
class LogEntry:
    step: int
    action: str
    feedback: str
    view: tuple[int, Pose] | None = None  # (world version, pose) of an Observe, for its image


@dataclass(frozen=True)
class Reply:
    """A reply read for the current phase: the exploration turn it makes, or the answer text."""

    text: str
    turn: Turn | None = None  # None on the answer turn and on a probe
    probe: bool = False  # a reply to a belief probe (see `probing.py`)


def _shown(text: str) -> str:
    """What the log shows of a rejected reply: its last line."""
    return text.strip().splitlines()[-1][:120] if text.strip() else "(empty reply)"


class SteppingMixin:
    """`TosTask`'s stepping (its attributes are set by `TosTask._begin`)."""

    _phase: str
    _pose: Pose
    _observed: frozenset[str]
    _log: list[LogEntry]
    _probes: list[str]
    _steps: int
    config: Any
    texts: Any
    world: Any
    passive: bool

    # --- stepping --------------------------------------------------------------------------
    def _parse(self, text: str) -> Reply | ParseError:
        self._raw = text  # the reply as sent: the assistant turn of the chat
        if self._probes:  # any reply answers a probe (an unreadable one scores nothing, as theirs)
            return Reply(text, probe=True)
        if self._phase == "answer":
            return Reply(text)
        t = parse_turn(text, fb_phase=self._phase == "fb", allow_return=self.config.return_action)
        if isinstance(t, Invalid):
            return ParseError(t.message, t.reason, _shown(text))
        return Reply(text, t)

    def _apply(self, parsed: Reply) -> StepResult:
        if parsed.probe:
            return self._probe_step(parsed.text)
        if parsed.turn is None:
            return self._answer_step(parsed.text)
        phase_before = self._phase
        changed_before = set(self._changed_seen)
        result = self._explore_step(parsed.turn)
        self._after_turn(phase_before, result, self._changed_seen - changed_before)
        return result

    def _on_parse_error(self, error: ParseError) -> StepResult:
        """An invalid reply: nothing happens; it uses a step (and, with `invalid_cost`, costs)."""
        self._phase_steps += 1
        self._replies += 1
        self._cost += self.config.invalid_cost
        unparseable = error.reason in ("action_list", "empty")
        if unparseable:
            self._unparseable += 1
        else:
            self._invalid += 1
        validity = Validity.UNPARSEABLE if unparseable else Validity.INVALID
        info = {"phase": self._phase, "rule": error.reason, "cost": self.config.invalid_cost}
        # theirs (`env.py`): the invalid-action message and a newline, and no steps-left line (their
        # invalid branch skips it; the format footer follows); ours names the broken rule
        message = error.message if self.texts.invalid_action is None else self.texts.invalid_action + "\n"
        result = StepResult(validity, message, reason=error.reason, info=info)
        return self._logged(result, error.snippet or "(no action list)", None, steps_left=False)

    def _result_text(self, out: Outcome) -> str:
        """The turn's messages as the environment writes them (an image placeholder in vision)."""
        if self.config.modality != "vision" or out.view_message is None:
            return out.text
        words = self.texts.feedback
        view = words.observe_text("<image>")
        messages = list(out.messages)
        messages[out.view_message] = words.failed_move_text(view) if out.failed else view
        return " ".join(messages)

    def _explore_step(self, t: Turn) -> StepResult:
        fb_phase = self._phase == "fb"
        out = execute(self.world, self._pose, self._observed, t, self.texts.feedback)
        self._phase_steps += 1
        self._replies += 1
        self._pose = out.pose
        self._cost += out.cost
        for k, v in out.counts.items():
            self._counts[k] = self._counts.get(k, 0) + v
        if out.failed:
            self._failed_turns += 1
        pose = {"x": out.pose.x, "y": out.pose.y, "facing": out.pose.facing}
        info: dict[str, Any] = {"phase": self._phase, "action": t.final[0], "cost": out.cost, "pose": pose}
        if out.failed:
            info["failed"] = out.failed
        new = [n for n in out.seen if n not in self._observed]
        self._observed |= set(out.seen)
        if not fb_phase and not self.passive:
            info["information_gain"] = self._track_information(out)
        if out.observed_at is not None:
            info["newly_observed"] = sorted(new)
            self._plan_index += 1
            if fb_phase:
                self._track_changed(out.seen)
        if out.query is not None:
            info["target"] = out.query["name"]
        useful = bool(new) or out.query is not None or out.terminated or (fb_phase and out.observed_at)
        validity = Validity.EFFECTIVE if useful else Validity.INEFFECTIVE
        feedback = self._result_text(out)
        view = (self._version, out.observed_at) if out.observed_at is not None else None
        if out.terminated:
            self._terminated_by_agent = True
            result = StepResult(validity, feedback, parsed=t.canonical, info=info)
            if fb_phase:
                reported = sorted({lab for c in out.changes or [] for lab in c.labels()})
                self._answer = {"changes": reported, "changes_text": out.changes_text}
                info["changes"] = [list(c) for c in reported]
                # the change list is this task's answer: its episode reached its end
                return self._end_phase(result, self.texts.task_finished, Termination.GOAL_REACHED)
            self._log.append(LogEntry(self._phase_steps, t.canonical, feedback))
            return self._end_phase(result, self.texts.task_finished, Termination.AGENT_ENDED)
        result = StepResult(validity, feedback, parsed=t.canonical, info=info)
        return self._logged(result, t.canonical, view)

    def _logged(
        self, result: StepResult, shown: str, view: tuple[int, Pose] | None, steps_left: bool = True
    ) -> StepResult:
        """Log an exploration step; at the phase's cap the phase (or the episode) ends."""
        cap = self._phase_cap()
        left = cap - self._phase_steps
        if steps_left:
            result.feedback += "\n" + self.texts.steps_left(left)
        if left <= 0:
            result.feedback += " The exploration is over."
            self._log.append(LogEntry(self._phase_steps, shown, result.feedback, view))
            return self._end_phase(result, result.feedback, Termination.STEP_CAP)
        self._log.append(LogEntry(self._phase_steps, shown, result.feedback, view))
        self._feedback = result.feedback
        return result

    def _end_phase(self, result: StepResult, feedback: str, termination: Termination) -> StepResult:
        """End the current exploration; the episode ends too when no phase follows it."""
        result.info["phase_ended"] = self._phase
        if self._phase == "explore":
            self._phase1_observed = self._observed
            self._phase = self._after_exploration()
            self._on_exploration_end()
        else:
            self._phase = "done"
        self._feedback = result.feedback = feedback
        if self._phase == "done":
            if termination == Termination.STEP_CAP and self._probes_after_cap():
                self._pending_end = termination  # the capped turn is probed first (`_check_end`)
            else:
                self.end(termination)
        else:  # the template counts this step after `_apply`: the next phase starts after it
            self._cap = self._phase_ends_at(self._steps + 1)
        return result

    def _after_step(self, role: str, result: StepResult) -> None:
        result.info["total_cost"] = self._cost
        if self._chatting() and result.info.get("phase") == "explore":
            # theirs (`env.py`): the reply, then the environment's answer as the next user message
            self._chat += [
                ChatTurn("user", self._chat_user or []),
                ChatTurn("assistant", [TextPart(self._raw)]),
            ]
            self._chat_user = self._turn_message(result)

    # --- the passive mode's given log ------------------------------------------------------
    def _play_oracle_log(self) -> None:
        """Passive mode: a scripted explorer's turns (SCOUT, or the oracle's plan), executed, become
        the given exploration log."""
        turns = self._plan_turns
        log = getattr(self.config, "passive_log", "oracle")
        if log is None:
            log = "scout" if self.config.modality == "vision" else "strategist"
        if log in ("scout", "strategist"):
            proxy = scout_turns(self.world) if log == "scout" else strategist_turns(self.world)
            turns = [t for t in proxy if t != "Actions: [Term()]"]
        for k, text in enumerate(turns, start=1):
            t = parse_turn(text, allow_return=self.config.return_action)
            assert isinstance(t, Turn), text
            out = execute(self.world, self._pose, self._observed, t, self.texts.feedback)
            self._pose = out.pose
            self._observed |= set(out.seen)
            view = (0, out.observed_at) if out.observed_at else None
            self._log.append(LogEntry(k, t.canonical, self._result_text(out), view))
        self._log.append(LogEntry(len(turns) + 1, "Actions: [Term()]", self.texts.feedback.terminated))
        self._phase1_observed = self._observed
