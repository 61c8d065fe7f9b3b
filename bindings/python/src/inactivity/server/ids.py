"""Session ids: a routing tag and 256 random bits from ``secrets``, checked for form before any
store access.

An id is 51 characters of the URL-safe base64 alphabet: an 8-character routing tag (48 bits), then
43 characters of 32 random bytes (unpadded, in the canonical form: the last character carries 4
bits and 2 zero bits). The tag names where the store keeps the user's sessions (Redis: the key of
the user's hash, hence the Cluster's slot), so that a request, which brings only the id, costs one
read and no lookup from the id to its user. A store that routes by user derives the tag from the
user with a keyed hash (``routing_tag``): the id does not reveal the user's name, and only the
store's key gives a user's tag. Stores that need no routing (SQLite) use a random tag.

The tag decides nothing: the random part is what identifies the session, and the stored session
names its user, which the store checks against the tag. A forged tag addresses another place,
where no session has this random part; the id is unknown there.

Anything not of this form (a missing, longer, shorter, foreign-alphabet or non-canonical id) is
refused before it reaches a store, so a forged or oversized id costs no store access and creates
nothing; the caller answers it like an expired session.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from typing import Optional

__all__ = ["SESSION_ID_LENGTH", "TAG_LENGTH", "new_session_id", "routing_tag", "session_handle", "valid_session_id"]

#: The length of a routing tag: 6 bytes (48 bits) in URL-safe base64.
TAG_LENGTH = 8
#: The length of a session id: the tag, then 32 random bytes in unpadded URL-safe base64.
SESSION_ID_LENGTH = TAG_LENGTH + 43
# The 43rd character of 32 bytes in base64 holds their last 4 bits and 2 zero bits: only these
# 16 are canonical (another one would name the same 32 bytes by a second id).
_FORM = re.compile(r"[A-Za-z0-9_-]{50}[AEIMQUYcgkosw048]")
_TAG = re.compile(r"[A-Za-z0-9_-]{8}")
_HANDLE = re.compile(r"[A-Za-z0-9_-]{22}")


def routing_tag(key: bytes, user: str) -> str:
    """The routing tag of `user` under the store's `key`: the first 48 bits of
    HMAC-SHA-256(key, user), in URL-safe base64. Users may share a tag (the stores check the
    user of every session they read); with a secret key, a tag names no user."""
    digest = hmac.digest(key, user.encode("utf-8"), "sha256")
    return base64.urlsafe_b64encode(digest[:6]).decode("ascii")


def new_session_id(tag: Optional[str] = None) -> str:
    """A fresh session id: `tag` (8 URL-safe base64 characters; a random one when None), then
    256 bits from the operating system's CSPRNG."""
    if tag is None:
        tag = secrets.token_urlsafe(6)
    elif not isinstance(tag, str) or _TAG.fullmatch(tag) is None:
        raise ValueError(f"tag ({tag!r}) must be {TAG_LENGTH} characters of the URL-safe base64 alphabet")
    return tag + secrets.token_urlsafe(32)


def valid_session_id(value: Optional[str]) -> bool:
    """True when `value` has the form of a session id (it may still be unknown)."""
    return isinstance(value, str) and _FORM.fullmatch(value) is not None


_URLSAFE = bytes.maketrans(b"-_", b"+/")
_a2b = binascii.a2b_base64


def session_secret(session_id: str) -> bytes:
    """The 32 random bytes of a valid session id (what names the session in a store)."""
    # base64.urlsafe_b64decode, without its layers (half the time; a request reads one).
    return _a2b(session_id[TAG_LENGTH:].encode("ascii").translate(_URLSAFE) + b"=")


def session_handle(session_id: str) -> str:
    """The public name of a session in the sessions list (22 characters).

    A list shows the user's other sessions; their ids are bearer secrets, so the list names them
    by a one-way digest instead: one stolen session cannot read the others' ids from the list."""
    digest = hashlib.sha256(b"inactivity-session-handle\0" + session_id.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")


def valid_handle(value: Optional[str]) -> bool:
    """True when `value` has the form of a session handle."""
    return isinstance(value, str) and _HANDLE.fullmatch(value) is not None
