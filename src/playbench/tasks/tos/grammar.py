"""The exploration action grammar and its execution, as the authors' environment runs them.

A turn is `Actions: [ <M>* <F> ]` with moves M = JumpTo(OBJ) | Rotate(DEG) and one final action
F = Observe() | Query(OBJ) | Term() (in the false-belief phase `Term(changes="...")`).
`Return()` is our extension (`--set return_action=true`).

Reading a reply (theirs: `ActionSequence.parse` in `tos_base/actions/actions.py`): the text after
the last `FINAL ANSWER:` (else after the last `Actions:`, else the whole reply); the bracketed list
in it (`\\[(.*)\\]`, on one line); in it every `Name(args)` token; each token must be exactly one
action (`JumpTo(red door)`, `Rotate(-90)`, `Observe()` ...). A reply is *invalid* when there is no
list, no token, a token that is no action, a final action before the end, no final action at the
end, or Term() with moves before it; an invalid reply does nothing (their reward penalty 0.5).

Running a valid turn (theirs: `ExplorationManager.execute_action_sequence`): moves run in order;
the first that fails (a jump to something unknown, not yet observed or not in view; a Rotate by
an angle that is not a multiple of 90 up to 270) stops the turn, and an Observe() runs in its
place (it costs 1 like any Observe). Observe costs 1 and Query 2, only when they succeed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from playbench.tasks.tos.feedback import OURS, Feedback
from playbench.tasks.tos.world import (
    ROTATIONS,
    START,
    Pose,
    World,
    gate_facing,
    in_fov,
    items_of,
    observe_message,
    rooms_at,
    turn,
    visible_items,
)

ACTION_COST = {"observe": 1.0, "query": 2.0}
INVALID_PENALTY = 0.5  # the environment's reward penalty for an invalid reply (not an exploration cost)
CHANGE_TYPES = ("position", "orientation")
POSITION_WORDS = ("position", "location", "moved", "pos")
ORIENTATION_WORDS = ("orientation", "rotation", "rotated", "ori", "facing")

_PATTERNS: dict[str, re.Pattern[str]] = {
    "JumpTo": re.compile(r"^JumpTo\(([A-Za-z0-9_ -]+)\)$"),
    "Rotate": re.compile(r"^Rotate\(([0-9-]+)\)$"),
    "Return": re.compile(r"^Return\(\)$"),
    "Observe": re.compile(r"^Observe\(\)$"),
    "Query": re.compile(r"^Query\(([A-Za-z0-9_ -]+)\)$"),
    "Term": re.compile(r"^Term\(\)$"),
    "TermChanges": re.compile(r'^Term\(changes="([^"]+)"\)$'),
}
FINALS = ("Observe", "Query", "Term", "TermChanges")


@dataclass(frozen=True)
class Invalid:
    """A reply that is not a valid action sequence (nothing happens)."""

    reason: str
    detail: str

    @property
    def message(self) -> str:
        return f"Invalid action sequence: {self.detail}"


@dataclass(frozen=True)
class Turn:
    """A valid action sequence: its moves and its final action, with their arguments."""

    moves: tuple[tuple[str, Any], ...]
    final: tuple[str, Any]

    @property
    def canonical(self) -> str:
        parts = [_show(a) for a in (*self.moves, self.final)]
        return "Actions: [" + ", ".join(parts) + "]"


def _show(action: tuple[str, Any]) -> str:
    kind, arg = action
    if kind == "TermChanges":
        return f'Term(changes="{arg[0]}")'
    if kind in ("Observe", "Term", "Return"):
        return f"{kind}()"
    return f"{kind}({arg})"


def normalize_name(name: str) -> str:
    """A name as our cognitive-map reader compares it: lower case, single spaces, `_` as a space."""
    return " ".join(name.strip().strip("\"'").replace("_", " ").lower().split())


def action_segment(text: str) -> str:
    """The part of a reply that holds the action list (see the module docstring)."""
    marks = list(re.finditer(r"FINAL ANSWER\s*:", text, re.IGNORECASE))
    if marks:
        return text[marks[-1].end() :]
    at = text.lower().rfind("actions:")
    return text[at:] if at >= 0 else text


@dataclass
class ChangedObject:
    """One reported (or true) change: an object and whether its position and/or facing changed."""

    name: str
    pos: bool = False
    ori: bool = False

    def labels(self) -> set[tuple[str, str]]:
        """Its (object, change type) labels, as the F1 counts them."""
        return {(self.name, k) for k, on in (("position", self.pos), ("orientation", self.ori)) if on}


def parse_change(entry: str) -> ChangedObject | None:
    """`apple: position`, `chair: rotated`, `lamp: moved` ... (theirs: `ChangedObject.parse`):
    the name before the colon (quotes stripped, underscores read as spaces, case kept) and the
    kinds named by any of their keywords after it; None when no keyword is found."""
    s = entry.strip().strip("\"'")
    if ":" in s:
        name, rest = s.split(":", 1)
    else:
        parts = s.rsplit(" ", 1)
        if len(parts) != 2:
            return None
        name, rest = parts
    low = rest.lower()
    pos = any(k in low for k in POSITION_WORDS)
    ori = any(k in low for k in ORIENTATION_WORDS)
    if not (pos or ori):
        return None
    return ChangedObject(name.strip().strip("\"'").replace("_", " "), pos=pos, ori=ori)


def parse_changes(raw: str) -> list[ChangedObject]:
    """The comma-separated entries of `Term(changes="...")`; only entries with a colon count, the
    unreadable ones are skipped and entries for one object are merged (theirs: `_parse_changes`)."""
    merged: dict[str, ChangedObject] = {}
    for part in raw.split(","):
        if ":" not in part:
            continue
        c = parse_change(part)
        if c is None:
            continue
        if c.name in merged:
            merged[c.name].pos |= c.pos
            merged[c.name].ori |= c.ori
        else:
            merged[c.name] = c
    return list(merged.values())


def parse_turn(text: str, *, fb_phase: bool = False, allow_return: bool = False) -> Turn | Invalid:
    """Read a reply as an action sequence (the rules of the module docstring)."""
    seg = action_segment(text if isinstance(text, str) else str(text))
    m = re.search(r"\[(.*)\]", seg.strip())
    if not m:
        return Invalid("action_list", "no action list `Actions: [ ... ]` was found.")
    tokens = re.findall(r"([A-Za-z]+\([^()]*\))", m.group(1))
    if not tokens:
        return Invalid("empty", "the action list holds no action.")
    kinds = ["JumpTo", "Rotate", "Observe", "Query"]
    kinds += ["TermChanges"] if fb_phase else ["Term"]
    if allow_return:
        kinds.append("Return")
    parsed: list[tuple[str, Any]] = []
    for tok in tokens:
        tok = tok.strip()
        for kind in kinds:
            hit = _PATTERNS[kind].match(tok)
            if hit is None:
                continue
            arg: Any = hit.group(1) if hit.groups() else None
            if kind == "Rotate":
                try:
                    arg = int(arg)
                except ValueError:
                    return Invalid("unknown_action", f"'{tok}' is not an action.")
            elif kind in ("JumpTo", "Query"):
                arg = arg.replace("_", " ")
            elif kind == "TermChanges":
                arg = (arg, parse_changes(arg))
            parsed.append((kind, arg))
            break
        else:
            hint = ' (this phase ends with Term(changes="..."))' if tok.startswith("Term(") else ""
            return Invalid("unknown_action", f"'{tok[:60]}' is not an action{hint}.")
    *moves, final = parsed
    if final[0] not in FINALS:
        return Invalid("final_last", f"the last action {_show(final)} is not Observe(), Query() or Term().")
    early = next((a for a in moves if a[0] in FINALS), None)
    if early is not None:
        return Invalid("final_last", f"{_show(early)} comes before the end of the list.")
    if final[0] in ("Term", "TermChanges") and any(k != "Return" for k, _ in moves):
        return Invalid("term_alone", "Term() must be alone in its action list.")
    return Turn(tuple(moves), final)


@dataclass
class Outcome:
    """What a turn did: its messages (joined into the observation), the agent's pose afterwards,
    its cost and action counts, what it observed, and how it ended."""

    messages: list[str] = field(default_factory=list)
    pose: Pose = START
    cost: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)  # names seen by this turn's Observe()
    observed_at: Pose | None = None
    failed: str | None = None  # the failure of a move or of the final action
    terminated: bool = False
    changes: list[ChangedObject] | None = None
    changes_text: str | None = None
    query: dict[str, Any] | None = None
    view_message: int | None = None  # the index of the Observe() message in `messages`

    @property
    def text(self) -> str:
        return " ".join(self.messages)

    def count(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1


def execute(world: World, pose: Pose, observed: frozenset[str], t: Turn, words: Feedback = OURS) -> Outcome:
    """Run a valid turn from `pose` (see the module docstring); `observed` are the names the agent
    has observed so far (jumps and queries need them); `words` the result sentences (`feedback.py`)."""
    out = Outcome(pose=pose)
    by_name = {it.name: it for it in items_of(world)}
    cur = pose
    for kind, arg in t.moves:
        failure = None
        if kind == "Rotate":
            if arg not in ROTATIONS:
                failure = ("rotate_degrees", words.rotate_failed_text(arg, list(ROTATIONS)))
            else:
                cur = Pose(cur.x, cur.y, turn(cur.facing, arg))
                out.count("rotate")
                out.messages.append(words.rotated_text(arg))
        elif kind == "Return":
            cur = START
            out.count("return")
            out.messages.append(words.returned)
        else:  # JumpTo
            it = by_name.get(arg)
            if it is None:
                failure = ("not_found", words.jump_failed_text(arg, "not_found"))
            elif arg not in observed:
                failure = ("not_observed", words.jump_failed_text(arg, "not_observed"))
            elif not (it.rooms & rooms_at(world, cur.x, cur.y)) or not in_fov(cur, it.x, it.y):
                failure = ("not_visible", words.jump_failed_text(arg, "not_visible"))
            else:
                cur = Pose(it.x, it.y, cur.facing)
                out.count("move")
                out.messages.append(words.jumped_text(arg))
        if failure is not None:
            out.failed = failure[0]
            out.messages.append(failure[1])
            out.pose = cur
            _observe(world, cur, out, words, failed=True)
            return out
    out.pose = cur
    kind, arg = t.final
    if kind == "Observe":
        _observe(world, cur, out, words)
    elif kind == "Query":
        it = by_name.get(arg)
        if arg == "initial_pos":
            out.query = {"name": arg, "x": 0, "y": 0, "facing": "north"}
        elif it is None:
            out.failed = "not_found"
            out.messages.append(words.query_failed_text("not_found"))
            return out
        elif arg not in observed:
            out.failed = "not_observed"
            out.messages.append(words.query_failed_text("not_observed"))
            return out
        else:
            facing = gate_facing(world, arg) if it.is_gate else (it.facing or world.unoriented_facing)
            out.query = {"name": arg, "x": it.x, "y": it.y, "facing": facing}
        q = out.query
        answer = f"({q['x']}, {q['y']})" + (f", facing {q['facing']}" if q["facing"] else "")
        out.cost += ACTION_COST["query"]
        out.count("query")
        out.messages.append(words.query_text(arg, answer))
    elif kind == "TermChanges":
        out.terminated = True
        out.changes_text, out.changes = arg
        out.count("term")
        out.messages.append(words.terminated_changes_text(arg[0]))
    else:
        out.terminated = True
        out.count("term")
        out.messages.append(words.terminated)
    return out


def _observe(world: World, pose: Pose, out: Outcome, words: Feedback, failed: bool = False) -> None:
    """Observe from `pose`; after a failed move, the message says the rest of the turn was replaced.
    `view_message` keeps the message's index, so vision can put its image in place of the entries."""
    out.cost += ACTION_COST["observe"]
    out.count("observe")
    out.observed_at = pose
    out.seen = [i.name for i in visible_items(world, pose)]
    message = observe_message(world, pose, words=words)
    out.view_message = len(out.messages)
    out.messages.append(words.failed_move_text(message) if failed else message)
