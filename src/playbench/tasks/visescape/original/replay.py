"""Replay the authors' walkthroughs (`assets/roomN/walkthrough_oracle.json`) on our engine and report
every turn where the available actions or the image differ, and whether the room is escaped.

    python -m playbench.tasks.visescape.original.replay PATH_TO_CLONE [roomN | RUN.json ...]

A `.json` argument is any run in the same format, such as the authors' recorded human runs
(`scripts/results/Human/roomN/run_history_*.json`; the room is the folder's name).

The original lists part of its actions from a Python set (their order changes from run to run), so the
actions are compared as sets. Images are compared as `image/<kind>/<folder>/<file>` paths.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from playbench.tasks.visescape.original.clone import Clone, CloneError, open_clone
from playbench.tasks.visescape.original.engine import Game


@dataclass
class Replay:
    room: str
    turns: int
    escaped_at: int | None  # the turn after which the room is escaped, if it is
    mismatches: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not self.mismatches and self.escaped_at == self.turns


def _rel(path: str | None) -> str:
    path = path or ""
    return path[path.find("image/") :] if "image/" in path else path


def replay(clone: Clone, room: str, turns: list[dict] | None = None) -> Replay:
    game = Game(clone.room(room))
    turns = clone.walkthrough(room) if turns is None else turns
    out = Replay(room, len(turns), None)
    for turn in turns:
        k = turn.get("turn_number", "?")
        expected = set(turn.get("available_actions") or [])
        got = set(game.available_actions())
        if got != expected:
            extra, missing = sorted(got - expected), sorted(expected - got)
            out.mismatches.append(
                f"turn {k}: actions" + (f" +{extra}" if extra else "") + (f" -{missing}" if missing else "")
            )
        game.handle_action(str(turn["chosen_action"]))
        image = game.image()
        if image != _rel(turn.get("image_path")):
            out.mismatches.append(
                f"turn {k}: image {image or '(none)'} where the walkthrough shows {_rel(turn.get('image_path'))}"
            )
        if game.cleared() and out.escaped_at is None:
            out.escaped_at = int(k) if isinstance(k, int) else None
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    if not args:
        print(
            "usage: python -m playbench.tasks.visescape.original.replay PATH_TO_CLONE [roomN ...]",
            file=sys.stderr,
        )
        return 2
    try:
        clone = open_clone(args[0])
        rooms = args[1:] or clone.room_names()
        for room in rooms:
            if room.endswith(".json"):
                path = Path(room)
                data = json.loads(path.read_text())
                r = replay(
                    clone, path.parent.name, [t for t in data if isinstance(t, dict) and "chosen_action" in t]
                )
                room = str(path)
            else:
                r = replay(clone, room)
            status = (
                "exact" if r.exact else (f"escaped at turn {r.escaped_at}" if r.escaped_at else "NOT escaped")
            )
            print(f"{room}: {r.turns} turns, {status}")
            for line in r.mismatches:
                print(f"    {line}")
    except (CloneError, OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
