"""Rooms built from a seed (`visescape/generated`, issue 30): one chain of gates, escapable by construction.

A room is a *chain*: gate 0 opens something holding the opener of gate 1, ..., the last gate opens the
door. Four gate kinds, after the authors' rooms (their rooms are single chains of keys, codes, buttons and
mechanisms: `scripts/visescape_paper_figures.py`):

- `key`: an applicable item (key, card, tool) is picked up (a `picked_` checkpoint) and used on a locked
  receptacle (`unlocked_<receptacle>`);
- `code`: a quiz lock on a locked receptacle, its clue (an item, or a board, mirror, painting or clock)
  on another receptacle on another wall; solving it (`solved_<lock>`) opens the receptacle;
- `button`: a button inside the previous gate's receptacle releases a locked receptacle (`pressed_<button>`);
- `lever`: a painting, plant or bookshelf is moved (`moved_<receptacle>`) and shows what it hid.

Every opener lies behind the previous gate (inside its receptacle, or on a receptacle that appears only
then), so no gate can be passed early: the checkpoints are the chain's events in order and each is a
bottleneck. Decoys (furniture and clue-like notes and books that open nothing) bring the room to its
receptacle and item counts. The room is plain data in the suite's own format (`schema.Room`), drawn by the
suite's renderer (`views.py`) like the hand-made rooms, and played by the same engine, hints and stall
detection. `optimal_steps` is the oracle's shortest escape (`validator.shortest_path`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from playbench.tasks.visescape.quizzes import QUIZ_KINDS, get_kind
from playbench.tasks.visescape.schema import DIRECTIONS, Room, parse_room

GATE_KINDS = ("key", "code", "button", "lever")
MAX_PER_WALL = 3  # the renderer fits three pieces of furniture on a wall at a readable size
APPLICABLE = (  # (kind, words, color) of the items a key gate may use
    ("key", "brass key", "gold"),
    ("key", "iron key", "black"),
    ("key", "silver key", "silver"),
    ("card", "key card", "blue"),
    ("screwdriver", "screwdriver", "red"),
    ("coin", "old coin", "gold"),
    ("handle", "metal handle", "gray"),
    ("fuse", "fuse", "orange"),
)
LOCKED_KINDS = ("wardrobe", "cabinet", "chest", "desk", "safe")
LEVER_KINDS = {"painting": ("hanging", "moved", "move_painting"), "plant": ("standing", "moved", "move_plant"),
               "bookshelf": ("standing", "pushed", "push_bookshelf")}  # fmt: skip
CLUE_RECEPTACLES = ("board", "mirror", "painting")
CLUE_ITEMS = ("note", "photo", "book", "poster")
DECOY_RECEPTACLES = ("table", "lamp", "plant", "drawers", "cabinet", "mirror", "bookshelf")
COLORS = ("brown", "red", "blue", "green", "gray", "white", "navy", "teal", "beige", "black")
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Shape:
    """What a room is built to have (`difficulty.py` defines each figure): receptacles, items, quizzes,
    gates (the chain's depth) and pickups (hint stalls = gates + pickups)."""

    receptacles: int
    items: int
    quizzes: int
    gates: int
    pickups: int

    def check(self) -> None:
        if self.gates < 1:
            raise ValueError(f"a room needs at least one gate (got chain depth {self.gates})")
        if self.pickups + self.quizzes > self.gates:
            raise ValueError(
                f"{self.pickups} pickups and {self.quizzes} quizzes need as many gates; chain depth is {self.gates}"
            )
        if self.items < self.pickups:
            raise ValueError(f"{self.items} items cannot hold {self.pickups} items to pick up")
        if self.receptacles < self.gates:
            raise ValueError(f"{self.receptacles} receptacles cannot hold a chain of {self.gates} gates")


def random_shape(rng: random.Random) -> Shape:
    """A shape in the range of the authors' rooms (5-9 receptacles, chains of 3-7 gates, 0-2 quizzes)."""
    gates = rng.randint(3, 7)
    quizzes = rng.randint(0, min(2, gates - 1))
    pickups = rng.randint(max(1, gates - quizzes - 2), gates - quizzes)
    receptacles = rng.randint(max(5, gates), 9)
    items = rng.randint(max(3, pickups), pickups + quizzes + 3)
    return Shape(receptacles, items, quizzes, gates, pickups)


class _Builder:
    """Collects receptacles, items, quizzes and checkpoints as room-file data."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.recs: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []
        self.quizzes: list[dict[str, Any]] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.quiz_params: dict[str, dict[str, Any]] = {}
        self.used: set[str] = set()

    def name(self, base: str) -> str:
        k, out = 1, base
        while out in self.used:
            k += 1
            out = f"{base}_{k}"
        self.used.add(out)
        return out

    def rec(self, kind: str, **fields: Any) -> dict[str, Any]:
        r = {"id": self.name(kind), "kind": kind, "wall": "north", "color": self.rng.choice(COLORS), **fields}
        r.setdefault("contains", [])
        r.setdefault("transitions", [])
        self.recs.append(r)
        return r

    def item(self, kind: str, base: str, **fields: Any) -> dict[str, Any]:
        it = {"id": self.name(base), "kind": kind, **fields}
        self.items.append(it)
        return it

    def checkpoint(self, trigger: str, hint: str) -> None:
        self.checkpoints.append({"trigger": trigger, "hint": hint})


def _place(holder: dict[str, Any], item: dict[str, Any], states: list[str] | None) -> None:
    entry: dict[str, Any] = {"item": item["id"]}
    if states is not None:
        entry["states"] = states
    holder["contains"].append(entry)


def build_room(
    room_id: str, shape: Shape, rng: random.Random, closed: int = 0
) -> tuple[Room, dict[str, dict[str, Any]]]:
    """A room of `shape` drawn from `rng`, and its quiz parameters. `closed` gate receptacles open to
    `closed` (one more step, `open`, before their contents show): the knob the twin search turns to
    reach an oracle length. Raises ValueError when the shape cannot be built."""
    shape.check()
    b = _Builder(rng)
    # the chain's gate kinds: pickups are key gates, quizzes code gates, the rest buttons and levers
    others = shape.gates - shape.pickups - shape.quizzes
    kinds = ["key"] * shape.pickups + ["code"] * shape.quizzes
    kinds += [rng.choice(("button", "lever")) for _ in range(others)]
    last = [k for k in kinds if k in ("key", "code", "button")]
    rng.shuffle(kinds)
    if kinds[-1] == "lever":  # the door is opened by a key, a code or a button, never moved aside
        if not last:
            kinds[-1] = "button"
        else:
            j = max(i for i, k in enumerate(kinds) if k != "lever")
            kinds[j], kinds[-1] = kinds[-1], kinds[j]
    # items the shape can spend on buttons and clue items; the rest become decoys
    spare = shape.items - shape.pickups
    clue_as_item = []
    for k in kinds:
        if k == "code":
            use_item = spare > 0 and rng.random() < 0.7
            spare -= use_item
            clue_as_item.append(use_item)
    for i, k in enumerate(kinds):
        if k == "button" and spare <= 0:
            kinds[i] = "lever" if i < len(kinds) - 1 else "button"
        elif k == "button":
            spare -= 1
    if spare < 0:
        raise ValueError(f"{shape.items} items are too few for this chain")
    closable = [i for i, k in enumerate(kinds[:-1]) if k in ("key", "code", "button")]
    closed_at = set(rng.sample(closable, min(closed, len(closable))))
    if closed > len(closable):
        raise ValueError(f"only {len(closable)} gate receptacles can open to closed ({closed} asked)")

    gate_recs: list[dict[str, Any]] = []
    prev_trigger: str | None = None
    holder: dict[str, Any] | None = None  # where the next opener lies (None: gate 0, placed below)
    openers: list[tuple[dict[str, Any], list[str] | None]] = []  # (item, states) awaiting a holder
    code_k = 0
    for i, kind in enumerate(kinds):
        door = i == len(kinds) - 1
        opens_to = "closed" if i in closed_at else "open"
        states = ["locked", "closed", "open"] if opens_to == "closed" else ["locked", "open"]
        target: dict[str, Any]
        if kind == "lever":
            lk = rng.choice(sorted(LEVER_KINDS))
            rest, moved, verb = LEVER_KINDS[lk]
            target = b.rec(lk, states=[rest, moved])
            trigger = f"moved_{target['id']}"
            target["transitions"].append({"action": verb, "from": rest, "to": moved, "trigger": trigger})
            if prev_trigger is not None:  # it shows up only once the gate before is passed
                target["visible"] = {"trigger": prev_trigger}
            b.checkpoint(
                trigger, f"{verb.replace('_', ' ').capitalize()} at the {{wall:{target['id']}}} wall."
            )
            inner = [moved]
        else:
            target = b.rec("door" if door else rng.choice(LOCKED_KINDS), states=states)
            label = "the door" if door else f"the {target['kind']}"
            if kind == "key":
                kind_, words, color = rng.choice(APPLICABLE)
                key = b.item(kind_, f"{kind_}_{LETTERS[i]}", name=words, color=color)
                trigger = f"unlocked_{target['id']}"
                target["transitions"].append(
                    {"action": "use", "item": key["id"], "from": "locked", "to": opens_to, "trigger": trigger}
                )
                openers.append((key, None))
                b.checkpoint(
                    f"picked_{key['id']}", f"Pick up {key['id']} ({words}) from {{where:{key['id']}}}."
                )
                b.checkpoint(trigger, f"Use {key['id']} on {label} at the {{wall:{target['id']}}} wall.")
            elif kind == "button":
                button = b.item("button", f"button_{LETTERS[i]}", color=rng.choice(("red", "green", "blue")))
                trigger = f"pressed_{button['id']}"
                target["transitions"].append(
                    {"action": "auto", "from": "locked", "to": opens_to, "when": {"trigger": trigger}}
                )
                openers.append((button, None))
                b.checkpoint(
                    trigger, f"Press {button['id']}: it releases {label} at the {{wall:{target['id']}}} wall."
                )
            else:
                lock = b.item("lock", f"lock_{LETTERS[i]}")
                quiz_kind = rng.choice(sorted(QUIZ_KINDS))
                quiz_id = f"quiz_{LETTERS[i]}"
                trigger = f"solved_{lock['id']}"
                target["transitions"].append(
                    {"action": "auto", "from": "locked", "to": opens_to, "when": {"trigger": trigger}}
                )
                _place(target, lock, ["locked"])
                if clue_as_item[code_k]:
                    clue = b.item(rng.choice(CLUE_ITEMS), f"clue_{LETTERS[i]}")
                    openers.append((clue, None))
                    clue_id = clue["id"]
                else:
                    kinds_ok = [k for k in CLUE_RECEPTACLES if k != "painting" or quiz_kind != "clock_time"]
                    clue_rec = b.rec("clock" if quiz_kind == "clock_time" else rng.choice(kinds_ok))
                    if prev_trigger is not None:
                        clue_rec["visible"] = {"trigger": prev_trigger}
                    clue_id = clue_rec["id"]
                    target["_clue_rec"] = clue_id
                code_k += 1
                b.quizzes.append({"id": quiz_id, "kind": quiz_kind, "clue": clue_id, "lock": lock["id"]})
                b.quiz_params[quiz_id] = get_kind(quiz_kind).generate(rng)
                b.checkpoint(
                    trigger,
                    f"Read the clue and solve {lock['id']} on {label} at the {{wall:{target['id']}}} wall. "
                    f"The answer is {{answer:{lock['id']}}}.",
                )
            if opens_to == "closed":
                target["transitions"].append({"action": "open", "from": "closed", "to": "open"})
            inner = ["open"]
        # the openers of this gate lie in the previous gate's receptacle (gate 0's: placed below)
        for item, _ in openers:
            if holder is not None:
                _place(holder, item, holder["_inner"])
            else:
                target.setdefault("_gate0", []).append(item)
        openers = []
        target["_inner"] = inner
        gate_recs.append(target)
        holder = target
        prev_trigger = trigger
    # gate 0's openers lie in plain sight on a later gate's receptacle (in every state)
    first = gate_recs[0]
    for item in first.pop("_gate0", []):
        spots = [r for r in gate_recs[1:] if r["kind"] != "door" and not r.get("visible")] or [
            r for r in gate_recs if r is not first and not r.get("visible")
        ]
        spot = rng.choice(spots) if spots else None
        if spot is None:
            spot = b.rec(rng.choice(DECOY_RECEPTACLES))
        _place(spot, item, None)
    # decoys up to the shape's counts
    n_items = len([i for i in b.items if i["kind"] != "lock"])
    decoy_items = shape.items - n_items
    while len(b.recs) < shape.receptacles:
        kind = rng.choice(DECOY_RECEPTACLES)
        decoy = b.rec(kind, states=["closed", "open"]) if kind in ("drawers", "cabinet") else b.rec(kind)
        decoy["_inner"] = ["open"] if kind in ("drawers", "cabinet") else None
    if len(b.recs) > shape.receptacles:
        raise ValueError(f"this chain needs {len(b.recs)} receptacles, more than {shape.receptacles}")
    hosts = [r for r in b.recs if r["kind"] not in ("door", "clock", "painting", "mirror", "board")]
    for _ in range(decoy_items):
        kind = rng.choice(("note", "book", "poster"))
        extra = (
            {"text": "Nothing to see here."}
            if kind == "note"
            else {"label": rng.choice(("ART", "MAPS", "1920"))}
        )
        decoy = b.item(kind, f"{kind}_spare", **extra)
        host = rng.choice(hosts)
        _place(host, decoy, host.get("_inner"))
    _assign_walls(b, rng)
    walls = {r["id"]: r["wall"] for r in b.recs}
    homes = {c["item"]: r for r in b.recs for c in r.get("contains", [])}
    for cp in b.checkpoints:
        for rid, wall in walls.items():
            cp["hint"] = cp["hint"].replace(f"{{wall:{rid}}}", wall)
        for iid, home in homes.items():
            cp["hint"] = cp["hint"].replace(
                f"{{where:{iid}}}", f"the {home['kind']} at the {home['wall']} wall"
            )
    for r in b.recs:
        for k in ("_inner", "_clue_rec", "_gate0"):
            r.pop(k, None)
        if not r["contains"]:
            del r["contains"]
        if not r["transitions"]:
            del r["transitions"]
    door = b.recs[[r["kind"] for r in b.recs].index("door")]
    data = {
        "id": room_id,
        "title": "A generated room",
        "start_wall": rng.choice(DIRECTIONS),
        "receptacles": b.recs,
        "items": b.items,
        "quizzes": b.quizzes,
        "checkpoints": b.checkpoints,
        "clear": {"receptacle": door["id"], "state": "open"},
    }
    return parse_room(data, room_id), b.quiz_params


def _clue_home(b: _Builder, clue: str) -> str:
    for r in b.recs:
        if r["id"] == clue or any(c["item"] == clue for c in r.get("contains", [])):
            return r["id"]
    raise ValueError(f"clue {clue!r} is in no receptacle")


def _assign_walls(b: _Builder, rng: random.Random) -> None:
    """Every wall gets furniture, none more than MAX_PER_WALL, and every clue stands on another wall than
    its lock (the paper's rule, checked by the validator)."""
    pairs = []
    for q in b.quizzes:
        lock_home = next(
            r["id"] for r in b.recs if any(c["item"] == q["lock"] for c in r.get("contains", []))
        )
        pairs.append((_clue_home(b, q["clue"]), lock_home))
    n = len(b.recs)
    if n > MAX_PER_WALL * len(DIRECTIONS):
        raise ValueError(f"{n} receptacles do not fit on four walls")
    for _ in range(200):
        walls = (
            list(DIRECTIONS) + [rng.choice(DIRECTIONS) for _ in range(n - len(DIRECTIONS))]
            if n >= 4
            else [rng.choice(DIRECTIONS) for _ in range(n)]
        )
        rng.shuffle(walls)
        if any(walls.count(w) > MAX_PER_WALL for w in DIRECTIONS):
            continue
        at = {r["id"]: w for r, w in zip(b.recs, walls, strict=True)}
        if all(at[c] != at[lk] and c != lk for c, lk in pairs):
            for r in b.recs:
                r["wall"] = at[r["id"]]
            return
    raise ValueError("no wall layout keeps every clue apart from its lock")
