"""The shipped rooms (`rooms/room-NN.json`) and their quiz parameters.

A room's canonical puzzle uses the `params` written in its file, or, where a quiz omits them,
parameters drawn from `derive_seed("visescape", room id, quiz id)`. Seeded variants (instances
beyond the first pass over the rooms) redraw every quiz from the run seed, keeping the room's
layout, logic and oracle length.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from playbench.core.task import derive_seed
from playbench.tasks.visescape.quizzes import get_kind
from playbench.tasks.visescape.schema import Room, RoomFormatError, load_room_file

ROOMS_DIR = Path(__file__).parent / "rooms"
ROOM_SUFFIXES = (".json", ".yaml", ".yml")


def room_files() -> dict[str, Path]:
    """Shipped room ids (file stems) to their files, sorted by id."""
    out: dict[str, Path] = {}
    for path in sorted(ROOMS_DIR.iterdir()):
        if path.suffix in ROOM_SUFFIXES and not path.name.startswith("_"):
            out.setdefault(path.stem, path)
    return out


def room_ids() -> list[str]:
    return list(room_files())


def load_room(room_id_or_path: str) -> Room:
    """A shipped room by id (`room-01`) or any room file by path (read afresh: a room loads in well under
    a millisecond, and a file being authored may change between two calls)."""
    files = room_files()
    if room_id_or_path in files:
        room = load_room_file(files[room_id_or_path])
        if room.id != room_id_or_path:
            raise RoomFormatError(
                f"{files[room_id_or_path].name}: its id {room.id!r} must match the file name"
            )
        return room
    path = Path(room_id_or_path)
    if path.suffix in ROOM_SUFFIXES:
        return load_room_file(path)
    known = ", ".join(files) or "(none)"
    raise RoomFormatError(
        f"unknown room {room_id_or_path!r} (shipped rooms: {known}; or give a .json/.yaml path)"
    )


CLUE_KINDS = ("note", "photo", "book", "poster")


def as_played(room: Room, carry_clues: bool = False) -> Room:
    """The room as the paper's protocol plays it: clue items (notes, photos, books, posters) stay where
    they are, as the original's clue images are fixed in place, so a `picked_<clue>` checkpoint goes
    too. `carry_clues=True` (our extension) keeps the room as authored: clues may be picked up and
    looked at again from anywhere."""
    if carry_clues:
        return room
    fixed = {i.id for i in room.items if i.kind in CLUE_KINDS}
    if not fixed:
        return room
    items = [i.model_copy(update={"pickable": False}) if i.id in fixed else i for i in room.items]
    checkpoints = [c for c in room.checkpoints if c.trigger not in {f"picked_{x}" for x in fixed}]
    return room.model_copy(update={"items": items, "checkpoints": checkpoints})


def quiz_params(room: Room, variant: int | None = None) -> dict[str, dict[str, Any]]:
    """Parameters of every quiz: canonical for `variant=None`, else redrawn from the variant seed."""
    out: dict[str, dict[str, Any]] = {}
    for quiz in room.quizzes:
        kind = get_kind(quiz.kind)
        if variant is None and quiz.params is not None:
            out[quiz.id] = dict(quiz.params)
            continue
        seed = (
            derive_seed("visescape", room.id, quiz.id)
            if variant is None
            else derive_seed("visescape", room.id, quiz.id, "variant", variant)
        )
        out[quiz.id] = kind.generate(random.Random(seed))
    return out
