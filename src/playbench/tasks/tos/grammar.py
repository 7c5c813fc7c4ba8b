"""The exploration action grammar, enforced as a hard constraint.

A turn is `Actions: [ <M>* <F> ]` with moves M = JumpTo(OBJ) | Rotate(DEG) | Return() and one
final action F = Observe() | Query(OBJ) | Term(). Every rule of the prompt and FACTS.md is checked
and a violation names its rule (`Violation.rule`); the whole turn is then rejected, nothing moves.
Actions run in order, so a JumpTo is checked from the pose the earlier moves of the turn left.

Parsing is plain string work: the last `Actions: [...]` list of the reply (or, without the
marker, the last bracketed list), split at top-level commas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playbench.tasks.tos.world import ROTATIONS, START, Pose, World, in_fov, items_of, rooms_at, turn

MOVES = ("JumpTo", "Rotate", "Return")
FINALS = ("Observe", "Query", "Term")
CANONICAL = {a.lower(): a for a in MOVES + FINALS}
CHANGE_TYPES = ("position", "orientation")

# rule id -> what the rule says (quoted in feedback)
RULES: dict[str, str] = {
    "action_list": "the reply must contain an action list `Actions: [ <M>* <F> ]`",
    "empty": "the action list must hold at least the final action",
    "unknown_action": "actions are JumpTo(OBJ), Rotate(DEG), Return(), Observe(), Query(OBJ) and Term()",
    "argument": "each action takes exactly its own argument",
    "rotate_degrees": "Rotate takes only 0, 90, -90, 180, 270 or -270 degrees",
    "final_last": "exactly one final action (Observe, Query or Term), and it must be the last action",
    "single_observe": "no more than one Observe() per turn",
    "term_alone": "Term() may appear only alone (or right after Return())",
    "no_jump_first_step": "no JumpTo in the first step",
    "unknown_target": "JumpTo and Query need the name of an object or door of this world",
    "not_observed": "JumpTo and Query targets must have been observed before",
    "not_visible": "a JumpTo target must be visible (in your room and field of view) when you jump",
    "changes_required": 'in this phase answer with Term(changes="object: change_type, ...")',
    "changes_format": 'changes are "object: position|orientation" entries separated by commas',
}


@dataclass(frozen=True)
class Violation:
    rule: str
    detail: str
    unparseable: bool = False

    @property
    def message(self) -> str:
        return f"Invalid action (rule '{self.rule}': {RULES[self.rule]}): {self.detail}"


@dataclass
class Executed:
    """A turn that obeys every rule, with its effect."""

    canonical: str
    moves: list[str]
    final: str  # Observe | Query | Term
    pose: Pose  # the pose after the moves
    target: str | None = None  # the Query target
    changes: list[tuple[str, str]] | None = None  # Term(changes=...) entries
    jumps: int = 0
    notes: list[str] = field(default_factory=list)


def _find_list(text: str) -> str | None:
    """The inside of the last `Actions: [...]` list, else of the last bracketed list."""
    lower = text.lower()
    at = lower.rfind("actions:")
    if at >= 0:
        open_at = text.find("[", at)
        if open_at >= 0:
            inner = _match_bracket(text, open_at)
            if inner is not None:
                return inner
    for open_at in [m.start() for m in re.finditer(r"\[", text)][::-1]:
        inner = _match_bracket(text, open_at)
        if inner is not None:
            return inner
    return None


def _match_bracket(text: str, open_at: int) -> str | None:
    depth, quote = 0, ""
    for i in range(open_at, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : i]
    return None


def split_items(inner: str) -> list[str]:
    """Split at commas outside parentheses and quotes."""
    items, depth, quote, cur = [], 0, "", []
    for ch in inner:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur).strip())
    return items


# one action: a name and one parenthesised argument, which may hold quoted text but no bare
# parentheses (so two actions missing their comma, `JumpTo(sofa) Observe()`, are not one action)
_ITEM = re.compile(r"""^([A-Za-z]+)\s*\(((?:[^()"']|"[^"]*"|'[^']*')*)\)$""", re.S)


def normalize_name(name: str) -> str:
    return " ".join(name.strip().strip("\"'").replace("_", " ").lower().split())


def parse_changes(raw: str) -> list[tuple[str, str]] | None:
    """`object: position, other: orientation` -> [(object, position), ...]; None if malformed."""
    text = raw.strip()
    if not text:
        return []
    out = []
    for entry in text.split(","):
        name, sep, kind = entry.partition(":")
        kind = kind.strip().lower().rstrip(".")
        if not sep or not name.strip() or kind not in CHANGE_TYPES:
            return None
        out.append((normalize_name(name), kind))
    return out


def execute_turn(
    world: World,
    pose: Pose,
    observed: frozenset[str],
    text: str,
    *,
    first_step: bool,
    changes_phase: bool = False,
) -> Executed | Violation:
    """Check `text` against every grammar rule from `pose` and return its effect or the violation."""
    inner = _find_list(text if isinstance(text, str) else str(text))
    if inner is None:
        return Violation("action_list", "no `Actions: [...]` list found in the reply.", unparseable=True)
    raw_items = split_items(inner)
    if not raw_items:
        return Violation("empty", "the action list is empty.")
    parsed: list[tuple[str, str]] = []
    for raw in raw_items:
        m = _ITEM.match(raw)
        if m is None or m.group(1).lower() not in CANONICAL:
            hint = " (separate actions with commas)" if raw.count("(") > 1 else ""
            return Violation("unknown_action", f"'{raw[:60]}' is not an action{hint}.")
        parsed.append((CANONICAL[m.group(1).lower()], m.group(2).strip()))
    names = [p[0] for p in parsed]
    if names.count("Observe") > 1:
        return Violation("single_observe", f"{names.count('Observe')} Observe() actions in one turn.")
    if names[-1] not in FINALS:
        return Violation("final_last", f"the last action is {names[-1]}, not a final action.")
    if any(n in FINALS for n in names[:-1]):
        early = next(n for n in names[:-1] if n in FINALS)
        return Violation("final_last", f"{early} appears before the end of the list.")
    if names[-1] == "Term" and any(n != "Return" for n in names[:-1]):
        return Violation("term_alone", "Term() is combined with other actions.")
    if first_step and "JumpTo" in names:
        return Violation("no_jump_first_step", "this is the first step; observe before jumping.")
    by_name = {it.name: it for it in items_of(world)}
    cur = pose
    moves: list[str] = []
    seen = set(observed)
    jumps = 0
    for kind, arg in parsed[:-1]:
        if kind == "Rotate":
            try:
                deg = int(arg.strip().rstrip("°"))
            except ValueError:
                return Violation("argument", f"Rotate({arg}) needs an integer number of degrees.")
            if deg not in ROTATIONS:
                return Violation("rotate_degrees", f"Rotate({deg}) is not allowed.")
            cur = Pose(cur.x, cur.y, turn(cur.facing, deg))
            moves.append(f"Rotate({deg})")
        elif kind == "Return":
            if arg:
                return Violation("argument", f"Return() takes no argument, got Return({arg}).")
            cur = START
            moves.append("Return()")
        else:  # JumpTo
            target = normalize_name(arg)
            it = by_name.get(target)
            if not target:
                return Violation("argument", "JumpTo() needs an object or door name.")
            if it is None:
                return Violation("unknown_target", f"there is no '{arg}' in this world.")
            if target not in seen:
                return Violation("not_observed", f"'{target}' has not been observed yet.")
            if (it.x, it.y) != (cur.x, cur.y) and not (
                it.rooms & rooms_at(world, cur.x, cur.y) and in_fov(cur, it.x, it.y)
            ):
                return Violation(
                    "not_visible", f"'{target}' is not visible from where you are when you jump."
                )
            cur = Pose(it.x, it.y, cur.facing)
            moves.append(f"JumpTo({target})")
            jumps += 1
    final, arg = parsed[-1]
    result = Executed("", moves, final, cur, jumps=jumps)
    if final == "Observe":
        if arg:
            return Violation("argument", f"Observe() takes no argument, got Observe({arg}).")
        final_text = "Observe()"
    elif final == "Query":
        target = normalize_name(arg)
        if not target:
            return Violation("argument", "Query() needs an object name.")
        if target not in by_name:
            return Violation("unknown_target", f"there is no '{arg}' in this world.")
        if target not in seen:
            return Violation("not_observed", f"'{target}' has not been observed yet.")
        result.target = target
        final_text = f"Query({target})"
    else:
        m = re.fullmatch(r"changes\s*=\s*(\"([^\"]*)\"|'([^']*)')", arg, re.S)
        if changes_phase:
            if m is None:
                return Violation("changes_required", f"got Term({arg[:60]}).")
            changes = parse_changes(m.group(2) if m.group(2) is not None else m.group(3))
            if changes is None:
                return Violation("changes_format", f"cannot read {arg[:80]}.")
            result.changes = changes
            listed = ", ".join(f"{n}: {k}" for n, k in changes)
            final_text = f'Term(changes="{listed}")'
        else:
            if arg:
                return Violation("argument", f"Term() takes no argument in this phase, got Term({arg[:40]}).")
            final_text = "Term()"
    result.canonical = "Actions: [" + ", ".join([*moves, final_text]) + "]"
    return result
