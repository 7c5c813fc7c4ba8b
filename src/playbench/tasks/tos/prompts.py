"""The instructions (system prompt) of the Theory of Space tasks, in our own words.

They carry the paper's rules: the observation model and its bins (text), the 3D setting and the
object legend (vision), the multi-room rules, the goal, the action grammar with its constraints,
the costs and the step cap; the phase-specific parts (question, map, false belief) come in the
observation itself.
"""

from __future__ import annotations

from playbench.tasks.tos.world import World

TEXT_SETTING = """You reason about space in a 2D grid world of {width}×{height} described only in text. Every object, and you yourself, is a point at integer coordinates (x, y).

How observations are reported:
- Relations use a bearing in degrees and the Euclidean distance, both reported as bins. A bearing lies in [-180, 180]; 0° is straight ahead, positive angles turn clockwise and negative ones counter-clockwise.
- Orientation words: forward/backward/right/left relative to you (egocentric), north/east/south/west in the world (allocentric). When you face north, forward is north and right is east, and so on. A door's orientation is given as the wall it is on relative to you (e.g. "on left wall").
- Egocentric bins (object relative to you; 0° is ahead): [-45°, -22.5°) front-left; [-22.5°, 0°) front-slight-left; exactly 0° front; (0°, 22.5°] front-slight-right; (22.5°, 45°] front-right; any other angle beyond-fov.
- Cardinal bins (object relative to another object, 45° each, measured clockwise from north): (-22.5°, 22.5°] north; (22.5°, 67.5°] north-east; (67.5°, 112.5°] east; (112.5°, 157.5°] south-east; (157.5°, 202.5°] south; (202.5°, 247.5°] south-west; (247.5°, 292.5°] west; (292.5°, 337.5°] north-west.
- Distance bins: 0 same distance; (0, 2] near; (2, 4] mid distance; (4, 8] slightly far; (8, 16] far; (16, 32] very far; above 32 extremely far."""

VISION_SETTING = """You reason about space in a simulated 3D environment. The world is drawn in 3D but it is really a discrete 2D grid of {width}×{height}: every object, and you yourself, stands at integer coordinates (x, y).
Each Observe() gives you a first-person image of what lies in your field of view (90° wide, eye level). Directions and distances are for you to judge from the image; in your answers name them with these bins:
- Egocentric bins (0° is ahead, + clockwise): [-45°, -22.5°) front-left; [-22.5°, 0°) front-slight-left; 0° front; (0°, 22.5°] front-slight-right; (22.5°, 45°] front-right; otherwise beyond-fov.
- Cardinal bins (45° each, clockwise from north): north, north-east, east, south-east, south, south-west, west, north-west, each centred on its direction.
- Distance bins: 0 same distance; (0, 2] near; (2, 4] mid distance; (4, 8] slightly far; (8, 16] far; (16, 32] very far; above 32 extremely far.
The legend image shows every object of this environment on its own numbered tile; the numbers follow the object list given with it. An object that has a facing direction is shown twice side by side: on the left with its front towards the camera, on the right with its front turned to the left. Objects without a meaningful facing are shown once. Doors are coloured panels in the walls."""

ROOMS = """Rooms (there may be several):
- You see only inside the room you are in; closed doors block the view between rooms.
- Exception: while you stand in a doorway the door is open and not drawn, and you see into both rooms it joins (still only within your field of view).
- Doors sit on the walls between rooms, either on vertical or on horizontal walls."""

GOAL = """Goal: build a complete and accurate map of the environment at the lowest total cost.
- Cover every object with as few steps as you can; prefer actions that reveal unknown things and avoid repeating yourself.
- Your field of view is 90°: objects outside it cannot be seen.
- Keep track of where you are and how you face, and of your initial pose."""

GRAMMAR = """Actions: you can jump to objects and doors (within your room and, through doors, across rooms), turn, return and observe. Standing on a door you see into both rooms it joins.
- JumpTo(OBJ): jump onto the position of an object or door; your facing does not change. The target must have been observed before and must be visible from where you are when you jump (in your room and field of view).
- Rotate(DEG): turn by DEG degrees, positive clockwise; DEG is one of 0, 90, -90, 180, 270, -270.
- Return(): go back to your starting position, facing north.
- Observe(): report what you see from your current position and facing.
- Query(OBJ): get the exact coordinates of an object you have already observed (origin = your starting position, +y = north).
- Term(): end the exploration.

Action grammar (a hard constraint):
Actions: [ <M>* <F> ]   with   <M> = JumpTo(OBJ) | Rotate(DEG) | Return()   and   <F> = Observe() | Query(OBJ) | Term()
- Zero, one or more <M>. No JumpTo in the first step.
- Exactly one <F>, and it is the last action of the list.
- At most one Observe().
- Term() stands alone (it may only follow Return()).
- A reply that breaks any rule is invalid: nothing happens and it still costs.
Examples: Actions: [Rotate(90), Observe()]    Actions: [JumpTo(sofa), Rotate(-90), Observe()]    Actions: [Query(lamp)]    Actions: [Term()]
- Observe() reports only from the pose you end in: after several jumps, the view is from the last position.
- Actions are carried out in order.

Costs: Observe() 1, Query(OBJ) 2, an invalid reply 0.5; moves are free. You have at most {max_steps} steps (one reply = one step).
Reply format: think if you like, then end with one line `Actions: [ ... ]`."""


SCENE = """This environment: {rooms} room{plural}, {count} objects: {names}. Doors are named by their colour (e.g. "red door")."""


def scene(world: World) -> str:
    """What the agent is told about the scene before exploring (the paper: the number of rooms and
    the names of all objects); names in alphabetical order, so the list says nothing about places."""
    names = sorted(o.name for o in world.objects)
    rooms = len(world.rooms)
    return SCENE.format(
        rooms=rooms, plural="" if rooms == 1 else "s", count=len(names), names=", ".join(names)
    )


def instructions(world: World, modality: str, max_steps: int) -> str:
    setting = (VISION_SETTING if modality == "vision" else TEXT_SETTING).format(
        width=world.width, height=world.height
    )
    return "\n\n".join([setting, scene(world), ROOMS, GOAL, GRAMMAR.format(max_steps=max_steps)])


FALSE_BELIEF = """You are back at your starting position, facing north. Since your exploration, {n} object(s) of the environment have been changed: each one was either moved to another position or turned to another facing, never both.
Explore again and find out which objects changed and how, at the lowest cost. The actions and rules are the same as before. To answer and finish, use Term(changes="...") — alone in its action list:
Format: Actions: [Term(changes="object1: change_type, object2: change_type")] where change_type is position or orientation.
Example: Actions: [Term(changes="lamp: position, chair: orientation")]
You have at most {max_steps} steps for this phase."""
