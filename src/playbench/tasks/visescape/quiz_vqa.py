"""`visescape/quiz-vqa`: a room's visual quiz as multi-image VQA (paper Appendix D.2, Table 8, Table 20).

The model gets the clue's close-up and the lock's close-up, is told the first is the hint for the
second, and answers; a wrong answer comes back with the list of answers tried so far (and, with
reasoning, the reasoning that led to the last one) for up to `max_steps` (10) tries. pass@1 = solved
at the first try, pass@10 = solved within ten. The episode ends `goal_reached` on the right answer,
else `step_cap` when the tries are used up.

Model side: the paper's experiment (App. D.2), but not the authors' code: pull-ups/VisEscape-demo at
9f65b99 has no VQA script, and the paper states no sampling, output cap or image encoding for it. Only
what Table 20 shows is declared: the tried answers (and the last reasoning) are text inside the one prompt,
so no chat is kept (history 0); the rest is playbench's default (PNG, no detail, a 1024-token cap) or the
provider's, recorded as such, not as the paper's JPEG / low detail of the room agents.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any, ClassVar, Literal

from pydantic import Field

from playbench.core.episode import EpisodeTask, ParseError
from playbench.core.errors import ConfigError
from playbench.core.model_side import ModelSide
from playbench.core.task import Instance, TaskConfig, derive_seed
from playbench.core.termination import Termination
from playbench.core.types import EpisodeResult, ImagePart, Observation, StepResult, TextPart, Validity
from playbench.tasks.visescape.engine import ANSWER_RE, Engine, GameState
from playbench.tasks.visescape.quizzes import get_kind
from playbench.tasks.visescape.rooms import load_room, quiz_params, room_ids

INSTRUCTIONS = (
    "You solve visual puzzles from escape rooms: work out the password of a lock from a hint picture."
)
THINK_TAIL = (
    "Think before you guess: write your thoughts in a [Think] section, then give the password alone in an "
    "[Answer] section, with no other text."
)
PLAIN_TAIL = "Reply with the password only, nothing else."

# What the paper states of the VQA calls (App. D.2, Table 20): the earlier tries go back inside the prompt.
MODEL_SIDE = ModelSide(
    settings={"history": 0},
    source=(
        "paper App. D.2 and Table 20 (tried answers and the last reasoning inside the one prompt); no "
        "authors' code (pull-ups/VisEscape-demo@9f65b99 has no VQA script), so nothing else is declared"
    ),
)


class QuizVQAConfig(TaskConfig):
    reasoning: bool = False
    max_steps: int = Field(10, ge=1, le=50)  # attempts at the quiz (pass@10 needs 10)
    quizzes: Literal["first", "all"] = "first"  # first: one quiz per room (the paper's 20)
    answer_candidates: int = Field(4, ge=1, le=20)
    retry_limit: int = Field(3, ge=0)  # free re-asks after an unreadable reply before it costs an attempt


class QuizVQAInstance(Instance):
    optimal_steps: int | None = 1
    room: str
    quiz: str
    kind: str
    params: dict[str, Any]


class QuizVQATask(EpisodeTask):
    Config: ClassVar[type[TaskConfig]] = QuizVQAConfig
    InstanceModel: ClassVar[type[Instance]] = QuizVQAInstance
    instance_label: ClassVar[str] = "visescape quiz"
    roles: ClassVar[tuple[str, ...]] = ("player",)

    config: QuizVQAConfig

    def model_side(self) -> ModelSide:
        """Only the history the paper shows (`MODEL_SIDE`); not the room agents' settings."""
        return MODEL_SIDE

    def _quiz_list(self) -> list[tuple[str, str]]:
        out = []
        for rid in room_ids():
            room = load_room(rid)
            quizzes = room.quizzes[:1] if self.config.quizzes == "first" else room.quizzes
            out += [(rid, q.id) for q in quizzes]
        return out

    def _instances(self, n: int | None, seed: int) -> list[Instance]:
        """The rooms' own quizzes first (seed 0 in room order, else a seeded order); then variants."""
        base = self._quiz_list()
        if seed != 0:
            random.Random(derive_seed("visescape-vqa-order", seed)).shuffle(base)
        total = len(base) if n is None else n
        out: list[Instance] = []
        for idx in range(total):
            pass_no, k = divmod(idx, len(base))
            rid, qid = base[k]
            room = load_room(rid)
            variant = None if pass_no == 0 else derive_seed("visescape-vqa", seed, pass_no, rid, qid) % 10**9
            params = quiz_params(room, variant)[qid]
            quiz = next(q for q in room.quizzes if q.id == qid)
            name = f"{rid}-{qid}" + ("" if variant is None else f"-v{variant}")
            out.append(QuizVQAInstance(id=name, room=rid, quiz=qid, kind=quiz.kind, params=params))
        return out

    def _begin(self, instance: QuizVQAInstance) -> None:
        room = load_room(instance.room)
        quiz = next((q for q in room.quizzes if q.id == instance.quiz), None)
        if quiz is None:
            raise ConfigError(f"room {instance.room} has no quiz {instance.quiz!r}")
        self._quiz = quiz
        self._kind = get_kind(instance.kind)
        params = quiz_params(room)
        params[quiz.id] = instance.params
        self._engine = Engine(room, params)
        self._tried: list[str] = []
        self._last_reasoning = ""
        self._solved_at: int | None = None
        self._unreadable = 0
        self._retries = 0
        self._feedback = ""
        self._images: tuple[bytes, bytes] | None = None

    def state(self) -> dict[str, Any]:
        """The quiz's state: its answer, whether it is solved and the wrong answers tried so far (shown
        back every turn). Not the attempt count, the reasoning shown back or the feedback."""
        inst = self.instance
        return {
            "quiz": inst.id,
            "answer": self._kind.answer(inst.params),
            "solved": self._solved_at is not None,
            "tried": list(self._tried),
        }

    def _views(self) -> tuple[bytes, bytes]:
        if self._images is None:
            from playbench.tasks.visescape.views import ViewMaker

            engine = self._engine
            vm = ViewMaker(engine)
            start = engine.initial_state()
            quiz = self._quiz
            if quiz.clue in engine.recs:
                state = start
                if quiz.clue_states:
                    states = list(state.states)
                    states[engine.rec_index[quiz.clue]] = quiz.clue_states[0]
                    state = replace(state, states=tuple(states))
                clue_state = replace(state, view=("rec", quiz.clue))
            else:
                clue_state = replace(
                    start, view=("item", quiz.clue, ("rec", engine.room.location(quiz.clue).id))
                )
            lock_state: GameState = replace(
                start, view=("item", quiz.lock, ("rec", engine.room.location(quiz.lock).id))
            )
            self._images = (vm.image(clue_state), vm.image(lock_state))
        return self._images

    def _observe(self, role: str) -> Observation:
        inst = self.instance
        clue, lock = self._views()
        answer_format = self._kind.answer_format(inst.params).split(", e.g.")[0]
        reasoning = self._last_reasoning if self.config.reasoning and self._tried else ""
        history = ""
        if self._tried:
            history = (
                f"You have already tried these answers and they were all wrong: {', '.join(self._tried)}."
            )
            if reasoning:
                history += f" Your reasoning for the last one was: {reasoning}"
        if self._feedback.startswith("No answer"):
            history = f"{history}\n{self._feedback}".strip()
        parts = [
            TextPart("Image 1:"),
            ImagePart(clue, label="hint image"),
            TextPart("Image 2:"),
            ImagePart(lock, label="lock"),
            TextPart(
                "Image 1 is a hint for the password of the lock shown in image 2. Work out the lock's password "
                f"from the hint image ({answer_format})." + (f"\n{history}" if history else "")
            ),
            TextPart(THINK_TAIL if self.config.reasoning else PLAIN_TAIL),
        ]
        # seeded by the answers entered, so an unreadable reply (even one that uses up an attempt) keeps them
        rng = random.Random(derive_seed("visescape-vqa-guess", inst.id, self._steps - self._unreadable))
        data: dict[str, Any] = {
            "answer_format": answer_format,
            "tried": list(self._tried),
            "last_reasoning": reasoning or None,
            "last_result": self._feedback,
            "attempts_used": self._steps,
            "attempts": self.config.max_steps,
        }
        return Observation(
            role=role,
            parts=parts,
            instructions=INSTRUCTIONS,
            legal_actions=[]
            if self.done
            else self._kind.guesses(inst.params, rng, self.config.answer_candidates),
            feedback=self._feedback,
            step=self._steps,
            data=data,
        )

    def _read(self, text: str) -> tuple[str, str]:
        """(answer, reasoning) from a reply."""
        m = ANSWER_RE.search(text)
        parts = re.split(r"\[\s*answer\s*\]", text, flags=re.IGNORECASE)
        reasoning = (
            re.sub(r"\[\s*think\s*\]", "", parts[0], flags=re.IGNORECASE).strip() if len(parts) > 1 else ""
        )
        if m is not None:
            return m.group(1).strip(), reasoning
        answer = parts[-1].strip() if len(parts) > 1 else text.strip()
        lines = [ln.strip() for ln in answer.splitlines() if ln.strip()]
        return (lines[0] if lines else ""), reasoning

    def _parse(self, text: str) -> tuple[str, str] | ParseError:
        answer, reasoning = self._read(text)
        if not self._kind.normalize(answer):
            fmt = self._kind.answer_format(self.instance.params)
            return ParseError(
                f"No answer could be read; reply with the password ({fmt}).", reason="no_answer"
            )
        return answer, reasoning

    def _on_parse_error(self, error: ParseError) -> StepResult:
        # an unreadable reply is asked again for free a few times (nothing changes), then it uses up an
        # attempt like a wrong guess, so a model that never answers readably still ends the quiz
        self._retries += 1
        spent = self._retries > self.config.retry_limit
        if spent:
            self._retries = 0
            self._unreadable += 1
        feedback = error.message + (" That used up an attempt." if spent else "")
        return StepResult(Validity.UNPARSEABLE, feedback, reason=error.reason, info={"attempt_spent": spent})

    def _apply(self, parsed: tuple[str, str]) -> StepResult:
        answer, reasoning = parsed
        self._retries = 0
        attempt = self._steps + 1  # the template counts this attempt right after `_apply`
        if self._kind.is_correct(self.instance.params, answer):
            self._solved_at = attempt
            return StepResult(Validity.EFFECTIVE, "Correct.", parsed=answer, info={"correct": True})
        shown = answer if len(answer) <= 40 else answer[:37] + "..."
        if shown not in self._tried:
            self._tried.append(shown)
        self._last_reasoning = reasoning[:800]
        return StepResult(
            Validity.INEFFECTIVE, f"'{shown}' is wrong.", parsed=answer, info={"correct": False}
        )

    def _counts_step(self, role: str, result: StepResult) -> bool:
        # every answer is an attempt; an unreadable reply only once its free re-asks are used up
        return result.validity != Validity.UNPARSEABLE or bool(result.info.get("attempt_spent"))

    def _check_end(self, result: StepResult) -> Termination | None:
        return Termination.GOAL_REACHED if self._solved_at is not None else None

    def _end_feedback(self, termination: Termination) -> str:
        return "No attempts left." if termination == Termination.STEP_CAP else ""

    def _after_step(self, role: str, result: StepResult) -> None:
        if result.validity == Validity.INEFFECTIVE and not self.done:
            result.feedback += " Try again."
        self._feedback = result.feedback

    def _oracle(self, role: str) -> str | None:
        answer = self._kind.answer(self.instance.params)
        return f"[Think] The hint gives the password.\n[Answer] {answer}" if self.config.reasoning else answer

    def _outcome(self) -> EpisodeResult:
        inst = self.instance
        solved = self._solved_at is not None
        metrics = {
            "room": inst.room,
            "kind": inst.kind,
            "pass1": self._solved_at == 1,
            "pass10": solved and self._solved_at is not None and self._solved_at <= 10,
            "attempts_used": self._steps,
            "distinct_wrong": len(self._tried),
            "unreadable": self._unreadable,
            "reasoning": self.config.reasoning,
        }
        return EpisodeResult(success=solved, steps=self._steps, metrics=metrics)

    def summarize(self, episodes: list[dict[str, Any]]) -> dict[str, Any]:
        rows = [e for e in episodes if not e.get("error") and "pass1" in (e.get("metrics") or {})]
        if not rows:
            return {}
        return {
            "pass1_count": sum(bool(e["metrics"]["pass1"]) for e in rows),
            "pass10_count": sum(bool(e["metrics"]["pass10"]) for e in rows),
            "quizzes": len(rows),
            "by_kind": {
                k: sum(bool(e["metrics"]["pass10"]) for e in rows if e["metrics"]["kind"] == k)
                for k in sorted({e["metrics"]["kind"] for e in rows})
            },
        }
