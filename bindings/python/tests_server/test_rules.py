"""The rules on the server, through SessionManager, on each store (SQLite, Redis, the Cluster).

Each answer is the core's decision; these tests pin what the server half must carry through:
idle and absolute limits, the idle lock and its server-verified unlock with the failure limit,
machine traffic, the client's reports (stricter only), keepalives, coalescing, corrupt records.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import POLICY, FleetClock
from inactivity import IdleAction, InvalidArgumentError, Policy
from inactivity.server import SessionManager, Store


def test_idle_locks_and_a_request_of_the_user_extends(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice", "laptop").session_id
    clock.advance(7_000)
    assert manager.request(s).state == "ACTIVE"      # 7 s idle, then activity
    clock.advance(7_000)
    o = manager.request(s)
    assert (o.state, o.idle_remaining_ms) == ("ACTIVE", 10_000)  # extended from the last activity
    clock.advance(9_000)
    assert manager.status(s).state == "WARNING"      # the warning's 2 s before the idle action
    clock.advance(1_000)
    o = manager.request(s)
    assert (o.state, o.reason, o.http_status, o.code) == ("LOCKED", "IDLE_TIMEOUT", 403, "inactivity.locked")
    clock.advance(1_000)
    assert manager.request(s).state == "LOCKED"      # a request does not unlock


def test_idle_expires_when_the_policy_says_expire(store: Store, clock: FleetClock) -> None:
    manager = SessionManager(store, POLICY.replace(idle_action=IdleAction.EXPIRE), precision=0, clock=clock)
    s = manager.sign_in("alice").session_id
    clock.advance(10_000)
    o = manager.request(s)
    assert (o.state, o.reason, o.http_status, o.code) == ("EXPIRED", "IDLE_TIMEOUT", 401, "inactivity.expired")


def test_machine_traffic_never_extends_and_is_refused_once_locked(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    for _ in range(4):
        clock.advance(2_000)
        assert manager.request(s, machine=True).allowed   # polls pass while the session lives
    clock.advance(1_900)
    o = manager.request(s, machine=True)
    assert (o.state, o.idle_remaining_ms) == ("WARNING", 100)  # 9.9 s after sign-in: not extended
    clock.advance(100)
    assert manager.request(s, machine=True).state == "LOCKED"  # refused like any request
    assert manager.status(s).state == "LOCKED"


def test_absolute_limit_ends_even_an_active_session(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    for _ in range(11):
        clock.advance(5_000)
        assert manager.request(s).state == "ACTIVE"
    o = manager.request(s)
    assert o.absolute_remaining_ms == 5_000
    clock.advance(5_000)
    o = manager.request(s)
    assert (o.state, o.reason) == ("EXPIRED", "ABSOLUTE_TIMEOUT")


def test_unlock_needs_the_servers_verification_and_failures_count(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    clock.advance(10_000)
    assert manager.request(s).state == "LOCKED"
    assert manager.unlock(s, False).state == "LOCKED"
    assert manager.unlock(s, False).state == "LOCKED"
    o = manager.unlock(s, True)
    assert (o.state, o.reason) == ("ACTIVE", "UNLOCKED")
    clock.advance(10_000)
    assert manager.request(s).state == "LOCKED"
    for _ in range(2):
        assert manager.unlock(s, False).state == "LOCKED"
    o = manager.unlock(s, False)                       # the policy's third failure in a row
    assert (o.state, o.reason) == ("EXPIRED", "UNLOCK_FAILURES")
    assert manager.unlock(s, True).state == "EXPIRED"  # nothing revives an ended session
    with pytest.raises(TypeError, match="credential_ok"):
        manager.unlock(s, "yes")  # type: ignore[arg-type]


def test_locked_timeout_ends_a_locked_session(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    clock.advance(10_000)
    assert manager.request(s).state == "LOCKED"
    clock.advance(30_000)
    assert manager.request(s).reason == "LOCKED_TIMEOUT"


def test_the_client_can_only_make_it_stricter(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    o = manager.report(s, "LOCKED", "MANUAL_LOCK")
    assert (o.state, o.reason) == ("LOCKED", "MANUAL_LOCK")
    for claim in ("ACTIVE", "WARNING", "UNLOCKED"):
        with pytest.raises(InvalidArgumentError, match="LOCKED or EXPIRED"):
            manager.report(s, claim, "ACTIVITY")
    assert manager.request(s).state == "LOCKED"     # the claims changed nothing
    with pytest.raises(InvalidArgumentError, match="reason"):
        manager.report(s, "EXPIRED", "NOT_A_REASON")
    o = manager.report(s, "EXPIRED", "LOGOUT")
    assert (o.state, o.reason) == ("EXPIRED", "LOGOUT")
    assert manager.report(s, "LOCKED", "MANUAL_LOCK").state == "EXPIRED"


def test_keepalive_counts_the_clients_activity_never_past_now(manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    clock.advance(7_000)
    o = manager.keepalive(s, 3_000)                  # activity 3 s ago: at 4 s
    assert o.idle_remaining_ms == 7_000
    o = manager.keepalive(s, 6_000)                  # older than the stored activity: no change
    assert o.idle_remaining_ms == 7_000
    for bad in (-1, 1.5, "10", None, True):
        with pytest.raises(InvalidArgumentError, match="activity_age_ms"):
            manager.keepalive(s, bad)  # type: ignore[arg-type]
    assert manager.status(s).idle_remaining_ms == 7_000  # and the refused ones changed nothing


def test_activity_writes_are_coalesced_by_the_precision(store: Store, clock: FleetClock) -> None:
    manager = SessionManager(store, POLICY, precision="2s", clock=clock)
    s = manager.sign_in("alice").session_id
    start = store.get(s, _far()).version  # type: ignore[union-attr]
    clock.advance(1_500)
    o = manager.request(s)
    assert o.idle_remaining_ms == 8_500              # the stored activity lags: stricter
    assert store.get(s, _far()).version == start     # type: ignore[union-attr]  # no write
    clock.advance(600)
    assert manager.request(s).idle_remaining_ms == 10_000  # 2.1 s newer: written
    assert store.get(s, _far()).version == start + 1  # type: ignore[union-attr]


def test_a_corrupt_record_is_expired_restore_failed(store: Store, store_kind: str, manager: SessionManager) -> None:
    s = manager.sign_in("alice").session_id
    _overwrite_record(store, store_kind, s, b"\x00garbage" * 12)
    o = manager.request(s)
    assert (o.state, o.reason, o.http_status) == ("EXPIRED", "RESTORE_FAILED", 401)
    assert manager.request(s).reason == "RESTORE_FAILED"  # written: it stays ended


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
@pytest.mark.parametrize("value", [b"", b"\x00", b"\x00garbage" * 2, b"\xff" * 24 + b"rest", b"\x00" * 20 + b"\x00\x02\x00\x00\xff\xfe"])
def test_a_corrupt_redis_value_is_expired_restore_failed(value: bytes, store: Store, manager: SessionManager) -> None:
    # A value this store did not write (torn, truncated, written by another program) holds no
    # session it can trust: the session is decided as a corrupt record is, EXPIRED
    # (RESTORE_FAILED), never 500 and never allowed, and the decision is written over it.
    from inactivity.server.ids import session_secret

    s = manager.sign_in("alice", "a").session_id
    other = manager.sign_in("alice", "b").session_id
    store.client.hset(store._hash_key(s[:8]), session_secret(s), value)  # type: ignore[attr-defined]
    for call in (manager.request, manager.status, manager.request):
        o = call(s)
        assert (o.state, o.reason, o.http_status) == ("EXPIRED", "RESTORE_FAILED", 401)
    assert [i.device for i in manager.list("alice")] == ["b"]    # the user's others are untouched
    assert manager.request(other).state == "ACTIVE"
    assert manager.revoke_all("alice") == 1
    assert manager.request(s).reason == "RESTORE_FAILED"


@pytest.mark.parametrize("bad", [None, "", "short", "x" * 50, "x" * 52, "x" * 100_000, "+" * 51, "é" * 51, "a b" * 17,
                                 "x" * 50 + "B", "x" * 43])
def test_a_malformed_id_is_refused_before_the_store(bad: Any, store: Store, clock: FleetClock) -> None:
    calls: list[str] = []

    manager = SessionManager(store, POLICY, clock=clock)
    original_get = store.get

    def get(session_id: str, deadline: float) -> object:
        calls.append(session_id)
        return original_get(session_id, deadline)

    store.get = get  # type: ignore[method-assign,assignment]
    for call in (manager.request, manager.status, manager.sign_out, manager.revoke):
        o = call(bad)
        assert (o.state, o.reason, o.http_status) == ("EXPIRED", "NONE", 401)
    assert calls == []


def test_a_forged_id_of_the_right_form_is_unknown_and_creates_nothing(manager: SessionManager) -> None:
    from inactivity.server import new_session_id

    forged = new_session_id()
    for o in (manager.request(forged), manager.keepalive(forged, 0), manager.report(forged, "LOCKED", "MANUAL_LOCK"),
              manager.unlock(forged, True)):
        assert (o.state, o.reason, o.session_id) == ("EXPIRED", "NONE", None)
    assert manager.request(forged).state == "EXPIRED"  # still unknown: nothing was created
    assert manager.user_of(forged) is None


def test_policy_file_configures_the_manager(tmp_path: object, store: Store) -> None:
    import os

    path = os.path.join(str(tmp_path), "p.toml")
    with open(path, "w") as f:
        f.write('preset = "banking"\nidle-timeout = "2m"\n[server]\nprecision = "5s"\ndevice-limit = 2\non-device-limit = "refuse"\n')
    m = SessionManager.from_policy_file(path, store)
    assert m.policy == Policy.preset(4).replace(idle_timeout=120)
    assert (m.precision_ms, m.device_limit, m.on_device_limit) == (5_000, 2, "refuse")
    with open(path, "w") as f:
        f.write('[server]\nprecison = "5s"\n')
    with pytest.raises(InvalidArgumentError, match="unknown key server.precison"):
        SessionManager.from_policy_file(path, store)


def _far() -> float:
    import time

    return time.monotonic() + 5


def _overwrite_record(store: Store, kind: str, session_id: str, record: bytes) -> None:
    if kind == "sqlite":
        import sqlite3

        with sqlite3.connect(store.path) as conn:  # type: ignore[attr-defined]
            from inactivity.server.stores import _id_key

            conn.execute("UPDATE inactivity_sessions SET record = ? WHERE id = ?", (record, _id_key(session_id)))
    else:
        entry = store.get(session_id, _far())
        assert entry is not None
        from inactivity.server.ids import session_secret
        from inactivity.server.stores import _pack, _unpack

        assert entry.raw is not None
        value = _pack(entry.version, entry.created_ms, _unpack(entry.raw)[2], entry.user, entry.device, record)
        store.client.hset(store._hash_key(session_id[:8]), session_secret(session_id), value)  # type: ignore[attr-defined]


def test_the_sessions_list_judges_every_row_at_one_clock_reading(manager: SessionManager, clock: FleetClock) -> None:
    """Two sessions, the older one's last activity 1 ms before the newer's, listed 1 ms before
    the older one's idle deadline on a clock that moves 2 ms at every reading: at one instant
    both are in their warning; judged each at its own reading, the newer one would be LOCKED
    beside the older one still in its warning, which no instant gives."""
    older = manager.sign_in("alice", "laptop").session_id
    clock.advance(1)
    newer = manager.sign_in("alice", "phone").session_id
    clock.advance(10_000 - 2)
    readings = []

    def moving() -> int:
        readings.append(clock.now)
        clock.advance(2)
        return readings[-1]

    manager.clock = moving
    rows = manager.sessions("alice", newer)
    assert [(r.device, r.state) for r in rows] == [("laptop", "WARNING"), ("phone", "WARNING")], rows
    assert len(readings) == 1
    assert [r.is_current for r in rows] == [False, True] and older != newer
