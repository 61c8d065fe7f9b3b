"""The ctypes layer: struct layouts, the loader, and one declarative table of every C function.

Nothing here knows about sessions; ``engine.py`` builds the Python API on top of it.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Tuple

from ._version import HEADER_VERSION_MAJOR
from .errors import error_for_status

__all__ = ["LIB", "LIBRARY_ENV", "LIBRARY_PATH", "CALLBACK", "CCeilings", "CConfig", "CEvent", "CInfo", "CPolicy"]

#: The environment variable that names the library to load (a path to the .so).
LIBRARY_ENV = "INACTIVITY_LIBRARY"

LIBRARY_NAME = "libinactivity.dylib" if sys.platform == "darwin" else "libinactivity.so"

# ---------------------------------------------------------------------------------------------
# Structs: field for field as in include/inactivity.h (ctypes applies the C alignment rules).
# ---------------------------------------------------------------------------------------------


class CPolicy(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("idle_action", c_int32),
        ("idle_timeout_ms", c_int64),
        ("warning_ms", c_int64),
        ("background_timeout_ms", c_int64),
        ("absolute_timeout_ms", c_int64),
        ("locked_timeout_ms", c_int64),
        ("tick_ms", c_int64),
        ("background_grace_ms", c_int64),
        ("activity_kinds", c_uint32),
        ("max_unlock_failures", c_uint32),
        ("activity_dismisses_warning", c_int32),
        ("pause_idle_in_background", c_int32),
        ("lock_on_device_lock", c_int32),
        ("lock_on_restart", c_int32),
        ("strong_auth_timeout_ms", c_int64),
        ("expected_interruption_max_ms", c_int64),
        ("offline_timeout_ms", c_int64),
        ("offline_expiry_ms", c_int64),
    ]


class CCeilings(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("max_unlock_failures", c_uint32),
        ("idle_timeout_ms", c_int64),
        ("background_timeout_ms", c_int64),
        ("absolute_timeout_ms", c_int64),
        ("locked_timeout_ms", c_int64),
        ("strong_auth_timeout_ms", c_int64),
        ("expected_interruption_max_ms", c_int64),
        ("offline_timeout_ms", c_int64),
        ("offline_expiry_ms", c_int64),
        ("lock_on_device_lock", c_int32),
        ("lock_on_restart", c_int32),
    ]


class CConfig(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("delivery", c_int32),
        ("clock", c_int32),
        ("reserved0", c_int32),
        ("manual_start_ms", c_int64),
        ("manual_wall_ms", c_int64),
        ("manual_boot_id", c_uint64),
    ]


class CEvent(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("kind", c_int32),
        ("state", c_int32),
        ("previous_state", c_int32),
        ("reason", c_int32),
        ("required_auth", c_int32),
        ("remaining_ms", c_int64),
        ("time_ms", c_int64),
        ("now_ms", c_int64),
        ("engine", c_uint64),
    ]


class CInfo(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("state", c_int32),
        ("reason", c_int32),
        ("delivery", c_int32),
        ("clock", c_int32),
        ("in_background", c_int32),
        ("visible_windows", c_int32),
        ("open_scopes", c_int32),
        ("open_holds", c_int32),
        ("unlock_failures", c_uint32),
        ("now_ms", c_int64),
        ("remaining_ms", c_int64),
        ("next_deadline_ms", c_int64),
        ("effective_idle_timeout_ms", c_int64),
        ("started_at_ms", c_int64),
        ("last_activity_ms", c_int64),
        ("background_since_ms", c_int64),
        ("locked_at_ms", c_int64),
        ("required_auth", c_int32),
        ("needs_server_contact", c_int32),
        ("last_credential_ms", c_int64),
        ("strong_auth_deadline_ms", c_int64),
        ("last_server_contact_ms", c_int64),
        ("token_generation", c_uint64),
        ("interruption_until_ms", c_int64),
    ]


#: void (*inact_callback)(const inact_event *event, void *user_data)
CALLBACK = CFUNCTYPE(None, POINTER(CEvent), c_void_p)
#: void (*inact_user_data_free)(void *user_data)
USER_DATA_FREE = CFUNCTYPE(None, c_void_p)

# ---------------------------------------------------------------------------------------------
# The function table: (name, argtypes, restype, errcheck). A status-returning function raises
# the matching InactivityError on a negative status; the rest return their value as is.
# ---------------------------------------------------------------------------------------------

_engine = c_uint64
_status = c_int32
_STATUS = "status"  # marker: restype int32 status, checked
_P = POINTER

_TABLE: Sequence[Tuple[str, Sequence[Any], Any]] = (
    # library
    ("inact_version_number", (), c_uint32),
    ("inact_version_string", (), c_char_p),
    ("inact_status_string", (c_int32,), c_char_p),
    ("inact_last_error", (), c_char_p),
    # policy
    ("inact_policy_init", (_P(CPolicy),), _STATUS),
    ("inact_policy_preset", (_P(CPolicy), c_int32), _STATUS),
    ("inact_policy_validate", (_P(CPolicy),), _STATUS),
    ("inact_ceilings_init", (_P(CCeilings),), _STATUS),
    # lifecycle
    ("inact_config_init", (_P(CConfig),), _STATUS),
    (
        "inact_engine_create",
        (_P(CConfig), _P(CPolicy), CALLBACK, c_void_p, USER_DATA_FREE, _P(c_uint64)),
        _STATUS,
    ),
    ("inact_destroy", (_engine,), _STATUS),
    ("inact_scheduler_faults", (_P(c_int32), _P(c_uint64), _P(c_int32)), _STATUS),
    # inputs
    ("inact_start", (_engine,), _STATUS),
    ("inact_restore", (_engine, c_char_p, c_size_t), _STATUS),
    ("inact_activity", (_engine, c_uint32), _STATUS),
    ("inact_continue", (_engine,), _STATUS),
    ("inact_lock", (_engine,), _STATUS),
    ("inact_unlock", (_engine,), _STATUS),
    ("inact_unlock_with", (_engine, c_int32), _STATUS),
    ("inact_unlock_failed", (_engine, _P(c_uint32)), _STATUS),
    ("inact_unlock_failed_with", (_engine, c_int32, _P(c_uint32)), _STATUS),
    ("inact_biometrics_changed", (_engine,), _STATUS),
    ("inact_end", (_engine, c_int32), _STATUS),
    ("inact_refresh_result", (_engine, c_int32, c_char_p, _P(c_int32)), _STATUS),
    ("inact_refresh_result_gen", (_engine, c_int32, c_char_p, c_uint64, _P(c_int32)), _STATUS),
    ("inact_token_rotated", (_engine, c_uint64), _STATUS),
    ("inact_server_contact", (_engine,), _STATUS),
    ("inact_background", (_engine,), _STATUS),
    ("inact_foreground", (_engine,), _STATUS),
    ("inact_window_shown", (_engine,), _STATUS),
    ("inact_window_hidden", (_engine,), _STATUS),
    ("inact_expect_interruption", (_engine, c_int64), _STATUS),
    ("inact_device_locked", (_engine,), _STATUS),
    ("inact_scope_push", (_engine, c_int64, _P(c_uint64)), _STATUS),
    ("inact_scope_pop", (_engine, c_uint64), _STATUS),
    ("inact_hold_acquire", (_engine, _P(c_uint64)), _STATUS),
    ("inact_hold_release", (_engine, c_uint64), _STATUS),
    ("inact_set_policy", (_engine, _P(CPolicy)), _STATUS),
    ("inact_set_ceilings", (_engine, _P(CCeilings)), _STATUS),
    ("inact_get_ceilings", (_engine, _P(CCeilings)), _STATUS),
    # queries
    ("inact_get_state", (_engine, _P(c_int32)), _STATUS),
    ("inact_get_reason", (_engine, _P(c_int32)), _STATUS),
    ("inact_get_remaining", (_engine, _P(c_int64)), _STATUS),
    ("inact_info_init", (_P(CInfo),), _STATUS),
    ("inact_get_info", (_engine, _P(CInfo)), _STATUS),
    ("inact_get_policy", (_engine, _P(CPolicy)), _STATUS),
    ("inact_get_required_auth", (_engine, _P(c_int32)), _STATUS),
    # host-mode delivery
    ("inact_next_deadline", (_engine, _P(c_int64)), _STATUS),
    ("inact_poll", (_engine,), _STATUS),
    # manual clock
    ("inact_clock_advance", (_engine, c_int64), _STATUS),
    ("inact_clock_freeze", (_engine, c_int64), _STATUS),
    ("inact_clock_jump_wall", (_engine, c_int64), _STATUS),
    ("inact_clock_reboot", (_engine, c_int64), _STATUS),
    ("inact_clock_now", (_engine, _P(c_int64), _P(c_int64), _P(c_uint64)), _STATUS),
    # snapshot
    ("inact_snapshot_size", (_engine, _P(c_size_t)), _STATUS),
    ("inact_snapshot_write", (_engine, c_void_p, c_size_t, _P(c_size_t)), _STATUS),
)

#: Names of every function the binding uses (a test compares them with the header).
FUNCTION_NAMES = tuple(name for name, _, _ in _TABLE)


def _bind(lib: ctypes.CDLL) -> None:
    """Declares every function of the table on `lib`; AttributeError names a missing symbol."""
    last_error = lib.inact_last_error
    last_error.argtypes = ()
    last_error.restype = c_char_p
    status_string = lib.inact_status_string
    status_string.argtypes = (c_int32,)
    status_string.restype = c_char_p

    def check(result: int, func: Any, args: Tuple[Any, ...]) -> int:
        if result < 0:
            # Read on the failing thread right away: the message is thread-local.
            raw = last_error() or status_string(result) or b""
            raise error_for_status(result, raw.decode("utf-8", "replace"))
        return result

    for name, argtypes, restype in _TABLE:
        func = getattr(lib, name)
        func.argtypes = tuple(argtypes)
        if restype is _STATUS:
            func.restype = _status
            func.errcheck = check
        else:
            func.restype = restype


# ---------------------------------------------------------------------------------------------
# Loading: $INACTIVITY_LIBRARY, then the package directory (wheels bundle the library there),
# then the SwiftPM build tree of the checkout this package runs from. One ImportError lists
# every place that was tried and why it failed.
# ---------------------------------------------------------------------------------------------

_PACKAGE_DIR = Path(__file__).resolve().parent


def _candidates(notes: list[str]) -> Iterator[Tuple[str, Path]]:
    override = os.environ.get(LIBRARY_ENV)
    if override:
        yield f"${LIBRARY_ENV}", Path(override)
    else:
        notes.append(f"${LIBRARY_ENV}: not set")
    yield "the package directory", _PACKAGE_DIR / LIBRARY_NAME
    # bindings/python/src/inactivity -> the repository root
    repo = _PACKAGE_DIR.parents[3] if len(_PACKAGE_DIR.parents) > 3 else None
    if repo is not None and (repo / "Package.swift").is_file():
        for configuration in ("debug", "release"):
            yield f"the SwiftPM build tree ({configuration})", repo / ".build" / configuration / LIBRARY_NAME
    else:
        notes.append(f"the SwiftPM build tree: {_PACKAGE_DIR} is not inside a source checkout")


def _try_load(path: Path) -> ctypes.CDLL:
    if not path.exists():
        raise OSError("no such file")
    lib = ctypes.CDLL(str(path))
    version = lib.inact_version_number
    version.argtypes = ()
    version.restype = c_uint32
    number = int(version())
    if number // 10000 != HEADER_VERSION_MAJOR:
        raise OSError(
            f"library version {number // 10000}.{number // 100 % 100}.{number % 100} is not "
            f"ABI-compatible with this binding (needs major version {HEADER_VERSION_MAJOR})"
        )
    try:
        _bind(lib)
    except AttributeError as exc:
        raise OSError(f"not a compatible libinactivity: {exc}") from None
    return lib


def load_library() -> Tuple[ctypes.CDLL, str]:
    """Loads and binds the first library that works; ImportError lists every attempt."""
    notes: list[str] = []
    for where, path in _candidates(notes):
        try:
            return _try_load(path), str(path)
        except OSError as exc:
            notes.append(f"{where}: {path}: {exc}")
    raise ImportError(
        "inactivity: cannot load the native library libinactivity. Tried, in order:\n  - "
        + "\n  - ".join(notes)
        + f"\nSet ${LIBRARY_ENV} to the path of libinactivity.so, install a wheel that bundles it, "
        "or build it with `swift build --product inactivity` in the repository."
    )


LIB, LIBRARY_PATH = load_library()

# The activity hot path: the same C function without errcheck (a status is checked inline by
# Engine.activity, which falls back to the checked call only on failure). Activity is the one
# call hosts make per touch; the table's errcheck wrapper alone costs about as much as the call.
ACTIVITY_UNCHECKED = ctypes.CFUNCTYPE(c_int32, c_uint64, c_uint32)(("inact_activity", LIB))

#: The loaded library's version number (e.g. 10100) and string (e.g. "1.1.0").
LIBRARY_VERSION_NUMBER: int = int(LIB.inact_version_number())
LIBRARY_VERSION: str = (LIB.inact_version_string() or b"").decode("ascii", "replace")


def status_string(status: int) -> str:
    """The library's static description of a status code."""
    raw: Optional[bytes] = LIB.inact_status_string(status)
    return (raw or b"").decode("utf-8", "replace")


def last_error() -> str:
    """The message of the most recent failed call on this thread ("" if none)."""
    raw: Optional[bytes] = LIB.inact_last_error()
    return (raw or b"").decode("utf-8", "replace")

