"""Scenes in the authors' format: `--set scenes=PATH` reads them at run time.

The authors' scene sets (`room_data/<k>-room/runNN/` in mll-lab-nu/Theory-of-Space and the data
sets its README links) hold one folder per scene with a `meta_data.json` and, for the 3-room set,
a `falsebelief_exp.json` (the same scene after the false-belief changes), beside the rendered
images. This module reads those files as data (it never runs the authors' code) into our `World`:

- `mask[x][y]` is the grid: -1 outside, 0 wall, 1..99 a room, 100 a door passed along x (its
  rooms are the cells at x-1 and x+1), 101 a door passed along y (cells at y-1 and y+1);
- an object's or camera's cell is its `pos`/`position` (`x`, `z`) plus `offset`; `x` grows to the
  east and `z` to the north; `rot.y` 0/90/180/270 is north/east/south/west;
- objects whose name has "door" in it are the doors (named by the rooms they connect); the others
  are the scene's objects, in file order (the order views list them in);
- the camera `agent` is the start (facing north); cameras with a `task_type` ending in `loc_vision`
  are the poses prepared for the view-to-location questions.

Coordinates are moved to the start frame (the agent's cell is (0, 0)), as every tos world is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playbench.core.errors import ConfigError
from playbench.tasks.tos.world import Gate, Room, TaskPose, World, WorldObject

META = "meta_data.json"
FALSE_BELIEF = "falsebelief_exp.json"
ROTATION_FACING = {0: "north", 90: "east", 180: "south", 270: "west"}
# names the authors' generator gives doors before the scene file renames them (room_utils.py)
DOOR_NAMES = ("red door", "blue door", "green door", "yellow door", "purple door",
              "orange door", "black door", "white door", "brown door", "gray door")  # fmt: skip


@dataclass
class Scene:
    """One loaded scene: the world, the changes of its false-belief variant (if it has one), the
    scene's image id of every object and door (images are `<id>_facing_<dir>.png`), its folder."""

    world: World
    changes: list[dict[str, Any]] | None
    image_ids: dict[str, str] = field(default_factory=dict)
    folder: Path | None = None


class SceneError(ConfigError):
    """A scene file is missing or malformed (one line naming the file and what is wrong)."""


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SceneError(f"scene file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SceneError(f"scene file {path} cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SceneError(f"scene file {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SceneError(f"scene file {path} is not a JSON object")
    return data


def _num(value: Any, what: str, path: Path) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SceneError(f"scene file {path}: {what} is not a number ({value!r})")
    return float(value)


def _cell(pos: Any, offset: tuple[float, float], what: str, path: Path) -> tuple[int, int]:
    if not isinstance(pos, dict):
        raise SceneError(f"scene file {path}: {what} has no position object")
    x = _num(pos.get("x"), f"{what} x", path) + offset[0]
    z = _num(pos.get("z"), f"{what} z", path) + offset[1]
    if abs(x - round(x)) > 1e-6 or abs(z - round(z)) > 1e-6:
        raise SceneError(f"scene file {path}: {what} is not on a grid point ({x:g}, {z:g})")
    return int(round(x)), int(round(z))


def _facing(rotation: Any, what: str, path: Path) -> str:
    deg = int(round(_num(rotation, f"{what} rotation", path))) % 360
    if deg not in ROTATION_FACING:
        raise SceneError(f"scene file {path}: {what} is turned {deg}°, not a multiple of 90°")
    return ROTATION_FACING[deg]


def _mask(data: dict[str, Any], path: Path) -> list[list[int]]:
    mask = data.get("mask")
    if not isinstance(mask, list) or not mask or not all(isinstance(row, list) for row in mask):
        raise SceneError(f"scene file {path}: 'mask' must be a list of rows")
    width = len(mask[0])
    if any(len(row) != width for row in mask):
        raise SceneError(f"scene file {path}: the rows of 'mask' differ in length")
    if any(not isinstance(v, int) or isinstance(v, bool) for row in mask for v in row):
        raise SceneError(f"scene file {path}: 'mask' holds a value that is not an integer")
    return mask


def load_scene(folder: Path) -> Scene:
    """Read one scene folder (its `meta_data.json` and, if present, `falsebelief_exp.json`)."""
    path = folder / META
    data = _read(path)
    mask = _mask(data, path)
    off = data.get("offset")
    if not isinstance(off, list) or len(off) != 2:
        raise SceneError(f"scene file {path}: 'offset' must be a pair of numbers")
    offset = (_num(off[0], "offset", path), _num(off[1], "offset", path))
    nx, ny = len(mask), len(mask[0])

    def value(x: int, y: int) -> int:
        return mask[x][y] if 0 <= x < nx and 0 <= y < ny else -1

    cams = data.get("cameras")
    if not isinstance(cams, list):
        raise SceneError(f"scene file {path}: 'cameras' must be a list")
    agent = [c for c in cams if isinstance(c, dict) and c.get("id") == "agent"]
    if len(agent) != 1:
        raise SceneError(f"scene file {path}: expected one camera with id 'agent', found {len(agent)}")
    ax, ay = _cell(agent[0].get("position"), offset, "camera 'agent'", path)
    if not 1 <= value(ax, ay) < 100:
        raise SceneError(f"scene file {path}: the agent camera is not inside a room (cell {ax}, {ay})")

    # rooms: every id 1..99 of the mask, each a rectangle
    cells: dict[int, list[tuple[int, int]]] = {}
    for x in range(nx):
        for y in range(ny):
            v = mask[x][y]
            if 1 <= v < 100:
                cells.setdefault(v, []).append((x, y))
    rooms = []
    for rid in sorted(cells):
        xs = [c[0] for c in cells[rid]]
        ys = [c[1] for c in cells[rid]]
        if (max(xs) - min(xs) + 1) * (max(ys) - min(ys) + 1) != len(cells[rid]):
            raise SceneError(f"scene file {path}: room {rid} is not a rectangle")
        rooms.append(Room(id=rid, x0=min(xs) - ax, y0=min(ys) - ay, x1=max(xs) - ax, y1=max(ys) - ay))

    objects_raw = data.get("objects")
    if not isinstance(objects_raw, list):
        raise SceneError(f"scene file {path}: 'objects' must be a list")
    doors = [o for o in objects_raw if isinstance(o, dict) and "door" in str(o.get("name", ""))]

    # doors from the mask, in the authors' order: every 100 cell, then every 101 cell (row-major)
    gates: list[Gate] = []
    image_ids: dict[str, str] = {}
    for kind in (100, 101):
        for x in range(nx):
            for y in range(ny):
                if mask[x][y] != kind:
                    continue
                a, b = (
                    (value(x - 1, y), value(x + 1, y)) if kind == 100 else (value(x, y - 1), value(x, y + 1))
                )
                if not (1 <= a < 100 and 1 <= b < 100 and a != b):
                    raise SceneError(
                        f"scene file {path}: the door at cell ({x}, {y}) does not join two rooms"
                    )
                name = DOOR_NAMES[len(gates)] if len(gates) < len(DOOR_NAMES) else f"door {len(gates)}"
                for d in doors:
                    joined = (d.get("attributes") or {}).get("connected_rooms")
                    if isinstance(joined, list) and set(joined) == {a, b}:
                        name = str(d["name"]).replace("_", " ")
                        image_ids[name] = str(d.get("object_id", ""))
                gates.append(Gate(name=name, x=x - ax, y=y - ay, rooms=(a, b)))

    objects: list[WorldObject] = []
    for o in objects_raw:
        if not isinstance(o, dict) or "door" in str(o.get("name", "")):
            continue
        name = o.get("name")
        if not isinstance(name, str) or not name.strip():
            raise SceneError(f"scene file {path}: an object has no name")
        name = name.replace("_", " ")
        x, y = _cell(o.get("pos"), offset, f"object '{name}'", path)
        rid = value(x, y)
        if not 1 <= rid < 100:
            raise SceneError(f"scene file {path}: object '{name}' is not inside a room (cell {x}, {y})")
        attrs = o.get("attributes") or {}
        facing = None
        if attrs.get("has_orientation"):
            facing = _facing((o.get("rot") or {}).get("y"), f"object '{name}'", path)
        objects.append(WorldObject(name=name, x=x - ax, y=y - ay, room=rid, facing=facing))
        image_ids[name] = str(o.get("object_id", ""))
    names = [o.name for o in objects] + [g.name for g in gates]
    if len(set(names)) != len(names):
        raise SceneError(f"scene file {path}: two objects or doors share a name")

    poses = []
    for c in cams:
        if isinstance(c, dict) and str(c.get("task_type", "")).endswith("loc_vision"):
            px, py = _cell(c.get("position"), offset, f"camera '{c.get('id')}'", path)
            facing = _facing((c.get("rotation") or {}).get("y"), f"camera '{c.get('id')}'", path)
            poses.append(TaskPose(x=px - ax, y=py - ay, facing=facing))  # type: ignore[arg-type]

    world = World(
        width=nx,
        height=ny,
        rooms=rooms,
        gates=gates,
        objects=objects,
        unoriented_facing="east",  # the authors' loader gives objects without a facing east
        task_poses=poses,
        source=folder.name,
    )
    changes = None
    fb_path = folder / FALSE_BELIEF
    if fb_path.exists():
        changes = _changes(world, _read(fb_path), fb_path, offset, (ax, ay))
    return Scene(world=world, changes=changes, image_ids=image_ids, folder=folder)


def _changes(
    world: World, data: dict[str, Any], path: Path, offset: tuple[float, float], agent: tuple[int, int]
) -> list[dict[str, Any]]:
    """The false-belief variant against the scene: every object moved (new point) or turned
    (new facing), in the scene's object order."""
    objs = data.get("objects")
    if not isinstance(objs, list):
        raise SceneError(f"scene file {path}: 'objects' must be a list")
    by_name = {
        str(o.get("name", "")).replace("_", " "): o
        for o in objs
        if isinstance(o, dict) and "door" not in str(o.get("name", ""))
    }
    out: list[dict[str, Any]] = []
    for o in world.objects:
        new = by_name.get(o.name)
        if new is None:
            raise SceneError(f"scene file {path}: object '{o.name}' is missing")
        x, y = _cell(new.get("pos"), offset, f"object '{o.name}'", path)
        x, y = x - agent[0], y - agent[1]
        facing = o.facing
        if o.facing is not None:
            facing = _facing((new.get("rot") or {}).get("y"), f"object '{o.name}'", path)
        if (x, y) != (o.x, o.y):
            out.append({"name": o.name, "kind": "position", "x": x, "y": y, "facing": o.facing})
        if facing != o.facing:
            out.append({"name": o.name, "kind": "orientation", "x": o.x, "y": o.y, "facing": facing})
    return out


def scene_folders(root: str | Path) -> list[Path]:
    """The scene folders under `root`: `root` itself if it holds a `meta_data.json`, else its
    sub-folders that do (sorted by name: run00, run01, ...)."""
    base = Path(root).expanduser()
    if not base.is_dir():
        raise SceneError(f"scenes path {base} is not a folder")
    if (base / META).is_file():
        return [base]
    found = sorted(p for p in base.iterdir() if p.is_dir() and (p / META).is_file())
    if not found:
        raise SceneError(
            f"scenes path {base} holds no scene (expected <scene>/{META}, as room_data/3-room/run00/)"
        )
    return found


def load_scenes(root: str | Path) -> list[Scene]:
    return [load_scene(folder) for folder in scene_folders(root)]
