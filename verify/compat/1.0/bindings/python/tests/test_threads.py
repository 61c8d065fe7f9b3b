"""Several Python threads on one engine, and engines made and closed from several threads."""

from __future__ import annotations

import threading
from typing import Callable, List

from conftest import TEST_POLICY, Recorder

from inactivity import ActivityKind, Engine, EngineClosedError, EventKind, InactivityError, ManualClock, State

THREADS = 4
ROUNDS = 1500


def run_threads(target: Callable[[int], None], count: int = THREADS) -> List[BaseException]:
    errors: List[BaseException] = []
    barrier = threading.Barrier(count)

    def wrapper(index: int) -> None:
        try:
            barrier.wait()
            target(index)
        except BaseException as exc:  # reported to the test
            errors.append(exc)

    threads = [threading.Thread(target=wrapper, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
        assert not thread.is_alive(), "a thread hung"
    return errors


def test_inputs_and_queries_from_several_threads() -> None:
    recorder = Recorder()
    # System clock, THREAD delivery: the scheduler thread is live alongside ours.
    with Engine(TEST_POLICY, on_event=recorder) as engine:
        engine.start()

        def work(index: int) -> None:
            for i in range(ROUNDS):
                engine.activity(ActivityKind.KEY if i % 2 else ActivityKind.POINTER)
                if i % 10 == index:
                    scope = engine.push_scope(30)
                    hold = engine.acquire_hold()
                    assert engine.state() == State.ACTIVE
                    engine.release_hold(hold)
                    engine.pop_scope(scope)
                if i % 50 == 0:
                    engine.info()
                    engine.window_shown()
                    engine.window_hidden()
                    engine.window_shown()
                    engine.window_hidden()

        assert run_threads(work) == []
        info = engine.info()
        assert (info.state, info.open_scopes, info.open_holds, info.visible_windows) == (State.ACTIVE, 0, 0, 0)
        assert [e.state for e in recorder.transitions] == [State.ACTIVE]


def test_events_from_several_threads_arrive_serialized_and_in_order() -> None:
    active = [0]
    overlaps = [0]
    guard = threading.Lock()
    recorder = Recorder()

    def hook(_: object) -> None:
        with guard:
            active[0] += 1
            if active[0] > 1:
                overlaps[0] += 1
        with guard:
            active[0] -= 1

    recorder.hook = hook
    with Engine(TEST_POLICY, on_event=recorder, clock=ManualClock()) as engine:
        engine.start()

        def work(index: int) -> None:
            for _ in range(300):
                try:
                    engine.lock()
                    engine.unlock()
                except InactivityError:
                    pass  # another thread's unlock raced ours: a clean, typed refusal

        assert run_threads(work) == []
        states = [e.state for e in recorder.events if e.kind == EventKind.STATE_CHANGED]
        # every LOCKED is followed by ACTIVE and vice versa: one ordered stream
        assert all(a != b for a, b in zip(states, states[1:]))
        assert overlaps[0] == 0


def test_engines_created_and_closed_on_many_threads() -> None:
    def work(index: int) -> None:
        for _ in range(100):
            engine = Engine(TEST_POLICY, on_event=lambda e: None, clock=ManualClock())
            engine.start()
            engine.advance(61)
            assert engine.state() == State.LOCKED
            engine.close()

    assert run_threads(work) == []


def test_close_while_other_threads_call() -> None:
    engine = Engine(TEST_POLICY, on_event=lambda e: None)
    engine.start()
    closed = threading.Event()

    def work(index: int) -> None:
        if index == 0:
            for _ in range(200):
                engine.activity(ActivityKind.KEY)
            engine.close()
            closed.set()
            return
        while True:
            try:
                engine.activity(ActivityKind.KEY)
                engine.info()
            except EngineClosedError:
                return

    assert run_threads(work) == []
    assert closed.is_set() and engine.closed
