"""What iVISPAR's authors sent to the model: the model side of the protocol (`core/model_side.py`).

Their agents (`Source/Experiment/agent_systems.py`) set the generation per agent class and per
modality, each class calling one model family:

- every call is capped at 500 output tokens, except GeminiAgent's text calls, which send no
  generation config at all (no cap);
- GPT4Agent (gpt-4o): temperature 0.5 in text, none (the API's default) with images;
- ClaudeAgent (claude-3-5-sonnet-20241022): temperature 0.5 in both;
- GeminiAgent (gemini-2.0-flash-exp): no temperature;
- the open models through vLLM (Qwen2-VL, InternVL2.5, LLaVA-OneVision, Llama vision, DeepSeek-VL2):
  temperature 1.0, top-p 0.95 (and top-k 50, which is no setting of ours), the paper's §4.3 for
  all open-source models.

Images went as PNG with no detail field. Past states went as a real chat (past images as user
turns, past actions as assistant turns); our tasks rebuild that chat at every step as the
observation's turns (`past_window`; `conversation=packed`: one message), so the agent keeps no chat
of its own: history 0. Board inference is an image task, so it takes the image
settings; the sliding tile puzzle has no original and takes the geom puzzle's.
"""

from __future__ import annotations

from playbench.core.model_side import FamilyRule, ModelSide

SOURCE = (
    "iVISPAR paper §4.3 (open-source models: temperature 1.0, top-p 0.95, top-k 50); the authors' "
    "Source/Experiment/agent_systems.py at SharkyBamboozle/iVISPAR@97140194 (GPT4Agent: vision :654-658 "
    "max_tokens 500 and no temperature, text :733-738 max_tokens 500 and temperature 0.5, the board "
    "description call :452-459 max_tokens 500; ClaudeAgent :944-950 and :1017-1023 max_tokens 500, "
    "temperature 0.5; GeminiAgent: vision :1200-1205 max_output_tokens 500, text :1278 no config; "
    "OpenSourceAgent :1659 SamplingParams(temperature=1.0, top_p=0.95, top_k=50, max_tokens=500)); "
    "images PNG without detail; the task rebuilds the past at every step (past_window) as their chat in "
    "Observation.turns (conversation=packed: one message), so history 0"
)

# The model families of the authors' agent classes, as regular expressions searched in the model name
GPT = r"gpt-4"  # GPT4Agent (its model: gpt-4o)
CLAUDE = r"claude"  # ClaudeAgent (claude-3-5-sonnet-20241022)
GEMINI = r"gemini"  # GeminiAgent (gemini-2.0-flash-exp)
# the OpenSourceAgent subclasses: Qwen2VLAgent, InternVLAgent, LLaVaOneVisionAgent, LlamaAgent, DeepseekAgent
OPEN = r"qwen[\w.-]*-vl|internvl|llava|llama[\w.-]*vision|deepseek-vl"

# top_k has no setting of its own: it travels in the body, as vLLM (their server) takes it
OPEN_SAMPLING = {"temperature": 1.0, "top_p": 0.95, "extra_body": {"top_k": 50}}


def ivispar_model_side(vision: bool) -> ModelSide:
    """The declaration for a task whose observations are images (`vision`) or text."""
    if vision:
        families = (
            FamilyRule(CLAUDE, {"temperature": 0.5}),
            FamilyRule(OPEN, OPEN_SAMPLING),
        )
    else:
        families = (
            FamilyRule(GPT, {"temperature": 0.5}),
            FamilyRule(CLAUDE, {"temperature": 0.5}),
            FamilyRule(GEMINI, {"max_tokens": None}),
            FamilyRule(OPEN, OPEN_SAMPLING),
        )
    return ModelSide(
        settings={"max_tokens": 500, "history": 0, "image_format": "png"},
        families=families,
        source=SOURCE,
    )
