"""Shared fixtures: an event recorder, the C suite's test policy, manual-clock engines.

The test policy is the C suite's (Tests/CTests/support.c): idle 60 s, warning 10 s, tick 1 s,
background 30 s, grace 700 ms, absolute 12 h, locked never, idle action LOCK. Times in the
tests are exact milliseconds on the manual clock.
"""

from __future__ import annotations

import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

import inactivity
from inactivity import Delivery, Engine, Event, EventKind, ManualClock, Policy, Reason, State

TEST_POLICY = Policy(
    idle_timeout=60,
    warning=10,
    tick=1,
    background_timeout=30,
    background_grace=0.7,
    absolute_timeout=timedelta(hours=12),
    locked_timeout=inactivity.NEVER,
)

REPO_ROOT: Optional[Path] = None
for _parent in Path(__file__).resolve().parents:
    if (_parent / "include" / "inactivity.h").is_file():
        REPO_ROOT = _parent
        break
HEADER = REPO_ROOT / "include" / "inactivity.h" if REPO_ROOT else None


def ms(value: int) -> timedelta:
    return timedelta(milliseconds=value)


class Recorder:
    """An on_event callback that records every event, with the thread that delivered it."""

    def __init__(self) -> None:
        self.events: List[Event] = []
        self.threads: List[int] = []
        self._cond = threading.Condition()
        self.hook: Optional[Callable[[Event], None]] = None

    def __call__(self, event: Event) -> None:
        with self._cond:
            self.events.append(event)
            self.threads.append(threading.get_ident())
            self._cond.notify_all()
        if self.hook is not None:
            self.hook(event)

    def __len__(self) -> int:
        with self._cond:
            return len(self.events)

    def __getitem__(self, index: int) -> Event:
        with self._cond:
            return self.events[index]

    @property
    def transitions(self) -> List[Event]:
        with self._cond:
            return [e for e in self.events if e.kind == EventKind.STATE_CHANGED]

    def wait_for(self, predicate: Callable[[List[Event]], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.events):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def wait_state(self, state: State, timeout: float = 10.0) -> bool:
        return self.wait_for(lambda events: any(e.state == state and e.kind == EventKind.STATE_CHANGED for e in events), timeout)


def check_transition(event: Event, previous: State, state: State, reason: Reason, time_ms: int) -> None:
    assert (event.kind, event.previous_state, event.state, event.reason, event.time) == (
        EventKind.STATE_CHANGED,
        previous,
        state,
        reason,
        ms(time_ms),
    ), event


def check_tick(event: Event, remaining_ms: int, time_ms: int) -> None:
    assert (event.kind, event.remaining, event.now) == (EventKind.TICK, ms(remaining_ms), ms(time_ms)), event


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


ManualFactory = Callable[..., Engine]


@pytest.fixture
def manual_engine() -> Iterator[ManualFactory]:
    """make(policy=TEST_POLICY, on_event=None, delivery=HOST, clock=ManualClock()) -> Engine;
    every engine made is closed at the end of the test."""
    made: List[Engine] = []

    def make(
        policy: Optional[Policy] = TEST_POLICY,
        on_event: Optional[Callable[[Event], object]] = None,
        delivery: Delivery = Delivery.HOST,
        clock: Optional[ManualClock] = None,
    ) -> Engine:
        engine = Engine(policy, on_event=on_event, delivery=delivery, clock=clock or ManualClock())
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.close()


class capture_unraisable:
    """with capture_unraisable() as caught: ... -- collects what reaches sys.unraisablehook."""

    def __init__(self) -> None:
        self.exceptions: List[BaseException] = []
        self._lock = threading.Lock()

    def _hook(self, unraisable: "sys.UnraisableHookArgs") -> None:
        with self._lock:
            if unraisable.exc_value is not None:
                self.exceptions.append(unraisable.exc_value)

    def __enter__(self) -> "capture_unraisable":
        self._saved = sys.unraisablehook
        sys.unraisablehook = self._hook
        return self

    def __exit__(self, *exc_info: object) -> None:
        sys.unraisablehook = self._saved


def pytest_report_header(config: pytest.Config) -> List[str]:
    return [
        f"inactivity {inactivity.__version__} from {Path(inactivity.__file__).parent}",
        f"libinactivity {inactivity.LIBRARY_VERSION} from {inactivity.LIBRARY_PATH}",
    ]
