"""The store contract itself, on each store: compare-and-set and the user's atomic commit refuse
a write over anything that changed since it was read."""

from __future__ import annotations

import os
import time
from typing import Any, Callable

import pytest

from conftest import POLICY, FleetClock
from inactivity import Reason
from inactivity.server import Input, SessionManager, SQLiteStore, Store
from inactivity.server.stores import Update


def far() -> float:
    return time.monotonic() + 5


def test_compare_and_set_refuses_a_stale_version(manager: SessionManager, store: Store) -> None:
    s = manager.sign_in("alice").session_id
    entry = store.get(s, far())
    assert entry is not None
    assert store.compare_and_set(entry, entry.record, 0, far())
    assert not store.compare_and_set(entry, entry.record, 0, far())   # the version moved on
    fresh = store.get(s, far())
    assert fresh is not None and fresh.version == entry.version + 1
    assert (fresh.user, fresh.device, fresh.created_ms, fresh.record) == (entry.user, entry.device, entry.created_ms, entry.record)


def test_a_users_commit_refuses_when_a_session_or_the_list_changed(manager: SessionManager, store: Store,
                                                                    clock: FleetClock) -> None:
    a = manager.sign_in("alice", "a").session_id
    clock.advance(1)
    manager.sign_in("alice", "b")
    view = store.user_view("alice", far())
    assert [e.device for e in view.entries] == ["a", "b"]
    first = view.entries[0]
    # One session written since the view was read (a request's compare-and-set): refused.
    assert store.compare_and_set(first, first.record, 0, far())
    assert not store.commit_user("alice", view, [Update(first, first.record, 0)], None, far())
    # A session added since: refused too.
    view = store.user_view("alice", far())
    manager.sign_in("alice", "c")
    assert not store.commit_user("alice", view, [], None, far())
    # Unchanged: applied, every update at once.
    view = store.user_view("alice", far())
    ended = []
    for e in view.entries:
        _, record = manager._decide(e.record, Input.END, int(Reason.REVOKED))
        assert record is not None
        ended.append(Update(e, record, 0))
    assert store.commit_user("alice", view, ended, None, far())
    assert {manager.status(e.session_id).reason for e in view.entries} == {"REVOKED"}
    assert manager.status(a).state == "EXPIRED"



def test_an_emptied_script_cache_is_reloaded(manager: SessionManager, store: Store, store_kind: str) -> None:
    # A restart, a failover or SCRIPT FLUSH empties Redis's script cache: EVALSHA answers
    # NOSCRIPT, and the store runs the script by EVAL (which caches it again), on every node.
    if store_kind == "sqlite":
        return  # no scripts
    from inactivity.server import RedisStore

    assert isinstance(store, RedisStore)
    s = manager.sign_in("alice", "a").session_id
    manager.sign_in("alice", "b")
    for flush in range(2):
        store.client.script_flush()  # every primary of a cluster
        assert manager.report(s, "LOCKED", "MANUAL_LOCK").state == "LOCKED"       # the CAS script
        assert manager.revoke_all("alice") == 2 - flush                           # the commit script
        assert manager.status(s).reason == "PASSWORD_CHANGED"
        if not flush:
            s = manager.sign_in("alice", "c").session_id


def test_a_redis_url_may_not_lengthen_the_timeouts_nor_carry_unknown_options() -> None:
    # The manager's `timeout` bounds every store call (503 past it); redis-py lets a URL's query
    # override the socket timeouts and retries, and passes an unknown name on to the connection
    # (a TypeError at the first request, after the gateway started): both refused at open.
    from inactivity.server import open_store

    for query, name in (("socket_timeout=30", "socket_timeout"), ("socket_connect_timeout=30", "socket_connect_timeout"),
                        ("retry_on_timeout=true", "retry_on_timeout"), ("health_check_interval=5", "health_check_interval"),
                        ("bogus_option=1", "bogus_option"), ("db=0&timeout=9", "timeout")):
        with pytest.raises(ValueError, match=name):
            open_store(f"redis://127.0.0.1:6379/0?{query}", timeout=1.0)
    assert open_store("redis://127.0.0.1:6379/0?db=1&client_name=app", timeout=1.0) is not None


def test_sqlite_keeps_an_id_as_the_bytes_it_encodes_and_only_its_canonical_form_finds_it(tmp_path: object) -> None:
    """The file holds the id's bytes (the size of a session), so a second spelling of the same
    bytes (the last character's unused bits set) must not find the session: one session, one id."""
    import sqlite3

    from inactivity.server.stores import _id_key, _id_of

    store = SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3"))
    manager = SessionManager(store, POLICY)
    s = manager.sign_in("alice", "laptop").session_id
    key = _id_key(s)
    assert key is not None and _id_of(key) == s and len(key) == len(s) * 6 // 8
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("SELECT typeof(id), length(id) FROM inactivity_sessions").fetchone() == ("blob", len(key))
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    variant = s[:-1] + last[last.index(s[-1]) + 1]   # the same bytes but the unused bits
    assert _id_key(variant) is None
    assert store.get(variant, time.monotonic() + 5) is None and store.get(s, time.monotonic() + 5) is not None
    for bad in ("", "a", "ab!d", "QU+D", "QU=D", "QU/D", "QUJé", "QR", "QUJ", s + "="):
        assert _id_key(bad) is None
    # The id less its last character is a canonical encoding of other bytes one time in 16 (its
    # new last character's low four bits zero), so it is not refused as a spelling: it must find
    # nothing, whichever it is.
    assert store.get(s[:-1], time.monotonic() + 5) is None
    assert [e.session_id for e in store.user_view("alice", time.monotonic() + 5).entries] == [s]
    store.close()


def _redis_server(*options: str) -> tuple[Any, int]:
    """A redis-server of its own on a free loopback port (the caller stops it)."""
    import socket
    import subprocess

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    proc = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis

    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return proc, port


def test_redis_that_may_evict_is_refused_at_start_unless_accepted() -> None:
    # An evicted hash ends its user's sessions early and forgets why: the store checks every
    # node's maxmemory-policy at start and refuses anything but noeviction, naming the setting,
    # unless the URL (or the constructor) accepts it explicitly.
    from inactivity.server import RedisStore, open_store
    from inactivity.server.stores import EvictionPolicyError

    proc, port = _redis_server("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru")
    try:
        url = f"redis://127.0.0.1:{port}/0"
        openers: list[Callable[[], Store]] = [lambda: open_store(url, timeout=1.0), lambda: RedisStore.from_url(url)]
        for opened in openers:
            with pytest.raises(EvictionPolicyError,
                               match=f"127.0.0.1:{port}: maxmemory-policy is allkeys-lru.*noeviction.*allow_eviction=yes"):
                opened()
        with pytest.raises(ValueError, match="allow_eviction must be given once, as yes or no"):
            open_store(url + "?allow_eviction=maybe", timeout=1.0)
        accepted = open_store(url + "?allow_eviction=yes", timeout=1.0)
        manager = SessionManager(accepted, precision=0)
        assert manager.request(manager.sign_in("alice").session_id).state == "ACTIVE"
        assert isinstance(accepted, RedisStore) and accepted.allow_eviction
        with pytest.raises(EvictionPolicyError):
            open_store(url + "?allow_eviction=no", timeout=1.0)
        accepted.client.config_set("maxmemory-policy", "noeviction")
        assert not RedisStore.from_url(url).allow_eviction   # now it starts by itself
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_cluster_node_that_may_evict_is_refused_at_start() -> None:
    # Every node is checked (a replica may become the primary of the user's slot).
    import redis

    from conftest import cluster_nodes
    from inactivity.server import RedisStore
    from inactivity.server.stores import EvictionPolicyError

    host, port = cluster_nodes()[1]
    node = redis.Redis(host=host, port=port)
    node.config_set("maxmemory-policy", "volatile-lru")
    try:
        with pytest.raises(EvictionPolicyError, match=f"{host}:{port}: maxmemory-policy is volatile-lru"):
            RedisStore.cluster(cluster_nodes())
        assert RedisStore.cluster(cluster_nodes(), allow_eviction=True).allow_eviction
    finally:
        node.config_set("maxmemory-policy", "noeviction")
        node.close()
    RedisStore.cluster(cluster_nodes()).close()


def test_an_eviction_policy_found_after_start_fails_closed() -> None:
    # A Redis down when the store starts is checked at the first call that reaches it: until
    # the check passes, every decision is StoreUnavailable (503), never an allow.
    from inactivity.server import RedisStore, StoreUnavailable

    proc, port = _redis_server("--maxmemory", "100mb", "--maxmemory-policy", "volatile-lru")
    try:
        store = RedisStore.from_url(f"redis://127.0.0.1:{port + 1 if port < 65535 else port - 1}/0", timeout=0.2)
        store.client = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", allow_eviction=True).client  # now reachable
        manager = SessionManager(store, precision=0)
        with pytest.raises(StoreUnavailable, match="maxmemory-policy is volatile-lru"):
            manager.request("A" * 50 + "A")
        with pytest.raises(StoreUnavailable, match="maxmemory-policy"):
            manager.sign_in("alice")
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_a_session_is_found_only_under_its_users_tag(store: Store) -> None:
    # The id's routing tag names where the session is kept, never whose it is: the stored
    # session names its user, and the store checks that the user's tag is the id's.
    from inactivity.server import RedisStore
    from inactivity.server.ids import session_secret
    from inactivity.server.stores import _pack, _unpack

    assert isinstance(store, RedisStore)
    manager = SessionManager(store, POLICY, precision=0, clock=FleetClock())
    a = manager.sign_in("alice", "a").session_id
    b = manager.sign_in("bob", "b").session_id
    assert a[:8] != b[:8]
    assert a[:8] == manager.sign_in("alice", "a2").session_id[:8]   # one tag per user
    # Bob's tag on alice's secret: nothing there.
    assert manager.request(b[:8] + a[8:]).reason == "NONE"
    assert manager.request(a).state == "ACTIVE"
    # A value that names another user than the one whose tag the id carries (written by
    # someone else, or read after the tags' key was lost): unknown, never that user's session.
    entry = store.get(a, far())
    assert entry is not None and entry.raw is not None
    _, created, collect, _, device, record = _unpack(entry.raw)
    store.client.hset(store._hash_key(a[:8]), session_secret(a), _pack(entry.version, created, collect, "bob", device, record))
    o = manager.request(a)
    assert (o.state, o.reason, o.user) == ("EXPIRED", "NONE", None)
    assert [i.device for i in manager.list("bob")] == ["b"]


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_users_who_share_a_tag_keep_their_own_sessions(store: Store) -> None:
    # 48-bit tags collide now and then (two users in one hash): the list, the device limit and
    # "revoke all" still see only the user's own sessions.
    from inactivity.server import RedisStore

    assert isinstance(store, RedisStore)
    store._tags.update({"alice": "SHAREDtg", "bob": "SHAREDtg"})   # the tag cache, as if HMAC collided
    clock = FleetClock()
    manager = SessionManager(store, POLICY, precision=0, clock=clock, device_limit=2)

    def sign_in(user: str, device: str) -> str:
        clock.advance(1)
        return manager.sign_in(user, device).session_id

    alice = [sign_in("alice", f"a{i}") for i in range(2)]
    bob = [sign_in("bob", f"b{i}") for i in range(2)]
    assert {s[:8] for s in alice + bob} == {"SHAREDtg"}
    assert store.client.hlen(store._hash_key("SHAREDtg")) == 4
    assert [i.device for i in manager.list("bob")] == ["b0", "b1"]
    sign_in("alice", "a2")                                          # alice's oldest goes, not bob's
    assert manager.request(alice[0]).reason == "DEVICE_LIMIT"
    assert [manager.request(s).state for s in bob] == ["ACTIVE", "ACTIVE"]
    assert manager.revoke_all("bob") == 2
    assert [(i.device, i.state, i.reason) for i in manager.list("alice")] == [
        ("a0", "EXPIRED", "DEVICE_LIMIT"), ("a1", "ACTIVE", "STARTED"), ("a2", "ACTIVE", "STARTED")]
    assert {i.reason for i in manager.list("bob")} == {"PASSWORD_CHANGED"}


def test_the_async_twins_decide_and_write_as_the_blocking_path(manager: SessionManager, store: Store,
                                                               store_kind: str, clock: FleetClock) -> None:
    """SessionManager.arequest over the store's aget / acompare_and_set (Redis and the Cluster:
    their asyncio clients; SQLite: the blocking calls in a worker thread): the same answers and
    the same writes as request, a stale version refused, the script cache reloaded."""
    import asyncio

    from inactivity.server import RedisStore

    s = manager.sign_in("alice", "a").session_id
    assert store.asynchronous == (store_kind != "sqlite")

    async def run() -> None:
        version = (await store.aget(s, far())).version  # type: ignore[union-attr]
        clock.advance(3_000)
        blocking, awaited = manager.status(s), await manager.arequest(s)
        assert awaited.state == blocking.state == "ACTIVE" and awaited.idle_remaining_ms == 10_000
        entry = await store.aget(s, far())
        assert entry is not None and entry.version == version + 1   # precision 0: the request wrote
        assert (await manager.arequest(s, machine=True)).idle_remaining_ms == 10_000
        assert (await store.aget(s, far())).version == version + 1  # type: ignore[union-attr]  # machine: no write
        assert await store.acompare_and_set(entry, entry.record, 0, far())
        assert not await store.acompare_and_set(entry, entry.record, 0, far())   # the version moved on
        assert (await manager.arequest("A" * 51)).state == "EXPIRED"   # unknown
        assert (await manager.arequest("not an id")).reason == "NONE"
        if isinstance(store, RedisStore):
            store.client.script_flush()   # NOSCRIPT: run by EVAL, cached again
            clock.advance(1_000)
            assert (await manager.arequest(s)).idle_remaining_ms == 10_000
            # The collection instant, passed to the script as a string, is the hash's expiry:
            # the idle lock (10 s) + the locked timeout (30 s) + the retention (1 day).
            key = store._hash_key(s[:8])
            expected = clock.now + 10_000 + 30_000 + 86_400_000
            assert store.client.pexpiretime(key) == expected
        clock.advance(11_000)
        assert (await manager.arequest(s)).state == "LOCKED"

    async def run_again() -> None:
        assert (await manager.arequest(s)).state == "LOCKED"

    for coroutine in (run, run_again):   # two event loops, each with its own asyncio client
        async def closing() -> None:
            try:
                await coroutine()
            finally:
                await store.aclose()

        asyncio.run(closing())
