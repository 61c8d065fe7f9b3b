"""The server half's decision path against its floors, same process, same run (issue 29, 6).

    python bench_server_store.py REDIS_URL SQLITE_PATH RUNS CALLS SESSIONS  > server_store.json
    python bench_server_store.py --redis-scale REDIS_URL SESSIONS            (Redis's scale alone)

For each store, a request's decision through SessionManager (read the record, the core's
inact_server_decide, write it back by compare-and-set when the core says so) against the floor
a store cannot go below on the same connection: Redis, one GET (read path) and one GET + one SET
(write path); SQLite, one point read by key (and a read + an UPDATE). The read path is a request
inside the coalescing precision (nothing to write); the write path one with precision 0. Each
figure is the median over RUNS runs of CALLS calls, the floors measured interleaved with the
path (SQLite's read path and its floor in this thread's CPU time, and in wall time too); Redis's
figures call by call, alternating path and floor (`interleaved`), with the batch figures beside
them. Then footprint and scale: bytes per session after SESSIONS sign-ins (Redis used_memory,
loaded by pipelining; the SQLite file), growth from SESSIONS/100 to SESSIONS (with each store's
read and write path at each size, and for SQLite the list of 50), and the list of a user with
50 sessions. BENCH_SERVER_STORES ("redis sqlite" by default) names the stores measured.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

from inactivity import Policy
from inactivity.server import Input, RedisStore, SessionManager, SQLiteStore
from inactivity.server import _core
from inactivity.server.ids import new_session_id
from inactivity.server.stores import _id_key, _id_of

POLICY = Policy(idle_timeout=7200, warning=0, absolute_timeout=86400)


def per_call_ns(fn: Callable[[], Any], calls: int, timer: Callable[[], int] = time.perf_counter_ns) -> float:
    start = timer()
    for _ in range(calls):
        fn()
    return (timer() - start) / calls


def paired(runs: int, calls: int, path: Callable[[], Any], floor: Callable[[], Any],
           timer: Callable[[], int] = time.perf_counter_ns) -> Dict[str, Any]:
    paths: List[float] = []
    floors: List[float] = []
    for _ in range(runs):
        paths.append(per_call_ns(path, calls, timer))
        floors.append(per_call_ns(floor, calls, timer))
    p, f = statistics.median(paths), statistics.median(floors)
    return {"path_ns": p, "floor_ns": f, "ratio": p / f,
            "timer": "thread CPU time" if timer is time.thread_time_ns else "wall time"}


def interleaved(runs: int, calls: int, path: Callable[[], Any], floor: Callable[[], Any]) -> Dict[str, float]:
    """Path and floor timed call by call, alternating, and compared by their medians. On a
    machine shared with other work (this one's load is in the table), a burst of it lands on
    whichever of the two runs then: in a batch of calls it moves one batch's mean, call by call
    it only adds a few slow calls to each side, which the medians leave out. Also reported: the
    batch figure (`paired`), for comparison with earlier runs."""
    clock = time.perf_counter_ns
    paths: List[int] = []
    floors: List[int] = []
    for _ in range(runs * calls):
        t0 = clock()
        path()
        t1 = clock()
        floor()
        t2 = clock()
        paths.append(t1 - t0)
        floors.append(t2 - t1)
    p, f = statistics.median(paths), statistics.median(floors)
    return {"path_ns": p, "floor_ns": f, "ratio": p / f,
            "path_p90_ns": statistics.quantiles(paths, n=10)[-1], "floor_p90_ns": statistics.quantiles(floors, n=10)[-1]}


def stepping_clock() -> Callable[[], int]:
    """A wall clock that moves 1 s per read: every request of the write path is newer activity."""
    now = [time.time_ns() // 1_000_000]

    def read() -> int:
        now[0] += 1000
        return now[0]

    return read


def redis_part(url: str, runs: int, calls: int) -> Dict[str, Any]:
    reader = SessionManager(RedisStore.from_url(url, prefix="bench"), POLICY, precision="1h")
    writer = SessionManager(RedisStore.from_url(url, prefix="bench"), POLICY, precision=0, clock=stepping_clock())
    client = RedisStore.from_url(url).client   # the floor: its own connection, the same server
    s = reader.sign_in("bench-user", "d").session_id
    assert reader.request(s).state == "ACTIVE"
    record = os.urandom(96)
    client.set("bench:floor", record)

    def read() -> None:
        assert reader.request(s).state == "ACTIVE"

    def write() -> None:
        o = writer.request(s)
        assert o.decision is not None and o.decision.write

    def floor_read() -> None:
        client.get("bench:floor")

    def floor_write() -> None:
        client.get("bench:floor")
        client.set("bench:floor", record)

    out: Dict[str, Any] = {
        "read": interleaved(runs, calls, read, floor_read),
        "write": interleaved(runs, calls, write, floor_write),
        "read_batches": paired(runs, calls, read, floor_read),
        "write_batches": paired(runs, calls, write, floor_write),
    }
    return out


#: What a SQLite read reads: the statement of SQLiteStore.get but the collection test.
_SQLITE_FLOOR = "SELECT user, device, created_ms, record, version FROM inactivity_sessions WHERE id = ?"


def _bare_decision(manager: SessionManager, session_id: str) -> Callable[[], Any]:
    """A call of inact_server_decide_prepared over `session_id`'s stored record, a read
    (REQUEST within the precision), with its arguments made once, as _server_core makes them."""
    from inactivity import _server_core as sc

    entry = manager.store.get(session_id, time.monotonic() + 30)
    assert entry is not None
    decision, record = sc.decide(manager.policy, entry.record, manager.clock(), sc.ServerInput.REQUEST, 0, manager.precision_ms)
    assert record is None, "the bare call measures a read: nothing to write"
    b = sc._buffers
    policy_ref, precision_arg, decision_ref, out, written_ref, _, _, now_arg = b.fixed
    now_arg.value = manager.clock()
    stored, length, request, call = entry.record, sc._RECORD_LENGTH, int(sc.ServerInput.REQUEST), sc._UNCHECKED
    no_arg, capacity = sc._NO_ARG, sc._CAPACITY

    def engine() -> None:
        call(policy_ref, stored, length, now_arg, request, no_arg, precision_arg, decision_ref, out, capacity, written_ref)

    engine()
    assert b.decision.state == int(decision.state), "the bare call decides as decide() does"
    return engine


def sqlite_part(path: str, runs: int, calls: int) -> Dict[str, Any]:
    """The read path in thread CPU time: both sides are CPU alone (the file is in the page
    cache), and the CPU time of this thread is what the other processes of a loaded machine
    do not move; the write path in wall time (its fsync is most of it)."""
    # A timeout of 30 s: a figure, not a fail-closed test (an fsync on a loaded machine can
    # take longer than the default 1 s, which would be a 503).
    store = SQLiteStore(path, timeout=30)
    reader = SessionManager(store, POLICY, precision="1h", timeout=30)
    writer = SessionManager(store, POLICY, precision=0, clock=stepping_clock(), timeout=30)
    s = reader.sign_in("bench-user", "d").session_id
    # The floor's connection and cursor: the path's own (the store's, this thread's), reused
    # as the path reuses it: one point read by key, as cheap as Python's sqlite3 makes it.
    conn = store._conn()
    cursor = conn.cursor()

    def read() -> None:
        assert reader.request(s).state == "ACTIVE"

    def write() -> None:
        o = writer.request(s)
        assert o.decision is not None and o.decision.write

    records = [os.urandom(96), os.urandom(96)]
    turn = [0]
    # The floor's own row, of the same size, by its key as stored (the path's conversion of the
    # id to it is the path's own cost).
    other = _id_key(reader.sign_in("bench-floor", "d").session_id)

    def floor_read() -> None:
        assert cursor.execute(_SQLITE_FLOOR, (other,)).fetchone() is not None

    def floor_write() -> None:
        assert cursor.execute(_SQLITE_FLOOR, (other,)).fetchone() is not None
        turn[0] ^= 1   # a different record each time: a real write, committed like the path's
        assert conn.execute("UPDATE inactivity_sessions SET record = ? WHERE id = ?", (records[turn[0]], other)).rowcount == 1

    # The core's own share of the read path as Python reaches it: the prepared decision over the
    # session's record, one ctypes call with every argument made beforehand (what the path pays
    # for the engine; the rest is the binding's and the manager's Python).
    engine = _bare_decision(reader, s)

    return {
        "engine": paired(runs, calls, engine, floor_read, time.thread_time_ns),
        "read": paired(runs, calls, read, floor_read, time.thread_time_ns),
        "read_wall": paired(runs, calls, read, floor_read),
        "write": paired(runs, calls, write, floor_write),
    }


def sqlite_fill(store: SQLiteStore, manager: SessionManager, sessions: int, first_user: int) -> None:
    """`sessions` sign-ins as SessionManager.sign_in writes them (the core's record, the store's
    INSERT and its form of the id, five sessions per user in order), 1000 to a transaction: the same rows in the same
    order as one by one, so the same file, in a fraction of the time (10^6 one by one is an
    hour of fsyncs)."""
    conn = store._conn()
    conn.execute("BEGIN IMMEDIATE")
    for i in range(sessions):
        d, record = _core.decide(POLICY, None, manager.clock(), _core.Input.SIGN_IN, 0, manager.precision_ms)
        assert record is not None
        conn.execute("INSERT INTO inactivity_sessions (id, user, device, created_ms, record, version, collect_at_ms)"
                     " VALUES (?, ?, ?, ?, ?, 1, ?)",
                     (_id_key(new_session_id()), f"user{first_user + i // 5}", "Firefox on a laptop", d.now_ms, record,
                      manager._collect_at(d)))
        if i % 1000 == 999:
            conn.execute("COMMIT")
            conn.execute("BEGIN IMMEDIATE")
    conn.execute("COMMIT")


def sqlite_scale(path: str, sessions: int) -> Dict[str, Any]:
    """At SESSIONS/100, /10 and SESSIONS sessions: the file's bytes per session, a request's read
    path (CPU) and write path (wall, synchronous=FULL as the default store), and the list of a
    user with 50 sessions (one more such user at each size)."""
    store = SQLiteStore(path, timeout=30)
    manager = SessionManager(store, POLICY, precision="1h", timeout=30)
    writer = SessionManager(store, POLICY, precision=0, clock=stepping_clock(), timeout=30)
    points = sorted({max(1, sessions // 100), max(1, sessions // 10), sessions})
    done = 0
    growth = []
    for n in points:
        sqlite_fill(store, manager, n - done, done // 5 + 1)
        done = n
        store._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(path)   # the file once the WAL is checkpointed into it
        # The probes are among the n (one of them is a session filled above; the list's user is
        # added, measured, and its sessions stay, 50 more rows in the next size's file).
        probe = _id_of(store._conn().execute("SELECT id FROM inactivity_sessions ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                                             (n // 2,)).fetchone()[0])
        assert manager.request(probe).state == "ACTIVE"
        fifty = f"fifty-{n}"
        for i in range(50):
            manager.sign_in(fifty, f"device {i}")
        growth.append({
            "sessions": n,
            "bytes_per_session": size / n,
            "read_ns": statistics.median(per_call_ns(lambda: manager.request(probe), 200, time.thread_time_ns) for _ in range(7)),
            "write_ns": statistics.median(per_call_ns(lambda: writer.request(probe), 20) for _ in range(5)),
            "list_50_ns": statistics.median(per_call_ns(lambda: manager.list(fifty), 20) for _ in range(5)),
        })
    store.close()
    return {"growth": growth}


def load_redis(manager: SessionManager, sessions: int, first_user: int) -> None:
    """What SessionManager.sign_in writes, five sessions per user, loaded by pipelining: the values a sign-in
    writes (the store's own layout, the core's sign-in record, the collection time the manager
    gives), HSET into each user's hash with its PEXPIREAT, 1,000 users per round trip. 10^6
    sign-ins one by one would take the run's whole time; what is measured is what they leave."""
    from inactivity.server.ids import new_session_id, session_secret
    from inactivity.server.stores import _pack

    store = manager.store
    assert isinstance(store, RedisStore)
    deadline = time.monotonic() + 3600
    pipe = store.client.pipeline(transaction=False)
    users = (sessions + 4) // 5
    for u in range(users):
        user = f"user{first_user + u}"
        tag = store._tag_of(user, deadline)
        d, record = manager._decide(None, Input.SIGN_IN)
        assert record is not None
        at = manager._collect_at(d)
        args: List[Any] = []
        for _ in range(min(5, sessions - 5 * u)):
            args += [session_secret(new_session_id(tag)), _pack(1, d.now_ms, at, user, "Firefox on a laptop", record)]
        pipe.hset(store._hash_key(tag), items=args)
        pipe.pexpireat(store._hash_key(tag), at)   # a new user: its sessions are all of it
        if u % 1000 == 999:
            pipe.execute()
    pipe.execute()


def scale_points(sessions: int) -> List[int]:
    return sorted({max(1, sessions // 100), max(1, sessions // 10), sessions})


def redis_scale(url: str, sessions: int) -> Dict[str, Any]:
    """Redis at each of scale_points(sessions): used_memory per session, a request's read and
    write path (a session among them), then the list of a user with 50 sessions."""
    client = RedisStore.from_url(url, timeout=60).client   # FLUSHALL of 10^6 keys takes over a second
    client.flushall()
    base = int(client.info("memory")["used_memory"])
    manager = SessionManager(RedisStore.from_url(url, prefix="s"), POLICY)
    writer = SessionManager(manager.store, POLICY, precision=0, clock=stepping_clock())
    floor = RedisStore.from_url(url).client
    value = os.urandom(96)
    done = 0
    growth = []
    for n in scale_points(sessions):
        load_redis(manager, n - done, done // 5 + 1)
        done = n
        used = int(client.info("memory")["used_memory"]) - base
        probe = manager.sign_in("probe", "d").session_id
        floor.set("floor", value)
        # The paths at this size against the same floors as above, call by call (medians).
        read = interleaved(1, 1000, lambda: manager.request(probe), lambda: floor.get("floor"))
        write = interleaved(1, 500, lambda: writer.request(probe), lambda: (floor.get("floor"), floor.set("floor", value)))
        floor.delete("floor")
        growth.append({
            "sessions": n,
            "redis_bytes_per_session": used / n,
            "redis_request_ns": read["path_ns"],
            "redis_read_ratio": read["ratio"],
            "redis_write_ns": write["path_ns"],
            "redis_write_ratio": write["ratio"],
        })
    many = SessionManager(RedisStore.from_url(url, prefix="l"), POLICY)
    for i in range(50):
        many.sign_in("fifty", f"device {i}")
    return {"growth": growth,
            "list_50_redis_ns": statistics.median(per_call_ns(lambda: many.list("fifty"), 20) for _ in range(5))}
    return out


def main() -> int:
    if sys.argv[1:2] == ["--redis-scale"]:
        # Redis's scale alone (10^6 sessions load in seconds; SQLite's sign-ins would take long):
        #   python bench_server_store.py --redis-scale REDIS_URL SESSIONS
        json.dump(redis_scale(sys.argv[2], int(sys.argv[3])), sys.stdout, indent=1)
        return 0
    url, path, runs, calls, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    # BENCH_SERVER_STORES: the stores measured (default both), e.g. "sqlite" for a run at 10^6.
    stores = os.environ.get("BENCH_SERVER_STORES", "redis sqlite").split()
    unknown = set(stores) - {"redis", "sqlite"}
    if unknown or not stores:
        raise SystemExit(f"BENCH_SERVER_STORES ({' '.join(stores)!r}) must name redis, sqlite or both")
    result: Dict[str, Any] = {}
    if "redis" in stores:
        result["redis"] = redis_part(url, runs, calls)
    if "sqlite" in stores:
        result["sqlite"] = sqlite_part(path + ".paths", runs, calls)
    if "redis" in stores:
        result["scale"] = redis_scale(url, sessions)
    if "sqlite" in stores:
        result["sqlite_scale"] = sqlite_scale(path, sessions)
    json.dump(result, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
