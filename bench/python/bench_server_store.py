"""The server half's decision path against its floors, same process, same run (issue 29, 6).

    python bench_server_store.py REDIS_URL SQLITE_PATH RUNS CALLS SESSIONS  > server_store.json
    python bench_server_store.py --redis-scale REDIS_URL SESSIONS            (Redis's scale alone)

For each store, a request's decision through SessionManager (read the record, the core's
inact_server_decide, write it back by compare-and-set when the core says so) against the floor
a store cannot go below on the same connection: Redis, one GET (read path) and one GET + one SET
(write path); SQLite, one point read by key (and a read + an UPDATE). The read path is a request
inside the coalescing precision (nothing to write); the write path one with precision 0. Each
figure is the median over RUNS runs of CALLS calls, the floors measured interleaved with the
path; Redis's figures call by call, alternating path and floor (`interleaved`), with the batch
figures beside them. Then footprint and scale: bytes per session after SESSIONS sign-ins (Redis
used_memory, loaded by pipelining; the SQLite file), growth from SESSIONS/100 to SESSIONS (with
Redis's read and write path at each size), and the list of a user with 50 sessions.
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

POLICY = Policy(idle_timeout=7200, warning=0, absolute_timeout=86400)


def per_call_ns(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    return (time.perf_counter_ns() - start) / calls


def paired(runs: int, calls: int, path: Callable[[], Any], floor: Callable[[], Any]) -> Dict[str, float]:
    paths: List[float] = []
    floors: List[float] = []
    for _ in range(runs):
        paths.append(per_call_ns(path, calls))
        floors.append(per_call_ns(floor, calls))
    p, f = statistics.median(paths), statistics.median(floors)
    return {"path_ns": p, "floor_ns": f, "ratio": p / f}


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


def sqlite_part(path: str, runs: int, calls: int) -> Dict[str, Any]:
    store = SQLiteStore(path)
    reader = SessionManager(store, POLICY, precision="1h")
    writer = SessionManager(store, POLICY, precision=0, clock=stepping_clock())
    s = reader.sign_in("bench-user", "d").session_id
    conn = store._conn()
    select = "SELECT user, device, created_ms, record, version FROM inactivity_sessions WHERE id = ?"

    def read() -> None:
        assert reader.request(s).state == "ACTIVE"

    def write() -> None:
        o = writer.request(s)
        assert o.decision is not None and o.decision.write

    records = [os.urandom(96), os.urandom(96)]
    turn = [0]
    other = reader.sign_in("bench-floor", "d").session_id   # the floor's own row, of the same size

    def floor_write() -> None:
        conn.execute(select, (other,)).fetchone()
        turn[0] ^= 1   # a different record each time: a real write, committed like the path's
        conn.execute("UPDATE inactivity_sessions SET record = ? WHERE id = ?", (records[turn[0]], other))

    return {
        "read": paired(runs, calls, read, lambda: conn.execute(select, (other,)).fetchone()),
        "write": paired(runs, calls, write, floor_write),
    }


def fill(manager: SessionManager, sessions: int, first_user: int) -> None:
    # Five sessions per user: a user's index is part of what a session costs.
    for i in range(sessions):
        manager.sign_in(f"user{first_user + i // 5}", "Firefox on a laptop")


def load_redis(manager: SessionManager, sessions: int, first_user: int) -> None:
    """What `fill` writes, five sessions per user, loaded by pipelining: the values a sign-in
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


def scale_part(url: str, path: str, sessions: int) -> Dict[str, Any]:
    out = redis_scale(url, sessions)
    sqlite_store = SQLiteStore(path, synchronous="NORMAL")
    sqlite_manager = SessionManager(sqlite_store, POLICY)
    done = 0
    for n, row in zip(scale_points(sessions), out["growth"]):
        fill(sqlite_manager, n - done, done // 5 + 1)
        done = n
        # The file once the WAL is checkpointed into it (the WAL is transient: it is reused).
        sqlite_store._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(path)
        # A request's read path at this size (the session is one of the n).
        s_s = sqlite_manager.sign_in("probe", "d").session_id
        row["sqlite_bytes_per_session"] = size / n
        row["sqlite_request_ns"] = statistics.median(per_call_ns(lambda: sqlite_manager.request(s_s), 200) for _ in range(5))
    many_sqlite = SessionManager(sqlite_store, POLICY)
    for i in range(50):
        many_sqlite.sign_in("fifty", f"device {i}")
    out["list_50_sqlite_ns"] = statistics.median(per_call_ns(lambda: many_sqlite.list("fifty"), 20) for _ in range(5))
    return out


def main() -> int:
    if sys.argv[1:2] == ["--redis-scale"]:
        # Redis's scale alone (10^6 sessions load in seconds; SQLite's sign-ins would take long):
        #   python bench_server_store.py --redis-scale REDIS_URL SESSIONS
        json.dump(redis_scale(sys.argv[2], int(sys.argv[3])), sys.stdout, indent=1)
        return 0
    url, path, runs, calls, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    result = {
        "redis": redis_part(url, runs, calls),
        "sqlite": sqlite_part(path + ".paths", runs, calls),
        "scale": scale_part(url, path, sessions),
    }
    json.dump(result, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
