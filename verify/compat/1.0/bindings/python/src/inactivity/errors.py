"""Exceptions. Every negative status of the C ABI becomes one of these.

::

    InactivityError                     every error; .status and .message
    +-- InvalidArgumentError (ValueError)   an argument is out of range or malformed
    |   +-- SnapshotError                   the snapshot bytes were rejected
    +-- InvalidStateError                   the input is not allowed in the current state
    +-- WrongClockError                     a manual-clock operation on a system-clock engine
    +-- NotFoundError (LookupError)         no open scope or hold has this id
    +-- LimitError                          too many engines, scopes, holds or windows
    +-- InvalidHandleError                  the engine handle is not (or no longer) valid
        +-- EngineClosedError               the Python Engine was closed
"""

from __future__ import annotations

from .enums import Status

__all__ = [
    "EngineClosedError",
    "InactivityError",
    "InvalidArgumentError",
    "InvalidHandleError",
    "InvalidStateError",
    "LimitError",
    "NotFoundError",
    "SnapshotError",
    "WrongClockError",
    "error_for_status",
]


class InactivityError(Exception):
    """An error reported by the engine.

    ``status`` is the C status code, ``message`` the library's own explanation (it names the
    argument and the rule that failed).
    """

    status: Status
    message: str

    def __init__(self, status: int, message: str) -> None:
        try:
            self.status = Status(status)
        except ValueError:  # a code from a newer library: keep the number
            self.status = status  # type: ignore[assignment]
        self.message = message
        super().__init__(status, message)

    def __str__(self) -> str:
        name = self.status.name if isinstance(self.status, Status) else str(self.status)
        return f"{self.message} [{name}]"


class InvalidArgumentError(InactivityError, ValueError):
    """An argument is out of range or malformed (also a null pointer or a bad struct size)."""


class SnapshotError(InvalidArgumentError):
    """The snapshot is truncated, has a bad checksum, an unknown version or impossible values.

    The engine that was given it is now EXPIRED (RESTORE_FAILED): the stored session could not
    be trusted, so a full sign-in is the safe outcome.
    """


class InvalidStateError(InactivityError):
    """The input is not allowed in the engine's current state; nothing changed."""


class WrongClockError(InactivityError):
    """The operation needs an engine created with a manual clock."""


class NotFoundError(InactivityError, LookupError):
    """No open scope or hold has this id."""


class LimitError(InactivityError):
    """A resource limit was reached (engines, scopes, holds or windows)."""


class InvalidHandleError(InactivityError):
    """The engine handle is 0, forged, stale or destroyed."""


class EngineClosedError(InvalidHandleError):
    """The engine was closed (or garbage-collected); it accepts no more calls."""

    def __init__(self, message: str = "the engine is closed") -> None:
        super().__init__(Status.E_INVALID_HANDLE, message)

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (type(self), (self.message,))


_BY_STATUS: dict[int, type[InactivityError]] = {
    Status.E_NULL_POINTER: InvalidArgumentError,
    Status.E_INVALID_HANDLE: InvalidHandleError,
    Status.E_INVALID_ARGUMENT: InvalidArgumentError,
    Status.E_INVALID_STATE: InvalidStateError,
    Status.E_STRUCT_SIZE: InvalidArgumentError,
    Status.E_BUFFER_TOO_SMALL: InvalidArgumentError,
    Status.E_NOT_FOUND: NotFoundError,
    Status.E_WRONG_CLOCK: WrongClockError,
    Status.E_SNAPSHOT_TRUNCATED: SnapshotError,
    Status.E_SNAPSHOT_CHECKSUM: SnapshotError,
    Status.E_SNAPSHOT_VERSION: SnapshotError,
    Status.E_SNAPSHOT_INVALID: SnapshotError,
    Status.E_LIMIT: LimitError,
}


def error_for_status(status: int, message: str) -> InactivityError:
    """The exception for a negative status (``InactivityError`` itself for INTERNAL or unknown)."""
    return _BY_STATUS.get(status, InactivityError)(status, message)
