"""A store that is down or slow fails closed: 503 + Retry-After within the timeout, never 200;
and the same app recovers when the store does, without a restart."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sqlite3
import time
from typing import Any, Callable, List
import pytest
from starlette.testclient import TestClient

from conftest import POLICY, redis_url
from inactivity.server import InactivityWSGIMiddleware, RedisStore, SessionManager, SQLiteStore, StoreUnavailable
from test_gateway import Http, free_port, processes, start_gateway, start_redis  # noqa: F401 (fixture)
from test_http import asgi_client, ck, wsgi_app, wsgi_call

#: These tests run on the real clock for seconds: an idle timeout that cannot pass meanwhile.
LONG = POLICY.replace(idle_timeout=600, absolute_timeout=3600)
TIMEOUT = 0.5
SLACK = 1.0  # scheduling on a loaded 2-core machine: the bound checked is TIMEOUT + SLACK


def _recovered(request: Callable[[], Any]) -> Any:
    """The first answer that is not 503, within 5 s: on a loaded machine the first calls after
    a store comes back may still miss the 0.5 s timeout (and are 503, never allowed)."""
    for _ in range(25):
        r = request()
        if r.status_code != 503:
            return r
        time.sleep(0.2)
    raise AssertionError("still 503 five seconds after the store came back")


def _requests_are_refused(client: TestClient, manager: SessionManager, session_id: str) -> None:
    wsgi = InactivityWSGIMiddleware(wsgi_app, manager)
    for _ in range(3):
        for method, path, body in (("GET", "/hello", None), ("GET", "/inactivity/status", None),
                                   ("POST", "/inactivity/keepalive", {"activity_age_ms": 0}),
                                   ("POST", "/inactivity/report", {"state": "LOCKED", "reason": "MANUAL_LOCK"})):
            start = time.monotonic()
            r = client.request(method, path, headers=ck(session_id), json=body)
            elapsed = time.monotonic() - start
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert r.headers["Retry-After"] == "1" and r.json()["code"] == "inactivity.unavailable"
            assert elapsed < TIMEOUT + SLACK, (path, elapsed)
        start = time.monotonic()
        status, headers, _ = wsgi_call(wsgi, "/hello", headers=ck(session_id))
        assert (status, headers["Retry-After"]) == (503, "1")
        assert time.monotonic() - start < TIMEOUT + SLACK
    start = time.monotonic()
    with pytest.raises(StoreUnavailable):
        manager.sign_in("alice", "another")
    assert time.monotonic() - start < TIMEOUT + SLACK


def test_redis_paused_is_503_in_time_and_recovers_without_a_restart() -> None:
    pid = int(os.environ["INACT_TEST_REDIS_PID"])
    manager = SessionManager(RedisStore.from_url(redis_url(), timeout=TIMEOUT, prefix="f" + secrets.token_hex(4)),
                             LONG, precision=0, timeout=TIMEOUT)
    s = manager.sign_in("alice").session_id
    client = asgi_client(manager)
    assert client.get("/hello", headers=ck(s)).status_code == 200
    os.kill(pid, signal.SIGSTOP)
    try:
        _requests_are_refused(client, manager, s)
    finally:
        os.kill(pid, signal.SIGCONT)
    r = _recovered(lambda: client.get("/hello", headers=ck(s)))   # the same app and manager
    assert r.status_code == 200 and r.headers["Inactivity-State"] == "ACTIVE"


def test_the_gateway_on_redis_decides_on_the_event_loop_and_a_paused_redis_is_503_never_allowed() -> None:
    """The gateway's auth path on Redis awaits the whole decision on the event loop (its asyncio
    client, one timer per decision): Redis paused, every answer is 503 + Retry-After within the
    timeout, a user's request and machine traffic alike; then recovery on the same loop."""
    from inactivity.server.gateway import build_app, parse_args

    pid = int(os.environ["INACT_TEST_REDIS_PID"])
    app = build_app(parse_args(["--store", redis_url(), "--timeout", str(TIMEOUT), "--precision", "0s",
                                "--demo-sign-in", "--insecure-cookie"]))
    assert app._awaited and app.manager.store.asynchronous
    with TestClient(app, base_url="http://127.0.0.1") as client:   # one event loop for every request
        s = client.post("/inactivity/sign-in", json={"user": f"paused-gw{os.getpid()}"}).json()["session_id"]
        client.cookies.clear()
        r = client.get("/inactivity/auth", headers=ck(s))
        assert r.status_code == 204 and r.headers["Inactivity-State"] == "ACTIVE"   # the loop's client is made
        os.kill(pid, signal.SIGSTOP)
        try:
            for headers in (ck(s), {**ck(s), "Inactivity-Machine": "1"}) * 2:
                start = time.monotonic()
                r = client.get("/inactivity/auth", headers=headers)
                elapsed = time.monotonic() - start
                assert r.status_code == 503, (r.status_code, r.headers, r.text)
                assert r.headers["Retry-After"] == "1" and r.json()["code"] == "inactivity.unavailable"
                assert "Inactivity-State" not in r.headers
                assert elapsed < TIMEOUT + SLACK, elapsed
        finally:
            os.kill(pid, signal.SIGCONT)
        r = _recovered(lambda: client.get("/inactivity/auth", headers=ck(s)))
        assert r.status_code == 204 and r.headers["Inactivity-State"] == "ACTIVE"
    app.manager.close()


def test_the_asgi_middleware_on_redis_decides_on_its_lifespan_loop_and_a_paused_redis_is_503() -> None:
    """An app's requests on Redis, served with a lifespan (one loop): decided on the event loop
    through the store's asyncio client, no worker thread (manager.request is never called);
    Redis paused, every request is 503 within the timeout and never reaches the app; recovery on
    the same loop; the lifespan's shutdown closes the loop's client."""
    pid = int(os.environ["INACT_TEST_REDIS_PID"])
    store = RedisStore.from_url(redis_url(), timeout=TIMEOUT, prefix="l" + secrets.token_hex(4))
    manager = SessionManager(store, LONG, precision=0, timeout=TIMEOUT)
    s = manager.sign_in("alice").session_id

    def no_thread(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the request was decided in a worker thread")

    manager.request = no_thread  # type: ignore[method-assign]
    with asgi_client(manager) as client:
        for _ in range(2):   # precision 0: each one a compare-and-set, awaited on the loop
            r = client.get("/hello", headers=ck(s))
            assert r.status_code == 200 and r.headers["Inactivity-State"] == "ACTIVE", r.text
        assert client.get("/hello").status_code == 401
        assert store._async_clients   # the loop's asyncio client
        os.kill(pid, signal.SIGSTOP)
        try:
            for headers in (ck(s), {**ck(s), "Inactivity-Machine": "1"}):
                start = time.monotonic()
                r = client.get("/hello", headers=headers)
                assert r.status_code == 503 and r.headers["Retry-After"] == "1", (r.status_code, r.text)
                assert r.json()["code"] == "inactivity.unavailable" and "user" not in r.json()
                assert time.monotonic() - start < TIMEOUT + SLACK
        finally:
            os.kill(pid, signal.SIGCONT)
        assert _recovered(lambda: client.get("/hello", headers=ck(s))).status_code == 200
    assert not store._async_clients   # closed at the lifespan's shutdown, on its loop
    store.close()


def test_redis_killed_is_503_and_restarted_with_appendonly_keeps_the_sessions(tmp_path: object) -> None:
    port = free_port()
    proc = start_redis(port, str(tmp_path))
    try:
        manager = SessionManager(RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=TIMEOUT), LONG,
                                 precision=0, timeout=TIMEOUT)
        s = manager.sign_in("alice").session_id
        manager.report(s, "LOCKED", "MANUAL_LOCK")
        other = manager.sign_in("alice").session_id
        client = asgi_client(manager)
        assert client.get("/hello", headers=ck(other)).status_code == 200
        proc.kill()
        proc.wait()
        _requests_are_refused(client, manager, other)
        proc = start_redis(port, str(tmp_path))   # the script cache is empty now: EVALSHA answers NOSCRIPT, EVAL reloads
        assert _recovered(lambda: client.get("/hello", headers=ck(other))).status_code == 200
        assert client.get("/hello", headers=ck(s)).json()["reason"] == "MANUAL_LOCK"   # the lock survived
        assert manager.request(s).state == "LOCKED"
    finally:
        proc.kill()
        proc.wait()


def test_sqlite_write_lock_held_too_long_is_503(tmp_path: object) -> None:
    path = os.path.join(str(tmp_path), "s.sqlite3")
    manager = SessionManager(SQLiteStore(path, timeout=TIMEOUT), LONG, precision=0, timeout=TIMEOUT)
    s = manager.sign_in("alice").session_id
    client = asgi_client(manager)
    assert client.get("/hello", headers=ck(s)).status_code == 200
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")   # another process holding the write lock
    try:
        start = time.monotonic()
        r = client.get("/hello", headers=ck(s))   # precision 0: this request must write
        assert r.status_code == 503 and r.headers["Retry-After"] == "1"
        assert time.monotonic() - start < TIMEOUT + SLACK
        with pytest.raises(StoreUnavailable):
            manager.sign_in("bob")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert _recovered(lambda: client.get("/hello", headers=ck(s))).status_code == 200


def test_a_paused_cluster_node_is_503_for_its_sessions_only() -> None:
    """One of the three masters paused: the sessions in its slots are 503 within the timeout,
    the others are decided as usual; all recover when it resumes."""
    from conftest import cluster_nodes

    pids = [int(p) for p in os.environ["INACT_TEST_CLUSTER_PIDS"].split(",")]
    store = RedisStore.cluster(cluster_nodes(), timeout=TIMEOUT, prefix="f" + secrets.token_hex(4))
    manager = SessionManager(store, LONG, precision=0, timeout=TIMEOUT)
    sessions = [manager.sign_in(f"user{i}").session_id for i in range(12)]
    # The awaited path too (SessionManager.arequest, the asyncio cluster client), on one loop.
    loop = asyncio.new_event_loop()

    async def awaited() -> List[str]:
        states = []
        for s in sessions:
            start = time.monotonic()
            try:
                states.append((await manager.arequest(s)).state)
            except StoreUnavailable:
                states.append("503")
            assert time.monotonic() - start < TIMEOUT + SLACK
        return states

    assert set(loop.run_until_complete(awaited())) == {"ACTIVE"}   # the loop's client knows the slots
    os.kill(pids[1], signal.SIGSTOP)
    answers = []
    try:
        for s in sessions:
            start = time.monotonic()
            try:
                answers.append(manager.request(s).state)
            except StoreUnavailable:
                answers.append("503")
            assert time.monotonic() - start < TIMEOUT + SLACK
        awaited_answers = loop.run_until_complete(awaited())
    finally:
        os.kill(pids[1], signal.SIGCONT)
        loop.run_until_complete(store.aclose())
        loop.close()
    assert set(answers) == {"503", "ACTIVE"}, answers   # 12 users over 3 masters: both kinds
    assert set(awaited_answers) == {"503", "ACTIVE"}, awaited_answers
    for s in sessions:
        assert _recovered(lambda: _Status(manager, s)).state == "ACTIVE"


class _Status:
    """A request's answer with the status code _recovered looks at (503 while undecided)."""

    def __init__(self, manager: SessionManager, session_id: str) -> None:
        try:
            self.state = manager.request(session_id).state
            self.status_code = 200
        except StoreUnavailable:
            self.state, self.status_code = "", 503


def test_no_worker_thread_in_time_is_503(tmp_path: object) -> None:
    # The ASGI middleware decides in a worker thread; when every thread of the limiter is busy
    # past the manager's timeout (a slow store under load), the wait itself is 503, never a pass.
    import threading

    import anyio
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from inactivity.server import InactivityMiddleware

    release = threading.Event()
    held = threading.Event()

    async def hold(request: Request) -> PlainTextResponse:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 1

        def wait() -> None:
            held.set()
            release.wait(10)

        await anyio.to_thread.run_sync(wait)
        return PlainTextResponse("held")

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse("the app")

    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), LONG, timeout=TIMEOUT)
    s = manager.sign_in("alice").session_id
    app = Starlette(routes=[Route("/hold", hold), Route("/hello", hello)])
    app.add_middleware(InactivityMiddleware, manager=manager, exempt=("/hold",), cookie_secure=False)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        holder = threading.Thread(target=lambda: client.get("/hold"))
        holder.start()
        try:
            assert held.wait(10)
            start = time.monotonic()
            r = client.get("/hello", headers=ck(s))
            assert (r.status_code, r.headers.get("Retry-After")) == (503, "1"), r.text
            assert time.monotonic() - start < TIMEOUT + 0.5 + SLACK
        finally:
            release.set()
            holder.join(10)
        assert client.get("/hello", headers=ck(s)).status_code == 200


def test_a_gateway_process_through_an_outage_answers_503_and_recovers(tmp_path: Any, processes: List[Any]) -> None:
    """A gateway process (its standard error a pipe nobody reads, as a supervisor's may be) on
    its own Redis (appendonly), which is killed: two clients hammer it for 2 s, every answer is
    503 and fast (connection refused), never allowed; Redis started again, the same gateway
    allows the session again within 5 s. A line logged per 503 filled the pipe and blocked the
    gateway for good (found by the fault suite: the store's failure is logged once per 10 s)."""
    import threading

    port = free_port()
    redis = start_redis(port, str(tmp_path))
    try:
        gateway = Http(f"http://127.0.0.1:{start_gateway(processes, str(tmp_path), '--store', f'redis://127.0.0.1:{port}/0', '--demo-sign-in', '--insecure-cookie', '--timeout', str(TIMEOUT))}")
        gateway("POST", "/inactivity/sign-in", {"user": "alice", "device": "d"})
        assert gateway("GET", "/inactivity/auth")[0] == 204
        redis.kill()
        redis.wait()
        seen: List[int] = []
        stop = time.monotonic() + 2.0

        def hammer() -> None:
            client = Http(gateway.base)
            client.cookie = gateway.cookie
            while time.monotonic() < stop:
                seen.append(client("GET", "/inactivity/auth")[0])

        threads = [threading.Thread(target=hammer) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert set(seen) == {503} and len(seen) >= 100, (len(seen), set(seen))
        redis = start_redis(port, str(tmp_path))
        deadline = time.monotonic() + 5
        while gateway("GET", "/inactivity/auth")[0] != 204:
            assert time.monotonic() < deadline, "the gateway did not recover within 5 s of Redis"
            time.sleep(0.1)
    finally:
        redis.kill()
        redis.wait()
