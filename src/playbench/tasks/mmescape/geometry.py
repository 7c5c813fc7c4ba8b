"""The world's geometry, one source for drawing, grabbing and walking.

From an instance and the state of its props (picked up, boxes open, doors open) this module
builds:
- `Part`s: boxes, vertical cylinders and spheres in world coordinates, each with the integer id
  of the entity it belongs to. The renderer draws exactly these (plus text decals, which have no
  id), and `RayCaster` intersects them exactly: the grab ray and the rendered object-id buffer see
  the same objects.
- `Obstacle`s: footprints (x-z rectangles with a height) of walls, closed doors and furniture,
  for the collision test and the planner's occupancy map.
- `Entity`s: what an id is (structure, furniture, clutter, a chain item, a door) and its name.

World axes: y up, yaw 0 looks along -z ("north"). Walls are 0.12 m thick, outside the rooms'
floor rectangles; rooms are 3.0 m high (the original's height).

This module is the public face of the geometry: the code lives in one module per phase and is
re-exported here, so that callers keep importing `geometry` (as `geo`):
- `shapes.py`: the measures, entity ids, the records above and the placing of primitives;
- `walls.py`: the rooms' shells and the exit doors;
- `world.py`: `World` and `build_world`, the whole world of an instance;
- `rays.py`: `ViewSpec`, the camera's directions and `RayCaster`;
- `collision.py`: `sweep`, the collision test of a move.
"""

from __future__ import annotations

from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.collision import sweep
from playbench.tasks.mmescape.rays import (
    FOV_Y,
    PITCH_LIMIT,
    SQUARE_512,
    SUPERSAMPLE,
    SUPERSAMPLE_MAX_PIXELS,
    RayCaster,
    ViewSpec,
    centre_ndc,
    in_view,
    pixel_direction,
    view_direction,
)
from playbench.tasks.mmescape.shapes import (
    AGENT_R,
    CEILING_ID,
    CLUTTER_BASE,
    DOOR_BASE,
    DOOR_H,
    DOOR_W,
    EYE_H,
    FLOOR_ID,
    FURNITURE_BASE,
    ITEM_BASE,
    JUMP_CLEAR,
    REACH,
    RGB,
    ROOM_H,
    WALL_ID,
    WALL_T,
    Decal,
    Entity,
    Obstacle,
    Part,
    VisualState,
    aabb,
    footprint,
    obstacle,
    piece_scale,
    piece_size,
    place,
    prop_footprint,
    prop_size,
    quarter,
    rotate_xz,
)
from playbench.tasks.mmescape.walls import (
    WALL_YAW,
    _local_to_world_door,
    door_parts,
    door_point,
    inner_wall_boxes,
    inward,
    structure_parts,
    wall_line,
)
from playbench.tasks.mmescape.world import World, _build_world, build_world, reading_rot

# The public names this module had before the split, the two private ones other modules use
# (`_build_world`: layout, planner; `_local_to_world_door`: layout, planner, difficulty) and the
# furniture module, which tests read as `geo.fx`.
__all__ = [
    "AGENT_R",
    "CEILING_ID",
    "CLUTTER_BASE",
    "DOOR_BASE",
    "DOOR_H",
    "DOOR_W",
    "EYE_H",
    "FLOOR_ID",
    "FOV_Y",
    "FURNITURE_BASE",
    "ITEM_BASE",
    "JUMP_CLEAR",
    "PITCH_LIMIT",
    "REACH",
    "RGB",
    "ROOM_H",
    "SQUARE_512",
    "SUPERSAMPLE",
    "SUPERSAMPLE_MAX_PIXELS",
    "WALL_ID",
    "WALL_T",
    "WALL_YAW",
    "Decal",
    "Entity",
    "Obstacle",
    "Part",
    "RayCaster",
    "ViewSpec",
    "VisualState",
    "World",
    "_build_world",
    "_local_to_world_door",
    "aabb",
    "build_world",
    "centre_ndc",
    "door_parts",
    "door_point",
    "footprint",
    "fx",
    "in_view",
    "inner_wall_boxes",
    "inward",
    "obstacle",
    "piece_scale",
    "piece_size",
    "pixel_direction",
    "place",
    "prop_footprint",
    "prop_size",
    "quarter",
    "reading_rot",
    "rotate_xz",
    "structure_parts",
    "sweep",
    "view_direction",
    "wall_line",
]
