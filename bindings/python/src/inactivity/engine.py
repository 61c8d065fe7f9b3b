"""``Engine``: one user session, over the C ABI.

Ownership and lifetime
    An ``Engine`` owns one C engine. ``close()`` (or leaving a ``with`` block) destroys it; it is
    idempotent. If an engine is garbage-collected unclosed, a ``weakref.finalize`` destroys it,
    and at interpreter exit every engine still open is destroyed (``weakref.finalize`` runs at
    ``atexit``, before the interpreter starts finalizing), so the scheduler thread never calls
    into a dying interpreter. A closed engine raises ``EngineClosedError`` on every call.

Callbacks
    All engines share one C callback (a module-level ``CFUNCTYPE`` object that lives as long as
    the module), with an integer key as ``user_data``. The key maps to a *weak* reference to the
    ``Engine``. So the C side can never call a freed ctypes thunk (not even when an engine is
    closed from inside its own callback, which the C ABI defers until the callback returns), and
    a user callback that refers to its engine does not keep the engine alive.
    ``on_event`` runs on the thread that caused the event, or on the library's scheduler thread
    for timer-caused events of a THREAD engine on the system clock: keep it short. An exception
    raised by ``on_event`` goes to ``sys.unraisablehook`` (ctypes routes it there) and the engine
    carries on. Events are serialized per engine and arrive in order; a call made from inside
    ``on_event`` queues its events, which arrive after ``on_event`` returns.

Threads
    Every method may be called from any thread. ``close()`` from another thread waits for a
    callback of this engine that is running: do not call it while holding a lock that your
    callback takes.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import itertools
import threading
import weakref
from ctypes import byref, c_int32, c_int64, c_size_t, c_uint32, c_uint64
from datetime import datetime, timedelta
from typing import Any, Callable, Dict, Iterator, Optional, Union

from . import _lib
from ._generated.inputs import GeneratedInputs
from ._generated.views import EventView, InfoView
from ._time import (
    Duration,
    check_int,
    duration_to_ms,
    ms_to_duration,
    ms_to_wall,
    wall_to_ms,
)
from .enums import ActivityKind, Auth, ClockKind, Delivery, EventKind, HolderKind, Preset, Reason, RefreshOutcome, State
from .enums import enum_or_int as _enum
from .errors import EngineClosedError, InvalidHandleError
from ._names import value_of
from ._strict import strict_class
from .policy import Ceilings, Policy, python_terms

__all__ = ["ClockReading", "Engine", "Event", "EventCallback", "Info", "ManualClock", "SNAPSHOT_MAX_SIZE"]

#: Upper bound of a snapshot's size in bytes (INACT_SNAPSHOT_MAX_SIZE).
SNAPSHOT_MAX_SIZE = 96

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1


@dataclasses.dataclass(frozen=True)
class Event(EventView):
    """An event from the engine: a state change, a countdown tick, or a keepalive (ping the
    server now: ``time`` is then the last user activity it carries, its age ``now - time``).

    ``time`` is when it took effect (the deadline applied) and ``now`` when it was evaluated,
    both on the engine's clock; ``remaining`` runs from ``now`` to the next lock or expiry
    (``NEVER`` if none); ``required_auth`` is what an unlock needs at ``now`` (NONE unless
    LOCKED).
    """


@dataclasses.dataclass(frozen=True)
class Info(InfoView):
    """A full view of an engine. Instants are on the engine's clock; None means "none"."""


@dataclasses.dataclass(frozen=True)
class SchedulerFaults:
    """A platform fault the scheduler thread survives (inact_scheduler_faults): setting its
    timer failed after it had one. While ``degraded`` (the last attempt failed) a THREAD
    engine's deadlines may fire up to 1 s late, never early; ``failures`` counts the failed
    attempts since the process started, ``last_errno`` is the latest one's errno (0 if none)."""

    degraded: bool
    failures: int
    last_errno: int


def scheduler_faults() -> SchedulerFaults:
    """The scheduler thread's timer faults, for a health check or a log line."""
    degraded, failures, last_errno = c_int32(), c_uint64(), c_int32()
    _lib.LIB.inact_scheduler_faults(byref(degraded), byref(failures), byref(last_errno))
    return SchedulerFaults(degraded.value != 0, failures.value, last_errno.value)


@dataclasses.dataclass(frozen=True)
class ClockReading:
    """The engine's clock: monotonic time, wall time (aware, UTC) and boot id."""

    monotonic: timedelta
    wall: datetime
    boot_id: int


@dataclasses.dataclass(frozen=True, init=False)
class ManualClock:
    """Asks for a manual clock: time moves only through ``Engine.advance`` (and ``jump_wall``,
    ``reboot``), and due events are delivered inside that call. For tests and simulation.

    start: the initial monotonic time (>= 0). wall: the initial wall time (an aware datetime;
    None for the library's default). boot_id: the initial boot id (!= 0).
    """

    start: timedelta
    wall: Optional[datetime]
    boot_id: int

    def __init__(self, start: Duration = 0, wall: Optional[datetime] = None, boot_id: int = 1) -> None:
        object.__setattr__(self, "start", ms_to_duration(duration_to_ms(start, "start")))
        if wall is not None:
            wall_to_ms(wall, "wall")  # type and awareness checked now, not at engine creation
        object.__setattr__(self, "wall", wall)
        object.__setattr__(self, "boot_id", check_int(boot_id, "boot_id", 0, 2**64 - 1))


#: The type of ``on_event``.
EventCallback = Callable[[Event], object]

# -------------------------------------------------------------------------------------------------
# The one C callback shared by every engine. user_data is a key into _engines.
# -------------------------------------------------------------------------------------------------

_engines: Dict[int, "weakref.ReferenceType[Engine]"] = {}
_keys = itertools.count(1)
_keys_lock = threading.Lock()


def _dispatch(event: Any, user_data: Optional[int]) -> None:
    ref = _engines.get(user_data or 0)
    engine = ref() if ref is not None else None
    if engine is not None:
        c = event.contents
        if c.kind not in _EVENT_KINDS:
            return  # a kind of a newer library: not ours to interpret (the same in Kotlin)
        # An exception raised here propagates into ctypes, which hands it to
        # sys.unraisablehook and returns normally to the library: the engine carries on.
        engine._deliver(Event._from_c(c))


_EVENT_KINDS = frozenset(int(k) for k in EventKind)


_DISPATCH = _lib.CALLBACK(_dispatch)
_NO_USER_DATA_FREE = _lib.USER_DATA_FREE()  # NULL: the user_data key owns nothing


def _destroy(handle: int, key: int) -> None:
    """The finalizer: runs once, from close(), from the garbage collector, or at exit."""
    try:
        _lib.LIB.inact_destroy(handle)
    finally:
        _engines.pop(key, None)


class Engine(GeneratedInputs):
    """One user session.

    policy: the policy (None: ``Policy()``, the defaults).
    on_event: called with every ``Event`` (state changes and countdown ticks); may be None.
    delivery: THREAD (default; timed events come from the library's scheduler thread) or HOST
        (no thread: the host calls ``next_deadline()`` and ``poll()``; see ``inactivity.aio``).
    clock: a ``ManualClock`` for tests and simulation; None for the system clock.

    Raises TypeError naming the argument for an argument of the wrong type (a policy that is not
    a ``Policy``, an ``on_event`` that is not callable, a clock that is not a ``ManualClock``),
    InvalidArgumentError for an invalid policy or configuration, LimitError when too many
    engines are open. Nothing is created when it raises.
    """

    _handle: int
    _key: int
    _finalizer: "weakref.finalize[[int, int], Engine]"

    def __init__(
        self,
        policy: Optional[Policy] = None,
        *,
        on_event: Optional[EventCallback] = None,
        delivery: Delivery = Delivery.THREAD,
        clock: Optional[ManualClock] = None,
    ) -> None:
        # Types at the door: a wrong one would otherwise surface later, as an AttributeError in
        # the policy conversion or a TypeError logged for every event delivered.
        if policy is not None and not isinstance(policy, Policy):
            named = f"Preset.{policy.name}" if isinstance(policy, Preset) else repr(policy)
            hint = f" (a preset: Policy.preset({named}))" if isinstance(policy, (str, Preset)) else ""
            raise TypeError(f"policy must be a Policy or None, not {type(policy).__name__}{hint}")
        if on_event is not None and not callable(on_event):
            raise TypeError(f"on_event must be a callable taking an Event, or None, not {type(on_event).__name__}")
        if clock is not None and not isinstance(clock, ManualClock):
            raise TypeError(f"clock must be a ManualClock or None, not {type(clock).__name__}")
        config = _lib.CConfig()
        _lib.LIB.inact_config_init_sized(byref(config), ctypes.sizeof(config))
        config.delivery = check_int(delivery, "delivery", INT32_MIN, INT32_MAX)
        if clock is not None:
            config.clock = ClockKind.MANUAL
            config.manual_start_ms = duration_to_ms(clock.start, "clock.start")
            if clock.wall is not None:
                config.manual_wall_ms = wall_to_ms(clock.wall, "clock.wall")
            config.manual_boot_id = clock.boot_id
        c_policy = policy._to_c() if policy is not None else None
        self._on_event = on_event
        with _keys_lock:
            self._key = next(_keys)
        _engines[self._key] = weakref.ref(self)
        handle = c_uint64()
        try:
            with python_terms():
                _lib.LIB.inact_engine_create(
                    byref(config),
                    byref(c_policy) if c_policy is not None else None,
                    _DISPATCH,
                    self._key,
                    _NO_USER_DATA_FREE,
                    byref(handle),
                )
        except BaseException:
            del _engines[self._key]
            raise
        self._handle = handle.value
        self._finalizer = weakref.finalize(self, _destroy, self._handle, self._key)

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Destroys the engine. Idempotent. No callback of it runs after this returns (from
        inside its own callback: after that callback returns)."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def handle(self) -> int:
        """The C handle (``inact_engine``); ``Event.engine_id`` carries the same number."""
        return self._handle

    @property
    def on_event(self) -> Optional[EventCallback]:
        return self._on_event

    @on_event.setter
    def on_event(self, callback: Optional[EventCallback]) -> None:
        self._on_event = callback

    def __repr__(self) -> str:
        # No call into the library: every query evaluates the deadlines first and may deliver
        # a catch-up event, and repr runs in debuggers, logs and tracebacks, where a callback
        # must not fire (nor a lock be taken).
        return f"<{type(self).__name__} {self._handle:#x} {'closed' if self.closed else 'open'}>"

    def _deliver(self, event: Event) -> None:
        callback = self._on_event
        if callback is not None:
            callback(event)

    def _call(self, func: Any, *args: Any) -> None:
        """Calls an inact_ function on this engine; every input and query goes through here."""
        if not self._finalizer.alive:
            raise EngineClosedError()
        try:
            func(self._handle, *args)
        except InvalidHandleError:
            if not self._finalizer.alive:  # closed by another thread meanwhile
                raise EngineClosedError() from None
            raise
        finally:
            self._after_call()

    def _after_call(self) -> None:
        """Hook for subclasses: runs after every call into the engine (even a failed one)."""

    # -- inputs ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Starts a session (the user signed in): LOADING or EXPIRED -> ACTIVE (STARTED)."""
        self._call(_lib.LIB.inact_start)

    def restore(self, snapshot: Union[bytes, bytearray, memoryview]) -> None:
        """Restores a snapshot from ``snapshot()`` (LOADING only). The time since the snapshot
        counts as background time. Raises SnapshotError for corrupt bytes, and then the engine
        is EXPIRED (RESTORE_FAILED)."""
        data = bytes(snapshot)
        self._call(_lib.LIB.inact_restore, data, len(data))

    def activity(self, kind: Union[ActivityKind, int, str]) -> None:
        """Records user activity of one kind (``ActivityKind.KEY``, ``"KEY"`` or ``"key"``, 8).
        Ignored when it does not count (not ACTIVE, in background, a kind the policy does not
        count)."""
        # Hot path (one call per touch): an unchecked ctypes call and an inline status check.
        # No _after_call: activity never moves a deadline earlier, so an armed timer stays valid.
        if (type(kind) is ActivityKind or type(kind) is int) and 0 <= kind <= UINT32_MAX:
            if _lib.ACTIVITY_UNCHECKED(self._handle, kind) == 0:
                return
        if isinstance(kind, str):  # a name, read by the library as in every binding
            self._call(_lib.LIB.inact_activity, value_of("activity_kind", kind))
            return
        # Bad arguments, a closed engine, or a failure: the checked path raises the right error
        # (a failed call changed nothing, so calling again is harmless).
        self._call(_lib.LIB.inact_activity, check_int(kind, "kind", 0, UINT32_MAX))

    def continue_(self) -> None:
        """The user chose Continue in WARNING: -> ACTIVE (CONTINUED)."""
        self._call(_lib.LIB.inact_continue)

    def lock(self) -> None:
        """Locks now: ACTIVE/WARNING -> LOCKED (MANUAL_LOCK); a no-op when LOCKED."""
        self._call(_lib.LIB.inact_lock)

    def unlock(self, method: Union[Auth, int] = Auth.CREDENTIAL) -> None:
        """The host verified the user with ``method``: LOCKED -> ACTIVE (UNLOCKED). Raises
        WeakAuthError for a biometric where the credential is required, OfflineError past the
        offline timeout (report ``server_contact()`` first)."""
        self._call(_lib.LIB.inact_unlock_with, check_int(method, "method", INT32_MIN, INT32_MAX))

    def unlock_failed(self, method: Union[Auth, int] = Auth.CREDENTIAL) -> int:
        """A re-verification with ``method`` failed (LOCKED only). Returns the failures in a row
        so far; at the policy's limit the session is EXPIRED (UNLOCK_FAILURES). A method the
        lock does not accept raises WeakAuthError and is not counted."""
        failures = c_uint32()
        self._call(_lib.LIB.inact_unlock_failed_with, check_int(method, "method", INT32_MIN, INT32_MAX), byref(failures))
        return failures.value

    def required_auth(self) -> Auth:
        """What an unlock needs now: NONE unless LOCKED."""
        value = c_int32()
        self._call(_lib.LIB.inact_get_required_auth, byref(value))
        return _enum(Auth, value.value)

    def expect_interruption(self, max_duration: Duration) -> None:
        """Announces the app's own system sheet (photo picker, share sheet, Face ID): a
        background that begins within ``max_duration`` and ends by then does not count toward
        the background timeout. Single use; 0 withdraws it. At most the policy's
        ``expected_interruption_max``; ACTIVE or WARNING, not in background."""
        self._call(_lib.LIB.inact_expect_interruption, duration_to_ms(max_duration, "max_duration"))

    def token_rotated(self, generation: int) -> None:
        """The host stored a new refresh token of ``generation``; an ``invalid_grant`` for an
        older generation is then STALE. Generations never go back."""
        self._call(_lib.LIB.inact_token_rotated, check_int(generation, "generation", 0, UINT64_MAX))

    def end(self, reason: Union[Reason, int, str] = Reason.LOGOUT) -> None:
        """Ends the session with LOGOUT, REVOKED, PASSWORD_CHANGED or DEVICE_LIMIT (a Reason, its
        name in any case, or its value); a no-op when EXPIRED."""
        if isinstance(reason, str):
            reason = value_of("reason", reason)  # the library's reading; its message lists the names
        self._call(_lib.LIB.inact_end, check_int(reason, "reason", INT32_MIN, INT32_MAX))

    def holder_report(
        self,
        kind: Union[HolderKind, int],
        *,
        duration: Duration = 0,
        reason: Union[Reason, int, str] = Reason.NONE,
    ) -> None:
        """What another holder of the session (a tab, the server) observed. ``duration`` is the
        age of what it saw (ACTIVITY, LOCKED, EXPIRED) or the time left to its deadline
        (IDLE_DEADLINE, ABSOLUTE_DEADLINE), relative to now: holders do not share this
        engine's clock. ``reason`` is the holder's for LOCKED and EXPIRED, NONE otherwise.
        It only makes the session stricter: nothing reported unlocks or extends it.

        ``engine.holder_report(HolderKind.EXPIRED, reason=Reason.DEVICE_LIMIT)`` after a 401;
        ``engine.holder_report(HolderKind.IDLE_DEADLINE, duration=timedelta(minutes=14))`` from a
        keepalive's answer. ``reason`` may be a name ("device-limit"), read by the library.
        ``duration`` and ``reason`` are keywords only: each kind takes one of the two, and C's
        positional order (kind, reason, ms) is not Kotlin's (tools/codegen/names.toml)."""
        if isinstance(reason, str):
            reason = value_of("reason", reason)
        self._call(
            _lib.LIB.inact_holder_report,
            check_int(kind, "kind", INT32_MIN, INT32_MAX),
            check_int(reason, "reason", INT32_MIN, INT32_MAX),
            duration_to_ms(duration, "duration"),
        )

    def refresh_result(self, http_status: int, oauth_error: Optional[str] = None, generation: int = 0) -> RefreshOutcome:
        """Reports a token refresh and returns its classification. Only REVOKED (401, or 400
        with ``invalid_grant``) changes the engine: a network error never ends a session.
        A revoked answer for an older ``generation`` than the newest seen is STALE (a rotation
        race) and changes nothing; 0 = not tracked. A 2xx is a server contact.
        http_status: 0 for "no response", else 100..599."""
        status = check_int(http_status, "http_status", INT32_MIN, INT32_MAX)
        gen = check_int(generation, "generation", 0, UINT64_MAX)
        error: Optional[bytes] = None
        if oauth_error is not None:
            if "\0" in oauth_error:
                raise ValueError("oauth_error must not contain NUL characters")
            error = oauth_error.encode("utf-8")
        outcome = c_int32()
        self._call(_lib.LIB.inact_refresh_result_gen, status, error, gen, byref(outcome))
        return _enum(RefreshOutcome, outcome.value)

    def foreground(self) -> None:
        """The app came to foreground; a too-long background locks before this returns."""
        self._call(_lib.LIB.inact_foreground)

    def push_scope(self, idle_timeout: Duration) -> int:
        """Opens a scope with a stricter idle timeout; returns its id for ``pop_scope``."""
        scope_id = c_uint64()
        self._call(_lib.LIB.inact_scope_push, duration_to_ms(idle_timeout, "idle_timeout"), byref(scope_id))
        return scope_id.value

    def pop_scope(self, scope_id: int) -> None:
        """Closes a scope (in any order). Raises NotFoundError for an unknown id."""
        self._call(_lib.LIB.inact_scope_pop, check_int(scope_id, "scope_id", 0, UINT64_MAX))

    @contextlib.contextmanager
    def scope(self, idle_timeout: Duration) -> Iterator[int]:
        """``with engine.scope(timedelta(minutes=3)):`` a stricter idle timeout for a block."""
        scope_id = self.push_scope(idle_timeout)
        try:
            yield scope_id
        finally:
            if not self.closed:
                self.pop_scope(scope_id)

    def acquire_hold(self) -> int:
        """Suspends the idle countdown until ``release_hold`` (a video plays); returns its id."""
        hold_id = c_uint64()
        self._call(_lib.LIB.inact_hold_acquire, byref(hold_id))
        return hold_id.value

    def release_hold(self, hold_id: int) -> None:
        """Closes a hold; on the last one, last activity = now. NotFoundError for an unknown id."""
        self._call(_lib.LIB.inact_hold_release, check_int(hold_id, "hold_id", 0, UINT64_MAX))

    @contextlib.contextmanager
    def hold(self) -> Iterator[int]:
        """``with engine.hold():`` suspends the idle countdown for a block."""
        hold_id = self.acquire_hold()
        try:
            yield hold_id
        finally:
            if not self.closed:
                self.release_hold(hold_id)

    def set_policy(self, policy: Policy) -> None:
        """Replaces the policy; deadlines are recomputed at once. Raises CeilingError when it is
        laxer than the ceilings set on the engine."""
        if not isinstance(policy, Policy):
            raise TypeError(f"policy must be a Policy, not {type(policy).__name__}")
        with python_terms():
            self._call(_lib.LIB.inact_set_policy, byref(policy._to_c()))

    def set_ceilings(self, ceilings: Ceilings) -> None:
        """Sets the administrator's limits and makes the current policy as strict as them;
        every later ``set_policy`` must be within them."""
        if not isinstance(ceilings, Ceilings):
            raise TypeError(f"ceilings must be a Ceilings, not {type(ceilings).__name__}")
        with python_terms():
            self._call(_lib.LIB.inact_set_ceilings, byref(ceilings._to_c()))

    def ceilings(self) -> Ceilings:
        """The ceilings set on the engine (no limits by default)."""
        c = _lib.CCeilings()
        c.size = ctypes.sizeof(c)
        self._call(_lib.LIB.inact_get_ceilings, byref(c))
        return Ceilings._from_c(c)

    # -- queries: methods, not properties, because each evaluates deadlines first and so may
    #    deliver a catch-up event to on_event before it returns ---------------------------------

    def state(self) -> State:
        value = c_int32()
        self._call(_lib.LIB.inact_get_state, byref(value))
        return _enum(State, value.value)

    def reason(self) -> Reason:
        value = c_int32()
        self._call(_lib.LIB.inact_get_reason, byref(value))
        return _enum(Reason, value.value)

    def remaining(self) -> timedelta:
        """Time to the next lock or expiry; NEVER if none is scheduled."""
        value = c_int64()
        self._call(_lib.LIB.inact_get_remaining, byref(value))
        return ms_to_duration(value.value)

    def policy(self) -> Policy:
        """A copy of the engine's policy (change it with ``set_policy``)."""
        c = _lib.CPolicy()
        c.size = ctypes.sizeof(c)
        self._call(_lib.LIB.inact_get_policy, byref(c))
        return Policy._from_c(c)

    def info(self) -> Info:
        """A full view of the engine."""
        c = _lib.CInfo()
        _lib.LIB.inact_info_init_sized(byref(c), ctypes.sizeof(c))
        self._call(_lib.LIB.inact_get_info, byref(c))
        return Info._from_c(c)

    # -- host-mode delivery ---------------------------------------------------------------------

    def next_deadline(self) -> timedelta:
        """Time until the engine next needs ``poll()``: 0 when something is due, NEVER when
        nothing is scheduled. Arm one timer for it."""
        value = c_int64()
        self._call(_lib.LIB.inact_next_deadline, byref(value))
        return ms_to_duration(value.value)

    def poll(self) -> None:
        """Evaluates deadlines and delivers due events on this thread (early or late is harmless)."""
        self._call(_lib.LIB.inact_poll)

    # -- manual clock (engines created with clock=ManualClock(...); others: WrongClockError) ---

    def advance(self, by: Duration) -> None:
        """Moves the clock forward as on the real clock: the engine wakes at every deadline on the
        way, so every event (WARNING, each tick, LOCKED, ...) is delivered inside this call."""
        self._call(_lib.LIB.inact_clock_advance, duration_to_ms(by, "by"))

    def freeze(self, by: Duration) -> None:
        """Moves the clock forward as for a frozen process: nothing is delivered now; the next
        call catches up with one transition to the final state."""
        self._call(_lib.LIB.inact_clock_freeze, duration_to_ms(by, "by"))

    def jump_wall(self, by: Duration) -> None:
        """Moves only the wall clock (negative: the user set it back)."""
        self._call(_lib.LIB.inact_clock_jump_wall, duration_to_ms(by, "by"))

    def reboot(self, downtime: Duration = 0) -> None:
        """Simulates a reboot: new boot id, monotonic clock back to 0, wall clock + downtime."""
        self._call(_lib.LIB.inact_clock_reboot, duration_to_ms(downtime, "downtime"))

    def clock_now(self) -> ClockReading:
        """Reads the engine's clock (any clock kind)."""
        monotonic, wall, boot_id = c_int64(), c_int64(), c_uint64()
        self._call(_lib.LIB.inact_clock_now, byref(monotonic), byref(wall), byref(boot_id))
        return ClockReading(ms_to_duration(monotonic.value), ms_to_wall(wall.value), boot_id.value)

    # -- snapshot -------------------------------------------------------------------------------

    def snapshot(self) -> bytes:
        """The session as bytes, to persist when the app goes to background and ``restore`` on
        cold start. InvalidStateError in LOADING (no session to save)."""
        size = c_size_t()
        self._call(_lib.LIB.inact_snapshot_size, byref(size))
        buffer = ctypes.create_string_buffer(max(size.value, SNAPSHOT_MAX_SIZE))
        written = c_size_t()
        self._call(_lib.LIB.inact_snapshot_write, buffer, len(buffer), byref(written))
        return buffer.raw[: written.value]



# An unknown keyword is refused with the accepted ones listed (_strict, issue 32).
strict_class(ManualClock)
strict_class(Engine)
