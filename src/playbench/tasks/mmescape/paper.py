"""The paper's own scenes: EscapeCraft's public level chains and scene files as playbench instances.

The authors published their levels (MIT licence) in `THUNLP-MT/EscapeCraft`: `levels/<chain>.json`
(the prop chain and the level's story) and `levels/scene_data/<folder>/<n>.json` (every object of
a Unity scene: prefab name, position, rotation, scale; the walls; the agent's start pose; the chain
props with their `item_id`). This module reads those files as data (it never runs their code):

- `convert_chain(original)` turns a level file into our chain format (`chain.py`);
- `extract_scene(original)` keeps what a scene file says about one room (walls, objects, props,
  exit, start pose) in a compact record, with each object's size from LEGENT's asset table;
- `paper_instance(...)` builds an `EscapeInstance` from a record and a chain: the same room, the
  same chain, every object where the original's stands, turned by the same angle and stretched to
  its size, drawn as playbench's closest furniture model for its prefab's kind (`PREFAB_KINDS`);
  prefabs of no known kind become a plain box of their size (listed in the README).

The converted records and chains ship in `levels/paper/` (attribution in its README.md); the same
conversion reads a user's clone with `--set scenes=DIR`. `python -m playbench.tasks.mmescape.paper
ESCAPECRAFT_DIR ADDRESSABLES_JSON OUT_DIR` rebuilds the shipped files from a clone of the
original and LEGENT's `addressables.json`.

Coordinates: the original's Unity frame is left-handed (x right, y up, z forward); ours is x, y
and z = -z_unity, so a Unity yaw is our yaw (0 looks along our -z) and an object turned by the
Unity angle t faces our direction 180 - t in `Placed.rot` terms.
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from playbench.core.task import derive_seed
from playbench.tasks.mmescape import furniture as fx
from playbench.tasks.mmescape.chain import ChainError, parse_chain, realise

# The public files this data comes from: THUNLP-MT/EscapeCraft at this commit (the authors' own
# repository; its commit 7fc27f8 "Update the level3's data" added the note-first scenes and scene
# 11 of levels 1, 2 and 3-note-first).
ORIGINAL = "THUNLP-MT/EscapeCraft"
ORIGINAL_COMMIT = "b7b9fea"
# The fork that still holds the two-room houses of level 4 (MIT, the same authors' files).
FORK = "yanan1116/EscapeCraft"
FORK_COMMIT = "a5b2dc2"


@dataclass(frozen=True)
class PaperLevel:
    """One of the paper's settings: the original's chain file, its scene folder, the step cap."""

    name: str  # our level name (the task option `level`)
    chain: str  # the original's level file stem under levels/
    folder: str  # the original's scene folder under levels/scene_data/
    cap: int  # the original's step cap
    title: str
    paper: bool = True  # one of the paper's settings (in `mmescape/paper`)
    repository: str = ""  # where its files come from (the authors' repository by default)

    @property
    def origin(self) -> str:
        return self.repository or f"{ORIGINAL}@{ORIGINAL_COMMIT}"


PAPER_LEVELS: dict[str, PaperLevel] = {
    p.name: p
    for p in (
        PaperLevel("paper-level-1", "level1", "level1", 50, "Difficulty-1"),
        PaperLevel("paper-level-2", "level2", "level2", 75, "Difficulty-2"),
        PaperLevel(
            "paper-level-3-note-key", "level3_note_first", "level3_note_first", 100, "Difficulty-3 (note-key)"
        ),
        PaperLevel(
            "paper-level-3-key-note", "level3_key_first", "level3_key_first", 100, "Difficulty-3 (key-note)"
        ),
        # level 3.5 has no scenes of its own: its chain (a visible key opens a box holding the door's
        # key) needs a visible key and a box, which is what the key-first scenes hold. The authors'
        # file, not a setting of the paper (no table reports it), so not in `mmescape/paper`
        PaperLevel(
            "paper-level-3.5", "level3.5", "level3_key_first", 100, "Level 3.5 (two keys)", paper=False
        ),
        # the fork's level 4: the key-first chain in two-room houses, which the authors replaced at
        # their commit 7fc27f8 (not a setting of the paper)
        PaperLevel(
            "paper-houses",
            "level4",
            "level4",
            100,
            "two-room houses (the fork's level 4)",
            paper=False,
            repository=f"{FORK}@{FORK_COMMIT}",
        ),
    )
}

# Our furniture model for each kind of the original's prefabs (the first pattern that matches the
# prefab's name). Small things on surfaces are clutter (`CLUTTER_KINDS`).
PREFAB_KINDS: tuple[tuple[str, str], ...] = (
    (r"Bed_Table|BedTable", "nightstand"),
    (r"_Bed\d", "bed"),
    (r"Wardrobe", "wardrobe"),
    (r"Dresser", "dresser"),
    (r"RoomFurniture", "bookshelf"),
    (r"PC_Table", "desk"),
    (r"PC_Chair|OfficeChair", "office_chair"),
    (r"BarChair", "stool"),
    (r"KitchenChair|_Chair_", "chair"),
    (r"_Bar_", "counter"),
    (r"Sofa", "sofa"),
    (r"SmallTable|RoomTable", "coffee_table"),
    (r"TV_Table", "cabinet"),
    (r"_TV(_|$)", "tv"),
    (r"KitchenTable", "dining_table"),
    (r"_Table_01", "round_table"),
    (r"_Table_0", "dining_table"),
    (r"_Kitchen\d", "counter"),
    (r"Refrigerator", "fridge"),
    (r"Oven", "oven"),
    (r"Dishwasher", "dishwasher"),
    (r"_Hob", "hob"),
    (r"_Hood", "hood"),
    (r"Microvawe|Microwave", "microwave"),
    (r"Washer", "washer"),
    (r"_Sink", "basin"),
    (r"ShowerTable|_Bathroom_C", "sink"),
    (r"_Bathroom_0|_Bath$", "bathtub"),
    (r"ShowerCarpet|Carpet|Catpet|PC_mat", "rug"),
    (r"Shower", "shower"),
    (r"Toilet", "toilet"),
    (r"Fireplace", "fireplace"),
    (r"ChristmasTree", "christmas_tree"),
    (r"Plant", "plant"),
    (r"Light_0[56]|Lamp_01", "floor_lamp"),
    (r"Light|Lamp", "lamp"),
    (r"_Safe", "safe"),
    (r"_Bin|Trash", "bin"),
)
CLUTTER_KINDS: tuple[tuple[str, str], ...] = (
    (r"Vase", "vase"),
    (r"Book", "books"),
    (r"Candle", "candle"),
    (r"Cup|Wineglass", "mug"),
    (r"Bottle|Wine|Cola|Soy_sauce|BathroomProps|KitchenProps|Toothpaste", "bottle"),
    (r"Football", "ball"),
    (r"Frame|Clock|Reward", "frame"),
    (r"Laptop|Keyboard|GameConsole|PC_Mouse|OfficeProps", "laptop"),
    (
        r"Banana|Beet|Broccoli|Burger|Cake|Cherry|Chicken|Corn|Cucumber|Cupcake|French_fries|Kiwi"
        r"|Lemon|Potato|Pumpkin|Strawberry|Sushi|Toast|Carrot|Egg|Onion|Pizza",
        "fruit",
    ),
)
# Chain props: the original's prefab sizes (box_1.glb scaled to 0.2 m high, paper_1.glb as it is;
# the key keeps playbench's model, as key_1.glb is not in the public repository's history as data).
BOX_SIZE = (0.475, 0.2, 0.334)
NOTE_SIZE = (0.23, 0.01, 0.345)
DOOR_SIZE = (1.11, 2.26)  # LEGENT's door prefab the exit door is scaled to
WALL_HEIGHT = 3.0
# wall and floor colours by room type (the original's textures are not public; its walls are pale and
# its ceiling is tiled with the floor's prefab, so the ceiling takes the floor's colour)
ROOM_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "Kitchen": ((226, 226, 232), (150, 128, 112)),
    "Bathroom": ((218, 224, 232), (176, 180, 186)),
    "LivingRoom": ((222, 220, 232), (132, 92, 76)),
    "Bedroom": ((226, 220, 230), (146, 108, 84)),
}
ROOM_NAMES = {"Kitchen": "kitchen", "Bathroom": "bathroom", "LivingRoom": "living room", "Bedroom": "bedroom"}


class PaperDataError(ValueError):
    """An original level or scene file that cannot be read, with a message naming it."""


# --- the original's files -> our records ---------------------------------------------------------


def convert_chain(data: Any, where: str) -> dict[str, Any]:
    """An original level file (`{"room": {"exit": ..., "items": [...]}, "story": ...}`) as our chain
    JSON: the exit's `unlock_item_id` becomes `unlock_method.id`, a story paper's text its `text`
    with `story: true`, the level's story the chain's `story`; `use` (unused by the game) is dropped."""
    if not isinstance(data, dict) or not isinstance(data.get("room"), dict):
        raise PaperDataError(f"{where}: not a level file (expected an object with 'room')")
    room = data["room"]
    exit_raw = room.get("exit")
    if not isinstance(exit_raw, dict) or "type" not in exit_raw:
        raise PaperDataError(f"{where}: room.exit must be an object with a 'type'")
    method: dict[str, Any] = {"type": exit_raw["type"]}
    if exit_raw["type"] != "interact":
        method["id"] = exit_raw.get("unlock_item_id")
    items = []
    for raw in room.get("items") or []:
        if not isinstance(raw, dict) or "id" not in raw or "type" not in raw:
            raise PaperDataError(f"{where}: every item needs an 'id' and a 'type', got {raw!r}")
        item: dict[str, Any] = {"id": raw["id"], "type": raw["type"], "show": bool(raw.get("show", True))}
        if raw.get("unlock_method"):
            item["unlock_method"] = raw["unlock_method"]
        contents = []
        for c in raw.get("contents") or []:
            if isinstance(c, str):
                contents.append(c)
            elif isinstance(c, dict) and c.get("type") == "story":
                item["text"], item["story"] = str(c.get("content", "")), True
            else:
                raise PaperDataError(f"{where}: item {raw['id']!r} holds {c!r}, which is not supported")
        if contents:
            item["contents"] = contents
        items.append(item)
    out: dict[str, Any] = {"name": Path(where).stem, "exit": {"unlock_method": method}, "items": items}
    if isinstance(data.get("story"), str):
        out["story"] = data["story"]
    try:
        parse_chain(out, where)
    except ChainError as exc:
        raise PaperDataError(str(exc)) from None
    return out


def _vec(raw: Any, n: int, where: str) -> list[float]:
    if not isinstance(raw, list) or len(raw) != n or not all(isinstance(v, int | float) for v in raw):
        raise PaperDataError(f"{where}: expected a list of {n} numbers, got {raw!r}")
    return [float(v) for v in raw]


def extract_scene(
    data: Any, sizes: dict[str, list[float]], where: str, surfaces: dict[str, float] | None = None
) -> dict[str, Any]:
    """The facts of one original scene file as our record: the room's type and polygon, its walls,
    the agent's start, the exit door, the chain props and every other object with its size (and the
    height of its main surface above its bottom, from `surfaces`)."""
    if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
        raise PaperDataError(f"{where}: not a scene file (expected an object with 'instances')")
    rooms = data.get("room_polygon")
    if not isinstance(rooms, list) or not rooms:
        raise PaperDataError(f"{where}: 'room_polygon' must list the rooms")
    agent = data.get("agent")
    if not isinstance(agent, dict):
        raise PaperDataError(f"{where}: no 'agent' (the start pose)")
    record: dict[str, Any] = {
        "rooms": [
            {
                "type": str(r.get("room_type", "")),
                "polygon": [_vec(p, 2, where) for p in r.get("polygon", [])],
            }
            for r in rooms
        ],
        "agent": [
            *_vec(agent.get("position"), 3, f"{where}: agent")[::2],
            _vec(agent.get("rotation"), 3, where)[1],
        ],
        "walls": [],
        "objects": [],
        "items": {},
    }
    for k, ins in enumerate(data["instances"]):
        at = f"{where}: instances[{k}]"
        if not isinstance(ins, dict) or not isinstance(ins.get("prefab"), str):
            raise PaperDataError(f"{at}: an instance needs a 'prefab' name")
        prefab = ins["prefab"]
        pos = _vec(ins.get("position"), 3, at)
        rot = _vec(ins.get("rotation"), 3, at)
        scale = _vec(ins.get("scale", [1, 1, 1]), 3, at)
        item_id = ins.get("item_id")
        if item_id is not None:
            entry = {"position": pos, "yaw": rot[1], "type": ins.get("item_type")}
            if isinstance(ins.get("parent"), str):
                entry["on"] = ins["parent"]
            if item_id == "exit":
                record["exit"] = entry
            else:
                record["items"][str(item_id)] = entry
            continue
        if "Floor" in prefab:
            continue  # floor and ceiling tiles: the room's polygon says where the floor is
        if "Wall" in prefab:
            size = sizes.get(prefab, [2.5, 3.0, 0.15])
            record["walls"].append(
                {
                    "position": pos,
                    "yaw": rot[1],
                    "length": size[0] * scale[0],
                    "thickness": size[2] * scale[2],
                    "door": prefab.endswith("_02"),
                }
            )
            continue
        if re.search(r"_(Street)?Door\d", prefab):
            # a house's inner door: an open doorway between its rooms (the game has no way to open it)
            record.setdefault("doorways", []).append({"position": pos, "yaw": rot[1]})
            continue
        size = sizes.get(prefab)
        if size is None:
            raise PaperDataError(f"{at}: no size is known for prefab {prefab!r} (add it to prefabs.json)")
        obj: dict[str, Any] = {
            "prefab": prefab,
            "position": pos,
            "yaw": rot[1],
            "size": [s * f for s, f in zip(size, scale, strict=True)],
        }
        if surfaces and prefab in surfaces:
            obj["surface"] = surfaces[prefab] * scale[1]
        record["objects"].append(obj)
    if "exit" not in record:
        raise PaperDataError(f"{where}: the scene has no exit door (an instance with item_id 'exit')")
    return record


# --- shipped data ------------------------------------------------------------------------------


def _read_shipped(name: str) -> Any:
    text = resources.files("playbench.tasks.mmescape.levels").joinpath("paper", name).read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def shipped_chains() -> dict[str, dict[str, Any]]:
    return _read_shipped("chains.json")["chains"]


@lru_cache(maxsize=1)
def shipped_scenes() -> dict[str, dict[str, Any]]:
    return _read_shipped("scenes.json")["scenes"]


@lru_cache(maxsize=1)
def prefab_sizes() -> dict[str, list[float]]:
    return _read_shipped("prefabs.json")["sizes"]


@lru_cache(maxsize=1)
def prefab_surfaces() -> dict[str, float]:
    return _read_shipped("prefabs.json")["surfaces"]


def scene_numbers(level: PaperLevel, scenes: dict[str, Any]) -> list[int]:
    """The scene numbers of a level's folder, in order."""
    prefix = f"{level.folder}/"
    return sorted(int(k[len(prefix) :]) for k in scenes if k.startswith(prefix))


def read_clone(
    path: str,
    sizes: dict[str, list[float]] | None = None,
    levels: list[PaperLevel] | None = None,
    surfaces: dict[str, float] | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(chains, scene records) of `levels` (all by default) read from a user's clone of the original:
    `path` is its `levels/` folder (or the repository root holding one); `sizes` the prefab sizes
    (the shipped table by default). A missing or malformed file is one clear error."""
    root = Path(path).expanduser()
    if (root / "levels").is_dir():
        root = root / "levels"
    if not (root / "scene_data").is_dir():
        raise PaperDataError(
            f"scenes={path!r}: no levels/scene_data folder there (point it at a clone of {ORIGINAL})"
        )
    sizes = prefab_sizes() if sizes is None else sizes
    surfaces = prefab_surfaces() if surfaces is None else surfaces
    chains: dict[str, dict[str, Any]] = {}
    scenes: dict[str, dict[str, Any]] = {}
    for level in levels if levels is not None else PAPER_LEVELS.values():
        file = root / f"{level.chain}.json"
        if level.chain not in chains:
            chains[level.chain] = convert_chain(_load_json(file), str(file))
        folder = root / "scene_data" / level.folder
        for f in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if f.stem.isdigit():
                scenes[f"{level.folder}/{int(f.stem)}"] = extract_scene(
                    _load_json(f), sizes, str(f), surfaces
                )
    if not scenes:
        raise PaperDataError(f"scenes={path!r}: no scene files found under {root / 'scene_data'}")
    return chains, scenes


def _load_json(file: Path) -> Any:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PaperDataError(f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PaperDataError(f"{file}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise PaperDataError(
            f"{file}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


# --- records -> instances ----------------------------------------------------------------------


def kind_of(prefab: str) -> tuple[str, bool]:
    """(our kind, whether it is furniture) for an original prefab; unknown prefabs: ("object", True)
    for anything standing on the floor is decided by the caller, ("item", False) otherwise."""
    for pattern, kind in PREFAB_KINDS:
        if re.search(pattern, prefab):
            return kind, True
    for pattern, kind in CLUTTER_KINDS:
        if re.search(pattern, prefab):
            return kind, False
    return "", False


def _rot(unity_yaw: float) -> float:
    """Our `rot` for an object turned by `unity_yaw` (its front, Unity's +z, faces the same way)."""
    return round((180.0 - unity_yaw) % 360.0, 6)


def _walls(
    record: dict[str, Any], where: str
) -> tuple[tuple[float, float, float, float], list[dict[str, Any]]]:
    """The inside of the house in Unity coordinates, (x0, x1, z0, z1), from the inner faces of its
    outermost walls, and the walls inside it (a house's walls between its rooms, or the sides of a
    missing corner)."""
    by_yaw: dict[int, list[dict[str, Any]]] = {0: [], 90: [], 180: [], 270: []}
    for w in record["walls"]:
        q = round(w["yaw"] % 360.0)
        if q not in by_yaw:
            raise PaperDataError(f"{where}: a wall turned by {w['yaw']} degrees is not supported")
        by_yaw[q].append(w)
    if not all(by_yaw.values()):
        raise PaperDataError(f"{where}: the walls do not close a room")
    # a wall faces into its room along its local +z: Unity's (sin yaw, cos yaw); the outer ones
    # stand at the extremes
    west = min(w["position"][0] for w in by_yaw[90])
    east = max(w["position"][0] for w in by_yaw[270])
    south = min(w["position"][2] for w in by_yaw[0])
    north = max(w["position"][2] for w in by_yaw[180])
    inner = []
    for q, ws in by_yaw.items():
        for w in ws:
            x, _, z = w["position"]
            outer = {90: abs(x - west), 270: abs(x - east), 0: abs(z - south), 180: abs(z - north)}[q] < 1e-3
            if not outer:
                inner.append(w)
    t = record["walls"][0]["thickness"] / 2
    return (west + t, east - t, south + t, north - t), inner


def paper_instance(
    level: PaperLevel,
    number: int,
    record: dict[str, Any],
    chain_data: dict[str, Any],
    max_steps: int | None = None,
) -> Any:
    """The instance of scene `number` of a paper level (without its oracle values)."""
    from playbench.tasks.mmescape.schema import (
        DoorSpec,
        EscapeInstance,
        InnerWall,
        Placed,
        Pose,
        PropPlace,
        RoomSpec,
    )

    instance_id = f"{level.chain}-{number}"
    where = f"{level.folder}/{number}.json"
    chain = realise(
        parse_chain(chain_data, level.chain), random.Random(derive_seed("mmescape-paper", instance_id))
    )
    (ux0, ux1, uz0, uz1), inner = _walls(record, where)
    room_type = record["rooms"][0]["type"]
    wall_colour, floor_colour = ROOM_COLOURS.get(room_type, ((220, 216, 206), (160, 140, 120)))
    # a house of several rooms is one space inside its outer walls, parted by its inner walls
    room = RoomSpec(
        scene=" + ".join(ROOM_NAMES.get(r["type"], r["type"].lower() or "room") for r in record["rooms"]),
        x0=round(ux0, 6),
        z0=round(-uz1, 6),
        width=round(ux1 - ux0, 6),
        depth=round(uz1 - uz0, 6),
        wall_color=wall_colour,
        floor_color=floor_colour,
        ceiling_color=floor_colour,
        chain=chain,
        polygons=[[(round(x, 6), round(-z, 6)) for x, z in r["polygon"]] for r in record["rooms"]],
    )
    doorways = [d["position"] for d in record.get("doorways", [])]
    inner_walls = []
    for w in inner:
        x, _, z = w["position"]
        along_x = round(w["yaw"] % 180.0) == 0  # facing along z: the slab runs along x
        opening = any(math.hypot(dx - x, dz - z) < 0.2 for dx, _, dz in doorways) and w.get("door", False)
        inner_walls.append(
            InnerWall(
                x=round(x, 6),
                z=round(-z, 6),
                axis="x" if along_x else "z",
                length=round(w["length"], 6),
                thickness=round(w["thickness"], 6),
                opening=DOOR_SIZE[0] if opening else None,
                opening_height=DOOR_SIZE[1],
            )
        )
    ex, _, ez = record["exit"]["position"]
    sides = {"west": abs(ex - ux0), "east": abs(ex - ux1), "south": abs(ez - uz0), "north": abs(ez - uz1)}
    wall = min(sides, key=lambda k: sides[k])
    door = DoorSpec(
        room=0,
        wall=wall,
        center=round(-ez if wall in ("west", "east") else ex, 6),
        width=DOOR_SIZE[0],
        height=DOOR_SIZE[1],
        anchor=(round(ex, 6), round(-ez, 6)),
    )
    furniture: list[Placed] = []
    clutter: list[Placed] = []
    by_prefab: dict[str, str] = {}
    for k, obj in enumerate(record["objects"]):
        x, y, z = obj["position"]
        w, h, d = obj["size"]
        bottom = y - h / 2
        kind, is_furniture = kind_of(obj["prefab"])
        if not kind:  # unknown: a plain box of its size (furniture if it stands on the floor)
            kind, is_furniture = ("object", True) if bottom < 0.1 else ("item", False)
        by_prefab[obj["prefab"]] = fx.KINDS[kind].name if is_furniture else kind
        placed = Placed(
            kind=kind,
            room=0,
            x=round(x, 6),
            z=round(-z, 6),
            y=round(bottom, 6),
            rot=_rot(obj["yaw"]),
            variant=derive_seed(instance_id, k) % (1 << 30),
            size=(round(w, 6), round(h, 6), round(d, 6)),
            source=obj["prefab"],
            surface=round(obj["surface"], 6) if "surface" in obj else None,
        )
        if is_furniture:
            # what stands on the floor blocks walking (rugs and mats do not); what hangs or stands
            # on other furniture does not
            solid = fx.KINDS[kind].solid and bottom < 0.3 and h > 0.05
            furniture.append(placed.model_copy(update={"solid": solid}))
        else:
            clutter.append(placed)
    props: list[PropPlace] = []
    visible = {it.id: it for it in chain.items if it.show}
    for item_id, it in visible.items():
        entry = record["items"].get(item_id)
        if entry is None:
            raise PaperDataError(f"{where}: the chain's visible item {item_id!r} is not in the scene")
        x, y, z = entry["position"]
        on = entry.get("on")
        on_name = by_prefab.get(on, "floor") if on else "floor"
        if it.type == "box":
            size = BOX_SIZE
            base = y - size[1] / 2
        elif it.type == "paper":
            size = NOTE_SIZE
            base = y - size[1] / 2
        else:
            size = None
            base = y - fx.PROP_SIZE["key"][2] / 2
        props.append(
            PropPlace(
                item=item_id,
                room=0,
                x=round(x, 6),
                y=round(max(base, 0.0), 6),
                z=round(-z, 6),
                rot=_rot(entry["yaw"]),
                on="floor" if base < 0.05 else on_name,
                size=size,
            )
        )
    ax, az, ayaw = record["agent"]
    return EscapeInstance(
        id=instance_id,
        level=level.name,
        rooms=[room],
        doors=[door],
        furniture=furniture,
        clutter=clutter,
        props=props,
        start=Pose(x=round(ax, 6), z=round(-az, 6), yaw=round(ayaw % 360.0, 6), pitch=0.0),
        max_steps=max_steps or level.cap,
        source=f"{level.origin}:levels/scene_data/{level.folder}/{number}.json",
        inner_walls=inner_walls,
    )


def fallback_prefabs(scenes: dict[str, dict[str, Any]]) -> list[str]:
    """The prefabs of no known kind (drawn as plain boxes), for the README."""
    return sorted({o["prefab"] for r in scenes.values() for o in r["objects"] if not kind_of(o["prefab"])[0]})


# --- rebuilding the shipped files ----------------------------------------------------------------


def build(escapecraft: str, addressables: str, out: str, fork: str | None = None) -> None:
    """Convert a clone of the original (its root or `levels/` folder), optionally of the fork (for
    its level-4 houses), and LEGENT's `addressables.json` (the asset table that holds each prefab's
    size) into the shipped files in `out`."""
    table = json.loads(Path(addressables).read_text(encoding="utf-8"))
    all_sizes = {p["name"]: [p["size"]["x"], p["size"]["y"], p["size"]["z"]] for p in table["prefabs"]}
    # each prefab's largest placeable surface, as its height above the prefab's bottom
    all_surfaces: dict[str, float] = {}
    for p in table["prefabs"]:
        areas = [
            ((s["x_max"] - s["x_min"]) * (s["z_max"] - s["z_min"]), s["y"])
            for s in p.get("placeable_surfaces") or []
        ]
        if areas:
            all_surfaces[p["name"]] = max(areas)[1] + p["size"]["y"] / 2
    roots = []
    for path in (escapecraft, fork):
        if path is not None:
            root = Path(path)
            roots.append(root / "levels" if (root / "levels").is_dir() else root)
    root = roots[0]
    used: set[str] = set()
    for r in roots:
        for f in (r / "scene_data").rglob("*.json"):
            used |= {i["prefab"] for i in json.loads(f.read_text(encoding="utf-8"))["instances"]}
    sizes = {
        n: [round(v, 4) for v in all_sizes[n]] for n in sorted(used) if n in all_sizes and "Floor" not in n
    }
    surfaces = {n: round(all_surfaces[n], 4) for n in sizes if n in all_surfaces}
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "prefabs.json").write_text(
        json.dumps(
            {
                "source": "LEGENT (thunlp/LEGENT, Apache-2.0) scene_generation/data/addressables.json",
                "sizes": sizes,
                "surfaces": surfaces,
            },
            indent=1,
        )
        + "\n"
    )
    ours = [lv for lv in PAPER_LEVELS.values() if not lv.repository]
    chains, scenes = read_clone(str(root), sizes, ours, surfaces)
    if len(roots) > 1:
        theirs = [lv for lv in PAPER_LEVELS.values() if lv.repository]
        more_chains, more_scenes = read_clone(str(roots[1]), sizes, theirs, surfaces)
        chains.update(more_chains)
        scenes.update(more_scenes)
    for record in scenes.values():
        _round(record)
    source = f"{ORIGINAL}@{ORIGINAL_COMMIT} (MIT licence); level4: {FORK}@{FORK_COMMIT} (MIT licence)"
    (out_dir / "chains.json").write_text(json.dumps({"source": source, "chains": chains}, indent=1) + "\n")
    (out_dir / "scenes.json").write_text(
        json.dumps({"source": source, "scenes": scenes}, separators=(",", ":")) + "\n"
    )


def _round(value: Any) -> Any:
    if isinstance(value, dict):
        for k, v in value.items():
            value[k] = _round(v)
    elif isinstance(value, list):
        return [_round(v) for v in value]
    elif isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else value
    return value


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(
            "usage: python -m playbench.tasks.mmescape.paper ESCAPECRAFT_DIR ADDRESSABLES_JSON OUT_DIR [FORK_DIR]"
        )
    build(*sys.argv[1:])
