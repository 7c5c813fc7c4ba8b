"""The geom puzzle's observations in the authors' own words (`texts=original`), read from their clone.

Every text is read from `SharkyBamboozle/iVISPAR` (`originals.py` maps them) and filled as their agent
class fills it (`prompt_agent`: GPT4Agent, ClaudeAgent or GeminiAgent of `agent_systems.py`):

- system prompt: the instruction file of the modality, read whole, plus the chain-of-thought block
  their `LLMAgent.__init__` appends (COT true in the paper's runs);
- vision: each past state's image (grey, `past`) followed by the past action in the class's label,
  then the goal and active images and the class's step text, whose label snippets are filled from
  `color_codes.json` as their `visual_state_embedding: both` does;
- text: each past state and past action in the class's labels, numbered from 1 over the window
  (GPT4Agent and ClaudeAgent), or joined into the history block of the step text (GeminiAgent), then
  the step text with the goal and active states, each the `<COORDINATE> <color> <shape>` lines
  joined by line breaks;
- the past action of a reply without an action: their agents' note, cleaned as every action is.

GPT4Agent and ClaudeAgent sent a chat rebuilt at every call: each past image (or numbered past state)
a user turn, each past action an assistant turn, then the goal image, the active image and the step
text as three user turns (in text, the step text alone). The task sends that conversation as
`Observation.turns` (the last user message is `parts`), so our `llm` agent sends their messages, roles
and order. GeminiAgent sent all of a step as one user turn: `parts` alone, no turns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from playbench.core.errors import ConfigError
from playbench.core.original_texts import TextSource, fill
from playbench.core.types import ImagePart, Part, TextPart, Turn
from playbench.tasks.ivispar import originals as o
from playbench.tasks.ivispar.paper_parse import clean_command

PAPER_COLORS = ["green", "red", "blue", "yellow"]
PAPER_SHAPES = ["cube", "sphere", "pyramid", "cylinder"]


def check_paper_setting(config: Any) -> None:
    """The original's instruction files are fixed texts for the paper's 4x4 board and vocabulary:
    refuse texts=original with another board or vocabulary, or with our extra facts."""
    wrong = []
    if list(config.board_size) != [4, 4]:
        wrong.append(f"board_size {list(config.board_size)}")
    if list(config.colors) != PAPER_COLORS:
        wrong.append(f"colors {config.colors}")
    if list(config.shapes) != PAPER_SHAPES:
        wrong.append(f"shapes {config.shapes}")
    if config.extra_facts:
        wrong.append("extra_facts=true (our facts, written for texts=ours)")
    if wrong:
        raise ConfigError(
            "texts=original sends the authors' instructions, written for the paper's 4x4 board with colors "
            f"{', '.join(PAPER_COLORS)} and shapes {', '.join(PAPER_SHAPES)}; this run sets "
            f"{'; '.join(wrong)}: use texts=ours"
        )


def _with_result(text: str, result: str | None) -> str:
    """Our extension move_results: the result line after the past action, before its trailing breaks."""
    if result is None:
        return text
    body = text.rstrip("\n")
    return f"{body}\nResult: {result}{text[len(body) :]}"


class OriginalPrompts:
    """The authors' texts for one modality and agent class, all read at construction (a missing one
    is a ConfigError naming its file and symbol)."""

    def __init__(self, source: TextSource, modality: str, agent: str) -> None:
        if agent not in o.AGENT_CLASSES:
            raise ConfigError(f"prompt_agent must be one of {', '.join(o.AGENT_CLASSES)} (got {agent!r})")
        self.source, self.modality, self.agent = source, modality, agent
        read = self._text
        file_id = "system.instructions_2d" if modality == "2d" else "system.instructions"
        # their agents: the file's text (`f.read()`) with the COT block appended (`+=`)
        self.system = read(file_id) + read("system.cot")
        self.no_action = clean_command(read("past.no_action"))
        codes = {
            o._code(kind, key): read(f"label.{kind}.{key}")
            for kind in o.CODE_KINDS
            for key in ("type", "color")
        }
        if modality == "text":
            self.step = read(f"{agent}.text.step")
            self.past_state = read(f"{agent}.text.past_state")
            self.past_action = read(f"{agent}.text.past_action")
        else:
            self.step = read(f"{agent}.vision.step")
            self.past_action = read(f"{agent}.vision.past_action")
            snippets = {
                field: self._fill(f"{agent}.vision.snippet_{field.rsplit('_', 1)[1]}", codes)
                for field in o.FIELD_SNIPPETS
            }
            self.vision_text = self._fill(f"{agent}.vision.step", snippets, self.step)

    @property
    def stamp(self) -> str:
        return self.source.stamp

    def _text(self, text_id: str) -> str:
        return self.source.text(o.TEXT_BY_ID[text_id])

    def _fill(self, text_id: str, values: dict[str, Any], template: str | None = None) -> str:
        return fill(self._text(text_id) if template is None else template, values, text_id)

    # --- one observation -------------------------------------------------------------------------
    @property
    def chat(self) -> bool:
        """GPT4Agent and ClaudeAgent send a conversation; GeminiAgent one user turn."""
        return self.agent != "gemini"

    def view(
        self,
        goal: Any,
        current: Any,
        past: Sequence[tuple[Any, str, str]],
        listing: Callable[[Any], str],
        image: Callable[[Any, str], bytes] | None,
        results: bool = False,
        counter: str | None = None,
    ) -> tuple[list[Turn] | None, list[Part]]:
        """(turns, parts) of one step as their agent class sends it after the system prompt: the
        earlier turns of its chat (None for GeminiAgent's single user turn), then the parts of the last
        user message. `past` holds (state, action as shown, feedback), oldest first."""
        if image is not None:
            turns = self._vision(goal, current, past, image, results)
            parts: list[Part] = [TextPart(self.vision_text)]
        else:
            turns, step = self._textual(goal, current, past, listing, results)
            parts = [TextPart(step)]
        if counter:
            parts.append(TextPart(counter))
        if self.chat:
            return turns, parts
        return None, [p for turn in turns for p in turn.parts] + parts

    def _said(self, text: str, feedback: str, results: bool) -> list[Turn]:
        """A past action as their chat holds it (an assistant turn); our extension move_results adds its
        result after it, as a user turn in a chat and as a line of the same text in GeminiAgent's."""
        if not results:
            return [Turn("assistant", [TextPart(text)])]
        if not self.chat:
            return [Turn("user", [TextPart(_with_result(text, feedback))])]
        return [Turn("assistant", [TextPart(text)]), Turn("user", [TextPart(f"Result: {feedback}")])]

    def _vision(
        self,
        goal: Any,
        current: Any,
        past: Sequence[tuple[Any, str, str]],
        image: Callable[[Any, str], bytes],
        results: bool,
    ) -> list[Turn]:
        """Each past image a user turn followed by its action, then the goal and the active image, each
        a user turn (GPT4Agent.act, ClaudeAgent.act; GeminiAgent puts the same parts in one turn)."""
        turns: list[Turn] = []
        for state, shown, feedback in past:
            said = self._fill(f"{self.agent}.vision.past_action", {o.FIELD_RESPONSE: shown}, self.past_action)
            turns.append(Turn("user", [ImagePart(image(state, "past"), label="past")]))
            turns += self._said(said, feedback, results)
        turns.append(Turn("user", [ImagePart(image(goal, "goal"), label="goal")]))
        turns.append(Turn("user", [ImagePart(image(current, "current"), label="current")]))
        return turns

    def _textual(
        self,
        goal: Any,
        current: Any,
        past: Sequence[tuple[Any, str, str]],
        listing: Callable[[Any], str],
        results: bool,
    ) -> tuple[list[Turn], str]:
        """(past turns, step text). GPT4Agent and ClaudeAgent: each past state a user turn and each
        past action an assistant turn, numbered 1.. over the window at every call; GeminiAgent: the
        same entries joined into the history block of its step text (no turns)."""
        turns: list[Turn] = []
        history = ""
        for k, (state, shown, feedback) in enumerate(past, 1):
            observed = {o.FIELD_INDEX: k, o.FIELD_OBSERVATION: listing(state)}
            acted = {o.FIELD_INDEX: k, o.FIELD_RESPONSE: shown}
            seen = self._fill(f"{self.agent}.text.past_state", observed, self.past_state)
            said = self._fill(f"{self.agent}.text.past_action", acted, self.past_action)
            if self.chat:
                turns.append(Turn("user", [TextPart(seen)]))
                turns += self._said(said, feedback, results)
            else:
                history += seen + _with_result(said, feedback if results else None)
        values: dict[str, Any] = {o.FIELD_GOAL: listing(goal), o.FIELD_CURRENT: listing(current)}
        if not self.chat:  # the history block inside the step text
            values.update({o.FIELD_HISTORY: history, f"({o.FIELD_HISTORY})": history})
        return turns, self._fill(f"{self.agent}.text.step", values, self.step)
