"""Who is asking: a participant (the `pb_study` cookie holds their link token, set when the link is
opened), the admin (`pb_admin`, set by the sign-in form), or nobody. Tokens are looked up by digest
with `tokens.match` (constant time); access.json is re-read when it changes (`playbench study link`).
Every POST carries a CSRF token bound to its sender (`tokens.csrf_token`); the admin sign-in form, sent
before anyone is signed in, binds its token to a random `pb_pre` cookie (double submit)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import Depends, Request

from playbench.study import tokens
from playbench.study.config import ACCESS_FILE, Study, load_study

PARTICIPANT_COOKIE = "pb_study"
ADMIN_COOKIE = "pb_admin"
PRE_COOKIE = "pb_pre"
COOKIE_DAYS = 60
MAX_FIELDS = 50


class Denied(Exception):
    """A request without the right credentials; `failed` marks a wrong secret (counted per address)."""

    def __init__(self, status: int, title: str, message: str, failed: bool = False) -> None:
        super().__init__(message)
        self.status, self.title, self.message, self.failed = status, title, message, failed


@dataclass
class Limits:
    rate: float = 5.0  # requests per second, sustained, per person or per address
    burst: int = 120  # requests at once
    failures: int = 20  # wrong secrets from one address ...
    failure_window_s: float = 600.0  # ... within this many seconds block it for the rest of the window
    max_keys: int = 20_000  # buckets kept (the oldest are dropped first)


class RateLimiter:
    """Token buckets per key, and wrong-secret counts per client address."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.buckets: dict[str, tuple[float, float]] = {}
        self.failures: dict[str, list[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        level, then = self.buckets.get(key, (float(self.limits.burst), now))
        level = min(float(self.limits.burst), level + (now - then) * self.limits.rate)
        if len(self.buckets) >= self.limits.max_keys and key not in self.buckets:
            for old in list(self.buckets)[: self.limits.max_keys // 10]:
                del self.buckets[old]
        if level < 1.0:
            self.buckets[key] = (level, now)
            return False
        self.buckets[key] = (level - 1.0, now)
        return True

    def _recent(self, address: str) -> list[float]:
        cutoff = time.monotonic() - self.limits.failure_window_s
        recent = [t for t in self.failures.get(address, []) if t > cutoff]
        if recent:
            self.failures[address] = recent
        else:
            self.failures.pop(address, None)
        return recent

    def fail(self, address: str) -> None:
        if len(self.failures) >= self.limits.max_keys and address not in self.failures:
            self.failures.pop(next(iter(self.failures)))
        self.failures.setdefault(address, []).append(time.monotonic())

    def blocked(self, address: str) -> bool:
        return len(self._recent(address)) >= self.limits.failures

    def blocked_message(self, address: str) -> str:
        recent = self._recent(address)
        wait = (
            max(1, round((recent[0] + self.limits.failure_window_s - time.monotonic()) / 60)) if recent else 1
        )
        return f"Too many wrong links or secrets from your address; try again in about {wait} minute(s)."


class AccessCache:
    """access.json, re-read when its modification time changes."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.stamp = self._stamp()

    def _stamp(self) -> float:
        try:
            return (self.study.dir / ACCESS_FILE).stat().st_mtime_ns
        except OSError:
            return 0

    def current(self) -> dict[str, Any]:
        stamp = self._stamp()
        if stamp != self.stamp:
            self.study.access = load_study(self.study.dir).access
            self.stamp = stamp
        return self.study.access

    def participant(self, request: Request) -> tuple[str, str] | None:
        """(pseudonym, digest) of the participant whose link token the request's cookie holds."""
        token = request.cookies.get(PARTICIPANT_COOKIE)
        return self.lookup(token)

    def lookup(self, token: str | None) -> tuple[str, str] | None:
        name = tokens.match(token, self.current()["participants"])
        return (name, tokens.digest(token or "")) if name else None

    def admin(self, request: Request) -> tuple[str, str] | None:
        token = request.cookies.get(ADMIN_COOKIE)
        return self.check_admin(token)

    def check_admin(self, token: str | None) -> tuple[str, str] | None:
        found = tokens.match(token, {"admin": self.current()["admin"]})
        return ("admin", tokens.digest(token or "")) if found else None

    def key(self) -> str:
        return str(self.current()["key"])


@dataclass
class Person:
    """A signed-in participant or the admin, with the CSRF token of their forms."""

    name: str
    digest: str
    csrf: str


async def _person(request: Request, admin: bool) -> Person:
    access: AccessCache = request.app.state.access
    cookie = ADMIN_COOKIE if admin else PARTICIPANT_COOKIE
    found = access.admin(request) if admin else access.participant(request)
    if found is None:
        wrong = request.cookies.get(cookie) is not None  # a cookie that names no one: a guess, or replaced
        if admin:
            raise Denied(
                401, "Sign in", "This page is for the study's admin: sign in at /admin/login.", wrong
            )
        raise Denied(401, "Your link is needed", "Open your personal study link to take part.", wrong)
    name, digest = found
    return Person(name, digest, tokens.csrf_token(access.key(), digest))


async def participant(request: Request) -> Person:
    return await _person(request, admin=False)


async def admin(request: Request) -> Person:
    return await _person(request, admin=True)


async def read_form(request: Request) -> dict[str, str]:
    """A URL-encoded form (first value of each field); anything else is refused."""
    body = await request.body()
    ctype = request.headers.get("content-type", "")
    if body and "application/x-www-form-urlencoded" not in ctype:
        raise Denied(415, "Unsupported", "Forms must be sent URL-encoded.")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise Denied(400, "Bad request", "The form could not be read.") from None
    return {key: values[0] for key, values in parsed.items()}


async def participant_csrf(
    request: Request, person: Annotated[Person, Depends(participant)]
) -> dict[str, str]:
    """The form of a participant's POST, once its CSRF token is checked."""
    return await _checked_form(request, person)


async def admin_csrf(request: Request, person: Annotated[Person, Depends(admin)]) -> dict[str, str]:
    return await _checked_form(request, person)


async def _checked_form(request: Request, person: Person) -> dict[str, str]:
    form = await read_form(request)
    access: AccessCache = request.app.state.access
    if not tokens.csrf_ok(access.key(), person.digest, form.get("csrf")):
        raise Denied(
            403, "Refused", "This form is out of date or was not sent from this study's page; reload it."
        )
    return form


def set_cookie(response: Any, request: Request, name: str, value: str, days: float = COOKIE_DAYS) -> None:
    response.set_cookie(
        name,
        value,
        max_age=int(days * 86400),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


Participant = Annotated[Person, Depends(participant)]
Admin = Annotated[Person, Depends(admin)]
ParticipantForm = Annotated[dict[str, str], Depends(participant_csrf)]
AdminForm = Annotated[dict[str, str], Depends(admin_csrf)]
