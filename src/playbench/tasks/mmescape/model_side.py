"""MM-Escape's model side: what the authors' code sent to the model (the paper says none of it).

From THUNLP-MT/EscapeCraft at b7b9fea8 (README "Fidelity"):

- `src/Agent.py AgentPlayer.ask`: `temperature=0` and no `max_tokens` for every model, except
  Phi (`model.startswith('phi')`): no temperature, `max_tokens=1024`.
- `src/Agent.py get_interactions` (history type "full", what `src/main.py` plays): a real chat,
  the system prompt as a system message; `gpt*` and `claude*` models get the last 50 turns
  (`interactions[-50 * 2:]`: the current turn and 49 earlier exchanges, plus, from turn 51 on, the
  reply that ended the 50th exchange back, whose question was cut), `llama*` the last 22 (21
  earlier exchanges), every other model (Gemini, Qwen, Doubao, GLM, Phi...) the whole game.
- `src/Game.py main` keeps each reply as `json.dumps` of the parsed, cleaned reply (line 550), and
  `ask_for_action` re-sends the same messages after an unusable reply, which is never stored: the
  task says so per turn (`Observation.reply_in_history`, `Observation.reask`).
- `src/Agent.py __add_image`: each view re-encoded as JPEG (Pillow's default quality 75) with
  `detail: "high"`, `"auto"` for `claude*`; Phi's images go inline as an `<img>` tag (no detail).
- `src/Game.py __load_game`: the view is 2048 x 1024, 1960 x 980 for `claude*` (a task option).

The original matches model names with `str.startswith`; the rules here search `^name` in the
model's name (what follows `provider:`), ignoring case.
"""

from __future__ import annotations

from typing import Any

from playbench.core.model_side import FamilyRule, ModelSide

ORIGINAL = "THUNLP-MT/EscapeCraft@b7b9fea8"
SOURCE = (
    f"the authors' code ({ORIGINAL}; the paper is silent): src/Agent.py ask (temperature 0, no "
    "max_tokens; Phi: no temperature, max_tokens 1024), get_interactions (a real chat: the last 50 "
    "turns for gpt*/claude*, 22 for llama*, all for other models), __add_image (JPEG, detail high, "
    "auto for claude*); src/Game.py __load_game (1960 x 980 frames for claude*), main (the parsed "
    "reply json.dumps'ed into the chat), ask_for_action (an unusable reply re-asked, never stored)"
)

PLAYER = ("player",)
# earlier exchanges the original's chat keeps beside the current turn
GPT_CLAUDE_WINDOW = 49  # interactions[-50 * 2:]
LLAMA_WINDOW = 21  # interactions[-22 * 2:]
CLAUDE_FRAME = {"image_width": 1960, "image_height": 980}


def paper_model_side(chat: bool) -> ModelSide:
    """The original's model side for the player seat. `chat`: the task option `history=chat` (the
    agent keeps the conversation, with the original's window per model family); otherwise the task
    packs its past into each message (`history=turns` and playbench's modes), so the agent keeps
    none (history 0) and the windows do not apply."""
    player: dict[str, Any] = {
        "temperature": 0.0,
        "max_tokens": None,
        "image_format": "jpeg",
        "image_detail": "high",
        "history": "all" if chat else 0,
    }

    def window(n: int) -> dict[str, Any]:
        return {"history": n} if chat else {}

    families = (
        FamilyRule(
            "^claude",
            settings={"image_detail": "auto", **window(GPT_CLAUDE_WINDOW)},
            task_options=CLAUDE_FRAME,
            roles=PLAYER,
        ),
        FamilyRule("^gpt", settings=window(GPT_CLAUDE_WINDOW), roles=PLAYER),
        FamilyRule("^llama", settings=window(LLAMA_WINDOW), roles=PLAYER),
        # Phi: `ask` sends no temperature and caps at 1024 tokens; its image is an <img> tag in the text
        FamilyRule(
            "^phi", settings={"temperature": None, "max_tokens": 1024, "image_detail": None}, roles=PLAYER
        ),
    )
    # only the player's seat: the judge's code is not public, so nothing is declared for it
    return ModelSide(roles={"player": player}, families=families, source=SOURCE)
