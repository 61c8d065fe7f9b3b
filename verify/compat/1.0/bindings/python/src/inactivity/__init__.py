"""Inactivity: decides when a user session must warn, lock or expire.

Python binding over the C ABI of libinactivity (ctypes). Quick start::

    from datetime import timedelta
    import inactivity

    policy = inactivity.Policy(idle_timeout=timedelta(minutes=5), warning=30)
    with inactivity.Engine(policy, on_event=print) as engine:
        engine.start()
        engine.activity(inactivity.ActivityKind.KEY)

For tests, ``Engine(clock=inactivity.ManualClock())`` gives an engine whose time moves only
through ``engine.advance(...)``. For asyncio, see ``inactivity.aio.AsyncEngine``.
"""

from __future__ import annotations

from ._lib import LIBRARY_PATH, LIBRARY_VERSION, LIBRARY_VERSION_NUMBER
from ._time import NEVER, Duration
from ._version import __version__
from .engine import ClockReading, Engine, Event, EventCallback, Info, ManualClock, SNAPSHOT_MAX_SIZE
from .enums import (
    ActivityKind,
    ClockKind,
    Delivery,
    EventKind,
    IdleAction,
    Preset,
    Reason,
    RefreshOutcome,
    State,
    Status,
)
from .errors import (
    EngineClosedError,
    InactivityError,
    InvalidArgumentError,
    InvalidHandleError,
    InvalidStateError,
    LimitError,
    NotFoundError,
    SnapshotError,
    WrongClockError,
)
from .policy import Policy

__all__ = [
    "LIBRARY_PATH",
    "LIBRARY_VERSION",
    "LIBRARY_VERSION_NUMBER",
    "NEVER",
    "SNAPSHOT_MAX_SIZE",
    "ActivityKind",
    "ClockKind",
    "ClockReading",
    "Delivery",
    "Duration",
    "Engine",
    "EngineClosedError",
    "Event",
    "EventCallback",
    "EventKind",
    "IdleAction",
    "InactivityError",
    "Info",
    "InvalidArgumentError",
    "InvalidHandleError",
    "InvalidStateError",
    "LimitError",
    "ManualClock",
    "NotFoundError",
    "Policy",
    "Preset",
    "Reason",
    "RefreshOutcome",
    "SnapshotError",
    "State",
    "Status",
    "WrongClockError",
    "__version__",
]
