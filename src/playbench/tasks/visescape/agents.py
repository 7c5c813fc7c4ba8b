"""The VisEscape agents: the paper's base agent and its memory/feedback/ReAct agent (VisEscaper).

Both read the observation's images, `legal_actions`, `feedback` and the public facts the task puts in
`Observation.data` (the view, held items, available actions, hint, last result, the lock in view), never its
text, and write their own prompts (`agent_prompts.py`). Both support caption-then-reason: with a `captioner` model (a VLM) every view
reaches the reasoning model as that captioner's description and never as an image.

`visescape-base` sees the last `history` (20) observations and actions, the held items, the current view
and the available actions, and answers with the action (with `[THINK]` first if `cot=true`).

`visescape-memory` keeps the paper's three memories: a structured spatial memory and an exploration
memory (inspected / not inspected objects), both rebuilt by a model call every `memory_every` (10) steps
from the log of the steps since the last rebuild (until the first rebuild the raw log stands in for the
memory), and a salient-action memory of every object interaction with its observed effect. After an
action other than turn/inspect/step back, a feedback call compares the description of the view before and
after it ("No change occurred" without a call when the view did not change). It thinks before it acts
(ReAct), carries its previous thought forward, and after an action that was not available it is asked
again with the retry prompt. Views are described in text for the memory and the feedback: by the
captioner, or by the acting model itself when there is none (the acting model then still sees the image).

Every `act` returns the action text, the labelled outputs of every call of the step as `raw`, the thought
as `rationale` and the summed usage of all its calls.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from playbench.agents.base import Agent, AgentSpec
from playbench.core.errors import ConfigError
from playbench.core.task import EpisodeContext, derive_seed
from playbench.core.types import Action, ImagePart, Observation, Part, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message
from playbench.tasks.visescape import agent_prompts as prompts

ANSWER_ACTION = "<ANSWER>your answer</ANSWER>"
MOVEMENT_PREFIXES = ("turn_to_", "inspect ")

_ACTION_MARK = re.compile(r"\[\s*action\s*\]", re.IGNORECASE)
_THINK_MARK = re.compile(r"\[\s*think\s*\]", re.IGNORECASE)
_ACTION_LINE = re.compile(r"^\s*\**\s*action\s*\**\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_ANSWER_TAG = re.compile(r"<\s*answer\s*>.*?<\s*/\s*answer\s*>", re.IGNORECASE | re.DOTALL)
_WRAPPERS = "`*'\"[]"


# --- reading replies ------------------------------------------------------------------------------------


def _clean_action(line: str) -> str:
    tag = _ANSWER_TAG.search(line)
    if tag:
        return tag.group(0).strip()
    cleaned = line.strip()
    while cleaned and (cleaned[0] in _WRAPPERS or cleaned[-1] in _WRAPPERS + "."):
        cleaned = cleaned.strip(_WRAPPERS).rstrip(".").strip()
    return cleaned


def parse_reply(text: str) -> tuple[str, str | None]:
    """(action text to forward, thought) from a `[THINK] ... [ACTION] ...` reply.

    The action is the first non-empty line after the last `[ACTION]` marker that has one (an `<ANSWER>`
    tag is kept whole, even across lines); without a marker, an `Action:` line or an `<ANSWER>` tag; failing
    all of that the whole reply goes to the task, which judges it (unparseable, never a crash).
    """
    marks = list(_ACTION_MARK.finditer(text))
    for mark in reversed(marks):
        after = text[mark.end() :]
        tag = _ANSWER_TAG.match(after.lstrip(" \t\r\n`*"))  # an answer may span lines
        first = next((ln for ln in after.splitlines() if ln.strip()), "")
        action = tag.group(0).strip() if tag else _clean_action(first)
        if action:
            return action, _thought(text[: mark.start()])
    lines = _ACTION_LINE.findall(text)
    if lines:
        return _clean_action(lines[-1]), _thought(text) if marks or _THINK_MARK.search(text) else None
    tag = _ANSWER_TAG.search(text)
    if tag:
        return tag.group(0).strip(), None
    return text.strip(), None


def _thought(before_action: str) -> str | None:
    think = list(_THINK_MARK.finditer(before_action))
    body = before_action[think[-1].end() :] if think else before_action
    body = _ACTION_LINE.sub("", body).strip()
    return body or None


def section(text: str, marker: str) -> str:
    """The text after `marker` (case-insensitive), or the whole reply when the marker is missing."""
    found = re.search(re.escape(marker), text, re.IGNORECASE)
    return (text[found.end() :] if found else text).strip()


# --- actions --------------------------------------------------------------------------------------------


def normalize_action(text: str) -> str:
    """A forgiving canonical form for comparing an action with the available ones (not for the task)."""
    t = re.sub(r"\s+", " ", text.strip().strip("`*'\"[](){}.").strip()).lower()
    m = re.fullmatch(r"turn[ _]?to[ _]?(?:the[ _])?(north|east|south|west)(?:[ _]wall)?", t)
    if m:
        return f"turn_to_{m.group(1)}"
    if re.fullmatch(r"step[ _]?back", t):
        return "step_back"
    m = re.fullmatch(r"(inspect|pick|use|press)(?:[ _]up)? (?:the )?(.+)", t)
    if m:
        return f"{m.group(1)} {m.group(2).strip().replace(' ', '_')}"
    return t.replace(" ", "_")


def is_answer(action: str) -> bool:
    return _ANSWER_TAG.search(action) is not None


def is_available(action: str, available: Sequence[str]) -> bool:
    if is_answer(action):
        return any("<answer>" in a.lower() for a in available)
    return normalize_action(action) in {normalize_action(a) for a in available}


def is_movement(action: str) -> bool:
    """Turning, inspecting and stepping back only change the view: no feedback call follows them."""
    if is_answer(action):
        return False
    norm = normalize_action(action)
    return norm == "step_back" or norm.startswith(MOVEMENT_PREFIXES)


def shuffled_actions(actions: Sequence[str], seed: int, turn: int) -> list[str]:
    """The available actions in an order fixed by the episode seed and the step (as the paper shuffles them)."""
    out = list(actions)
    random.Random(derive_seed("visescape-available-actions", seed, turn)).shuffle(out)
    return out


# --- reading observations --------------------------------------------------------------------------------


@dataclass
class ViewInfo:
    """What the agents take from one observation."""

    images: list[ImagePart]
    where: str  # "north side of room - close-up of desk", or as much of it as the observation tells
    direction: str
    view_kind: str  # wall, object or item
    subject: str  # the object or item a close-up shows, for captions
    names: list[str]  # objects the available actions name
    text_scene: str  # the view in words when the task sends text instead of an image
    task_text: str  # what the task reports besides the view: the last action's result, the lock in view
    held: str
    hints: list[str]
    actions: list[str]  # the available actions, a lock's answers collapsed into one ANSWER action

    @property
    def digests(self) -> tuple[str, ...]:
        return tuple(image.digest for image in self.images) or (self.text_scene,)

    @property
    def answer_offered(self) -> bool:
        return any(is_answer(a) for a in self.actions)


def collapse_answers(actions: Sequence[str]) -> list[str]:
    """A lock's answer slot once, as the paper shows it, however many sample answers the task lists."""
    out: list[str] = []
    for action in actions:
        if is_answer(action):
            if ANSWER_ACTION not in out:
                out.append(ANSWER_ACTION)
        else:
            out.append(action)
    return out


# the task's view kinds as the caption prompts name them
VIEW_KINDS = {"wall": "wall", "receptacle": "object", "item": "item"}


def read_observation(observation: Observation) -> ViewInfo:
    """The view, held items, hints and actions of an observation, from its `data`.

    An observation without `data` (another task's) still gives the images, the actions and its text as
    the task's words; the view's kind is then guessed from the actions."""
    data = observation.data
    view = data.get("view") or {}
    actions = collapse_answers(data.get("available_actions", observation.legal_actions))
    held_items = data.get("held") or []
    held = ", ".join(f"{h['id']} ({h['name']})" for h in held_items)
    hints = [" ".join(data["hint"].split())] if data.get("hint") else []
    if data:
        lock = data.get("lock") or {}
        notes = prompts.task_notes(data.get("last_result", ""), lock.get("id"), lock.get("answer_format"))
    else:
        notes = observation.text
    task_text = "\n".join(ln for ln in notes.splitlines() if ln.strip()).strip()
    where = " ".join(str(view.get("header", "")).split())
    where = where or next((image.label for image in observation.images if image.label), "")
    direction = str(view.get("wall", ""))
    keys = [normalize_action(a) for a in actions if not is_answer(a)]
    if view:
        kind = VIEW_KINDS[view["kind"]]
        subject = "" if kind == "wall" else str(view["name"])
    elif any(k.startswith("turn_to_") for k in keys):
        kind, subject = "wall", ""
    elif all(k == "step_back" or k.startswith("pick ") for k in keys):
        # an item close-up offers only stepping back, picking the item up or an answer
        kind, subject = "item", where
    else:
        kind, subject = "object", where
    if not where:
        where = f"{direction} side of room" if direction else "current view"
    held_ids = {h["id"] for h in held_items}
    names = [
        a.strip().split(" ", 1)[1].strip()
        for a in actions
        if normalize_action(a).startswith(("inspect ", "pick ", "press ")) and " " in a.strip()
    ]
    caption = " ".join(str(data.get("caption", "")).split())
    return ViewInfo(
        images=list(observation.images),
        where=where,
        direction=direction,
        view_kind=kind,
        subject=subject,
        names=list(dict.fromkeys(n for n in names if n.lower() != subject.lower() and n not in held_ids)),
        text_scene=caption or (task_text if not observation.images else ""),
        task_text=task_text,
        held=held,
        hints=hints,
        actions=actions,
    )


# --- model calls -----------------------------------------------------------------------------------------


@dataclass
class StepCalls:
    """Every model call of one step: summed usage and the labelled outputs."""

    usage: Usage = field(default_factory=Usage)
    outputs: list[tuple[str, str]] = field(default_factory=list)

    async def call(
        self, model: ChatModel, messages: list[Message], params: GenerationParams, kind: str
    ) -> str:
        response = await model.generate(messages, params)
        self.usage.add(response.usage)
        self.outputs.append((kind, response.text))
        return response.text

    def raw(self) -> str:
        if len(self.outputs) == 1:
            return self.outputs[0][1]
        return "\n\n".join(f"--- {kind} ---\n{text}" for kind, text in self.outputs)


def build_message(prompt: str, images: Sequence[ImagePart]) -> Message:
    """One user message; the view's images go where the prompt holds `IMAGE_SLOT`."""
    parts: list[Part] = []
    pieces = prompt.split(prompts.IMAGE_SLOT)
    for k, piece in enumerate(pieces):
        if piece:
            parts.append(TextPart(piece))
        if k < len(pieces) - 1:
            if not images:
                parts.append(TextPart("(no image)"))
            for image in images:
                if len(images) > 1 and image.label:
                    parts.append(TextPart(f"[{image.label}]"))
                parts.append(image)
    return Message("user", parts)


class ViewDescriber:
    """Describes views in text with a vision model (the paper's Table 18 prompts), once per distinct image."""

    def __init__(self, model: ChatModel, params: GenerationParams) -> None:
        self.model = model
        self.params = params
        self.cache: dict[str, str] = {}

    async def describe(self, view: ViewInfo, calls: StepCalls) -> str:
        if not view.images:
            return view.text_scene or view.task_text or view.where
        texts = []
        for image in view.images:
            if image.digest not in self.cache:
                if view.view_kind == "wall":
                    subject = f"{view.direction} wall" if view.direction else ""
                else:
                    subject = view.subject or image.label
                prompt = prompts.caption_prompt(view.view_kind, subject, view.names)
                message = Message("user", [TextPart(prompt), image])
                kind = f"caption {view.where}".strip()
                text = await calls.call(self.model, [message], self.params, kind)
                self.cache[image.digest] = " ".join(text.split()) or "(empty description)"
            caption = self.cache[image.digest]
            texts.append(f"{image.label}: {caption}" if len(view.images) > 1 and image.label else caption)
        return " | ".join(texts)


# --- shared agent machinery -------------------------------------------------------------------------------

LLM_KEYS = ("history", "cot", "temperature", "top_p", "max_tokens", "captioner")


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
        return value.lower() in ("true", "1", "yes", "on")
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ConfigError(f"agent option {name} must be true or false (got {value!r})")


def _count(value: Any, name: str, minimum: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"agent option {name} must be an integer (got {value!r})") from None
    if isinstance(value, bool) or number < minimum or str(number) != str(value).strip():
        raise ConfigError(f"agent option {name} must be an integer >= {minimum} (got {value!r})")
    return number


class VisEscapeAgent(Agent):
    """Model handling, options, captioning and action shuffling shared by both VisEscape agents."""

    own_options: tuple[str, ...] = ("shuffle_actions",)
    default_history = 20
    default_cot = False

    def __init__(self, spec: AgentSpec, get_model: Callable[[str], ChatModel]) -> None:
        self.read_options(spec)
        # models last, so that a bad option fails before any client is made
        self.model = get_model(str(spec.model))
        captioner = self.options.get("captioner")
        self.captioner_model = get_model(str(captioner)) if captioner else None

    @classmethod
    def check_options(cls, spec: AgentSpec) -> None:
        """Raise ConfigError for a bad option value without building any model (for checks before a run)."""
        cls.__new__(cls).read_options(spec)

    def read_options(self, spec: AgentSpec) -> None:
        if not spec.model:
            raise ConfigError(f"agent '{spec.name}' needs --model provider:model (e.g. openai:gpt-4o)")
        options = dict(spec.options)
        accepted = set(LLM_KEYS) | set(self.own_options)
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise ConfigError(
                f"agent '{spec.name}' does not take option(s) {', '.join(unknown)} "
                f"(accepted: {', '.join(sorted(accepted))})"
            )
        self.spec = spec
        self.options = options
        self.history = _count(options.get("history", self.default_history), "history", 0)
        self.cot = _flag(options.get("cot", self.default_cot), "cot")
        self.shuffle = _flag(options.get("shuffle_actions", True), "shuffle_actions")
        try:
            self.params = GenerationParams(
                temperature=None if options.get("temperature") is None else float(options["temperature"]),
                top_p=None if options.get("top_p") is None else float(options["top_p"]),
                max_tokens=_count(options.get("max_tokens", 1024), "max_tokens", 1),
            )
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"bad option for agent '{spec.name}': {exc}") from None
        self.configure(options)

    def configure(self, options: dict[str, Any]) -> None:
        """Read the options only this agent takes."""

    @property
    def captioning(self) -> bool:
        """Caption-then-reason: the acting model never sees an image."""
        return self.captioner_model is not None

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.params = replace(self.params, sample_key=f"trial-{ctx.trial}")
        self.seed = ctx.seed
        self.turn = 0  # act() calls, retries included
        self.step_no = 0  # game steps: a free retry after an unavailable action is not a new one
        self.last_obs_step: int | None = None
        self.last_unavailable = False
        describer_model = self.captioner_model if self.captioner_model is not None else self.model
        self.describer = ViewDescriber(describer_model, self.params)

    def advance(self, observation: Observation) -> bool:
        """Count this act(); True when it starts a new game step (a task that lets an unavailable
        action be retried for free shows the same step number again)."""
        self.turn += 1
        new = (
            self.last_obs_step is None or observation.step != self.last_obs_step or not self.last_unavailable
        )
        self.last_obs_step = observation.step
        self.step_no += new
        return new

    def offered_actions(self, view: ViewInfo) -> list[str]:
        return shuffled_actions(view.actions, self.seed, self.turn) if self.shuffle else list(view.actions)

    async def scene_for_prompt(self, view: ViewInfo, calls: StepCalls) -> tuple[str, list[ImagePart]]:
        """The current view as the acting model gets it: the image itself, or its caption."""
        extra = f"\n{view.task_text}" if view.task_text else ""
        if self.captioning or not view.images:
            return await self.describer.describe(view, calls) + extra, []
        return prompts.IMAGE_SLOT + extra, view.images


# --- the base agent -----------------------------------------------------------------------------------------


@dataclass
class _Past:
    scene: str
    action: str
    result: str = ""

    def line(self, step: int) -> str:
        result = f" -> {self.result}" if self.result else ""
        return f"Step {step}. Observation: [{self.scene}] Action: [{self.action}]{result}"


class BaseAgent(VisEscapeAgent):
    """The paper's baseline: last `history` observations and actions, held items, available actions."""

    name = "visescape-base"

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.past: deque[tuple[int, _Past]] = deque(maxlen=max(self.history, 1))
        self.pending: tuple[int, _Past] | None = None

    async def act(self, observation: Observation) -> Action:
        self.advance(observation)
        calls = StepCalls()
        view = read_observation(observation)
        if self.pending is not None:
            step, entry = self.pending
            entry.result = _short(observation.feedback)
            if self.history:
                self.past.append((step, entry))
        scene, images = await self.scene_for_prompt(view, calls)
        prompt = prompts.base_prompt(
            history=[entry.line(step) for step, entry in self.past],
            held_items=view.held,
            observation=prompts.observation_block(view.where, scene),
            actions=self.offered_actions(view),
            answer_offered=view.answer_offered,
            hints=view.hints,
            cot=self.cot,
        )
        reply = await calls.call(self.model, [build_message(prompt, images)], self.params, "action")
        action, thought = parse_reply(reply)
        self.last_unavailable = not is_available(action, view.actions)
        self.pending = (self.turn, _Past(await self._history_scene(view, calls), action))
        return Action(text=action, raw=calls.raw(), rationale=thought, usage=calls.usage)

    async def _history_scene(self, view: ViewInfo, calls: StepCalls) -> str:
        """A past view in the history: its description in caption mode (already paid for), else its name."""
        if self.captioning or not view.images:
            return f"{view.where} - {await self.describer.describe(view, calls)}"
        return view.where


def _short(text: str, limit: int = 300) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


# --- the memory / feedback / ReAct agent ------------------------------------------------------------------------


@dataclass
class _LogEntry:
    step: int
    scene: str
    action: str
    effect: str = ""


@dataclass
class _Pending:
    step: int
    action: str
    scene: str
    digests: tuple[str, ...]
    available: bool


class MemoryAgent(VisEscapeAgent):
    """VisEscaper: memory (spatial, exploration, salient actions), feedback after object actions, ReAct."""

    name = "visescape-memory"
    own_options = ("shuffle_actions", "memory_every", "feedback")
    default_history = 10  # here: how many recent actions the reasoning prompt lists
    default_cot = True

    def configure(self, options: dict[str, Any]) -> None:
        self.memory_every = _count(options.get("memory_every", 10), "memory_every", 1)
        self.feedback = _flag(options.get("feedback", True), "feedback")

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.logs: list[_LogEntry] = []
        self.window_start = 0  # first log entry not yet folded into the memory
        self.memory: str | None = None
        self.salient: list[str] = []
        self.previous_react = ""
        self.pending: _Pending | None = None
        self.retry = False

    async def act(self, observation: Observation) -> Action:
        new_step = self.advance(observation)
        calls = StepCalls()
        view = read_observation(observation)
        scene = f"{view.where} - {await self.describer.describe(view, calls)}"
        self.retry = False
        if self.pending is not None:
            await self._close_previous(view, scene, calls)
        if new_step and self.step_no % self.memory_every == 0:
            await self._rebuild_memory(calls)
        prompt_scene, images = await self.scene_for_prompt(view, calls)
        actions = self.offered_actions(view)
        observation_text = prompts.observation_block(view.where, prompt_scene)
        if view.held:
            observation_text += f"\n<Held items>{view.held}</Held items>"
        if self.retry and self.pending is not None:
            prompt = prompts.retry_prompt(self.memory_view(), self.pending.action, actions, view.hints)
            kind = "retry"
        elif self.turn == 1:
            prompt = prompts.initial_prompt(observation_text, actions, view.answer_offered, view.hints)
            kind = "action"
        else:
            recent = [e.action + (f" - {e.effect}" if e.effect else "") for e in self.logs[-self.history :]]
            prompt = prompts.reason_prompt(
                memory=self.memory_view(),
                salient_actions=self.salient,
                recent_actions=recent if self.history else [],
                observation=observation_text,
                previous_react=self.previous_react,
                actions=actions,
                answer_offered=view.answer_offered,
                hints=view.hints,
                cot=self.cot,
            )
            kind = "action"
        reply = await calls.call(self.model, [build_message(prompt, images)], self.params, kind)
        action, thought = parse_reply(reply)
        if kind == "retry":
            # the retry prompt asks for the action alone; the plan of the turn before stays in force
            thought = None
            self.previous_react = f"{self.previous_react}\n(retried with: {action})".strip()
        else:
            self.previous_react = f"{prompts.THINK} {thought or ''}\n{prompts.ACTION} {action}"
        available = is_available(action, view.actions)
        self.last_unavailable = not available
        self.pending = _Pending(self.step_no, action, scene, view.digests, available)
        return Action(text=action, raw=calls.raw(), rationale=thought, usage=calls.usage)

    def memory_view(self) -> str:
        """The last rebuilt memory; before the first rebuild, the raw log of every step so far.

        Between rebuilds the memory is not touched (as in the paper): the steps since the last rebuild
        reach the model through <Recent actions>, the salient-action memory and the previous thought."""
        if self.memory is not None:
            return self.memory
        return self._log_text(self.logs) if self.logs else "(empty)"

    @staticmethod
    def _log_text(entries: Sequence[_LogEntry]) -> str:
        return prompts.log_lines([(e.scene, e.action, e.effect) for e in entries])

    async def _close_previous(self, view: ViewInfo, scene: str, calls: StepCalls) -> None:
        """Log the previous step with its effect: feedback analysis for object actions."""
        assert self.pending is not None
        done = self.pending
        if not done.available:
            effect = prompts.UNAVAILABLE
            self.retry = True
        elif is_movement(done.action):
            effect = ""
        elif done.digests == view.digests:
            effect = prompts.NO_CHANGE
        elif self.feedback:
            prompt = prompts.feedback_prompt(done.scene, done.action, scene)
            reply = await calls.call(self.model, [Message.text("user", prompt)], self.params, "feedback")
            effect = _short(section(reply, prompts.ANALYSIS)) or prompts.NO_CHANGE
        else:
            effect = "The view changed"
        self.logs.append(_LogEntry(done.step, done.scene, done.action, effect))
        if done.available and not is_movement(done.action):
            self.salient.append(f"step {done.step}: {done.action} - {effect}")

    async def _rebuild_memory(self, calls: StepCalls) -> None:
        window = self.logs[self.window_start :]
        logs = self._log_text(window) if window else "(no actions yet)"
        if self.memory is None:
            prompt = prompts.memory_construct_prompt(logs, len(window))
        else:
            prompt = prompts.memory_update_prompt(self.memory, logs, len(window))
        reply = await calls.call(self.model, [Message.text("user", prompt)], self.params, "memory")
        found = re.search(re.escape(prompts.SPATIAL), reply, re.IGNORECASE)
        if found:
            self.memory = reply[found.start() :].strip()
        else:
            # a malformed memory reply must not lose what the window held: keep it as raw log
            previous = f"{self.memory}\n" if self.memory else ""
            self.memory = f"{previous}{logs}".strip()
        self.window_start = len(self.logs)
