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
from .engine import (
    SNAPSHOT_MAX_SIZE,
    ClockReading,
    Engine,
    Event,
    EventCallback,
    Info,
    ManualClock,
    SchedulerFaults,
    scheduler_faults,
)
from . import enums, errors
from .enums import *  # noqa: F403  (its __all__: every enum of the header)
from .errors import *  # noqa: F403  (its __all__: every error class)
from .policy import Ceilings, Policy

__all__ = [
    "LIBRARY_PATH",
    "LIBRARY_VERSION",
    "LIBRARY_VERSION_NUMBER",
    "NEVER",
    "SNAPSHOT_MAX_SIZE",
    "Ceilings",
    "ClockReading",
    "Duration",
    "Engine",
    "Event",
    "EventCallback",
    "Info",
    "ManualClock",
    "Policy",
    "SchedulerFaults",
    "__version__",
    "scheduler_faults",
]
# The enums and the errors, as their modules list them (one list each), but error_for_status: the
# status-to-class function stays inactivity.errors'.
__all__ += enums.__all__
__all__ += errors.__all__
__all__.remove("error_for_status")
del error_for_status  # noqa: F405  (star-imported above; not the package's name, as before)

# `from __future__ import annotations` binds the name `annotations` here; it is not API.
del annotations
