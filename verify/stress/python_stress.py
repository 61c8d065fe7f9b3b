#!/usr/bin/env python3
"""Stress of the Python binding (bindings/python) against the real library.

    python3 verify/stress/python_stress.py [ops_per_thread=20000] [threads=8] [exit_runs=10]

1. Hammer: several threads call one engine (THREAD delivery, SYSTEM clock, timeouts of a few
   ms, so the scheduler thread runs Python callbacks all the time) with every input and query.
   The callback re-enters the engine, and every 7th event it raises: the exception must reach
   sys.unraisablehook exactly once and the engine must carry on. Meanwhile one thread creates
   engines and closes them while their callbacks run (the callback sleeps to widen the race):
   after close() returns no callback of that engine may run.
2. Exit: a child interpreter leaves engines of every kind open (callbacks running, a daemon
   thread hammering one) and exits, several times: it must exit 0, promptly, without a fatal
   error.

Prints one line of figures per part; exits 1 on any violation. Needs only python3: the binding
is pure ctypes (PYTHONPATH=bindings/python/src, INACTIVITY_LIBRARY=<libinactivity.so>).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from datetime import timedelta
from typing import Any, Dict, List

from inactivity import (
    ActivityKind,
    Engine,
    EngineClosedError,
    InvalidStateError,
    NotFoundError,
    Policy,
    Reason,
)

violations: List[str] = []
_vlock = threading.Lock()


def violation(message: str) -> None:
    with _vlock:
        violations.append(message)
        if len(violations) <= 20:
            print("VIOLATION:", message, file=sys.stderr)


def fast_policy() -> Policy:
    return Policy(
        idle_timeout=timedelta(milliseconds=40),
        warning=timedelta(milliseconds=15),
        tick=timedelta(milliseconds=5),
        background_timeout=timedelta(milliseconds=20),
        background_grace=timedelta(milliseconds=5),
        locked_timeout=timedelta(milliseconds=80),
        max_unlock_failures=3,
    )


class Probe:
    """The callback of one engine: counts, checks serialization, re-enters, raises sometimes."""

    def __init__(self, raise_every: int = 7, sleep_s: float = 0.0) -> None:
        self.engine: Any = None
        self.events = 0
        self.raised = 0
        self.in_callback = 0
        self.closed = False
        self.raise_every = raise_every
        self.sleep_s = sleep_s
        self.lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        if self.closed:
            violation(f"callback after close() returned ({event})")
        with self.lock:
            self.in_callback += 1
            overlap = self.in_callback > 1
        if overlap:
            violation("two callbacks of one engine at once")
        try:
            self.events += 1
            engine = self.engine
            if engine is not None and not engine.closed:
                try:
                    engine.state()  # re-entrant: its events are queued, nothing recurses
                except EngineClosedError:
                    pass
            if self.sleep_s:
                time.sleep(self.sleep_s)
            if self.raise_every and self.events % self.raise_every == 0:
                self.raised += 1
                raise ValueError("a listener bug")
        finally:
            with self.lock:
                self.in_callback -= 1


def hammer(ops: int, threads: int) -> None:
    unraisable: List[BaseException] = []
    old_hook = sys.unraisablehook

    def hook(args: Any) -> None:
        if isinstance(args.exc_value, ValueError) and str(args.exc_value) == "a listener bug":
            unraisable.append(args.exc_value)
        else:
            violation(f"unexpected unraisable: {args.exc_type.__name__}: {args.exc_value}")

    sys.unraisablehook = hook
    probe = Probe()
    engine = Engine(fast_policy(), on_event=probe)
    probe.engine = engine
    engine.start()
    counts: Dict[str, int] = {"ops": 0, "races": 0, "race_events": 0}
    clock = threading.Lock()
    barrier = threading.Barrier(threads)

    def work(index: int) -> None:
        rng = random.Random(index)
        scopes: List[int] = []
        holds: List[int] = []
        barrier.wait()
        done = 0
        for i in range(ops):
            r = rng.random()
            try:
                if r < 0.40:
                    engine.activity(ActivityKind(1 << rng.randrange(7)))
                elif r < 0.45:
                    engine.lock()
                elif r < 0.50:
                    engine.unlock()
                elif r < 0.52:
                    engine.unlock_failed()
                elif r < 0.56:
                    engine.background()
                elif r < 0.60:
                    engine.foreground()
                elif r < 0.63:
                    scopes.append(engine.push_scope(timedelta(milliseconds=20 + rng.randrange(40))))
                elif r < 0.66 and scopes:
                    engine.pop_scope(scopes.pop())
                elif r < 0.69:
                    holds.append(engine.acquire_hold())
                elif r < 0.72 and holds:
                    engine.release_hold(holds.pop())
                elif r < 0.76:
                    engine.snapshot()
                elif r < 0.84:
                    engine.info()
                elif r < 0.88:
                    engine.start()
                elif r < 0.90:
                    engine.end(Reason.LOGOUT)
                elif r < 0.93:
                    engine.refresh_result(rng.choice([200, 0, 503, 401]), "invalid_grant")
                else:
                    engine.state()
            except (InvalidStateError, NotFoundError):
                pass
            except Exception as exc:  # noqa: BLE001 -- reported as a violation
                violation(f"thread {index}: {type(exc).__name__}: {exc}")
            done += 1
            if index == 0 and i % 200 == 0:
                # close racing the scheduler thread's callbacks
                p = Probe(raise_every=0, sleep_s=0.001)
                e = Engine(fast_policy(), on_event=p)
                p.engine = e
                e.start()
                time.sleep(rng.random() * 0.05)
                e.close()
                p.closed = True
                e.close()  # idempotent
                try:
                    e.state()
                    violation("a closed engine answered")
                except EngineClosedError:
                    pass
                with clock:
                    counts["races"] += 1
                    counts["race_events"] += p.events
        with clock:
            counts["ops"] += done

    started = time.monotonic()
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(600)
        if t.is_alive():
            violation("a worker thread hung")
    engine.close()
    probe.closed = True
    time.sleep(0.05)  # a late callback would show up now
    sys.unraisablehook = old_hook
    if len(unraisable) != probe.raised:
        violation(f"{probe.raised} listener exceptions raised, {len(unraisable)} reached sys.unraisablehook")
    print(
        f"python hammer: {threads} threads, {counts['ops']} operations, {probe.events} events on the shared "
        f"engine, {probe.raised} listener exceptions (all reported once), {counts['races']} closes racing "
        f"callbacks ({counts['race_events']} events), {time.monotonic() - started:.1f} s"
    )


EXIT_CHILD = r"""
import sys, threading, time
from datetime import timedelta
from inactivity import ActivityKind, Engine, ManualClock, Delivery, Policy
p = Policy(idle_timeout=timedelta(milliseconds=30), warning=timedelta(milliseconds=10),
           tick=timedelta(milliseconds=2), background_timeout=timedelta(milliseconds=10))
events = []
def listener(e):
    events.append(e)
    if len(events) % 5 == 0:
        raise RuntimeError("listener bug at exit")
sys.unraisablehook = lambda args: None
engines = [Engine(p, on_event=listener) for _ in range(3)]            # THREAD, system clock
engines.append(Engine(p, on_event=listener, delivery=Delivery.HOST))  # host delivery
engines.append(Engine(p, on_event=listener, clock=ManualClock()))     # manual clock
for e in engines:
    e.start()
def hammer():
    while True:
        engines[0].activity(ActivityKind.KEY)
        engines[1].lock(); engines[1].unlock()
threading.Thread(target=hammer, daemon=True).start()
time.sleep(float(sys.argv[1]))
print("exiting with", len(engines), "open engines and", len(events), "events", flush=True)
sys.exit(0)
"""


def exit_runs(runs: int) -> None:
    started = time.monotonic()
    env = dict(os.environ)
    worst = 0.0
    for i in range(runs):
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", EXIT_CHILD, str(0.02 + 0.03 * (i % 4))],
                env=env, capture_output=True, text=True, timeout=30,
            )
        except subprocess.TimeoutExpired:
            violation(f"exit run {i}: the interpreter did not exit within 30 s (hang at exit)")
            continue
        worst = max(worst, time.monotonic() - t0)
        if proc.returncode != 0 or "exiting with" not in proc.stdout or "Fatal" in proc.stderr:
            violation(f"exit run {i}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    print(f"python exit: {runs} interpreters exited with engines open and callbacks running, "
          f"slowest {worst:.2f} s, {time.monotonic() - started:.1f} s")


def main() -> int:
    ops = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    hammer(ops, threads)
    exit_runs(runs)
    print(f"python stress: {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
