"""The engine's enumerations, value for value as in include/inactivity.h: generated from the
header (``_generated/enums.py``), so they cannot drift from the C contract; a test also parses
the header and compares.

``State``, ``Reason`` and ``Preset`` print as the library names them
(``str(State.LOCKED) == "LOCKED"``, where a plain IntEnum prints ``3``) and are made from a name
as the library reads it (``Preset("banking")``, ``Reason("idle-timeout")``: any ASCII case, ``-``
or ``_``): the library's ``inact_*_string`` / ``inact_*_from_string``, the one table of every
binding. ``ActivityKind`` is an ``IntFlag`` (a policy holds a set of kinds).
"""

from __future__ import annotations

from typing import Type, TypeVar

from ._generated.enums import (
    ActivityKind,
    Auth,
    ClockKind,
    Delivery,
    EventKind,
    HolderKind,
    IdleAction,
    Preset,
    Reason,
    RefreshOutcome,
    State,
    Status,
)

__all__ = [
    "ActivityKind",
    "Auth",
    "ClockKind",
    "Delivery",
    "EventKind",
    "HolderKind",
    "IdleAction",
    "Preset",
    "Reason",
    "RefreshOutcome",
    "State",
    "Status",
]

_E = TypeVar("_E", State, Reason, EventKind, Delivery, ClockKind, RefreshOutcome, Auth)


def enum_or_int(enum_type: Type[_E], value: int) -> _E:
    """The member for `value`; a value from a newer library stays a plain int.

    The rule shared with the Kotlin binding (which maps such a value to ``UNKNOWN``): an unknown
    state, reason or outcome is passed on, never raised, and its event is delivered; an event of
    an unknown *kind* is skipped (a newer library only adds informational kinds; every state
    change stays STATE_CHANGED). Treat a state you do not know as locked.
    """
    try:
        return enum_type(value)
    except ValueError:
        return value  # type: ignore[return-value]
