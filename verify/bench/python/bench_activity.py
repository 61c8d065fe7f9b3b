"""The cost of activity from Python, against its baselines, measured in the same process.

    binding   Engine.activity(ActivityKind.TOUCH_MOVE) of bindings/python (the public API)
    ctypes    the same C function called bare: a separate ctypes.CDLL of the same library,
              argtypes (c_uint64, c_uint32), restype c_int32, no errcheck, same arguments
    timer     the naive pattern: threading.Timer(15 min).cancel() and a new Timer started per
              event (what a hand-written Python session timeout does)

Runs are interleaved (run r of each before run r+1 of any) and each figure is the median over
runs of ns per call (loop overhead included alike: a bound method called in a for loop).
Prints one JSON object. The engine is on the SYSTEM clock, THREAD delivery, default policy
(15 min idle), started; the benchmark fails if the engine leaves ACTIVE or the activity is not
recorded.

Usage: python3 bench_activity.py [runs=11] [target_ms=60]
    with bindings/python/src on PYTHONPATH and INACTIVITY_LIBRARY naming libinactivity.so.
"""

from __future__ import annotations

import ctypes
import json
import os
import statistics
import sys
import threading
import time
from typing import Callable, Dict, List

import inactivity
from inactivity import ActivityKind, Engine, State
from inactivity import _lib

IDLE_S = 15 * 60


def calibrate(fn: Callable[[int], None], target_ms: float, cap: int) -> int:
    n = 100
    while True:
        t0 = time.perf_counter_ns()
        fn(n)
        ns = time.perf_counter_ns() - t0
        if ns > 5e6 or n >= cap:
            return max(50, min(cap, int(target_ms * 1e6 / (ns / n))))
        n *= 4


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    target_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0

    engine = Engine()  # THREAD delivery, SYSTEM clock, default policy
    engine.start()
    handle = engine.handle
    kind = int(ActivityKind.TOUCH_MOVE)

    bare = ctypes.CDLL(str(_lib.LIBRARY_PATH))
    bare_activity = bare.inact_activity
    bare_activity.argtypes = (ctypes.c_uint64, ctypes.c_uint32)
    bare_activity.restype = ctypes.c_int32
    if bare_activity(handle, kind) != 0:
        raise SystemExit("bare inact_activity failed")

    def run_binding(n: int) -> None:
        activity = engine.activity
        k = ActivityKind.TOUCH_MOVE
        for _ in range(n):
            activity(k)

    def run_ctypes(n: int) -> None:
        f = bare_activity
        h = handle
        k = kind
        bad = 0
        for _ in range(n):
            bad |= f(h, k)
        if bad:
            raise SystemExit("bare inact_activity failed in the timed loop")

    fired: List[int] = []

    def on_idle() -> None:
        fired.append(1)

    timer = threading.Timer(IDLE_S, on_idle)
    timer.daemon = True
    timer.start()

    def run_timer(n: int) -> None:
        nonlocal timer
        for _ in range(n):
            timer.cancel()
            timer = threading.Timer(IDLE_S, on_idle)
            timer.daemon = True
            timer.start()

    benches: Dict[str, Callable[[int], None]] = {
        "binding": run_binding,
        "ctypes": run_ctypes,
        "timer": run_timer,
    }
    caps = {"binding": 1 << 22, "ctypes": 1 << 22, "timer": 5000}
    calls: Dict[str, int] = {}
    for name, fn in benches.items():
        fn(200)  # warm up
        calls[name] = calibrate(fn, target_ms, caps[name])
    samples: Dict[str, List[float]] = {name: [] for name in benches}

    def last_activity_ms() -> float:
        info = engine.info()
        if info.state is not State.ACTIVE:
            raise SystemExit(f"the engine left ACTIVE ({info.state!r}): the benchmark is void")
        assert info.last_activity is not None
        return info.last_activity.total_seconds() * 1000

    for _ in range(runs):
        for name, fn in benches.items():
            before_ms = time.clock_gettime_ns(time.CLOCK_BOOTTIME) // 1_000_000
            n = calls[name]
            t0 = time.perf_counter_ns()
            fn(n)
            samples[name].append((time.perf_counter_ns() - t0) / n)
            if name in ("binding", "ctypes") and last_activity_ms() < before_ms:
                raise SystemExit(f"{name}: the activity was not recorded")
        # let cancelled timer threads exit before the next run
        deadline = time.monotonic() + 1.0
        while threading.active_count() > 2 and time.monotonic() < deadline:
            time.sleep(0.001)

    timer.cancel()
    engine.close()
    if fired:
        raise SystemExit("a 15-minute timer fired: the naive benchmark is void")

    result = {
        "runs": runs,
        "python": sys.version.split()[0],
        "library": str(_lib.LIBRARY_PATH),
        "binding_version": inactivity.__version__ if hasattr(inactivity, "__version__") else None,
        "benchmarks": {
            name: {
                "calls_per_run": calls[name],
                "ns": statistics.median(samples[name]),
                "ns_runs": [round(x, 1) for x in samples[name]],
            }
            for name in benches
        },
    }
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
