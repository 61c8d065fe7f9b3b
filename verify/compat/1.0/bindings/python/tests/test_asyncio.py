"""The asyncio adapter: events on the running loop, host mode driven by the loop's timers."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import List

import pytest
from conftest import TEST_POLICY, check_transition

from inactivity import ActivityKind, Delivery, EngineClosedError, Event, EventKind, ManualClock, Reason, State
from inactivity.aio import AsyncEngine


async def next_event(engine: AsyncEngine, timeout: float = 10.0) -> Event:
    return await asyncio.wait_for(engine.__anext__(), timeout)


def test_manual_clock_events_arrive_through_async_iteration() -> None:
    async def main() -> List[Event]:
        async with AsyncEngine(TEST_POLICY.replace(tick=0), clock=ManualClock()) as engine:
            assert engine.info().delivery == Delivery.HOST
            engine.start()
            engine.advance(50)
            engine.advance(10)
            engine.unlock()
            events = [await next_event(engine) for _ in range(4)]
            assert engine._timer is None  # a manual clock arms no loop timer
        return events

    events = asyncio.run(main())
    check_transition(events[0], State.LOADING, State.ACTIVE, Reason.STARTED, 0)
    check_transition(events[1], State.ACTIVE, State.WARNING, Reason.IDLE, 50_000)
    check_transition(events[2], State.WARNING, State.LOCKED, Reason.IDLE_TIMEOUT, 60_000)
    check_transition(events[3], State.LOCKED, State.ACTIVE, Reason.UNLOCKED, 60_000)


def test_iteration_ends_after_close_once_queued_events_are_read() -> None:
    async def main() -> List[State]:
        engine = AsyncEngine(TEST_POLICY, clock=ManualClock())
        engine.start()
        engine.lock()
        engine.close()
        engine.close()
        with pytest.raises(EngineClosedError):
            engine.unlock()
        return [event.state async for event in engine]

    assert asyncio.run(main()) == [State.ACTIVE, State.LOCKED]


def test_the_loop_timer_drives_the_real_clock_on_the_loop_thread() -> None:
    # Real clock, generous bounds: idle 300 ms, warning 100 ms, ticks every 50 ms.
    policy = TEST_POLICY.replace(idle_timeout=0.3, warning=0.1, tick=0.05)
    threads: List[int] = []

    async def main() -> List[Event]:
        loop_thread = threading.get_ident()
        async with AsyncEngine(policy, on_event=lambda e: threads.append(threading.get_ident())) as engine:
            engine.start()
            events: List[Event] = []
            async for event in engine:
                events.append(event)
                if event.state == State.LOCKED:
                    break
                assert len(events) < 50
            assert set(threads) == {loop_thread}
            return events

    started = time.monotonic()
    events = asyncio.run(asyncio.wait_for(main(), 15))
    assert time.monotonic() - started >= 0.3
    transitions = [e for e in events if e.kind == EventKind.STATE_CHANGED]
    assert [e.state for e in transitions] == [State.ACTIVE, State.WARNING, State.LOCKED]
    start, warning, locked = (e.time for e in transitions)
    assert warning - start >= timedelta(milliseconds=200)  # never early
    assert locked - start >= timedelta(milliseconds=300)
    assert any(e.kind == EventKind.TICK for e in events)


def test_activity_postpones_the_loop_timer() -> None:
    policy = TEST_POLICY.replace(idle_timeout=0.4, warning=0, tick=0)

    async def main() -> timedelta:
        async with AsyncEngine(policy) as engine:
            engine.start()
            start = (await next_event(engine)).time
            for _ in range(4):  # activity every 100 ms for 400 ms
                await asyncio.sleep(0.1)
                engine.activity(ActivityKind.KEY)
            armed = engine._timer
            engine.activity(ActivityKind.KEY)
            assert engine._timer is armed  # activity does not re-arm the timer
            locked = await next_event(engine)
            assert (locked.state, locked.reason) == (State.LOCKED, Reason.IDLE_TIMEOUT)
            return locked.time - start

    assert asyncio.run(asyncio.wait_for(main(), 15)) >= timedelta(milliseconds=800)


def test_inputs_from_another_thread_are_delivered_on_the_loop() -> None:
    async def main() -> None:
        loop_thread = threading.get_ident()
        seen: List[int] = []
        async with AsyncEngine(TEST_POLICY.replace(idle_timeout=0.3, warning=0.1, tick=0), on_event=lambda e: seen.append(threading.get_ident())) as engine:
            await asyncio.to_thread(engine.start)  # the STARTED event is produced on the worker
            event = await next_event(engine)
            assert event.state == State.ACTIVE
            # ...but the timer it asked for is armed on the loop, which then drives the rest
            warning = await next_event(engine)
            locked = await next_event(engine)
            assert (warning.state, locked.state) == (State.WARNING, State.LOCKED)
            assert seen[0] != loop_thread and set(seen[1:]) == {loop_thread}

    asyncio.run(asyncio.wait_for(main(), 15))


def test_needs_a_running_loop() -> None:
    with pytest.raises(RuntimeError):
        AsyncEngine()
