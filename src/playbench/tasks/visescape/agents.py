"""The paper's two agents as the authors' code runs them (pull-ups/VisEscape-demo at 9f65b99:
`experiment/agent/baseagent/*`, `experiment/agent/visescaper/*`, `experiment/agent/inference.py`).

Both read `Observation.data` (the view, direction, inventory, available actions, hint, whether the lock
in view takes a typed answer, the objects in view) and the view's image, keep their own histories as the
authors' runner does, and write their own prompts (`agent_prompts.py`).

`visescape-base` (Table 2): each turn the action memory (every action other than inspect / turn / step
back, with where it was taken), the last 10 actions whose text has no "turn", the view, the inventory,
the previous action, the hint and the available actions (shuffled); it answers with the action alone.

`visescape-memory` (VisEscaper, Tables 4, 5, 10): also a memory rebuilt at steps 10, 20, ... from the
last 10 logs (before step 10, the logged scenes themselves), the effect of each object action (a feedback
call on the captions before and after it; the original's no-change note when the view did not
change), the previous reply (ReAct), and [THINK] before [ACTION]. Its memory, logs and feedback work on
captions of the views (Table 18 prompts, temperature 0): by the acting model itself (the VLM setting) or by
`--captioner-model` (the Socratic setting, where the acting model never sees an image). `memory=false`
is Table 5's ablation: the memory is replaced by every distinct observation so far.

Model options are the kernel's (`playbench.agents.llm.LLM_OPTIONS`, read by `read_model_options`), and the
task's model side sets them as the original sent them (`protocol.MODEL_SIDE`): no sampling settings and no
output cap, images as JPEG with `detail: "low"` for models named "gpt" (`inference.py`). Every call is one
user message, as the original's: the agents keep no chat (`history` 0; their past actions are text in the
prompt, `recent_actions` of them, the original's 10). Captions are made at temperature 0, their image sent
without a detail field, as the original's caption call (`utils.py`).

Replies are read as the original agents read them (`read_action`); an action that is not available
gets the retry prompt, up to three model calls, after which the first action of the shuffled list is
taken (the original's fallback). A reply with no action in it, at a view that takes no typed answer and
before any unavailable `[ACTION]` reply of the turn, ends the turn at once with that first action, as the
original's error path does (`unreadable=first_action`; ours, `ask_again`, asks up to three times more).
At a lock, or after an unavailable reply, the original asks again. The first turn of the base agent falls
back to a random action at once. A view without an image (room 20's kiosk wall) makes the original's
vision call fail and its reply empty, so it is read as an unreadable reply (`no_image=failed_call`; ours,
`say_so`, asks the model with "(no image)" in the prompt).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from playbench.agents.base import Agent, AgentSpec
from playbench.agents.llm import HISTORY_ALL, LLM_OPTIONS, read_model_options
from playbench.core.errors import ConfigError
from playbench.core.model_side import model_name
from playbench.core.task import EpisodeContext, derive_seed
from playbench.core.types import Action, ImagePart, Observation, Part, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, call_purpose
from playbench.tasks.visescape import agent_prompts as prompts
from playbench.tasks.visescape.original_prompts import Prompts, prompts_at

RECENT_ACTIONS = 10  # the past actions the original lists in each prompt (`experiment_runner.py`: [-10:])


# --- reading replies as the original agents do ------------------------------------------------------


def read_action(response: str, available: Sequence[str], puzzle: bool) -> tuple[str, str | None]:
    """("answer", text), ("action", action), ("unavailable", chosen) or ("none", None)."""
    if puzzle and "<ANSWER>" in response:
        rest = response.split("<ANSWER>", 1)[1].strip()
        return "answer", rest.split("</ANSWER>")[0].strip() if "</ANSWER>" in rest else rest.split(" ")[0]
    if "[ACTION]" in response:
        chosen = response.split("[ACTION]")[1].strip().replace(":", "")
        if "\n" in chosen:
            chosen = chosen.split("\n")[0].strip()
        return ("action", chosen) if chosen in available else ("unavailable", chosen)
    for action in available:
        if action.lower() in response[:20].lower():
            return "action", action
    return "none", None


def thought_of(response: str) -> str | None:
    """The text between [THINK] and [ACTION] (the agent's rationale), if any."""
    if "[ACTION]" not in response:
        return None
    before = response.split("[ACTION]")[0]
    body = before.split("[THINK]", 1)[1] if "[THINK]" in before else before
    return body.strip() or None


def shuffled(actions: Sequence[str], rng: random.Random) -> list[str]:
    out = list(actions)
    rng.shuffle(out)
    return out


def caption_params(params: GenerationParams, spec: str) -> GenerationParams:
    """The original's caption call (`utils.py:67`): temperature 0, else as the other calls. A model that
    takes no temperature but its default (an OpenAI reasoning model; any model asked to reason, as
    Anthropic's thinking takes 1 only) gets none rather than an error."""
    from playbench.models.openai_provider import is_reasoning_model

    openai_reasoning = spec.split(":", 1)[0] == "openai" and is_reasoning_model(model_name(spec))
    return replace(params, temperature=None if params.reasoning or openai_reasoning else 0.0)


# --- model calls ---------------------------------------------------------------------------------------


@dataclass
class StepCalls:
    """Every model call of one step: summed usage and the labelled outputs."""

    usage: Usage = field(default_factory=Usage)
    outputs: list[tuple[str, str]] = field(default_factory=list)

    async def call(
        self, model: ChatModel, messages: list[Message], params: GenerationParams, kind: str
    ) -> str:
        with call_purpose(kind):  # the calls file says which of the agent's calls this was
            response = await model.generate(messages, params)
        self.usage.add(response.usage)
        self.outputs.append((kind, response.text))
        return response.text.strip()

    def raw(self) -> str:
        if len(self.outputs) == 1 and self.outputs[0][0] == "action":
            return self.outputs[0][1]
        return "\n\n".join(f"--- {kind} ---\n{text}" for kind, text in self.outputs)


def text_messages(prompt: str, system: str | None) -> list[Message]:
    out = [Message.text("system", system)] if system else []
    return [*out, Message.text("user", prompt)]


# --- options -----------------------------------------------------------------------------------------


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


def _one_of(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in choices:
        return value
    raise ConfigError(f"agent option {name} must be one of {', '.join(choices)} (got {value!r})")


# the original's ways first (the defaults), then ours
UNREADABLE = ("first_action", "ask_again")
NO_IMAGE = ("failed_call", "say_so")
NO_IMAGE_CALL = "action: no image, the vision call fails"  # the label of the call that is not made


@dataclass
class View:
    """What an agent takes from one observation."""

    direction: str
    kind: str  # wall | receptacle | item
    name: str
    location: str
    scene_id: str
    objects: list[str]
    inventory: list[str]
    available: list[str]
    puzzle: bool
    hint: str
    images: list[ImagePart]
    caption: str | None  # the task's own caption (observation=caption), if any
    originals: str | None  # the clone whose prompts the task uses (texts=original), else None: ours


def read_view(observation: Observation) -> View:
    data = observation.data or {}
    view = data.get("view") or {}
    return View(
        direction=str(data.get("direction", "")),
        kind=str(view.get("kind", "wall")),
        name=str(view.get("name", "")),
        location=str(view.get("location", "")),
        scene_id=str(data.get("scene", "")) or "|".join(i.digest for i in observation.images),
        objects=[str(o) for o in data.get("objects", [])],
        inventory=[str(i) for i in data.get("inventory", [])],
        available=list(data.get("available_actions", observation.legal_actions)),
        puzzle=bool(data.get("takes_answer", False)),
        hint=str(data.get("hint") or ""),
        images=list(observation.images),
        caption=data.get("caption"),
        originals=data.get("originals"),
    )


class VisEscapeAgent(Agent):
    """Options, models, captions and the images on the wire shared by both agents."""

    own_options: tuple[str, ...] = ("shuffle_actions", "recent_actions", "unreadable", "no_image")
    default_cot = False

    def __init__(self, spec: AgentSpec, get_model: Callable[[str], ChatModel]) -> None:
        self.read_options(spec)
        # models last, so that a bad option fails before any client is made
        self.model = get_model(str(spec.model))
        captioner = self.options.get("captioner")
        self.captioner_model = get_model(str(captioner)) if captioner else None

    @classmethod
    def check_options(cls, spec: AgentSpec) -> None:
        """Raise ConfigError for a bad option value without building any model."""
        cls.__new__(cls).read_options(spec)

    def read_options(self, spec: AgentSpec) -> None:
        if not spec.model:
            raise ConfigError(f"agent '{spec.name}' needs --model provider:model (e.g. openai:gpt-4o)")
        options = dict(spec.options)
        accepted = set(LLM_OPTIONS) | set(self.own_options)
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise ConfigError(
                f"agent '{spec.name}' does not take option(s) {', '.join(unknown)} "
                f"(accepted: {', '.join(sorted(accepted))})"
            )
        self.spec = spec
        self.options = options
        # the kernel's model options: sampling, the output cap (None: no cap sent), how images go on
        # the wire (format, detail), reasoning; the task's model side fills them as the original sent them
        self.model_options = read_model_options(options, default_history=0, default_cot=self.default_cot)
        if self.model_options.history:
            shown = "all" if self.model_options.history >= HISTORY_ALL else self.model_options.history
            raise ConfigError(
                f"agent '{spec.name}' sends every call as one message, as the original does (history 0); "
                f"the past actions its prompt lists are --agent-opt recent_actions=N "
                f"(default {RECENT_ACTIONS}), not history (got history={shown})"
            )
        self.params = self.model_options.params
        self.cot = self.model_options.cot
        self.recent = _count(options.get("recent_actions", RECENT_ACTIONS), "recent_actions", 0)
        self.shuffle = _flag(options.get("shuffle_actions", True), "shuffle_actions")
        self.unreadable = _one_of(options.get("unreadable", UNREADABLE[0]), "unreadable", UNREADABLE)
        self.no_image = _one_of(options.get("no_image", NO_IMAGE[0]), "no_image", NO_IMAGE)
        self.configure(options)

    def configure(self, options: dict[str, Any]) -> None:
        """Read the options only this agent takes."""

    @property
    def socratic(self) -> bool:
        """Caption-then-reason: the acting model never sees an image."""
        return self.captioner_model is not None

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.params = replace(self.params, sample_key=f"trial-{ctx.trial}")
        # captions as the original makes them: temperature 0 (by the captioner, else the acting model)
        captioner = self.options.get("captioner")
        self.caption_params = caption_params(self.params, str(captioner or self.spec.model))
        self.rng = random.Random(derive_seed("visescape-agent", ctx.seed, ctx.trial))
        self.captions: dict[str, str] = {}
        self.step_count = 0
        self.previous_action: str | None = None

    def texts(self, view: View) -> Prompts:
        """The prompts of this episode: the authors' exact texts from the clone the task reads them from
        (texts=original), else our paraphrases."""
        self.prompts = prompts_at(view.originals)
        return self.prompts

    async def describe(self, view: View, calls: StepCalls) -> str:
        """The view in words: the task's caption, or a caption made once per distinct image."""
        if view.caption:
            return str(view.caption)
        if not view.images:
            return "(no image)"
        if view.scene_id not in self.captions:
            model = self.captioner_model if self.captioner_model is not None else self.model
            prompt = self.texts(view).caption(view.kind, view.name, view.objects)
            # the original's caption call: the image as the other calls send it, with no detail field
            images = replace(self.model_options, image_detail=None).wire_images(list(view.images))
            message = Message("user", [TextPart(prompt), *images])
            text = await calls.call(model, [message], self.caption_params, f"caption {view.scene_id}")
            self.captions[view.scene_id] = " ".join(text.split())
        return self.captions[view.scene_id]

    def images_for(self, view: View) -> list[Part]:
        """The view's images marked for the wire: the format and detail of the model options."""
        return self.model_options.wire_images(list(view.images))

    def vision_fails(self, view: View) -> bool:
        """The original's vision call on a view without an image: there is no file to encode, its three
        tries fail and the reply is empty (`no_image=failed_call`). Not in the Socratic setting, nor
        where the task gives a caption: the acting call has no image there."""
        return self.no_image == "failed_call" and not (self.socratic or view.caption or view.images)

    async def scene(self, view: View, calls: StepCalls) -> tuple[str, list[Part]]:
        """The view as the acting model gets it: "[IMAGE]" and the image after the text, or the caption
        ("(no image)" for a view without one, with `no_image=say_so`)."""
        if self.vision_fails(view):
            return prompts.IMAGE, []
        if self.socratic or view.caption or not view.images:
            return await self.describe(view, calls), []
        return prompts.IMAGE, list(self.images_for(view))

    async def first_ask(
        self, view: View, prompt: str, images: list[Part], system: str | None, calls: StepCalls
    ) -> str:
        """The turn's action call; an empty reply, without a call, where the original's vision call
        fails (`vision_fails`)."""
        if self.vision_fails(view):
            calls.outputs.append((NO_IMAGE_CALL, ""))
            return ""
        return await self.ask(prompt, images, system, calls, "action")

    async def ask(
        self, prompt: str, images: list[Part], system: str | None, calls: StepCalls, kind: str
    ) -> str:
        """A vision call (the prompt, then the image, no system prompt, as the original sends it) or a
        text call (with the system prompt)."""
        if images:
            return await calls.call(
                self.model, [Message("user", [TextPart(prompt), *images])], self.params, kind
            )
        return await calls.call(self.model, text_messages(prompt, system), self.params, kind)

    async def choose(
        self,
        view: View,
        prompt: str,
        images: list[Part],
        available: list[str],
        system: str,
        retry_prompt: Callable[[str], str],
        calls: StepCalls,
    ) -> tuple[str, bool, str]:
        """The original's reading loop: (action or answer, whether it is an answer, the last reply)."""
        response = await self.first_ask(view, prompt, images, system, calls)
        named = False  # an unavailable [ACTION] reply came this turn
        for _ in range(3):
            kind, value = read_action(response, available, view.puzzle)
            if kind in ("answer", "action"):
                assert value is not None
                return value, kind == "answer", response
            if kind == "unavailable":
                assert value is not None
                named = True
                prompt = retry_prompt(value)
                retry_system = self.prompts.system_action if (view.puzzle or not images) else None
                response = await self.ask(prompt, [], retry_system, calls, "retry")
            elif self.unreadable == "first_action" and not view.puzzle and not named:
                # the original's error path: the first action of the shuffled list, after this one call
                return available[0], False, response
            else:
                response = await self.ask(prompt, [], system, calls, "action again")
        return available[0], False, response

    def record_action(self, action: str, answered: bool) -> Action:
        self.step_count += 1
        self.previous_action = action
        return Action(text=f"<ANSWER>{action}</ANSWER>" if answered else action)

    def history_string(self, view: View, action: str, answered: bool) -> str:
        return f"{view.location}try {action}" if answered else action


def _salient(action: str) -> bool:
    return "inspect" not in action and "turn" not in action and "step_back" not in action


# --- the base agent ---------------------------------------------------------------------------------------


class BaseAgent(VisEscapeAgent):
    """The paper's baseline (Table 2), as the authors' BaseAgent."""

    name = "visescape-base"

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.action_history: list[str] = []
        self.salient_history: list[str] = []

    async def act(self, observation: Observation) -> Action:
        calls = StepCalls()
        view = read_view(observation)
        p = self.texts(view)
        available = shuffled(view.available, self.rng) if self.shuffle else list(view.available)
        scene, images = await self.scene(view, calls)
        system = p.system_react if self.cot else p.system_action
        if self.step_count == 0:
            prompt = p.base_first(view.direction, scene, available, self.cot)
            response = await self.first_ask(view, prompt, images, system, calls)
            kind, value = read_action(response, available, False)
            # the original returns nothing for a reply it cannot use here, and its error path plays a
            # random available action
            action = value if kind == "action" and value is not None else self.rng.choice(available)
            answered = False
        else:
            recent = (
                [a for a in self.action_history if "turn" not in a][-self.recent :] if self.recent else []
            )
            prompt = p.base_turn(
                direction=view.direction,
                scene=scene,
                salient=self.salient_history,
                recent=recent,
                inventory=", ".join(view.inventory),
                previous_action=self.previous_action,
                hint=view.hint,
                actions=available,
                puzzle=view.puzzle,
                cot=self.cot,
            )
            action, answered, response = await self.choose(
                view,
                prompt,
                images,
                available,
                system,
                lambda chosen: p.base_retry(view.direction, chosen, available, view.hint),
                calls,
            )
        self.action_history.append(self.history_string(view, action, answered))
        if _salient(action):
            self.salient_history.append(
                f"{view.location}try {action}" if answered else f"{view.location}{action}"
            )
        out = self.record_action(action, answered)
        return replace(out, raw=calls.raw(), rationale=thought_of(response), usage=calls.usage)


# --- VisEscaper: memory, feedback and ReAct ----------------------------------------------------------------


class MemoryAgent(VisEscapeAgent):
    """VisEscaper (Tables 4, 5, 10), as the authors' VisEscaper agent and runner."""

    name = "visescape-memory"
    own_options = (*VisEscapeAgent.own_options, "memory", "memory_every", "feedback")
    default_cot = True

    def configure(self, options: dict[str, Any]) -> None:
        self.memory_on = _flag(options.get("memory", True), "memory")
        self.memory_every = _count(options.get("memory_every", 10), "memory_every", 1)
        self.feedback_on = _flag(options.get("feedback", True), "feedback")

    async def reset(self, ctx: EpisodeContext) -> None:
        await super().reset(ctx)
        self.logs: list[dict[str, str]] = []  # {scene, action, analysis} per step
        self.salient: list[dict[str, Any]] = []  # {step, action, analysis}
        self.memory = ""
        self.previous_scene_id: str | None = None
        self.previous_caption = ""
        self.previous_raw = ""

    async def act(self, observation: Observation) -> Action:
        calls = StepCalls()
        view = read_view(observation)
        p = self.texts(view)
        available = shuffled(view.available, self.rng) if self.shuffle else list(view.available)
        caption = await self.describe(view, calls)
        if self.step_count > 0:
            await self._feedback(view, caption, calls)
        await self._update_memory(calls)
        scene, images = await self.scene(view, calls)
        if self.step_count == 0:
            prompt = p.react_first(view.direction, scene, available)
            action, answered, response = await self.choose(
                view, prompt, images, available, p.system_react, lambda chosen: prompt, calls
            )
        else:
            recent_logs = (
                [log for log in self.logs if "turn" not in log["action"]][-self.recent :]
                if self.recent
                else []
            )
            recent = [(log["action"], log["analysis"]) for log in recent_logs]
            salient = [(s["action"], s["analysis"]) for s in self.salient]
            prompt = p.react_turn(
                memory=self.memory,
                salient=salient,
                recent=recent,
                direction=view.direction,
                scene=scene,
                inventory=", ".join(view.inventory),
                previous_react=self.previous_raw.replace("\n", " "),
                hint=view.hint,
                actions=available,
                puzzle=view.puzzle,
            )
            action, answered, response = await self.choose(
                view,
                prompt,
                images,
                available,
                p.system_react,
                lambda chosen: p.react_retry(view.direction, self.memory, chosen, available, view.hint),
                calls,
            )
        self.previous_raw = response
        self.logs.append(
            {
                "scene": f"{view.direction} side of room - {caption}",
                "action": self.history_string(view, action, answered),
                "analysis": "",
            }
        )
        if _salient(action):
            shown = f"{view.location}try {action}" if answered else f"{view.location}{action}"
            self.salient.append({"step": self.step_count, "action": shown, "analysis": ""})
        self.previous_scene_id, self.previous_caption = view.scene_id, caption
        out = self.record_action(action, answered)
        return replace(out, raw=calls.raw(), rationale=thought_of(response), usage=calls.usage)

    async def _feedback(self, view: View, caption: str, calls: StepCalls) -> None:
        """The effect of the previous action: none for moves, "No Change" for an unchanged view, else a
        feedback call on the captions before and after."""
        previous = str(self.previous_action)
        if "turn" in previous or "inspect" in previous or "step_back" in previous:
            effect = "-"
        elif self.previous_scene_id == view.scene_id:
            effect = self.prompts.no_change
        elif not self.feedback_on:
            effect = "-"
        else:
            prompt = self.prompts.feedback(self.previous_caption, previous, caption)
            reply = await calls.call(self.model, text_messages(prompt, None), self.params, "feedback")
            effect = reply.split(prompts.ANALYSIS)[1].strip() if prompts.ANALYSIS in reply else reply
        self.logs[-1]["analysis"] = effect
        if effect != "-" and self.salient:
            self.salient[-1]["analysis"] = effect

    async def _update_memory(self, calls: StepCalls) -> None:
        """Before the first rebuild the memory is the logged scenes; then a rebuild every `memory_every`
        steps from the last `memory_every` logs. Without memory (Table 5): every distinct observation."""
        step, every = self.step_count, self.memory_every
        if not self.memory_on:
            self.memory = "\n".join(dict.fromkeys(log["scene"] for log in self.logs))
            return
        if 0 < step < every:
            self.memory = "\n".join(log["scene"] for log in self.logs[-every:])
        elif step == every:
            prompt = self.prompts.memory_construct(self.logs[-every:])
            self.memory = await calls.call(
                self.model, text_messages(prompt, self.prompts.system_memory), self.params, "memory"
            )
        elif step > every and step % every == 0:
            prompt = self.prompts.memory_update(self.memory, self.logs[-every:])
            self.memory = await calls.call(
                self.model, text_messages(prompt, self.prompts.system_memory), self.params, "memory"
            )
