"""The store contract itself, on each store: compare-and-set and the user's atomic commit refuse
a write over anything that changed since it was read."""

from __future__ import annotations

import os
import time

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
    import pytest

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
    for bad in ("", "a", "ab!d", "QU+D", "QU=D", "QU/D", "QUJé", "QR", "QUJ", s + "=", s[:-1]):
        assert _id_key(bad) is None
    assert [e.session_id for e in store.user_view("alice", time.monotonic() + 5).entries] == [s]
    store.close()
