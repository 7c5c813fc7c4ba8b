"""A tiny task used to test the kernel and runner independently of any suite."""

from __future__ import annotations

import random
import time

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.task import Instance, Task, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, Observation, StepResult, TextPart, Validity


class WalkConfig(TaskConfig):
    length: int = 6
    max_steps: int = 10
    crash_on: str | None = None  # an action text that makes step() raise, to test robustness
    step_delay: float = 0.0  # seconds each step sleeps, so a test can kill a run mid-way


class WalkInstance(Instance):
    start: int
    target: int


class WalkTask(EpisodeTask):
    """Walk left/right on a line from start to target (the episode template at its smallest)."""

    Config = WalkConfig
    InstanceModel = WalkInstance

    def _instances(self, n, seed):
        out = []
        for i in range(5 if n is None else n):
            rng = random.Random(derive_seed("walk", seed, i))
            start, target = rng.randrange(self.config.length), rng.randrange(self.config.length)
            out.append(
                WalkInstance(
                    id=f"walk-{seed}-{i}", start=start, target=target, optimal_steps=abs(start - target)
                )
            )
        return out

    def _begin(self, instance):
        self.pos = instance.start
        self.feedback = ""
        if self.pos == instance.target:
            self.end(Termination.GOAL_REACHED)

    def state(self):
        return {"pos": self.pos}

    def _observe(self, role):
        legal = [a for a, d in (("left", -1), ("right", 1)) if 0 <= self.pos + d < self.config.length]
        return Observation(
            role=role,
            parts=[TextPart(f"{self.feedback}\nposition {self.pos}, target {self.instance.target}".lstrip())],
            instructions="Reply with left or right.",
            legal_actions=legal,
            feedback=self.feedback,
            step=self.steps,
            data={"position": self.pos, "target": self.instance.target},
        )

    def _parse(self, text):
        if self.config.crash_on is not None and text == self.config.crash_on:
            raise RuntimeError("toy task crashed on purpose")
        if self.config.step_delay:
            time.sleep(self.config.step_delay)
        word = text.strip().lower().rsplit(":", 1)[-1].strip()
        if word not in ("left", "right"):
            return ParseError(f"'{text[:40]}' is not left or right")
        return word

    def _on_parse_error(self, error):
        self.feedback = error.message
        return super()._on_parse_error(error)

    def _apply(self, word):
        new = self.pos + (-1 if word == "left" else 1)
        if not 0 <= new < self.config.length:
            self.feedback = f"{word} leaves the line"
            return StepResult(Validity.INVALID, self.feedback, parsed=word, reason="out_of_bounds")
        before = abs(self.pos - self.instance.target)
        self.pos = new
        after = abs(self.pos - self.instance.target)
        self.feedback = f"moved {word}"
        return StepResult(
            Validity.EFFECTIVE if after < before else Validity.INEFFECTIVE,
            self.feedback,
            parsed=word,
            info={"position": self.pos},
        )

    def _check_end(self, result):
        return Termination.GOAL_REACHED if self.pos == self.instance.target else None

    def _outcome(self):
        solved = self.pos == self.instance.target
        return EpisodeResult(
            success=solved,
            steps=self.steps,
            metrics={"final_distance": abs(self.pos - self.instance.target), "solved": solved},
        )

    def _oracle(self, role):
        return "right" if self.instance.target > self.pos else "left"


class DeclaredConfig(WalkConfig):
    image_width: int = 64


class DeclaredWalkTask(WalkTask):
    """The walk with a declared model side, as a suite declares what its original sent."""

    Config = DeclaredConfig

    def model_side(self):
        from playbench.core.model_side import FamilyRule, ModelSide

        return ModelSide(
            settings={"temperature": 0.0, "max_tokens": 77, "image_format": "jpeg", "image_detail": "high"},
            families=(
                FamilyRule("^claude", {"image_detail": "auto"}, {"image_width": 49}),
                FamilyRule(
                    "^claude", {"image_detail": "low", "top_p": 0.5}
                ),  # a later rule adds, never overrides
            ),
            source="toy: the test's own declaration",
        )


class RelayInstance(Instance):
    secret: int


class RelayTask(Task):
    """Two roles with private views (AEC): the speaker sees a secret digit and says something; the
    listener sees only what was said and must answer the digit."""

    roles = ("speaker", "listener")
    InstanceModel = RelayInstance

    def instances(self, n, seed):
        rng = random.Random(derive_seed("relay", seed))
        return [
            RelayInstance(id=f"relay-{seed}-{i}", secret=rng.randrange(10), optimal_steps=2)
            for i in range(n or 4)
        ]

    def reset(self, instance):
        self.inst, self.turn, self.said, self.answer = instance, 0, "", None

    def current_role(self):
        return self.roles[self.turn % 2]

    def observe(self, role):
        if role == "speaker":
            text = f"The secret digit is {self.inst.secret}. Tell the listener."
        else:
            text = f"The speaker said: {self.said!r}. Which digit?"
        return Observation(
            role=role,
            parts=[TextPart(text)],
            instructions=f"You are the {role}.",
            legal_actions=[str(d) for d in range(10)],
            step=self.turn,
        )

    def step(self, action_text):
        role = self.current_role()
        self.turn += 1
        if role == "speaker":
            self.said = action_text[:200]
            return StepResult(Validity.EFFECTIVE, "message passed on")
        digits = [c for c in action_text if c.isdigit()]
        if not digits:
            return StepResult(Validity.UNPARSEABLE, "no digit in the answer")
        self.answer = int(digits[-1])
        return StepResult(Validity.EFFECTIVE, f"answered {self.answer}")

    @property
    def done(self):
        return self.answer is not None or self.turn >= 4

    def outcome(self):
        return EpisodeResult(success=self.answer == self.inst.secret, steps=self.turn, metrics={})

    def oracle_action(self, role):
        if role == "speaker":
            return f"it is {self.inst.secret}"
        digits = [c for c in self.said if c.isdigit()]
        return digits[-1] if digits else "0"


class ConsultConfig(TaskConfig):
    judge: bool = False


class ConsultTask(Task):
    """The seats COMMA uses: the expert knows a secret digit and advises, the solver answers it, and
    with `judge=true` a judge scores the transcript at the end."""

    Config = ConsultConfig
    InstanceModel = RelayInstance

    def instances(self, n, seed):
        rng = random.Random(derive_seed("consult", seed))
        return [
            RelayInstance(id=f"consult-{i}", secret=rng.randrange(10), optimal_steps=2) for i in range(n or 4)
        ]

    @property
    def roles(self):
        return ("expert", "solver", "judge") if self.config.judge else ("expert", "solver")

    def reset(self, instance):
        self.inst, self.turn, self.advice, self.answer, self.verdict = instance, 0, "", None, None

    def current_role(self):
        return self.roles[min(self.turn, len(self.roles) - 1)]

    def observe(self, role):
        text = {
            "expert": f"The secret digit is {self.inst.secret}. Advise the solver.",
            "solver": f"The expert says: {self.advice!r}. Which digit?",
            "judge": f"Transcript: expert {self.advice!r}, solver {self.answer}. Reply 'score: N' (0-5).",
        }[role]
        return Observation(
            role=role,
            parts=[TextPart(text)],
            instructions=f"You are the {role}.",
            legal_actions=[str(d) for d in range(10)],
            step=self.turn,
        )

    def step(self, action_text):
        role = self.current_role()
        self.turn += 1
        if role == "expert":
            self.advice = action_text[:200]
            return StepResult(Validity.EFFECTIVE, "advice given")
        digits = [c for c in action_text if c.isdigit()]
        if role == "judge":
            self.verdict = int(digits[-1]) if digits else None
            return StepResult(Validity.EFFECTIVE if digits else Validity.UNPARSEABLE, "verdict recorded")
        self.answer = int(digits[-1]) if digits else -1
        return StepResult(Validity.EFFECTIVE if digits else Validity.UNPARSEABLE, f"answered {self.answer}")

    @property
    def done(self):
        return self.turn >= len(self.roles)

    def outcome(self):
        metrics = {"judge_score": self.verdict} if self.config.judge else {}
        return EpisodeResult(
            success=self.answer == self.inst.secret, steps=min(self.turn, 2), metrics=metrics
        )

    def oracle_action(self, role):
        return {"expert": f"it is {self.inst.secret}", "solver": str(self.inst.secret), "judge": "score: 5"}[
            role
        ]


class EchoAgent:
    """A suite-style registered agent (built as Class(spec, get_model)) that says one word."""

    @classmethod
    def check_options(cls, spec):
        from playbench.core.errors import ConfigError

        if spec.options.get("word") == "":
            raise ConfigError("test-echo: option word must not be empty")

    def __new__(cls, spec, get_model):
        from playbench.agents.base import Agent
        from playbench.core.types import Action

        class _Echo(Agent):
            name = "test-echo"

            async def act(self, observation):
                return Action(text=spec.options.get("word", "left"))

        return _Echo()


# --- a walk whose instruction and turn text come from an "original" repository's clone ----------------
from playbench.core.original_texts import TextsOptions, fill, texts_source  # noqa: E402
from playbench.core.originals import OriginalRepo, OriginalsUse, TextRef, register_original  # noqa: E402

TOY_COMMIT = "0123456789abcdef0123456789abcdef01234567"
TOY_TEXTS = (
    TextRef("instructions", "agent/prompts.py", "INSTRUCTIONS"),
    TextRef("turn", "agent/prompts.py", "Prompter.turn:text", "f-string: position, target"),
)
TOY_REPO = OriginalRepo(
    name="toy-original",
    url="https://example.invalid/toy-original",
    commit=TOY_COMMIT,
    suites=("toy",),
    needs=("agent/prompts.py", "levels"),
    texts=TOY_TEXTS,
)
register_original(TOY_REPO)


class TextWalkConfig(WalkConfig, TextsOptions):
    levels: str | None = None  # a folder of the clone (its default comes from the originals folder)


class TextWalkTask(WalkTask):
    """The walk, worded by the clone's texts when texts=original."""

    Config = TextWalkConfig
    originals = OriginalsUse(repo="toy-original", data={"levels": "levels"})

    def preflight(self):
        source = texts_source(self.config, self.originals)
        if source is not None:
            for ref in TOY_TEXTS:
                source.text(ref)

    def data_origin(self):
        return "ours" if self.config.levels is None else "original@" + TOY_COMMIT[:7]

    def _observe(self, role):
        obs = super()._observe(role)
        source = texts_source(self.config, self.originals)
        if source is not None:
            turn = fill(
                source.text(TOY_TEXTS[1]), {"self.pos": self.pos, "target": self.instance.target}, "turn"
            )
            obs.parts = [TextPart(turn)]
            obs.instructions = source.text(TOY_TEXTS[0])
        return obs


# --- a walk that sends its own conversation (Observation.turns): each earlier position as a user turn
# with a picture, each earlier move as an assistant turn ----------------------------------------------------
def _picture(n: int) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (n * 30 % 256, 0, 0)).save(buf, format="PNG")
    return buf.getvalue()


class TurnsWalkTask(WalkTask):
    def _begin(self, instance):
        super()._begin(instance)
        self.past: list[tuple[int, str]] = []

    def _apply(self, word):
        before = self.pos
        result = super()._apply(word)
        self.past.append((before, word))
        return result

    def _observe(self, role):
        from playbench.core.types import ImagePart, Turn

        obs = super()._observe(role)
        turns = []
        for pos, word in self.past[-2:]:
            turns.append(
                Turn("user", [TextPart(f"you were at {pos}"), ImagePart(_picture(pos), label=f"at {pos}")])
            )
            turns.append(Turn("assistant", [TextPart(word)]))
        obs.turns = turns
        return obs
