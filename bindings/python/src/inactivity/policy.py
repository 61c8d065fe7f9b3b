"""The session policy as a frozen dataclass.

Durations are ``timedelta`` (``NEVER`` for "never"); the constructor and ``replace`` also take
seconds. A field left out takes the library's default (``inact_policy_init``, read from the
library, never restated here), and the library, not this class, judges whether a policy is valid:
see ``validate``.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import enum
import re
from datetime import timedelta
from decimal import Decimal
from typing import Any, Dict, Iterator, Optional, Union

from . import _lib, enums
from ._generated import ffi as _ffi
from ._names import value_of
from ._generated.fields import CeilingsFields, PolicyFields
from ._strict import keywords_of, strict_class, unknown_keyword_error
from ._time import NEVER, duration_to_ms, ms_to_duration
from .enums import IdleAction, Preset, Status
from .errors import InactivityError, InvalidArgumentError

__all__ = ["Ceilings", "Policy"]

_U32_MAX = 2**32 - 1


@dataclasses.dataclass(frozen=True, init=False, repr=False)
class Policy(PolicyFields):
    """A session policy. ``Policy()`` is the default policy; ``Policy.preset(...)`` a named one.

    The fields, their types and the keyword-only constructor come from the header's inact_policy
    (``_generated.fields.PolicyFields``, generated): a duration is a ``timedelta`` (its C field loses the
    ``_ms``; the constructor also takes seconds), a 0/1 flag a ``bool``, ``idle_action`` an
    ``IdleAction``, ``activity_kinds`` an ``ActivityKind``, ``max_unlock_failures`` an ``int``. A
    field left out takes the library's default.
    """

    def _assign(self, **values: Any) -> None:
        # A field left out (None) takes the library's default (inact_policy_init), read from the
        # library rather than restated here, so the two cannot drift. Normalize the units only;
        # whether the values make a valid policy is the library's call.
        for name, _, kind, enum_name in _ffi.POLICY_FIELDS:
            object.__setattr__(self, name, _normalize(kind, enum_name, _given_or_default(values[name], name), name))

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def preset(cls, preset: Union[Preset, int, str]) -> "Policy":
        """A named policy (``Preset.BANKING``, ``"BANKING"`` or ``"banking"``, ``4``) as the
        library defines it; a name is read by the library, as in every binding."""
        if isinstance(preset, str):
            preset = value_of("preset", preset)  # the library's reading; its message lists the names
        elif isinstance(preset, bool) or not isinstance(preset, int):
            raise TypeError(f"preset must be a Preset, a name (str) or an int, not {type(preset).__name__}")
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_preset_sized(ctypes.byref(c), ctypes.sizeof(c), int(preset))
        return cls._from_c(c)

    @classmethod
    def library_default(cls) -> "Policy":
        """The library's own defaults (``inact_policy_init``); equal to ``Policy()``."""
        return _library_default()

    def replace(self, **changes: Any) -> "Policy":
        """A copy with some fields changed (durations may be given in seconds)."""
        _refuse_unknown("Policy.replace()", changes, type(self))
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
        with python_terms():
            _lib.LIB.inact_policy_validate(ctypes.byref(c))

    # -- the C struct ---------------------------------------------------------------------------

    def _to_c(self) -> _lib.CPolicy:
        c = _lib.CPolicy()
        _lib.LIB.inact_policy_init_sized(ctypes.byref(c), ctypes.sizeof(c))  # sets size and every default
        _fields_to_c(self, c, _ffi.POLICY_FIELDS)
        return c

    @classmethod
    def _from_c(cls, c: _lib.CPolicy) -> "Policy":
        return cls(**_fields_from_c(c, _ffi.POLICY_FIELDS))


def _refuse_unknown(name: str, changes: Dict[str, Any], cls: type) -> None:
    """replace()'s unknown field, refused like the constructor's (dataclasses.replace would
    name the constructor instead)."""
    accepted = keywords_of(cls)
    if not set(changes) <= set(accepted):
        raise unknown_keyword_error(name, changes, accepted)


@dataclasses.dataclass(frozen=True, init=False)
class Ceilings(CeilingsFields):
    """An administrator's limits (``inact_ceilings``), set with ``Engine.set_ceilings``: every
    policy applied to the engine afterwards must be at least as strict in every limited field,
    else ``CeilingError`` naming the field and the limit. Durations: NEVER = no limit (a
    policy's NEVER exceeds every finite limit); ``max_unlock_failures`` 0 = no limit; a flag
    set to True means the policy must set it too. A field left out has no limit
    (``inact_ceilings_init``). Not kept in a snapshot. The fields come from the header's
    inact_ceilings (``_generated.fields.CeilingsFields``, generated)."""

    def _assign(self, **values: Any) -> None:
        defaults = None
        for name, _, kind, enum_name in _ffi.CEILINGS_FIELDS:
            value = values[name]
            if value is None:
                defaults = defaults or _no_ceilings()
                value = defaults[name]
            object.__setattr__(self, name, _normalize(kind, enum_name, value, name))

    def replace(self, **changes: Any) -> "Ceilings":
        """A copy with some fields changed."""
        _refuse_unknown("Ceilings.replace()", changes, type(self))
        return dataclasses.replace(self, **changes)

    def _to_c(self) -> _lib.CCeilings:
        c = _lib.CCeilings()
        _lib.LIB.inact_ceilings_init_sized(ctypes.byref(c), ctypes.sizeof(c))
        _fields_to_c(self, c, _ffi.CEILINGS_FIELDS)
        return c

    @classmethod
    def _from_c(cls, c: _lib.CCeilings) -> "Ceilings":
        return cls(**_fields_from_c(c, _ffi.CEILINGS_FIELDS))


_Rows = tuple[tuple[str, str, str, str], ...]

_NEVER_MS = 2**63 - 1
_FIELD = re.compile(r"\b(?:policy|ceilings)\.([a-z0-9_]+?)(_ms)?\b(?: \((-?\d+|0x[0-9a-f]+)\))?")


def _seconds(ms: str) -> str:
    if int(ms) == _NEVER_MS:
        return "NEVER"
    text = f"{Decimal(ms) / 1000:f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + " s"


def _python_message(message: str) -> str:
    """The library's message in this binding's terms: its C fields (``policy.idle_timeout_ms
    (-5000)``) become the Policy/Ceilings arguments in seconds (``idle_timeout (-5 s)``)."""
    ms_field = False

    def field(m: "re.Match[str]") -> str:
        nonlocal ms_field
        name, ms, value = m.group(1), m.group(2), m.group(3)
        ms_field = ms_field or bool(ms)
        if value is None:
            return name
        return f"{name} ({_seconds(value) if ms else value})"

    text = _FIELD.sub(field, message)
    if ms_field:  # the limits a duration is compared with are milliseconds too
        text = re.sub(r"\((\d+) ms\)", lambda m: f"({_seconds(m.group(1))})", text)
        text = re.sub(r"the managed ceiling \((\d+)\)", lambda m: f"the managed ceiling ({_seconds(m.group(1))})", text)
    return text.replace("INACT_NEVER", "NEVER")


@contextlib.contextmanager
def python_terms() -> Iterator[None]:
    """Re-raises the library's policy and ceilings errors in this binding's terms (the same
    class and status; ``engine_message`` keeps the library's text)."""
    try:
        yield
    except InactivityError as error:
        message = _python_message(error.message)
        if message == error.message:
            raise
        raise type(error)(error.status, message, error.engine_message) from None


def _normalize(kind: str, enum_name: str, value: Any, name: str) -> Any:
    """A field's value in its Python form, by the kind the header gives it."""
    if kind == "duration":
        return ms_to_duration(duration_to_ms(value, name))
    if kind == "flag":
        return _bool(value, name)
    if kind == "enum":
        return _enum_or_int(getattr(enums, enum_name), value, name)
    if kind == "bits":
        return getattr(enums, enum_name)(_u32(value, name))
    return _u32(value, name)


def _fields_to_c(obj: Any, c: Any, rows: _Rows) -> None:
    for name, c_name, kind, _ in rows:
        value = getattr(obj, name)
        setattr(c, c_name, duration_to_ms(value, name) if kind == "duration" else int(value))


def _fields_from_c(c: Any, rows: _Rows) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, c_name, kind, _ in rows:
        raw = getattr(c, c_name)
        values[name] = ms_to_duration(raw) if kind == "duration" else bool(raw) if kind == "flag" else raw
    return values


def _no_ceilings() -> dict[str, Any]:
    c = _lib.CCeilings()
    _lib.LIB.inact_ceilings_init_sized(ctypes.byref(c), ctypes.sizeof(c))
    return _fields_from_c(c, _ffi.CEILINGS_FIELDS)


def _enum_or_int(enum_type: Any, value: Any, what: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an {enum_type.__name__}, not {type(value).__name__}")
    try:
        return enum_type(value)
    except ValueError:
        # Unknown values pass through so that the library can reject them with its own message.
        return value


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
        _lib.LIB.inact_policy_init_sized(ctypes.byref(c), ctypes.sizeof(c))
        _DEFAULT = Policy._from_c(c)
    return _DEFAULT


# An unknown keyword is refused with the accepted ones listed (_strict, issue 32).
strict_class(Policy)
strict_class(Ceilings)
