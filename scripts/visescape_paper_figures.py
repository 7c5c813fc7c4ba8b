"""The difficulty figures of the authors' twenty VisEscape rooms, computed from a clone as data.

    python scripts/visescape_paper_figures.py [CLONE] [--out PATH]

Reads `pull-ups/VisEscape-demo` (default: /work/originals/VisEscape-demo, else the originals folder) through
playbench's own reader (`original/clone.py`: `config.py` with `ast`, never run) and plays each room on
playbench's re-implementation of their rules (`original/engine.py`). Writes per room only ids and numbers
(`visescape/data/paper_difficulty.json`): no text, answer or image of theirs. Each statistic is defined as
`visescape/difficulty.py` defines it for our rooms (the suite README, "The twin dataset"):

- receptacles, items (not locks), quizzes (locks answered with a typed code: their NonKeyLock);
- optimal_steps: the shortest escape by breadth-first search over their rules, where a code is typed only
  after the view that shows its clue was seen (that view: the last informative image their walkthrough
  showed before typing it: not a wall view of the lock's wall, not the lock's receptacle, not a lock);
- hint_stalls: the steps of that escape that add a trigger (each ends a stall and keys the next hint);
- chain_depth: those of them that add no `picked_` trigger (a key, card or tool used, a code solved, a
  button pressed, a mechanism worked: the gates of the lock -> key -> code chain);
- longest_stall: the most steps of that escape between two progress steps (or before the first).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
from collections import deque
from pathlib import Path

from playbench.tasks.visescape.difficulty import progress_figures
from playbench.tasks.visescape.original.clone import Clone, open_clone
from playbench.tasks.visescape.original.engine import Game
from playbench.tasks.visescape.originals import COMMIT

OUT = Path(__file__).resolve().parents[1] / "src/playbench/tasks/visescape/data/paper_difficulty.json"


def fast_copy(game: Game) -> Game:
    """A copy sharing the immutable room (deepcopy of the whole game is 20x slower)."""
    new = copy.copy(game)
    new.rec_state = dict(game.rec_state)
    new.interactable = {k: dict(v) for k, v in game.interactable.items()}
    new.contained = {k: list(v) for k, v in game.contained.items()}
    new.item_state = dict(game.item_state)
    new.inventory = dict(game.inventory)
    new.triggers = dict(game.triggers)
    return new


def state_key(game: Game) -> str:
    snap = game.snapshot()
    snap["inventory"] = sorted(snap["inventory"])  # order matters for neither rule nor progress
    snap["triggers"] = sorted(snap["triggers"])
    return json.dumps(snap, sort_keys=True)


def clue_images(clone: Clone, room: str) -> dict[str, frozenset[str]]:
    """Each code lock -> the images showing its clue: the close-ups of clue items (their Puzzle class) their
    walkthrough showed since it typed its previous answer (room 5's door code needs two pictures); without
    any, the last informative image before typing (see the module docstring). Empty: the walkthrough
    types none."""
    game = Game(clone.room(room))
    seen: list[str] = [game.image()]
    since: list[str] = []
    out: dict[str, frozenset[str]] = {}
    locks = [n for n, it in game.room.items.items() if "lock" in it.cls.lower()]
    for turn in clone.walkthrough(room):
        action = str(turn["chosen_action"])
        if game.accepts_answer() and action not in game.available_actions() and game.item:
            lock_rec = game.rec or ""
            lock_wall = game.room.wall_of(lock_rec) if lock_rec else ""
            last = next(
                (
                    image
                    for image in reversed(seen)
                    if image
                    and f"/{lock_rec}/" not in image
                    and f"wall_view/{lock_wall}" not in image
                    and not any(f"item_view/{n}/" in image for n in locks)
                ),
                None,
            )
            out[game.item] = frozenset(since) if since else frozenset([last] if last else [])
            since = []
        game.handle_action(action)
        image = game.image()
        seen.append(image)
        item = game.current_item()
        if item is not None and item.cls == "Puzzle" and image and image not in since:
            since.append(image)
    return out


def shortest_escape(clone: Clone, room: str) -> tuple[list[str], int]:
    """The shortest escape (actions) and the states explored, with codes typed only after their clue."""
    clues = clue_images(clone, room)
    start_game = Game(clone.room(room))
    wanted = set().union(*clues.values())  # only clue images matter to the rule
    start = (state_key(start_game), frozenset({start_game.image()} & wanted))
    parent: dict[tuple[str, frozenset[str]], tuple[tuple[str, frozenset[str]], str] | None] = {start: None}
    games = {start: start_game}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        game, seen = games.pop(node), node[1]
        if game.cleared():
            path: list[str] = []
            back = node
            while parent[back] is not None:
                back, action = parent[back]  # type: ignore[misc]
                path.append(action)
            return path[::-1], len(parent)
        actions = list(game.available_actions())
        item = game.current_item()
        typed = (
            item is not None and item.is_quiz and item.answer and f"solved_{item.name}" not in game.triggers
        )
        if typed and item.answer not in actions and clues.get(item.name, frozenset()) <= seen:  # type: ignore[union-attr]
            actions.append(item.answer)  # type: ignore[union-attr]
        for action in actions:
            nxt = fast_copy(game)
            nxt.handle_action(action)
            image = nxt.image()
            key = (state_key(nxt), seen | {image} if image in wanted else seen)
            if key in parent:
                continue
            parent[key] = (node, action)
            games[key] = nxt
            queue.append(key)
    raise SystemExit(f"{room}: no escape found ({len(parent)} states)")


def room_figures(clone: Clone, room: str) -> dict[str, int]:
    path, _ = shortest_escape(clone, room)
    game = Game(clone.room(room))
    added: list[list[str]] = []
    for action in path:
        before = set(game.triggers)
        game.handle_action(action)
        added.append([t for t in game.triggers if t not in before])
    items = game.room.items.values()
    return {
        "receptacles": len(game.room.recs),
        "items": sum(1 for it in items if "lock" not in it.cls.lower()),
        "quizzes": sum(1 for it in items if it.nonkey_lock),
        **progress_figures(added),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clone", nargs="?", default="/work/originals/VisEscape-demo")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    clone = open_clone(args.clone)
    records = []
    for room in clone.room_names():
        t = time.time()
        figures = room_figures(clone, room)
        records.append({"id": room, **figures})
        print(f"{room}: {figures} ({time.time() - t:.1f} s)", file=sys.stderr)
    config_digests = {
        room: hashlib.sha256(clone.text(f"assets/{room}/config.py").encode()).hexdigest()[:16]
        for room in clone.room_names()
    }
    out = {
        "source": f"github.com/pull-ups/VisEscape-demo@{COMMIT[:7]}",
        "commit": COMMIT,
        "made_by": "scripts/visescape_paper_figures.py",
        "config_sha256_16": config_digests,
        "rooms": records,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
