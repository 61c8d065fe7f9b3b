"""The session policy as a frozen dataclass.

Durations are ``timedelta`` (``NEVER`` for "never"); the constructor and ``replace`` also take
seconds. The defaults are those of ``inact_policy_init`` (a test checks they agree), and the
library, not this class, judges whether a policy is valid: see ``validate``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
from datetime import timedelta
from typing import Any, ClassVar, Union

from . import _lib
from ._time import NEVER, Duration, duration_to_ms, ms_to_duration
from .enums import ActivityKind, IdleAction, Preset, Status
from .errors import InvalidArgumentError

__all__ = ["Policy"]

_U32_MAX = 2**32 - 1


@dataclasses.dataclass(frozen=True, init=False, repr=False)
class Policy:
    """A session policy. ``Policy()`` is the default policy; ``Policy.preset(...)`` a named one.

    idle_timeout: no counted activity this long -> the idle action (> 0).
    warning: WARNING starts this long before the idle action; 0 = no warning; < idle_timeout.
    idle_action: LOCK or EXPIRE when the idle timeout is reached.
    background_timeout: in background this long -> LOCKED; 0 = at once; NEVER = off.
    absolute_timeout: this long after start -> EXPIRED, whatever the activity; NEVER = off.
    locked_timeout: LOCKED this long -> EXPIRED; NEVER = off.
    tick: countdown tick period in WARNING; 0 = no ticks.
    background_grace: all windows hidden this long -> background.
    activity_kinds: the activity kinds that count.
    max_unlock_failures: failed unlocks in a row -> EXPIRED; 0 = unlimited.
    activity_dismisses_warning: activity in WARNING returns to ACTIVE.
    pause_idle_in_background: the idle countdown stops while in background.
    """

    idle_timeout: timedelta
    warning: timedelta
    idle_action: IdleAction
    background_timeout: timedelta
    absolute_timeout: timedelta
    locked_timeout: timedelta
    tick: timedelta
    background_grace: timedelta
    activity_kinds: ActivityKind
    max_unlock_failures: int
    activity_dismisses_warning: bool
    pause_idle_in_background: bool

    _DURATIONS: ClassVar[tuple[str, ...]] = (
        "idle_timeout",
        "warning",
        "background_timeout",
        "absolute_timeout",
        "locked_timeout",
        "tick",
        "background_grace",
    )

    def __init__(
        self,
        idle_timeout: Duration = timedelta(minutes=15),
        warning: Duration = timedelta(seconds=30),
        idle_action: Union[IdleAction, int] = IdleAction.LOCK,
        background_timeout: Duration = timedelta(seconds=60),
        absolute_timeout: Duration = timedelta(hours=12),
        locked_timeout: Duration = NEVER,
        tick: Duration = timedelta(seconds=1),
        background_grace: Duration = timedelta(milliseconds=700),
        activity_kinds: Union[ActivityKind, int] = ActivityKind.USER,
        max_unlock_failures: int = 0,
        activity_dismisses_warning: bool = False,
        pause_idle_in_background: bool = False,
    ) -> None:
        # Normalize the units only; whether the values make a valid policy is the library's call.
        values: dict[str, Any] = {
            "idle_timeout": idle_timeout,
            "warning": warning,
            "background_timeout": background_timeout,
            "absolute_timeout": absolute_timeout,
            "locked_timeout": locked_timeout,
            "tick": tick,
            "background_grace": background_grace,
        }
        for name, value in values.items():
            object.__setattr__(self, name, ms_to_duration(duration_to_ms(value, name)))
        object.__setattr__(self, "idle_action", _enum_or_int(IdleAction, idle_action, "idle_action"))
        object.__setattr__(self, "activity_kinds", ActivityKind(_u32(activity_kinds, "activity_kinds")))
        object.__setattr__(self, "max_unlock_failures", _u32(max_unlock_failures, "max_unlock_failures"))
        object.__setattr__(self, "activity_dismisses_warning", _bool(activity_dismisses_warning, "activity_dismisses_warning"))
        object.__setattr__(self, "pause_idle_in_background", _bool(pause_idle_in_background, "pause_idle_in_background"))

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def preset(cls, preset: Union[Preset, int]) -> "Policy":
        """A named policy (``Preset.NIST_AAL2``, ``Preset.BANKING``, ...) as the library defines it."""
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_preset(ctypes.byref(c), int(preset))
        return cls._from_c(c)

    @classmethod
    def library_default(cls) -> "Policy":
        """The library's own defaults (``inact_policy_init``); equal to ``Policy()``."""
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_init(ctypes.byref(c))
        return cls._from_c(c)

    def replace(self, **changes: Any) -> "Policy":
        """A copy with some fields changed (durations may be given in seconds)."""
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, timedelta):
                text = "NEVER" if value == NEVER else f"{value.total_seconds():g}s"
            elif isinstance(value, enum.Enum):
                text = f"{type(value).__name__}.{value.name}" if value.name else repr(value)
            else:
                text = repr(value)
            parts.append(f"{field.name}={text}")
        return f"Policy({', '.join(parts)})"

    # -- checking -------------------------------------------------------------------------------

    def validate(self) -> None:
        """Asks the library whether this policy is valid; raises InvalidArgumentError if not."""
        c = self._to_c()
        _lib.LIB.inact_policy_validate(ctypes.byref(c))

    # -- the C struct ---------------------------------------------------------------------------

    def _to_c(self) -> _lib.CPolicy:
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_init(ctypes.byref(c))  # sets size, and any field added later
        c.idle_action = int(self.idle_action)
        for name in self._DURATIONS:
            setattr(c, name + "_ms", duration_to_ms(getattr(self, name), name))
        c.activity_kinds = int(self.activity_kinds)
        c.max_unlock_failures = self.max_unlock_failures
        c.activity_dismisses_warning = int(self.activity_dismisses_warning)
        c.pause_idle_in_background = int(self.pause_idle_in_background)
        return c

    @classmethod
    def _from_c(cls, c: _lib.CPolicy) -> "Policy":
        durations = {name: ms_to_duration(getattr(c, name + "_ms")) for name in cls._DURATIONS}
        return cls(
            idle_action=_enum_or_int(IdleAction, c.idle_action, "idle_action"),
            activity_kinds=ActivityKind(c.activity_kinds),
            max_unlock_failures=c.max_unlock_failures,
            activity_dismisses_warning=bool(c.activity_dismisses_warning),
            pause_idle_in_background=bool(c.pause_idle_in_background),
            **durations,
        )


def _enum_or_int(enum_type: type[IdleAction], value: Union[IdleAction, int], what: str) -> IdleAction:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an {enum_type.__name__}, not {type(value).__name__}")
    try:
        return enum_type(value)
    except ValueError:
        # Unknown values pass through so that the library can reject them with its own message.
        return value  # type: ignore[return-value]


def _u32(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value <= _U32_MAX:
        raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"{what} ({value}) must be in [0, {_U32_MAX}]")
    return int(value)


def _bool(value: bool, what: str) -> bool:
    if not isinstance(value, (bool, int)) or value not in (0, 1):
        raise TypeError(f"{what} must be a bool, not {value!r}")
    return bool(value)
