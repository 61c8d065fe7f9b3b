"""The model check of the server half (issue 29 §5): histories recorded through gateway processes
on one store, checked for a serial order in which the core's own decision gives every outcome.

Recording. Client threads of a few users send sign-ins, requests, machine polls, sign-outs, locks,
unlocks (a right or a wrong credential), password changes (revoke-all), revoke-others and the
revocation of one session by its handle in the list, keepalives (the activity claimed just now,
recently, before the session's last activity, or in the future), reads of the sessions list, and
bursts of parallel requests on one session, through four ``inactivity-server`` processes with
clock offsets (0, +e, -e, +e/2) on one store (SQLite, Redis, the Redis Cluster). A user's clients share its sessions (as tabs share a cookie), so the same session is
decided on several servers at once. Each operation keeps its invocation and response instants (``time.time_ns()``
in this process, the one clock), its status, headers and body, and the steps the gateway
decided it in: the test-only header ``Inactivity-Test-Trace`` (``--test-trace``), one entry per
atomic step (one decision and its write, or a user's commit), with the server's clock reading
and what it decided.

Checking, per user (a user's sessions are linked only through per-user steps: sign-in with the
device limit, revoke-all, revoke-others):

1. Each operation's answer is what its endpoint makes of its steps (status, the Inactivity-*
   headers, the body's counts), its steps are the endpoint's flow, and each step's clock reading,
   less the server's offset, falls inside the operation's interval on this process's clock.
2. Linearizability (Wing and Gong's search, memoized): there is an order of all steps,
   consistent with real time (an operation answered before another was sent comes first, its
   steps in their order) in which replaying each step through the core (``decide``, the same
   ``inact_server_decide`` at the server's clock reading) gives exactly what was decided there
   (state, reason, the instant decided at, both remaining times, the failure count, the sessions
   ended, whether a record was written), over the records the earlier steps wrote. A keepalive
   is replayed with the age it claimed (the core clamps it); a sessions list is one step, each
   of its rows the core's decision over that session's record at the list's one clock reading
   (state, reason, last activity, which one is current), one row per session signed in so far.
3. Real-time invariants, independent of the core: no request allowed after an acknowledged
   end (sign-out, revoke-all, a revocation from the list) or an acknowledged lock with no unlock since, nor later than the
   last acknowledged activity plus the idle timeout, nor the sign-in plus the absolute timeout,
   each plus 2e (recorded ahead, judged behind) and a small slack; no answer's remaining idle or
   absolute time beyond the policy's timeout.

The reference is the core (``inactivity._server_core.decide``); what the test itself knows is
only the plumbing of each step (which sessions a per-user step decides, the device limit's
"oldest live first"), never a rule of idle, lock or expiry.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from inactivity import Policy, Reason
from inactivity._server_core import ServerInput, decide
from inactivity.server.ids import session_handle
from inactivity.server.manager import LIST_STEP

SIGN_IN, REQUEST, MACHINE, LOCK, END, UNLOCK, UNLOCK_FAILED, HOLDER_ACTIVITY = (
    int(ServerInput.SIGN_IN), int(ServerInput.REQUEST), int(ServerInput.MACHINE), int(ServerInput.LOCK),
    int(ServerInput.END), int(ServerInput.UNLOCK), int(ServerInput.UNLOCK_FAILED), int(ServerInput.HOLDER_ACTIVITY))
LOGOUT, REVOKED, PASSWORD_CHANGED, MANUAL_LOCK, DEVICE_LIMIT = (
    int(Reason.LOGOUT), int(Reason.REVOKED), int(Reason.PASSWORD_CHANGED), int(Reason.MANUAL_LOCK),
    int(Reason.DEVICE_LIMIT))

TRACE_HEADER = "Inactivity-Test-Trace"
CREDENTIAL = "model-secret"

# A step as the gateway traces it: [input, arg, clock_ms, now_ms, state, reason, idle_remaining_ms,
# absolute_remaining_ms, unlock_failures, count, write]; the five decision fields are None for
# an unknown id and for a user's revocation.
Step = List[Any]


@dataclasses.dataclass
class Op:
    user: str
    kind: str
    session: Optional[str]   # the session the request carried (a sign-in: the new one)
    offset_ms: int           # the clock offset of the gateway that answered
    inv_ms: int              # sent, floor, on this process's wall clock
    resp_ms: int             # answered, ceiling
    status: int
    headers: Dict[str, Optional[str]]
    body: Dict[str, Any]
    steps: List[Step]
    credential_ok: Optional[bool] = None
    target: Optional[str] = None   # revoke-one: the session revoked (by its handle in the list)
    age_ms: int = 0                # keepalive: the activity's age the client claimed


class Violation(AssertionError):
    pass


def _wall_ms_floor() -> int:
    return time.time_ns() // 1_000_000


def _wall_ms_ceil() -> int:
    return -(-time.time_ns() // 1_000_000)


# ----- recording ---------------------------------------------------------------------------------


KINDS = ("sign-in", "request", "machine", "sign-out", "lock", "unlock", "revoke-all", "revoke-others", "revoke-one",
         "burst", "sleep", "keepalive", "list")
#: What a burst sends at once on one session (a page's parallel requests, another tab's lock).
BURST_KINDS = ("request", "request", "machine", "machine", "lock", "unlock", "keepalive", "list")


def claimed_age(rng: random.Random) -> int:
    """A keepalive's activity age: mostly just now (on a gateway ahead of the one that decided
    last, an instant after the stored activity; behind it, one before, which the core clamps),
    some recent, some older than the session's activity (clamped to it), and a few negative (a
    claim in the future: refused, 400, nothing decided)."""
    x = rng.random()
    if x < 0.4:
        return 0
    if x < 0.75:
        return rng.randrange(1, 600)
    if x < 0.92:
        return rng.randrange(1_000, 8_000)
    return -rng.randrange(1, 2_000)


def record_history(ports: Sequence[int], offsets: Sequence[int], users: Sequence[str], clients_per_user: int,
                   seconds: float, weights: Sequence[float], max_sleep_s: float, seed: int) -> List[Op]:
    """Runs the clients for `seconds` and returns every operation they made."""
    from test_gateway import Http  # the suite's plain HTTP client (every header seen)

    log: List[Op] = []
    lock = threading.Lock()
    shared: Dict[str, List[str]] = {u: [] for u in users}   # a user's sessions, as its tabs share them
    failures: List[BaseException] = []

    def one(user: str, n: int, kind: str, session: Optional[str], rng: random.Random, target: Optional[str] = None) -> int:
        g = rng.randrange(len(ports))
        http = Http(f"http://127.0.0.1:{ports[g]}")
        http.cookie = session
        credential_ok: Optional[bool] = None
        age = 0
        method, path = "GET", "/inactivity/auth"
        body: Optional[Dict[str, object]] = None
        headers: Dict[str, str] = {}
        if kind == "sign-in":
            method, path, body = "POST", "/inactivity/sign-in", {"user": user, "device": f"c{n}"}
        elif kind == "machine":
            headers = {"Inactivity-Machine": "1"}
        elif kind == "sign-out":
            method, path, body = "POST", "/inactivity/sign-out", {}
        elif kind == "lock":
            method, path, body = "POST", "/inactivity/report", {"state": "LOCKED", "reason": "MANUAL_LOCK"}
        elif kind == "unlock":
            credential_ok = rng.random() < 0.7
            method, path = "POST", "/inactivity/unlock"
            body = {"credential": CREDENTIAL if credential_ok else "wrong"}
        elif kind == "revoke-all":
            method, path, body = "POST", "/inactivity/sessions/revoke-all", {}
        elif kind == "revoke-others":
            method, path, body = "POST", "/inactivity/sessions/revoke-others", {}
        elif kind == "revoke-one":
            assert target is not None
            method, path = "DELETE", f"/inactivity/sessions/{session_handle(target)}"
        elif kind == "keepalive":
            age = claimed_age(rng)
            method, path, body = "POST", "/inactivity/keepalive", {"activity_age_ms": age}
        elif kind == "list":
            path = "/inactivity/sessions"
        inv = _wall_ms_floor()
        try:
            status, hs, out = http(method, path, body, headers)
        except OSError:
            status, hs, out = 0, None, b""   # no answer: the operation's effect is unknown
        resp = _wall_ms_ceil()
        try:
            parsed = json.loads(out) if out else {}
        except ValueError:
            parsed = {}
        hd: Dict[str, Optional[str]] = {}
        steps: List[Step] = []
        if hs is not None:
            for name in ("Inactivity-State", "Inactivity-Reason", "Inactivity-Idle-Remaining-Ms",
                         "Inactivity-Absolute-Remaining-Ms"):
                hd[name] = hs.get(name)
            trace = hs.get(TRACE_HEADER)
            steps = json.loads(trace) if trace else []
        if kind == "sign-in":
            session = parsed.get("session_id") if status == 200 and isinstance(parsed, dict) else None
        op = Op(user, kind, session, offsets[g], inv, resp, status, hd, parsed if isinstance(parsed, dict) else {},
                steps, credential_ok, target, age)
        with lock:
            log.append(op)
            if kind == "sign-in" and session:
                shared[user].append(session)
        return status

    def guarded(fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except BaseException as e:  # the thread's failure fails the test, not just the thread
            failures.append(e)

    def client(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        user = users[n % len(users)]
        deadline = time.monotonic() + seconds
        expired = False
        try:
            while time.monotonic() < deadline:
                kind = rng.choices(KINDS, weights)[0]
                if expired and kind != "sleep":
                    kind = "sign-in"   # as an app does: its session ended, the user signs in again
                if kind == "sleep":
                    time.sleep(rng.uniform(0.05, max_sleep_s))
                    continue
                with lock:
                    mine = list(shared[user])
                if not mine:
                    kind = "sign-in"
                # Mostly the newest sessions (the ones in use), sometimes an older one.
                session = None if kind == "sign-in" else mine[-1 - min(int(rng.expovariate(1.0)), len(mine) - 1)]
                if kind != "burst":
                    status = one(user, n, kind, session, rng, rng.choice(mine) if mine else None)
                    expired = status == 401 and kind in ("request", "machine") and rng.random() < 0.5
                    continue
                burst = [threading.Thread(target=guarded, args=(one, user, n, rng.choice(BURST_KINDS), session,
                                                                random.Random(rng.random())))
                         for _ in range(rng.randint(2, 4))]
                for t in burst:
                    t.start()
                for t in burst:
                    t.join()
        except BaseException as e:  # the thread's failure fails the test, not just the thread
            failures.append(e)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(len(users) * clients_per_user)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return log


# ----- 1. each answer from its steps -------------------------------------------------------------


def _outcome_status(state: Optional[str]) -> int:
    return 403 if state == "LOCKED" else 401 if state in ("EXPIRED", None) else 0


def _flow(op: Op) -> List[Tuple[int, int, bool]]:
    """The (input, arg, write) of each step the endpoint took, from the steps' own decisions;
    raises Violation when the steps are not the endpoint's flow."""
    s = op.steps
    kinds = [(st[0], st[1], bool(st[10])) for st in s]

    def allowed(st: Step) -> bool:
        return st[4] in ("ACTIVE", "WARNING")

    want: List[Tuple[int, int, bool]]
    if op.kind == "sign-in":
        want = [(SIGN_IN, 0, True)]
    elif op.kind in ("request", "machine"):
        want = [(REQUEST if op.kind == "request" else MACHINE, 0, True)]
    elif op.kind == "sign-out":
        want = [(END, LOGOUT, True)]
    elif op.kind == "lock":
        want = [(LOCK, MANUAL_LOCK, True)]
    elif op.kind == "unlock":
        want = [(MACHINE, 0, False)]
        if s and s[0][4] not in ("EXPIRED", None):
            if s[0][4] != "LOCKED":
                want.append((LOCK, MANUAL_LOCK, True))
            if len(s) >= len(want) and s[len(want) - 1][4] == "LOCKED":
                want.append((UNLOCK if op.credential_ok else UNLOCK_FAILED, 0, True))
    elif op.kind == "revoke-all":
        want = [(REQUEST, 0, True)]
        if s and allowed(s[0]):
            want += [(END, PASSWORD_CHANGED, True), (MACHINE, 0, False)]
    elif op.kind == "revoke-others":
        want = [(REQUEST, 0, True)]
        if s and allowed(s[0]):
            want.append((MACHINE, 0, True))
            if len(s) >= 2 and allowed(s[1]):
                want.append((END, REVOKED, True))
    elif op.kind == "revoke-one":
        want = [(REQUEST, 0, True)]
        if s and allowed(s[0]):   # the handle of a session of this user, never collected here
            want += [(END, REVOKED, True), (MACHINE, 0, False)]
    elif op.kind == "keepalive":
        want = [] if op.age_ms < 0 else [(HOLDER_ACTIVITY, op.age_ms, True)]   # a future claim: refused first
    elif op.kind == "list":
        want = [(REQUEST, 0, True)]
        if s and allowed(s[0]):
            want.append((LIST_STEP, 0, False))
    else:
        raise AssertionError(op.kind)
    if kinds != want:
        raise Violation(f"{op.kind} took the steps {kinds}, its flow is {want}")
    return want


def _headers_of(st: Step) -> Dict[str, Optional[str]]:
    return {"Inactivity-State": st[4], "Inactivity-Reason": st[5],
            "Inactivity-Idle-Remaining-Ms": None if st[6] is None else str(st[6]),
            "Inactivity-Absolute-Remaining-Ms": None if st[7] is None else str(st[7])}


def check_answer(op: Op) -> None:
    """The answer is what the endpoint makes of its steps (wire.py's flow)."""
    _flow(op)
    s = op.steps
    unknown = {"Inactivity-State": "EXPIRED", "Inactivity-Reason": "NONE",
               "Inactivity-Idle-Remaining-Ms": None, "Inactivity-Absolute-Remaining-Ms": None}

    def expect(status: int, step: Optional[Step], body: Optional[Dict[str, Any]] = None) -> None:
        hd = unknown if step is None or step[4] is None else _headers_of(step)
        if op.status != status or op.headers != hd:
            raise Violation(f"{op.kind} answered {op.status} {op.headers}; its steps {s} make {status} {hd}")
        for k, v in (body or {}).items():
            if op.body.get(k) != v:
                raise Violation(f"{op.kind} answered {k}={op.body.get(k)!r}, its steps make {v!r}")

    def decided(step: Step, ok: int) -> None:
        expect(ok if step[4] in ("ACTIVE", "WARNING") else _outcome_status(step[4]), step)

    if op.kind == "keepalive" and op.age_ms < 0:
        if op.status != 400:
            raise Violation(f"a keepalive claiming activity {-op.age_ms} ms in the future answered {op.status}, not 400")
        return
    last = s[-1]
    if op.kind == "sign-in":
        expect(200, last, {"state": last[4], "reason": last[5]})
        if not op.session:
            raise Violation("a sign-in answered 200 without a session id")
    elif op.kind in ("request", "machine"):
        decided(last, 204)
    elif op.kind in ("sign-out", "lock"):
        expect(401 if last[4] is None else 204, last)
    elif op.kind == "unlock":
        if last[0] in (MACHINE, LOCK):   # refused before the credential was checked
            expect(_outcome_status(last[4]) if last[4] not in ("ACTIVE", "WARNING") else 409, last)
        elif not op.credential_ok and last[4] in ("ACTIVE", "WARNING"):
            expect(409, last)
        else:
            decided(last, 200)
    elif op.kind == "revoke-all":
        if len(s) == 1:
            decided(last, 0)
        else:
            expect(200, last, {"revoked": s[1][9]})
    elif op.kind == "revoke-others":
        if len(s) == 1:
            decided(last, 0)
        else:
            expect(200, s[0], {"revoked": s[2][9] if len(s) == 3 else 0})
    elif op.kind == "revoke-one":
        if len(s) == 1:
            decided(last, 0)
        else:
            expect(204, last)
    elif op.kind == "keepalive":
        decided(last, 204)
    elif op.kind == "list":
        if len(s) == 1:
            decided(last, 0)
        else:
            rows = op.body.get("sessions")
            expect(200, s[0])
            if not isinstance(rows, list) or len(rows) != s[1][9]:
                raise Violation(f"the list answered {rows!r}, its step counted {s[1][9]} rows")


def check_clock(op: Op, slack_ms: int = 2) -> None:
    """Each step's clock reading, less the server's offset, is inside the operation's interval."""
    for st in op.steps:
        real = st[2] - op.offset_ms
        if not op.inv_ms - slack_ms <= real <= op.resp_ms + slack_ms:
            raise Violation(f"{op.kind}: a step read the clock at {real} (offset removed), outside "
                            f"[{op.inv_ms}, {op.resp_ms}]")


# ----- 2. a serial order through the core ---------------------------------------------------------


@dataclasses.dataclass
class Result:
    histories: int = 0
    ops: int = 0
    steps: int = 0
    states_visited: int = 0
    skipped: int = 0          # histories with an operation that got no answer (its effect unknown)
    #: keepalives in the order found: claims before the session's last activity (clamped to
    #: it: nothing changes) and claims that moved it later
    clamped: int = 0
    extended: int = 0
    seconds: float = 0.0


class History:
    """One user's operations, and the search for a serial order."""

    def __init__(self, ops: List[Op], policy: Policy, precision_ms: int, device_limit: int) -> None:
        self.ops = sorted(ops, key=lambda o: o.inv_ms)
        self.policy = policy
        self.precision_ms = precision_ms
        self.device_limit = device_limit
        ids: List[str] = []
        for o in self.ops:
            if o.kind == "sign-in" and o.session and o.session not in ids:
                ids.append(o.session)
        self.ids = ids
        self.index = {sid: i for i, sid in enumerate(ids)}
        self.handles = {session_handle(sid): i for i, sid in enumerate(ids)}
        self.created: Dict[int, int] = {}
        for o in self.ops:
            if o.kind == "sign-in":
                self.created[self.index[o.session or ""]] = o.steps[0][3]
        self.failed: Set[Tuple[Tuple[int, ...], Tuple[Optional[bytes], ...]]] = set()
        self.visited = 0
        #: the serial order found: (operation, step) pairs
        self.order: List[Tuple[int, int]] = []
        self.deepest = -1
        self.deepest_why: List[str] = []

    def _decide(self, record: Optional[bytes], clock: int, input: int, arg: int) -> Tuple[Any, Optional[bytes]]:
        return decide(self.policy, record, clock, input, arg, self.precision_ms)

    @staticmethod
    def _same(d: Any, st: Step) -> Optional[str]:
        got = [d.now_ms, d.state.name, d.reason.name, d.idle_remaining_ms, d.absolute_remaining_ms, d.unlock_failures]
        if got != st[3:9]:
            return f"the core decides {got}, the server {st[3:9]}"
        return None

    def _apply(self, op: Op, st: Step, state: Tuple[Optional[bytes], ...]) -> Tuple[Optional[Tuple[Optional[bytes], ...]], str]:
        """The state after `st`, replayed through the core, or None and why it differs."""
        input, arg, clock, write, count = st[0], st[1], st[2], bool(st[10]), st[9]
        records = list(state)
        if input == SIGN_IN:
            d, record = self._decide(None, clock, SIGN_IN, 0)
            why = self._same(d, st)
            if why:
                return None, why
            ended = 0
            if self.device_limit:
                mine = sorted((i for i, r in enumerate(records) if r is not None),
                              key=lambda i: (self.created[i], self.ids[i]))   # the store's order
                live = [i for i in mine if self._decide(records[i], clock, MACHINE, 0)[0].state.name != "EXPIRED"]
                for i in live[: max(0, len(live) - self.device_limit + 1)]:
                    _, new = self._decide(records[i], clock, END, DEVICE_LIMIT)
                    if new is not None:
                        records[i] = new
                        ended += 1
            if ended != count:
                return None, f"the sign-in ends {ended} sessions by the device limit, the server {count}"
            records[self.index[op.session or ""]] = record
            return tuple(records), ""
        if input == LIST_STEP:
            return (state, "") if (why := self._list(op, clock, records)) is None else (None, why)
        if input == END and op.kind in ("revoke-all", "revoke-others"):   # a user's revocation
            keep = self.index.get(op.session or "") if op.kind == "revoke-others" else None
            ended = 0
            for i, r in enumerate(records):
                if r is None or i == keep:
                    continue
                _, new = self._decide(r, clock, END, arg)
                if new is not None:
                    records[i] = new
                    ended += 1
            if ended != count:
                return None, f"the revocation ends {ended} sessions, the server {count}"
            return tuple(records), ""
        # A revocation from the list decides the session it names (its second step), else the caller's.
        subject = op.target if op.kind == "revoke-one" and input == END else op.session
        at = self.index.get(subject or "")
        record = None if at is None else records[at]
        if record is None:
            if st[3] is not None:
                return None, "the session does not exist yet (or is unknown), the server decided it"
            return state, ""
        if st[3] is None:
            return None, "the session exists, the server found no record"
        d, new = self._decide(record, clock, input, arg)
        why = self._same(d, st)
        if why:
            return None, why
        wrote = 1 if (write and new is not None) else 0
        if wrote != count:
            return None, f"the core {'writes' if wrote else 'writes nothing'}, the server {'wrote' if count else 'did not'}"
        if wrote:
            assert at is not None
            records[at] = new
        return tuple(records), ""

    def _list(self, op: Op, clock: int, records: List[Optional[bytes]]) -> Optional[str]:
        """Why the sessions list `op` answered is not the replay's (None: it is): one row for
        each session signed in so far, each its decision at the list's one clock reading."""
        rows = op.body.get("sessions") or []
        got: Dict[int, Tuple[Any, ...]] = {}
        for row in rows:
            at = self.handles.get(row.get("handle"))
            if at is None:
                return f"the list shows {row.get('handle')!r}, no session of this user"
            got[at] = (row.get("state"), row.get("reason"), row.get("last_activity_ms"),
                       row.get("is_current"))
        want: Dict[int, Tuple[Any, ...]] = {}
        for i, r in enumerate(records):
            if r is not None:
                d = self._decide(r, clock, MACHINE, 0)[0]
                want[i] = (d.state.name, d.reason.name, d.last_activity_ms, self.ids[i] == op.session)
        if got != want:
            return f"the list shows {got}, the replay at {clock} gives {want}"
        return None

    def keepalives(self) -> Tuple[int, int]:
        """Replays the order found: how many keepalives claimed activity before the session's
        last activity (clamped), and how many moved it later."""
        records: Tuple[Optional[bytes], ...] = tuple(None for _ in self.index)
        clamped = extended = 0
        for k, n in reversed(self.order):
            o = self.ops[k]
            st = o.steps[n]
            at = self.index.get(o.session or "")
            if st[0] == HOLDER_ACTIVITY and at is not None and records[at] is not None:
                before = self._decide(records[at], st[2], MACHINE, 0)[0].last_activity_ms
                d = self._decide(records[at], st[2], HOLDER_ACTIVITY, st[1])[0]
                after = d.last_activity_ms
                if before is not None and after is not None:
                    if d.now_ms - st[1] < before:   # the claim, at the instant decided at
                        clamped += 1
                    elif after > before:
                        extended += 1
            new, _ = self._apply(o, st, records)
            assert new is not None
            records = new
        return clamped, extended

    def check(self) -> None:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * sum(len(o.steps) for o in self.ops) + 1000))
        start: Tuple[Optional[bytes], ...] = tuple(None for _ in self.index)
        if not self._search(tuple(0 for _ in self.ops), start, 0):
            lines = "\n  ".join(self.deepest_why[:8])
            raise Violation(
                f"no serial order of {len(self.ops)} operations of {self.ops[0].user} gives the outcomes; "
                f"the longest prefix: {self.deepest} steps, then every candidate differs:\n  {lines}\n"
                + self.describe())

    def describe(self) -> str:
        rows = []
        for o in self.ops:
            sid = "" if o.session is None else f"#{self.index.get(o.session, '?')}"
            rows.append(f"  [{o.inv_ms % 100000:>5}, {o.resp_ms % 100000:>5}] {o.kind:<13} {sid:<4} "
                        f"off {o.offset_ms:>4} -> {o.status} steps {[st[:6] + st[9:] for st in o.steps]}")
        return "the history (ms mod 100 s):\n" + "\n".join(rows[:200])

    def _search(self, progress: Tuple[int, ...], state: Tuple[Optional[bytes], ...], depth: int) -> bool:
        ops = self.ops
        pending = [k for k, o in enumerate(ops) if progress[k] < len(o.steps)]
        if not pending:
            return True
        key = (progress, state)
        if key in self.failed:
            return False
        self.visited += 1
        horizon = min(ops[k].resp_ms for k in pending)
        why: List[str] = []
        for k in pending:
            o = ops[k]
            if o.inv_ms > horizon:
                break   # sorted by invocation: the rest were sent after an unfinished one answered
            st = o.steps[progress[k]]
            after, reason = self._apply(o, st, state)
            if after is None:
                why.append(f"{o.kind} #{self.index.get(o.session or '', '?')} step {progress[k]} "
                           f"[{o.inv_ms % 100000}, {o.resp_ms % 100000}]: {reason}")
                continue
            nxt = progress[:k] + (progress[k] + 1,) + progress[k + 1:]
            if self._search(nxt, after, depth + 1):
                self.order.append((k, progress[k]))   # unwinding: reversed once found
                return True
        if depth > self.deepest:
            self.deepest, self.deepest_why = depth, why
        self.failed.add(key)
        return False


def check_histories(log: List[Op], policy: Policy, precision_ms: int, device_limit: int) -> Result:
    """Checks 1 and 2 for every user's history; raises Violation at the first one that fails."""
    t0 = time.monotonic()
    result = Result()
    by_user: Dict[str, List[Op]] = {}
    for op in log:
        by_user.setdefault(op.user, []).append(op)
    for user, ops in sorted(by_user.items()):
        if any(o.status in (0, 503) for o in ops):
            result.skipped += 1   # an operation without an answer may or may not have taken effect
            continue
        for o in ops:
            try:
                check_answer(o)
                check_clock(o)
            except Violation as e:
                raise Violation(f"{user}: {e}\n(op {o})") from None
        h = History(ops, policy, precision_ms, device_limit)
        h.check()
        result.histories += 1
        result.ops += len(ops)
        result.steps += sum(len(o.steps) for o in ops)
        result.states_visited += h.visited
        clamped, extended = h.keepalives()
        result.clamped += clamped
        result.extended += extended
    result.seconds = time.monotonic() - t0
    return result


# ----- 3. real-time invariants ---------------------------------------------------------------------


def check_invariants(log: List[Op], idle_ms: int, absolute_ms: int, e_ms: int, slack_ms: int = 60) -> int:
    """No request allowed after an acknowledged end or lock (with no unlock since), nor past the
    idle or absolute limit on the real clock (plus 2e and a slack); no remaining time beyond its
    timeout. Returns the allowed count."""
    bound = 2 * e_ms + slack_ms
    by_session: Dict[str, List[Op]] = {}
    user_ops: Dict[str, List[Op]] = {}
    for o in log:
        if o.session:
            by_session.setdefault(o.session, []).append(o)
        user_ops.setdefault(o.user, []).append(o)
    signed: Dict[str, Op] = {o.session: o for o in log if o.kind == "sign-in" and o.status == 200 and o.session}
    allowed_count = 0
    # No answer promises more than the policy gives: the remaining times are at most the timeouts.
    for o in log:
        for name, limit in (("Inactivity-Idle-Remaining-Ms", idle_ms), ("Inactivity-Absolute-Remaining-Ms", absolute_ms)):
            value = o.headers.get(name)
            if value is not None and not 0 <= int(value) <= limit:
                raise Violation(f"{o.kind} answered {name}: {value}, beyond the policy's {limit} ms")

    def is_activity(o: Op) -> bool:
        return ((o.kind == "request" and o.status == 204) or (o.kind == "sign-in" and o.status == 200)
                or (o.kind in ("revoke-all", "revoke-others", "list") and o.status == 200)
                or (o.kind == "keepalive" and o.status == 204)
                or (o.kind == "unlock" and o.status == 200 and o.body.get("unlocked") is True))

    for sid, ops in by_session.items():
        ends = [o.resp_ms for o in ops if o.kind == "sign-out" and o.status == 204]
        ends += [o.resp_ms for o in log if o.kind == "revoke-one" and o.status == 204 and o.target == sid]
        s = signed.get(sid)
        if s is not None:
            for o in user_ops[s.user]:
                if o.kind == "revoke-all" and o.status == 200 and s.resp_ms < o.inv_ms:
                    ends.append(o.resp_ms)
                # revoke-others answered after its revocation step ran (its third): the others end
                if (o.kind == "revoke-others" and o.status == 200 and len(o.steps) == 3 and o.session != sid
                        and s.resp_ms < o.inv_ms):
                    ends.append(o.resp_ms)
        locks = [o for o in ops if o.kind == "lock" and o.status == 204 and o.headers.get("Inactivity-State") == "LOCKED"]
        unlocks = [o for o in ops if o.kind == "unlock" and o.status == 200 and o.body.get("unlocked") is True]
        activity = [o for o in ops if is_activity(o)]
        for r in ops:
            if not (r.kind in ("request", "machine") and r.status == 204):
                continue
            allowed_count += 1
            if s is None:
                raise Violation(f"a session never signed in was allowed: {r}")
            for end in ends:
                if end < r.inv_ms:
                    raise Violation(f"allowed at {r.inv_ms} after its end was acknowledged at {end}")
            for lk in locks:
                if lk.resp_ms < r.inv_ms and not any(u.resp_ms > lk.inv_ms and u.inv_ms < r.resp_ms for u in unlocks):
                    raise Violation(f"allowed at {r.inv_ms} after a lock acknowledged at {lk.resp_ms}, no unlock since")
            # A keepalive's activity is its claim: at most its age before its answer.
            last = max((a.resp_ms - max(0, a.age_ms) for a in activity if a.inv_ms < r.resp_ms), default=s.resp_ms)
            if r.inv_ms > last + idle_ms + bound:
                raise Violation(f"allowed {r.inv_ms - last} ms after the last acknowledged activity (idle {idle_ms})")
            if r.inv_ms > s.resp_ms + absolute_ms + bound:
                raise Violation(f"allowed {r.inv_ms - s.resp_ms} ms after its sign-in (absolute {absolute_ms})")
    return allowed_count


def summary(log: List[Op]) -> Dict[str, int]:
    """Answers by operation and status."""
    out: Dict[str, int] = {}
    for o in log:
        key = f"{o.kind}:{o.status}"
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def reasons(log: List[Op]) -> Dict[str, int]:
    """Refusals by the reason answered (what the histories exercised)."""
    out: Dict[str, int] = {}
    for o in log:
        if o.status in (401, 403):
            key = f"{o.headers.get('Inactivity-State')}:{o.headers.get('Inactivity-Reason')}"
            out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


Runner = Callable[..., List[Op]]


# ----- a run: four gateways on one store -----------------------------------------------------------

E_MS = 150
IDLE_MS = 1500
ABSOLUTE_MS = 5000
PRECISION_MS = 200
DEVICE_LIMIT_N = 3
POLICY = ('{"idle-timeout": "1500ms", "warning": "300ms", "idle-action": "lock", "absolute-timeout": "5s", '
          '"max-unlock-failures": 5}')
#: sign-in, request, machine, sign-out, lock, unlock, revoke-all, revoke-others, revoke-one, burst, sleep,
#: keepalive, list
WEIGHTS = (0.5, 8, 4, 0.25, 0.5, 2, 0.15, 0.2, 0.4, 3, 2.5, 3, 1.5)
#: The library the gateways load, when set (the mutation runs: a mutant core for the servers,
#: while this process checks against the library it loaded itself); unset, the same one.
SERVER_LIBRARY_ENV = "INACT_MODEL_SERVER_LIBRARY"


@dataclasses.dataclass
class Run:
    log: List[Op]
    result: Result
    allowed: int
    seconds: float
    #: the first failure of each check (None: it held in every round)
    serial_error: Optional[str] = None
    invariant_error: Optional[str] = None
    #: refusals by state and reason, over every round
    refusals: Dict[str, int] = dataclasses.field(default_factory=dict)

    def assert_held(self) -> None:
        errors = [f"{name}: {e}" for name, e in (("serial order", self.serial_error), ("invariants", self.invariant_error)) if e]
        if errors:
            raise Violation("\n\n".join(errors))


def model_store(kind: str, tmp_path: Any) -> str:
    """The gateways' --store for `kind`: sqlite (a file in `tmp_path`), redis or cluster (the
    servers scripts/lib/test-server started and named in the environment)."""
    import os

    if kind == "sqlite":
        return f"sqlite:{os.path.join(str(tmp_path), 'm.sqlite3')}"
    name = "INACT_TEST_REDIS" if kind == "redis" else "INACT_TEST_CLUSTER"
    where = os.environ.get(name)
    if not where:
        raise AssertionError(f"{name} is not set: run the suite with scripts/lib/test-server (it starts the stores)")
    return where if kind == "redis" else "redis-cluster://" + where


def start_gateways(processes: List[Any], cwd: str, store: str, policy_path: str, offsets: Sequence[int]) -> List[int]:
    import os
    import subprocess

    from test_gateway import free_port, wait_for_port

    env = dict(os.environ)
    if os.environ.get(SERVER_LIBRARY_ENV):
        env["INACTIVITY_LIBRARY"] = os.environ[SERVER_LIBRARY_ENV]
    ports = []
    for o in offsets:
        port = free_port()
        proc = subprocess.Popen(
            ["inactivity-server", "--port", str(port), "--store", store, "--policy", policy_path, "--demo-sign-in",
             "--demo-credential", CREDENTIAL, "--insecure-cookie", "--precision", f"{PRECISION_MS}ms",
             "--device-limit", str(DEVICE_LIMIT_N), "--timeout", "5", "--clock-offset-ms", str(o), "--test-trace"],
            cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        processes.append(proc)
        ports.append(port)
    for port, proc in zip(ports, processes[-len(ports):]):
        wait_for_port(port, proc, "inactivity-server")
    return ports


def run_model(processes: List[Any], cwd: str, store: str, *, rounds: int, seconds: float, users: int,
              clients_per_user: int, seed: int) -> Run:
    """Four gateways (offsets 0, +e, -e, +e/2) on `store`; `rounds` runs of fresh users, each
    checked; returns the last round's log and the totals."""
    import os

    from inactivity.policy_file import load_policy

    path = os.path.join(cwd, "model-policy.json")
    with open(path, "w") as f:
        f.write(POLICY)
    policy = load_policy(path).policy
    offsets = [0, E_MS, -E_MS, E_MS // 2]
    ports = start_gateways(processes, cwd, store, path, offsets)
    run = Run([], Result(), 0, 0.0)
    t0 = time.monotonic()
    for r in range(rounds):
        names = [f"m{os.getpid()}-{seed}-{r}-{u}" for u in range(users)]
        run.log = record_history(ports, offsets, names, clients_per_user, seconds, WEIGHTS, 2.0, seed * 100 + r)
        for key, n in reasons(run.log).items():
            run.refusals[key] = run.refusals.get(key, 0) + n
        # Both checks, each on its own (a mutation run reports which of them caught it).
        try:
            run.allowed += check_invariants(run.log, IDLE_MS, ABSOLUTE_MS, E_MS)
        except Violation as e:
            run.invariant_error = run.invariant_error or f"round {r}: {e}"
        try:
            got = check_histories(run.log, policy, PRECISION_MS, DEVICE_LIMIT_N)
        except Violation as e:
            run.serial_error = run.serial_error or f"round {r}: {e}"
            continue
        for f_ in dataclasses.fields(Result):
            setattr(run.result, f_.name, getattr(run.result, f_.name) + getattr(got, f_.name))
    run.seconds = time.monotonic() - t0
    return run
