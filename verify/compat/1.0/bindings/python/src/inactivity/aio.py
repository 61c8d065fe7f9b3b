"""asyncio adapter: an engine whose events arrive on the running event loop.

``AsyncEngine`` is an ``Engine`` in HOST delivery mode: the library starts no thread. The
adapter keeps at most one loop timer (``loop.call_at``) armed at the engine's next deadline
and calls ``poll()`` when it fires, so every event is produced on the loop's own thread and
put on a queue that ``async for`` reads::

    async with AsyncEngine(policy) as engine:
        engine.start()
        async for event in engine:
            ...

Calls made from the loop thread re-arm the timer at once; calls from other threads are
allowed and hand the re-arm to the loop (``call_soon_threadsafe``). As the design asks, the
timer is not re-armed per activity: it is moved only when the deadline became earlier, and a
timer that fires early just polls (a no-op) and re-arms. With a ``ManualClock`` no timer is
armed at all: ``advance()`` delivers due events inside the call.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from ctypes import byref, c_int64
from typing import AsyncIterator, Optional

from . import _lib
from ._time import INT64_MAX
from .engine import Engine, Event, EventCallback, ManualClock
from .enums import Delivery
from .errors import InactivityError
from .policy import Policy

__all__ = ["AsyncEngine"]


class AsyncEngine(Engine):
    """An engine driven by the running asyncio loop; iterate it for its events.

    Must be created inside a running event loop (``asyncio.get_running_loop()``). ``on_event``,
    if given, is also called for every event (on the loop thread, unless an input was made
    from another thread). Iteration ends after ``close()``, once the queued events are read.
    """

    def __init__(
        self,
        policy: Optional[Policy] = None,
        *,
        on_event: Optional[EventCallback] = None,
        clock: Optional[ManualClock] = None,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._queue: asyncio.Queue[Optional[Event]] = asyncio.Queue()
        self._timer: Optional[asyncio.TimerHandle] = None
        self._timer_when = 0.0
        self._manual_clock = clock is not None
        super().__init__(policy, on_event=on_event, delivery=Delivery.HOST, clock=clock)

    # -- events ---------------------------------------------------------------------------------

    def _deliver(self, event: Event) -> None:
        if threading.get_ident() == self._loop_thread:
            self._queue.put_nowait(event)
        else:
            self._call_soon_threadsafe(self._queue.put_nowait, event)
        super()._deliver(event)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        event = await self._queue.get()
        if event is None:
            self._queue.put_nowait(None)  # every later reader ends too
            raise StopAsyncIteration
        return event

    def events(self) -> AsyncIterator[Event]:
        """The events as an async iterator (the same as iterating the engine)."""
        return self

    # -- lifecycle ------------------------------------------------------------------------------

    async def __aenter__(self) -> "AsyncEngine":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        was_open = not self.closed
        super().close()
        if was_open:
            if threading.get_ident() == self._loop_thread:
                self._cancel_timer()
                self._queue.put_nowait(None)
            else:
                self._call_soon_threadsafe(self._cancel_timer)
                self._call_soon_threadsafe(self._queue.put_nowait, None)

    # -- the loop timer -------------------------------------------------------------------------

    def _after_call(self) -> None:
        if self._manual_clock or self.closed:
            return
        if threading.get_ident() == self._loop_thread:
            self._rearm()
        else:
            self._call_soon_threadsafe(_rearm, weakref.ref(self))

    def _rearm(self) -> None:
        """Arms the loop timer at the engine's next deadline, unless one is armed earlier."""
        if self.closed:
            return
        delay_ms = c_int64()
        try:
            # Straight to the C function: going through _call would re-enter this hook.
            _lib.LIB.inact_next_deadline(self._handle, byref(delay_ms))
        except InactivityError:
            return  # closed by another thread meanwhile
        if delay_ms.value >= INT64_MAX:
            self._cancel_timer()
            return
        # At least 1 ms: the engine's resolution; avoids spinning on a sub-ms remainder.
        when = self._loop.time() + max(delay_ms.value, 1) / 1000.0
        if self._timer is not None and not self._timer.cancelled() and self._timer_when <= when:
            return  # fires earlier; it polls and re-arms then
        self._cancel_timer()
        self._timer = self._loop.call_at(when, _fire, weakref.ref(self))
        self._timer_when = when

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _call_soon_threadsafe(self, callback: object, *args: object) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, *args)  # type: ignore[arg-type]
        except RuntimeError:
            pass  # the loop is closed: nobody is left to receive events


# Timer callbacks hold the engine weakly, so an armed timer never keeps an engine alive.


def _fire(ref: "weakref.ReferenceType[AsyncEngine]") -> None:
    engine = ref()
    if engine is None or engine.closed:
        return
    engine._timer = None
    try:
        engine.poll()  # delivers due events, then re-arms through _after_call
    except InactivityError:
        pass  # closed meanwhile


def _rearm(ref: "weakref.ReferenceType[AsyncEngine]") -> None:
    engine = ref()
    if engine is not None:
        engine._rearm()
