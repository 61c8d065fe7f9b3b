"""The session API of the server: sign-in, requests, the sessions list, revocations, unlock.

Every answer is a decision of the core (``inact_server_decide``) over the stored record at the
fleet's wall clock, written back by compare-and-set (``stores``): read, decide, write only if
unchanged, else read and decide again. Nothing about idle, lock or expiry is decided here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from datetime import timedelta
from typing import Any, Callable, List, Mapping, Optional, Union

from .._time import duration_to_ms
from ..enums import IdleAction, Reason, State
from ..errors import InvalidArgumentError
from ..enums import Status
from ..policy import Policy
from ..policy_file import load_policy, parse_duration_ms
from . import _core
from ._core import Decision, Input

#: INACT_NEVER, as a policy's duration says "never".
_NEVER_MS = 2**63 - 1
from .ids import session_handle, valid_handle, valid_session_id
from .stores import Entry, SQLiteStore, Store, StoreUnavailable, Update, open_store

__all__ = [
    "DeviceLimitError",
    "Outcome",
    "SessionInfo",
    "SessionManager",
    "SignIn",
]

_MAX_USER = 256
_MAX_DEVICE = 200
_ON_DEVICE_LIMIT = ("evict-oldest", "refuse")


class DeviceLimitError(Exception):
    """A sign-in refused: the user has as many live sessions as the device limit allows (the
    manager's ``on_device_limit="refuse"``)."""

    def __init__(self, user: str, limit: int) -> None:
        super().__init__(f"user {user!r} already has {limit} live sessions (the device limit)")
        self.user = user
        self.limit = limit


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The answer for one session at one instant, as the wire carries it.

    ``state`` and ``reason`` are the names of the core's state and reason (``"ACTIVE"``,
    ``"IDLE_TIMEOUT"``); an unknown, missing or malformed id is ``EXPIRED`` with reason
    ``NONE`` (the same answer for each, so a guess learns nothing). The remaining times are
    milliseconds from the instant decided at, None when there is no such deadline."""

    state: str
    reason: str
    idle_remaining_ms: Optional[int] = None
    absolute_remaining_ms: Optional[int] = None
    session_id: Optional[str] = None
    user: Optional[str] = None
    device: Optional[str] = None
    decision: Optional[Decision] = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def allowed(self) -> bool:
        """True when the session may proceed (ACTIVE or WARNING)."""
        return self.state in ("ACTIVE", "WARNING")

    @property
    def http_status(self) -> int:
        """200 when allowed, 403 when LOCKED, 401 when EXPIRED or unknown."""
        return 200 if self.allowed else 403 if self.state == "LOCKED" else 401

    @property
    def code(self) -> Optional[str]:
        """The refusal's code on the wire (``inactivity.locked`` / ``inactivity.expired``)."""
        return None if self.allowed else "inactivity.locked" if self.state == "LOCKED" else "inactivity.expired"


_UNKNOWN = Outcome("EXPIRED", "NONE")
#: The observer's input for a sessions list (no core input: the list decides MACHINE per row).
LIST_STEP = -1
_STATE_NAMES = {member: member.name for member in State}
_REASON_NAMES = {member: member.name for member in Reason}
_monotonic = time.monotonic
_decide_record = _core.decide
_new = object.__new__
_set = object.__setattr__
#: asyncio.timeout (Python 3.11): one timer per decision; before 3.11, asyncio.wait_for.
_timeout: Any = getattr(asyncio, "timeout", None)


@dataclasses.dataclass(frozen=True)
class SignIn:
    """A new session: its id (give it to the client, e.g. as the session cookie) and its state."""

    session_id: str
    outcome: Outcome


@dataclasses.dataclass(frozen=True)
class SessionInfo:
    """One row of a user's sessions list. ``handle`` names the session for a revocation from
    the list (``revoke_handle``): the list never shows another session's id, a bearer secret."""

    handle: str
    device: str
    created_ms: int
    #: the stored (coalesced) last activity; None once the session is locked or ended
    last_activity_ms: Optional[int]
    state: str
    reason: str
    is_current: bool

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


def _ms(value: Union[timedelta, int, float, str], what: str) -> int:
    if isinstance(value, str):
        ms = parse_duration_ms(value, allow_never=False)
        if ms is None:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f'{what} ({value!r}) must be a duration such as "1s" or "500ms"')
        return ms
    return duration_to_ms(value, what)


class SessionManager:
    """Sessions decided on the server by the core, over a store.

    `store`: a Store, or a URL for ``open_store`` (``sqlite:PATH``, ``redis://...``,
    ``redis-cluster://...``); default: the SQLite file ``inactivity-sessions.sqlite3`` in the
    working directory. `policy`: a ``Policy``, a preset's name or a policy file (``load_policy``).

    `precision`: activity-write coalescing. A request moves the stored last activity only when it
    is at least this much newer, so the session's idle deadline is at most `precision` earlier
    than the exact one (the server is stricter by less than `precision`, never laxer), and an
    active session costs at most one write per `precision` (the core decides it; default 1 s).

    `device_limit`: the live sessions a user may have (0: no limit); `on_device_limit`:
    ``"evict-oldest"`` (the oldest live session is ended with DEVICE_LIMIT) or ``"refuse"`` (the
    new sign-in raises DeviceLimitError).

    `timeout`: seconds a decision may take, store included; past it StoreUnavailable (503).
    `retention`: how long an ended session is kept so that its device learns why at its next
    request (then the store collects it, and the id is unknown). `clock`: the wall clock in ms
    since 1970 (tests give a skewed one)."""

    def __init__(
        self,
        store: Union[Store, str, None] = None,
        policy: Union[Policy, str, None] = None,
        *,
        precision: Union[timedelta, int, float, str] = 1,
        device_limit: int = 0,
        on_device_limit: str = "evict-oldest",
        timeout: float = 1.0,
        retention: Union[timedelta, int, float, str] = timedelta(days=1),
        clock: Optional[Callable[[], int]] = None,
    ) -> None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 60:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"timeout ({timeout!r}) must be in (0, 60] seconds")
        if isinstance(device_limit, bool) or not isinstance(device_limit, int) or device_limit < 0:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"device_limit ({device_limit!r}) must be an int >= 0 (0: no limit)")
        if on_device_limit not in _ON_DEVICE_LIMIT:
            raise InvalidArgumentError(
                Status.E_INVALID_ARGUMENT, f"on_device_limit ({on_device_limit!r}) must be one of {', '.join(_ON_DEVICE_LIMIT)}"
            )
        self.precision_ms = _ms(precision, "precision")
        if not 0 <= self.precision_ms <= 3_600_000:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"precision ({precision!r}) must be between 0 and 1 h")
        self.retention_ms = _ms(retention, "retention")
        if not 0 <= self.retention_ms <= 366 * 86_400_000:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"retention ({retention!r}) must be between 0 and 366 days")
        if policy is None:
            policy = Policy()
        elif isinstance(policy, str):
            policy = load_policy(policy).policy
        policy.validate()
        self.policy = policy
        # The core judges the precision against the policy (shorter than the idle timeout less
        # its warning): asked once here, so that a bad pair fails now, not at every request.
        _core.run(policy, None, _wall_ms(), Input.SIGN_IN, 0, self.precision_ms)
        # What _collect_at reads of the policy, converted once here rather than at every write.
        self._idle_expires = policy.idle_action == IdleAction.EXPIRE
        self._locked_ms = duration_to_ms(policy.locked_timeout, "locked_timeout")
        self.device_limit = device_limit
        self.on_device_limit = on_device_limit
        self.timeout = float(timeout)
        self.clock = clock or _wall_ms
        #: FOR TESTS (the model check, tests_server_faults): None, or a callable told of every
        #: step once its decision is final (written, or read only), as
        #: ``observer(input, arg, clock_ms, decision, count, write)``: the clock reading the step
        #: was decided at, the session's decision (None for an unknown id and for a user's
        #: revocation), the sessions it ended (a sign-in's evictions, a revocation's count) and
        #: whether the step may write; a sessions list is one step, ``LIST_STEP`` with its clock
        #: reading and the number of rows (the rows are in the answer). Nothing else reads it.
        self.observer: Optional[Callable[[int, int, int, Optional[Decision], int, bool], None]] = None
        if store is None:
            store = SQLiteStore("inactivity-sessions.sqlite3", timeout=self.timeout)
        elif isinstance(store, str):
            store = open_store(store, timeout=self.timeout)
        self.store = store

    @classmethod
    def from_policy_file(cls, spec: str, store: Union[Store, str, None] = None, **overrides: Any) -> "SessionManager":
        """A manager configured by a policy file: the policy, and its ``[server]`` table
        (``precision``, ``device-limit``, ``on-device-limit``, ``timeout`` in seconds,
        ``retention``); keyword arguments override the file."""
        loaded = load_policy(spec)
        options: dict[str, Any] = {}
        names = {"precision": "precision", "device-limit": "device_limit", "on-device-limit": "on_device_limit",
                 "timeout": "timeout", "retention": "retention"}
        for key, value in loaded.server.items():
            if key not in names:
                raise InvalidArgumentError(
                    Status.E_INVALID_ARGUMENT, f"{spec}: unknown key server.{key} (the keys: {', '.join(names)})"
                )
            options[names[key]] = value
        options.update(overrides)
        return cls(store, loaded.policy, **options)

    def close(self) -> None:
        self.store.close()

    # -- the decision ---------------------------------------------------------------------------

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout

    def _decide(self, record: Optional[bytes], input: Input, arg: int = 0, now: Optional[int] = None) -> tuple[Decision, Optional[bytes]]:
        return _core.decide(self.policy, record, self.clock() if now is None else now, input, arg, self.precision_ms)

    def _collect_at(self, d: Decision) -> int:
        """The instant after which this session is dead for certain, plus the retention: when
        the store may delete it. From the core's deadlines, only ever later than the end they
        imply (an idle lock ends only by the locked timeout, if any); 0 when nothing ends it."""
        state = int(d.state)
        if state == State.EXPIRED:
            return d.now_ms + self.retention_ms
        ends: List[int] = []
        if d.absolute_deadline_ms is not None:
            ends.append(d.absolute_deadline_ms)
        if state == State.LOCKED:
            if d.remaining_ms is not None:
                ends.append(d.now_ms + d.remaining_ms)
        elif d.idle_deadline_ms is not None:
            if self._idle_expires:
                ends.append(d.idle_deadline_ms)
            elif self._locked_ms != _NEVER_MS:
                ends.append(d.idle_deadline_ms + self._locked_ms)
        if not ends:
            return 0
        return min(ends) + self.retention_ms

    def _outcome(self, d: Decision, entry: Entry) -> Outcome:
        # The core gives the remaining times only where they run (idle: ACTIVE and WARNING;
        # absolute: until the session ends).
        # Built as one dict, not through the frozen dataclass's __init__ (one object.__setattr__
        # per field): an Outcome per request. The names are the core's own enums' (a Decision
        # holds State and Reason members), read from a table: an enum's .name is a descriptor.
        fields = d.__dict__
        idle, absolute, now = fields["idle_deadline_ms"], fields["absolute_deadline_ms"], fields["now_ms"]
        outcome = _new(Outcome)
        _set(outcome, "__dict__", {
            "state": _STATE_NAMES[fields["state"]], "reason": _REASON_NAMES[fields["reason"]],
            "idle_remaining_ms": None if idle is None else max(0, idle - now),
            "absolute_remaining_ms": None if absolute is None else max(0, absolute - now),
            "session_id": entry.session_id, "user": entry.user, "device": entry.device, "decision": d,
        })
        return outcome

    def _session(self, session_id: Optional[str], input: Input, arg: int = 0, *, write: bool = True) -> Outcome:
        """Read, decide, write if the core says so and the record is unchanged; else again.

        A request inside the coalescing precision is one SELECT (autocommit) and one C call:
        the core says whether anything is to be written, and only then is there a write."""
        if not valid_session_id(session_id):
            return _UNKNOWN  # refused before any store access: nothing read, nothing created
        assert session_id is not None
        deadline = _monotonic() + self.timeout
        store, policy, precision, clock, observer = self.store, self.policy, self.precision_ms, self.clock, self.observer
        while True:
            entry = store.get(session_id, deadline)
            now = clock()
            if entry is None:
                if observer is not None:
                    observer(int(input), arg, now, None, 0, write)
                return _UNKNOWN
            d, record = _decide_record(policy, entry.record, now, input, arg, precision)
            if record is None or not write:
                if observer is not None:
                    observer(int(input), arg, now, d, 0, write)
                return self._outcome(d, entry)
            if store.compare_and_set(entry, record, self._collect_at(d), deadline):
                self._in_time(deadline)
                if observer is not None:
                    observer(int(input), arg, now, d, 1, write)
                return self._outcome(d, entry)
            # Another request of this session wrote first: decide again over its record.

    async def _asession(self, session_id: str, input: Input, deadline: float) -> Outcome:
        """_session (write=True) awaited on the event loop, over the store's async twins."""
        store, policy, precision, clock, observer = self.store, self.policy, self.precision_ms, self.clock, self.observer
        while True:
            entry = await store.aget(session_id, deadline)
            now = clock()
            if entry is None:
                if observer is not None:
                    observer(int(input), 0, now, None, 0, True)
                return _UNKNOWN
            d, record = _decide_record(policy, entry.record, now, input, 0, precision)
            if record is None:
                if observer is not None:
                    observer(int(input), 0, now, d, 0, True)
                return self._outcome(d, entry)
            if await store.acompare_and_set(entry, record, self._collect_at(d), deadline):
                self._in_time(deadline)
                if observer is not None:
                    observer(int(input), 0, now, d, 1, True)
                return self._outcome(d, entry)
            # Another request of this session wrote first: decide again over its record.

    @staticmethod
    def _in_time(deadline: float) -> None:
        if time.monotonic() > deadline:
            raise StoreUnavailable("the decision took longer than the store's timeout")

    # -- requests -------------------------------------------------------------------------------

    def request(self, session_id: Optional[str], *, machine: bool = False) -> Outcome:
        """A request of the session: the user's (counted activity) or, with `machine`, machine
        traffic (decided, refused once locked or expired, never extending)."""
        return self._session(session_id, Input.MACHINE if machine else Input.REQUEST)

    async def arequest(self, session_id: Optional[str], *, machine: bool = False) -> Outcome:
        """``request`` for a caller on an event loop: the same reads, decisions and writes,
        awaited over the store's ``aget`` and ``acompare_and_set`` (Redis: its asyncio client,
        no worker thread). One timer bounds the whole decision: past the manager's `timeout`
        it is cancelled and raises StoreUnavailable (503), never an answer."""
        if not valid_session_id(session_id):
            return _UNKNOWN
        assert session_id is not None
        input = Input.MACHINE if machine else Input.REQUEST
        deadline = _monotonic() + self.timeout
        try:
            if _timeout is not None:
                async with _timeout(self.timeout):
                    return await self._asession(session_id, input, deadline)
            return await asyncio.wait_for(self._asession(session_id, input, deadline), self.timeout)
        except (TimeoutError, asyncio.TimeoutError):
            raise StoreUnavailable("the store did not decide within the timeout") from None

    def request_unwritten(self, session_id: Optional[str], *, machine: bool = False) -> Optional[Outcome]:
        """``request``'s outcome when the core writes nothing for it (a request within the
        coalescing precision: one read, one decision), else None, with nothing written: then
        call ``request``, which reads and decides again and writes. For a caller that may read
        where it must not wait on a write (the gateway's event loop, on a local store)."""
        if not valid_session_id(session_id):
            return _UNKNOWN
        assert session_id is not None
        entry = self.store.get(session_id, _monotonic() + self.timeout)
        input = Input.MACHINE if machine else Input.REQUEST
        now = self.clock()
        if entry is None:
            if self.observer is not None:
                self.observer(int(input), 0, now, None, 0, True)
            return _UNKNOWN
        d, record = _decide_record(self.policy, entry.record, now, input, 0, self.precision_ms)
        if record is not None:
            return None
        if self.observer is not None:
            self.observer(int(input), 0, now, d, 0, True)   # a request's step that wrote nothing
        return self._outcome(d, entry)

    def status(self, session_id: Optional[str]) -> Outcome:
        """The session's state now; read-only (writes nothing) and never extends it."""
        return self._session(session_id, Input.MACHINE, write=False)

    def keepalive(self, session_id: Optional[str], activity_age_ms: int) -> Outcome:
        """The client saw the user active `activity_age_ms` ago. The core places it no earlier
        than the stored activity and no later than now: it never extends past the truth."""
        if isinstance(activity_age_ms, bool) or not isinstance(activity_age_ms, int) or not 0 <= activity_age_ms < _NEVER_MS:
            raise InvalidArgumentError(
                Status.E_INVALID_ARGUMENT, f"activity_age_ms ({activity_age_ms!r}) must be an integer >= 0 (ms before now)"
            )
        return self._session(session_id, Input.HOLDER_ACTIVITY, activity_age_ms)

    def report(self, session_id: Optional[str], state: Union[str, State], reason: Union[str, Reason, int]) -> Outcome:
        """The client's own lock, sign-out or expiry, applied at once. Stricter only: `state` is
        LOCKED or EXPIRED with a reason of that state (the core refuses a reason that is not);
        a client cannot report itself active or unlocked."""
        name = state.name if isinstance(state, State) else state
        if name not in ("LOCKED", "EXPIRED"):
            raise InvalidArgumentError(
                Status.E_INVALID_ARGUMENT,
                f"state ({name!r}) must be LOCKED or EXPIRED: a client can only make its session stricter",
            )
        value = _reason(reason)
        return self._session(session_id, Input.LOCK if name == "LOCKED" else Input.END, value)

    def unlock(self, session_id: Optional[str], credential_ok: bool) -> Outcome:
        """An unlock attempt whose credential the app verified on the server: True unlocks,
        False counts one failure (the policy's limit ends the session)."""
        if not isinstance(credential_ok, bool):
            raise TypeError(f"credential_ok must be a bool (the app's own server-side check), not {type(credential_ok).__name__}")
        return self._session(session_id, Input.UNLOCK if credential_ok else Input.UNLOCK_FAILED)

    def sign_out(self, session_id: Optional[str]) -> Outcome:
        """Ends the session (LOGOUT)."""
        return self._session(session_id, Input.END, int(Reason.LOGOUT))

    def revoke(self, session_id: Optional[str]) -> Outcome:
        """Ends the session (REVOKED): its device learns it at its next request."""
        return self._session(session_id, Input.END, int(Reason.REVOKED))

    # -- the sessions of a user -----------------------------------------------------------------

    def sign_in(self, user: str, device: str = "") -> SignIn:
        """A new session for `user` (the app verified who it is), labelled `device`. Beyond the
        device limit, the oldest live session ends with DEVICE_LIMIT, or DeviceLimitError."""
        _check_label(user, "user", _MAX_USER, allow_empty=False)
        _check_label(device, "device", _MAX_DEVICE, allow_empty=True)
        deadline = self._deadline()
        session_id = self.store.new_session_id(user, deadline)
        while True:
            view = self.store.user_view(user, deadline)
            # One instant for the whole commit: the new session and every eviction.
            now = self.clock()
            d, record = self._decide(None, Input.SIGN_IN, 0, now)
            assert record is not None, "the core writes the record of a sign-in"
            updates: List[Update] = []
            if self.device_limit:
                live = [e for e in view.entries if int(self._decide(e.record, Input.MACHINE, 0, now)[0].state) != State.EXPIRED]
                excess = len(live) - self.device_limit + 1
                if excess > 0:
                    if self.on_device_limit == "refuse":
                        raise DeviceLimitError(user, self.device_limit)
                    for e in live[:excess]:
                        ended, new = self._decide(e.record, Input.END, int(Reason.DEVICE_LIMIT), now)
                        if new is not None:
                            updates.append(Update(e, new, self._collect_at(ended)))
            entry = Entry(session_id, user, device, d.now_ms, record, 1)
            if self.store.commit_user(user, view, updates, (entry, self._collect_at(d)), deadline):
                self._in_time(deadline)
                if self.observer is not None:
                    self.observer(int(Input.SIGN_IN), 0, now, d, len(updates), True)
                return SignIn(session_id, self._outcome(d, entry))

    def sessions(self, user: str, current_id: Optional[str] = None) -> List[SessionInfo]:
        """The user's sessions, oldest first, each as the core judges it now (read-only),
        ended ones included until the store collects them."""
        _check_label(user, "user", _MAX_USER, allow_empty=False)
        view = self.store.user_view(user, self._deadline())
        # One clock reading for every row: read per row, a list could show a session idle-locked
        # beside an older one still active (each judged at its own instant), a combination no
        # single instant gives.
        now = self.clock()
        rows = []
        for e in view.entries:
            d, _ = self._decide(e.record, Input.MACHINE, 0, now)
            rows.append(SessionInfo(
                session_handle(e.session_id), e.device, e.created_ms, d.last_activity_ms,
                _core.state_name(d.state), _core.reason_name(d.reason), e.session_id == current_id,
            ))
        if self.observer is not None:
            self.observer(LIST_STEP, 0, now, None, len(rows), False)
        return rows

    list = sessions  # the name of issue 29's API; `sessions` does not shadow the builtin in a class body

    def user_of(self, session_id: Optional[str]) -> Optional[str]:
        """The user of a stored session (None when unknown); decides nothing."""
        if not valid_session_id(session_id):
            return None
        assert session_id is not None
        entry = self.store.get(session_id, self._deadline())
        return None if entry is None else entry.user

    def revoke_handle(self, user: str, handle: str) -> bool:
        """Revokes the user's session named `handle` in the sessions list; False when the user
        has no such session (another user's handle revokes nothing)."""
        _check_label(user, "user", _MAX_USER, allow_empty=False)
        if not valid_handle(handle):
            return False
        for e in self.store.user_view(user, self._deadline()).entries:
            if session_handle(e.session_id) == handle:
                self.revoke(e.session_id)
                return True
        return False

    def revoke_others(self, current_id: str) -> int:
        """Revokes every session of the caller's user but the caller's (REVOKED); returns how
        many ended now. Nothing happens when `current_id` is not a live session."""
        current = self.request(current_id, machine=True)
        if not current.allowed or current.user is None:
            return 0
        return self._end_all(current.user, int(Reason.REVOKED), keep=current_id)

    def revoke_all(self, user: str, reason: Union[Reason, int] = Reason.PASSWORD_CHANGED) -> int:
        """Ends every session of `user` (after a password change: PASSWORD_CHANGED), in one
        atomic step; returns how many ended now."""
        _check_label(user, "user", _MAX_USER, allow_empty=False)
        return self._end_all(user, _int64(int(reason), "reason"), keep=None)

    def _end_all(self, user: str, reason: int, keep: Optional[str]) -> int:
        deadline = self._deadline()
        while True:
            view = self.store.user_view(user, deadline)
            now = self.clock()  # one instant for the whole commit
            updates: List[Update] = []
            for e in view.entries:
                if e.session_id == keep:
                    continue
                d, record = self._decide(e.record, Input.END, reason, now)
                if record is not None:
                    updates.append(Update(e, record, self._collect_at(d)))
            if not updates or self.store.commit_user(user, view, updates, None, deadline):
                self._in_time(deadline)
                if self.observer is not None:
                    self.observer(int(Input.END), reason, now, None, len(updates), True)
                return len(updates)


def _reason(value: Union[str, Reason, int]) -> int:
    if isinstance(value, str):
        found = _core.reason_value(value)
        if found is None:
            raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"reason ({value!r}) is not a reason's name (e.g. MANUAL_LOCK, LOGOUT)")
        return found
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"reason must be a Reason or its name, not {type(value).__name__}")
    return _int64(value, "reason")


def _int64(value: int, what: str) -> int:
    """`value` when it fits the core's int64 argument: ctypes would wrap a larger one silently
    (2**64 + 16 would arrive as REVOKED, 2**70 as 0)."""
    if not -(2**63) <= value < 2**63:
        raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"{what} ({value}) is out of range: not a reason")
    return int(value)


def _check_label(value: Any, what: str, limit: int, *, allow_empty: bool) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if (not value and not allow_empty) or len(value) > limit or "\0" in value or not _utf8(value):
        raise InvalidArgumentError(
            Status.E_INVALID_ARGUMENT,
            f"{what} ({value[:40]!r}{'...' if len(value) > 40 else ''}) must be 1 to {limit} characters of UTF-8 with no NUL"
            if not allow_empty else f"{what} must be at most {limit} characters of UTF-8 with no NUL",
        )


def _utf8(value: str) -> bool:
    """Whether `value` has a UTF-8 form, which the stores keep (a lone surrogate has none)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
