"""Names of states, reasons, presets and activity kinds, read and printed by the library.

The library's ``inact_<kind>_string`` and ``inact_<kind>_from_string`` (generated from the
header's enums) are the one table every binding uses, so ``Policy.preset("banking")``,
``engine.activity("KEY")`` and ``str(engine.state())`` spell them as C, Kotlin, Swift and
JavaScript do: the name in any ASCII case, ``-`` or ``_`` alike.
"""

from __future__ import annotations

import ctypes

from . import _lib

__all__ = ["name_of", "value_of"]


def name_of(kind: str, value: int) -> str:
    """The library's name of `value` ("IDLE_TIMEOUT"), or "unknown"."""
    func = getattr(_lib.LIB, f"inact_{kind}_string")
    raw: bytes = func(value)
    return raw.decode("ascii")


def value_of(kind: str, text: str) -> int:
    """The value the library reads from the name `text`; InvalidArgumentError (the library's
    message, listing the accepted names) for any other text."""
    out = ctypes.c_uint32() if kind == "activity_kind" else ctypes.c_int32()
    # A name is short: a longer text cannot match, and the message shows its first 64 bytes. A NUL
    # would end the C string early ("BANKING\0x" read as "BANKING"): it becomes U+FFFD, refused.
    raw = text[:256].replace("\0", "\ufffd").encode("utf-8", "replace")
    getattr(_lib.LIB, f"inact_{kind}_from_string")(raw, ctypes.byref(out))
    return int(out.value)
