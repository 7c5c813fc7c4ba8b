"""A persistent response cache, so re-running an evaluation does not pay for the same call twice."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from os import PathLike
from pathlib import Path
from typing import Any

from playbench.core.types import ImagePart, TextPart, Usage
from playbench.models.base import ChatModel, GenerationParams, Message, ModelResponse, reply_error

# Bump when the key recipe changes, so old entries are simply never hit instead of being misread.
_KEY_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cost REAL,
    created REAL NOT NULL
)
"""


def cache_key(spec: str, messages: list[Message], params: GenerationParams) -> str:
    """sha256 over the spec, the messages and the generation params.

    Images enter by the sha256 of their PNG bytes (the same picture always gives the same key, and
    the key material stays small); an image's label is not part of the key because it never
    reaches the model.
    """
    wire_messages: list[dict[str, Any]] = []
    for m in messages:
        parts: list[dict[str, str]] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append({"text": p.text})
            elif isinstance(p, ImagePart):
                part = {"image_sha256": hashlib.sha256(p.png).hexdigest()}
                # how it is sent is part of the request (only where not the default, so keys made
                # before these settings existed still hit)
                if p.send_as != "png":
                    part["send_as"] = p.send_as
                if p.detail is not None:
                    part["detail"] = p.detail
                parts.append(part)
            else:  # pragma: no cover - Part is a closed union today
                raise TypeError(f"cannot cache a message part of type {type(p).__name__}")
        wire_messages.append({"role": m.role, "parts": parts})
    material = {"v": _KEY_VERSION, "spec": spec, "messages": wire_messages, "params": params.to_dict()}
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """SQLite-backed cache of model responses.

    One instance can be shared by every model of a process and used from many asyncio tasks (a
    lock serialises access to the connection); several processes can share one file (WAL journal,
    busy timeout). The connection is reopened after a fork, because sqlite connections must not
    cross process boundaries.
    """

    def __init__(self, path: str | PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        with self._lock:
            self._connection()  # fail now, with a clear message, if the path is unusable

    key = staticmethod(cache_key)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread=False: access goes through self._lock, and the async helpers run the
        # queries in worker threads so the event loop never waits on disk or on another process.
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(_SCHEMA)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
        if "finish_reason" not in columns:  # a cache file made before finish reasons were kept
            conn.execute("ALTER TABLE responses ADD COLUMN finish_reason TEXT")
        conn.commit()
        self._conn, self._pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> ModelResponse | None:
        """The cached response for `key` as a cache hit: no tokens, no cost, `cached_calls=1`."""
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT text, finish_reason FROM responses WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        return ModelResponse(
            text=row[0], usage=Usage(calls=0, cached_calls=1, cost=0.0), cached=True, finish_reason=row[1]
        )

    def get_original_usage(self, key: str) -> Usage | None:
        """What the call cost when it was really made (for reports of money saved)."""
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT input_tokens, output_tokens, cost FROM responses WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        return Usage(input_tokens=row[0] or 0, output_tokens=row[1] or 0, calls=1, cost=row[2])

    def put(self, key: str, spec: str, response: ModelResponse) -> None:
        u = response.usage
        with self._lock:
            conn = self._connection()
            conn.execute(
                "INSERT OR REPLACE INTO responses"
                " (key, spec, text, input_tokens, output_tokens, cost, created, finish_reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    spec,
                    response.text,
                    u.input_tokens,
                    u.output_tokens,
                    u.cost,
                    time.time(),
                    response.finish_reason,
                ),
            )
            conn.commit()

    async def aget(self, key: str) -> ModelResponse | None:
        return await asyncio.to_thread(self.get, key)

    async def aput(self, key: str, spec: str, response: ModelResponse) -> None:
        await asyncio.to_thread(self.put, key, spec, response)

    def __len__(self) -> int:
        with self._lock:
            return self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # Executors may ship the cache to worker processes: send the path, reopen there.
    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "busy_timeout": self.busy_timeout}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], busy_timeout=state["busy_timeout"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"


class CachedModel(ChatModel):
    """Puts a ResponseCache in front of any ChatModel; `make_model` wraps every provider with it.

    A hit skips the wrapped model entirely (no HTTP request, no concurrency slot). Failed calls, refusals
    and empty replies cut by their budget are never cached.
    """

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.cache = cache
        self.provider = inner.provider

    async def generate(self, messages: list[Message], params: GenerationParams) -> ModelResponse:
        key = cache_key(self.spec, messages, params)
        hit = await self.cache.aget(key)
        if hit is not None:
            return hit
        response = await self.inner.generate(messages, params)
        # a refusal or an empty reply cut by its budget is not an answer: asking again may do better
        if reply_error(response, self.spec) is None:
            await self.cache.aput(key, self.spec, response)
        return response

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "cache": str(self.cache.path)}

    async def aclose(self) -> None:
        await self.inner.aclose()
