"""bench_server_decide.py -- the Python binding's decision per call: ``inactivity._server_core.decide``
(the policy prepared once, ``inact_server_decide_prepared`` called without argtypes) against its
floor, a bare ctypes call of ``inact_server_decide_prepared`` with every argument made beforehand
and nothing converted back. The difference is what the binding itself costs per request: the
arguments, the decision's fields, the frozen ``Decision`` and the record's bytes.

Thread CPU ns per call (a loaded machine inflates wall time), median of runs, the paths and the
floor interleaved in each run. A run stops when a decision is not the one measured.

Usage: bench_server_decide.py [runs=15] [calls=20000] -- prints one JSON object on stdout.
The library is the one $INACTIVITY_LIBRARY names (scripts/bench gives its release build).
"""

from __future__ import annotations

import ctypes
import json
import statistics
import sys
import time
from typing import Callable

from inactivity import Policy, State, _lib
from inactivity._generated.ffi import CDecision
from inactivity._server_core import RECORD_SIZE, ServerInput, _prepared_of, decide

T0 = 1_700_000_000_000


def per_call(fn: Callable[[], object], calls: int) -> float:
    t = time.thread_time_ns()
    for _ in range(calls):
        fn()
    return (time.thread_time_ns() - t) / calls


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    policy = Policy()
    _, record = decide(policy, None, T0, ServerInput.SIGN_IN, 0, 1000)
    assert record is not None and len(record) == RECORD_SIZE

    # The floor: the same function, every argument a ready ctypes object, no result read.
    bare = _lib.LIB._FuncPtr(("inact_server_decide_prepared", _lib.LIB))
    bare.restype = ctypes.c_int32
    block = _prepared_of(policy)
    d = CDecision()
    d.size = ctypes.sizeof(CDecision)
    out = ctypes.create_string_buffer(RECORD_SIZE)
    written = ctypes.c_size_t(0)
    fixed = (block, record, ctypes.c_size_t(RECORD_SIZE), ctypes.c_int64(T0 + 5000), int(ServerInput.MACHINE),
             ctypes.c_int64(0), ctypes.c_int64(1000), ctypes.byref(d), out, ctypes.c_size_t(RECORD_SIZE), ctypes.byref(written))

    def floor() -> object:
        return bare(*fixed)

    def read() -> object:
        return decide(policy, record, T0 + 5000, ServerInput.MACHINE, 0, 1000)

    def write() -> object:
        return decide(policy, record, T0 + 1, ServerInput.REQUEST, 0, 0)

    got, wrote = read()
    assert got.state == State.ACTIVE and wrote is None, "the read path wrote"
    got, wrote = write()
    assert got.state == State.ACTIVE and wrote is not None, "the write path wrote nothing"
    assert floor() == 0 and d.write == 0

    figures: dict[str, list[float]] = {"read": [], "write": [], "floor": []}
    for _ in range(runs):
        figures["read"].append(per_call(read, calls))
        figures["write"].append(per_call(write, calls))
        figures["floor"].append(per_call(floor, calls))
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(json.dumps({"runs": runs, "calls": calls, "ns_per_call": {
        "decide_read": round(med["read"], 1), "decide_write": round(med["write"], 1),
        "bare_ctypes_prepared": round(med["floor"], 1)}}))


if __name__ == "__main__":
    main()
