"""The belief probes' questions: the global, local, false-belief and uncertainty ("fog") prompts.

These are the texts a model is asked between exploration replies (our words, the facts of their
`tos_base/prompts/cogmap_prompts.py`): the shared map schema, each probe's specifics with its
example, and the THINK / FINAL ANSWER rules. They are apart from `probing.py`'s reading and scoring
because they are plain text with no dependency on the world or the maps; `probing.py` re-exports them.
"""

from __future__ import annotations

# --- prompts (our words; the facts of their cognitive-map prompts) ------------------------------
_SCHEMA = """Cognitive map (JSON): describe the scene as one JSON object.
- position: [x, y], integers
- facing: "north", "south", "east" or "west" (global map) or "+x", "-x", "+y", "-y" (local map)"""

_OBSERVED_ONLY = """- Put in only the objects you have observed.
- Every object that has a facing direction MUST have a "facing" key."""

GLOBAL_SPEC = """Global cognitive map:
- A compact global map of the N×M grid.
- Frame: [0, 0] is your initial position, and the direction you faced at the start is north.
- Content: every object and door you have observed, and yourself as "agent".
- Facing: only "north", "south", "east" or "west".
Example:
```json
{
    "agent": {"position": [1, -2], "facing": "south"},
    "table": {"position": [3, -2], "facing": "west"},
    "sofa": {"position": [4, 1], "facing": "north"}
}
```"""

FALSE_BELIEF_SPEC = """Global cognitive map:
- A compact global map of the N×M grid.
- Frame: [0, 0] is your initial position, and the direction you faced at the start is north.
- Content: ALL objects and doors, and yourself as "agent".
- Facing: only "north", "south", "east" or "west".
Note: the map must hold every object and every door.
Example:
```json
{
    "agent": {"position": [1, -2], "facing": "south"},
    "table": {"position": [3, -2], "facing": "west"},
    "sofa": {"position": [4, 1], "facing": "north"}
}
```"""

LOCAL_SPEC = """Local cognitive map:
- Layout: an "objects" dictionary whose positions and facings are taken from where you stand and face now.
- Frame: it must contain "origin": "agent". The origin is your current position and facing:
  - +y is straight ahead of you;
  - facing +y, +x is to your right, -x to your left and -y behind you;
  - every position and facing is given in this frame.
- Content: the "objects" dictionary holds every object and door you can see from here now; leave yourself out.
- Facing: "+x", "-x", "+y" or "-y" (the local axes).
Example:
```json
{
    "origin": "agent",
    "objects": {
      "table": {"position": [1, 2], "facing": "+x"}
    }
}
```"""

FOG_SPEC = """Unexplored regions:
{legend}
The map marks candidate points with the letters A-Z. Pick the points that lie in regions you have not explored (not yet observed).
Map:
{map}
Example:
```json
{{
    "unexplored": ["A", "C"]
}}
```"""

FOG_LEGEND = """Map symbols: `#` wall or outside, `.` floor of a room, `+` door, `*` you (your current position), `A`, `B`, ... the candidate points. North is up: each row is one y (largest y at the top), each column one x (x grows to the right, east)."""

FOG_VISION_MAP = """The map image shows the environment from above:
- North is up.
- Coordinates: (0, 0) is the bottom-left point; x grows to the right (east) and y upward (north).
- Grey dots: the points of the rooms with integer coordinates (dark squares are walls, brown squares doors).
- Red letters (A-Z): the candidate points to judge.
- Blue dot: your current position."""

FORMAT_RULES = """IMPORTANT OUTPUT RULES:
1. Always answer with these two labels, each followed by a line break:
THINK: [your thoughts on the map]
FINAL ANSWER: [the JSON only]
2. After FINAL ANSWER write nothing but the JSON.
3. Any other form is invalid."""


def global_prompt() -> str:
    return f"{_SCHEMA}\n{_OBSERVED_ONLY}\n\n{GLOBAL_SPEC}\n\n{FORMAT_RULES}"


def false_belief_prompt() -> str:
    schema_rule = '- Every object that has a facing direction MUST have a "facing" key.'
    return f"{_SCHEMA}\n{schema_rule}\n\n{FALSE_BELIEF_SPEC}\n\n{FORMAT_RULES}"


def local_prompt() -> str:
    return f"{_SCHEMA}\n{_OBSERVED_ONLY}\n\n{LOCAL_SPEC}\n\n{FORMAT_RULES}"


def fog_prompt(symbol_map: str | None) -> str:
    """The uncertainty probe; `symbol_map` is the text map, or None when the map is an image."""
    if symbol_map is None:
        body = FOG_SPEC.format(legend=FOG_VISION_MAP, map="(the image below)")
    else:
        body = FOG_SPEC.format(legend=FOG_LEGEND, map=symbol_map)
    return f"{body}\n\n{FORMAT_RULES}"
