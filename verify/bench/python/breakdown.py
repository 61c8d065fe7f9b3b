"""Where the Python binding's activity time goes: each piece that Engine.activity runs on top of
the bare ctypes call, timed on its own (best of 7 repeats of timeit, ns per call, the cost of
calling a lambda subtracted). For attribution when the binding misses its target; the pieces
overlap a little (each is timed with its own call overhead removed), so they need not add up
exactly to the difference.

Usage: python3 breakdown.py [calls per timing=200000]   (PYTHONPATH and INACTIVITY_LIBRARY as for
bench_activity.py)
Prints one JSON object.
"""

from __future__ import annotations

import ctypes
import json
import sys
import timeit
from typing import Callable, Dict

from inactivity import ActivityKind, Engine
from inactivity import _lib
from inactivity._time import check_int

NUMBER = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000


def best_ns(fn: Callable[[], object]) -> float:
    return min(timeit.repeat(fn, number=NUMBER, repeat=7)) / NUMBER * 1e9


def main() -> int:
    engine = Engine()
    engine.start()
    handle, kind = engine.handle, ActivityKind.TOUCH_MOVE
    bare = ctypes.CDLL(str(_lib.LIBRARY_PATH)).inact_activity
    bare.argtypes = (ctypes.c_uint64, ctypes.c_uint32)
    bare.restype = ctypes.c_int32
    table = _lib.LIB.inact_activity  # the binding's declaration: same argtypes, errcheck set
    finalizer = engine._finalizer  # noqa: SLF001 -- attribution needs the private pieces
    activity = engine.activity

    empty = best_ns(lambda: None)
    pieces: Dict[str, float] = {
        "bare ctypes call (no errcheck)": best_ns(lambda: bare(handle, 4)),
        "ctypes call with the binding's errcheck": best_ns(lambda: table(handle, 4)),
        "check_int(kind, ...)": best_ns(lambda: check_int(kind, "kind", 0, 0xFFFFFFFF)),
        "self._finalizer.alive": best_ns(lambda: finalizer.alive),
        "Engine.activity(kind)": best_ns(lambda: activity(kind)),
    }
    engine.close()
    result = {name: round(ns - empty, 1) for name, ns in pieces.items()}
    result["lambda call (subtracted above)"] = round(empty, 1)
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
