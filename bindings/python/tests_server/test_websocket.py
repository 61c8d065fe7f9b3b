"""Messages the server pushes on a websocket, through a real server (uvicorn with wsproto) and a
real client (websocket-client): each decided before it leaves, as machine traffic (never
extending the session), by a read that started after it was handed over, concurrent sends
sharing one read; refused, the socket closes with the refusal's code, the message is not sent,
and the app's send raises SocketClosed."""

from __future__ import annotations

import asyncio
import os
import queue
import struct
import threading
import time
from typing import Any, Iterator, List, MutableMapping, Optional, Tuple, Union

import pytest
import websocket  # websocket-client
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from conftest import POLICY, FleetClock
from inactivity.server import InactivityMiddleware, SessionManager, SocketClosed, SQLiteStore
from inactivity.server.asgi import WS_CLOSE_EXPIRED, WS_CLOSE_LOCKED, WS_CLOSE_UNAVAILABLE
from inactivity.server import Input
from test_gateway import free_port, wait_for_port

COOKIE = "inactivity_session"
Result = Union[str, Tuple[str, int, str]]


class PushApp:
    """A socket that pushes when the test says so (no client message in between): `push(n)`
    has the app send n messages at once and returns what each send did."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.commands: Optional[asyncio.Queue[int]] = None
        self.results: queue.Queue[List[Result]] = queue.Queue()

    async def socket(self, ws: WebSocket) -> None:
        await ws.accept()
        self.loop = asyncio.get_running_loop()
        commands: asyncio.Queue[int] = asyncio.Queue()
        self.commands = commands
        self.ready.set()
        running = set()
        while True:
            n = await commands.get()
            if n < 0:
                return
            task = asyncio.ensure_future(self._burst(ws, n))   # a push does not wait for the last
            running.add(task)
            task.add_done_callback(running.discard)

    async def _burst(self, ws: WebSocket, n: int) -> None:
        self.results.put(list(await asyncio.gather(*(self._send(ws, f"push {i}") for i in range(n)))))

    @staticmethod
    async def _send(ws: WebSocket, text: str) -> Result:
        try:
            await ws.send_text(text)
            return "sent"
        except SocketClosed as e:
            return ("closed", e.code, e.reason)

    def start_push(self, n: int) -> None:
        assert self.loop is not None and self.commands is not None
        self.loop.call_soon_threadsafe(self.commands.put_nowait, n)

    def push(self, n: int) -> List[Result]:
        self.start_push(n)
        return self.results.get(timeout=10)


class Served:
    def __init__(self, manager: SessionManager, clock: FleetClock, app: PushApp, port: int) -> None:
        self.manager, self.clock, self.app, self.port = manager, clock, app, port
        #: the input of every decision the manager made (the observer)
        self.inputs: List[int] = []
        self.sockets: List[websocket.WebSocket] = []
        manager.observer = lambda input, *rest: self.inputs.append(input)

    def connect(self, session_id: str) -> websocket.WebSocket:
        ws = websocket.create_connection(f"ws://127.0.0.1:{self.port}/socket", timeout=10,
                                         header=[f"Cookie: {COOKIE}={session_id}"])
        self.sockets.append(ws)
        assert self.app.ready.wait(10)
        return ws


def frame(ws: websocket.WebSocket) -> Tuple[str, Any]:
    """The next frame: ("text", its text) or ("close", (code, reason))."""
    opcode, f = ws.recv_data_frame(True)
    if opcode == websocket.ABNF.OPCODE_CLOSE:
        return "close", (struct.unpack("!H", f.data[:2])[0], f.data[2:].decode())
    return "text", f.data.decode()


@pytest.fixture
def served(tmp_path: object) -> Iterator[Served]:
    import uvicorn

    clock = FleetClock()
    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY, precision=0, clock=clock)
    app = PushApp()
    starlette = Starlette(routes=[WebSocketRoute("/socket", app.socket)])
    starlette.add_middleware(InactivityMiddleware, manager=manager, cookie_secure=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(starlette, host="127.0.0.1", port=port, ws="wsproto", lifespan="off",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for_port(port)
    try:
        served = Served(manager, clock, app, port)
        yield served
    finally:
        for ws in served.sockets:
            ws.close(timeout=1)
            ws.shutdown()  # type: ignore[no-untyped-call]  # close() leaves the socket open once the server's close was read
        if app.loop is not None and not app.loop.is_closed():
            app.start_push(-1)
        server.should_exit = True
        thread.join(10)


def test_a_pushed_message_is_decided_as_machine_traffic(served: Served) -> None:
    s = served.manager.sign_in("alice", "laptop").session_id
    ws = served.connect(s)
    served.clock.advance(6_000)
    before = len(served.inputs)
    assert served.app.push(1) == ["sent"]
    assert frame(ws) == ("text", "push 0")
    assert served.inputs[before:] == [int(Input.MACHINE)]   # one decision, machine traffic
    # It did not extend the session: 4 s of the idle timeout's 10 left, as before the push.
    assert served.manager.status(s).idle_remaining_ms == 4_000


def test_concurrent_pushes_share_one_read(served: Served) -> None:
    s = served.manager.sign_in("alice", "laptop").session_id
    ws = served.connect(s)
    before = len(served.inputs)
    assert served.app.push(5) == ["sent"] * 5
    assert sorted(frame(ws)[1] for _ in range(5)) == [f"push {i}" for i in range(5)]
    assert served.inputs[before:] == [int(Input.MACHINE)]


@pytest.mark.parametrize("end, code, reason", [
    ("lock", WS_CLOSE_LOCKED, "inactivity.locked MANUAL_LOCK"),
    ("idle", WS_CLOSE_LOCKED, "inactivity.locked IDLE_TIMEOUT"),
    ("revoke", WS_CLOSE_EXPIRED, "inactivity.expired REVOKED"),
    ("store", WS_CLOSE_UNAVAILABLE, "inactivity.unavailable"),
])
def test_a_refused_push_closes_the_socket_and_is_not_sent(served: Served, end: str, code: int, reason: str) -> None:
    s = served.manager.sign_in("alice", "laptop").session_id
    ws = served.connect(s)
    assert served.app.push(1) == ["sent"]
    assert frame(ws) == ("text", "push 0")
    if end == "lock":
        served.manager.report(s, "LOCKED", "MANUAL_LOCK")
    elif end == "idle":
        served.clock.advance(10_000)
    elif end == "revoke":
        served.manager.revoke(s)
    else:
        served.manager.store.close()   # every read fails: the store cannot decide
    assert served.app.push(2) == [("closed", code, reason)] * 2
    assert frame(ws) == ("close", (code, reason))   # the close, and no message before it
    # A send after the close raises too, and sends nothing.
    assert served.app.push(1) == [("closed", code, reason)]


def test_a_push_waits_for_a_read_that_started_after_it(served: Served) -> None:
    """A push handed over while another push's read is under way does not take that read's
    answer: the session locked meanwhile, the first push (read before the lock) leaves, the
    second is refused."""
    s = served.manager.sign_in("alice", "laptop").session_id
    ws = served.connect(s)
    store = served.manager.store
    real_get = store.get
    armed, entered, release = threading.Event(), threading.Event(), threading.Event()

    def get(session_id: str, deadline: float) -> Any:
        entry = real_get(session_id, deadline)
        if armed.is_set():
            armed.clear()
            entered.set()
            assert release.wait(10)   # the record is read; its decision waits
        return entry

    store.get = get  # type: ignore[method-assign]
    armed.set()
    served.app.start_push(1)
    assert entered.wait(10)
    served.manager.report(s, "LOCKED", "MANUAL_LOCK")
    served.app.start_push(1)
    time.sleep(0.3)   # the second push handed over while the first read waits
    release.set()
    assert served.app.results.get(timeout=10) == ["sent"]
    assert served.app.results.get(timeout=10) == [("closed", WS_CLOSE_LOCKED, "inactivity.locked MANUAL_LOCK")]
    assert frame(ws) == ("text", "push 0")
    assert frame(ws) == ("close", (WS_CLOSE_LOCKED, "inactivity.locked MANUAL_LOCK"))


class _Channels:
    """The ASGI server's side of one websocket, in memory: what the client sends (`incoming`)
    and what the middleware sent out (`sent`). The middleware and the store are the real ones;
    this stands where uvicorn would, to put a client message in the queue at an exact moment."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: List[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        return await self.incoming.get()

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(dict(message))


def _socket_scope(session_id: str) -> dict[str, Any]:
    return {"type": "websocket", "path": "/socket", "headers": [(b"cookie", f"{COOKIE}={session_id}".encode())],
            "query_string": b"", "scheme": "ws", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1)}


def test_a_client_message_after_a_refused_push_does_not_reach_the_app(tmp_path: object) -> None:
    """The app waits in receive() while another of its tasks pushes; the push is refused (the
    session locked) and closes the socket. A message the client sent before it saw the close is
    still queued by the server: the app's receive() gets a disconnect with the refusal's code,
    never that message."""
    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY, precision=0,
                             clock=FleetClock())
    s = manager.sign_in("alice", "laptop").session_id
    seen: List[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        waiting = asyncio.ensure_future(receive())
        await asyncio.sleep(0)
        manager.report(s, "LOCKED", "MANUAL_LOCK")
        try:
            await send({"type": "websocket.send", "text": "push"})
            seen.append("sent")
        except SocketClosed as e:
            seen.append(("closed", e.code))
        channels.incoming.put_nowait({"type": "websocket.receive", "text": "late"})
        seen.append(await waiting)

    channels = _Channels()
    channels.incoming.put_nowait({"type": "websocket.connect"})
    middleware = InactivityMiddleware(app, manager=manager, cookie_secure=False)
    asyncio.run(middleware(_socket_scope(s), channels.receive, channels.send))
    assert seen == [("closed", WS_CLOSE_LOCKED), {"type": "websocket.disconnect", "code": WS_CLOSE_LOCKED}]
    assert [m["type"] for m in channels.sent] == ["websocket.accept", "websocket.close"]


def test_a_cancelled_push_does_not_close_the_sends_that_joined_its_read(tmp_path: object) -> None:
    """Three pushes handed over together share one read; the first, whose task started that
    read, is cancelled while it waits. The other two are not refused for a store that never
    failed: they decide on a read of their own and leave."""
    manager = SessionManager(SQLiteStore(os.path.join(str(tmp_path), "s.sqlite3")), POLICY, precision=0,
                             clock=FleetClock())
    s = manager.sign_in("alice", "laptop").session_id
    results: List[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        first = asyncio.ensure_future(send({"type": "websocket.send", "text": "first"}))
        others = [asyncio.ensure_future(send({"type": "websocket.send", "text": t})) for t in ("second", "third")]
        await asyncio.sleep(0)   # all three handed over; the first's read not answered yet
        first.cancel()
        for task in others:
            try:
                await task
                results.append("sent")
            except SocketClosed as e:
                results.append(("closed", e.code))

    channels = _Channels()
    channels.incoming.put_nowait({"type": "websocket.connect"})
    middleware = InactivityMiddleware(app, manager=manager, cookie_secure=False)
    asyncio.run(middleware(_socket_scope(s), channels.receive, channels.send))
    assert results == ["sent", "sent"]
    assert [m.get("text") for m in channels.sent if m["type"] == "websocket.send"] == ["second", "third"]
