"""The store collects only what is already dead: a session's TTL (Redis PEXPIREAT, SQLite's
collect_at_ms) is never before the end the core's deadlines imply, plus the retention during
which an ended session still tells its device why."""

from __future__ import annotations

import sqlite3
import struct
import time

import pytest

from conftest import POLICY, FleetClock
from inactivity import NEVER, IdleAction
from inactivity.server import RedisStore, SessionManager, SQLiteStore, Store
from inactivity.server.stores import _id_key

DAY = 86_400_000


def collect_at(store: Store, session_id: str) -> int:
    entry = store.get(session_id, time.monotonic() + 5)
    assert entry is not None
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as conn:
            return int(conn.execute("SELECT collect_at_ms FROM inactivity_sessions WHERE id = ?", (_id_key(session_id),)).fetchone()[0])
    assert isinstance(store, RedisStore) and entry.raw is not None
    from inactivity.server.stores import _unpack

    at = _unpack(entry.raw)[2]
    user_hash = int(store.client.pexpiretime(store._hash_key(session_id[:8])))
    assert user_hash >= at   # the user's hash lives as long as the longest-lived of its sessions
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


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_redis_a_users_hash_lives_as_long_as_its_longest_lived_session(store: Store) -> None:
    # Redis 7.0 has no TTL per field: the user's hash expires at the latest collection time of
    # its sessions (never while one has none), and a dead session's field goes at the user's
    # next commit.
    assert isinstance(store, RedisStore)
    clock = FleetClock()
    manager = SessionManager(store, POLICY, precision=0, clock=clock, retention="0s")
    a = manager.sign_in("alice", "a").session_id
    clock.advance(1)
    b = manager.sign_in("alice", "b").session_id
    key = store._hash_key(a[:8])

    def expiry() -> int:
        return int(store.client.pexpiretime(key))

    assert expiry() == collect_at(store, b) > collect_at(store, a)
    manager.sign_out(a)
    assert store.client.hlen(key) == 2 and expiry() == collect_at(store, b)   # the field stays
    time.sleep(0.01)                                                           # a's collection time passes
    assert manager.request(a).reason == "NONE"                                 # gone to a reader
    clock.advance(1)
    c = manager.sign_in("alice", "c").session_id                               # alice's next commit
    assert store.client.hlen(key) == 2                                         # a's field deleted
    assert expiry() == collect_at(store, c)
    # A session with no end at all (no absolute limit, an idle lock that never expires) keeps the
    # hash; once it has one again, the hash expires at the latest of all.
    forever = SessionManager(store, POLICY.replace(absolute_timeout=NEVER, locked_timeout=NEVER), precision=0,
                             clock=clock, retention="1h")
    d = forever.sign_in("alice", "d").session_id
    assert expiry() == -1
    clock.advance(11_000)
    assert forever.request(d).state == "LOCKED"
    assert expiry() == -1
    ended = forever.sign_out(d)
    assert ended.state == "EXPIRED"
    assert expiry() == max(collect_at(store, s) for s in (b, c, d)) == clock.now + 3_600_000


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_redis_a_corrupt_value_written_over_gives_its_users_hash_an_expiry_again(store: Store) -> None:
    # A value this store did not write counts as a session without a collection time (its
    # user's hash is kept). Once its RESTORE_FAILED decision is written over it, the hash expires
    # again at the latest of its sessions, even when the corrupt bytes hold, where a value's
    # header has its collection time, the new one: the write's shortcut (the TTL left as it is
    # when the collection time is the one read) is only for a value this store wrote.
    assert isinstance(store, RedisStore)
    from inactivity.server.ids import session_secret

    clock = FleetClock()
    manager = SessionManager(store, POLICY, precision=0, clock=clock, retention="1h")
    a = manager.sign_in("alice", "a").session_id
    key = store._hash_key(a[:8])
    clock.advance(1)
    ended_at = clock.now + 3_600_000   # a's decision will be EXPIRED now: collected after the retention
    # A user length past the value's end: not a value this store wrote.
    store.client.hset(key, session_secret(a), struct.pack(">IqqHH", 7, 0, ended_at, 60_000, 0) + b"x")
    b = manager.sign_in("alice", "b").session_id    # alice's commit: the corrupt value keeps the hash
    assert int(store.client.pexpiretime(key)) == -1
    assert (manager.request(a).reason, manager.request(b).state) == ("RESTORE_FAILED", "ACTIVE")
    assert collect_at(store, a) == ended_at
    assert int(store.client.pexpiretime(key)) == collect_at(store, b) > ended_at
