"""The wire, through the ASGI middleware (a Starlette app) and the WSGI middleware (a plain WSGI
app, as Flask and Django hand it over): headers, refusals, the session API."""

from __future__ import annotations

import io
import json
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from conftest import POLICY, FleetClock
from inactivity.server import EXPOSED_HEADERS, InactivityMiddleware, InactivityWSGIMiddleware, SessionManager, SQLiteStore, Store
from inactivity.server.asgi import WS_CLOSE_EXPIRED, WS_CLOSE_LOCKED, WS_CLOSE_UNAVAILABLE
from inactivity.server.wire import WireConfig

COOKIE = "inactivity_session"


async def hello(request: Request) -> JSONResponse:
    outcome = request.state.inactivity
    return JSONResponse({"user": outcome.user, "state": outcome.state})


async def public(request: Request) -> PlainTextResponse:
    return PlainTextResponse("sign in here")


def ck(session_id: str) -> Dict[str, str]:
    return {"Cookie": f"{COOKIE}={session_id}"}


def asgi_client(manager: SessionManager, **options: Any) -> TestClient:
    app = Starlette(routes=[Route("/hello", hello, methods=["GET", "POST"]), Route("/login", public)])
    app.add_middleware(InactivityMiddleware, manager=manager, exempt=("/login",), cookie_secure=False,
                       verify_credential=lambda user, credential: credential == f"pin of {user}", **options)
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture
def client(manager: SessionManager) -> TestClient:
    return asgi_client(manager)


def test_an_allowed_request_reaches_the_app_with_the_headers(client: TestClient, manager: SessionManager) -> None:
    s = manager.sign_in("alice", "laptop").session_id
    r = client.get("/hello", headers=ck(s))
    assert r.status_code == 200 and r.json() == {"user": "alice", "state": "ACTIVE"}
    assert r.headers["Inactivity-State"] == "ACTIVE"
    assert r.headers["Inactivity-Reason"] == "STARTED"
    # Among the app's other cookies, some of a form http.cookies refuses.
    odd = {"Cookie": f'prefs={{"a":1,"b":"x y"}}; theme="dark; {COOKIE}={s}; other=1'}
    assert client.get("/hello", headers=odd).status_code == 200
    assert r.headers["Inactivity-Idle-Remaining-Ms"] == "10000"
    assert r.headers["Inactivity-Absolute-Remaining-Ms"] == "60000"
    assert [h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")] == list(EXPOSED_HEADERS)


def test_refusals_are_401_and_403_with_the_reason(client: TestClient, manager: SessionManager, clock: FleetClock) -> None:
    for headers in ({}, ck("forged"), ck("A" * 51), ck("A" * 5000), {"Cookie": "garbage;;=="}):
        r = client.get("/hello", headers=headers)
        assert r.status_code == 401
        assert r.json() == {"state": "EXPIRED", "reason": "NONE", "code": "inactivity.expired"}
        assert r.headers["Inactivity-State"] == "EXPIRED"
    s = manager.sign_in("alice").session_id
    clock.advance(10_000)
    r = client.get("/hello", headers=ck(s))
    assert r.status_code == 403
    assert r.json() == {"state": "LOCKED", "reason": "IDLE_TIMEOUT", "code": "inactivity.locked"}
    assert "Inactivity-Idle-Remaining-Ms" not in r.headers
    assert r.headers["Inactivity-Absolute-Remaining-Ms"] == "50000"
    assert client.get("/login").text == "sign in here"  # exempt: no decision


def test_machine_traffic_by_header_or_callable_never_extends(manager: SessionManager, clock: FleetClock) -> None:
    client = asgi_client(manager, machine=lambda request: request.path == "/hello" and request.method == "POST")
    s = manager.sign_in("alice").session_id
    clock.advance(4_000)
    r = client.get("/hello", headers={**ck(s), "Inactivity-Machine": "1"})
    assert r.status_code == 200 and r.headers["Inactivity-Idle-Remaining-Ms"] == "6000"
    clock.advance(4_000)
    r = client.post("/hello", headers=ck(s))      # the app's callable marks it
    assert r.status_code == 200 and r.headers["Inactivity-Idle-Remaining-Ms"] == "2000"
    clock.advance(2_000)
    assert client.get("/hello", headers={**ck(s), "Inactivity-Machine": "1"}).status_code == 403


def test_the_session_id_from_a_header_or_a_callable(manager: SessionManager) -> None:
    s = manager.sign_in("alice").session_id
    by_header = asgi_client(manager, cookie=None, header="X-Session")
    assert by_header.get("/hello", headers={"X-Session": s}).status_code == 200
    assert by_header.get("/hello", headers=ck(s)).status_code == 401   # the cookie is not a source here
    by_callable = asgi_client(manager, session_id=lambda request: request.headers.get("authorization", "")[7:])
    assert by_callable.get("/hello", headers={"Authorization": f"Bearer {s}"}).status_code == 200


def test_keepalive_status_report_and_sign_out(client: TestClient, manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    clock.advance(7_000)
    r = client.post("/inactivity/keepalive", json={"activity_age_ms": 1_000})
    assert r.status_code == 204 and r.headers["Inactivity-Idle-Remaining-Ms"] == "9000"
    for bad in ({"activity_age_ms": -5}, {"activity_age_ms": "5"}, {}):
        r = client.post("/inactivity/keepalive", json=bad)
        assert r.status_code == 400 and "activity_age_ms" in r.json()["error"]
    assert client.post("/inactivity/keepalive", content=b"not json", headers={"Content-Type": "application/json"}).status_code == 400
    r = client.get("/inactivity/status")
    assert r.status_code == 200
    assert r.json() == {"state": "ACTIVE", "reason": "STARTED", "idle_remaining_ms": 9000, "absolute_remaining_ms": 53000}
    clock.advance(1_000)
    assert client.get("/inactivity/status").json()["idle_remaining_ms"] == 8000  # status never extends
    r = client.post("/inactivity/report", json={"state": "ACTIVE", "reason": "ACTIVITY"})
    assert r.status_code == 400
    r = client.post("/inactivity/report", json={"state": "LOCKED", "reason": "MANUAL_LOCK"})
    assert r.status_code == 204 and r.headers["Inactivity-State"] == "LOCKED"
    assert client.get("/hello").status_code == 403
    r = client.post("/inactivity/sign-out")
    assert r.status_code == 204 and r.headers["Inactivity-Reason"] == "LOGOUT"
    assert "Max-Age=0" in r.headers["Set-Cookie"]
    r = client.get("/hello", headers=ck(s))
    assert r.status_code == 401 and r.json()["reason"] == "LOGOUT"
    assert client.get("/inactivity/keepalive").status_code == 405
    assert client.get("/inactivity/nothing").status_code == 404


def test_unlock_is_verified_by_the_app_and_failures_count(client: TestClient, manager: SessionManager, clock: FleetClock) -> None:
    s = manager.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    clock.advance(10_000)
    assert client.get("/hello").status_code == 403
    r = client.post("/inactivity/unlock", json={"credential": "wrong"})
    assert r.status_code == 403 and r.json()["state"] == "LOCKED"
    r = client.post("/inactivity/unlock", json={"credential": "pin of alice"})
    assert r.status_code == 200 and r.json() == {"unlocked": True}
    assert r.headers["Inactivity-Reason"] == "UNLOCKED"
    assert client.get("/hello").status_code == 200
    clock.advance(10_000)
    for _ in range(2):
        assert client.post("/inactivity/unlock", json={"credential": "pin of bob"}).status_code == 403
    r = client.post("/inactivity/unlock", json={"credential": "1234"})
    assert r.status_code == 401 and r.json()["reason"] == "UNLOCK_FAILURES"
    assert client.post("/inactivity/unlock", json={"credential": "pin of alice"}).status_code == 401
    assert client.post("/inactivity/unlock", json={}).status_code == 400


def test_unlock_of_a_running_session_locks_it_and_counts_failures(manager: SessionManager) -> None:
    # The core counts no unlock failure outside LOCKED, so an answer there that told a right
    # credential from a wrong one would be an unlimited password oracle for anyone holding the
    # session. An unlock attempt says the client is locked: the server locks too, then counts.
    checked: List[str] = []

    def verify(user: str, credential: str) -> bool:
        checked.append(credential)
        return credential == f"pin of {user}"

    app = Starlette(routes=[Route("/hello", hello)])
    app.add_middleware(InactivityMiddleware, manager=manager, cookie_secure=False, verify_credential=verify)
    client = TestClient(app, base_url="http://127.0.0.1")
    client.cookies.set(COOKIE, manager.sign_in("alice").session_id)
    r = client.post("/inactivity/unlock", json={"credential": "pin of alice"})
    assert (r.status_code, r.json(), r.headers["Inactivity-Reason"]) == (200, {"unlocked": True}, "UNLOCKED")
    for attempt in range(1, 3):                       # POLICY: 3 failures end the session
        r = client.post("/inactivity/unlock", json={"credential": f"guess {attempt}"})
        assert (r.status_code, r.json()["state"]) == (403, "LOCKED")
        assert manager.status(client.cookies[COOKIE]).decision.unlock_failures == attempt  # type: ignore[union-attr]
    r = client.post("/inactivity/unlock", json={"credential": "guess 3"})
    assert (r.status_code, r.json()["reason"]) == (401, "UNLOCK_FAILURES")
    assert client.post("/inactivity/unlock", json={"credential": "pin of alice"}).status_code == 401
    assert checked == ["pin of alice", "guess 1", "guess 2", "guess 3"]   # never after the end


def test_sessions_list_and_revocations(client: TestClient, manager: SessionManager, clock: FleetClock) -> None:
    laptop = manager.sign_in("alice", "laptop").session_id
    clock.advance(1)
    phone = manager.sign_in("alice", "phone").session_id
    clock.advance(1)
    tablet = manager.sign_in("alice", "tablet").session_id
    other = manager.sign_in("bob", "desktop").session_id
    client.cookies.set(COOKIE, laptop)
    rows = client.get("/inactivity/sessions").json()["sessions"]
    assert [(r["device"], r["state"], r["is_current"]) for r in rows] == [
        ("laptop", "ACTIVE", True), ("phone", "ACTIVE", False), ("tablet", "ACTIVE", False)]
    assert all(laptop not in json.dumps(r) and phone not in json.dumps(r) for r in rows)  # no ids in the list
    assert set(rows[0]) == {"handle", "device", "created_ms", "last_activity_ms", "state", "reason", "is_current"}
    bob_handle = manager.list("bob")[0].handle
    assert client.delete(f"/inactivity/sessions/{bob_handle}").status_code == 404   # not alice's
    assert client.get("/hello", headers=ck(other)).status_code == 200
    assert client.delete(f"/inactivity/sessions/{rows[1]['handle']}").status_code == 204
    r = client.get("/hello", headers=ck(phone))
    assert r.status_code == 401 and r.json()["reason"] == "REVOKED"   # the phone learns why
    r = client.post("/inactivity/sessions/revoke-others")
    assert r.status_code == 200 and r.json() == {"revoked": 1}
    assert client.get("/hello", headers=ck(tablet)).json()["reason"] == "REVOKED"
    assert client.get("/hello").status_code == 200
    r = client.post("/inactivity/sessions/revoke-all")
    assert r.status_code == 200 and r.json() == {"revoked": 1}
    r = client.get("/hello")
    assert r.status_code == 401 and r.json()["reason"] == "PASSWORD_CHANGED"
    assert client.get("/hello", headers=ck(other)).status_code == 200   # bob untouched


def test_device_limit_evicts_the_oldest_with_its_reason(store: Store, clock: FleetClock) -> None:
    manager = SessionManager(store, POLICY, precision=0, clock=clock, device_limit=2)
    first = manager.sign_in("alice", "one").session_id
    clock.advance(1)
    second = manager.sign_in("alice", "two").session_id
    clock.advance(1)
    third = manager.sign_in("alice", "three").session_id
    client = asgi_client(manager)
    r = client.get("/hello", headers=ck(first))
    assert r.status_code == 401 and r.json()["reason"] == "DEVICE_LIMIT"
    assert r.headers["Inactivity-Reason"] == "DEVICE_LIMIT"
    assert client.get("/hello", headers=ck(second)).status_code == 200
    assert client.get("/hello", headers=ck(third)).status_code == 200


def test_device_limit_can_refuse_the_new_sign_in(store: Store, clock: FleetClock) -> None:
    from inactivity.server import DeviceLimitError

    manager = SessionManager(store, POLICY, precision=0, clock=clock, device_limit=1, on_device_limit="refuse")
    first = manager.sign_in("alice", "one").session_id
    with pytest.raises(DeviceLimitError, match="device limit"):
        manager.sign_in("alice", "two")
    assert [r.device for r in manager.list("alice")] == ["one"]
    manager.sign_out(first)
    manager.sign_in("alice", "two")                       # an ended session frees its place
    client = asgi_client(manager, sign_in=lambda request: ("alice", "three"))
    r = client.post("/inactivity/sign-in")
    assert r.status_code == 409 and r.json()["code"] == "inactivity.device_limit"


def test_sign_in_endpoint_only_when_the_app_gives_one(manager: SessionManager) -> None:
    assert asgi_client(manager).post("/inactivity/sign-in", json={"user": "mallory"}).status_code == 404
    client = asgi_client(manager, sign_in=lambda request: ("carol", "demo") if b"carol" in request.body else None)
    assert client.post("/inactivity/sign-in", json={"user": "mallory"}).status_code == 401
    r = client.post("/inactivity/sign-in", json={"user": "carol"})
    assert r.status_code == 200 and r.json()["state"] == "ACTIVE"
    assert r.headers["Set-Cookie"].startswith(f"{COOKIE}={r.json()['session_id']}; Path=/; HttpOnly; SameSite=Lax")
    assert client.get("/hello").json() == {"user": "carol", "state": "ACTIVE"}


# ----- WSGI --------------------------------------------------------------------------------------

def wsgi_app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    outcome = environ["inactivity.outcome"]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [f"hello {outcome.user}".encode()]


def wsgi_call(app: Any, path: str, method: str = "GET", headers: Optional[Dict[str, str]] = None,
              body: bytes = b"") -> Tuple[int, Dict[str, str], bytes]:
    environ: Dict[str, Any] = {"REQUEST_METHOD": method, "PATH_INFO": path, "wsgi.input": io.BytesIO(body),
                               "CONTENT_LENGTH": str(len(body))}
    for k, v in (headers or {}).items():
        # As a WSGI server hands them over: Content-Type (and -Length) without the HTTP_ prefix.
        environ["CONTENT_TYPE" if k.lower() == "content-type" else "HTTP_" + k.upper().replace("-", "_")] = v
    seen: List[Any] = []
    out = b"".join(app(environ, lambda status, hs, exc_info=None: seen.append((status, hs))))
    status, hs = seen[0]
    return int(status.split()[0]), {k: v for k, v in hs}, out


def test_wsgi_middleware_decides_like_the_asgi_one(manager: SessionManager, clock: FleetClock) -> None:
    app = InactivityWSGIMiddleware(wsgi_app, manager, exempt=("/login",))
    s = manager.sign_in("alice").session_id
    cookie = {"Cookie": f"{COOKIE}={s}"}
    status, headers, body = wsgi_call(app, "/hello", headers=cookie)
    assert (status, body) == (200, b"hello alice")
    assert headers["Inactivity-State"] == "ACTIVE" and headers["Inactivity-Idle-Remaining-Ms"] == "10000"
    status, headers, body = wsgi_call(app, "/hello")
    assert status == 401 and json.loads(body) == {"state": "EXPIRED", "reason": "NONE", "code": "inactivity.expired"}
    status, _, body = wsgi_call(app, "/inactivity/keepalive", "POST", cookie, b'{"activity_age_ms": 0}')
    assert status == 415   # a body that is not declared JSON (a form's) is not read
    status, _, body = wsgi_call(app, "/inactivity/keepalive", "POST", {**cookie, "Content-Type": "application/json"},
                                b'{"activity_age_ms": 0}')
    assert status == 204
    clock.advance(3_000)
    status, _, body = wsgi_call(app, "/inactivity/status", headers=cookie)
    assert status == 200 and json.loads(body)["idle_remaining_ms"] == 7_000
    status, _, _ = wsgi_call(app, "/inactivity/report", "POST", {**cookie, "Content-Type": "application/json"},
                             b'{"state": "LOCKED", "reason": "MANUAL_LOCK"}')
    assert status == 204
    status, headers, body = wsgi_call(app, "/hello", headers=cookie)
    assert status == 403 and json.loads(body)["reason"] == "MANUAL_LOCK"
    status, _, body = wsgi_call(app, "/hello", headers={**cookie, "Inactivity-Machine": "1"})
    assert status == 403
    status, _, body = wsgi_call(app, "/inactivity/keepalive", "POST", cookie, b"x" * 20_000)
    assert status == 413


async def echo_socket(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            text = await websocket.receive_text()
            await websocket.send_text(f"{websocket.state.inactivity.user}: {text}")
    except WebSocketDisconnect:
        pass


def socket_client(manager: SessionManager) -> TestClient:
    app = Starlette(routes=[WebSocketRoute("/socket", echo_socket)])
    app.add_middleware(InactivityMiddleware, manager=manager, cookie_secure=False)
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.mark.parametrize("end, code, reason", [
    ("lock", WS_CLOSE_LOCKED, "inactivity.locked MANUAL_LOCK"),
    ("revoke", WS_CLOSE_EXPIRED, "inactivity.expired REVOKED"),
    ("idle", WS_CLOSE_LOCKED, "inactivity.locked IDLE_TIMEOUT"),
])
def test_a_websocket_is_decided_at_each_message(manager: SessionManager, clock: FleetClock, end: str, code: int,
                                                reason: str) -> None:
    """Not only at its handshake: a session locked, revoked or idle since then closes the socket
    at the client's next message, with a close code saying which, and the app never sees it."""
    client = socket_client(manager)
    s = manager.sign_in("alice", "laptop").session_id
    with client.websocket_connect("/socket", headers=ck(s)) as ws:
        for i in range(3):   # each message is the user's activity: idle never comes while they talk
            clock.advance(6_000)
            ws.send_text(f"hello {i}")
            assert ws.receive_text() == f"alice: hello {i}"
        if end == "lock":
            manager.report(s, "LOCKED", "MANUAL_LOCK")
        elif end == "revoke":
            manager.revoke(s)
        else:
            clock.advance(10_001)
        ws.send_text("after")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == (code, reason)
    # The handshake of a new socket is refused outright.
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/socket", headers=ck(s)):
            pass
    assert refused.value.code == 1008


def test_a_websocket_closes_1013_when_the_store_cannot_decide(tmp_path: object) -> None:
    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY)
    client = socket_client(manager)
    s = manager.sign_in("alice", "laptop").session_id
    with client.websocket_connect("/socket", headers=ck(s)) as ws:
        ws.send_text("one")
        assert ws.receive_text() == "alice: one"
        manager.store.close()   # a closed SQLite store: every read fails (503 for HTTP, 1013 here)
        ws.send_text("two")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == (WS_CLOSE_UNAVAILABLE, "inactivity.unavailable")


def test_without_a_lifespan_the_asgi_middleware_decides_in_a_worker_thread(store: Store, clock: FleetClock) -> None:
    """Starlette's TestClient outside ``with`` runs each request on an event loop of its own, and
    sends no lifespan: a store with an asyncio client is then called in a worker thread, so that
    no loop's client is left open (one per request). With a lifespan, see test_fail_closed."""
    manager = SessionManager(store, POLICY, precision=0, clock=clock)
    s = manager.sign_in("alice", "laptop").session_id
    calls: List[bool] = []
    request = manager.request

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return request(*args, **kwargs)

    manager.request = counted  # type: ignore[method-assign]
    client = asgi_client(manager)
    for _ in range(2):
        assert client.get("/hello", headers=ck(s)).status_code == 200
    assert len(calls) == 2
    assert not getattr(store, "_async_clients", None)


def test_the_apps_own_lifespan_runs_through_the_asgi_middleware(manager: SessionManager) -> None:
    """The middleware watches the lifespan (to close the store's asyncio client of the loop at
    shutdown) and passes it on: the app's own startup and shutdown run, in order."""
    import contextlib
    from typing import AsyncIterator

    events: List[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        events.append("startup")
        yield
        events.append("shutdown")

    app = Starlette(routes=[Route("/hello", hello)], lifespan=lifespan)
    app.add_middleware(InactivityMiddleware, manager=manager, cookie_secure=False)
    s = manager.sign_in("alice", "laptop").session_id
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert events == ["startup"]
        r = client.get("/hello", headers=ck(s))
        assert r.status_code == 200 and r.json() == {"user": "alice", "state": "ACTIVE"}
    assert events == ["startup", "shutdown"]
    assert not getattr(manager.store, "_async_clients", None)


def test_an_app_mounted_under_a_root_path_serves_its_session_api_and_decides(manager: SessionManager) -> None:
    """An app mounted at /app (Starlette's Mount; uvicorn's --root-path alike): ASGI gives it the
    full path with root_path set, and the middleware routes on the path below root_path, as the
    app itself does: its session API answers at /app/inactivity/..., its exemptions match its own
    paths, and every other request is decided."""
    from starlette.routing import Mount

    inner = Starlette(routes=[Route("/hello", hello), Route("/login", public)])
    inner.add_middleware(InactivityMiddleware, manager=manager, exempt=("/login",), cookie_secure=False)
    client = TestClient(Starlette(routes=[Mount("/app", app=inner)]), base_url="http://127.0.0.1")
    s = manager.sign_in("alice", "laptop").session_id
    r = client.get("/app/inactivity/status", headers=ck(s))
    assert r.status_code == 200 and r.json()["state"] == "ACTIVE", r.text
    r = client.get("/app/hello", headers=ck(s))
    assert r.status_code == 200 and r.headers["Inactivity-State"] == "ACTIVE"
    assert client.get("/app/hello").status_code == 401
    assert client.get("/app/login").status_code == 200   # the app's own exempt path
    assert client.post("/app/inactivity/sign-out", headers=ck(s)).status_code == 204
    assert client.get("/app/hello", headers=ck(s)).status_code == 401


def test_both_middlewares_refuse_an_unknown_option_and_config_with_options(tmp_path: object) -> None:
    """One option handling (wire.Middleware) for both: the same refusals, the same config."""
    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY)
    middlewares: List[Any] = [InactivityMiddleware, InactivityWSGIMiddleware]
    for middleware in middlewares:
        with pytest.raises(TypeError, match="unexpected keyword argument 'exmept'"):
            middleware(None, manager, exmept=("/login",))
        with pytest.raises(TypeError, match=r"not both \(also given: prefix\)"):
            middleware(None, manager, config=WireConfig(), prefix="/x")
        with pytest.raises(TypeError, match="config must be a WireConfig, not dict"):
            middleware(None, manager, config={"prefix": "/x"})
        with pytest.raises(ValueError, match="prefix"):
            middleware(None, manager, prefix="x/")
        assert middleware(None, manager, prefix="/auth-api", exempt=("/login",)).config == WireConfig(
            prefix="/auth-api", exempt=("/login",))
        config = WireConfig(header="Inactivity-Session")
        assert middleware(None, manager, config=config).config is config


def test_the_asgi_header_bytes_are_wire_outcome_headers() -> None:
    """The ASGI answers (middleware and gateway) build the Inactivity-* headers from names
    encoded once: the same pairs, in the same order, as wire.outcome_headers."""
    from inactivity.server.asgi import _outcome_header_bytes
    from inactivity.server.manager import Outcome
    from inactivity.server.wire import outcome_headers

    for outcome in (Outcome("ACTIVE", "STARTED", 600_000, 3_600_000), Outcome("WARNING", "NONE", 0, None),
                    Outcome("LOCKED", "IDLE_TIMEOUT", None, 12), Outcome("EXPIRED", "NONE")):
        expected = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in outcome_headers(outcome)]
        assert _outcome_header_bytes(outcome) == expected
        assert _outcome_header_bytes(outcome) == expected   # the cached values too
