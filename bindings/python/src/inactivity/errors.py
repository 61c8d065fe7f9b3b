"""Exceptions. Every negative status of the C ABI becomes one of these.

The classes are generated from the error categories of tools/codegen/names.toml (one class per
category, its parent category's subclass; ``_generated/errors.py`` draws the tree), so every
binding has the same ones; this module adds the binding's own, ``EngineClosedError``::

    InactivityError                     every error; .status and .message
    +-- InvalidArgumentError (ValueError)   an argument is out of range or malformed
    |   +-- SnapshotError                   the snapshot bytes were rejected
    +-- InvalidStateError                   the input is not allowed in the current state
    |   +-- WeakAuthError                   the unlock method is weaker than the lock requires
    |   +-- OfflineError                    the unlock needs a successful server contact first
    +-- CeilingError (ValueError)           the policy is laxer than a managed ceiling
    +-- WrongClockError                     a manual-clock operation on a system-clock engine
    +-- NotFoundError (LookupError)         no open scope or hold has this id
    +-- LimitError                          too many engines, scopes, holds or windows
    +-- SystemResourceError (OSError)       the system refused the scheduler thread or its timer
    +-- InvalidHandleError                  the engine handle is not (or no longer) valid
        +-- EngineClosedError               the Python Engine was closed
"""

from __future__ import annotations

from ._generated.errors import (
    CeilingError,
    InactivityError,
    InvalidArgumentError,
    InvalidHandleError,
    InvalidStateError,
    LimitError,
    NotFoundError,
    OfflineError,
    SnapshotError,
    SystemResourceError,
    WeakAuthError,
    WrongClockError,
    error_for_status,
)
from .enums import Status

__all__ = [
    "CeilingError",
    "EngineClosedError",
    "InactivityError",
    "InvalidArgumentError",
    "InvalidHandleError",
    "InvalidStateError",
    "LimitError",
    "NotFoundError",
    "OfflineError",
    "SnapshotError",
    "SystemResourceError",
    "WeakAuthError",
    "WrongClockError",
    "error_for_status",
]


class EngineClosedError(InvalidHandleError):
    """The engine was closed (or garbage-collected); it accepts no more calls. The message is
    the one of every binding: "the engine is closed"."""

    def __init__(self, message: str = "the engine is closed") -> None:
        super().__init__(Status.E_INVALID_HANDLE, message)

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (type(self), (self.message,))
