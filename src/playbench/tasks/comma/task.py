"""The COMMA conversation: a solver who sees a puzzle module and an expert who holds its manual.

Turns (AEC), as the authors' game loop (`main.py` of pschwendy/multimodal_comms): the solver speaks
first; each solver reply is one conversation turn, and the expert answers after every solver turn
that did not end the game (`expert_answers="messages"`, ours, answers only replies without actions).
Every line of a solver reply that contains an action's name (case-insensitive; the first of the
module's actions in its own order) executes it, line after line, also after a strike; the solver is
told only whether each action was a mistake (`rich_feedback`, ours, says why). The timer of the
real-time modules runs a fixed number of seconds per conversation turn, and a reply may let it run
further before an action (`wait_N_seconds`; `turn_clock`, ours, forbids that). The episode ends when
the module is disarmed (goal_reached), after `max_steps` turns (step_cap), at `mistake_limit`
strikes (mistake_limit), or when the clock reaches zero (time_limit); with `judge=true` a judge then
labels a failed episode. Any module driven through `PuzzleModule` plays the same way; `comma/all`
deals instances of all ten. The episode template (`EpisodeTask`) runs the turn order, counts the
solver's turns and applies the cap; `Session` holds the rules, shared with the instance generator.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.judge import JUDGE_ROLE, JudgeQuestion
from playbench.core.model_side import ModelSide
from playbench.core.original_texts import TextsOptions, texts_source
from playbench.core.originals import OriginalsUse
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, StepResult, TextPart, Validity
from playbench.render.draw2d import to_png
from playbench.tasks.comma import original_views, paper_set, prompts, summaries
from playbench.tasks.comma.model_side import COMMA_MODEL_SIDE
from playbench.tasks.comma.module import MAX_WAIT, WAIT_LINE, PuzzleModule
from playbench.tasks.comma.modules import NAMES, module_class
from playbench.tasks.comma.originals import USE
from playbench.tasks.comma.texts import OriginalWords

# The timer starts between 06:00 and 09:59 (drawn per instance), so the minutes digit (6-9) never
# satisfies a "timer shows a 1/4/5" rule by itself and twenty turns never run it out.
START_CLOCK_MIN, START_CLOCK_MAX = 360, 599
GENERATION_ATTEMPTS = 200
# The oracle pair must solve an instance within this many turns for the generator to keep it. It is
# the paper's limit, fixed on purpose: the run's own `max_steps` and `mistake_limit` are conditions of
# play, so a run with a 5-turn limit (Figure 5's x axis) plays the same instances as the default one.
GENERATION_TURNS = 20
WAIT_MESSAGE = "I am waiting for the right moment on the timer; nothing to press this turn."
EMPTY_SOLVER_REPLY = (
    "Your reply was empty: no message was sent and no action was taken (the turn still counts)."
)
EMPTY_EXPERT_REPLY = "The expert's reply was empty; the solver hears nothing."
JUDGE_KIND = "failure_label"
# how the judge's prompt names a failed episode's end (the words it has always read)
FAILED_BY = {
    Termination.STEP_CAP: "turn limit",
    Termination.MISTAKE_LIMIT: "mistake limit",
    Termination.TIME_LIMIT: "time out",
}
# A reply's lines: line breaks, and the two characters backslash-n a person types at a terminal (the
# authors' human agent splits on those)
LINE_SPLIT = re.compile(r"\r\n|\r|\n|\\n")
# what the solver is told about an action (the authors' environment messages, in our words)
ACTION_DONE = "The action was carried out."
ACTION_MISTAKE = "That action was a mistake."
WAIT = "wait"


class CommaConfig(TextsOptions):
    """Options (`--set key=value`); the registered tasks fix `module`. `texts` and `originals`
    (`TextsOptions`): the authors' words from their clone or ours."""

    module: str = "all"  # a module name, or "all" for instances of every module
    max_steps: int = 20  # conversation turns (solver replies) per episode, as in the paper's tables
    mistake_limit: int | None = None  # end the episode at this many strikes (the authors' code: 3)
    expert_word_limit: int | None = None  # cut each expert message after this many words
    seconds_per_turn: int = 7  # simulated seconds the timer runs down per conversation turn
    instances_per_module: int = 100  # size of the default set, per module
    judge: bool = False  # a judge labels failed episodes (set by --judge-model)
    # the paper's protocol is the default; the options below restore extensions of ours
    expert_answers: Literal["every_turn", "messages"] = (
        "every_turn"  # "messages": only replies without actions
    )
    rich_feedback: bool = False  # tell the solver what each action did and why it was a mistake
    stop_at_strike: bool = False  # a strike ends the reply: its later action lines are not carried out
    solver_hints: bool = False  # the solver sees the turn, limits, mistakes, how replies are read, [turn N]
    turn_clock: bool = False  # time passes only with turns: no wait_N_seconds lines
    button_colors: Literal["yellow", "all"] = "yellow"  # "all": red, blue and white buttons too (our rules)
    keypad_columns: Literal[6, 4] = 6  # 4: our earlier four-column symbol table
    expert_manual: Literal["image", "text"] = "image"  # "text": the keypad's columns described in words
    mark_cut_wires: bool = False  # draw a gap in a cut wire (the original's picture does not change)
    keypad_lights: bool = False  # keys pressed in order light up (the original's keys show nothing)
    message_chars: int | None = None  # cut each message after this many characters (the original: never)
    maze_layout: Literal["paper", "generated"] = "paper"  # "generated": our random perfect mazes
    # the authors' puzzle set (their config/puzzles_final.json; the clone's by default): the instances
    # of the eight puzzles it holds; None: generated (button and dog always are)
    puzzles: str | None = None

    @field_validator("module")
    @classmethod
    def _known_module(cls, value: str) -> str:
        if value != "all" and value not in NAMES:
            raise ValueError(f"must be 'all' or one of {', '.join(NAMES)}")
        return value

    @field_validator("max_steps", "instances_per_module", "seconds_per_turn")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("mistake_limit", "expert_word_limit", "message_chars")
    @classmethod
    def _positive_or_none(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("must be at least 1 (or null for no limit)")
        return value


class CommaInstance(Instance):
    module: str
    params: dict[str, Any]
    start_clock: int  # seconds on the timer at the first turn


@dataclass(frozen=True)
class SolverReply:
    """A non-empty solver reply, read: its lines and the action each line names (if any)."""

    text: str
    lines: list[str]
    named: list[tuple[str, str]]  # (line, action) for the lines that name an action
    note: str | None  # the one-action-per-line note, when a line names more than one


@dataclass(frozen=True)
class ExpertReply:
    text: str


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


def actions_in(line: str, names: list[str]) -> list[str]:
    """Every action named in `line`, in the module's own order: as the authors' `execute_action`,
    a name counts wherever it occurs in the line, upper or lower case."""
    lowered = line.lower()
    return [n for n in names if n.lower() in lowered]


def find_action(line: str, names: list[str]) -> str | None:
    """The action a line carries out: the first of the module's actions (in its order) it names."""
    found = actions_in(line, names)
    return found[0] if found else None


def crowded_lines_note(lines: list[str], names: list[str]) -> str | None:
    """A note for lines that name more than one action: only the first of each line is carried out."""
    crowded = []
    for line in lines:
        found = list(dict.fromkeys(actions_in(line, names)))
        if len(found) > 1:
            crowded.append(f"'{line.strip()[:80]}' ({found[0]}; not {', '.join(found[1:])})")
    if not crowded:
        return None
    return (
        "One action per line: only the first action named on a line is carried out. "
        f"Lines with more than one: {'; '.join(crowded)}."
    )


def cut_words(text: str, limit: int) -> str:
    """`text` up to its `limit`-th word (whitespace and line breaks kept), marked when cut."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= limit:
        return text
    return text[: words[limit - 1].end()] + f" [cut at {limit} words]"


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


def cut_chars(text: str, limit: int | None) -> str:
    """`text` without surrounding whitespace, cut after `limit` characters and marked when cut
    (`message_chars`, ours; the original never cuts a message)."""
    text = text.strip()
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + " [message cut]"


def make_instance(name: str, seed: int, index: int, config: CommaConfig) -> CommaInstance:
    """Instance `index` of module `name`: parameters and start time from a seed of its own, redrawn
    until the oracle pair solves it within GENERATION_TURNS turns at the configured clock step;
    `optimal_steps` is the number of conversation turns that pair needs. Only the clock step shapes
    the set (a real-time puzzle must be solvable at it); the turn and mistake limits do not."""
    cls = module_class(name)
    rng = random.Random(derive_seed("comma", name, seed, index))
    # conditions of play (the turn and mistake limits, the expert's word limit, what the players are
    # shown) leave the set alone; the clock and the turn protocol shape it (solvable, optimal_steps)
    rules = config.model_copy(
        update={
            "max_steps": GENERATION_TURNS,
            "mistake_limit": None,
            "expert_word_limit": None,
            "stop_at_strike": False,
        }
    )
    options = generation_options(cls, config)
    for _ in range(GENERATION_ATTEMPTS):
        params = json.loads(json.dumps(cls.generate(rng, **options)))  # plain JSON, as after a round trip
        start = rng.randint(START_CLOCK_MIN, START_CLOCK_MAX)
        steps = oracle_turns(cls(params), start, rules)
        if steps is not None:
            return CommaInstance(
                id=f"{name}-{index:04d}", module=name, params=params, start_clock=start, optimal_steps=steps
            )
    raise ConfigError(
        f"comma/{name}: no instance the oracle can solve within {GENERATION_TURNS} turns at "
        f"seconds_per_turn={config.seconds_per_turn} (real-time puzzles need a step coprime with 10)"
    )


def instance_for(name: str, seed: int, index: int, config: CommaConfig) -> CommaInstance:
    """Instance `index` of module `name`: from the authors' set (`puzzles`) when it holds the module,
    else generated."""
    if config.puzzles is not None and name in paper_set.PAPER_MODULES:
        return paper_instance(name, index, config)
    return make_instance(name, seed, index, config)


def paper_instance(name: str, index: int, config: CommaConfig) -> CommaInstance:
    """Puzzle `index` of module `name` in the authors' set, as our instance: the same for every seed
    (the set is fixed); the start time, and what their module draws while playing, from a seed of the
    puzzle's own. `optimal_steps` is the oracle pair's turns (None if it cannot solve it in 20)."""
    assert config.puzzles is not None
    params = paper_set.paper_instance_params(config.puzzles, name, index)
    if params is None:
        size = paper_set.set_size(config.puzzles, name)
        raise ConfigError(
            f"comma/{name}: the authors' puzzle set ({config.puzzles}) holds {size} {name} puzzles, "
            f"not {index + 1} (lower instances_per_module or --episodes, or --set puzzles=null)"
        )
    cls = module_class(name)
    try:
        module = cls(params)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ConfigError(f"comma: the authors' {name} puzzle {index} does not convert ({exc})") from None
    start = random.Random(derive_seed("comma-paper-clock", name, index)).randint(
        START_CLOCK_MIN, START_CLOCK_MAX
    )
    rules = config.model_copy(
        update={
            "max_steps": GENERATION_TURNS,
            "mistake_limit": None,
            "expert_word_limit": None,
            "stop_at_strike": False,
        }
    )
    steps = oracle_turns(module, start, rules)
    return CommaInstance(
        id=f"{name}-{index:04d}", module=name, params=params, start_clock=start, optimal_steps=steps
    )


def generation_options(cls: type[PuzzleModule], config: CommaConfig) -> dict[str, Any]:
    """The task options a module's generator takes (`PuzzleModule.generation_options`)."""
    values = {
        "palette": config.button_colors,
        "columns": config.keypad_columns,
        "layout": config.maze_layout,
    }
    return {name: values[name] for name in cls.generation_options}


def oracle_turns(module: PuzzleModule, start_clock: int, config: CommaConfig) -> int | None:
    """Conversation turns the oracle solver (with the oracle expert) needs, or None if it fails."""
    session = Session(module, start_clock, config)
    while session.ending(config.max_steps) is None:
        result = session.solver_turn(session.read_solver(session.oracle_solver_text()))
        if session.ending(config.max_steps) is None and session.expert_answers(result):
            session.expert_turn(session.read_expert(session.oracle_expert_text()))
    return session.turns if module.solved and session.mistakes == 0 else None


class CommaTask(EpisodeTask):
    """One COMMA puzzle (or all ten) as a solver/expert conversation. The ids fix `module`."""

    Config: ClassVar[type[TaskConfig]] = CommaConfig
    InstanceModel: ClassVar[type[Instance]] = CommaInstance
    instance_label: ClassVar[str] = "comma"
    # texts from the authors' clone (texts=original), and their puzzle set as the `puzzles` default
    originals: ClassVar[OriginalsUse | None] = USE
    config: CommaConfig

    @property
    def words(self) -> OriginalWords | None:
        """The authors' words (texts=original), read from the clone once; None: ours."""
        if not hasattr(self, "_words"):
            source = texts_source(self.config, USE)
            self._words = OriginalWords.read(source) if source is not None else None
        return self._words

    def preflight(self) -> None:
        """Read every text of the original the seats will get, and the puzzle set, before playing."""
        _ = self.words
        if self.config.puzzles is not None:
            paper_set.read_set(self.config.puzzles)

    def data_origin(self) -> str:
        """`original@<commit>` for the puzzles of the authors' set, `generated` for ours."""
        from_set = [n for n in self.module_names if n in paper_set.PAPER_MODULES]
        if self.config.puzzles is None or not from_set:
            return "generated"
        stamp = paper_set.set_stamp(self.config.puzzles)
        rest = [n for n in self.module_names if n not in paper_set.PAPER_MODULES]
        return stamp if not rest else f"{stamp} ({len(from_set)} puzzles), generated ({', '.join(rest)})"

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("solver", "expert", JUDGE_ROLE) if self.config.judge else ("solver", "expert")

    def model_side(self) -> ModelSide:
        """The authors' generation settings for the solver and the expert (`model_side.py`)."""
        return COMMA_MODEL_SIDE

    @property
    def module_names(self) -> tuple[str, ...]:
        return NAMES if self.config.module == "all" else (self.config.module,)

    # --- instances -------------------------------------------------------------------------------
    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        names = self.module_names
        # round robin over the modules, so any prefix of comma/all covers them evenly
        if n is not None:
            return [instance_for(names[i % len(names)], seed, i // len(names), self.config) for i in range(n)]
        sizes = {name: self._set_size(name) for name in names}
        return [
            instance_for(name, seed, k, self.config)
            for k in range(max(sizes.values()))
            for name in names
            if k < sizes[name]
        ]

    def _set_size(self, name: str) -> int:
        """Instances of `name` in the default set: `instances_per_module`, at most the authors' set's."""
        size = self.config.instances_per_module
        if self.config.puzzles is not None and name in paper_set.PAPER_MODULES:
            size = min(size, paper_set.set_size(self.config.puzzles, name))
        return size

    def load_instance(self, data: dict[str, Any]) -> Instance:
        instance = super().load_instance(data)
        assert isinstance(instance, CommaInstance)
        if instance.module not in self.module_names:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: module '{instance.module}' is not played by this task"
            )
        return instance

    # --- the game --------------------------------------------------------------------------------
    def _begin(self, instance: CommaInstance) -> None:
        cls = module_class(instance.module)
        try:
            module = cls(instance.params)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: bad {instance.module} parameters ({exc})"
            ) from None
        module.options = {
            "mark_cut_wires": self.config.mark_cut_wires,
            "keypad_lights": self.config.keypad_lights,
        }
        self.session = Session(module, instance.start_clock, self.config, self.words)
        self._awaiting_expert = False  # the solver's last reply was a message the expert answers
        self._feedback = ""  # what the solver's last reply did, shown at its next turn
        self._render_cache: tuple[tuple[int, int], bytes] | None = None
        self._manual_png: bytes | None = None

    @property
    def module(self) -> PuzzleModule:
        return self.session.module

    def state(self) -> dict[str, Any]:
        """The module's whole state (wires cut, keys lit, stage, mouse, button held, ...), the
        strikes, whether it is disarmed and the seconds waited with wait lines. The clock itself is
        left out on purpose: it is `start_clock - turns * seconds_per_turn - waited`, and the turn
        count is the template's step counter; every reply uses a turn, also an empty one or one
        naming only unavailable actions, so with the clock no reply could leave the state unchanged."""
        s = self.session
        return {
            "module": self.instance.module,
            "start_clock": s.start_clock,
            "waited": s.waited,
            "mistakes": s.mistakes,
            "solved": self.module.solved,
            "puzzle": self.module.state(),
        }

    def _acting_role(self) -> str:
        return "expert" if self._awaiting_expert else "solver"

    def _parse(self, text: str) -> SolverReply | ExpertReply | ParseError:
        if self._acting_role() == "expert":
            return self.session.read_expert(text)
        return self.session.read_solver(text)

    def _apply(self, parsed: SolverReply | ExpertReply) -> StepResult:
        if isinstance(parsed, ExpertReply):
            return self.session.expert_turn(parsed)
        return self.session.solver_turn(parsed)

    def _on_parse_error(self, error: ParseError) -> StepResult:
        # an empty reply is still a reply: the solver's uses its turn, the expert's is recorded
        if self._acting_role() == "expert":
            return self.session.expert_turn(error)
        return self.session.solver_turn(error)

    def _counts_step(self, role: str, result: StepResult) -> bool:
        return role == "solver"  # a conversation turn is one solver reply (with the expert's answer)

    def _check_end(self, result: StepResult) -> Termination | None:
        return self.session.ending()  # the template applies the turn limit (`max_steps`) itself

    def _end_feedback(self, termination: Termination) -> str:
        return {
            Termination.GOAL_REACHED: "The game is won.",
            Termination.MISTAKE_LIMIT: f"The mistake limit ({self.config.mistake_limit}) is reached: the game is over.",
            Termination.TIME_LIMIT: "The timer ran out: the game is over.",
            Termination.STEP_CAP: f"The conversation limit ({self.config.max_steps} turns) is reached: the game is over.",
        }[termination]

    def _after_step(self, role: str, result: StepResult) -> None:
        if role == "solver":
            self._awaiting_expert = self.termination is None and self.session.expert_answers(result)
            self._feedback = result.feedback
        else:
            self._awaiting_expert = False

    # --- observations ----------------------------------------------------------------------------
    def _observe(self, role: str) -> Observation:
        if role == "solver":
            return self._observe_solver()
        if role == "expert":
            return self._observe_expert()
        return Observation(
            role=JUDGE_ROLE,
            parts=[TextPart("The game is still being played; there is nothing to judge yet.")],
            instructions=prompts.JUDGE,
            step=self.session.turns,
        )

    def _image(self) -> bytes:
        key = (self.session.clock, self.session.version)
        if self._render_cache is None or self._render_cache[0] != key:
            self._render_cache = (key, to_png(self.module.render(float(self.session.clock))))
        return self._render_cache[1]

    def solver_format_text(self) -> str:
        """`solver_hints` (ours): how replies are read, and the limits."""
        limit = self.config.mistake_limit
        every = self.config.expert_answers == "every_turn"
        return prompts.SOLVER_FORMAT.format(
            answered=prompts.ANSWERED_EVERY_TURN if every else prompts.ANSWERED_MESSAGES,
            max_steps=self.config.max_steps,
            mistake_clause=f" or after {limit} mistakes" if limit is not None else "",
            seconds=self.config.seconds_per_turn,
        )

    def _solver_instructions(self) -> str:
        if self.words is not None:
            return self.words.system
        text = prompts.SOLVER
        if self.session.waits_allowed:
            text += "\n\n" + prompts.WAIT_NOTE.format(max_wait=MAX_WAIT)
        if self.config.solver_hints:
            text += "\n\n" + self.solver_format_text()
        return text

    def _observe_solver(self) -> Observation:
        """What the original's solver gets: the module's picture, the actions with the line on how to
        write one, and the conversation with what its actions did. `solver_hints` (ours) adds the
        turn, the limits and the mistakes so far, and last turn's results on their own."""
        s = self.session
        parts: list[TextPart | ImagePart] = []
        if self.config.solver_hints:
            limit = f" (limit {self.config.mistake_limit})" if self.config.mistake_limit is not None else ""
            parts.append(
                TextPart(
                    f"{self.module.title}. Conversation turn {s.turns + 1} of {self.config.max_steps}. "
                    f"Mistakes so far: {s.mistakes}{limit}."
                )
            )
            if self._feedback:
                parts.append(TextPart("What happened last turn:\n" + self._feedback))
        actions = self.module.actions()
        if self.words is not None:
            parts = original_views.solver_parts(self, parts)
        else:
            parts.append(ImagePart(self._image(), label="module"))
            parts.append(
                TextPart(
                    "The actions available now:\n"
                    + ("\n".join(actions) or "(none)")
                    + "\n\n"
                    + prompts.ACTION_FORMAT
                )
            )
            transcript = s.transcript("solver") or "(nothing has been said yet)"
            parts.append(TextPart("Conversation so far:\n" + transcript))
            parts.append(TextPart("Your reply:"))
        return Observation(
            role="solver",
            parts=parts,
            instructions=self._solver_instructions(),
            legal_actions=actions,
            feedback=self._feedback,
            step=s.turns,
            data={
                **self._public_facts(),
                "turn": s.turns + 1,
                "mistakes": s.mistakes,
                "clock": s.clock,  # the timer drawn on the module
                "waits": s.waits_allowed,
                "actions": list(actions),
                "messages": {"solver": s.solver_messages, "expert": s.expert_messages},
            },
        )

    def _manual_image(self) -> bytes | None:
        """The manual page the expert gets as a picture (the keypad's columns), unless text-only."""
        if self.config.expert_manual != "image":
            return None
        if self._manual_png is None:
            page = self.module.manual_image()
            self._manual_png = b"" if page is None else to_png(page)
        return self._manual_png or None

    def expert_manual_text(self) -> str:
        """The manual text in the expert's instructions (beside the page when it gets the picture)."""
        if self._manual_image() is not None:
            return self.module.manual_beside_image()
        return self.module.manual()

    def _observe_expert(self) -> Observation:
        s = self.session
        if self.words is not None:
            return self._expert_observation(self.words.system, original_views.expert_parts(self))
        instructions = prompts.EXPERT
        if self.config.expert_word_limit is not None:
            instructions += " " + prompts.EXPERT_WORD_LIMIT.format(limit=self.config.expert_word_limit)
        instructions += f"\n\nMANUAL - {self.module.title}\n\n{reflow(self.expert_manual_text())}"
        parts: list[TextPart | ImagePart] = []
        page = self._manual_image()
        if page is not None:
            parts.append(ImagePart(page, label="manual"))
        parts += [
            TextPart(f"Conversation so far ({self.module.title}):\n" + (s.transcript("expert") or "(none)")),
            TextPart("Your reply to the solver:"),
        ]
        return self._expert_observation(instructions, parts)

    def _expert_observation(self, instructions: str, parts: list[TextPart | ImagePart]) -> Observation:
        s = self.session
        return Observation(
            role="expert",
            parts=parts,
            instructions=instructions,
            legal_actions=[],
            step=s.turns,
            data={
                **self._public_facts(),
                "turn": s.turns,
                "expert_word_limit": self.config.expert_word_limit,
                "manual_image": any(isinstance(p, ImagePart) for p in parts),
            },
        )

    def _public_facts(self) -> dict[str, Any]:
        """What both seats know from their instructions: the puzzle and the limits."""
        return {
            "module": self.instance.module,
            "title": self.module.title,
            "turn_limit": self.config.max_steps,
            "mistake_limit": self.config.mistake_limit,
            "seconds_per_turn": self.config.seconds_per_turn,
        }

    # --- the judge -------------------------------------------------------------------------------
    def _judge_questions(self) -> list[JudgeQuestion]:
        if self.module.solved:
            return []  # only failed episodes are labelled
        s = self.session
        text = (
            f"Puzzle: {self.module.title}.\n"
            f"Manual the expert held:\n{reflow(self.module.manual())}\n\n"
            f"Outcome: failed ({FAILED_BY.get(self.termination, '')}) after {s.turns} turns with "
            f"{s.mistakes} mistakes; progress {self.module.partial_score():.0%}.\n\n"
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

    # --- oracle and outcome ----------------------------------------------------------------------
    def _oracle(self, role: str) -> str | None:
        if role == "solver":
            return self.session.oracle_solver_text()
        if role == "expert":
            return self.session.oracle_expert_text()
        return None

    def _outcome(self) -> EpisodeResult:
        s = self.session
        solved = self.module.solved
        metrics: dict[str, Any] = {
            "module": self.instance.module,
            "partial_score": 1.0 if solved else float(self.module.partial_score()),
            "mistakes": s.mistakes,
            "conversation_length": s.turns if solved else self.config.max_steps,
            "turns_used": s.turns,
            "solver_messages": s.solver_messages,
            "expert_messages": s.expert_messages,
            "actions_executed": s.actions_executed,
            "repetition_loop": s.repeated_mistakes > 0,
            "repeated_mistakes": s.repeated_mistakes,
        }
        metrics.update(summaries.turn_limit_metrics(s.solved_after, s.mistakes_after, self.config.max_steps))
        if self.judge is not None and self.judge.replied(JUDGE_KIND):
            labels = self.judge.values(JUDGE_KIND)
            label = labels[0] if labels else None
            metrics["judge_label"] = label or "unparseable"
            metrics["judge_unparseable"] = label is None
            for name in prompts.JUDGE_LABELS:
                metrics[f"judge_{name.replace(' ', '_')}"] = label == name
        return EpisodeResult(success=solved, steps=s.turns, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return summaries.summarize(episodes, self.config.max_steps)
