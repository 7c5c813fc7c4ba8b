"""What the Theory of Space authors sent to the model: the model side of the protocol
(`core/model_side.py`).

Their runner (`scripts/SpatialGym/spatial_run.py`) picks one entry of
`scripts/SpatialGym/base_model_config.yaml` per model and refuses a model the file does not list;
the entry's temperature and output cap go on every call (`vagen/inference/model_interface/openai/
model.py`, `_prepare_request_kwargs`: `temperature`, then `max_completion_tokens` where the entry
has one, else `max_tokens`, and `reasoning_effort` where it has one; no top-p, seed or penalties
are sent). A `max_completion_tokens` of OpenAI's reasoning models, Gemini's `max_tokens` and
Anthropic's `max_tokens` with thinking all count the reasoning inside the cap: declared here as
the whole budget (`reasoning_tokens: 0`, or for Claude the answer part beside a 30,000-token
thinking budget, 2,768 + 30,000 = their 32,768).

A model their file does not list gets nothing from them: only the format is declared (history 0,
JPEG), and the cap is playbench's fallback.

Images went as JPEG (quality 85, the longest side resized to at most 1024; our views are 384).
Their conversation is a real chat that keeps every earlier image and raw reply (`env.py` appends each
reply and the environment's answer; their recorded `messages.json`). Our tasks send that chat
themselves (`Observation.turns`, `conversation=chat`, the default), so the agent keeps no window of
its own: history 0 (the answer turn and the belief probes pack the exploration log instead).
"""

from __future__ import annotations

from playbench.core.model_side import FamilyRule, ModelSide

SOURCE = (
    "the authors' code, mll-lab-nu/Theory-of-Space: scripts/SpatialGym/base_model_config.yaml at "
    "dfeb91dc (per model: temperature, max_tokens or max_completion_tokens, reasoning_effort; "
    "claude-sonnet-4-5 budget_tokens 30000) and 51d39f00 (qwen3-vl-2b-instruct), picked by "
    "scripts/SpatialGym/spatial_run.py patch_model_yaml (an unlisted model is refused); "
    "vagen/inference/model_interface/openai/model.py at c30ad814 (_prepare_request_kwargs sends "
    "temperature, the cap and reasoning_effort only; _process_image_for_openai: JPEG quality 85, "
    "longest side <= 1024); the task sends their exploration chat itself (Observation.turns), so history 0"
)

# The cap is the whole output budget, reasoning included (OpenAI's max_completion_tokens, Gemini).
WHOLE = {"reasoning_tokens": 0}


def _rule(pattern: str, temperature: float, max_tokens: int, **more: object) -> FamilyRule:
    return FamilyRule(pattern, {"temperature": temperature, "max_tokens": max_tokens, **more})


# One rule per entry of their file (first match wins, so the more specific names come first).
# A pattern is searched in the model name, so a provider's prefix (`openai/gpt-5.2`) still matches.
FAMILIES: tuple[FamilyRule, ...] = (
    _rule(r"gpt-4\.1", 0.0, 8192),  # gpt-4.1, gpt-4.1-mini
    _rule(r"gpt-5-mini", 1.0, 32768, **WHOLE),
    # gpt-5, gpt-5.1, gpt-5.2 (and their dated snapshots), not -mini / -nano / -chat
    _rule(r"gpt-5(\.\d+)?(-\d{4}-\d{2}-\d{2})?$", 1.0, 32768, reasoning_effort="medium", **WHOLE),
    _rule(r"(^|/)o4-mini", 1.0, 8192, **WHOLE),
    _rule(r"(^|/)o3($|-\d{4})", 1.0, 32768, **WHOLE),
    _rule(r"gemini-2\.5-pro", 0.0, 32768, reasoning_effort="medium", **WHOLE),
    _rule(r"gemini-2\.5-flash", 0.0, 8192),
    _rule(r"gemini-3-pro", 1.0, 32768),
    # thinking with budget_tokens 30000 inside their max_tokens 32768
    _rule(r"claude-sonnet-4-5", 1.0, 32768 - 30000, reasoning_tokens=30000),
    _rule(r"claude-sonnet-4($|-0$|-\d{8})", 0.0, 16384),  # claude-sonnet-4-20250514
    _rule(r"glm-4\.6v", 0.0, 32768),
    _rule(r"glm-4\.5v", 0.0, 16384),
    _rule(r"qwen3-vl-235b-a22b-thinking", 0.0, 32768),
    _rule(r"qwen3-vl-32b-instruct", 0.0, 32768),
    _rule(r"qwen3-vl-2b-instruct", 0.0, 8192),
    _rule(r"internvl3\.5-241b", 0.0, 16384),
)

TOS_MODEL_SIDE = ModelSide(
    settings={"history": 0, "image_format": "jpeg"},
    families=FAMILIES,
    source=SOURCE,
)
