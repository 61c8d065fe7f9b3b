"""The session policy as a frozen dataclass.

Durations are ``timedelta`` (``NEVER`` for "never"); the constructor and ``replace`` also take
seconds. The defaults are read from the library (``inact_policy_init``), and the library, not this
class, judges whether a policy is valid: see ``validate``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
from datetime import timedelta
from typing import Any, ClassVar, Optional, Union

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
        idle_timeout: Optional[Duration] = None,
        warning: Optional[Duration] = None,
        idle_action: Union[IdleAction, int, None] = None,
        background_timeout: Optional[Duration] = None,
        absolute_timeout: Optional[Duration] = None,
        locked_timeout: Optional[Duration] = None,
        tick: Optional[Duration] = None,
        background_grace: Optional[Duration] = None,
        activity_kinds: Union[ActivityKind, int, None] = None,
        max_unlock_failures: Optional[int] = None,
        activity_dismisses_warning: Optional[bool] = None,
        pause_idle_in_background: Optional[bool] = None,
    ) -> None:
        # A field left out (None) takes the library's default (inact_policy_init): the defaults
        # are the library's, never restated here. Only the units are normalized; whether the
        # values make a valid policy is the library's call.
        d = _library_defaults()
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
            ms = getattr(d, name + "_ms") if value is None else duration_to_ms(value, name)
            object.__setattr__(self, name, ms_to_duration(ms))
        action = d.idle_action if idle_action is None else idle_action
        kinds = d.activity_kinds if activity_kinds is None else activity_kinds
        failures = d.max_unlock_failures if max_unlock_failures is None else max_unlock_failures
        dismisses = bool(d.activity_dismisses_warning) if activity_dismisses_warning is None else activity_dismisses_warning
        pause = bool(d.pause_idle_in_background) if pause_idle_in_background is None else pause_idle_in_background
        object.__setattr__(self, "idle_action", _enum_or_int(IdleAction, action, "idle_action"))
        object.__setattr__(self, "activity_kinds", ActivityKind(_u32(kinds, "activity_kinds")))
        object.__setattr__(self, "max_unlock_failures", _u32(failures, "max_unlock_failures"))
        object.__setattr__(self, "activity_dismisses_warning", _bool(dismisses, "activity_dismisses_warning"))
        object.__setattr__(self, "pause_idle_in_background", _bool(pause, "pause_idle_in_background"))

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


_DEFAULTS: Optional[_lib.CPolicy] = None


def _library_defaults() -> _lib.CPolicy:
    """The library's default policy as its C struct, read once."""
    global _DEFAULTS
    if _DEFAULTS is None:
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_init(ctypes.byref(c))
        _DEFAULTS = c
    return _DEFAULTS


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
