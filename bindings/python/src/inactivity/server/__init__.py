"""The server half: the same engine and policy deciding on the server for every request.

Install with the extra: ``pip install 'inactivity[server]'`` (starlette, uvicorn, redis). The
decision itself is the core's (``decide``: ``inact_server_decide`` over a stored record at the
fleet's wall clock); this package stores the records, serializes each session's decisions
(compare-and-set) and speaks the wire protocol. See docs/server.md.

    from inactivity.server import SessionManager, InactivityMiddleware

    manager = SessionManager("sqlite:sessions.sqlite3", "banking", device_limit=3)
    signed = manager.sign_in("alice", "Firefox on a laptop")     # after the app checked her
    manager.request(signed.session_id).state                       # 'ACTIVE'
    app.add_middleware(InactivityMiddleware, manager=manager)      # Starlette / FastAPI
"""

from __future__ import annotations

from ._core import Decision, Input, decide
from .asgi import InactivityMiddleware, SocketClosed
from .ids import new_session_id, session_handle, valid_session_id
from .manager import DeviceLimitError, Outcome, SessionInfo, SessionManager, SignIn
from .stores import Entry, RedisStore, SQLiteStore, Store, StoreUnavailable, UserView, open_store
from .wire import (
    ABSOLUTE_REMAINING_HEADER,
    DEFAULT_COOKIE,
    EXPOSED_HEADERS,
    IDLE_REMAINING_HEADER,
    MACHINE_HEADER,
    REASON_HEADER,
    STATE_HEADER,
    WireConfig,
    WireRequest,
)
from .wsgi import InactivityWSGIMiddleware

__all__ = [
    "ABSOLUTE_REMAINING_HEADER",
    "DEFAULT_COOKIE",
    "EXPOSED_HEADERS",
    "IDLE_REMAINING_HEADER",
    "MACHINE_HEADER",
    "REASON_HEADER",
    "STATE_HEADER",
    "Decision",
    "DeviceLimitError",
    "Entry",
    "InactivityMiddleware",
    "InactivityWSGIMiddleware",
    "Input",
    "Outcome",
    "RedisStore",
    "SQLiteStore",
    "SessionInfo",
    "SessionManager",
    "SignIn",
    "SocketClosed",
    "Store",
    "StoreUnavailable",
    "UserView",
    "WireConfig",
    "WireRequest",
    "decide",
    "new_session_id",
    "open_store",
    "session_handle",
    "valid_session_id",
]

del annotations
