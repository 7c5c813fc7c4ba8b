"""The instructions (system prompt) of the Theory of Space tasks, in our own words.

They carry the facts of the authors' exploration prompt (paper Figure 10; the recorded prompt in
`experiments/*/text/active/think/messages.json`): the observation model and its bins (text), the
3D setting and the object legend (vision), the multi-room rules, the goal, the actions and their
grammar, the costs, the scene (rooms, the start room, the objects in the scene's order, the
doors) and the step cap. Like theirs, no grid size is given. The phase-specific parts (question,
map, false belief) come in the observation itself.
"""

from __future__ import annotations

from playbench.tasks.tos.world import World, rooms_at

TEXT_SETTING = """You reason about space in a 2D world that exists only as text: a grid on which every object, and you yourself, is a point with integer coordinates (x, y)."""

RELATIONS = """How observations are reported:
- A relation is a bearing in degrees plus the Euclidean distance, both reported as bins. A bearing lies in [-180, 180]; 0° is straight ahead, positive angles turn clockwise and negative ones counter-clockwise.
- Orientation words: forward/backward/right/left relative to you (egocentric), north/east/south/west in the world (allocentric). When you face north, forward is north, right is east, and so on. A door's orientation is given as the wall it is on, relative to you (e.g. "on left wall").
- Egocentric bins (object relative to you; 0° is ahead): [-45°, -22.5°) front-left; [-22.5°, 0°) front-slight-left; exactly 0° front; (0°, 22.5°] front-slight-right; (22.5°, 45°] front-right; any other angle beyond-fov.
- Cardinal bins (one object relative to another, 45° each): (-22.5°, 22.5°] north; (22.5°, 67.5°] north east; (67.5°, 112.5°] east; (112.5°, 157.5°] south east; (157.5°, 202.5°] south; (202.5°, 247.5°] south west; (247.5°, 292.5°] west; (292.5°, 337.5°] north west.
- Distance bins: 0 same distance; (0, 2] near; (2, 4] mid distance; (4, 8] slightly far; (8, 16] far; (16, 32] very far; beyond 32 extremely far.
- Proximity: objects in view that are at most 2 apart are also related to each other, with cardinal bins and the same distance bins."""

VISION_SETTING = """You reason about space in a simulated 3D environment. The world is drawn in 3D but it is really a discrete 2D grid: every object, and you yourself, stands at integer coordinates (x, y).
Each Observe() gives you a first-person image of what lies in your field of view. When you answer about directions and distances, name them with these bins:
- Egocentric bins (0° is ahead, + clockwise): [-45°, -22.5°) front-left; [-22.5°, 0°) front-slight-left; 0° front; (0°, 22.5°] front-slight-right; (22.5°, 45°] front-right; otherwise beyond-fov.
- Cardinal bins (45° each, clockwise from north): north, north east, east, south east, south, south west, west, north west, each centred on its direction.
- Distance bins: 0 same distance; (0, 2] near; (2, 4] mid distance; (4, 8] slightly far; (8, 16] far; (16, 32] very far; beyond 32 extremely far.
The legend image shows every object of this environment on its own numbered tile; the numbers follow the object list. An object that has a facing direction is shown twice side by side: on the left with its front towards the camera, on the right with its front turned to the left. An object with no facing of its own is shown once."""

GOAL = "Goal: keep the total COST as low as you can while you build a full and correct map of every room."

ROOMS = """Rooms (there may be several):
- You see only inside the room you are in; doors block the view between rooms.
- Exception: standing on a door's point, the door no longer blocks your view and you see into both rooms it joins.
- Doors sit in the walls between rooms: the front/back walls or the left/right ones."""

ACTIONS = """You can jump to objects in your room and, through doors, in other rooms; you can turn and observe. Standing on a door you see objects of both rooms it joins (within your field of view).

Actions:
Moves (<M>):
- JumpTo(OBJ): jump onto the position of an object or door; your facing stays as it is. The target must be in your field of view and must have been observed before. Name it by its object or door name only (not by a number or a direction: JumpTo(left) and JumpTo(1) are invalid).
- Rotate(DEG): turn relative to your current facing; positive is clockwise, negative counter-clockwise. Only -270, -180, -90, 0, 90, 180 and 270 are allowed.{return_line}
Final actions (<F>):
- Observe(): report the objects (doors included) in your field of view from where you stand, and the relations between objects in view that are close to each other, taking your current facing as "north" (a reference relative to you, not the true north). One Observe() at most, as the last action; never Term() after it.
- Query(OBJ): the coordinates of an object you have already observed, measured from where you started (0, 0), with north as +y. Costly: use it only to settle an ambiguity.
- Term(): end the exploration. It must stand alone{term_note}, and only in your very last turn.

Action grammar (a hard constraint):
Actions: [ <M>* <F> ]
<M> = "JumpTo(OBJ)" | "Rotate(DEG)"{return_alt}
<F> = "Observe()" | "Query(OBJ)" | "Term()"
- Any number of <M>, none at all included; the first step cannot contain a JumpTo.
- One <F> exactly, placed last.
- At most one Observe().
- Term() may only appear alone{term_note}.
- A turn that breaks any of these rules is invalid: nothing happens.
Examples:
Allowed: Actions: [JumpTo(blue door), Rotate(-90), JumpTo(sofa), Observe()]
Allowed: Actions: [Query(sofa)]
Not allowed, the final action is missing: Actions: [JumpTo(sofa)]
Not allowed, two final actions: Actions: [Observe(), Rotate(180), Observe()]
Not allowed, Term() together with a move: Actions: [JumpTo(sofa), Term()]
- Observe() sees from where the turn leaves you: after several jumps, from the last point you reached.
- Actions run in order. Your field of view is 90°.
- If a move cannot be made, the remaining actions are skipped and you observe from where you are instead.

Costs: Observe() 1, Query(OBJ) 2; moves are free.

Rules of thumb:
- Cover everything in as few steps as you can.
- Choose actions that uncover what you do not know yet; do not repeat yourself.
- With a 90° field of view you cannot see what is outside it.
- Keep track of your current pose and of your initial pose."""

REPLY = """You have at most {max_steps} exploration steps (one reply = one step).
Reply format: write your thoughts, then a line `FINAL ANSWER:` followed by the line `Actions: [ ... ]`."""


def scene(world: World) -> str:
    """What the agent is told about the scene before exploring (theirs: the rooms, the room it
    starts in, the objects numbered in the scene's order, the doors)."""
    rooms = sorted(r.id for r in world.rooms)
    start = min(rooms_at(world, 0, 0))
    objects = ", ".join(f"{k}: {o.name}" for k, o in enumerate(world.objects, start=1))
    if len(rooms) == 1:
        head = "Picture a single room. You start in it, facing north."
    else:
        listing = ", ".join(f"room {r}" for r in rooms)
        head = (
            f"Picture {len(rooms)} rooms joined by doors: {listing}. You start in room {start}, facing north."
        )
    lines = [
        "The rooms and your starting state:",
        head + " Unless told otherwise, your starting position is the origin (0, 0) and north is +y.",
        f"Objects: {objects}",
    ]
    if world.gates:
        lines.append("Doors: " + ", ".join(g.name for g in world.gates))
    return "\n".join(lines)


def instructions(world: World, modality: str, max_steps: int, return_action: bool = False) -> str:
    setting = VISION_SETTING if modality == "vision" else TEXT_SETTING + "\n\n" + RELATIONS
    actions = ACTIONS.format(
        return_line="\n- Return(): go back to your starting position, facing north." if return_action else "",
        return_alt=' | "Return()"' if return_action else "",
        term_note=" (or right after Return())" if return_action else "",
    )
    return "\n\n".join([setting, GOAL, ROOMS, actions, scene(world), REPLY.format(max_steps=max_steps)])


# texts=ours (`texts.py`): the line after every exploration turn's result, and the whole answer to
# Term() and Term(changes=...) (theirs are read from their clone with texts=original)
STEPS_LEFT = "Exploration steps remaining: {left}."
TASK_FINISHED = "Exploration ended."

FALSE_BELIEF = """You are back at your starting position, facing north. {n} objects of the environment have been changed since your exploration: each was either moved to another position or turned to another facing, never both.
Explore again and find out which objects changed and how, at the lowest cost. The actions are the same as before, but you must end with Term(changes="..."), which submits your answer and ends the task:
Format: Actions: [Term(changes="<object>: <position or orientation>, <object>: <position or orientation>")]
Example: Actions: [Term(changes="lamp: position, sofa: orientation")]
You have at most {max_steps} steps for this phase."""
