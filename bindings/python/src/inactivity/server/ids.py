"""Session ids: 256 random bits from ``secrets``, checked for form before any store access.

An id is 43 characters of the URL-safe base64 alphabet (32 bytes, no padding). Anything else (a
missing, longer, shorter or foreign-alphabet id) is refused before it reaches a store, so a forged
or oversized id costs no store access and creates nothing; the caller answers it like an expired
session.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from typing import Optional

__all__ = ["SESSION_ID_LENGTH", "new_session_id", "session_handle", "valid_session_id"]

#: The length of a session id: 32 random bytes in unpadded URL-safe base64.
SESSION_ID_LENGTH = 43
_FORM = re.compile(r"[A-Za-z0-9_-]{43}")
_HANDLE = re.compile(r"[A-Za-z0-9_-]{22}")


def new_session_id() -> str:
    """A fresh session id: 256 bits from the operating system's CSPRNG."""
    return secrets.token_urlsafe(32)


def valid_session_id(value: Optional[str]) -> bool:
    """True when `value` has the form of a session id (it may still be unknown)."""
    return isinstance(value, str) and _FORM.fullmatch(value) is not None


def session_handle(session_id: str) -> str:
    """The public name of a session in the sessions list (22 characters).

    A list shows the user's other sessions; their ids are bearer secrets, so the list names them
    by a one-way digest instead: one stolen session cannot read the others' ids from the list."""
    digest = hashlib.sha256(b"inactivity-session-handle\0" + session_id.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode("ascii").rstrip("=")


def valid_handle(value: Optional[str]) -> bool:
    """True when `value` has the form of a session handle."""
    return isinstance(value, str) and _HANDLE.fullmatch(value) is not None
