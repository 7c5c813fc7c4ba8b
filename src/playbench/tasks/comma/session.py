"""The rules of one COMMA episode (`Session`): the turns, the actions, the clock, the oracles and the
transcripts, without any rendering or turn order; the task and the instance generator share it."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from playbench.core.episode import ParseError
from playbench.core.termination import Termination
from playbench.core.types import StepResult, Validity
from playbench.tasks.comma.config import CommaConfig
from playbench.tasks.comma.module import MAX_WAIT, WAIT_LINE, PuzzleModule
from playbench.tasks.comma.replies import (
    ACTION_DONE,
    ACTION_MISTAKE,
    EMPTY_EXPERT_REPLY,
    EMPTY_SOLVER_REPLY,
    LINE_SPLIT,
    WAIT,
    WAIT_MESSAGE,
    ExpertReply,
    SolverReply,
    crowded_lines_note,
    cut_chars,
    cut_words,
    find_action,
)
from playbench.tasks.comma.texts import OriginalWords

# the most turns `Session.oracle_distance` plays ahead (the generator keeps puzzles the pair solves in 20)
DISTANCE_LIMIT = 40


@dataclass
class Entry:
    """One utterance of the conversation."""

    turn: int
    role: str  # "solver" or "expert"
    text: str
    acted: bool = False  # the solver's reply executed actions (it was not a message)
    results: list[str] = field(default_factory=list)  # what the actions did (the solver's eyes only)
    truth: str = ""  # the module's true state before the reply (the judge's eyes only)
    # texts=original: the environment's lines after this reply as the original words them (None: ours)
    environment: list[str] | None = None


class Session:
    """The rules of one episode without any rendering or turn order: the task and the instance
    generator (which plays the oracle pair to count `optimal_steps`) share it, so both see exactly
    the same game. `turns` counts conversation turns (solver replies); the clock runs
    `seconds_per_turn` per turn plus the seconds the solver let it run with wait lines."""

    def __init__(
        self,
        module: PuzzleModule,
        start_clock: int,
        config: CommaConfig,
        words: OriginalWords | None = None,
    ) -> None:
        self.module = module
        self.words = words  # texts=original: the authors' words (feedback, transcript labels)
        self.start_clock = start_clock
        self.config = config
        self.turns = 0
        self.waited = 0  # seconds the solver let the timer run with wait lines
        self.mistakes = 0
        self.entries: list[Entry] = []
        self.mistake_pairs: set[tuple[str, str]] = set()
        self.repeated_mistakes = 0
        self.solved_after: list[bool] = []  # per conversation turn
        self.mistakes_after: list[int] = []
        self.actions_executed = 0
        self.solver_messages = 0
        self.expert_messages = 0
        self.version = 0  # bumps whenever the module may have changed (render cache key)

    @property
    def clock(self) -> int:
        return self.start_clock - self.turns * self.config.seconds_per_turn - self.waited

    @property
    def waits_allowed(self) -> bool:
        """Wait lines work on the real-time modules unless the turn clock (ours) is chosen."""
        return self.module.realtime and not self.config.turn_clock

    def ending(self, max_turns: int | None = None) -> Termination | None:
        """Why the game is over now, or None (the first that holds, in this order); the turn
        limit only when `max_turns` is given (the task leaves it to the template's cap)."""
        if self.module.solved:
            return Termination.GOAL_REACHED
        if self.config.mistake_limit is not None and self.mistakes >= self.config.mistake_limit:
            return Termination.MISTAKE_LIMIT
        if self.clock <= 0:
            return Termination.TIME_LIMIT
        if max_turns is not None and self.turns >= max_turns:
            return Termination.STEP_CAP
        return None

    def expert_answers(self, result: StepResult) -> bool:
        """Whether the expert speaks after this solver turn (which did not end the game)."""
        return self.config.expert_answers == "every_turn" or result.parsed == "message"

    # --- the solver ---------------------------------------------------------------------------
    def read_solver(self, text: str) -> SolverReply | ParseError:
        if not text.strip():
            return ParseError(EMPTY_SOLVER_REPLY, reason="empty")
        vocabulary = self.module.action_vocabulary()
        lines = [line for line in LINE_SPLIT.split(text) if line.strip()]
        named: list[tuple[str, str]] = []
        for line in lines:
            action = find_action(line, vocabulary)
            if action is None and self.waits_allowed and WAIT_LINE.search(line):
                action = WAIT
            if action is not None:
                named.append((line, action))
        note = crowded_lines_note(lines, vocabulary) if named and self.config.rich_feedback else None
        return SolverReply(text, lines, named, note)

    def solver_turn(self, reply: SolverReply | ParseError) -> StepResult:
        """One conversation turn: act on the module, send a message, or (an empty reply) nothing;
        every reply uses the turn."""
        clock = self.clock
        truth = self.module.describe(clock)
        if isinstance(reply, ParseError):
            self.entries.append(Entry(self.turns + 1, "solver", "", truth=truth))
            result = StepResult(
                Validity.UNPARSEABLE, reply.message, reason=reply.reason, info={"reply": "empty"}
            )
        else:
            text = cut_chars(reply.text, self.config.message_chars)
            entry = Entry(self.turns + 1, "solver", text, acted=bool(reply.named), truth=truth)
            if self.words is not None:
                entry.environment = []
            self.entries.append(entry)
            result = self._act(reply.named, entry) if reply.named else self._message()
            result.info["cut"] = text != reply.text.strip()
            if reply.note is not None:
                entry.results.append(reply.note)
                if entry.environment is not None:
                    entry.environment.append(reply.note)
                result.feedback += f"\n{reply.note}"
        self.turns += 1
        self.solved_after.append(self.module.solved)
        self.mistakes_after.append(self.mistakes)
        result.info.update(turn=self.turns, clock=clock, mistakes=self.mistakes, solved=self.module.solved)
        return result

    def _message(self) -> StepResult:
        self.solver_messages += 1
        return StepResult(
            Validity.EFFECTIVE,
            "Your message was sent to the expert.",
            parsed="message",
            info={"reply": "message"},
        )

    def _wait(self, line: str) -> tuple[str, bool]:
        """A wait line: the timer runs its seconds (1-MAX_WAIT); the result and whether it ran."""
        match = WAIT_LINE.search(line)
        seconds = int(match.group(1)) if match else 0
        if not 1 <= seconds <= MAX_WAIT:
            return (
                f"{match.group(0) if match else line}: waits are 1 to {MAX_WAIT} seconds (no effect).",
                False,
            )
        self.waited += seconds
        self.version += 1
        return f"wait_{seconds}_seconds: the timer ran {seconds} seconds.", True

    def _act(self, named: list[tuple[str, str]], entry: Entry) -> StepResult:
        executed: list[str] = []
        carried: list[str] = []  # the lines carried out, waits included, in order
        unavailable: list[str] = []
        waited = 0
        strikes = 0
        skipped = 0
        effective = False
        for k, (line, action) in enumerate(named):
            if action == WAIT:
                text, ran = self._wait(line)
                entry.results.append(text)
                if entry.environment is not None:
                    entry.environment.append(text)  # ours: the original has no wait lines
                if ran:
                    seconds = int(text.split("_")[1])
                    waited += seconds
                    carried.append(f"wait_{seconds}_seconds")
                    effective = True
                else:
                    unavailable.append(WAIT)
                if self.clock <= 0:  # the timer ran out while waiting
                    break
                continue
            if action not in self.module.actions():
                unavailable.append(action)
                entry.results.append(f"{action}: not available right now (no effect).")
                continue
            clock = self.clock
            state = self.module.state_key(clock)
            outcome = self.module.apply(action, clock)
            self.version += 1
            self.actions_executed += 1
            executed.append(action)
            carried.append(action)
            if self.config.rich_feedback:
                entry.results.append(f"{action}: {outcome.feedback}")
            else:
                entry.results.append(f"{action}: {ACTION_MISTAKE if outcome.mistake else ACTION_DONE}")
            if entry.environment is not None:
                # the original's environment message: whether the action was a mistake, no name
                said = self.words["feedback.mistake" if outcome.mistake else "feedback.done"]  # type: ignore[index]
                entry.environment.append(entry.results[-1] if self.config.rich_feedback else said)
            if outcome.mistake:
                self.mistakes += 1
                strikes += 1
                if (state, action) in self.mistake_pairs:
                    self.repeated_mistakes += 1
                self.mistake_pairs.add((state, action))
            elif outcome.changed:
                effective = True
            # as the authors' loop, the reply goes on after a strike; it stops once the module is
            # disarmed or the mistake limit is reached (or, with stop_at_strike, at any strike)
            over = self.module.solved or (
                self.config.mistake_limit is not None and self.mistakes >= self.config.mistake_limit
            )
            if (over or (outcome.mistake and self.config.stop_at_strike)) and k + 1 < len(named):
                skipped = len(named) - k - 1
                if self.config.rich_feedback or self.config.stop_at_strike:
                    reason = (
                        "the module is disarmed"
                        if self.module.solved
                        else ("of the strike" if not over else "the mistake limit is reached")
                    )
                    entry.results.append(
                        f"The remaining {skipped} action line(s) were not carried out because {reason}."
                    )
                    if entry.environment is not None:
                        entry.environment.append(entry.results[-1])
                break
        feedback = "\n".join(entry.results)
        info = {
            "reply": "actions",
            "executed": executed,
            "unavailable": unavailable,
            "waited": waited,
            "skipped": skipped,
            "strikes": strikes,
        }
        if not executed and not waited:
            return StepResult(Validity.INVALID, feedback, reason="unavailable", info=info)
        validity = Validity.EFFECTIVE if effective else Validity.INEFFECTIVE
        return StepResult(validity, feedback, parsed="\n".join(carried), info=info)

    # --- the expert ---------------------------------------------------------------------------
    def read_expert(self, text: str) -> ExpertReply | ParseError:
        if not text.strip():
            return ParseError(EMPTY_EXPERT_REPLY, reason="empty")
        return ExpertReply(text)

    def expert_turn(self, reply: ExpertReply | ParseError) -> StepResult:
        if isinstance(reply, ParseError):
            # the original passes an empty reply on as it is
            self.entries.append(Entry(self.turns, "expert", "" if self.words is not None else "(no reply)"))
            return StepResult(
                Validity.UNPARSEABLE, reply.message, reason=reply.reason, info={"reply": "empty"}
            )
        text = reply.text
        if self.config.expert_word_limit is not None:
            text = cut_words(text, self.config.expert_word_limit)
        cut = text != reply.text
        text, whole = cut_chars(text, self.config.message_chars), text.strip()
        self.expert_messages += 1
        self.entries.append(Entry(self.turns, "expert", text))
        info = {"reply": "message", "cut": cut or text != whole}
        return StepResult(
            Validity.EFFECTIVE, "Your reply was passed to the solver.", parsed="message", info=info
        )

    # --- oracles --------------------------------------------------------------------------------
    def oracle_actions_text(self) -> str:
        """The right lines to play now, as a solver who knew the manual would type them."""
        if self.waits_allowed:
            actions = self.module.oracle_actions(self.clock, waits=True)  # type: ignore[call-arg]
        else:
            actions = self.module.oracle_actions(self.clock)
        return "\n".join(actions) if actions else WAIT_MESSAGE

    def oracle_solver_text(self) -> str:
        """The oracle solver plays the solver's part: it has no manual, so it describes what it sees
        (exactly) and asks, then carries out the action lines of the expert's answer to it. A person
        in the expert seat thus plays a real turn on every puzzle; with the oracle expert, who answers
        with the right lines, the pair needs one turn more than the lines themselves."""
        answer = self._fresh_expert_answer()
        following = self.lines_named_in(answer) if answer is not None else []
        if following:
            return "\n".join(following)
        # a description must not name an action, which would carry it out: the actions are spelled
        # with spaces, and one-word actions (submit, which the manuals name) are left out
        actions = [a.replace("_", " ") for a in self.module.actions() if "_" in a]
        seen = self.module.describe(self.clock).replace("_", " ")
        can = f" I can: {', '.join(actions)}." if actions else ""
        return f"{seen}{can} What should I do? Tell me one action per line."

    def _fresh_expert_answer(self) -> str | None:
        """The expert's answer to the solver's last reply, if the expert has answered it."""
        if self.entries and self.entries[-1].role == "expert":
            return self.entries[-1].text
        return None

    def lines_named_in(self, text: str) -> list[str]:
        """The lines of `text` that are exactly an action of the module (spaces or underscores) or a
        wait line, in canonical spelling: what the oracle solver carries out from an expert's answer."""
        vocabulary = {a.lower(): a for a in self.module.action_vocabulary()}
        lines = []
        for line in LINE_SPLIT.split(text):
            spelled = re.sub(r"[\s-]+", "_", line.strip().strip(".!").lower())
            if spelled in vocabulary:
                lines.append(vocabulary[spelled])
            elif self.waits_allowed and WAIT_LINE.fullmatch(spelled):
                lines.append(spelled)
        return lines

    def oracle_expert_text(self) -> str:
        if self.module.realtime:
            return self.module.oracle_instruction(self.clock, waits=self.waits_allowed)  # type: ignore[call-arg]
        return self.module.oracle_instruction(self.clock)

    # --- progress (error maps) ----------------------------------------------------------------
    def oracle_distance(self, expert_next: bool, limit: int = DISTANCE_LIMIT) -> int | None:
        """The conversation turns (solver replies) the oracle pair needs from now to disarm the
        module: 0 once it is disarmed, None when it cannot (the timer ran out, or more than `limit`
        turns). The pair continues from the conversation as it stands: when the expert speaks next,
        the oracle expert answers; at the solver's turn, the oracle solver carries out the expert's
        last answer if its action lines are the ones the oracle expert would give now, else it
        describes the module and asks (a wrong or missing answer costs the turn of asking again).
        The turn and mistake limits are conditions of play, left out as the generator leaves them out.
        Played on a copy of the module: nothing of this session changes."""
        if self.module.solved:
            return 0
        if self.clock <= 0:
            return None
        rules = self.config.model_copy(update={"mistake_limit": None, "max_steps": self.turns + limit})
        sim = Session(copy.deepcopy(self.module), self.start_clock, rules)
        sim.turns, sim.waited = self.turns, self.waited
        if expert_next:
            sim.expert_turn(sim.read_expert(sim.oracle_expert_text()))
        else:
            answer = self._fresh_expert_answer()
            if answer is not None:
                lines = self.lines_named_in(answer)
                if lines and lines == self.lines_named_in(self.oracle_expert_text()):
                    sim.entries.append(Entry(self.turns, "expert", answer))
        while sim.ending(rules.max_steps) is None:
            result = sim.solver_turn(sim.read_solver(sim.oracle_solver_text()))
            if sim.ending(rules.max_steps) is None and sim.expert_answers(result):
                sim.expert_turn(sim.read_expert(sim.oracle_expert_text()))
        return sim.turns - self.turns if sim.module.solved else None

    # --- transcripts ------------------------------------------------------------------------------
    def transcript(self, viewer: str) -> str:
        """The conversation as `viewer` ("solver", "expert" or "judge") may see it. As the authors'
        agents write it: `SOLVER:` / `EXPERT:` lines, and for the solver the `ENVIRONMENT:` results of
        its actions, one blank line between. With `solver_hints` (ours) the solver's copy, and always
        the judge's (ours), numbers the turns instead (`numbered_transcript`)."""
        if viewer == "judge" or (viewer == "solver" and self.config.solver_hints and self.words is None):
            return self.numbered_transcript(viewer)
        lines = []
        for e in self.entries:
            lines.append(f"{e.role.upper()}: {e.text}")
            if viewer == "solver" and e.role == "solver":
                lines.extend(f"ENVIRONMENT: {r}" for r in e.results)
        return "\n\n".join(lines)

    def original_lines(self, viewer: str) -> list[tuple[str, str]]:
        """texts=original: the conversation `viewer` ("solver" or "expert") holds in the original, as
        (label, words): every message, and for the solver the environment's lines after its replies
        (their `add_to_conversations(..., role="solver")`)."""
        assert self.words is not None
        lines = []
        for e in self.entries:
            lines.append((self.words.label(e.role), e.text))
            if viewer == "solver" and e.role == "solver":
                said = e.environment if e.environment is not None else e.results
                lines.extend((self.words.label("environment"), r) for r in said)
        return lines

    def numbered_transcript(self, viewer: str) -> str:
        """Ours: each line starts with `[turn N]`, the viewer's own words are "You", results are
        indented under the reply; the judge also reads the true state before each solver turn."""
        lines = []
        for e in self.entries:
            if e.role == "expert":
                who = "You (expert)" if viewer == "expert" else "Expert"
                lines.append(f"[turn {e.turn}] {who}: {e.text}")
                continue
            who = "You" if viewer == "solver" else "Solver"
            # the original's players see the words only; the judge is told which replies acted
            kind = " (acting on the module)" if e.acted and viewer == "judge" else ""
            lines.append(f"[turn {e.turn}] {who}{kind}: {e.text}")
            if viewer == "judge":
                lines.append(f"    (true state before this turn: {e.truth})")
            if viewer in ("solver", "judge") and e.results:
                lines.extend(f"    -> {r}" for r in e.results)
        return "\n".join(lines)
