"""What an attacker or a careless integration sends the server half, and what must never follow:
an allow, an unlock without a verified credential, an uncounted unlock attempt, a 500 for bad
input, a user's sessions locked out of revocation by one damaged row."""

from __future__ import annotations

import os
from typing import Any, Iterator, List

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from conftest import POLICY, FleetClock
from inactivity.server import InactivityMiddleware, SessionManager, SQLiteStore
from inactivity.server.wire import WireConfig

JSON = {"Content-Type": "application/json"}
COOKIE = "inactivity_session"


async def hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.fixture
def local(tmp_path: object, clock: FleetClock) -> Iterator[SessionManager]:
    """A manager on SQLite: the wire's checks do not depend on the store."""
    m = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY, precision=0, clock=clock)
    yield m
    m.close()


def _client(manager: SessionManager, **options: Any) -> TestClient:
    app = Starlette(routes=[Route("/hello", hello)])
    app.add_middleware(InactivityMiddleware, manager=manager, cookie_secure=False, **options)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def _failures(manager: SessionManager, session_id: str) -> int:
    d = manager.status(session_id).decision
    assert d is not None
    return int(d.unlock_failures)


# ----- the app's callables: an async one is never taken as "true" -----------------------------


def test_an_async_verifier_never_unlocks(local: SessionManager) -> None:
    async def verify(user: str, credential: str) -> bool:
        return credential == "right"

    # Refused when the app configures it: it would be called and never awaited.
    with pytest.raises(ValueError, match="verify_credential"):
        WireConfig(verify_credential=verify)  # type: ignore[arg-type]  # an untyped app is not told

    class Verifier:   # an async __call__ the check at configuration can also see
        async def __call__(self, user: str, credential: str) -> bool:
            return credential == "right"

    with pytest.raises(ValueError, match="verify_credential"):
        WireConfig(verify_credential=Verifier())  # type: ignore[arg-type]

    # One it cannot see (a plain callable returning a coroutine): its answer, always truthy,
    # unlocked any credential. Now no unlock, the attempt counted, and a 500 (the app's error).
    client = _client(local, verify_credential=lambda user, credential: verify(user, credential))
    s = local.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    assert local.report(s, "LOCKED", "MANUAL_LOCK").state == "LOCKED"
    r = client.post("/inactivity/unlock", json={"credential": "wrong"})
    assert r.status_code == 500
    assert local.status(s).state == "LOCKED" and _failures(local, s) == 1
    assert client.get("/hello").status_code == 403


def test_an_async_exempt_callable_exempts_nothing(local: SessionManager) -> None:
    async def exempt(path: str) -> bool:
        return path == "/login"

    with pytest.raises(ValueError, match="exempt"):
        WireConfig(exempt=exempt)  # type: ignore[arg-type]
    # Hidden behind a plain callable, its coroutine was a true value: every path exempt, no
    # session needed anywhere. Now never a pass.
    client = _client(local, exempt=lambda path: exempt(path))
    r = client.get("/hello")
    assert r.status_code == 500 and r.text != "hello"


def test_an_unlock_attempt_whose_verifier_raises_counts_as_a_failure(local: SessionManager) -> None:
    # A verifier that raises on a wrong credential (argon2-cffi's PasswordHasher.verify does)
    # answered a wrong guess 500 and a right one 200, counting nothing: unlimited guesses.
    class Mismatch(Exception):
        pass

    checked: List[str] = []

    def verify(user: str, credential: str) -> bool:
        checked.append(credential)
        if credential != "right":
            raise Mismatch()
        return True

    client = _client(local, verify_credential=verify)
    s = local.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    assert local.report(s, "LOCKED", "MANUAL_LOCK").state == "LOCKED"
    for attempt in (1, 2):                       # POLICY: the 3rd failure ends the session
        assert client.post("/inactivity/unlock", json={"credential": f"guess {attempt}"}).status_code == 500
        assert (local.status(s).state, _failures(local, s)) == ("LOCKED", attempt)
    client.post("/inactivity/unlock", json={"credential": "guess 3"})
    o = local.status(s)
    assert (o.state, o.reason) == ("EXPIRED", "UNLOCK_FAILURES")
    r = client.post("/inactivity/unlock", json={"credential": "right"})
    assert r.status_code == 401 and checked == ["guess 1", "guess 2", "guess 3"]


# ----- a damaged SQLite row ---------------------------------------------------------------------


@pytest.mark.parametrize("column,value", [("record", "text, not a blob"), ("record", 1.5), ("record", 7),
                                          ("device", b"\xff"), ("created_ms", "x")])
def test_a_sqlite_row_of_foreign_types_is_corrupt_and_blocks_nothing(local: SessionManager, clock: FleetClock,
                                                                     column: str, value: object) -> None:
    # SQLite keeps any type in any column. A record that is not a blob raised TypeError on every
    # request of the session (500), and in the user's list, sign-in and revoke-all: one damaged
    # row kept a password change from ending the user's other sessions. It is a corrupt session
    # now (EXPIRED, RESTORE_FAILED, as Redis's foreign value), and the user's others are reachable.
    import sqlite3

    from inactivity.server.stores import _id_key

    manager = SessionManager(local.store, POLICY, precision=0, clock=clock, device_limit=2)
    damaged = manager.sign_in("alice", "old").session_id
    clock.advance(1)
    other = manager.sign_in("alice", "new").session_id
    store = manager.store
    assert isinstance(store, SQLiteStore)
    with sqlite3.connect(store.path) as conn:
        conn.execute(f"UPDATE inactivity_sessions SET {column} = ? WHERE id = ?", (value, _id_key(damaged)))
    corrupt = column == "record"
    o = manager.request(damaged)
    assert (o.state, o.reason) == (("EXPIRED", "RESTORE_FAILED") if corrupt else ("ACTIVE", "STARTED"))
    assert manager.request(damaged).state == ("EXPIRED" if corrupt else "ACTIVE")   # written: it stays ended
    rows = manager.list("alice", current_id=other)
    assert [(r.state, r.is_current) for r in rows] == [("EXPIRED" if corrupt else "ACTIVE", False), ("ACTIVE", True)]
    assert all(isinstance(r.device, str) and isinstance(r.created_ms, int) for r in rows)
    third = manager.sign_in("alice", "third").session_id   # the device limit reads every row
    assert manager.revoke_all("alice") == 2   # the two still live
    for s in (damaged, other, third):
        assert not manager.request(s).allowed


# ----- bad input: a clear 400, nothing changed, never a 500 -------------------------------------


def test_bad_input_is_400_and_changes_nothing(local: SessionManager, tmp_path: object) -> None:
    from inactivity import InvalidArgumentError
    from inactivity.server.gateway import build_app, parse_args

    client = _client(local)
    s = local.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    before = local.status(s)
    # JSON nested deeper than Python's stack: RecursionError, a 500 (and a logged traceback)
    # for anyone, before any session was looked at.
    for body in (b"[" * 15_000, b'{"activity_age_ms": ' + b"[" * 15_000):
        r = client.post("/inactivity/keepalive", content=body, headers=JSON)
        assert r.status_code == 400 and r.json()["code"] == "inactivity.bad_request"
    assert local.status(s) == before
    # A label with no UTF-8 form (a lone surrogate, as JSON's "\ud800" gives): UnicodeEncodeError
    # from the store, a 500; now the label's own error, and nothing created.
    for user, device in (("\ud800", "x"), ("bob", "phone \udcff")):
        with pytest.raises(InvalidArgumentError, match="user|device"):
            local.sign_in(user, device)
    with pytest.raises(InvalidArgumentError, match="user"):
        local.list("\ud800")
    assert [r.device for r in local.list("alice")] == [""] and local.list("bob") == []
    # A reason past int64 was wrapped by ctypes: 2**64 + MANUAL_LOCK locked, 2**64 + REVOKED
    # ended every session of the user.
    with pytest.raises(InvalidArgumentError, match="reason"):
        local.report(s, "LOCKED", 2**64 + 10)
    with pytest.raises(InvalidArgumentError, match="reason"):
        local.revoke_all("alice", 2**64 + 16)
    assert local.status(s) == before

    # The gateway's demo sign-in: a body that is JSON but not an object, or too deep, was a 500.
    args = parse_args(["--store", "sqlite:" + os.path.join(str(tmp_path), "g.sqlite3"), "--demo-sign-in",
                       "--insecure-cookie"])
    gateway = TestClient(build_app(args), base_url="http://127.0.0.1", raise_server_exceptions=False)
    for body in (b"[1]", b'"alice"', b"[" * 15_000):
        assert gateway.post("/inactivity/sign-in", content=body, headers=JSON).status_code == 401
    r = gateway.post("/inactivity/sign-in", content=b'{"user": "bob", "device": "\\udcff"}', headers=JSON)
    assert r.status_code == 400 and "device" in r.json()["error"]
    assert gateway.post("/inactivity/sign-in", json={"user": "bob"}).status_code == 200


def test_a_body_must_be_json_so_a_cross_site_form_cannot_post_one(tmp_path: object, clock: FleetClock) -> None:
    """A page of another site can post a form (text/plain, urlencoded, multipart) with the user's
    cookie where SameSite lets it, with no preflight; its body was read as JSON whatever its type,
    so a form posting {"activity_age_ms": 0} kept an idle user's session alive. Such a body is 415
    now and changes nothing; application/json (which needs a preflight cross-site) is read."""
    local = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "j.sqlite3")), POLICY.replace(idle_timeout=600, absolute_timeout=3600), precision=0,
                           clock=clock)
    client = _client(local)
    s = local.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    clock.advance(60_000)   # a minute idle: a keepalive read would move the activity to now
    before = local.status(s)
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {} if kind is None else {"Content-Type": kind}
        r = client.post("/inactivity/keepalive", content=b'{"activity_age_ms": 0}', headers=headers)
        assert r.status_code == 415 and r.json()["code"] == "inactivity.unsupported_media_type", (kind, r.text)
        r = client.post("/inactivity/report", content=b'{"state": "LOCKED", "reason": "MANUAL_LOCK"}', headers=headers)
        assert r.status_code == 415, kind
    assert local.status(s) == before
    r = client.post("/inactivity/keepalive", content=b'{"activity_age_ms": 0}', headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert r.status_code == 204
    assert client.post("/inactivity/sign-out").status_code == 204   # no body: nothing to read


# ----- what a 503 tells the client --------------------------------------------------------------


def test_a_503_tells_the_client_nothing_of_the_store(tmp_path: object, caplog: pytest.LogCaptureFixture) -> None:
    # The store's error named its host and port (Redis) or its file's path (SQLite) in the
    # body of every 503, to any client. The operator's log has it; the client, the code.
    import socket

    from inactivity.server import RedisStore
    from inactivity.server.gateway import AuthGateway

    with socket.socket() as sock:        # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manager = SessionManager(RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5), POLICY)
    session = "A" * 50 + "A"
    client = _client(manager)
    gateway = TestClient(AuthGateway(InactivityMiddleware(None, manager, auth_endpoint=True)),
                         base_url="http://127.0.0.1")
    from inactivity.server import wire

    wire._unavailable_log.update(at=float("-inf"), more=0)   # no line logged lately
    with caplog.at_level("WARNING", logger="inactivity.server"):
        answers = [client.get("/hello", headers={"Cookie": f"{COOKIE}={session}"}),
                   client.get("/inactivity/status", headers={"Cookie": f"{COOKIE}={session}"}),
                   gateway.get("/inactivity/auth", headers={"Cookie": f"{COOKIE}={session}"})]
        for r in answers:
            assert r.status_code == 503 and r.json()["code"] == "inactivity.unavailable"
            assert str(port) not in r.text and "127.0.0.1" not in r.text
        # One line for the three: in an outage every request is a 503, and a line each would flood
        # the log (a gateway whose standard error nobody read blocked on it, with Redis paused).
        assert [m for m in caplog.messages if str(port) in m] == caplog.messages and len(caplog.messages) == 1
        wire._unavailable_log["at"] -= wire._UNAVAILABLE_LOG_INTERVAL_S   # the interval has passed
        assert client.get("/hello", headers={"Cookie": f"{COOKIE}={session}"}).status_code == 503
        assert len(caplog.messages) == 2 and caplog.messages[1].endswith("(and 2 more since the last line)")
    manager.close()


@pytest.mark.parametrize("answer", ["invalid password", {"ok": False}, 1, None])
def test_only_a_verifier_answering_true_unlocks(local: SessionManager, answer: object) -> None:
    # bool() of the verifier's answer unlocked on any truthy value: a verifier returning its
    # error message, or a result object, unlocked every credential. Only True unlocks now; any
    # other answer is the app's error (500), with the attempt counted.
    client = _client(local, verify_credential=lambda user, credential: answer)
    s = local.sign_in("alice").session_id
    client.cookies.set(COOKIE, s)
    assert local.report(s, "LOCKED", "MANUAL_LOCK").state == "LOCKED"
    assert client.post("/inactivity/unlock", json={"credential": "anything"}).status_code == 500
    assert (local.status(s).state, _failures(local, s)) == ("LOCKED", 1)
    assert client.get("/hello").status_code == 403


# ----- exempt paths -----------------------------------------------------------------------------


def test_exempting_the_root_page_exempts_nothing_else(local: SessionManager, tmp_path: object) -> None:
    # docs/server.md wraps a static site with exempt=("/", "/login.html"): "/" ends with "/", so
    # it was a prefix of every path, and every file of the site was served without a session.
    from starlette.staticfiles import StaticFiles

    site = os.path.join(str(tmp_path), "site")
    os.makedirs(os.path.join(site, "private"))
    for name, text in (("index.html", "sign in"), ("login.html", "login"), ("secret.html", "secret"),
                       ("private/data.json", "{}")):
        with open(os.path.join(site, name), "w") as f:
            f.write(text)
    app = InactivityMiddleware(StaticFiles(directory=site, html=True), manager=local, exempt=("/", "/login.html"))
    client = TestClient(app, base_url="http://127.0.0.1")
    assert client.get("/").text == "sign in" and client.get("/login.html").text == "login"
    for path in ("/secret.html", "/private/data.json", "/private/"):
        r = client.get(path)
        assert r.status_code == 401 and "secret" not in r.text, path
    s = local.sign_in("alice").session_id
    assert client.get("/secret.html", headers={"Cookie": f"{COOKIE}={s}"}).text == "secret"
    assert InactivityMiddleware(None, manager=local, exempt=("/static/",)).config.is_exempt("/static/a.css")


def test_exempt_given_as_one_string_is_refused(local: SessionManager) -> None:
    # A string is a sequence of one-character paths, "/" among them: exempt="/login" exempted
    # every path. Refused now, naming the option.
    for value in ("/login", "/static/"):
        with pytest.raises(ValueError, match="exempt"):
            InactivityMiddleware(None, manager=local, exempt=value)


@pytest.mark.parametrize("exempt", [("/", "/static/"), "callable"])
def test_a_dot_segment_never_leaves_an_exempt_prefix(local: SessionManager, tmp_path: object, exempt: Any) -> None:
    # /static/%2e%2e/secret.html is /static/../secret.html once decoded (uvicorn and Starlette's
    # test client decode it): under the exempt "/static/", so no decision, and StaticFiles
    # resolved it to /secret.html and served it without a session.
    from starlette.staticfiles import StaticFiles

    from inactivity.server import InactivityWSGIMiddleware

    site = os.path.join(str(tmp_path), "site")
    os.makedirs(os.path.join(site, "static", ".well-known"))
    for name, text in (("secret.html", "secret"), ("static/a.css", "css"), ("static/.well-known/x", "known")):
        with open(os.path.join(site, name), "w") as f:
            f.write(text)
    rule = (lambda path: path.startswith("/static/")) if exempt == "callable" else exempt
    client = TestClient(InactivityMiddleware(StaticFiles(directory=site), manager=local, exempt=rule),
                        base_url="http://127.0.0.1")
    assert client.get("/static/a.css").text == "css" and client.get("/static/.well-known/x").text == "known"
    for path in ("/static/%2e%2e/secret.html", "/static/%2E%2E/secret.html", "/static/..%2fsecret.html",
                 "/static/.%2f..%2fsecret.html", "/static/..%5csecret.html"):
        r = client.get(path)
        assert r.status_code == 401 and "secret" not in r.text, path
    # The WSGI middleware reads the same rule (PATH_INFO is decoded too).
    seen: List[str] = []

    def wsgi(environ: Any, start_response: Any) -> List[bytes]:
        seen.append(environ["PATH_INFO"])
        start_response("200 OK", [])
        return [b"app"]

    statuses: List[str] = []
    guarded = InactivityWSGIMiddleware(wsgi, local, exempt=rule)
    for path in ("/static/a.css", "/static/../secret.html"):
        guarded({"PATH_INFO": path, "REQUEST_METHOD": "GET"}, lambda status, headers, *exc: statuses.append(status))
    assert statuses == ["200 OK", "401 Unauthorized"] and seen == ["/static/a.css"]


# ----- where the ids rest -----------------------------------------------------------------------


def test_a_new_sqlite_file_is_readable_by_its_owner_only(tmp_path: object, clock: FleetClock) -> None:
    # The file holds every session's id (a bearer secret). It was created with the umask's mode,
    # 0644 by default: any local user could read every live id and use it.
    import stat

    old = os.umask(0o022)
    try:
        path = os.path.join(str(tmp_path), "new.sqlite3")
        manager = SessionManager(SQLiteStore(path), POLICY, precision=0, clock=clock)
        manager.request(manager.sign_in("alice").session_id)
        for name in (path, path + "-wal", path + "-shm"):
            assert stat.S_IMODE(os.stat(name).st_mode) == 0o600, name
        manager.close()
        kept = os.path.join(str(tmp_path), "kept.sqlite3")
        with open(kept, "wb"):
            pass
        os.chmod(kept, 0o640)                       # the operator's choice stands
        SQLiteStore(kept).close()
        assert stat.S_IMODE(os.stat(kept).st_mode) == 0o640
    finally:
        os.umask(old)


def test_a_cookie_browsers_would_drop_is_refused_at_configuration(manager: SessionManager) -> None:
    """SameSite=None and the __Host-/__Secure- prefixes need Secure: without it browsers drop the
    cookie, and a session signed in would never be sent back. Refused when configured, naming the
    rule; a __Host- cookie with Secure (the prefix that also forbids a subdomain's cookie of the
    same name) is set with Path=/ and no Domain, as the prefix requires."""
    for options in ({"cookie_secure": False, "cookie_samesite": "None"},
                    {"cookie_secure": False, "cookie": "__Host-inactivity_session"},
                    {"cookie_secure": False, "cookie": "__Secure-inactivity_session"}):
        with pytest.raises(ValueError, match="browsers drop such a cookie"):
            WireConfig(**options)  # type: ignore[arg-type]
    config = WireConfig(cookie="__Host-inactivity_session", sign_in=lambda request: ("alice", "laptop"))
    app = InactivityMiddleware(None, manager, config=config)
    r = TestClient(app, base_url="https://127.0.0.1").post("/inactivity/sign-in")
    assert r.status_code == 200, r.text
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("__Host-inactivity_session=") and "Secure" in cookie and "Path=/" in cookie
    assert "domain" not in cookie.lower()
