"""The ctypes layer: struct layouts, the loader, and one declarative table of every C function.

Nothing here knows about sessions; ``engine.py`` builds the Python API on top of it.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import c_char_p, c_int32, c_uint32, c_uint64
from pathlib import Path
from typing import Any, Iterator, Optional, Tuple

from ._generated.ffi import CALLBACK, FUNCTIONS, STATUS, USER_DATA_FREE, CCeilings, CConfig, CEvent, CInfo, CPolicy
from ._version import HEADER_VERSION_MAJOR
from .errors import error_for_status

__all__ = [
    "LIB", "LIBRARY_ENV", "LIBRARY_PATH", "CALLBACK", "USER_DATA_FREE", "CCeilings", "CConfig", "CEvent", "CInfo", "CPolicy",
]

#: The environment variable that names the library to load (a path to the .so).
LIBRARY_ENV = "INACTIVITY_LIBRARY"

LIBRARY_NAME = "libinactivity.dylib" if sys.platform == "darwin" else "libinactivity.so"

# The structs (field for field as in include/inactivity.h; ctypes applies the C alignment rules)
# and the table of every function, (name, argtypes, restype), are generated from the header into
# _generated/ffi.py (tools/generate). A status-returning function (restype STATUS) raises the matching
# InactivityError on a negative status; the rest return their value as is.
_status = c_int32
_TABLE = FUNCTIONS

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
    last_errno = lib.inact_last_errno
    last_errno.argtypes = ()
    last_errno.restype = c_int32

    def check(result: int, func: Any, args: Tuple[Any, ...]) -> int:
        if result < 0:
            # Read on the failing thread right away: the message is thread-local.
            raw = last_error() or status_string(result) or b""
            raise error_for_status(result, raw.decode("utf-8", "replace"), last_errno())
        return result

    for name, argtypes, restype in _TABLE:
        func = getattr(lib, name)
        func.argtypes = tuple(argtypes)
        if restype is STATUS:
            func.restype = _status
            func.errcheck = check
        else:
            func.restype = restype


# ---------------------------------------------------------------------------------------------
# Loading: $INACTIVITY_LIBRARY when it is set, and then nothing else (a host that names a
# library must get that library or an ImportError, never another one found by search);
# otherwise the package directory (wheels bundle the library there), then the SwiftPM build
# tree of the checkout this package runs from. One ImportError lists every place that was tried
# and why it failed.
# ---------------------------------------------------------------------------------------------

_PACKAGE_DIR = Path(__file__).resolve().parent


def _candidates(notes: list[str]) -> Iterator[Tuple[str, Path]]:
    override = os.environ.get(LIBRARY_ENV)
    if override:
        yield f"${LIBRARY_ENV}", Path(override)
        notes.append(f"nothing else: ${LIBRARY_ENV} is set, so the search stops there")
        return
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
    try:
        version = lib.inact_version_number
    except AttributeError:
        # Another shared library (libm, a stale build of something else): ctypes reports the
        # missing symbol as AttributeError; the loader's contract is ImportError.
        raise OSError("not libinactivity: it has no inact_version_number") from None
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

#: The loaded library's version number (e.g. 10300) and string (e.g. "1.3.0").
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

