"""Where the sessions live: one small interface, and SQLite, Redis and Redis Cluster behind it.

A store keeps, for each session, the record the core wrote (opaque bytes), who it belongs to,
its device label, when it was created, and a version that every write bumps. It decides nothing:
the session manager reads a record, asks the core (``inact_server_decide``), and writes the
core's new record back only if the stored one is still the version it read (compare-and-set);
when another request wrote in between, the manager reads again and decides again. So the
decisions of one session, from any number of processes and servers, follow one serial order.

A store also keeps each user's sessions together (the sessions list, the device limit, "revoke
all"): ``user_view`` reads them, and ``commit_user`` applies a set of writes to them only if the
user's sessions are still exactly those read (same ids, same versions), in one atomic step.

Collection: each write carries ``collect_at_ms``, an instant after which the session is dead for
certain (computed by the manager from the core's deadlines plus a retention); the store deletes
it after that (Redis: PEXPIREAT; SQLite: a periodic delete). It is never used to decide: a
record the core has not ended is never collected earlier than its deadlines, and until it is
collected, the core judges it. 0 means "no collection" (a policy without any deadline).

Timeouts: every call gets a deadline (``time.monotonic()`` seconds); a store that cannot answer
by then raises ``StoreUnavailable``, which the manager turns into 503 + Retry-After. Nothing is
ever allowed because a store did not answer.
"""

from __future__ import annotations

import abc
import base64
import binascii
import dataclasses
import json
import os
import re
import sqlite3
import threading
import time
import urllib.parse
from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

__all__ = [
    "Entry",
    "RedisStore",
    "SQLiteStore",
    "Store",
    "StoreUnavailable",
    "UserView",
    "open_store",
]


class StoreUnavailable(Exception):
    """The store did not answer within its timeout (or refused the connection): fail closed."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One stored session as read: its record and the version the record had."""

    session_id: str
    user: str
    device: str
    created_ms: int
    record: bytes
    version: int


_new = object.__new__
_set = object.__setattr__


def _entry(session_id: str, user: str, device: str, created_ms: int, record: bytes, version: int) -> Entry:
    """An Entry built as one dict rather than by the frozen dataclass's __init__ (one
    object.__setattr__ per field): every request reads one."""
    e = _new(Entry)
    _set(e, "__dict__", {"session_id": session_id, "user": user, "device": device, "created_ms": created_ms,
                         "record": record, "version": version})
    return e


class UserView(NamedTuple):
    """A user's sessions as read (oldest first), with what ``commit_user`` checks against."""

    entries: List[Entry]
    token: Any


class Update(NamedTuple):
    """A new record for a session read in a UserView."""

    entry: Entry
    record: bytes
    collect_at_ms: int


class Store(abc.ABC):
    """The interface of every store; see the module's doc for the contract."""

    @abc.abstractmethod
    def get(self, session_id: str, deadline: float) -> Optional[Entry]:
        """The session, or None when it does not exist (never created, or collected)."""

    @abc.abstractmethod
    def compare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        """Writes `record` if the session is still at ``entry.version``; False if it moved on
        (or is gone): read it again and decide again."""

    @abc.abstractmethod
    def user_view(self, user: str, deadline: float) -> UserView:
        """The user's sessions (oldest first)."""

    @abc.abstractmethod
    def commit_user(
        self, user: str, view: UserView, updates: Sequence[Update], create: Optional[Tuple[Entry, int]], deadline: float
    ) -> bool:
        """Atomically: if the user's sessions are still exactly `view` (ids and versions), write
        every update and create `create` (an Entry of version 1 and its collect_at_ms). False,
        with nothing written, when anything changed since `view` was read."""

    def close(self) -> None:
        """Releases connections (the store is unusable afterwards)."""


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise StoreUnavailable("the store's time for this decision ran out")
    return left


_time_ns = time.time_ns


def _now_ms() -> int:
    return _time_ns() // 1_000_000


# ----- SQLite ----------------------------------------------------------------------------------

# The layout (issue 29: at most 300 B per session in the file). A rowid table, whose new rows
# take the next rowid and so are appended to its B-tree (pages filled, not split half-empty by
# random keys), with three indexes that each hold their key and the 1-4-byte rowid:
#   - the session id, unique: the one copy of the id outside the row (a WITHOUT ROWID table
#     keyed by the id put the id in every index entry: three copies per session). The id is
#     stored as the bytes its URL-safe base64 encodes (32 bytes for 43 characters), and only a
#     canonical encoding is looked up (`_id_key`), so that one session has one id;
#   - the user, for a user's sessions (the few rows are ordered by creation when read);
#   - the collection instant, for the sweep (only rows that have one).
# A point read by id is then two B-tree descents (the index, then the row by rowid) instead of
# one: about 10% more per read, for 287 instead of 358 B per session (bench server-store).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS inactivity_sessions (
    id BLOB NOT NULL,
    user TEXT NOT NULL,
    device TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    record BLOB NOT NULL,
    version INTEGER NOT NULL,
    collect_at_ms INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS inactivity_sessions_id ON inactivity_sessions (id);
CREATE INDEX IF NOT EXISTS inactivity_sessions_user ON inactivity_sessions (user);
CREATE INDEX IF NOT EXISTS inactivity_sessions_collect ON inactivity_sessions (collect_at_ms)
    WHERE collect_at_ms > 0;
"""


_GET = ("SELECT user, device, created_ms, record, version FROM inactivity_sessions"
        " WHERE id = ? AND (collect_at_ms = 0 OR collect_at_ms > ?)")

# A canonical URL-safe base64 string without padding: its alphabet, and a last character whose
# unused bits are zero (2 of them after 3 characters of a quantum, 4 after 2; one character
# alone encodes nothing): another last character would name the same bytes by a second id.
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_LAST = {0: None, 2: frozenset(b"AQgw"), 3: frozenset(b"AEIMQUYcgkosw048")}
_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_PADDING = {0: b"", 2: b"==", 3: b"="}
_a2b = binascii.a2b_base64


def _id_key(session_id: str) -> Optional[bytes]:
    """The stored form of a session id: the bytes it encodes; None for a string that is not a
    canonical encoding (no stored session has it). (Checked and decoded with bytes methods and
    binascii: a regex of quanta and base64's urlsafe decode cost several times as much, per
    request.)"""
    if not session_id or not session_id.isascii():
        return None
    raw = session_id.encode("ascii")
    rest = len(raw) % 4
    last = _LAST.get(rest, ())
    if last == () or raw.translate(None, _ALPHABET) or (last is not None and raw[-1] not in last):
        return None
    return _a2b(raw.translate(_TO_STANDARD) + _PADDING[rest])


def _id_of(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).decode("ascii").rstrip("=")


class SQLiteStore(Store):
    """Sessions in one SQLite file (Python's sqlite3, WAL mode): one machine, any number of worker
    processes and threads. Each thread has its own connection; writers serialize on SQLite's
    write lock (``BEGIN IMMEDIATE`` for a user's commit, one UPDATE for a compare-and-set), and a
    writer that waits longer than `timeout` seconds fails closed.

    `synchronous`: SQLite's setting for commits; FULL (the default) keeps every acknowledged
    write across a power loss, NORMAL across a process crash only (faster)."""

    def __init__(self, path: str, *, timeout: float = 1.0, synchronous: str = "FULL", sweep_interval: float = 60.0) -> None:
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"synchronous ({synchronous!r}) must be FULL, NORMAL or EXTRA")
        if not timeout > 0:
            raise ValueError(f"timeout ({timeout!r}) must be > 0 seconds")
        self.path = os.fspath(path)
        self.timeout = timeout
        self._synchronous = synchronous
        self._local = threading.local()
        self._sweep_interval = sweep_interval
        self._next_sweep = 0.0
        self._sweep_lock = threading.Lock()
        self._closed = False
        self._all: List[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        conn = self._conn()
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'inactivity_sessions_id'").fetchone()
        if exists is None and conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'inactivity_sessions'").fetchone():
            # A file of a development build of 1.3 (a WITHOUT ROWID table keyed by the id as text).
            raise StoreUnavailable(f"SQLite {self.path}: the sessions table has an earlier layout; move the file away")
        if exists is None:
            # Two processes may create the schema at once: IF NOT EXISTS, inside one write lock.
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreUnavailable("the store is closed")
        conn: Optional[sqlite3.Connection] = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
                # Setting the mode takes a lock even when it is already WAL: only when needed,
                # so that a worker starting while others write does not wait for them.
                if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(f"PRAGMA synchronous={self._synchronous}")
            except sqlite3.Error as e:
                raise StoreUnavailable(f"SQLite {self.path}: {e}") from None
            self._local.conn = conn
            # The read path's cursor, reused: conn.execute makes a cursor per call. (Python's
            # sqlite3 steps a cursor one row ahead and resets its statement once done, so a
            # point read leaves no read transaction open between requests.)
            self._local.cursor = conn.cursor()
            with self._all_lock:
                self._all.append(conn)
        return conn

    def _run(self, deadline: float, work: Any) -> Any:
        left = _remaining(deadline)
        conn = self._conn()
        # A writer waits for the write lock at most until the decision's deadline.
        conn.execute(f"PRAGMA busy_timeout={max(1, int(left * 1000))}")
        try:
            return work(conn)
        except sqlite3.OperationalError as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreUnavailable(f"SQLite {self.path}: {e}") from None

    def get(self, session_id: str, deadline: float) -> Optional[Entry]:
        # The read path: one statement in autocommit (no transaction of its own), through this
        # thread's cursor, no closure, no PRAGMA. A read in WAL mode waits for no writer; should
        # it wait at all (the WAL index being rebuilt), the connection's own timeout bounds it
        # and the deadline is checked after: late is StoreUnavailable.
        try:
            cursor = self._local.cursor
        except AttributeError:
            self._conn()
            cursor = self._local.cursor
        if self._closed:   # close() cannot close another thread's connection: this refuses it
            raise StoreUnavailable("the store is closed")
        key = _id_key(session_id)
        if key is None:
            return None
        try:
            row = cursor.execute(_GET, (key, _time_ns() // 1_000_000)).fetchone()
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite {self.path}: {e}") from None
        if time.monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        return None if row is None else _entry(session_id, row[0], row[1], row[2], row[3], row[4])

    def compare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE inactivity_sessions SET record = ?, version = version + 1, collect_at_ms = ?"
                " WHERE id = ? AND version = ?",
                (record, collect_at_ms, _id_key(entry.session_id), entry.version),
            )
            return cur.rowcount == 1

        done: bool = self._run(deadline, work)
        self._maybe_sweep(deadline)
        return done

    def user_view(self, user: str, deadline: float) -> UserView:
        def work(conn: sqlite3.Connection) -> UserView:
            rows = conn.execute(
                "SELECT id, device, created_ms, record, version FROM inactivity_sessions"
                " WHERE user = ? AND (collect_at_ms = 0 OR collect_at_ms > ?)",
                (user, _now_ms()),
            ).fetchall()
            entries = sorted((_entry(_id_of(r[0]), user, r[1], r[2], r[3], r[4]) for r in rows),
                             key=lambda e: (e.created_ms, e.session_id))
            return UserView(entries, sorted((_id_key(e.session_id), e.version) for e in entries))

        return self._run(deadline, work)  # type: ignore[no-any-return]

    def commit_user(
        self, user: str, view: UserView, updates: Sequence[Update], create: Optional[Tuple[Entry, int]], deadline: float
    ) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            conn.execute("BEGIN IMMEDIATE")
            try:
                now = _now_ms()
                rows = conn.execute(
                    "SELECT id, version FROM inactivity_sessions"
                    " WHERE user = ? AND (collect_at_ms = 0 OR collect_at_ms > ?)",
                    (user, now),
                ).fetchall()
                if sorted(tuple(r) for r in rows) != view.token:
                    conn.execute("ROLLBACK")
                    return False
                for u in updates:
                    conn.execute(
                        "UPDATE inactivity_sessions SET record = ?, version = version + 1, collect_at_ms = ? WHERE id = ?",
                        (u.record, u.collect_at_ms, _id_key(u.entry.session_id)),
                    )
                # This user's collected sessions go now (the id may come back only as a new one).
                conn.execute(
                    "DELETE FROM inactivity_sessions WHERE user = ? AND collect_at_ms > 0 AND collect_at_ms <= ?", (user, now)
                )
                if create is not None:
                    e, collect_at_ms = create
                    key = _id_key(e.session_id)
                    if key is None:
                        raise ValueError(f"session_id ({e.session_id[:60]!r}) must be canonical URL-safe base64")
                    conn.execute(
                        "INSERT INTO inactivity_sessions (id, user, device, created_ms, record, version, collect_at_ms)"
                        " VALUES (?, ?, ?, ?, ?, 1, ?)",
                        (key, user, e.device, e.created_ms, e.record, collect_at_ms),
                    )
                conn.execute("COMMIT")
                return True
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

        done: bool = self._run(deadline, work)
        self._maybe_sweep(deadline)
        return done

    def _maybe_sweep(self, deadline: float) -> None:
        """Deletes up to 1000 collected sessions, at most once per sweep interval per process."""
        now = time.monotonic()
        if now < self._next_sweep or not self._sweep_lock.acquire(blocking=False):
            return
        try:
            self._next_sweep = now + self._sweep_interval
            conn = self._conn()
            conn.execute(
                "DELETE FROM inactivity_sessions WHERE id IN (SELECT id FROM inactivity_sessions"
                " WHERE collect_at_ms > 0 AND collect_at_ms <= ? LIMIT 1000)",
                (_now_ms(),),
            )
        except (sqlite3.Error, StoreUnavailable):
            pass  # collection is housekeeping: the next sweep tries again
        finally:
            self._sweep_lock.release()

    def close(self) -> None:
        self._closed = True
        with self._all_lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()


# ----- Redis and Redis Cluster -----------------------------------------------------------------

# Key layout (prefix "inact" by default). A user's sessions and their index share the hash tag
# {u:<user>} (the user quoted so that it holds no brace), so in a cluster they live in one slot:
# the list, the device limit and "revoke all" are single-slot scripts.
#   <prefix>:{u:<user>}:s:<id>   string: the version (10 digits), the creation (13 digits, ms),
#                                the device label's length in bytes (3 digits), the label
#                                (UTF-8), then the record (bytes): one string, not a hash, whose
#                                96-byte record would exceed hash-max-listpack-value (64) and cost
#                                a full hash table (~500 B) per session
#   <prefix>:{u:<user>}:i        sorted set: the user's session ids by creation time
#   <prefix>:p:<id>              string: the user of session <id> (a request brings only the id)
# Only Valkey-compatible commands: GET, SET (PXAT), ZRANGE, ZADD, ZREM, PEXPIREAT (with GT),
# PEXPIRETIME, PERSIST, EXISTS, EVALSHA/EVAL.

_CAS = """
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 10) ~= ARGV[1] then return -3 end
local old = redis.call('PEXPIRETIME', KEYS[1])
local header = string.sub(v, 11, 26 + tonumber(string.sub(v, 24, 26)))
local new = string.format('%010d', tonumber(ARGV[1]) + 1) .. header .. ARGV[2]
local at = tonumber(ARGV[3])
if at > 0 then
  redis.call('SET', KEYS[1], new, 'PXAT', at)
  redis.call('PEXPIREAT', KEYS[2], at, 'GT')
else
  redis.call('SET', KEYS[1], new)
  redis.call('PERSIST', KEYS[2])
end
return old
"""

# KEYS[1] the index, KEYS[2..n+1] the sessions read, KEYS[n+2] the new session (if any).
# ARGV[1] JSON {m: index members as read, v: versions of KEYS[2..n+1] (10 digits), d: members
# to drop (collected), u: [[key number, ARGV number of the record, collect_at]], c: [ARGV number
# of the new session's whole value, id, created, collect_at] or absent}; the records and the new
# value travel as ARGV[2...], as bytes.
_COMMIT = """
local spec = cjson.decode(ARGV[1])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
if #members ~= #spec.m then return 0 end
for i, m in ipairs(members) do
  if m ~= spec.m[i] then return 0 end
end
for i, v in ipairs(spec.v) do
  local value = redis.call('GET', KEYS[i + 1])
  if not value or string.sub(value, 1, 10) ~= v then return 0 end
end
local function put(key, value, at)
  if at > 0 then
    redis.call('SET', key, value, 'PXAT', at)
  else
    redis.call('SET', key, value)
  end
end
for _, u in ipairs(spec.u) do
  local key = KEYS[u[1]]
  local v = redis.call('GET', key)
  local header = string.sub(v, 11, 26 + tonumber(string.sub(v, 24, 26)))
  put(key, string.format('%010d', tonumber(string.sub(v, 1, 10)) + 1) .. header .. ARGV[u[2]], u[3])
end
for _, m in ipairs(spec.d) do
  redis.call('ZREM', KEYS[1], m)
end
local persist = false
local latest = 0
if spec.c then
  local key = KEYS[#spec.v + 2]
  put(key, ARGV[spec.c[1]], spec.c[4])
  redis.call('ZADD', KEYS[1], spec.c[3], spec.c[2])
end
-- The index lives as long as the longest-lived of the user's sessions (all of them are KEYS
-- here, but the collected ones, which the index drops above): persistent if one of them is.
if redis.call('EXISTS', KEYS[1]) == 1 then
  for i = 2, #KEYS do
    local at = redis.call('PEXPIRETIME', KEYS[i])
    if at == -1 then persist = true elseif at > latest then latest = at end
  end
  if persist then
    redis.call('PERSIST', KEYS[1])
  elseif latest > 0 then
    redis.call('PEXPIREAT', KEYS[1], latest)
  end
end
return 1
"""


#: Query options of a Redis URL that would change the store's timeouts or retries: the
#: manager's `timeout` bounds every call (503 past it), and redis-py lets the URL override it.
_TIMING_OPTIONS = ("socket_timeout", "socket_connect_timeout", "timeout", "retry_on_timeout", "retry_on_error",
                   "health_check_interval")
#: The others a Redis URL may carry (redis-py passes an unknown name on to the connection,
#: which refuses it only at the first request).
_URL_OPTIONS = ("db", "client_name", "protocol", "max_connections", "socket_keepalive", "socket_read_size",
                "ssl_cert_reqs", "ssl_ca_certs", "ssl_ca_path", "ssl_certfile", "ssl_keyfile", "ssl_password",
                "ssl_check_hostname", "ssl_min_version", "ssl_include_verify_flags", "ssl_exclude_verify_flags")


def _check_url_options(url: str) -> None:
    for name in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True):
        if name in _TIMING_OPTIONS:
            raise ValueError(f"store ({url!r}): {name} may not be set in the URL: the store's timeouts are the"
                             " manager's `timeout` (inactivity-server --timeout), so a decision is 503 past it")
        if name not in _URL_OPTIONS:
            raise ValueError(f"store ({url!r}): unknown option {name} (the options: {', '.join(_URL_OPTIONS)})")


def _pack(version: int, created_ms: int, device: str, record: bytes) -> bytes:
    """A session's value in Redis (see the key layout above)."""
    label = device.encode("utf-8")
    if len(label) > 999:
        raise ValueError(f"device ({device[:40]!r}...) must be at most 999 bytes in UTF-8")
    return b"%010d%013d%03d" % (version, created_ms, len(label)) + label + record


def _unpack(session_id: str, user: str, value: bytes) -> Entry:
    length = int(value[23:26])
    return _entry(session_id, user, value[26:26 + length].decode("utf-8"), int(value[10:23]), value[26 + length:],
                  int(value[:10]))


def _tag(user: str) -> str:
    return "{u:" + urllib.parse.quote(user, safe="@.+-_~:") + "}"


class _Script:
    """A Lua script run by EVALSHA; when the server's script cache was emptied (a restart, a
    SCRIPT FLUSH, a failover to a replica that never saw it: NOSCRIPT), by EVAL, which caches
    it again."""

    def __init__(self, source: str) -> None:
        import hashlib

        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __call__(self, client: Any, keys: Sequence[str], args: Sequence[Any]) -> Any:
        from redis.exceptions import NoScriptError

        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return client.eval(self.source, len(keys), *keys, *args)


class RedisStore(Store):
    """Sessions in Redis (or Valkey), a single server or a Cluster.

    ``RedisStore.from_url("redis://127.0.0.1:6379/0")`` for one server;
    ``RedisStore.cluster([("127.0.0.1", 7000), ...])`` for a cluster (any of its nodes; the
    client learns the rest). Every network call has `timeout` seconds (connect and read) and no
    retry of its own: a server that is down, paused or slow costs at most the decision's
    deadline, then StoreUnavailable (503); the connection is made again at the next call, so the
    app recovers without a restart when the server does."""

    def __init__(self, client: Any, *, prefix: str = "inact", pointer_cache: int = 65536) -> None:
        self.client = client
        self.prefix = prefix
        self._cas = _Script(_CAS)
        self._commit = _Script(_COMMIT)
        self._pointers: dict[str, str] = {}
        self._pointer_cache = pointer_cache
        self._lock = threading.Lock()
        import redis.exceptions

        self._rex = redis.exceptions  # looked up once, not per call

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 1.0, prefix: str = "inact") -> "RedisStore":
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        _check_url_options(url)
        client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False,
            health_check_interval=0,
        )
        return cls(client, prefix=prefix)

    @classmethod
    def cluster(cls, nodes: Sequence[Tuple[str, int]], *, timeout: float = 1.0, prefix: str = "inact") -> "RedisStore":
        from redis.backoff import NoBackoff
        from redis.cluster import ClusterNode, RedisCluster
        from redis.retry import Retry

        node: Any = ClusterNode  # untyped in redis-py
        client = RedisCluster(
            startup_nodes=[node(h, p) for h, p in nodes],
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        return cls(client, prefix=prefix)

    # -- keys -----------------------------------------------------------------------------------

    def _session_key(self, user: str, session_id: str) -> str:
        return f"{self.prefix}:{_tag(user)}:s:{session_id}"

    def _index_key(self, user: str) -> str:
        return f"{self.prefix}:{_tag(user)}:i"

    def _pointer_key(self, session_id: str) -> str:
        return f"{self.prefix}:p:{session_id}"

    def _call(self, deadline: float, fn: Any, *args: Any) -> Any:
        rex = self._rex
        _remaining(deadline)
        try:
            result = fn(*args)
        except (rex.ConnectionError, rex.TimeoutError, rex.ClusterDownError, rex.BusyLoadingError, OSError) as e:
            raise StoreUnavailable(f"Redis: {e}") from None
        except rex.RedisClusterException as e:
            raise StoreUnavailable(f"Redis Cluster: {e}") from None
        except rex.ResponseError as e:
            # TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN...: the store cannot decide now.
            raise StoreUnavailable(f"Redis: {e}") from None
        _remaining(deadline)  # an answer after the deadline is not a decision in time
        return result

    def _user_of(self, session_id: str, deadline: float) -> Optional[str]:
        user = self._pointers.get(session_id)  # one dict read is atomic; writers take the lock
        if user is not None:
            return user
        raw = self._call(deadline, self.client.get, self._pointer_key(session_id))
        if raw is None:
            return None
        user = str(raw.decode("utf-8"))
        with self._lock:
            if len(self._pointers) >= self._pointer_cache:
                self._pointers.pop(next(iter(self._pointers)))
            self._pointers[session_id] = user  # a session never changes its user
        return user

    # -- the interface --------------------------------------------------------------------------

    def get(self, session_id: str, deadline: float) -> Optional[Entry]:
        user = self._user_of(session_id, deadline)
        if user is None:
            return None
        value = self._call(deadline, self.client.get, self._session_key(user, session_id))
        return None if value is None else _unpack(session_id, user, value)

    def compare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        keys = [self._session_key(entry.user, entry.session_id), self._index_key(entry.user)]
        old = self._call(deadline, self._cas, self.client, keys, [b"%010d" % entry.version, record, str(collect_at_ms)])
        if old == -3:
            return False
        if collect_at_ms == 0:
            self._call(deadline, self.client.persist, self._pointer_key(entry.session_id))
        elif old != -1 and collect_at_ms > old:
            # The pointer lives as long as its session (another slot: a second call, only when
            # the collection moved later, at most once per coalescing precision).
            self._call(deadline, lambda: self.client.pexpireat(self._pointer_key(entry.session_id), collect_at_ms, gt=True))
        return True

    def user_view(self, user: str, deadline: float) -> UserView:
        members = [m.decode("ascii") for m in self._call(deadline, self.client.zrange, self._index_key(user), 0, -1)]
        rows: List[Any] = []
        if members:
            def read() -> Any:
                pipe = self.client.pipeline(transaction=False)
                for m in members:
                    pipe.get(self._session_key(user, m))
                return pipe.execute()

            rows = self._call(deadline, read)
        entries: List[Entry] = []
        dead: List[str] = []
        for m, value in zip(members, rows):
            if value is None:
                dead.append(m)  # collected by its TTL: dropped from the index at the next commit
            else:
                entries.append(_unpack(m, user, value))
        entries.sort(key=lambda e: (e.created_ms, e.session_id))
        return UserView(entries, (members, dead))

    def commit_user(
        self, user: str, view: UserView, updates: Sequence[Update], create: Optional[Tuple[Entry, int]], deadline: float
    ) -> bool:
        members, dead = view.token
        entries = view.entries
        keys = [self._index_key(user)] + [self._session_key(user, e.session_id) for e in entries]
        records: List[bytes] = []
        position = {e.session_id: i for i, e in enumerate(entries)}
        spec: dict[str, Any] = {"m": members, "v": ["%010d" % e.version for e in entries], "d": dead, "u": []}
        for u in updates:
            records.append(u.record)
            spec["u"].append([position[u.entry.session_id] + 2, len(records) + 1, u.collect_at_ms])
        if create is not None:
            e, collect_at_ms = create
            records.append(_pack(1, e.created_ms, e.device, e.record))
            keys.append(self._session_key(user, e.session_id))
            spec["c"] = [len(records) + 1, e.session_id, str(e.created_ms), collect_at_ms]
            # The pointer first: a request can find the session as soon as it exists; a
            # pointer whose commit then fails points at nothing and is collected with its TTL.
            pointer = self._pointer_key(e.session_id)
            if collect_at_ms > 0:
                self._call(deadline, lambda: self.client.set(pointer, user, pxat=collect_at_ms))
            else:
                self._call(deadline, lambda: self.client.set(pointer, user))
        result = self._call(deadline, self._commit, self.client, keys, [json.dumps(spec), *records])
        return bool(result == 1)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass


def open_store(url: str, *, timeout: float = 1.0) -> Store:
    """A store from a URL: ``sqlite:PATH`` (or a plain path), ``redis://HOST:PORT/DB``,
    ``redis-cluster://HOST:PORT[,HOST:PORT...]``."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore.from_url(url, timeout=timeout)
    if url.startswith("redis-cluster://"):
        nodes: List[Tuple[str, int]] = []
        for part in url[len("redis-cluster://"):].split(","):
            host, sep, port = part.rpartition(":")
            if not sep or not host or not port.isdigit():
                raise ValueError(f"store ({url!r}): each cluster node must be HOST:PORT, not {part!r}")
            nodes.append((host, int(port)))
        return RedisStore.cluster(nodes, timeout=timeout)
    if url.startswith("sqlite:"):
        path = url[len("sqlite:"):]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise ValueError(f"store ({url!r}): sqlite:PATH needs a path")
        return SQLiteStore(path, timeout=timeout)
    if "://" in url:
        raise ValueError(f"store ({url!r}) must be sqlite:PATH, redis://HOST:PORT/DB or redis-cluster://HOST:PORT,...")
    return SQLiteStore(url, timeout=timeout)
