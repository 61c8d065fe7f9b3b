"""The session policy as a frozen dataclass.

Durations are ``timedelta`` (``NEVER`` for "never"); the constructor and ``replace`` also take
seconds. A field left out takes the library's default (``inact_policy_init``, read from the
library, never restated here), and the library, not this class, judges whether a policy is valid:
see ``validate``.
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

__all__ = ["Ceilings", "Policy"]

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
    lock_on_device_lock: ``Engine.device_locked`` locks at once (DEVICE_LOCKED).
    lock_on_restart: every restore is LOCKED (RESTART) at least.
    strong_auth_timeout: since the last credential verification this long -> a biometric no
        longer unlocks; 0 = always the credential; NEVER = off.
    expected_interruption_max: the longest ``Engine.expect_interruption``; 0 = refused.
    offline_timeout: no server contact this long -> LOCKED (OFFLINE_TIMEOUT); NEVER = off.
    offline_expiry: no server contact this long -> EXPIRED (OFFLINE_EXPIRY); NEVER = off.
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
    lock_on_device_lock: bool
    lock_on_restart: bool
    strong_auth_timeout: timedelta
    expected_interruption_max: timedelta
    offline_timeout: timedelta
    offline_expiry: timedelta

    _DURATIONS: ClassVar[tuple[str, ...]] = (
        "idle_timeout",
        "warning",
        "background_timeout",
        "absolute_timeout",
        "locked_timeout",
        "tick",
        "background_grace",
        "strong_auth_timeout",
        "expected_interruption_max",
        "offline_timeout",
        "offline_expiry",
    )
    _FLAGS: ClassVar[tuple[str, ...]] = (
        "activity_dismisses_warning",
        "pause_idle_in_background",
        "lock_on_device_lock",
        "lock_on_restart",
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
        lock_on_device_lock: Optional[bool] = None,
        lock_on_restart: Optional[bool] = None,
        strong_auth_timeout: Optional[Duration] = None,
        expected_interruption_max: Optional[Duration] = None,
        offline_timeout: Optional[Duration] = None,
        offline_expiry: Optional[Duration] = None,
    ) -> None:
        # A field left out (None) takes the library's default (inact_policy_init), read from the
        # library rather than restated here, so the two cannot drift.
        idle_timeout = _given_or_default(idle_timeout, "idle_timeout")
        warning = _given_or_default(warning, "warning")
        idle_action = _given_or_default(idle_action, "idle_action")
        background_timeout = _given_or_default(background_timeout, "background_timeout")
        absolute_timeout = _given_or_default(absolute_timeout, "absolute_timeout")
        locked_timeout = _given_or_default(locked_timeout, "locked_timeout")
        tick = _given_or_default(tick, "tick")
        background_grace = _given_or_default(background_grace, "background_grace")
        activity_kinds = _given_or_default(activity_kinds, "activity_kinds")
        max_unlock_failures = _given_or_default(max_unlock_failures, "max_unlock_failures")
        activity_dismisses_warning = _given_or_default(activity_dismisses_warning, "activity_dismisses_warning")
        pause_idle_in_background = _given_or_default(pause_idle_in_background, "pause_idle_in_background")
        lock_on_device_lock = _given_or_default(lock_on_device_lock, "lock_on_device_lock")
        lock_on_restart = _given_or_default(lock_on_restart, "lock_on_restart")
        strong_auth_timeout = _given_or_default(strong_auth_timeout, "strong_auth_timeout")
        expected_interruption_max = _given_or_default(expected_interruption_max, "expected_interruption_max")
        offline_timeout = _given_or_default(offline_timeout, "offline_timeout")
        offline_expiry = _given_or_default(offline_expiry, "offline_expiry")
        # Normalize the units only; whether the values make a valid policy is the library's call.
        values: dict[str, Any] = {
            "idle_timeout": idle_timeout,
            "warning": warning,
            "background_timeout": background_timeout,
            "absolute_timeout": absolute_timeout,
            "locked_timeout": locked_timeout,
            "tick": tick,
            "background_grace": background_grace,
            "strong_auth_timeout": strong_auth_timeout,
            "expected_interruption_max": expected_interruption_max,
            "offline_timeout": offline_timeout,
            "offline_expiry": offline_expiry,
        }
        for name, value in values.items():
            object.__setattr__(self, name, ms_to_duration(duration_to_ms(value, name)))
        flags = {"lock_on_device_lock": lock_on_device_lock, "lock_on_restart": lock_on_restart}
        for name, flag in flags.items():
            object.__setattr__(self, name, _bool(flag, name))
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
        return _library_default()

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
        for name in self._FLAGS:
            setattr(c, name, int(getattr(self, name)))
        return c

    @classmethod
    def _from_c(cls, c: _lib.CPolicy) -> "Policy":
        values: dict[str, Any] = {name: ms_to_duration(getattr(c, name + "_ms")) for name in cls._DURATIONS}
        values.update({name: bool(getattr(c, name)) for name in cls._FLAGS})
        return cls(
            idle_action=_enum_or_int(IdleAction, c.idle_action, "idle_action"),
            activity_kinds=ActivityKind(c.activity_kinds),
            max_unlock_failures=c.max_unlock_failures,
            **values,
        )


@dataclasses.dataclass(frozen=True, init=False)
class Ceilings:
    """An administrator's limits (``inact_ceilings``), set with ``Engine.set_ceilings``: every
    policy applied to the engine afterwards must be at least as strict in every limited field,
    else ``CeilingError`` naming the field and the limit. Durations: NEVER = no limit (a
    policy's NEVER exceeds every finite limit); ``max_unlock_failures`` 0 = no limit; a flag
    set to True means the policy must set it too. Not kept in a snapshot."""

    idle_timeout: timedelta
    background_timeout: timedelta
    absolute_timeout: timedelta
    locked_timeout: timedelta
    strong_auth_timeout: timedelta
    expected_interruption_max: timedelta
    offline_timeout: timedelta
    offline_expiry: timedelta
    max_unlock_failures: int
    lock_on_device_lock: bool
    lock_on_restart: bool

    _DURATIONS: ClassVar[tuple[str, ...]] = (
        "idle_timeout",
        "background_timeout",
        "absolute_timeout",
        "locked_timeout",
        "strong_auth_timeout",
        "expected_interruption_max",
        "offline_timeout",
        "offline_expiry",
    )
    _FLAGS: ClassVar[tuple[str, ...]] = ("lock_on_device_lock", "lock_on_restart")

    def __init__(
        self,
        idle_timeout: Duration = NEVER,
        background_timeout: Duration = NEVER,
        absolute_timeout: Duration = NEVER,
        locked_timeout: Duration = NEVER,
        strong_auth_timeout: Duration = NEVER,
        expected_interruption_max: Duration = NEVER,
        offline_timeout: Duration = NEVER,
        offline_expiry: Duration = NEVER,
        max_unlock_failures: int = 0,
        lock_on_device_lock: bool = False,
        lock_on_restart: bool = False,
    ) -> None:
        values = dict(
            idle_timeout=idle_timeout,
            background_timeout=background_timeout,
            absolute_timeout=absolute_timeout,
            locked_timeout=locked_timeout,
            strong_auth_timeout=strong_auth_timeout,
            expected_interruption_max=expected_interruption_max,
            offline_timeout=offline_timeout,
            offline_expiry=offline_expiry,
        )
        for name, value in values.items():
            object.__setattr__(self, name, ms_to_duration(duration_to_ms(value, name)))
        object.__setattr__(self, "max_unlock_failures", _u32(max_unlock_failures, "max_unlock_failures"))
        object.__setattr__(self, "lock_on_device_lock", _bool(lock_on_device_lock, "lock_on_device_lock"))
        object.__setattr__(self, "lock_on_restart", _bool(lock_on_restart, "lock_on_restart"))

    def replace(self, **changes: Any) -> "Ceilings":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def _to_c(self) -> _lib.CCeilings:
        c = _lib.CCeilings()
        _lib.LIB.inact_ceilings_init(ctypes.byref(c))
        for name in self._DURATIONS:
            setattr(c, name + "_ms", duration_to_ms(getattr(self, name), name))
        c.max_unlock_failures = self.max_unlock_failures
        for name in self._FLAGS:
            setattr(c, name, int(getattr(self, name)))
        return c

    @classmethod
    def _from_c(cls, c: _lib.CCeilings) -> "Ceilings":
        values: dict[str, Any] = {name: ms_to_duration(getattr(c, name + "_ms")) for name in cls._DURATIONS}
        values.update({name: bool(getattr(c, name)) for name in cls._FLAGS})
        return cls(max_unlock_failures=c.max_unlock_failures, **values)


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


_DEFAULT: Optional[Policy] = None


def _given_or_default(value: Any, name: str) -> Any:
    """`value`, or the library's default for field `name` when it was left out (None)."""
    return getattr(_library_default(), name) if value is None else value


def _library_default() -> Policy:
    """The library's default policy, read once (every field given, so no recursion)."""
    global _DEFAULT
    if _DEFAULT is None:
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_init(ctypes.byref(c))
        _DEFAULT = Policy._from_c(c)
    return _DEFAULT
