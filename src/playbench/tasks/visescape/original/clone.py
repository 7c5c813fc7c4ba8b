"""A clone of the authors' repository (`pull-ups/VisEscape-demo`), read at run time.

Layout read (paths relative to the clone):

    assets/roomN/config.py                      the room (read as data by `pysource.read_config`)
    assets/roomN/mapping/{wall,object,item}_view/*.json   which image shows which state
    assets/roomN/image/{wall,object,item}_view/<folder>/*.png   the views (or under `images`, below)
    assets/roomN/walkthrough_oracle.json        the authors' oracle walkthrough
    src/vis_escape/objects/**.py                the receptacle and item classes (states, transitions)
    evaluation/get_score.py                     ORACLE_STEPS and CLEAR_PROGRESS (SPL and GC)

`images` may name another folder laid out as `roomN/image/...` (the authors' full-resolution
Hugging Face dataset `sngwon/VisEscape_Observation`); by default the clone's own (downsampled) images
are used. Every problem is one `CloneError` line naming the path and what was expected there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from playbench.tasks.visescape.original.engine import ItemDef, RecDef, RoomDef, Rule
from playbench.tasks.visescape.original.pysource import (
    ClassInfo,
    ClassRef,
    ConfigModule,
    HintProgram,
    Made,
    SourceError,
    read_class,
    read_config,
    read_int_dict,
)

LAYOUT = "a clone of github.com/pull-ups/VisEscape-demo (assets/roomN/config.py, src/vis_escape/objects/)"
VIEW_KINDS = ("wall_view", "object_view", "item_view")
ITEM_ROOTS = {"PickableItem": "pickable", "StaticItem": "static", "QuizItem": "quiz"}


class CloneError(ValueError):
    """The clone (or an images folder) is missing or not laid out as the original repository."""


class Files(Protocol):
    """Read-only access to a tree of files by relative path (a directory, or the built-in demo)."""

    def label(self, rel: str) -> str: ...
    def read_bytes(self, rel: str) -> bytes: ...
    def is_file(self, rel: str) -> bool: ...
    def is_dir(self, rel: str) -> bool: ...
    def listdir(self, rel: str) -> list[str]: ...


class DirFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def label(self, rel: str) -> str:
        return str(self.root / rel) if rel else str(self.root)

    def read_bytes(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    def is_file(self, rel: str) -> bool:
        return (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        return (self.root / rel).is_dir()

    def listdir(self, rel: str) -> list[str]:
        return sorted(p.name for p in (self.root / rel).iterdir())


class MemFiles:
    """Files held in memory (the built-in demo room)."""

    def __init__(self, files: dict[str, bytes], name: str) -> None:
        self.files = files
        self.name = name

    def label(self, rel: str) -> str:
        return f"<{self.name}>/{rel}" if rel else f"<{self.name}>"

    def read_bytes(self, rel: str) -> bytes:
        if rel not in self.files:
            raise FileNotFoundError(rel)
        return self.files[rel]

    def is_file(self, rel: str) -> bool:
        return rel in self.files

    def is_dir(self, rel: str) -> bool:
        prefix = rel.rstrip("/") + "/"
        return any(k.startswith(prefix) for k in self.files)

    def listdir(self, rel: str) -> list[str]:
        prefix = rel.rstrip("/") + "/" if rel else ""
        return sorted({k[len(prefix) :].split("/")[0] for k in self.files if k.startswith(prefix)})


def _room_key(name: str) -> tuple[int, str]:
    m = re.fullmatch(r"room(\d+)", name)
    return (int(m.group(1)) if m else 10**9, name)


@dataclass
class Clone:
    """The rooms of a clone; rooms are built on first use and kept."""

    files: Files
    images: Files
    _rooms: dict[str, RoomDef] = field(default_factory=dict)
    _classes: dict[tuple[str, str], ClassInfo] = field(default_factory=dict)
    _scores: dict[str, dict[int, int]] | None = None

    # --- layout ----------------------------------------------------------------------------------
    def room_names(self) -> list[str]:
        names = [n for n in self.files.listdir("assets") if self.files.is_file(f"assets/{n}/config.py")]
        return sorted(names, key=_room_key)

    def text(self, rel: str) -> str:
        try:
            return self.files.read_bytes(rel).decode("utf-8")
        except FileNotFoundError:
            raise CloneError(f"{self.files.label(rel)} is missing ({LAYOUT})") from None
        except UnicodeDecodeError:
            raise CloneError(f"{self.files.label(rel)} is not UTF-8 text") from None

    def json(self, rel: str) -> Any:
        try:
            return json.loads(self.text(rel))
        except json.JSONDecodeError as exc:
            raise CloneError(f"{self.files.label(rel)} is not valid JSON (line {exc.lineno})") from None

    # --- scoring constants -----------------------------------------------------------------------
    def scores(self) -> dict[str, dict[int, int]]:
        """The authors' ORACLE_STEPS and CLEAR_PROGRESS (evaluation/get_score.py)."""
        if self._scores is None:
            rel = "evaluation/get_score.py"
            text = self.text(rel)
            try:
                self._scores = {
                    name: read_int_dict(text, name, self.files.label(rel))
                    for name in ("ORACLE_STEPS", "CLEAR_PROGRESS")
                }
            except (SourceError, SyntaxError) as exc:
                raise CloneError(str(exc).splitlines()[0]) from None
        return self._scores

    def oracle_steps(self, room: str) -> int | None:
        return self.scores()["ORACLE_STEPS"].get(_room_key(room)[0])

    def clear_progress(self, room: str) -> int | None:
        return self.scores()["CLEAR_PROGRESS"].get(_room_key(room)[0])

    # --- classes -----------------------------------------------------------------------------------
    def module_path(self, module: str) -> str:
        return "src/" + module.replace(".", "/") + ".py"

    def class_info(self, ref: ClassRef) -> ClassInfo:
        key = (ref.module, ref.name)
        if key not in self._classes:
            rel = self.module_path(ref.module)
            try:
                self._classes[key] = read_class(self.text(rel), ref.name, self.files.label(rel))
            except SourceError as exc:
                raise CloneError(str(exc)) from None
        return self._classes[key]

    def ancestry(self, ref: ClassRef) -> list[tuple[ClassRef, ClassInfo]]:
        """The class and its bases (followed through each module's imports), nearest first."""
        out: list[tuple[ClassRef, ClassInfo]] = []
        todo = [ref]
        while todo:
            cur = todo.pop(0)
            info = self.class_info(cur)
            out.append((cur, info))
            imports = self._imports(cur.module)
            for base in info.bases:
                if base in ("Receptacle", "Item", "ABC", "object"):
                    continue
                todo.append(imports.get(base, ClassRef(base, cur.module)))
            if len(out) > 20:
                raise CloneError(
                    f"{self.files.label(self.module_path(ref.module))}: class {ref.name} has too deep a hierarchy"
                )
        return out

    def _imports(self, module: str) -> dict[str, ClassRef]:
        rel = self.module_path(module)
        try:
            mod = read_config_imports(self.text(rel))
        except SyntaxError:
            raise CloneError(f"{self.files.label(rel)} is not valid Python") from None
        return mod

    # --- rooms ---------------------------------------------------------------------------------------
    def room(self, name: str) -> RoomDef:
        if name not in self._rooms:
            self._rooms[name] = self._build(name)
        return self._rooms[name]

    def walkthrough(self, name: str) -> list[dict[str, Any]]:
        data = self.json(f"assets/{name}/walkthrough_oracle.json")
        turns = (
            [t for t in data if isinstance(t, dict) and "chosen_action" in t]
            if isinstance(data, list)
            else None
        )
        if not turns:
            raise CloneError(
                f"{self.files.label(f'assets/{name}/walkthrough_oracle.json')} holds no turns with 'chosen_action'"
            )
        return turns

    def image_bytes(self, name: str, rel: str) -> bytes:
        """The image file `rel` (`image/...`) of a room, unchanged. A path component that differs only
        in case is matched (room 3's `keylock_A` folder serves `Keylock_A`), as on the authors' file
        system, which ignores case."""
        path = f"{name}/{rel}"
        if not self.images.is_file(path):
            path = self._case_insensitive(path) or path
        try:
            return self.images.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise CloneError(
                f"{self.images.label(path)} is missing (an image the room's mapping names)"
            ) from None

    def _case_insensitive(self, path: str) -> str | None:
        found = ""
        for part in path.split("/"):
            here = f"{found}/{part}" if found else part
            if self.images.is_file(here) or self.images.is_dir(here):
                found = here
                continue
            try:
                names = self.images.listdir(found)
            except (FileNotFoundError, NotADirectoryError):
                return None
            match = next((n for n in names if n.lower() == part.lower()), None)
            if match is None:
                return None
            found = f"{found}/{match}" if found else match
        return found

    def _build(self, name: str) -> RoomDef:
        rel = f"assets/{name}/config.py"
        label = self.files.label(rel)
        try:
            module = read_config(self.text(rel), label)
        except SourceError as exc:
            raise CloneError(str(exc)) from None
        try:
            room = self._room_from(module, name, label)
        except SourceError as exc:
            raise CloneError(str(exc)) from None
        room.mappings = self._mappings(name)
        room.images = self._image_listing(name)
        return room

    def _mappings(self, name: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for kind in VIEW_KINDS:
            folder = f"assets/{name}/mapping/{kind}"
            if not self.files.is_dir(folder):
                raise CloneError(f"{self.files.label(folder)} is missing ({LAYOUT})")
            for file in self.files.listdir(folder):
                if file.endswith(".json"):
                    data = self.json(f"{folder}/{file}")
                    key = "item_states" if kind == "item_view" else "scene_states"
                    if not isinstance(data, dict) or not isinstance(data.get(key), list):
                        raise CloneError(f"{self.files.label(f'{folder}/{file}')} has no '{key}' list")
                    out[f"{kind}/{file[: -len('.json')]}"] = data
        return out

    def _image_listing(self, name: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        root = f"{name}/image"
        if not self.images.is_dir(root):
            raise CloneError(
                f"{self.images.label(root)} is missing (expected {name}/image/wall_view/... there)"
            )
        for kind in VIEW_KINDS:
            base = f"{root}/{kind}"
            if not self.images.is_dir(base):
                continue
            for folder in self.images.listdir(base):
                if self.images.is_dir(f"{base}/{folder}"):
                    out[f"{kind}/{folder}"] = {
                        f for f in self.images.listdir(f"{base}/{folder}") if f.endswith(".png")
                    }
        return out

    def _room_from(self, module: ConfigModule, name: str, label: str) -> RoomDef:
        state = module.names.get("game_state")
        if not isinstance(state, Made) or state.cls.name != "GameState":
            raise SourceError(f"{label}: no 'game_state = GameState(...)'")
        walls: list[tuple[str, list[str]]] = []
        recs: dict[str, RecDef] = {}
        rec_made: dict[int, str] = {}
        items: dict[str, ItemDef] = {}
        for wall in state.arg("walls", 0) or []:
            if not isinstance(wall, Made) or wall.cls.name != "WallState":
                raise SourceError(f"{label}:{state.line}: GameState takes WallState objects")
            wall_id = wall.arg("wall_id", 0)
            ids = []
            for made in wall.arg("receptacles", 1) or []:
                rec = self._receptacle(made, items, label)
                recs[rec.id] = rec
                rec_made[id(made)] = rec.id
                ids.append(rec.id)
            walls.append((wall_id, ids))
        clear = None
        hints: dict[str, str] | HintProgram | None = None
        for target, method, args, line in module.calls:
            if method == "add_transition" and id(target) in rec_made:
                frm, action, to, rule = args
                recs[rec_made[id(target)]].transitions.setdefault(frm, {})[action] = (
                    to,
                    _rule(rule, label, line),
                )
            elif method == "add_transition":
                raise SourceError(f"{label}:{line}: add_transition on a receptacle that is on no wall")
            elif method == "set_clear_condition":
                clear = (args[0], args[1])
            elif method == "set_hint_message":
                hint = args[0]
                if isinstance(hint, HintProgram):
                    hints = hint
                elif isinstance(hint, dict) and all(
                    isinstance(k, str) and isinstance(v, str) for k, v in hint.items()
                ):
                    hints = dict(hint)
                else:
                    raise SourceError(
                        f"{label}:{line}: hint messages are neither a dict of texts nor a function"
                    )
            elif method in ("add_item", "remove_item"):
                raise SourceError(f"{label}:{line}: {method} is not supported")
        return RoomDef(
            name=name,
            walls=walls,
            initial_direction=state.arg("initial_direction", 1, "NORTH"),
            items=items,
            recs=recs,
            clear=clear,
            hints=hints,
        )

    def _receptacle(self, made: Made, items: dict[str, ItemDef], label: str) -> RecDef:
        chain = self.ancestry(made.cls)
        info = next((i for _, i in chain if i.possible_states is not None), None)
        if info is None or not info.initial_state:
            raise SourceError(f"{label}:{made.line}: class {made.cls.name} fixes no states")
        if any("Sequence" in b for _, i in chain for b in i.bases):
            raise SourceError(f"{label}:{made.line}: sequence receptacles are not supported")
        rid = made.arg("id", 0)
        if not isinstance(rid, str):
            raise SourceError(f"{label}:{made.line}: a receptacle without an id")
        transitions: dict[str, dict[str, tuple[str, Rule]]] = {}
        where = self.files.label(self.module_path(made.cls.module))
        for _, cinfo in reversed(chain):
            for frm, action, to, rule in cinfo.transitions:
                transitions.setdefault(frm, {})[action] = (to, _rule(rule, where, 0))
        interactable = []
        for item_made, states in (made.arg("interactable_states", 1) or {}).items():
            if not isinstance(item_made, Made):
                raise SourceError(f"{label}:{made.line}: interactable_states keys must be item objects")
            item = self._item(item_made, label)
            items.setdefault(item.name, item)
            interactable.append((item.name, frozenset(states)))
        return RecDef(
            id=rid,
            cls=made.cls.name,
            states=list(info.possible_states or []),
            initial=info.initial_state,
            transitions=transitions,
            interactable=interactable,
        )

    def _item(self, made: Made, label: str) -> ItemDef:
        chain = self.ancestry(made.cls)
        names = [ref.name for ref, _ in chain] + [b for _, i in chain for b in i.bases]
        category = next((ITEM_ROOTS[n] for n in names if n in ITEM_ROOTS), None)
        if category is None:
            raise SourceError(f"{label}:{made.line}: {made.cls.name} is not a pickable, static or quiz item")
        verb = next((i.action_verb for _, i in chain if i.action_verb), None)
        if verb is None:
            verb = self._base_verb(category)
        name = made.item_name
        return ItemDef(
            name=name,
            item_type=made.arg("item_type", 0) or name,
            cls=made.cls.name,
            category=category,
            nonkey_lock="NonKeyLock" in names,
            actions=(f"{verb} {name}",),
            answer=made.arg("answer"),
            appliable_receptacle=made.arg("appliable_receptacle"),
            appliable_state=made.arg("appliable_state"),
            after_solve_state=made.arg("after_solve_state"),
        )

    def _base_verb(self, category: str) -> str:
        """The verb of the base item classes (`src/vis_escape/objects/item.py`)."""
        base = {v: k for k, v in ITEM_ROOTS.items()}[category]
        info = self.class_info(ClassRef(base, "vis_escape.objects.item"))
        if not info.action_verb:
            raise CloneError(
                f"{self.files.label(self.module_path('vis_escape.objects.item'))}: {base} has no get_actions"
            )
        return info.action_verb


def read_config_imports(text: str) -> dict[str, ClassRef]:
    import ast

    out: dict[str, ClassRef] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out[alias.asname or alias.name] = ClassRef(alias.name, node.module or "")
    return out


def _rule(rule: Any, where: str, line: int) -> Rule:
    if not isinstance(rule, Made):
        raise SourceError(f"{where}:{line}: a transition rule that is not a rule object")
    kind, args = rule.cls.name, rule.args
    if kind == "AlwaysAllowRule":
        return ("always",)
    if kind == "HasItemRule" and len(args) == 1:
        return ("has", args[0])
    if kind == "TriggerActiveRule" and len(args) == 1:
        return ("trigger", args[0])
    if kind == "AndRule":
        return ("and", tuple(_rule(r, where, line) for r in args))
    if kind == "NotRule" and len(args) == 1:
        return ("not", _rule(args[0], where, line))
    raise SourceError(f"{where}:{line}: unknown rule {kind}{args!r}")


def open_clone(source: str | Path, images: str | Path | None = None) -> Clone:
    """Check the layout of a clone (and of an images folder) and return it; one-line errors."""
    root = Path(source).expanduser()
    if not root.exists():
        raise CloneError(f"{root} does not exist; give --set source=PATH, {LAYOUT}")
    if not root.is_dir():
        raise CloneError(f"{root} is not a directory; give {LAYOUT}")
    for rel in ("assets", "src/vis_escape/objects"):
        if not (root / rel).is_dir():
            raise CloneError(f"{root / rel} is missing: {root} is not {LAYOUT}")
    files = DirFiles(root)
    if images is None:
        image_files: Files = DirFiles(root / "assets")
    else:
        img = Path(images).expanduser()
        if not img.is_dir():
            raise CloneError(
                f"{img} is not a directory (expected roomN/image/... as in the authors' dataset)"
            )
        image_files = DirFiles(img)
    clone = Clone(files, image_files)
    if not clone.room_names():
        raise CloneError(f"{root / 'assets'} holds no roomN/config.py: {root} is not {LAYOUT}")
    return clone


def demo_clone() -> Clone:
    """The built-in demo room (`demo.py`), read through the same code as a clone."""
    from playbench.tasks.visescape.original.demo import demo_files

    files = demo_files()
    images = {k[len("assets/") :]: v for k, v in files.items() if k.startswith("assets/")}
    return Clone(MemFiles(files, "demo"), MemFiles(images, "demo"))
