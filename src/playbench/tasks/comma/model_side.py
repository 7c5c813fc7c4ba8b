"""What COMMA's authors sent to the model: the model side of the protocol (`core/model_side.py`).

The paper (§4.1): "We use greedy decoding when available", so temperature 0 for both seats. The
authors' agents (`src/multimodal_comms/apps/comma/agents/`) cap every reply at `max_output_len`,
1024 by default (GPT-4o, GPT-4V, o1-mini, Claude, Gemini, the open models), and send each turn as one
user message holding the role prompt, the manual or the private facts and the whole transcript: no
chat is kept (history 0). Their GPTAgent, which runs OpenAI's o-series (o4-mini), sends
`max_completion_tokens=100000` and `top_p=1.0` and no temperature: the cap is the whole budget,
reasoning included. Their Gemini agent sends temperature 0, top-p 1 and seed 42. Images go as PNG
(their data URIs say image/jpeg over PNG bytes), with no detail field.

The judge seat (`--judge-model`) is ours: nothing is declared for it.
"""

from __future__ import annotations

from playbench.core.model_side import FamilyRule, ModelSide

SOURCE = (
    "COMMA paper §4.1 ('We use greedy decoding when available': temperature 0); the authors' code, "
    "pschwendy/multimodal_comms@7aef98f9 src/multimodal_comms/apps/comma/: agents/gpt4o_agent.py "
    ":64-70 and :103-106, agents/gpt4v_agent.py :51-55, agents/gpt4o1_agent.py :49-53, "
    "agents/claude_agent.py :63-66, agents/gemini_agent.py :47-55 (temperature 0, top_p 1, seed 42), "
    "agents/internVL.py :62, agents/qwenVL2.py :75, agents/llava.py :50 (max_output_len, default 1024); "
    "agents/gptagent.py :109-123 (o4-mini in config/experiments_AI/GPT_solver/GPT_expert.json: "
    "max_completion_tokens 100000, top_p 1.0, no temperature); one user message per call with the "
    "whole transcript (agents/agent.py get_conversation_history_string), so history 0; images PNG, "
    "no detail field"
)

SEATS = ("solver", "expert")

# OpenAI's o-series (their GPTAgent's o4-mini), also behind a router prefix (`openai/o4-mini`)
O_SERIES = r"(^|/)o\d"

COMMA_MODEL_SIDE = ModelSide(
    roles={
        seat: {"temperature": 0.0, "max_tokens": 1024, "history": 0, "image_format": "png"} for seat in SEATS
    },
    families=(
        FamilyRule(O_SERIES, {"max_tokens": 100_000, "reasoning_tokens": 0, "top_p": 1.0}, roles=SEATS),
        FamilyRule(r"gemini", {"top_p": 1.0, "seed": 42}, roles=SEATS),
    ),
    source=SOURCE,
)
