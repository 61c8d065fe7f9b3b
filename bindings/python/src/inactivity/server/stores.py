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
import asyncio
import base64
import binascii
import dataclasses
import logging
import os
import secrets
import sqlite3
import struct
import threading
import time
import urllib.parse
import weakref
from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Tuple

from .ids import TAG_LENGTH, new_session_id, routing_tag, session_secret

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
    #: The stored value as read, for a store whose compare-and-set compares it (Redis).
    raw: Optional[bytes] = dataclasses.field(default=None, repr=False, compare=False)


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

    #: True when ``aget`` and ``acompare_and_set`` wait on the event loop itself (a network
    #: store with an asyncio client); else they are the blocking calls in a worker thread.
    asynchronous = False

    async def aget(self, session_id: str, deadline: float) -> Optional[Entry]:
        """``get`` for a caller on an event loop (this default: in a worker thread)."""
        return await asyncio.get_running_loop().run_in_executor(None, self.get, session_id, deadline)

    async def acompare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        """``compare_and_set`` for a caller on an event loop (this default: in a worker thread)."""
        return await asyncio.get_running_loop().run_in_executor(
            None, self.compare_and_set, entry, record, collect_at_ms, deadline)

    async def aclose(self) -> None:
        """Releases what the running event loop's calls opened (its asyncio client), on that loop
        before it ends; the store stays usable (another loop opens its own)."""

    def new_session_id(self, user: str, deadline: float) -> str:
        """A fresh id for a session of `user` (ids.new_session_id). A store that routes by user
        puts the user's routing tag in it; this one, a random tag."""
        return new_session_id()

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


# The read path looks the row up by its id alone (one bound parameter, the unique index) and
# checks the collection instant in Python, as Redis's read does: a row past it is gone.
_GET = "SELECT user, device, created_ms, record, version, collect_at_ms FROM inactivity_sessions WHERE id = ?"

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


def _checked(session_id: str, user: Any, device: Any, created_ms: Any, record: Any, version: Any) -> Entry:
    """The Entry of a row with a column of a type this store never writes (SQLite keeps any type
    in any column: a row of another program's, a damaged file). A record that is not bytes, or a
    user that is not text, is a corrupt session, as a Redis value the store did not write is: its
    record empty, which the core decides EXPIRED (RESTORE_FAILED), and that decision's write
    replaces it (the version as read, which the compare-and-set compares). A label or creation
    time of another type is shown as none."""
    if type(record) is not bytes or type(user) is not str:
        record = b""
    return _entry(session_id, user if type(user) is str else "", device if type(device) is str else "",
                  created_ms if type(created_ms) is int else 0, record, version)


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
        if self.path != ":memory:" and not self.path.startswith("file:"):
            # The file holds every session's id, a bearer secret: readable by its owner only, not
            # by the umask's default (0644: any local user). SQLite gives its -wal and -shm files
            # the database file's mode. A file that exists keeps the mode its operator gave it.
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass
            except OSError as e:
                raise StoreUnavailable(f"SQLite {self.path}: {e}") from None
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
            row = cursor.execute(_GET, (key,)).fetchone()
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite {self.path}: {e}") from None
        if time.monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        if row is None:
            return None
        collect = row[5]
        if collect and collect <= _time_ns() // 1_000_000:
            return None   # collected (dead for certain since collect_at_ms): as if deleted
        if type(row[3]) is not bytes or type(row[0]) is not str or type(row[1]) is not str or type(row[2]) is not int:
            return _checked(session_id, *row[:5])
        return _entry(session_id, row[0], row[1], row[2], row[3], row[4])

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
            entries = sorted((_checked(_id_of(r[0]), user, r[1], r[2], r[3], r[4]) for r in rows),
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

# Key layout (prefix "inact" by default). A session id starts with its user's routing tag
# (ids.routing_tag: a keyed hash of the user, the key kept in Redis), so a request computes the
# key of its session from the id alone: no lookup from the id to its user, one read.
#   <prefix>:{<tag>}     hash: one field per session of the users whose tag is <tag> (a user's
#                        own, barring a rare shared tag): the field is the id's 32 random bytes,
#                        the value the session (below). Its hash tag {<tag>} puts a user's
#                        sessions in one Cluster slot: the list, the device limit and "revoke
#                        all" touch one key. Its TTL is the latest collection time of its
#                        sessions (none while one of them has none): Redis 7.0 has no TTL per
#                        field, so a dead session's field stays until its user's next commit
#                        (sign-in, revocations, the device limit) deletes it, or the hash
#                        expires; a read treats it as gone from its collection time on.
#   <prefix>:tagkey      string: the key of the routing tags (32 random bytes, made by the first
#                        store to start: SET NX). Losing it signs every user out (no stored
#                        session names a user whose tag its id carries), never in.
# A session's value: the header _HEADER (version, created, collect_at_ms, the user's and the
# device label's lengths in bytes), the user and the label (UTF-8), then the core's record. The
# value, ~150 B, exceeds Redis's hash-max-listpack-value (64 by default): set it to 512 to keep
# the hashes compact (docs/server.md; the store warns at start when it is lower).
# Only Valkey-compatible commands: HGET, HGETALL, HSET, HDEL, HLEN, HVALS, PEXPIREAT (GT), PTTL,
# PERSIST, EXISTS, SET (NX), GET, INFO, CONFIG GET, EVALSHA/EVAL (with Lua's struct library).

_HEADER = struct.Struct(">IqqHH")
_HEADER_SIZE = _HEADER.size  # 24
_header_of = _HEADER.unpack_from
_time_ns = time.time_ns
_monotonic = time.monotonic

# The compare-and-set of one session. KEYS[1] the user's hash; ARGV[1] the field, ARGV[2] the value
# as read, ARGV[3] the new value, ARGV[4] its collect_at_ms (0: none), in decimal, or '' when it is
# the collect_at_ms of the value as read. In that case (a write that moves no end, as a new last
# activity does while the absolute limit is the session's end: the bench's write) the hash's TTL is
# left as it is, and stays what it must be: its sessions' collection times are the same set as
# before the write, and every writer leaves the hash a TTL no earlier than any time of the set it
# leaves, none while one of them is 0 (PEXPIREAT GT, or the scan, or PERSIST here, below; the exact
# expiry or PERSIST in _COMMIT). So such a write is two calls, HGET and HSET, not four (PEXPIREAT
# GT, which answers 0 for the same instant, then PTTL): 2.3 instead of 2.9 us of the server's time
# per write, by its commandstats. The instant goes to PEXPIREAT as the string it came as: no
# conversion to a Lua number (a double) and back. The whole value is compared, not its version
# alone: the same bytes cost no measurable time here (one Lua string compare), and a version alone
# would pass a value that a failover to a replica lost and another writer wrote again with the same
# version.
_CAS = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
local at = ARGV[4]
if at == '' then return 1 end
if at == '0' then
  redis.call('PERSIST', KEYS[1])
elseif redis.call('PEXPIREAT', KEYS[1], at, 'GT') == 0 and redis.call('PTTL', KEYS[1]) == -1 then
  -- No TTL: a session had no collection time, maybe this one until now. The latest of all,
  -- unless one of them still has none (or cannot be read: kept, never collected early).
  local latest = 0
  for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
    if #value < 24 then return 1 end
    local c = struct.unpack('>i8', value, 13)
    if c == 0 then return 1 end
    if c > latest then latest = c end
  end
  redis.call('PEXPIREAT', KEYS[1], latest)
end
return 1
"""

# A user's atomic commit. KEYS[1] the user's hash. ARGV[1] n, the number of fields read;
# ARGV[2] the hash's new expiry (ms since 1970; 0: none); ARGV[3] d, fields to delete; ARGV[4] s,
# fields to set; then n pairs (field, value as read), d fields, s pairs (field, new value).
_COMMIT = """
local n, at, d, s = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if redis.call('HLEN', KEYS[1]) ~= n then return 0 end
local i = 5
for _ = 1, n do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
  i = i + 2
end
for _ = 1, d do
  redis.call('HDEL', KEYS[1], ARGV[i])
  i = i + 1
end
for _ = 1, s do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if at == 0 then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIREAT', KEYS[1], at) end
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
#: The store's own URL option (taken out before redis-py reads the URL).
_ALLOW_EVICTION = "allow_eviction"
_YES_NO = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}
#: hash-max-listpack-value that keeps a user's hash compact (a session's value is ~150 B with a
#: short user name and device label; up to ~2 KB with the longest).
_LISTPACK_VALUE = 512


def _check_url_options(url: str) -> None:
    for name in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True):
        if name in _TIMING_OPTIONS:
            raise ValueError(f"store ({url!r}): {name} may not be set in the URL: the store's timeouts are the"
                             " manager's `timeout` (inactivity-server --timeout), so a decision is 503 past it")
        if name not in _URL_OPTIONS and name != _ALLOW_EVICTION:
            raise ValueError(f"store ({url!r}): unknown option {name} (the options: {', '.join(_URL_OPTIONS)},"
                             f" {_ALLOW_EVICTION})")


def _take_allow_eviction(url: str) -> Tuple[str, Optional[bool]]:
    """The URL without the store's own option, and that option's value (None when absent)."""
    parts = urllib.parse.urlsplit(url)
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    values = [v for k, v in pairs if k == _ALLOW_EVICTION]
    if not values:
        return url, None
    if len(values) > 1 or values[0].lower() not in _YES_NO:
        raise ValueError(f"store ({url!r}): {_ALLOW_EVICTION} must be given once, as yes or no")
    query = urllib.parse.urlencode([(k, v) for k, v in pairs if k != _ALLOW_EVICTION])
    return urllib.parse.urlunsplit(parts._replace(query=query)), _YES_NO[values[0].lower()]


class EvictionPolicyError(ValueError):
    """Redis may evict keys (maxmemory-policy is not noeviction): the store refuses to start."""


class _Corrupt(Exception):
    pass


def _pack(version: int, created_ms: int, collect_at_ms: int, user: str, device: str, record: bytes) -> bytes:
    """A session's value in its user's hash (see the key layout above)."""
    u = user.encode("utf-8")
    d = device.encode("utf-8")
    if len(u) > 65535 or len(d) > 65535:
        raise ValueError("user and device must each be under 64 KiB in UTF-8")
    return _HEADER.pack(version & 0xFFFFFFFF, created_ms, collect_at_ms, len(u), len(d)) + u + d + record


def _unpack(raw: bytes) -> Tuple[int, int, int, str, str, bytes]:
    """(version, created_ms, collect_at_ms, user, device, record) of a value; _Corrupt when it is
    not one this store wrote (the record itself is the core's to judge)."""
    try:
        version, created, collect, ulen, dlen = _HEADER.unpack_from(raw)
        end = _HEADER_SIZE + ulen + dlen
        if len(raw) < end:
            raise _Corrupt()
        user = raw[_HEADER_SIZE:_HEADER_SIZE + ulen].decode("utf-8")
        device = raw[_HEADER_SIZE + ulen:end].decode("utf-8")
    except (struct.error, UnicodeDecodeError):
        raise _Corrupt() from None
    return version, created, collect, user, device, raw[end:]


class _Script:
    """A Lua script run by EVALSHA; when the server's script cache was emptied (a restart, a
    SCRIPT FLUSH, a failover to a replica that never saw it: NOSCRIPT), by EVAL, which caches
    it again. Through the client's execute_command (what its evalsha and eval call: on a
    Cluster, the keys route the command), with the exception class looked up once (an import
    statement in the call cost 0.5 us per call). The compare-and-set, on every write's path, runs
    its script the same way inline (compare_and_set, acompare_and_set); a user's commit, here."""

    def __init__(self, source: str) -> None:
        import hashlib

        from redis.exceptions import NoScriptError

        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        self.missing = NoScriptError

    def __call__(self, client: Any, keys: Sequence[str], args: Sequence[Any]) -> Any:
        try:
            return client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except self.missing:
            return client.execute_command("EVAL", self.source, len(keys), *keys, *args)


#: ARGV[4] of _CAS when the new value's collect_at_ms is the one of the value as read.
_SAME_COLLECT = b""


class RedisStore(Store):
    """Sessions in Redis (or Valkey), a single server or a Cluster: one hash per user (its
    routing tag), one field per session.

    ``RedisStore.from_url("redis://127.0.0.1:6379/0")`` for one server;
    ``RedisStore.cluster([("127.0.0.1", 7000), ...])`` for a cluster (any of its nodes; the
    client learns the rest). Every network call has `timeout` seconds (connect and read) and no
    retry of its own: a server that is down, paused or slow costs at most the decision's
    deadline, then StoreUnavailable (503); the connection is made again at the next call, so the
    app recovers without a restart when the server does.

    At start the store checks every node's ``maxmemory-policy``: anything but ``noeviction``
    refuses to start (EvictionPolicyError) unless `allow_eviction` (the URL's
    ``allow_eviction=yes``), since an evicted hash signs its user out early and forgets why. A
    node that cannot be reached then is checked at the first call that reaches it; until then
    every call is StoreUnavailable."""

    def __init__(self, client: Any, *, prefix: str = "inact", allow_eviction: bool = False, timeout: float = 1.0,
                 async_client: Optional[Callable[[], Any]] = None) -> None:
        if not isinstance(allow_eviction, bool):
            raise TypeError(f"allow_eviction must be a bool, not {type(allow_eviction).__name__}")
        self.client = client
        # `async_client` makes a redis.asyncio client of the same server(s) and options: one per
        # event loop (a client's connections belong to the loop that opened them), made at that
        # loop's first call. Without it, aget and acompare_and_set use a worker thread.
        self._async_factory = async_client
        self.asynchronous = async_client is not None
        self._async_clients: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
        self._async_last: Tuple[Any, Any] = (None, None)   # (loop, client): one read per call
        self.prefix = prefix
        self.allow_eviction = allow_eviction
        self._open = prefix + ":{"
        self._cas = _Script(_CAS)
        self._commit = _Script(_COMMIT)
        self._tag_key: Optional[bytes] = None
        self._tags: dict[str, str] = {}
        self._lock = threading.Lock()
        import redis.exceptions

        self._rex = redis.exceptions  # looked up once, not per call
        rex = redis.exceptions
        # What _call turns into StoreUnavailable (ResponseError: TRYAGAIN, CLUSTERDOWN, LOADING,
        # MASTERDOWN, ...: the store cannot decide now), for the read path's inline call.
        self._unavailable = (rex.ConnectionError, rex.TimeoutError, rex.ClusterDownError, rex.BusyLoadingError, OSError,
                             rex.RedisClusterException, rex.ResponseError)
        try:
            self._start(time.monotonic() + timeout)
        except StoreUnavailable:
            pass  # not reachable now: checked at the first call that reaches it

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 1.0, prefix: str = "inact",
                 allow_eviction: Optional[bool] = None) -> "RedisStore":
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        _check_url_options(url)
        url, in_url = _take_allow_eviction(url)
        client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False,
            health_check_interval=0,
        )

        def async_client() -> Any:
            import redis.asyncio
            from redis.asyncio.retry import Retry as AsyncRetry

            # The same options: the decision's own timer (SessionManager.arequest) bounds the
            # whole decision; these bound each call as the blocking client's do.
            return redis.asyncio.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=AsyncRetry(NoBackoff(), 0),
                retry_on_timeout=False,
                health_check_interval=0,
            )

        allow = allow_eviction if allow_eviction is not None else bool(in_url)
        return cls(client, prefix=prefix, allow_eviction=allow, timeout=timeout, async_client=async_client)

    @classmethod
    def cluster(cls, nodes: Sequence[Tuple[str, int]], *, timeout: float = 1.0, prefix: str = "inact",
                allow_eviction: bool = False) -> "RedisStore":
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

        def async_client() -> Any:
            from redis.asyncio.cluster import ClusterNode as AsyncNode, RedisCluster as AsyncCluster
            from redis.asyncio.retry import Retry as AsyncRetry

            anode: Any = AsyncNode
            return AsyncCluster(
                startup_nodes=[anode(h, p) for h, p in nodes],
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=AsyncRetry(NoBackoff(), 0),
            )

        return cls(client, prefix=prefix, allow_eviction=allow_eviction, timeout=timeout, async_client=async_client)

    # -- start: the eviction policy, the routing tags' key ---------------------------------------

    def _node_infos(self) -> List[Tuple[str, Any]]:
        from redis.cluster import RedisCluster

        if isinstance(self.client, RedisCluster):
            found = self.client.info("memory", target_nodes=RedisCluster.ALL_NODES)
            return sorted(found.items())
        kwargs = self.client.connection_pool.connection_kwargs
        where = kwargs.get("path") or f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
        return [(where, self.client.info("memory"))]

    def _start(self, deadline: float) -> None:
        with self._lock:
            if self._tag_key is not None:
                return
            for node, info in self._call(deadline, self._node_infos):
                policy = info.get("maxmemory_policy")
                if policy != "noeviction" and not self.allow_eviction:
                    raise EvictionPolicyError(
                        f"Redis {node}: maxmemory-policy is {policy}, and the session store needs noeviction:"
                        " an evicted hash ends its user's sessions early and forgets why (a revoked device is"
                        " told nothing). Set `maxmemory-policy noeviction` (redis.conf, or CONFIG SET), or"
                        f" accept it explicitly: {_ALLOW_EVICTION}=yes in the store's URL"
                        " (RedisStore(allow_eviction=True))")
            self._check_listpack(deadline)
            key = f"{self.prefix}:tagkey"
            self._call(deadline, lambda: self.client.set(key, secrets.token_bytes(32), nx=True))
            value = self._call(deadline, self.client.get, key)
            if not isinstance(value, bytes) or len(value) != 32:
                raise StoreUnavailable(f"Redis: {key} is not the 32-byte key of the routing tags")
            self._tag_key = value

    def _check_listpack(self, deadline: float) -> None:
        try:
            found = self._call(deadline, self.client.config_get, "hash-max-listpack-value")
        except StoreUnavailable:
            return  # CONFIG may be refused (a managed Redis): memory only, nothing to refuse
        values = found.values() if isinstance(found, dict) else []
        flat = [v for v in values if not isinstance(v, dict)] + [w for v in values if isinstance(v, dict) for w in v.values()]
        for v in flat:
            try:
                if int(v) < _LISTPACK_VALUE:
                    logging.getLogger("inactivity.server").warning(
                        "Redis hash-max-listpack-value is %s: a session's value (~150 B) exceeds it, so each"
                        " user's hash is a hash table, about 1.5x the memory; set it to %d (docs/server.md)",
                        v, _LISTPACK_VALUE)
                    return
            except (TypeError, ValueError):
                continue

    def _ready(self, deadline: float) -> bytes:
        key = self._tag_key
        if key is None:
            try:
                self._start(deadline)
            except EvictionPolicyError as e:
                raise StoreUnavailable(str(e)) from None  # found after start: fail closed
            key = self._tag_key
            assert key is not None
        return key

    # -- keys -----------------------------------------------------------------------------------

    def _tag_of(self, user: str, deadline: float) -> str:
        tag = self._tags.get(user)  # one dict read is atomic; writers take the lock
        if tag is None:
            tag = routing_tag(self._ready(deadline), user)
            with self._lock:
                if len(self._tags) >= 65536:
                    self._tags.pop(next(iter(self._tags)))
                self._tags[user] = tag
        return tag

    def _hash_key(self, tag: str) -> str:
        return self._open + tag + "}"

    def new_session_id(self, user: str, deadline: float) -> str:
        return new_session_id(self._tag_of(user, deadline))

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

    def _entry_of(self, session_id: str, raw: bytes, tag: str, deadline: float) -> Optional[Entry]:
        """The session a value holds; None when it is collected or does not name a user whose tag
        the id carries (a forged tag, a lost tag key). A value this store did not write is a
        corrupt session: its record is empty, which the core decides EXPIRED (RESTORE_FAILED),
        and the write of that decision replaces the value. (The read path: _unpack, inline.)"""
        try:
            version, created, collect, ulen, dlen = _header_of(raw)
            user_end = _HEADER_SIZE + ulen
            end = user_end + dlen
            if len(raw) < end:
                raise _Corrupt()
            user = raw[_HEADER_SIZE:user_end].decode("utf-8")
            device = raw[user_end:end].decode("utf-8")
        except (struct.error, UnicodeDecodeError, _Corrupt):
            e = _new(Entry)
            _set(e, "__dict__", {"session_id": session_id, "user": "", "device": "", "created_ms": 0, "record": b"",
                                 "version": 0, "raw": raw})
            return e
        if collect and collect <= _time_ns() // 1_000_000:
            return None  # dead for certain since collect_at: gone, as its TTL would have it
        if user and (self._tags.get(user) or self._tag_of(user, deadline)) != tag:
            return None
        e = _new(Entry)
        _set(e, "__dict__", {"session_id": session_id, "user": user, "device": device, "created_ms": created,
                             "record": raw[end:], "version": version, "raw": raw})
        return e

    # -- the interface --------------------------------------------------------------------------

    def get(self, session_id: str, deadline: float) -> Optional[Entry]:
        # The read path: one HGET. _call, inline (a request makes this call and nothing else).
        if self._tag_key is None:
            self._ready(deadline)
        tag = session_id[:TAG_LENGTH]
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        try:
            raw = self.client.hget(self._open + tag + "}", session_secret(session_id))
        except self._unavailable as e:
            raise StoreUnavailable(f"Redis: {e}") from None
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")  # late is not in time
        return None if raw is None else self._entry_of(session_id, raw, tag, deadline)

    # -- the same on the event loop (redis.asyncio): the gateway's path --------------------------

    def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()
        last_loop, client = self._async_last
        if last_loop is loop:
            return client
        with self._lock:
            client = self._async_clients.get(loop)
            if client is None:
                assert self._async_factory is not None
                client = self._async_factory()
                self._async_clients[loop] = client
            self._async_last = (loop, client)
        return client

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._async_clients.pop(loop, None)
            if self._async_last[0] is loop:
                self._async_last = (None, None)
        if client is not None:
            await client.aclose()

    async def aget(self, session_id: str, deadline: float) -> Optional[Entry]:
        # get's read path, awaited: one HGET. The caller's timer (SessionManager.arequest)
        # cancels it at the decision's deadline; the checks here make late StoreUnavailable too.
        if not self.asynchronous:
            return await Store.aget(self, session_id, deadline)
        if self._tag_key is None:
            # Only until the start's checks passed once: blocking calls, so in a worker thread.
            await asyncio.get_running_loop().run_in_executor(None, self._ready, deadline)
        tag = session_id[:TAG_LENGTH]
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        try:
            raw = await self._async_client().hget(self._open + tag + "}", session_secret(session_id))
        except self._unavailable as e:
            raise StoreUnavailable(f"Redis: {e}") from None
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")  # late is not in time
        return None if raw is None else self._entry_of(session_id, raw, tag, deadline)

    def _cas_args(self, entry: Entry, record: bytes, collect_at_ms: int) -> Tuple[str, bytes, bytes, bytes, Any]:
        """_CAS's KEYS[1] and ARGV of a write of `record` over `entry`."""
        raw = entry.raw
        if raw is None:
            raise ValueError("the entry was not read from this store")
        session_id = entry.session_id
        new = _pack(entry.version + 1, entry.created_ms, collect_at_ms, entry.user, entry.device, record)
        # The header's collect_at_ms (bytes 12-20) as read, when the value is one this store
        # wrote (a corrupt value's entry has an empty record: the script takes the whole way).
        same = entry.record and raw[12:20] == new[12:20]
        return (self._open + session_id[:TAG_LENGTH] + "}", session_secret(session_id), raw, new,
                _SAME_COLLECT if same else str(collect_at_ms))

    async def acompare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        if not self.asynchronous:
            return await Store.acompare_and_set(self, entry, record, collect_at_ms, deadline)
        if self._tag_key is None:
            await asyncio.get_running_loop().run_in_executor(None, self._ready, deadline)
        args = self._cas_args(entry, record, collect_at_ms)
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        client = self._async_client()
        cas = self._cas
        try:
            try:
                done = await client.execute_command("EVALSHA", cas.sha, 1, *args)
            except cas.missing:
                done = await client.execute_command("EVAL", cas.source, 1, *args)
        except self._unavailable as e:
            raise StoreUnavailable(f"Redis: {e}") from None
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")  # late is not in time
        return bool(done == 1)

    def compare_and_set(self, entry: Entry, record: bytes, collect_at_ms: int, deadline: float) -> bool:
        # The write path: one EVALSHA. _call and _Script, inline (every write makes this call).
        if self._tag_key is None:
            self._ready(deadline)
        args = self._cas_args(entry, record, collect_at_ms)
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")
        client = self.client
        cas = self._cas
        try:
            try:
                done = client.execute_command("EVALSHA", cas.sha, 1, *args)
            except cas.missing:
                done = client.execute_command("EVAL", cas.source, 1, *args)
        except self._unavailable as e:
            raise StoreUnavailable(f"Redis: {e}") from None
        if _monotonic() >= deadline:
            raise StoreUnavailable("the store's time for this decision ran out")  # late is not in time
        return bool(done == 1)

    def user_view(self, user: str, deadline: float) -> UserView:
        tag = self._tag_of(user, deadline)
        fields = self._call(deadline, self.client.hgetall, self._hash_key(tag))
        now = _now_ms()
        entries: List[Entry] = []
        dead: List[bytes] = []
        for field, raw in fields.items():
            try:
                _, _, collect, owner, _, _ = _unpack(raw)
            except _Corrupt:
                continue  # not this user's for certain: left to its own reader (RESTORE_FAILED)
            if 0 < collect <= now:
                dead.append(field)  # collected: deleted at this user's next commit
            elif owner == user and len(field) == 32:
                session_id = tag + base64.urlsafe_b64encode(field).decode("ascii").rstrip("=")
                entry = self._entry_of(session_id, raw, tag, deadline)
                if entry is not None:
                    entries.append(entry)
        entries.sort(key=lambda e: (e.created_ms, e.session_id))
        return UserView(entries, (tag, fields, dead))

    def commit_user(
        self, user: str, view: UserView, updates: Sequence[Update], create: Optional[Tuple[Entry, int]], deadline: float
    ) -> bool:
        tag, fields, dead = view.token
        after: dict[bytes, int] = {}  # every field the hash keeps, and its collection time
        for field, raw in fields.items():
            try:
                after[field] = _unpack(raw)[2]
            except _Corrupt:
                after[field] = 0  # kept, and keeps the hash: never collected early
        for field in dead:
            del after[field]
        sets: List[bytes] = []
        for u in updates:
            e = u.entry
            field = session_secret(e.session_id)
            sets += [field, _pack(e.version + 1, e.created_ms, u.collect_at_ms, e.user, e.device, u.record)]
            after[field] = u.collect_at_ms
        if create is not None:
            e, collect_at_ms = create
            if e.session_id[:TAG_LENGTH] != tag:
                raise ValueError("a new session's id must come from this store's new_session_id(user)")
            field = session_secret(e.session_id)
            sets += [field, _pack(1, e.created_ms, collect_at_ms, user, e.device, e.record)]
            after[field] = collect_at_ms
        expiry = 0 if not after or 0 in after.values() else max(after.values())
        args: List[Any] = [len(fields), expiry, len(dead), len(sets) // 2]
        for field, raw in fields.items():
            args += [field, raw]
        args += dead
        args += sets
        result = self._call(deadline, self._commit, self.client, [self._hash_key(tag)], args)
        return bool(result == 1)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass
        # The asyncio clients' connections belong to their loops (closed with them): dropped.
        with self._lock:
            self._async_clients.clear()
            self._async_last = (None, None)


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
