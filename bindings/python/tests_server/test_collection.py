"""The store collects only what is already dead: a session's TTL (Redis PEXPIREAT, SQLite's
collect_at_ms) is never before the end the core's deadlines imply, plus the retention during
which an ended session still tells its device why."""

from __future__ import annotations

import sqlite3
import time

from conftest import POLICY, FleetClock
from inactivity import IdleAction
from inactivity.server import RedisStore, SessionManager, SQLiteStore, Store
from inactivity.server.stores import _id_key

DAY = 86_400_000


def collect_at(store: Store, session_id: str) -> int:
    entry = store.get(session_id, time.monotonic() + 5)
    assert entry is not None
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as conn:
            return int(conn.execute("SELECT collect_at_ms FROM inactivity_sessions WHERE id = ?", (_id_key(session_id),)).fetchone()[0])
    assert isinstance(store, RedisStore)
    at = int(store.client.pexpiretime(store._session_key(entry.user, session_id)))
    pointer = int(store.client.pexpiretime(store._pointer_key(session_id)))
    index = int(store.client.pexpiretime(store._index_key(entry.user)))
    assert pointer >= at and index >= at   # the pointer and the index live as long as the session
    return at


def test_a_live_session_is_kept_past_its_possible_end(store: Store, clock: FleetClock) -> None:
    manager = SessionManager(store, POLICY, precision=0, clock=clock)
    t0 = clock.now
    s = manager.sign_in("alice").session_id
    # idle 10 s -> LOCKED, then the locked timeout 30 s: dead at 40 s at the earliest.
    assert collect_at(store, s) == t0 + 40_000 + DAY
    clock.advance(5_000)
    manager.request(s)                                  # the idle deadline moves: so does the TTL
    assert collect_at(store, s) == t0 + 45_000 + DAY
    for _ in range(5):
        clock.advance(5_000)
        assert manager.request(s).state == "ACTIVE"
    # At 30 s: idle + locked would end at 70 s; the absolute limit (60 s) comes first now.
    assert collect_at(store, s) == t0 + 60_000 + DAY
    clock.advance(10_000)
    assert manager.request(s).state == "LOCKED"         # locked at 40 s: ends at 60 s either way
    assert collect_at(store, s) == t0 + 60_000 + DAY
    manager.revoke(s)                                   # ended: kept for the retention only
    assert collect_at(store, s) == clock.now + DAY


def test_an_expiring_policy_collects_after_the_idle_deadline(store: Store, clock: FleetClock) -> None:
    manager = SessionManager(store, POLICY.replace(idle_action=IdleAction.EXPIRE), precision=0, clock=clock,
                             retention="1h")
    s = manager.sign_in("alice").session_id
    assert collect_at(store, s) == clock.now + 10_000 + 3_600_000


def test_after_the_retention_the_id_is_unknown(store: Store) -> None:
    manager = SessionManager(store, POLICY, precision=0, retention="0s")
    s = manager.sign_in("alice").session_id
    ended = manager.sign_out(s)
    assert (ended.state, ended.reason) == ("EXPIRED", "LOGOUT")
    time.sleep(0.05)
    o = manager.request(s)
    assert (o.state, o.reason, o.session_id) == ("EXPIRED", "NONE", None)   # collected
    assert manager.list("alice") == []
