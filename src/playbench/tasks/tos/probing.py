"""Spatial belief probing: the cognitive maps the authors ask for during exploration, and their scores.

The authors probe a model's belief after every exploration turn with separate questions that never
enter the exploration itself: a global map, a local map and an uncertainty ("fog") probe; and after
every turn of the false-belief phase, a global map of everything. This module holds those prompts
(our words, their facts: `tos_base/prompts/cogmap_prompts.py`) and our own implementation of their
scoring (`managers/cognitive_map_manager.py`, `utils/cogmap/{metrics,consistency,transforms,
unexplored}.py`, `managers/exploration_manager.py` in mll-lab-nu/Theory-of-Space, MIT), checked
against the metrics their recorded runs logged (tests/test_tos_probing.py):

- A map is read as theirs reads it: the largest JSON object in the reply (fenced blocks first);
  flat `{name: {"position": [x, y], "facing": ...}}` or nested `{"objects": ..., "gates": ...}`;
  a global map keeps the observed objects, every door and "agent"; a local map keeps what is in
  view and turns its `+x/-x/+y/-y` facings into world facings with the agent's true facing. A facing
  word they do not know counts as north; an entry without a facing has none.
- Two maps compare on the names of the truth: direction (share of all pairs, the start included as
  "initial", whose cardinal bin agrees), facing (share of the truth's oriented objects, doors and
  unoriented objects aside, given the right facing), position (exp(-RMSE / L) times the share of
  names placed; L the RMS distance of the scene's objects from the start) and overall (their mean).
- Per turn: global against the observed truth, the full truth (the final turn: "correctness") and
  the agent alone ("self-tracking"); local against the true view ("perception"); local against the
  global map carried into the agent pose the global map gives ("local-global"); the fog probe's F1
  ("uncertainty"). Over turns: "stability", for each pair of successive turns, the share of objects
  not seen in the later turn whose predicted position did not move away from the truth (facing: did
  not turn wrong, nor change while wrong).
- False belief: each changed object is scored the turn it is first seen again: its position and
  facing in that turn's map against the new truth ("belief correctness") and against the model's
  own map at the end of the first exploration ("belief inertia": how much of the old belief stayed).

An unreadable map scores nothing (their extraction failure: the turn drops out of the averages).

The module is split along these concerns and re-exports every public name, so callers keep using
`probing.X`: `probe_prompts.py` (the probes' questions), `probe_maps.py` (maps read from a reply,
the truth, a map as a reply's JSON), `probe_scores.py` (map comparison, the per-turn record,
stability, the episode and false-belief metrics) and `fog_probe.py` (the uncertainty probe).
"""

from __future__ import annotations

from playbench.tasks.tos.fog_probe import (
    LABELS,
    Unexplored,
    fog_image,
    fog_scores,
    map_bounds,
    read_fog_labels,
    symbolic_map,
)
from playbench.tasks.tos.probe_maps import (
    FACING_VECTOR,
    Map,
    Placed,
    extract_json,
    map_json,
    outermost_objects,
    position_scale,
    raw_entry,
    read_global,
    read_local,
    to_frame,
    truth_agent,
    truth_full,
    truth_local,
    truth_observed,
)
from playbench.tasks.tos.probe_prompts import (
    FALSE_BELIEF_SPEC,
    FOG_LEGEND,
    FOG_SPEC,
    FOG_VISION_MAP,
    FORMAT_RULES,
    GLOBAL_SPEC,
    LOCAL_SPEC,
    false_belief_prompt,
    fog_prompt,
    global_prompt,
    local_prompt,
)
from playbench.tasks.tos.probe_scores import (
    BeliefScores,
    FarOff,
    Scores,
    TurnProbe,
    belief_metrics,
    compare,
    episode_metrics,
    local_vs_global,
    score_changed,
    stability,
)

# the names other modules (and tests) import from here (their homes: the modules above)
__all__ = [
    "FACING_VECTOR",
    "FALSE_BELIEF_SPEC",
    "FOG_LEGEND",
    "FOG_SPEC",
    "FOG_VISION_MAP",
    "FORMAT_RULES",
    "GLOBAL_SPEC",
    "LABELS",
    "LOCAL_SPEC",
    "BeliefScores",
    "FarOff",
    "Map",
    "Placed",
    "Scores",
    "TurnProbe",
    "Unexplored",
    "belief_metrics",
    "compare",
    "episode_metrics",
    "extract_json",
    "false_belief_prompt",
    "fog_image",
    "fog_prompt",
    "fog_scores",
    "global_prompt",
    "local_prompt",
    "local_vs_global",
    "map_bounds",
    "map_json",
    "outermost_objects",
    "position_scale",
    "raw_entry",
    "read_fog_labels",
    "read_global",
    "read_local",
    "score_changed",
    "stability",
    "symbolic_map",
    "to_frame",
    "truth_agent",
    "truth_full",
    "truth_local",
    "truth_observed",
]
