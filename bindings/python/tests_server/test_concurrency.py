"""One serialization per session: racing processes on one store lose no update.

Unlock failures are a counter the core keeps in the record: every failed unlock must count once,
so P processes x K failures end at exactly P*K only if every read-decide-write was serialized by
the store's compare-and-set (a lost update would count less). Sign-ins racing past a device limit
must leave exactly the limit's number of live sessions.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import Tuple

from conftest import POLICY, cluster_nodes, redis_url
from inactivity.server import RedisStore, SessionManager, SQLiteStore, Store

PROCESSES = 4
EACH = 25
LOOSE = POLICY.replace(max_unlock_failures=1000, idle_timeout=600, warning=0, absolute_timeout=3600)


def _open(spec: Tuple[str, str, str]) -> Store:
    kind, where, prefix = spec
    if kind == "sqlite":
        return SQLiteStore(where, timeout=5.0)
    if kind == "redis":
        return RedisStore.from_url(where, timeout=5.0, prefix=prefix)
    return RedisStore.cluster([(h, int(p)) for h, _, p in (n.rpartition(":") for n in where.split(","))], timeout=5.0, prefix=prefix)


def _spec(store_kind: str, tmp_path: object) -> Tuple[str, str, str]:
    prefix = "c" + os.urandom(4).hex()
    if store_kind == "sqlite":
        return ("sqlite", os.path.join(str(tmp_path), "race.sqlite3"), prefix)
    if store_kind == "redis":
        return ("redis", redis_url(), prefix)
    return ("cluster", ",".join(f"{h}:{p}" for h, p in cluster_nodes()), prefix)


def _fail_unlocks(spec: Tuple[str, str, str], session_id: str, start_at: float) -> int:
    manager = SessionManager(_open(spec), LOOSE, precision=0, timeout=5.0)
    time.sleep(max(0.0, start_at - time.time()))   # all processes start together
    for _ in range(EACH):
        assert manager.unlock(session_id, False).state == "LOCKED"
    return EACH


def _sign_ins(spec: Tuple[str, str, str], start_at: float) -> list[str]:
    manager = SessionManager(_open(spec), LOOSE, precision=0, timeout=5.0, device_limit=2)
    time.sleep(max(0.0, start_at - time.time()))
    return [manager.sign_in("bob", f"device {os.getpid()} {i}").session_id for i in range(5)]


def test_racing_processes_lose_no_unlock_failure(store_kind: str, tmp_path: object) -> None:
    spec = _spec(store_kind, tmp_path)
    manager = SessionManager(_open(spec), LOOSE, precision=0, timeout=5.0)
    s = manager.sign_in("alice").session_id
    manager.report(s, "LOCKED", "MANUAL_LOCK")
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(PROCESSES) as pool:
        start_at = time.time() + 1.0
        done = pool.starmap(_fail_unlocks, [(spec, s, start_at)] * PROCESSES)
    assert sum(done) == PROCESSES * EACH
    d = manager.status(s).decision
    assert d is not None and d.unlock_failures == PROCESSES * EACH


def test_racing_sign_ins_keep_the_device_limit(store_kind: str, tmp_path: object) -> None:
    spec = _spec(store_kind, tmp_path)
    manager = SessionManager(_open(spec), LOOSE, precision=0, timeout=5.0, device_limit=2)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(PROCESSES) as pool:
        start_at = time.time() + 1.0
        ids = [s for batch in pool.starmap(_sign_ins, [(spec, start_at)] * PROCESSES) for s in batch]
    assert len(set(ids)) == PROCESSES * 5
    states = [manager.status(s) for s in ids]
    live = [o for o in states if o.allowed]
    assert len(live) == 2
    assert {o.reason for o in states if not o.allowed} == {"DEVICE_LIMIT"}
    rows = manager.list("bob")
    assert sum(r.state != "EXPIRED" for r in rows) == 2 and len(rows) == PROCESSES * 5
