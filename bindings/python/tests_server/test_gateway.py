"""The gateway `inactivity-server` (uvicorn, processes of its own), alone and behind Debian's
nginx (auth_request) in front of a plain backend (Python's http.server), with the nginx
configuration docs/server.md prints."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from datetime import timedelta
import urllib.error
import urllib.request
from email.message import Message
from typing import Dict, Iterator, List, Optional, Tuple

import pytest

from conftest import redis_url
from nginx_conf import write_nginx_conf
from inactivity import Engine, ManualClock
from inactivity.policy_file import load_policy


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(port: int, directory: str) -> subprocess.Popen[bytes]:
    """A redis-server of the test's own on `port` (appendonly, fsync always, its files in
    `directory`), once it accepts connections; started again with the same arguments it reads
    its append-only file back (the fault tests kill and restart it)."""
    proc = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", directory, "--save", "",
                             "--appendonly", "yes", "--appendfsync", "always"], stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise AssertionError("redis-server did not start")


def wait_for_port(port: int, proc: Optional[subprocess.Popen[bytes]] = None, what: str = "") -> None:
    for _ in range(300):
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on {port}")


class Http:
    """Plain HTTP with one cookie kept by hand (no cookie jar: the test sees every header)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie: Optional[str] = None

    def __call__(self, method: str, path: str, body: Optional[dict[str, object]] = None,
                 headers: Optional[Dict[str, str]] = None) -> Tuple[int, Message, bytes]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.cookie:
            request.add_header("Cookie", f"inactivity_session={self.cookie}")
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                status, hs, out = r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            status, hs, out = e.code, e.headers, e.read()
        cookie = hs.get("Set-Cookie", "")  # a Message: header names in any case
        m = re.match(r"inactivity_session=([^;]*)", cookie)
        if m:
            self.cookie = m.group(1) or None
        return status, hs, out


def stop_processes(procs: List[subprocess.Popen[bytes]]) -> None:
    """Stops what a test or the gateway benchmark (verify/bench/python/bench_server_nginx.py)
    started: SIGTERM to each still running, then 5 s each to exit before SIGKILL; closes their
    stderr pipes."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if p.stderr is not None:
            p.stderr.close()


@pytest.fixture
def processes() -> Iterator[List[subprocess.Popen[bytes]]]:
    procs: List[subprocess.Popen[bytes]] = []
    yield procs
    stop_processes(procs)


def start_gateway(procs: List[subprocess.Popen[bytes]], cwd: str, *args: str) -> int:
    port = free_port()
    proc = subprocess.Popen(["inactivity-server", "--port", str(port), *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs.append(proc)
    wait_for_port(port, proc, "inactivity-server")
    return port


def start_backend(procs: List[subprocess.Popen[bytes]], directory: str) -> int:
    with open(os.path.join(directory, "index.html"), "w") as f:
        f.write("the backend's page\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(proc)
    wait_for_port(port, proc, "http.server")
    return port


def start_nginx(procs: List[subprocess.Popen[bytes]], directory: str, gateway: int, backend: int) -> int:
    port = free_port()
    conf = write_nginx_conf(directory, gateway=gateway, backend=backend, listen=port)
    check = subprocess.run(["nginx", "-t", "-c", conf, "-p", directory], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", directory], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs.append(proc)
    wait_for_port(port, proc, "nginx")
    return port


def write_policy(directory: str, text: str, name: str = "policy.toml") -> str:
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_unknown_options_and_bad_policies_are_refused(tmp_path: object) -> None:
    for argv, said in ((["--bogus"], "unrecognized arguments: --bogus"),
                       (["--por", "1"], "unrecognized arguments: --por"),
                       (["--policy", "bankng"], "must be a preset"),
                       (["--store", "mysql://x"], "store ('mysql://x') must be"),
                       (["--precision", "5"], "precision"),
                       (["--workers", "0"], "--workers (0) must be at least 1")):
        r = subprocess.run(["inactivity-server", *argv], cwd=str(tmp_path), capture_output=True, text=True, timeout=30)
        assert r.returncode == 2, (argv, r.returncode, r.stderr)
        assert said in r.stderr, (argv, r.stderr)
    assert os.listdir(str(tmp_path)) == []   # nothing created by a refused start


def test_nginx_auth_request_in_front_of_a_plain_backend(tmp_path: object, processes: List[subprocess.Popen[bytes]]) -> None:
    work = str(tmp_path)
    site = os.path.join(work, "site")
    os.mkdir(site)
    policy = write_policy(work, 'preset = "banking"\nidle-timeout = "1m"\n')
    # No --store: the default SQLite file in the working directory, shared by two worker processes.
    gateway = start_gateway(processes, work, "--policy", policy, "--demo-sign-in", "--demo-credential", "1234",
                            "--insecure-cookie", "--workers", "2")
    assert os.path.exists(os.path.join(work, "inactivity-sessions.sqlite3"))
    nginx = start_nginx(processes, work, gateway, start_backend(processes, site))
    http = Http(f"http://127.0.0.1:{nginx}")

    status, headers, body = http("GET", "/")
    assert status == 401
    assert json.loads(body) == {"state": "EXPIRED", "reason": "NONE", "code": "inactivity.expired"}
    assert headers["Inactivity-State"] == "EXPIRED"

    status, headers, body = http("POST", "/inactivity/sign-in", {"user": "alice", "device": "curl"})
    assert status == 200 and http.cookie == json.loads(body)["session_id"]
    status, headers, body = http("GET", "/")
    assert (status, body) == (200, b"the backend's page\n")
    assert headers["Inactivity-State"] == "ACTIVE" and headers["Inactivity-Reason"] == "STARTED"
    assert 59_000 <= int(headers["Inactivity-Idle-Remaining-Ms"]) <= 60_000
    assert int(headers["Inactivity-Absolute-Remaining-Ms"]) > 8 * 3_600_000 - 60_000
    assert "Inactivity-Idle-Remaining-Ms" in headers["Access-Control-Expose-Headers"]
    assert http("GET", "/", headers={"Inactivity-Machine": "1"})[0] == 200

    status, headers, _ = http("POST", "/inactivity/report", {"state": "LOCKED", "reason": "MANUAL_LOCK"})
    assert status == 204 and headers["Inactivity-State"] == "LOCKED"
    status, headers, body = http("GET", "/")
    assert status == 403
    assert json.loads(body) == {"state": "LOCKED", "reason": "MANUAL_LOCK", "code": "inactivity.locked"}
    assert headers["Inactivity-State"] == "LOCKED" and "Inactivity-Idle-Remaining-Ms" not in headers
    assert http("GET", "/", headers={"Inactivity-Machine": "1"})[0] == 403

    assert http("POST", "/inactivity/unlock", {"credential": "4321"})[0] == 403
    assert http("POST", "/inactivity/unlock", {"credential": "1234"})[0] == 200
    assert http("GET", "/")[0] == 200

    mine = http.cookie
    status, _, body = http("POST", "/inactivity/sign-in", {"user": "alice", "device": "phone"})
    phone = http.cookie
    http.cookie = mine
    rows = json.loads(http("GET", "/inactivity/sessions")[2])["sessions"]
    assert [(r["device"], r["is_current"]) for r in rows] == [("curl", True), ("phone", False)]
    assert http("POST", "/inactivity/sessions/revoke-others")[0] == 200
    http.cookie = phone
    status, headers, body = http("GET", "/")
    assert status == 401 and json.loads(body)["reason"] == "REVOKED" and headers["Inactivity-Reason"] == "REVOKED"

    http.cookie = mine
    status, headers, _ = http("POST", "/inactivity/sign-out")
    assert status == 204 and http.cookie is None
    http.cookie = mine
    status, _, body = http("GET", "/")
    assert status == 401 and json.loads(body)["reason"] == "LOGOUT"


def test_nginx_answers_503_when_the_store_is_down(tmp_path: object, processes: List[subprocess.Popen[bytes]]) -> None:
    work = str(tmp_path)
    dead = free_port()   # nothing listens there
    gateway = start_gateway(processes, work, "--store", f"redis://127.0.0.1:{dead}/0", "--timeout", "0.5")
    nginx = start_nginx(processes, work, gateway, free_port())
    http = Http(f"http://127.0.0.1:{nginx}")
    http.cookie = "A" * 51   # of the right form: it reaches the store
    for _ in range(3):
        status, headers, body = http("GET", "/")
        assert status == 503 and headers["Retry-After"] == "1"
        assert json.loads(body) == {"code": "inactivity.unavailable"}
    status, headers, body = http("GET", "/inactivity/status")   # the API itself, through nginx
    assert status == 503 and headers["Retry-After"] == "1"


def test_two_gateways_with_clock_offsets_on_one_redis(tmp_path: object, processes: List[subprocess.Popen[bytes]]) -> None:
    """e = 1.5 s, idle 4 s (lock). Signed in on the server behind (started at T - e): by the
    true clock the idle lock is due at T + 2.5 s. The server ahead sees it at T + 1 s; the one
    behind would alone only at T + 4 s, but follows the stored lock at once."""
    work = str(tmp_path)
    policy = write_policy(work, '{"idle-timeout": "4s", "warning": "1s", "idle-action": "lock", "background-timeout": "2s"}',
                          "policy.json")
    common = ["--store", redis_url(), "--policy", policy, "--demo-sign-in", "--insecure-cookie", "--precision", "0s"]
    ahead = Http(f"http://127.0.0.1:{start_gateway(processes, work, *common, '--clock-offset-ms', '1500')}")
    behind = Http(f"http://127.0.0.1:{start_gateway(processes, work, *common, '--clock-offset-ms', '-1500')}")
    machine = {"Inactivity-Machine": "1"}

    start = time.monotonic()
    behind("POST", "/inactivity/sign-in", {"user": f"clock{os.getpid()}", "device": "d"})
    ahead.cookie = behind.cookie
    status, headers, _ = behind("GET", "/inactivity/auth", headers=machine)
    assert status == 204 and int(headers["Inactivity-Idle-Remaining-Ms"]) > 3_000
    status, headers, _ = ahead("GET", "/inactivity/auth", headers=machine)
    assert status == 204 and int(headers["Inactivity-Idle-Remaining-Ms"]) <= 1_000   # stricter by 2e, no more
    time.sleep(max(0.0, start + 2.0 - time.monotonic()))
    assert time.monotonic() - start < 3.4, "the machine was too slow for this test's margins"
    status, headers, _ = ahead("GET", "/inactivity/auth", headers=machine)
    assert status == 403 and headers["Inactivity-Reason"] == "IDLE_TIMEOUT"
    status, headers, _ = behind("GET", "/inactivity/auth")   # a user's request: it would extend, alone
    assert status == 403 and headers["Inactivity-State"] == "LOCKED"


def test_one_policy_file_for_both_ends(tmp_path: object, processes: List[subprocess.Popen[bytes]]) -> None:
    work = str(tmp_path)
    policy = write_policy(work, 'preset = "psd2"\nidle-timeout = "3m"\nmax-unlock-failures = 2\n\n'
                                '[server]\ndevice-limit = 1\non-device-limit = "refuse"\n')
    client_policy = load_policy(policy).policy
    assert client_policy.max_unlock_failures == 2
    with Engine(client_policy, clock=ManualClock()) as engine:   # the client reads the same file
        engine.start()
        assert engine.info().effective_idle_timeout == timedelta(minutes=3)
    http = Http(f"http://127.0.0.1:{start_gateway(processes, work, '--policy', policy, '--demo-sign-in', '--insecure-cookie')}")
    status, headers, _ = http("POST", "/inactivity/sign-in", {"user": "dana", "device": "one"})
    assert status == 200 and int(headers["Inactivity-Idle-Remaining-Ms"]) == 180_000
    status, _, body = http("POST", "/inactivity/sign-in", {"user": "dana", "device": "two"})
    assert status == 409 and json.loads(body)["code"] == "inactivity.device_limit"


def test_the_auth_path_is_a_bare_handler_that_writes_only_when_the_core_says(tmp_path: object) -> None:
    """In process (Starlette's test client on the gateway's own app): /inactivity/auth on SQLite
    is read and decided on the event loop; a request the core writes for (past the precision)
    goes to a worker thread and is written; the answers are the session API's."""
    from starlette.testclient import TestClient

    from inactivity.server.gateway import AuthGateway, build_app, parse_args

    work = str(tmp_path)
    policy = write_policy(work, 'idle-timeout = "1m"\n')
    store = os.path.join(work, "s.sqlite3")
    app = build_app(parse_args(["--store", f"sqlite:{store}", "--policy", policy, "--precision", "1s",
                                "--demo-sign-in", "--insecure-cookie"]))
    assert isinstance(app, AuthGateway) and app._inline
    client = TestClient(app, base_url="http://127.0.0.1")
    r = client.post("/inactivity/sign-in", json={"user": "erin", "device": "d"})   # the API, through the middleware
    assert r.status_code == 200
    cookie = {"Cookie": f"inactivity_session={r.json()['session_id']}"}
    client.cookies.clear()   # the session travels only where a request names it

    def version() -> int:
        import sqlite3
        with sqlite3.connect(store) as conn:
            return int(conn.execute("SELECT version FROM inactivity_sessions").fetchone()[0])

    r = client.get("/inactivity/auth", headers=cookie)
    assert r.status_code == 204 and r.headers["Inactivity-State"] == "ACTIVE" and r.content == b""
    assert 59_000 <= int(r.headers["Inactivity-Idle-Remaining-Ms"]) <= 60_000
    assert client.head("/inactivity/auth/any/path", headers=cookie).status_code == 200
    assert version() == 1   # within the precision: read and decided, nothing written
    time.sleep(1.1)
    assert client.get("/inactivity/auth", headers=cookie).status_code == 204
    assert version() == 2   # past it: the core said write, and the worker thread wrote it
    assert client.get("/inactivity/auth", headers={**cookie, "Inactivity-Machine": "1"}).status_code == 204
    assert version() == 2   # machine traffic never extends: nothing to write

    r = client.get("/inactivity/auth")
    assert r.status_code == 401 and r.json() == {"state": "EXPIRED", "reason": "NONE", "code": "inactivity.expired"}
    assert client.post("/inactivity/report", headers=cookie, json={"state": "LOCKED", "reason": "MANUAL_LOCK"}).status_code == 204
    r = client.get("/inactivity/auth", headers=cookie)
    assert r.status_code == 403 and r.json()["reason"] == "MANUAL_LOCK" and r.headers["Inactivity-State"] == "LOCKED"
    app.manager.store.close()
    r = client.get("/inactivity/auth", headers=cookie)
    assert r.status_code == 503 and r.headers["Retry-After"] == "1" and r.json()["code"] == "inactivity.unavailable"


def test_the_auth_path_on_redis_awaits_its_decision_on_the_event_loop(tmp_path: object) -> None:
    from starlette.testclient import TestClient

    from inactivity.server.gateway import build_app, parse_args

    app = build_app(parse_args(["--store", redis_url(), "--demo-sign-in", "--insecure-cookie", "--precision", "0s"]))
    assert not app._inline and app._awaited   # a network store: awaited, no thread, no blocking socket
    with TestClient(app, base_url="http://127.0.0.1") as client:   # one loop; its lifespan closes the client
        session = client.post("/inactivity/sign-in", json={"user": f"redis-gw{os.getpid()}"}).json()["session_id"]
        client.cookies.clear()
        cookie = {"Cookie": f"inactivity_session={session}"}
        for _ in range(2):   # precision 0: each one a compare-and-set on the loop
            r = client.get("/inactivity/auth", headers=cookie)
            assert r.status_code == 204 and r.headers["Inactivity-State"] == "ACTIVE" and r.content == b""
            assert r.headers["Inactivity-Idle-Remaining-Ms"] == str(15 * 60_000)
        assert client.head("/inactivity/auth", headers=cookie).status_code == 200
        assert client.get("/inactivity/auth").status_code == 401
        assert client.post("/inactivity/report", headers=cookie, json={"state": "LOCKED", "reason": "MANUAL_LOCK"}).status_code == 204
        r = client.get("/inactivity/auth", headers=cookie)
        assert r.status_code == 403 and r.headers["Inactivity-Reason"] == "MANUAL_LOCK"
        assert app.manager.store._async_clients   # the loop's asyncio client
    assert not app.manager.store._async_clients   # closed at the lifespan's shutdown
