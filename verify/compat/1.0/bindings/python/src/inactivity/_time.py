"""Conversions between Python time values and the ABI's int64 milliseconds.

Durations go in as ``timedelta`` or seconds (``int``/``float``) and come out as ``timedelta``.
``NEVER`` (``timedelta.max``; ``math.inf`` seconds on input) stands for INACT_NEVER. Values are
rounded to the nearest millisecond, the engine's resolution.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Final, Optional, Union

from .enums import Status
from .errors import InvalidArgumentError

#: "Never" for a timeout, "no deadline" for a query (INACT_NEVER).
NEVER: Final[timedelta] = timedelta.max

#: A duration argument: a ``timedelta`` or a number of seconds.
Duration = Union[timedelta, int, float]

INT64_MAX: Final = 2**63 - 1
INT64_MIN: Final = -(2**63)
_MS_PER_TIMEDELTA_MAX: Final = (timedelta.max.days * 86400 + timedelta.max.seconds) * 1000
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ONE_MS: Final = timedelta(milliseconds=1)


def _out_of_range(what: str, value: object) -> InvalidArgumentError:
    return InvalidArgumentError(
        Status.E_INVALID_ARGUMENT, f"{what} ({value!r}) does not fit in int64 milliseconds"
    )


def _timedelta_to_ms(value: timedelta) -> int:
    total_us = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    return (total_us + 500) // 1000  # round half up, exact for any timedelta


def duration_to_ms(value: Duration, what: str) -> int:
    """Milliseconds for a duration argument; NEVER / ``math.inf`` become INACT_NEVER."""
    if isinstance(value, timedelta):
        if value == NEVER:
            return INT64_MAX
        ms = _timedelta_to_ms(value)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a timedelta or a number of seconds, not {type(value).__name__}")
    elif isinstance(value, int):
        ms = value * 1000
    elif math.isnan(value):
        raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"{what} is NaN")
    elif value == math.inf:
        return INT64_MAX
    elif value == -math.inf:
        raise _out_of_range(what, value)
    else:
        ms = round(value * 1000)
    if not INT64_MIN <= ms <= INT64_MAX:
        raise _out_of_range(what, value)
    return ms


def ms_to_duration(ms: int) -> timedelta:
    """A duration from the engine; INACT_NEVER (or anything a timedelta cannot hold) is NEVER."""
    if ms >= _MS_PER_TIMEDELTA_MAX:
        return NEVER
    return timedelta(milliseconds=ms)


def ms_to_instant(ms: int) -> Optional[timedelta]:
    """An engine-clock instant, or None for INACT_NEVER ("none")."""
    if ms == INT64_MAX:
        return None
    return timedelta(milliseconds=ms)


def wall_to_ms(value: datetime, what: str) -> int:
    """Milliseconds since 1970 for an aware datetime."""
    if not isinstance(value, datetime):
        raise TypeError(f"{what} must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgumentError(
            Status.E_INVALID_ARGUMENT, f"{what} must be timezone-aware (e.g. tzinfo=timezone.utc)"
        )
    ms = _timedelta_to_ms(value - _EPOCH)
    if not INT64_MIN <= ms <= INT64_MAX:
        raise _out_of_range(what, value)
    return ms


_WALL_MIN: Final = datetime.min.replace(tzinfo=timezone.utc)
_WALL_MAX: Final = datetime.max.replace(tzinfo=timezone.utc)


def ms_to_wall(ms: int) -> datetime:
    """An aware UTC datetime for milliseconds since 1970, clamped to datetime's range (years
    1..9999): a manual wall clock can be moved beyond it."""
    if ms <= _timedelta_to_ms(_WALL_MIN - _EPOCH):
        return _WALL_MIN
    if ms >= _timedelta_to_ms(_WALL_MAX - _EPOCH):
        return _WALL_MAX
    return _EPOCH + timedelta(milliseconds=ms)


def check_int(value: int, what: str, lo: int, hi: int) -> int:
    """An integer argument checked against its C type's range (ctypes would silently wrap)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not lo <= value <= hi:
        raise InvalidArgumentError(
            Status.E_INVALID_ARGUMENT, f"{what} ({value}) is outside its C type's range [{lo}, {hi}]"
        )
    return int(value)
