"""The engine's enumerations, value for value as in include/inactivity.h.

A test parses the header and compares, so these cannot drift from the C contract.
"""

from __future__ import annotations

import enum

__all__ = [
    "ActivityKind",
    "ClockKind",
    "Delivery",
    "EventKind",
    "IdleAction",
    "Preset",
    "Reason",
    "RefreshOutcome",
    "State",
    "Status",
]


class Status(enum.IntEnum):
    """Status codes returned by the C functions (``inact_status``)."""

    OK = 0
    E_NULL_POINTER = -1
    E_INVALID_HANDLE = -2
    E_INVALID_ARGUMENT = -3
    E_INVALID_STATE = -4
    E_STRUCT_SIZE = -5
    E_BUFFER_TOO_SMALL = -6
    E_NOT_FOUND = -7
    E_WRONG_CLOCK = -8
    E_SNAPSHOT_TRUNCATED = -9
    E_SNAPSHOT_CHECKSUM = -10
    E_SNAPSHOT_VERSION = -11
    E_SNAPSHOT_INVALID = -12
    E_LIMIT = -13
    E_INTERNAL = -14


class State(enum.IntEnum):
    """Session states."""

    LOADING = 0  #: created; the session is not known yet
    ACTIVE = 1  #: a session runs and the user is present
    WARNING = 2  #: the idle action is near; a countdown runs
    LOCKED = 3  #: the user must re-verify
    EXPIRED = 4  #: the session is over; a full sign-in is needed


class Reason(enum.IntEnum):
    """Why the engine entered its current state."""

    NONE = 0
    STARTED = 1
    RESTORED = 2
    CONTINUED = 3
    ACTIVITY = 4
    UNLOCKED = 5
    EXTENDED = 6
    IDLE = 7
    IDLE_TIMEOUT = 8
    BACKGROUND_TIMEOUT = 9
    MANUAL_LOCK = 10
    UNTRUSTED_CLOCK = 11
    ABSOLUTE_TIMEOUT = 12
    LOCKED_TIMEOUT = 13
    UNLOCK_FAILURES = 14
    LOGOUT = 15
    REVOKED = 16
    PASSWORD_CHANGED = 17
    RESTORE_FAILED = 18


class ActivityKind(enum.IntFlag):
    """Kinds of user activity. ``Engine.activity`` takes one; ``Policy.activity_kinds`` a set."""

    TOUCH_DOWN = 1 << 0
    TOUCH_UP = 1 << 1
    TOUCH_MOVE = 1 << 2
    KEY = 1 << 3
    SCROLL = 1 << 4
    POINTER = 1 << 5
    PROGRAMMATIC = 1 << 6
    #: every kind a person produces (the default): all but PROGRAMMATIC
    USER = 0x3F
    #: every defined kind
    ALL = 0x7F


class IdleAction(enum.IntEnum):
    """What happens when the idle timeout is reached."""

    LOCK = 0
    EXPIRE = 1


class Preset(enum.IntEnum):
    """Named policies (see ``Policy.preset``)."""

    DEFAULT = 0
    NIST_AAL2 = 1
    NIST_AAL3 = 2
    PCI_DSS = 3
    BANKING = 4


class EventKind(enum.IntEnum):
    """Kinds of event delivered to the callback."""

    STATE_CHANGED = 1
    TICK = 2


class Delivery(enum.IntEnum):
    """How timer-caused events are delivered."""

    THREAD = 0  #: one process-wide scheduler thread serves every engine
    HOST = 1  #: no thread: the host calls ``next_deadline()`` / ``poll()``


class ClockKind(enum.IntEnum):
    """Which clock an engine reads."""

    SYSTEM = 0  #: CLOCK_BOOTTIME: counts deep sleep, cannot be set
    MANUAL = 1  #: moves only when the host advances it; for tests and simulation


class RefreshOutcome(enum.IntEnum):
    """Classification of a token refresh (``Engine.refresh_result``)."""

    OK = 0  #: 2xx: the session goes on
    RETRY = 1  #: no network, 408, 429, 5xx: nothing changes; retry later
    REVOKED = 2  #: 401, or 400 with invalid_grant: the session is now EXPIRED
    FAILED = 3  #: any other status: nothing changes; retrying will not help
