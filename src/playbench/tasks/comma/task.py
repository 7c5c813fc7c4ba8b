"""The COMMA conversation: a solver who sees a puzzle module and an expert who holds its manual.

Turns (AEC): the solver speaks first. Each solver reply is one conversation turn: if any of its lines
contains an available action's name (case-insensitive), those lines are executed in order on the
module; otherwise the reply is a message, the expert answers it, and the turn ends. The simulated
clock runs down a fixed number of seconds per conversation turn. The episode ends when the module is
disarmed, after `max_turns` turns, at `mistake_limit` strikes, or when the clock reaches zero; with
`judge=true` a judge then labels a failed episode. Any module driven through `PuzzleModule` plays
the same way; `comma/all` deals instances of all ten.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import field_validator

from playbench.core.errors import ConfigError
from playbench.core.task import Instance, Task, TaskConfig, derive_seed
from playbench.core.types import EpisodeResult, ImagePart, Observation, StepResult, TextPart, Validity
from playbench.render.draw2d import to_png
from playbench.tasks.comma import prompts, summaries
from playbench.tasks.comma.module import PuzzleModule
from playbench.tasks.comma.modules import NAMES, module_class

# The timer starts between 06:00 and 09:59 (drawn per instance), so the minutes digit (6-9) never
# satisfies a "timer shows a 1/4/5" rule by itself and twenty turns never run it out.
START_CLOCK_MIN, START_CLOCK_MAX = 360, 599
MAX_MESSAGE_CHARS = 2000  # longer messages are cut in the transcript, so prompts stay bounded
GENERATION_ATTEMPTS = 200
# The oracle pair must solve an instance within this many turns for the generator to keep it. It is
# the paper's limit, fixed on purpose: the run's own `max_turns` and `mistake_limit` are conditions of
# play, so a run with a 5-turn limit (Figure 5's x axis) plays the same instances as the default one.
GENERATION_TURNS = 20
WAIT_MESSAGE = "I am waiting for the right moment on the timer; nothing to press this turn."
LINE_SPLIT = re.compile(r"\r\n|\r|\n|;")


class CommaConfig(TaskConfig):
    """Options (`--set key=value`); the registered tasks fix `module`."""

    module: str = "all"  # a module name, or "all" for instances of every module
    max_turns: int = 20  # conversation turns (solver replies) per episode, as in the paper's tables
    mistake_limit: int | None = None  # end the episode at this many strikes (the authors' code: 3)
    expert_word_limit: int | None = None  # cut each expert message after this many words
    seconds_per_turn: int = 7  # simulated seconds the timer runs down per conversation turn
    instances_per_module: int = 100  # size of the default set, per module
    judge: bool = False  # a judge labels failed episodes (set by --judge-model)

    @field_validator("module")
    @classmethod
    def _known_module(cls, value: str) -> str:
        if value != "all" and value not in NAMES:
            raise ValueError(f"must be 'all' or one of {', '.join(NAMES)}")
        return value

    @field_validator("max_turns", "instances_per_module", "seconds_per_turn")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("mistake_limit", "expert_word_limit")
    @classmethod
    def _positive_or_none(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("must be at least 1 (or null for no limit)")
        return value


class CommaInstance(Instance):
    module: str
    params: dict[str, Any]
    start_clock: int  # seconds on the timer at the first turn


@dataclass
class Entry:
    """One utterance of the conversation."""

    turn: int
    role: str  # "solver" or "expert"
    text: str
    acted: bool = False  # the solver's reply executed actions (it was not a message)
    results: list[str] = field(default_factory=list)  # what the actions did (the solver's eyes only)
    truth: str = ""  # the module's true state before the reply (the judge's eyes only)


@lru_cache(maxsize=256)
def _action_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    # longest names first, so at one position a name never loses to a shorter one it contains;
    # the lookarounds keep `cut_wire_1` from matching inside `cut_wire_12`
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])", re.IGNORECASE)


def actions_in(line: str, names: list[str]) -> list[str]:
    """Every action named in `line`, left to right, in canonical spelling."""
    if not names:
        return []
    canonical = {n.lower(): n for n in names}
    return [canonical[m.group(0).lower()] for m in _action_pattern(tuple(names)).finditer(line)]


def find_action(line: str, names: list[str]) -> str | None:
    """The action named in `line` (the leftmost one, in its canonical spelling), or None."""
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
    """The rules of one episode without any rendering: the task and the instance generator (which
    plays the oracle pair to count `optimal_steps`) share it, so both see exactly the same game."""

    def __init__(self, module: PuzzleModule, start_clock: int, config: CommaConfig) -> None:
        self.module = module
        self.start_clock = start_clock
        self.config = config
        self.turns = 0
        self.mistakes = 0
        self.entries: list[Entry] = []
        self.awaiting_expert = False
        self.feedback = ""
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
        return self.start_clock - self.turns * self.config.seconds_per_turn

    @property
    def ended_by(self) -> str | None:
        if self.module.solved:
            return "solved"
        if self.config.mistake_limit is not None and self.mistakes >= self.config.mistake_limit:
            return "mistake_limit"
        if self.clock <= 0:
            return "time_out"
        if self.turns >= self.config.max_turns:
            return "turn_limit"
        return None

    @property
    def over(self) -> bool:
        return self.ended_by is not None

    # --- the solver ---------------------------------------------------------------------------
    def solver_turn(self, text: str) -> StepResult:
        clock = self.clock
        truth = self.module.describe(clock)
        vocabulary = self.module.action_vocabulary()
        lines = [line for line in LINE_SPLIT.split(text) if line.strip()]
        named = [(line, action) for line in lines if (action := find_action(line, vocabulary)) is not None]
        entry = Entry(self.turns + 1, "solver", _clip(text), acted=bool(named), truth=truth)
        self.entries.append(entry)
        result = self._act(named, clock, entry) if named else self._message(text)
        note = crowded_lines_note(lines, vocabulary) if named else None
        if note is not None:
            entry.results.append(note)
            result.feedback += f"\n{note}"
        self.turns += 1
        self.solved_after.append(self.module.solved)
        self.mistakes_after.append(self.mistakes)
        self.awaiting_expert = result.parsed == "message" and not self.over
        if self.over:
            result.feedback += f" {self._ending()}"
        self.feedback = result.feedback
        return result

    def _message(self, text: str) -> StepResult:
        if not text.strip():
            return StepResult(
                Validity.UNPARSEABLE,
                "Your reply was empty: no message was sent and no action was taken (the turn still counts).",
                reason="empty",
            )
        self.solver_messages += 1
        return StepResult(Validity.EFFECTIVE, "Your message was sent to the expert.", parsed="message")

    def _act(self, named: list[tuple[str, str]], clock: int, entry: Entry) -> StepResult:
        executed: list[str] = []
        effective = False
        for k, (_line, action) in enumerate(named):
            if action not in self.module.actions():
                entry.results.append(f"{action}: not available right now (no effect).")
                continue
            state = self.module.state_key(clock)
            outcome = self.module.apply(action, clock)
            self.version += 1
            self.actions_executed += 1
            executed.append(action)
            entry.results.append(f"{action}: {outcome.feedback}")
            if outcome.mistake:
                self.mistakes += 1
                if (state, action) in self.mistake_pairs:
                    self.repeated_mistakes += 1
                self.mistake_pairs.add((state, action))
            elif outcome.changed:
                effective = True
            stop = outcome.mistake or self.module.solved or self.over
            if stop and k + 1 < len(named):
                reason = "the module is disarmed" if self.module.solved else "of the strike"
                entry.results.append(
                    f"The remaining {len(named) - k - 1} action line(s) were not carried out because {reason}."
                )
                break
        feedback = "\n".join(entry.results)
        if not executed:
            return StepResult(Validity.INVALID, feedback, reason="unavailable")
        validity = Validity.EFFECTIVE if effective else Validity.INEFFECTIVE
        return StepResult(validity, feedback, parsed="\n".join(executed), info={"mistakes": self.mistakes})

    def _ending(self) -> str:
        return {
            "solved": "The game is won.",
            "mistake_limit": f"The mistake limit ({self.config.mistake_limit}) is reached: the game is over.",
            "time_out": "The timer ran out: the game is over.",
            "turn_limit": f"The conversation limit ({self.config.max_turns} turns) is reached: the game is over.",
        }[self.ended_by or "turn_limit"]

    # --- the expert ---------------------------------------------------------------------------
    def expert_turn(self, text: str) -> StepResult:
        self.awaiting_expert = False
        if not text.strip():
            self.entries.append(Entry(self.turns, "expert", "(no reply)"))
            return StepResult(
                Validity.UNPARSEABLE,
                "The expert's reply was empty; the solver hears nothing.",
                reason="empty",
            )
        if self.config.expert_word_limit is not None:
            text = cut_words(text, self.config.expert_word_limit)
        self.expert_messages += 1
        self.entries.append(Entry(self.turns, "expert", _clip(text)))
        return StepResult(Validity.EFFECTIVE, "Your reply was passed to the solver.", parsed="message")

    # --- oracles --------------------------------------------------------------------------------
    def oracle_solver_text(self) -> str:
        actions = self.module.oracle_actions(self.clock)
        return "\n".join(actions) if actions else WAIT_MESSAGE

    def oracle_expert_text(self) -> str:
        return self.module.oracle_instruction(self.clock)

    # --- transcripts ------------------------------------------------------------------------------
    def transcript(self, viewer: str) -> str:
        """The conversation as `viewer` ("solver", "expert" or "judge") may see it."""
        lines = []
        for e in self.entries:
            if e.role == "expert":
                who = "You (expert)" if viewer == "expert" else "Expert"
                lines.append(f"[turn {e.turn}] {who}: {e.text}")
                continue
            who = "You" if viewer == "solver" else "Solver"
            kind = " (acting on the module)" if e.acted else ""
            lines.append(f"[turn {e.turn}] {who}{kind}: {e.text}")
            if viewer == "judge":
                lines.append(f"    (true state before this turn: {e.truth})")
            if viewer in ("solver", "judge") and e.results:
                lines.extend(f"    -> {r}" for r in e.results)
        return "\n".join(lines)


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + " [message cut]"


def make_instance(name: str, seed: int, index: int, config: CommaConfig) -> CommaInstance:
    """Instance `index` of module `name`: parameters and start time from a seed of its own, redrawn
    until the oracle pair solves it within GENERATION_TURNS turns at the configured clock step;
    `optimal_steps` is the number of conversation turns that pair needs. Only the clock step shapes
    the set (a real-time puzzle must be solvable at it); the turn and mistake limits do not."""
    cls = module_class(name)
    rng = random.Random(derive_seed("comma", name, seed, index))
    rules = config.model_copy(update={"max_turns": GENERATION_TURNS, "mistake_limit": None})
    for _ in range(GENERATION_ATTEMPTS):
        params = json.loads(json.dumps(cls.generate(rng)))  # plain JSON types, as after a round trip
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


def oracle_turns(module: PuzzleModule, start_clock: int, config: CommaConfig) -> int | None:
    """Conversation turns the oracle solver (with the oracle expert) needs, or None if it fails."""
    session = Session(module, start_clock, config)
    while not session.over:
        session.solver_turn(session.oracle_solver_text())
        if session.awaiting_expert:
            session.expert_turn(session.oracle_expert_text())
    return session.turns if module.solved and session.mistakes == 0 else None


class CommaTask(Task):
    """One COMMA puzzle (or all ten) as a solver/expert conversation."""

    Config: ClassVar[type[TaskConfig]] = CommaConfig
    InstanceModel: ClassVar[type[Instance]] = CommaInstance
    instance_label: ClassVar[str] = "comma"
    registered_module: ClassVar[str | None] = None  # set by the per-id classes below
    config: CommaConfig

    def __init__(self, config: TaskConfig | None = None, **options: Any) -> None:
        super().__init__(config, **options)
        fixed = self.registered_module
        if fixed is not None and self.config.module != fixed:
            raise ConfigError(
                f"comma/{fixed} plays {'every module' if fixed == 'all' else f'the {fixed} module'} "
                f"only; module={self.config.module!r} is not an option of it "
                f"(run comma/{self.config.module} instead)"
            )

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("solver", "expert", "judge") if self.config.judge else ("solver", "expert")

    @property
    def module_names(self) -> tuple[str, ...]:
        return NAMES if self.config.module == "all" else (self.config.module,)

    # --- instances -------------------------------------------------------------------------------
    def instances(self, n: int | None, seed: int) -> list[Instance]:
        names = self.module_names
        total = self.config.instances_per_module * len(names) if n is None else n
        if total < 0:
            raise ConfigError(f"the number of instances must be >= 0 (got {total})")
        # round robin over the modules, so any prefix of comma/all covers them evenly
        return [
            make_instance(names[i % len(names)], seed, i // len(names), self.config) for i in range(total)
        ]

    def load_instance(self, data: dict[str, Any]) -> Instance:
        instance = super().load_instance(data)
        assert isinstance(instance, CommaInstance)
        if instance.module not in self.module_names:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: module '{instance.module}' is not played by this task"
            )
        return instance

    # --- episode ---------------------------------------------------------------------------------
    def reset(self, instance: Instance) -> None:
        if not isinstance(instance, CommaInstance):
            instance = self.load_instance(instance.model_dump())
        assert isinstance(instance, CommaInstance)
        self.instance = instance
        cls = module_class(instance.module)
        try:
            module = cls(instance.params)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"invalid comma instance {instance.id!r}: bad {instance.module} parameters ({exc})"
            ) from None
        self.session = Session(module, instance.start_clock, self.config)
        self.judge_label: str | None = None
        self.judge_reply: str | None = None
        self._render_cache: tuple[tuple[int, int], bytes] | None = None

    @property
    def module(self) -> PuzzleModule:
        return self.session.module

    def _judge_pending(self) -> bool:
        return self.config.judge and self.session.over and not self.module.solved and self.judge_reply is None

    def current_role(self) -> str:
        if self.session.awaiting_expert:
            return "expert"
        if self._judge_pending():
            return "judge"
        return "solver"

    @property
    def done(self) -> bool:
        return self.session.over and not self.session.awaiting_expert and not self._judge_pending()

    def observe(self, role: str) -> Observation:
        if role == "solver":
            return self._observe_solver()
        if role == "expert":
            return self._observe_expert()
        if role == "judge" and self.config.judge:
            return self._observe_judge()
        raise ConfigError(f"comma has no role '{role}' (roles: {', '.join(self.roles)})")

    def _image(self) -> bytes:
        key = (self.session.turns, self.session.version)
        if self._render_cache is None or self._render_cache[0] != key:
            self._render_cache = (key, to_png(self.module.render(float(self.session.clock))))
        return self._render_cache[1]

    def _solver_instructions(self) -> str:
        limit = self.config.mistake_limit
        mistake_clause = f" or after {limit} mistakes" if limit is not None else ""
        return (
            prompts.SOLVER
            + "\n\n"
            + prompts.SOLVER_FORMAT.format(
                max_turns=self.config.max_turns,
                mistake_clause=mistake_clause,
                seconds=self.config.seconds_per_turn,
            )
        )

    def _observe_solver(self) -> Observation:
        s = self.session
        limit = f" (limit {self.config.mistake_limit})" if self.config.mistake_limit is not None else ""
        header = (
            f"{self.module.title}. Conversation turn {s.turns + 1} of {self.config.max_turns}. "
            f"Mistakes so far: {s.mistakes}{limit}."
        )
        parts: list[TextPart | ImagePart] = [TextPart(header)]
        if s.feedback:
            parts.append(TextPart("What happened last turn:\n" + s.feedback))
        parts.append(ImagePart(self._image(), label="module"))
        actions = self.module.actions()
        parts.append(TextPart("Actions you can take now:\n" + ("\n".join(actions) or "(none)")))
        transcript = s.transcript("solver") or "(nothing has been said yet)"
        parts.append(TextPart("Conversation so far:\n" + transcript))
        parts.append(
            TextPart("Your reply: a message to the expert, or action names to execute, one per line.")
        )
        return Observation(
            role="solver",
            parts=parts,
            instructions=self._solver_instructions(),
            legal_actions=actions,
            feedback=s.feedback,
            step=s.turns,
        )

    def _observe_expert(self) -> Observation:
        s = self.session
        instructions = prompts.EXPERT
        if self.config.expert_word_limit is not None:
            instructions += " " + prompts.EXPERT_WORD_LIMIT.format(limit=self.config.expert_word_limit)
        instructions += f"\n\nMANUAL - {self.module.title}\n\n{reflow(self.module.manual())}"
        return Observation(
            role="expert",
            parts=[
                TextPart(
                    f"Conversation so far ({self.module.title}):\n" + (s.transcript("expert") or "(none)")
                ),
                TextPart("Your reply to the solver:"),
            ],
            instructions=instructions,
            legal_actions=[],
            step=s.turns,
        )

    def _observe_judge(self) -> Observation:
        s = self.session
        text = (
            f"Puzzle: {self.module.title}.\n"
            f"Manual the expert held:\n{reflow(self.module.manual())}\n\n"
            f"Outcome: failed ({(s.ended_by or '').replace('_', ' ')}) after {s.turns} turns with "
            f"{s.mistakes} mistakes; progress {self.module.partial_score():.0%}.\n\n"
            f"Transcript:\n{s.transcript('judge')}"
        )
        return Observation(
            role="judge",
            parts=[TextPart(text), TextPart("Your verdict (label: <category>):")],
            instructions=prompts.JUDGE,
            legal_actions=[f"label: {label}" for label in prompts.JUDGE_LABELS],
            step=s.turns,
        )

    def step(self, action_text: str) -> StepResult:
        if self.done:
            return StepResult(
                Validity.INVALID, "The episode is over; nothing more can be done.", reason="over"
            )
        text = action_text if isinstance(action_text, str) else str(action_text)
        role = self.current_role()
        if role == "expert":
            return self.session.expert_turn(text)
        if role == "judge":
            return self._judge_step(text)
        return self.session.solver_turn(text)

    def _judge_step(self, text: str) -> StepResult:
        self.judge_reply = text[:MAX_MESSAGE_CHARS]
        self.judge_label = parse_judge_label(text)
        if self.judge_label is None:
            return StepResult(
                Validity.UNPARSEABLE,
                "No single category found; expected 'label: ' followed by one of "
                + ", ".join(prompts.JUDGE_LABELS)
                + ". Recorded as unparseable.",
                reason="no_label",
            )
        return StepResult(
            Validity.EFFECTIVE, f"Recorded the label '{self.judge_label}'.", parsed=self.judge_label
        )

    def oracle_action(self, role: str) -> str | None:
        if role == "solver":
            return self.session.oracle_solver_text()
        if role == "expert":
            return self.session.oracle_expert_text()
        if role == "judge":
            # a rule-based stand-in: the automatic loop detector, else the most common category
            label = "repetition loop" if self.session.repeated_mistakes else "miscommunication"
            return f"label: {label}"
        return None

    def outcome(self) -> EpisodeResult:
        s = self.session
        solved = self.module.solved
        metrics: dict[str, Any] = {
            "module": self.instance.module,
            "partial_score": 1.0 if solved else float(self.module.partial_score()),
            "mistakes": s.mistakes,
            "conversation_length": s.turns if solved else self.config.max_turns,
            "turns_used": s.turns,
            "solver_messages": s.solver_messages,
            "expert_messages": s.expert_messages,
            "actions_executed": s.actions_executed,
            "repetition_loop": s.repeated_mistakes > 0,
            "repeated_mistakes": s.repeated_mistakes,
            "ended_by": s.ended_by or "unfinished",
        }
        metrics.update(summaries.turn_limit_metrics(s.solved_after, s.mistakes_after, self.config.max_turns))
        if self.judge_reply is not None:
            metrics["judge_label"] = self.judge_label or "unparseable"
            metrics["judge_unparseable"] = self.judge_label is None
            for label in prompts.JUDGE_LABELS:
                metrics[f"judge_{label.replace(' ', '_')}"] = self.judge_label == label
        return EpisodeResult(success=solved, steps=s.turns, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        return summaries.summarize(episodes, self.config.max_turns)


def _registered_task(module: str) -> type[CommaTask]:
    """The class behind one task id: `comma/<module>` plays that module and refuses another one
    given with `--set module=...` (which would otherwise record one puzzle under another's id)."""
    name = f"Comma{module.title()}Task"
    doc = f"The comma/{module} task (module fixed)."
    attrs = {"registered_module": module, "__module__": __name__, "__qualname__": name, "__doc__": doc}
    return type(name, (CommaTask,), attrs)


# one class per task id, found by the registry as playbench.tasks.comma.task:Comma<Module>Task
REGISTERED_TASKS: dict[str, type[CommaTask]] = {m: _registered_task(m) for m in (*NAMES, "all")}
globals().update({cls.__name__: cls for cls in REGISTERED_TASKS.values()})
