"""`texts=original`: the authors' words from their clone, assembled into a request as their code does.

Their agents (`agents/agent.py` `get_conversation_history_string`, "concatenated") build one user
message per call: for the solver the screenshot, the action list with its format line, then the role
prompt and the whole conversation ending with the seat's cue; for the expert the role prompt, the
manual and the conversation (beside the manual page, when there is one, with its own lead-in). The GPT-4o
agent (`agents/gpt4o_agent.py`, the paper's GPT-4o rows) sends them after a fixed system message. Nothing
here holds their sentences: every text is read from the clone (`originals.TEXTS`) and filled here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playbench.core.original_texts import TextSource, fields, fill
from playbench.tasks.comma.originals import TEXTS

# the expert prompt's closing clause that asks for a word limit: ", <words with a number>." at its end
_LIMIT_CLAUSE = re.compile(r",[^,.]*\d+[^,.]*\.\s*$")


@dataclass(frozen=True)
class OriginalWords:
    """Every text of the original a COMMA seat receives, read from one clone."""

    values: dict[str, str]
    stamp: str

    @classmethod
    def read(cls, source: TextSource) -> OriginalWords:
        """Read them all (a missing one is a ConfigError naming its file and symbol)."""
        return cls({ref.id: source.text(ref) for ref in TEXTS}, source.stamp)

    def __getitem__(self, text_id: str) -> str:
        return self.values[text_id]

    def _fill(self, text_id: str, *values: str) -> str:
        """Fill a template's fields, in their order, with `values`."""
        template = self[text_id]
        names = fields(template)
        return fill(template, dict(zip(names, values, strict=True)), text_id)

    # --- the pieces ------------------------------------------------------------------------------
    @property
    def system(self) -> str:
        return self["system"]

    def expert_prompt(self, word_limit: int | None) -> str:
        """The expert's role prompt. Without a word limit, the paper's Appendix D prompt: the file's
        with its closing word-limit clause dropped; with one, the file's, its number the limit."""
        text = self["expert_prompt"]
        clause = _LIMIT_CLAUSE.search(text)
        if clause is None:
            return text
        if word_limit is None:
            return text[: clause.start()] + "."
        return text[: clause.start()] + re.sub(r"\d+", str(word_limit), clause.group(0), count=1)

    def manual(self, module: str) -> str:
        return self[f"manual.{module}"]

    def action_string(self, actions: list[str]) -> str:
        """The action list and its format line, as their solver's first text."""
        header = self["actions_header"] + "\n".join(actions) + "\n\n"
        return header + self._fill("action_format", self["action_delimiter"])

    def conversation(self, prompt: str, context: str, lines: list[tuple[str, str]], seat: str) -> str:
        """The prompt (and the manual: `context`), every message as `<label>: <words>`, the seat's cue."""
        if context:
            text = self._fill("prompt_and_manual", prompt, context)
        else:
            text = self._fill("prompt_alone", prompt)
        for label, words in lines:
            text += self._fill("transcript_line", label, words)
        return text + self._fill("reply_cue", seat)

    def beside_manual_page(self, text: str) -> str:
        return self._fill("manual_picture", text)

    def word_limit(self, limit: int) -> str:
        return self._fill("word_limit", str(limit))

    def label(self, role: str) -> str:
        return self[f"label.{role}"]
