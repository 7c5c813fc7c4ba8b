"""The prompts of the authors' agents, two ways: their exact texts read from the clone (`TheirPrompts`,
`texts=original`) or our paraphrases (`OurPrompts`, `texts=ours`, `agent_prompts.py`), with one interface.

`TheirPrompts` reads every text of `originals.py`'s map from the clone (parsed, never run) and fills it as
the authors' code fills it (`experiment/agent/baseagent/prompt.py`, `visescaper/prompt.py`,
`config/caption_*_view.py` at 9f65b99): each section present or empty as there, lines joined by newlines,
the actions as a Python list, the inventory names joined by ", ". `scene` is `IMAGE` for a prompt whose
image follows the text (their `_vlm` prompts), else the caption in its place (their text prompts).

The room tasks use the base agent's prompts for every model seat (`task_prompt`): what the `llm` agent is
sent is then exactly what the authors' base agent sends in the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource, fill, texts_source
from playbench.core.originals import find_clone, open_clone
from playbench.core.task import TaskConfig
from playbench.tasks.visescape import agent_prompts as ours
from playbench.tasks.visescape import originals as om

IMAGE = ours.IMAGE
Pair = tuple[str, str]  # (action, its effect or "-")


def _with_effect(action: str, analysis: str) -> str:
    return action if analysis == "-" else f"{action} - {analysis}"


class OurPrompts:
    """Our paraphrases (`agent_prompts.py`)."""

    stamp = "ours"
    system_action = ours.SYSTEM_ACTION
    system_react = ours.SYSTEM_REACT
    system_memory = ours.SYSTEM_MEMORY
    no_change = ours.NO_CHANGE
    answer_slot = ours.ANSWER_SLOT

    def base_first(self, direction: str, scene: str, actions: Sequence[str], cot: bool = False) -> str:
        return ours.base_first(direction, scene, actions, cot)

    def base_turn(self, **kw: Any) -> str:
        return ours.base_turn(**kw)

    def base_retry(self, direction: str, chosen: str, actions: Sequence[str], hint: str) -> str:
        return ours.base_retry(direction, chosen, actions, hint)

    def react_first(self, direction: str, scene: str, actions: Sequence[str]) -> str:
        return ours.react_first(direction, scene, actions)

    def react_turn(self, *, salient: Sequence[Pair], recent: Sequence[Pair], **kw: Any) -> str:
        shown = list(dict.fromkeys(_with_effect(a, e) for a, e in salient))
        return ours.react_turn(salient=shown, recent=[_with_effect(a, e) for a, e in recent], **kw)

    def react_retry(self, direction: str, memory: str, chosen: str, actions: Sequence[str], hint: str) -> str:
        return ours.react_retry(direction, memory, chosen, actions, hint)

    def memory_construct(self, logs: Sequence[dict[str, str]]) -> str:
        return ours.memory_construct(logs)

    def memory_update(self, memory: str, logs: Sequence[dict[str, str]]) -> str:
        return ours.memory_update(memory, logs)

    def feedback(self, previous_scene: str, previous_action: str, current_scene: str) -> str:
        return ours.feedback(previous_scene, previous_action, current_scene)

    def caption(self, kind: str, name: str, objects: Sequence[str]) -> str:
        return ours.caption(kind, name, objects)


class TheirPrompts:
    """The authors' texts from a clone, filled as their code fills them."""

    def __init__(self, source: TextSource) -> None:
        self.source = source
        self.refs = {ref.id: ref for ref in om.REPO.texts}

    @property
    def stamp(self) -> str:
        return self.source.stamp

    def t(self, text_id: str) -> str:
        return self.source.text(self.refs[text_id])

    def f(self, text_id: str, **values: Any) -> str:
        return fill(self.t(text_id), values, text_id)

    def check(self) -> None:
        """Read every text (a missing one is a ConfigError naming its file and symbol)."""
        for ref in om.REPO.texts:
            self.source.text(ref)

    # --- simple texts ----------------------------------------------------------------------------
    @property
    def system_action(self) -> str:
        return self.t("base.system")

    @property
    def system_react(self) -> str:
        return self.t("memory.system.react")

    @property
    def system_memory(self) -> str:
        return self.t("memory.system.memory")

    @property
    def no_change(self) -> str:
        return self.t("memory.no_change")

    @property
    def answer_slot(self) -> str:
        return self.t("base.answer_slot")

    # --- the base agent (baseagent/prompt.py) --------------------------------------------------------
    def base_first(self, direction: str, scene: str, actions: Sequence[str], cot: bool = False) -> str:
        if cot:
            raise ConfigError("the authors' base agent has no [THINK] prompt: cot=true needs texts=ours")
        values = {
            "init_prompt": self.t("base.init"),
            "direction": direction,
            "available_actions": list(actions),
        }
        if scene == IMAGE:
            return self.f("base.first", **values)
        return self.f("base.first.caption", current_scene_desc=scene, **values)

    def base_turn(
        self,
        *,
        direction: str,
        scene: str,
        salient: Sequence[str],
        recent: Sequence[str],
        inventory: str,
        previous_action: str | None,
        hint: str,
        actions: Sequence[str],
        puzzle: bool,
        cot: bool = False,
        extra: Sequence[str] = (),
    ) -> str:
        if cot:
            raise ConfigError("the authors' base agent has no [THINK] prompt: cot=true needs texts=ours")
        salient_text = "\n".join(salient)
        recent_text = "\n".join(recent)
        hint_text = self.f("base.hint", hint_message=hint) if hint else ""
        values = {
            "init_prompt": self.t("base.init"),
            "salient_action_history_text": (
                self.f("base.action_memory", salient_action_history=salient_text) if salient_text else ""
            ),
            "action_history_text": self.f("base.recent", action_history=recent_text) if recent_text else "",
            "direction": direction,
            "inventory_text": (
                self.f("base.inventory", inventory=inventory) if inventory else self.t("base.inventory_none")
            ),
            "previous_action": previous_action,
            # our options' additions (result text, answer format; off by default) follow the hint section
            "hint_message_text": hint_text + "".join(f"{x}\n" for x in extra),
            "hint_guideline_text": self.t("base.hint_guide") if hint else "",
            "available_actions": [*actions, self.answer_slot] if puzzle else list(actions),
            "puzzle_text1": self.t("base.answer_note") if puzzle else "",
            "puzzle_text2": self.t("base.answer_or") if puzzle else "",
        }
        if scene == IMAGE:
            return self.f("base.turn", **values)
        return self.f("base.turn.caption", current_scene_desc=scene, **values)

    def base_retry(self, direction: str, chosen: str, actions: Sequence[str], hint: str) -> str:
        return self.f(
            "base.retry",
            init_prompt=self.t("base.init"),
            direction=direction,
            before_action=chosen,
            hint_message_text=self.f("base.retry.hint", hint_message=hint) if hint else "",
            hint_guideline_text=self.t("base.retry.hint_guide") if hint else "",
            available_actions=list(actions),
        )

    # --- VisEscaper (visescaper/prompt.py) ------------------------------------------------------------
    def _line(self, action: str, analysis: str) -> str:
        if analysis == "-":
            return action
        return fill(
            self.t("memory.line.effect"), {"action['action']": action, "action['analysis']": analysis}
        )

    def react_first(self, direction: str, scene: str, actions: Sequence[str]) -> str:
        values = {
            "init_prompt": self.t("memory.init"),
            "direction": direction,
            "available_actions": list(actions),
        }
        if scene == IMAGE:
            return self.f("memory.first", **values)
        return self.f("memory.first.caption", current_scene_desc=scene, **values)

    def react_turn(
        self,
        *,
        memory: str,
        salient: Sequence[Pair],
        recent: Sequence[Pair],
        direction: str,
        scene: str,
        inventory: str,
        previous_react: str,
        hint: str,
        actions: Sequence[str],
        puzzle: bool,
    ) -> str:
        recent_text = "\n".join(self._line(a, e) for a, e in recent)
        salient_text = "\n".join(dict.fromkeys(self._line(a, e) for a, e in salient))
        values = {
            "init_prompt": self.t("memory.init"),
            "memory_text": self.f("memory.memory", spatial_memory=memory) if memory else "",
            "salient_action_history_text": (
                self.f("memory.action_memory", salient_action_history=salient_text) if salient_text else ""
            ),
            "action_history_text": self.f("memory.recent", action_history=recent_text) if recent_text else "",
            "direction": direction,
            "inventory_text": (
                self.f("memory.inventory", inventory=inventory)
                if inventory
                else self.t("memory.inventory_none")
            ),
            "previous_react": previous_react,
            "hint_message_text": self.f("memory.hint", hint_message=hint) if hint else "",
            "hint_guideline_text": self.t("memory.hint_guide") if hint else "",
            "available_actions": [*actions, self.t("memory.answer_slot")] if puzzle else list(actions),
            "puzzle_text1": self.t("memory.answer_note") if puzzle else "",
            "puzzle_text2": self.t("memory.answer_or") if puzzle else "",
        }
        if scene == IMAGE:
            return self.f("memory.turn", **values)
        return self.f("memory.turn.caption", current_scene_desc=scene, **values)

    def react_retry(self, direction: str, memory: str, chosen: str, actions: Sequence[str], hint: str) -> str:
        return self.f(
            "memory.retry",
            init_prompt=self.t("memory.init"),
            direction=direction,
            memory_text=self.f("memory.retry.memory", spatial_memory=memory) if memory else "",
            before_action=chosen,
            hint_message_text=self.f("memory.retry.hint", hint_message=hint) if hint else "",
            hint_guideline_text=self.t("memory.retry.hint_guide") if hint else "",
            available_actions=list(actions),
        )

    def _logs(self, logs: Sequence[dict[str, str]]) -> str:
        lines = []
        for log in logs:
            key = "memory.log" if log["analysis"] == "-" else "memory.log.effect"
            values = {f"log['{k}']": log[k] for k in ("scene", "action", "analysis")}
            lines.append(fill(self.t(key), values, key))
        return "\n".join(lines)

    def _formats(self) -> dict[str, str]:
        return {
            "spatial_json_format": self.t("memory.format.spatial"),
            "inspected_objects_json_format": self.t("memory.format.inspected"),
            "uninspected_objects_json_format": self.t("memory.format.uninspected"),
            "additional_memory_json_format": self.t("memory.format.additional"),
        }

    def memory_construct(self, logs: Sequence[dict[str, str]]) -> str:
        return self.f(
            "memory.build",
            init_prompt=self.t("memory.init"),
            last10history_str=self._logs(logs),
            **self._formats(),
        )

    def memory_update(self, memory: str, logs: Sequence[dict[str, str]]) -> str:
        return self.f(
            "memory.update",
            init_prompt=self.t("memory.init"),
            spatial_memory=memory,
            last10history_str=self._logs(logs),
            **self._formats(),
        )

    def feedback(self, previous_scene: str, previous_action: str, current_scene: str) -> str:
        return self.f(
            "memory.feedback",
            init_prompt=self.t("memory.init"),
            previous_scene_desc=previous_scene,
            previous_action=previous_action,
            current_scene_desc=current_scene,
        )

    # --- captions (config/caption_*_view.py) ------------------------------------------------------------
    def caption(self, kind: str, name: str, objects: Sequence[str]) -> str:
        if kind == "wall":
            return self.f("caption.wall", objects=list(objects))
        if kind == "receptacle":
            items = [o for o in objects if o != name]
            items_str = ", ".join(f"'{item}'" for item in items) if items else ""
            present = self.f("caption.object.items", object_type=name, items_str=items_str) if items else ""
            return fill(self.t("caption.object"), {"object_type": name, "#1": present}, "caption.object")
        return self.f("caption.item", item_name=name)


Prompts = OurPrompts | TheirPrompts
_CACHE: dict[str, TheirPrompts] = {}


def prompts_at(path: str | None) -> Prompts:
    """The authors' prompts from the clone at `path`, or ours when `path` is None."""
    if path is None:
        return OurPrompts()
    key = str(Path(path).expanduser())
    if key not in _CACHE:
        _CACHE[key] = TheirPrompts(TextSource(open_clone(om.REPO, key)))
    return _CACHE[key]


def task_prompts(config: TaskConfig, use: Any) -> TheirPrompts | None:
    """The authors' prompts for a task configured with `TextsOptions`, or None for ours."""
    source = texts_source(config, use)
    return TheirPrompts(source) if source is not None else None


def clone_path(prompts: TheirPrompts | None) -> str | None:
    return str(prompts.source.clone.path) if prompts is not None else None


def data_origin(source: str | None) -> str:
    """`original@<commit>` for the authors' rooms read from a clone, `ours` for the built-in demo room."""
    if source is None:
        return "ours"
    clone = find_clone(om.REPO, source)
    return clone.stamp if clone is not None else "ours"
