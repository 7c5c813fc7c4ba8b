"""Prop chains: the JSON that says what a room's exit needs and how the props lead to it.

A chain is the original's level format (FACTS.md): the exit has an unlock method (`interact`,
`key` or `password`, with the id of the item that opens it) and every item has an `id`, a `type`
(`box`, `key`, `paper`, `password`), an optional `unlock_method` (boxes), `contents` (what a box
holds, or the passwords written on a paper) and `show` (whether it stands in the room by itself;
hidden items live inside a box or a paper). Our additions, all optional: `value` of a password
(random 4 digits when omitted), `text` of a paper, `story: true` on the paper that carries the
level's background story, and a chain-level `story`, `name` and `description`.

`parse_chain` checks a chain completely and names the first problem precisely (which item, which
field, what was expected); `load_chain_file` reads one chain or `{"rooms": [chain, ...]}`.
"""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

ITEM_TYPES: tuple[str, ...] = ("box", "key", "paper", "password")
EXIT_UNLOCKS: tuple[str, ...] = ("interact", "key", "password")
BOX_UNLOCKS: tuple[str, ...] = ("none", "key", "password")
LEVELS: tuple[str, ...] = ("level-1", "level-2", "level-3-note-key", "level-3-key-note")
ID_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]{0,31}$")
PASSWORD_PATTERN = re.compile(r"^[0-9]{1,12}$")
MAX_ITEMS = 12  # per room: more visible props than this do not fit on the furniture
MAX_ROOMS = 4
MAX_TEXT = 2000

_TOP_KEYS = {"name", "description", "story", "exit", "items"}
_ITEM_KEYS = {"id", "type", "unlock_method", "contents", "show", "text", "story", "value"}


class ChainError(ValueError):
    """A chain that cannot be played, with a message naming the problem."""


class UnlockMethod(BaseModel):
    type: Literal["interact", "none", "key", "password"]
    id: str | None = None


class ChainItem(BaseModel):
    id: str
    type: Literal["box", "key", "paper", "password"]
    unlock_method: UnlockMethod | None = None
    contents: list[str] = Field(default_factory=list)
    show: bool = True
    text: str | None = None
    story: bool = False
    value: str | None = None  # a password's digits


class ExitSpec(BaseModel):
    unlock_method: UnlockMethod


class Chain(BaseModel):
    name: str = "custom"
    description: str = ""
    story: str | None = None
    exit: ExitSpec
    items: list[ChainItem] = Field(default_factory=list)

    def item(self, item_id: str) -> ChainItem:
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(item_id)

    def by_id(self) -> dict[str, ChainItem]:
        return {it.id: it for it in self.items}

    def story_text(self) -> str | None:
        """The level's background story: what its story papers say (or the chain's own story)."""
        texts = [it.text for it in self.items if it.story and it.text]
        return "\n".join(texts) if texts else self.story

    def props(self) -> list[str]:
        """What prop gain counts: every item except passwords (knowledge, not objects), and the exit."""
        return [it.id for it in self.items if it.type != "password"] + ["exit"]


# --- validation ----------------------------------------------------------------------------


def _fail(where: str, message: str) -> None:
    raise ChainError(f"{where}: {message}")


def _unlock(raw: Any, where: str, allowed: tuple[str, ...]) -> UnlockMethod:
    if not isinstance(raw, dict):
        _fail(where, f'unlock_method must be an object like {{"type": "key", "id": "key_1"}}, got {raw!r}')
    extra = set(raw) - {"type", "id"}
    if extra:
        _fail(where, f"unlock_method has unknown key(s) {', '.join(sorted(extra))} (accepted: type, id)")
    kind = raw.get("type")
    if kind not in allowed:
        _fail(where, f"unlock_method.type must be one of {', '.join(allowed)}, got {kind!r}")
    ident = raw.get("id")
    if kind in ("key", "password"):
        if not isinstance(ident, str) or not ident:
            _fail(where, f"unlock_method of type {kind!r} needs the id of the {kind} item that opens it")
    elif ident is not None:
        _fail(where, f"unlock_method of type {kind!r} takes no id (got {ident!r})")
    return UnlockMethod(type=kind, id=ident)


def _item(raw: Any, index: int, where: str) -> ChainItem:
    at = f"{where}: items[{index}]"
    if not isinstance(raw, dict):
        _fail(at, f"each item must be an object, got {type(raw).__name__}")
    extra = set(raw) - _ITEM_KEYS
    if extra:
        _fail(at, f"unknown key(s) {', '.join(sorted(extra))} (accepted: {', '.join(sorted(_ITEM_KEYS))})")
    ident = raw.get("id")
    if not isinstance(ident, str) or not ID_PATTERN.match(ident):
        _fail(at, f"id must be a letter followed by up to 31 letters, digits, '_' or '-', got {ident!r}")
    if ident == "exit":
        _fail(at, "the id 'exit' is reserved for the room's exit")
    at = f"{where}: item '{ident}'"
    kind = raw.get("type")
    if kind not in ITEM_TYPES:
        _fail(at, f"type must be one of {', '.join(ITEM_TYPES)}, got {kind!r}")
    show = raw.get("show", True)
    if not isinstance(show, bool):
        _fail(at, f"show must be true or false, got {show!r}")
    contents = raw.get("contents", [])
    if contents is None:
        contents = []
    if not isinstance(contents, list) or not all(isinstance(c, str) for c in contents):
        _fail(at, f"contents must be a list of item ids, got {contents!r}")
    if len(set(contents)) != len(contents):
        _fail(at, "contents lists an item twice")
    unlock = None
    if raw.get("unlock_method") is not None:
        if kind != "box":
            _fail(at, f"only boxes have an unlock_method; a {kind} is not locked")
        unlock = _unlock(raw["unlock_method"], at, BOX_UNLOCKS)
    if kind in ("key", "password") and contents:
        _fail(at, f"a {kind} cannot contain other items")
    text = raw.get("text")
    if text is not None and (not isinstance(text, str) or len(text) > MAX_TEXT):
        _fail(at, f"text must be a string of at most {MAX_TEXT} characters")
    story = raw.get("story", False)
    if not isinstance(story, bool):
        _fail(at, f"story must be true or false, got {story!r}")
    if (story or text is not None) and kind != "paper":
        _fail(at, "only papers carry text or the story")
    value = raw.get("value")
    if value is not None:
        if kind != "password":
            _fail(at, "only passwords have a value")
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not PASSWORD_PATTERN.match(value):
            _fail(at, f"a password value must be 1 to 12 digits, got {value!r}")
    return ChainItem(
        id=ident,
        type=kind,
        unlock_method=unlock,
        contents=list(contents),
        show=show,
        text=text,
        story=story,
        value=value,
    )


def parse_chain(data: Any, where: str = "chain") -> Chain:
    """Check raw chain JSON (already decoded) and return it as a `Chain`; `ChainError` names the problem."""
    if not isinstance(data, dict):
        _fail(where, f"a chain must be a JSON object with 'exit' and 'items', got {type(data).__name__}")
    extra = set(data) - _TOP_KEYS
    if extra:
        _fail(where, f"unknown key(s) {', '.join(sorted(extra))} (accepted: {', '.join(sorted(_TOP_KEYS))})")
    for key in ("name", "description", "story"):
        if data.get(key) is not None and (not isinstance(data[key], str) or len(data[key]) > MAX_TEXT):
            _fail(where, f"{key} must be a string of at most {MAX_TEXT} characters")
    exit_raw = data.get("exit")
    if not isinstance(exit_raw, dict) or "unlock_method" not in exit_raw:
        _fail(
            where,
            '\'exit\' must be an object with an unlock_method, e.g. {"unlock_method": {"type": "interact"}}',
        )
    if set(exit_raw) - {"unlock_method"}:
        _fail(where, f"exit has unknown key(s) {', '.join(sorted(set(exit_raw) - {'unlock_method'}))}")
    exit_unlock = _unlock(exit_raw["unlock_method"], f"{where}: exit", EXIT_UNLOCKS)
    raw_items = data.get("items", [])
    if not isinstance(raw_items, list):
        _fail(where, f"'items' must be a list, got {type(raw_items).__name__}")
    if len(raw_items) > MAX_ITEMS:
        _fail(where, f"at most {MAX_ITEMS} items fit in one room, got {len(raw_items)}")
    items = [_item(raw, i, where) for i, raw in enumerate(raw_items)]
    chain = Chain(
        name=data.get("name") or "custom",
        description=data.get("description") or "",
        story=data.get("story"),
        exit=ExitSpec(unlock_method=exit_unlock),
        items=items,
    )
    _check_links(chain, where)
    return chain


def _check_links(chain: Chain, where: str) -> None:
    by_id: dict[str, ChainItem] = {}
    for it in chain.items:
        if it.id in by_id:
            _fail(where, f"item id '{it.id}' is used twice")
        by_id[it.id] = it
    holder: dict[str, str] = {}
    for it in chain.items:
        for content in it.contents:
            inner = by_id.get(content)
            if inner is None:
                _fail(where, f"item '{it.id}' contains '{content}', which is not an item of this chain")
            if content == it.id:
                _fail(where, f"item '{it.id}' contains itself")
            if it.type == "box" and inner.type not in ("key", "paper"):
                _fail(where, f"box '{it.id}' may hold keys and papers, not the {inner.type} '{content}'")
            if it.type == "paper" and inner.type != "password":
                _fail(where, f"paper '{it.id}' may only carry passwords, not the {inner.type} '{content}'")
            if content in holder:
                _fail(where, f"item '{content}' is inside both '{holder[content]}' and '{it.id}'")
            holder[content] = it.id
    for it in chain.items:
        if it.id in holder and it.show:
            _fail(where, f"item '{it.id}' is inside '{holder[it.id]}', so it must have \"show\": false")
        if it.id not in holder and not it.show:
            if it.type == "password":
                _fail(where, f"password '{it.id}' is written on no paper: list it in a paper's contents")
            _fail(
                where,
                f"item '{it.id}' is hidden (\"show\": false) but no box holds it, so it can never be found",
            )
        if it.type == "password" and it.show:
            _fail(where, f"password '{it.id}' cannot stand in the room by itself: write it on a paper")
    locks = [(f"box '{it.id}'", it.unlock_method) for it in chain.items if it.unlock_method is not None]
    locks.append(("the exit", chain.exit.unlock_method))
    for owner, method in locks:
        if method.type in ("key", "password"):
            target = by_id.get(method.id or "")
            if target is None:
                _fail(where, f"{owner} needs {method.type} '{method.id}', which is not an item of this chain")
            if target.type != method.type:
                _fail(where, f"{owner} needs a {method.type}, but '{method.id}' is a {target.type}")
    order, obtainable = solution_order(chain)
    if "exit" not in order:
        need = chain.exit.unlock_method
        missing = sorted(i for i in by_id if i not in obtainable)
        _fail(
            where,
            f"the exit can never be opened: it needs {need.type} '{need.id}', which cannot be obtained "
            f"(never obtainable: {', '.join(missing) or 'none'})",
        )
    unreachable = sorted(i for i in by_id if i not in obtainable)
    if unreachable:
        _fail(
            where,
            f"item(s) {', '.join(unreachable)} can never be obtained (locked in a loop or behind a missing key)",
        )


def solution_order(chain: Chain) -> tuple[list[str], set[str]]:
    """A deterministic order of the interactions that escape (ids of the visible items to pick
    up and the boxes to open, then "exit"), and the set of every item that can be obtained.

    Only what the exit needs is in the order; decoys that lead nowhere are left out.
    """
    by_id = chain.by_id()
    holder = {c: it.id for it in chain.items for c in it.contents}

    def needed_for(method: UnlockMethod | None) -> list[str]:
        return [method.id] if method is not None and method.id else []

    # What must be done: walk back from the exit through keys, passwords and their containers.
    required: set[str] = set()
    frontier = needed_for(chain.exit.unlock_method)
    while frontier:
        ident = frontier.pop()
        if ident in required or ident not in by_id:
            continue
        required.add(ident)
        if ident in holder:
            frontier.append(holder[ident])
        frontier += needed_for(by_id[ident].unlock_method)

    obtained: set[str] = set()
    opened: set[str] = set()
    order: list[str] = []

    def has(method: UnlockMethod | None) -> bool:
        return method is None or method.type in ("none", "interact") or (method.id in obtained)

    progress = True
    while progress:
        progress = False
        for it in chain.items:  # file order keeps the result deterministic and readable
            if it.show and it.type in ("key", "paper") and it.id not in obtained:
                obtained.add(it.id)
                obtained.update(it.contents)
                if it.id in required:
                    order.append(it.id)
                progress = True
            elif it.type == "box" and it.id not in opened and has(it.unlock_method):
                opened.add(it.id)
                obtained.add(it.id)
                for c in it.contents:
                    obtained.add(c)
                    obtained.update(by_id[c].contents)
                if it.id in required:
                    order.append(it.id)
                progress = True
    if has(chain.exit.unlock_method):
        order.append("exit")
    return order, obtained


def key_props(chain: Chain) -> list[str]:
    """The props prop gain counts (the paper's definition): the keys and the notes with a password
    that the way out needs, in chain order. Level 1 has none, level 2 its key, level 3 the key and
    the password note (not the boxes, the story note or the exit)."""
    by_id = chain.by_id()
    holder = {c: it.id for it in chain.items for c in it.contents}
    needed: set[str] = set()
    frontier = [chain.exit.unlock_method.id]
    while frontier:
        ident = frontier.pop()
        if not ident or ident in needed or ident not in by_id:
            continue
        needed.add(ident)
        if ident in holder:  # the box that holds a key, the paper that carries a password
            frontier.append(holder[ident])
        method = by_id[ident].unlock_method
        if method is not None and method.id:
            frontier.append(method.id)
    return [it.id for it in chain.items if it.id in needed and it.type in ("key", "paper")]


# --- files and built-in levels -------------------------------------------------------------


def _read_json_text(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ChainError(
            f"{where}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def parse_rooms(data: Any, where: str) -> list[Chain]:
    """One chain, or `{"rooms": [chain, ...]}` for rooms escaped in order (item ids unique across rooms)."""
    if isinstance(data, dict) and "rooms" in data:
        if set(data) - {"rooms", "name", "description"}:
            _fail(where, "a multi-room file has only 'rooms' (and optionally 'name', 'description')")
        rooms = data["rooms"]
        if not isinstance(rooms, list) or not 1 <= len(rooms) <= MAX_ROOMS:
            _fail(where, f"'rooms' must be a list of 1 to {MAX_ROOMS} chains")
        chains = [parse_chain(room, f"{where}: room {k + 1}") for k, room in enumerate(rooms)]
        seen: dict[str, int] = {}
        for k, chain in enumerate(chains):
            for it in chain.items:
                if it.id in seen:
                    _fail(
                        where,
                        f"item id '{it.id}' is used in room {seen[it.id] + 1} and room {k + 1}; ids must differ",
                    )
                seen[it.id] = k
        return chains
    return [parse_chain(data, where)]


def load_chain_file(path: str | Path) -> list[Chain]:
    """Read a user's chain file (the path comes from the run's configuration, never from a model)."""
    p = Path(path)
    where = f"chain file {str(p)!r}"
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ChainError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ChainError(f"{where}: cannot be read: {exc}") from None
    return parse_rooms(_read_json_text(text, where), where)


@lru_cache(maxsize=8)
def builtin_chain(level: str) -> Chain:
    if level not in LEVELS:
        raise ChainError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
    text = resources.files("playbench.tasks.mmescape.levels").joinpath(f"{level}.json").read_text("utf-8")
    return parse_chain(_read_json_text(text, f"level {level}"), f"level {level}")


@lru_cache(maxsize=1)
def stories() -> tuple[str, ...]:
    text = resources.files("playbench.tasks.mmescape.levels").joinpath("stories.json").read_text("utf-8")
    return tuple(json.loads(text))


# --- instances of a chain ------------------------------------------------------------------

_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def renumber(chain: Chain, taken: set[str]) -> Chain:
    """The chain with ids already used by earlier rooms replaced by the next free number of the
    same stem (`key_1` -> `key_2`), references included, so a bag can hold both rooms' items."""
    mapping: dict[str, str] = {}
    used = set(taken) | {it.id for it in chain.items}
    for it in chain.items:
        if it.id in taken:
            m = _NUMBERED.match(it.id)
            stem, n = (m.group(1), int(m.group(2))) if m else (it.id + "_", 1)
            candidate = f"{stem}{n}"
            while candidate in used:
                n += 1
                candidate = f"{stem}{n}"
            mapping[it.id] = candidate
            used.add(candidate)
    if not mapping:
        return chain

    def re_id(ident: str | None) -> str | None:
        return mapping.get(ident, ident) if ident is not None else None

    def re_unlock(method: UnlockMethod | None) -> UnlockMethod | None:
        return None if method is None else UnlockMethod(type=method.type, id=re_id(method.id))

    items = [
        it.model_copy(
            update={
                "id": re_id(it.id),
                "contents": [re_id(c) for c in it.contents],
                "unlock_method": re_unlock(it.unlock_method),
            }
        )
        for it in chain.items
    ]
    exit_unlock = re_unlock(chain.exit.unlock_method)
    assert exit_unlock is not None
    return chain.model_copy(update={"items": items, "exit": ExitSpec(unlock_method=exit_unlock)})


NOTE_PHRASES: tuple[str, ...] = (
    "Remember the code: {code}",
    "The lock answers to {code}",
    "Code {code}. Do not forget it.",
    "Four numbers open the way: {code}",
)


def realise(chain: Chain, rng: random.Random) -> Chain:
    """Fill what a chain leaves open for each instance: password digits (4 random digits), the
    story of story papers (from the shipped pool), and the wording of password notes."""
    values: dict[str, str] = {}
    items: list[ChainItem] = []
    for it in chain.items:
        if it.type == "password":
            value = it.value if it.value is not None else f"{rng.randrange(10_000):04d}"
            values[it.id] = value
            items.append(it.model_copy(update={"value": value}))
        else:
            items.append(it)
    story = chain.story
    if story is None and any(it.story and not it.text for it in items):
        story = rng.choice(stories())
    out: list[ChainItem] = []
    for it in items:
        if it.type == "paper":
            text = it.text
            if it.story and not text:
                text = story
            codes = [values[c] for c in it.contents if c in values]
            if codes:
                phrase = rng.choice(NOTE_PHRASES)
                code_text = " ".join(phrase.format(code=c) for c in codes)
                text = f"{text}\n{code_text}" if text else code_text
            it = it.model_copy(update={"text": text or "(blank)"})
        out.append(it)
    return chain.model_copy(update={"items": out, "story": story})
