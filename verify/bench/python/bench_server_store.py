"""The server half's decision path against its floors, same process, same run (issue 29, 6).

    python bench_server_store.py REDIS_URL SQLITE_PATH RUNS CALLS SESSIONS  > server_store.json

For each store, a request's decision through SessionManager (read the record, the core's
inact_server_decide, write it back by compare-and-set when the core says so) against the floor
a store cannot go below on the same connection: Redis, one GET (read path) and one GET + one SET
(write path); SQLite, one point read by key (and a read + an UPDATE). The read path is a request
inside the coalescing precision (nothing to write); the write path one with precision 0. Each
figure is the median over RUNS runs of CALLS calls, the floors measured interleaved with the
path. Then footprint and scale: bytes per session after SESSIONS sign-ins (Redis used_memory,
the SQLite file), growth from SESSIONS/100 to SESSIONS, and the list of a user with 50 sessions.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

from inactivity import Policy
from inactivity.server import RedisStore, SessionManager, SQLiteStore

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

    out: Dict[str, Any] = {
        "read": paired(runs, calls, read, lambda: client.get("bench:floor")),
        "write": paired(runs, calls, write, lambda: (client.get("bench:floor"), client.set("bench:floor", record))),
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


def scale_part(url: str, path: str, sessions: int) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    client = RedisStore.from_url(url).client
    client.flushall()
    base = int(client.info("memory")["used_memory"])
    redis_manager = SessionManager(RedisStore.from_url(url, prefix="s"), POLICY)
    sqlite_store = SQLiteStore(path, synchronous="NORMAL")
    sqlite_manager = SessionManager(sqlite_store, POLICY)
    points = sorted({max(1, sessions // 100), max(1, sessions // 10), sessions})
    done = 0
    growth = []
    for n in points:
        fill(redis_manager, n - done, done // 5 + 1)
        fill(sqlite_manager, n - done, done // 5 + 1)
        done = n
        used = int(client.info("memory")["used_memory"]) - base
        # The file once the WAL is checkpointed into it (the WAL is transient: it is reused).
        sqlite_store._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = os.path.getsize(path)
        # A request's read path at this size (the session is one of the n).
        s_r = redis_manager.sign_in("probe", "d").session_id
        s_s = sqlite_manager.sign_in("probe", "d").session_id
        growth.append({
            "sessions": n,
            "redis_bytes_per_session": used / n,
            "sqlite_bytes_per_session": size / n,
            "redis_request_ns": statistics.median(per_call_ns(lambda: redis_manager.request(s_r), 200) for _ in range(5)),
            "sqlite_request_ns": statistics.median(per_call_ns(lambda: sqlite_manager.request(s_s), 200) for _ in range(5)),
        })
    out["growth"] = growth
    many = SessionManager(RedisStore.from_url(url, prefix="l"), POLICY)
    many_sqlite = SessionManager(sqlite_store, POLICY)
    for i in range(50):
        many.sign_in("fifty", f"device {i}")
        many_sqlite.sign_in("fifty", f"device {i}")
    out["list_50_redis_ns"] = statistics.median(per_call_ns(lambda: many.list("fifty"), 20) for _ in range(5))
    out["list_50_sqlite_ns"] = statistics.median(per_call_ns(lambda: many_sqlite.list("fifty"), 20) for _ in range(5))
    return out


def main() -> int:
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
