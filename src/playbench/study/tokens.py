"""Secrets of a study: participant links and the admin secret (stored only as SHA-256 digests and compared
in constant time), and the CSRF tokens bound to them."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

TOKEN_BYTES = 24  # 192 bits: 32 URL-safe characters
ADMIN_BYTES = 32
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,128}")


def new_token(nbytes: int = TOKEN_BYTES) -> str:
    return secrets.token_urlsafe(nbytes)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def well_formed(token: str | None) -> bool:
    """A string that could be a token (checked before hashing, so junk costs nothing)."""
    return bool(token) and TOKEN_SHAPE.fullmatch(token or "") is not None


def match(token: str | None, hashes: dict[str, str]) -> str | None:
    """The name whose stored digest is the token's, or None. Every stored digest is compared with
    `hmac.compare_digest`, whether or not an earlier one matched, so the time taken does not say which
    (or whether one) matched."""
    if not well_formed(token):
        return None
    presented = digest(token or "")
    found = None
    for name, stored in hashes.items():
        if hmac.compare_digest(presented, stored):
            found = name
    return found


def csrf_token(key: str, subject: str) -> str:
    """The CSRF token of a signed-in subject (a participant's or the admin's digest): an HMAC under the
    study's own key, so it survives restarts and a page of one subject is useless to another."""
    return hmac.new(bytes.fromhex(key), f"csrf|{subject}".encode(), hashlib.sha256).hexdigest()


def csrf_ok(key: str, subject: str, presented: str | None) -> bool:
    return hmac.compare_digest(csrf_token(key, subject), presented or "")
