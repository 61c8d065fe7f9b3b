"""close(), context managers, use after close, garbage collection, callbacks and re-entrancy."""

from __future__ import annotations

import ctypes
import gc
import threading
import weakref
from typing import Any, Callable, List

import pytest
from conftest import TEST_POLICY, ManualFactory, Recorder, capture_unraisable, check_transition

from inactivity import (
    ActivityKind,
    Engine,
    EngineClosedError,
    Event,
    EventKind,
    InvalidHandleError,
    ManualClock,
    Reason,
    State,
)
from inactivity import _lib, engine as engine_module


def handle_is_valid(handle: int) -> bool:
    state = ctypes.c_int32()
    try:
        _lib.LIB.inact_get_state(handle, ctypes.byref(state))
    except InvalidHandleError:
        return False
    return True


def test_close_is_idempotent_and_the_handle_dies() -> None:
    engine = Engine(TEST_POLICY, clock=ManualClock())
    handle = engine.handle
    assert handle != 0 and handle_is_valid(handle)
    assert not engine.closed
    engine.close()
    engine.close()
    assert engine.closed
    assert not handle_is_valid(handle)
    assert "closed" in repr(engine)


def test_context_manager_closes() -> None:
    with Engine(TEST_POLICY, clock=ManualClock()) as engine:
        engine.start()
        assert "open" in repr(engine)
    assert engine.closed


def test_repr_delivers_no_callback() -> None:
    # A frozen process wakes past its idle deadline: the next query catches up with LOCKED.
    # repr (a debugger, a log line) must not be that query.
    recorder = Recorder()
    with Engine(TEST_POLICY, on_event=recorder, clock=ManualClock()) as engine:
        engine.start()
        engine.freeze(120)
        assert repr(engine) == f"<Engine {engine.handle:#x} open>"
        assert [e.state for e in recorder.events] == [State.ACTIVE]
        assert engine.state() is State.LOCKED  # the catch-up is still there for a real query
        assert [e.state for e in recorder.events] == [State.ACTIVE, State.LOCKED]


def test_every_method_raises_after_close() -> None:
    engine = Engine(TEST_POLICY, clock=ManualClock())
    engine.start()
    snapshot = engine.snapshot()
    engine.close()
    calls: List[Callable[[], Any]] = [
        engine.start,
        lambda: engine.restore(snapshot),
        lambda: engine.activity(ActivityKind.KEY),
        engine.continue_,
        engine.lock,
        engine.unlock,
        engine.unlock_failed,
        engine.end,
        lambda: engine.refresh_result(200),
        engine.background,
        engine.foreground,
        engine.window_shown,
        engine.window_hidden,
        lambda: engine.push_scope(30),
        lambda: engine.pop_scope(1),
        engine.acquire_hold,
        lambda: engine.release_hold(1),
        lambda: engine.set_policy(TEST_POLICY),
        lambda: engine.state(),
        lambda: engine.reason(),
        lambda: engine.remaining(),
        lambda: engine.policy(),
        engine.info,
        engine.next_deadline,
        engine.poll,
        lambda: engine.advance(1),
        lambda: engine.jump_wall(1),
        engine.reboot,
        engine.clock_now,
        engine.snapshot,
    ]
    for call in calls:
        with pytest.raises(EngineClosedError):
            call()
    assert issubclass(EngineClosedError, InvalidHandleError)


def test_an_unclosed_engine_is_freed_by_the_garbage_collector() -> None:
    recorder = Recorder()
    engine = Engine(TEST_POLICY, on_event=recorder, clock=ManualClock())
    handle, key = engine.handle, engine._key
    ref = weakref.ref(engine)
    del engine
    gc.collect()
    assert ref() is None
    assert not handle_is_valid(handle)
    assert key not in engine_module._engines


def test_a_callback_that_refers_to_its_engine_does_not_keep_it_alive() -> None:
    # The reference cycle engine -> callback -> engine is collectable: nothing global holds
    # the engine strongly (the shared C callback maps to it through a weak reference).
    seen: List[State] = []
    engine = Engine(TEST_POLICY, clock=ManualClock())
    engine.on_event = lambda event: seen.append(engine.state())
    engine.start()
    assert seen == [State.ACTIVE]
    handle, ref = engine.handle, weakref.ref(engine)
    del engine
    gc.collect()
    assert ref() is None and not handle_is_valid(handle)


def test_many_engines_come_and_go() -> None:
    before = len(engine_module._engines)
    for _ in range(300):
        with Engine(TEST_POLICY, clock=ManualClock(), on_event=lambda e: None) as engine:
            engine.start()
    engines = [Engine(TEST_POLICY, clock=ManualClock()) for _ in range(50)]
    del engines
    gc.collect()
    assert len(engine_module._engines) == before


def test_a_callback_may_call_its_engine_and_its_events_come_after_it_returns(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    depth = [0]
    nested: List[int] = []

    def hook(event: Event) -> None:
        depth[0] += 1
        nested.append(depth[0])
        if event.state == State.ACTIVE and event.reason == Reason.STARTED:
            engine.lock()  # queued: delivered after this callback returns
            assert len(recorder) == 1
        depth[0] -= 1

    recorder.hook = hook
    engine.start()
    assert [e.state for e in recorder.events] == [State.ACTIVE, State.LOCKED]
    assert nested == [1, 1]  # never recursive


def test_close_from_inside_the_callback_takes_effect_when_it_returns(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(tick=0), on_event=recorder)

    def hook(event: Event) -> None:
        if event.state == State.WARNING:
            engine.close()
            assert engine.closed

    recorder.hook = hook
    engine.start()
    engine.advance(50)  # WARNING is delivered inside advance(); the callback closes the engine
    assert engine.closed
    with pytest.raises(EngineClosedError):
        engine.advance(20)
    assert [e.state for e in recorder.events] == [State.ACTIVE, State.WARNING]


def test_an_exception_in_a_callback_goes_to_unraisablehook_and_events_go_on(manual_engine: ManualFactory, recorder: Recorder) -> None:
    def hook(event: Event) -> None:
        if event.kind == EventKind.STATE_CHANGED:
            raise RuntimeError(f"host bug at {event.state.name}")

    recorder.hook = hook
    engine = manual_engine(on_event=recorder)
    with capture_unraisable() as capture:
        engine.start()  # the exception does not escape into start()
        engine.advance(50)
        engine.advance(10)
    caught = capture.exceptions
    assert engine.state() == State.LOCKED
    assert [e.state for e in recorder.transitions] == [State.ACTIVE, State.WARNING, State.LOCKED]
    assert [str(e) for e in caught] == ["host bug at ACTIVE", "host bug at WARNING", "host bug at LOCKED"]
    assert all(isinstance(e, RuntimeError) for e in caught)


def test_on_event_can_be_replaced_and_removed(manual_engine: ManualFactory) -> None:
    first, second = Recorder(), Recorder()
    engine = manual_engine(on_event=first)
    engine.start()
    engine.on_event = second
    engine.lock()
    engine.on_event = None
    engine.unlock()
    assert engine.state() == State.ACTIVE
    assert [e.state for e in first.events] == [State.ACTIVE]
    check_transition(second[0], State.ACTIVE, State.LOCKED, Reason.MANUAL_LOCK, 0)
    assert len(second) == 1


def test_scheduler_thread_delivers_timed_events_on_the_real_clock() -> None:
    # Real clock, generous bounds: idle 300 ms with a 100 ms warning; the events must come
    # from the library's scheduler thread, not before their deadlines, and within seconds.
    recorder = Recorder()
    policy = TEST_POLICY.replace(idle_timeout=0.3, warning=0.1, tick=0)
    with Engine(policy, on_event=recorder) as engine:
        engine.start()
        started = recorder[0].time
        assert recorder.wait_state(State.LOCKED, timeout=10)
        warning, locked = recorder.transitions[1:3]
        assert (warning.state, locked.state, locked.reason) == (State.WARNING, State.LOCKED, Reason.IDLE_TIMEOUT)
        assert warning.time - started >= policy.idle_timeout - policy.warning
        assert locked.time - started >= policy.idle_timeout
        assert recorder.threads[0] == threading.get_ident()  # caused by start(): this thread
        assert recorder.threads[2] != threading.get_ident()  # timer-caused: the scheduler thread


def test_an_exception_on_the_scheduler_thread_does_not_stop_later_events() -> None:
    recorder = Recorder()

    def hook(event: Event) -> None:
        if event.state == State.WARNING:
            raise ValueError("boom")

    recorder.hook = hook
    with capture_unraisable() as capture:
        with Engine(TEST_POLICY.replace(idle_timeout=0.2, warning=0.1, tick=0), on_event=recorder) as engine:
            engine.start()
            assert recorder.wait_state(State.LOCKED, timeout=10)
    assert [type(e) for e in capture.exceptions] == [ValueError]
    assert recorder.threads[1] != threading.get_ident()  # it was raised on the scheduler thread
