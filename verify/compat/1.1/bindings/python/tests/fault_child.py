"""The child process of test_platform_faults.py: one scenario, run with libinact_faults.so
(Tests/CTests/fault_preload.c) preloaded and its faults set through INACT_TEST_FAULTS before the
library was loaded. Prints what it saw as one JSON object; the test checks it.

    python fault_child.py create-fails   a THREAD engine's creation fails once (pthread_create,
                                         timerfd_create or the first timerfd_settime: the fault
                                         the test set), then succeeds
    python fault_child.py timer-fails    every timerfd_settime after the first fails

Real clock (the scheduler thread runs only on it), generous bounds as in the C suite.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Dict, List

import inactivity
from inactivity import Engine, Event, EventKind, ManualClock, Policy, State

WAIT = 20.0  # seconds: a bound for a loaded machine, not a timing expectation

# idle 400 ms, warning 200 ms, no ticks: WARNING at 200 ms, LOCKED at 400 ms (the C suite's).
SHORT = Policy(idle_timeout=0.4, warning=0.2, tick=0)


def threads(name: str = "") -> int:
    """The process's native threads (the scheduler thread is not a Python thread); only those
    called `name` if given (the library names its scheduler thread "inactivity")."""
    count = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                count += not name or comm.read().strip() == name
        except OSError:
            pass  # the thread ended meanwhile
    return count


class Events:
    def __init__(self) -> None:
        self.events: List[Event] = []
        self.threads: List[int] = []
        self.cond = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self.cond:
            self.events.append(event)
            self.threads.append(threading.get_ident())
            self.cond.notify_all()

    def wait_state(self, state: State, after: int = 0) -> int:
        """The index of the first STATE_CHANGED to `state` at or after `after`, or -1."""
        deadline = time.monotonic() + WAIT
        with self.cond:
            while True:
                for i in range(after, len(self.events)):
                    e = self.events[i]
                    if e.kind == EventKind.STATE_CHANGED and e.state == state:
                        return i
                left = deadline - time.monotonic()
                if left <= 0:
                    return -1
                self.cond.wait(left)

    def states(self) -> List[str]:
        with self.cond:
            return [e.state.name for e in self.events if e.kind == EventKind.STATE_CHANGED]


def faults() -> Dict[str, Any]:
    f = inactivity.scheduler_faults()
    return {"degraded": f.degraded, "failures": f.failures, "last_errno": f.last_errno}


def create_fails() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    manual_events = Events()
    manual = Engine(SHORT, on_event=manual_events, clock=ManualClock())
    manual.start()
    before = threads()
    try:
        Engine(SHORT, on_event=lambda e: None).close()
        out["create"] = "created"
    except inactivity.InactivityError as error:
        out["create"] = {
            "type": type(error).__name__,
            "is_os_error": isinstance(error, OSError),
            "status": int(error.status),
            "message": error.message,
            "errno": getattr(error, "errno", None),
        }
    out["threads_left"] = threads() - before
    out["scheduler_threads"] = threads("inactivity")
    # An engine that needs no scheduler goes on.
    manual.advance(0.2)
    out["manual_states"] = manual_events.states()
    # The next creation tries again and succeeds: its WARNING comes from the scheduler thread.
    events = Events()
    with Engine(SHORT, on_event=events) as engine:
        engine.start()
        at = events.wait_state(State.WARNING)
        out["retry_warning_on_scheduler_thread"] = at >= 0 and events.threads[at] != threading.get_ident()
        out["retry_scheduler_threads"] = threads("inactivity")
    manual.close()
    out["faults"] = faults()
    return out


def timer_fails() -> Dict[str, Any]:
    out: Dict[str, Any] = {"faults_before": faults()}
    events = Events()
    with Engine(SHORT, on_event=events) as engine:
        started = time.monotonic()
        engine.start()
        # The engine decides at every call, whatever its timer: past the lock deadline the call
        # itself finds LOCKED (whether or not the degraded scheduler got there first).
        time.sleep(max(0.0, started + 0.45 - time.monotonic()))
        out["state_at_call_after_deadline"] = engine.state().name
        out["faults_after_lock"] = faults()
        # Inputs go on deciding: unlock is ACTIVE again, delivered on this thread by the call.
        count = len(events.events)
        engine.unlock()
        with events.cond:
            out["unlock_events"] = [
                (e.state.name, events.threads[count + i] == threading.get_ident())
                for i, e in enumerate(events.events[count:])
            ]
        out["state_after_unlock"] = engine.state().name
        # No deadline is lost: the bounded wait of the degraded scheduler delivers the next
        # WARNING by itself, on the scheduler thread.
        at = events.wait_state(State.WARNING, after=len(events.events))
        out["next_warning_on_scheduler_thread"] = at >= 0 and events.threads[at] != threading.get_ident()
        with events.cond:
            out["states"] = [e.state.name for e in events.events[: at + 1] if e.kind == EventKind.STATE_CHANGED]
    out["faults_after"] = faults()
    return out


def main() -> int:
    scenario = {"create-fails": create_fails, "timer-fails": timer_fails}[sys.argv[1]]
    print(json.dumps(scenario()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
