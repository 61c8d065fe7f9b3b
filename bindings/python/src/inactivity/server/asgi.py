"""ASGI middleware (Starlette, FastAPI, any ASGI app): every request decided on the server.

    from starlette.applications import Starlette
    from inactivity.server import InactivityMiddleware, SessionManager

    manager = SessionManager("sqlite:sessions.sqlite3", "banking")
    app = Starlette(routes=[...])
    app.add_middleware(InactivityMiddleware, manager=manager, exempt=("/login", "/static/"))

A request that is refused gets the 401/403 answer and never reaches the app; one that may
proceed reaches it with ``scope["state"]["inactivity"]`` set to its ``Outcome`` (Starlette:
``request.state.inactivity``: the user, the session id, the state) and leaves it with the
Inactivity-* headers. The session API (``/inactivity/...``) is answered by the middleware itself.
With no app (``InactivityMiddleware(None, manager=...)``) it is the session API alone, answering
404 elsewhere: mount it, or wrap a static-files app with it.

A store with an asyncio client (Redis) is awaited on the event loop (``SessionManager.arequest``,
no worker thread) once the server's ASGI lifespan has started on that loop: its shutdown then
closes the loop's client. Without a lifespan (a server run with it off, Starlette's TestClient
outside ``with``, which runs each request on a loop of its own) and for any other store, the
store is called in a worker thread. Either way the manager's timeout bounds the decision: a store
that does not answer in time is 503 + Retry-After, never a pass.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from typing import Any, Awaitable, Callable, Dict, List, MutableMapping, Optional, Tuple

from .manager import Outcome, SessionManager
from .stores import StoreUnavailable
from .wire import (
    ABSOLUTE_REMAINING_HEADER,
    IDLE_REMAINING_HEADER,
    MAX_BODY,
    REASON_HEADER,
    STATE_HEADER,
    _EXPOSE,
    Middleware,
    WireRequest,
    WireResponse,
    decide_request,
    handle_api,
    request_verdict,
    unavailable,
)

__all__ = ["InactivityMiddleware", "SocketClosed", "WS_CLOSE_EXPIRED", "WS_CLOSE_LOCKED", "WS_CLOSE_UNAVAILABLE"]

#: The close code of a websocket whose session is found expired (or unknown) at a message: the
#: application range (4000-4999), as HTTP's 401.
WS_CLOSE_EXPIRED = 4401
#: ... found locked: as HTTP's 403.
WS_CLOSE_LOCKED = 4403
#: The store did not decide in time: RFC 6455's "Try Again Later".
WS_CLOSE_UNAVAILABLE = 1013



class SocketClosed(Exception):
    """Raised by a websocket's ``send`` once the middleware closed the socket (its session
    found locked or expired, or the store unable to decide): the message was not sent.
    ``code`` and ``reason`` are the close's (WS_CLOSE_LOCKED and ``"inactivity.locked
    MANUAL_LOCK"``, ...). Not an OSError, which Starlette would turn into a client's
    disconnect (1006) and lose the code."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"the websocket was closed ({code} {reason}): the message was not sent")
        self.code = code
        self.reason = reason


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# The allowed answer's header names (and the fixed ones' values) as bytes, made once: per
# request only the values are formatted. The same headers, in the same order, as
# wire.outcome_headers (the gateway adds Content-Length).
_STATE_NAME = STATE_HEADER.lower().encode("latin-1")
_REASON_NAME = REASON_HEADER.lower().encode("latin-1")
_IDLE_NAME = IDLE_REMAINING_HEADER.lower().encode("latin-1")
_ABSOLUTE_NAME = ABSOLUTE_REMAINING_HEADER.lower().encode("latin-1")
_EXPOSE_PAIR = (b"access-control-expose-headers", _EXPOSE.encode("latin-1"))
_EMPTY_PAIR = (b"content-length", b"0")
_VALUE_BYTES: dict[str, bytes] = {}


def _value(name: str) -> bytes:
    """A state's or reason's name as bytes (a few dozen names, each encoded once)."""
    found = _VALUE_BYTES.get(name)
    if found is None:
        found = _VALUE_BYTES[name] = name.encode("latin-1")
    return found


def _outcome_header_bytes(outcome: Outcome) -> List[Tuple[bytes, bytes]]:
    """wire.outcome_headers(outcome) as ASGI header bytes, with the names encoded once."""
    encoded = [(_STATE_NAME, _value(outcome.state)), (_REASON_NAME, _value(outcome.reason))]
    idle, absolute = outcome.idle_remaining_ms, outcome.absolute_remaining_ms
    if idle is not None:
        encoded.append((_IDLE_NAME, b"%d" % idle))
    if absolute is not None:
        encoded.append((_ABSOLUTE_NAME, b"%d" % absolute))
    encoded.append(_EXPOSE_PAIR)
    return encoded


class InactivityMiddleware(Middleware[ASGIApp]):
    """See the module's doc. The keyword arguments are WireConfig's (or `config`, a WireConfig),
    handled by wire.Middleware for both middlewares; an unknown one is refused."""

    async def _in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        import anyio

        # The store's own timeouts bound the call; this bounds the wait for a worker thread too.
        with anyio.fail_after(self.manager.timeout + 0.5):
            return await anyio.to_thread.run_sync(functools.partial(fn, *args))

    #: The event loops whose lifespan started and has not shut down: on these (and only these,
    #: whose shutdown closes the loop's asyncio client) the store is awaited on the loop.
    _lifespan_loops: "Optional[weakref.WeakSet[asyncio.AbstractEventLoop]]" = None

    def _on_loop(self) -> bool:
        """Whether this call awaits the store on the running event loop: a store with an asyncio
        client, under asyncio (redis.asyncio's; under trio the worker thread serves), on a loop
        whose lifespan started (its shutdown closes the client; a loop per request would leave
        one client per request open)."""
        if not self.manager.store.asynchronous:
            return False
        loops = self._lifespan_loops
        if not loops:
            return False
        try:
            return asyncio.get_running_loop() in loops
        except RuntimeError:
            return False

    async def _request(self, session_id: Optional[str], machine: bool) -> Outcome:
        """manager.request, awaited on the loop or in a worker thread (_on_loop)."""
        if self._on_loop():
            return await self.manager.arequest(session_id, machine=machine)
        outcome: Outcome = await self._in_thread(functools.partial(self.manager.request, session_id, machine=machine))
        return outcome

    async def _decide_request(self, request: WireRequest) -> Tuple[Optional[Outcome], Optional[WireResponse]]:
        """wire.decide_request, with the store awaited on the loop where it can be."""
        config = self.config
        if not self._on_loop():
            decided: Tuple[Optional[Outcome], Optional[WireResponse]] = await self._in_thread(
                decide_request, self.manager, config, request)
            return decided
        if config.is_exempt(request.path):
            return None, None
        try:
            outcome = await self.manager.arequest(config.session_of(request), machine=config.is_machine(request))
        except StoreUnavailable as e:
            return None, unavailable(config, str(e))
        return request_verdict(outcome)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI lifespan: the app's own, and at its shutdown the store's asyncio client of this
        event loop closed on it (its connections belong to the loop). With no app, answered here."""
        loop = asyncio.get_running_loop()
        loops = self._lifespan_loops
        if loops is None:
            loops = self._lifespan_loops = weakref.WeakSet()

        async def send_closing(message: Message) -> None:
            kind = message["type"]
            if kind == "lifespan.startup.complete":
                loops.add(loop)
            elif kind in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                loops.discard(loop)
                try:
                    await self.manager.store.aclose()
                finally:
                    await send(message)
                return
            await send(message)

        if self.app is not None:
            await self.app(scope, receive, send_closing)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send_closing({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send_closing({"type": "lifespan.shutdown.complete"})
                return

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            if scope["type"] == "lifespan":
                await self._lifespan(scope, receive, send)
            elif self.app is not None:
                await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root) and path[len(root):len(root) + 1] in ("", "/"):
            # Mounted under root_path (Starlette's Mount, uvicorn's --root-path): ASGI gives the
            # full path, and the app routes on what follows root_path; so do the session API's
            # prefix and the exemptions (each relative to the app, as the app's own routes are).
            path = path[len(root):] or "/"
        headers = _headers(scope)
        request = WireRequest(scope.get("method", "GET"), path, headers, b"", scope)

        if scope["type"] == "http" and self.config.is_api(path):
            body = await _read_body(receive)
            request.body = body if body is not None else b"x" * (MAX_BODY + 1)
            try:
                response = await self._in_thread(handle_api, self.manager, self.config, request)
            except TimeoutError:
                response = unavailable(self.config)
            await _send(send, response)
            return

        try:
            outcome, refused = await self._decide_request(request)
        except TimeoutError:
            outcome, refused = None, unavailable(self.config)
        if refused is not None:
            if scope["type"] == "websocket":
                # Closed before it is accepted: the handshake fails (HTTP 403 to the client).
                await send({"type": "websocket.close", "code": 1008})
                return
            await _send(send, refused)
            return
        if scope["type"] == "websocket" and outcome is not None and self.app is not None:
            scope.setdefault("state", {})["inactivity"] = outcome
            receive, send = self._decided_messages(receive, send, self.config.session_of(request),
                                                   self.config.is_machine(request))
            await self.app(scope, receive, send)
            return
        if self.app is None:
            await _send(send, WireResponse(404, [("Content-Type", "text/plain")], b"not found"))
            return
        if outcome is None:  # exempt
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["inactivity"] = outcome
        extra = _outcome_header_bytes(outcome)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


    def _decided_messages(self, receive: Receive, send: Send, session_id: Optional[str],
                          machine: bool) -> Tuple[Receive, Send]:
        """A websocket's channels once accepted: each message the client sends is a request of
        the session, decided as an HTTP request is (the handshake's session and machine
        marking), before the app sees it; each message the app sends (``websocket.send``, a
        reply or a push) is machine traffic of the session, decided before it leaves and never
        extending it. A session found locked or expired closes the socket with a close code
        saying so (WS_CLOSE_LOCKED 4403, WS_CLOSE_EXPIRED 4401, and the refusal's code and
        reason as the close reason; WS_CLOSE_UNAVAILABLE 1013 when the store did not decide in
        time): the app receives websocket.disconnect with that code, a message of the app's
        found refused is not sent, and it and every later ``websocket.send`` raise SocketClosed
        (a later ``websocket.close`` is ignored): nothing reaches a refused session."""
        closed: List[Tuple[int, str]] = []   # the close sent, once
        pushes = _SharedReads(lambda: self._request(session_id, True))

        async def close(code: int, reason: str) -> None:
            if not closed:
                closed.append((code, reason))
                await send({"type": "websocket.close", "code": code, "reason": reason})

        async def decided_receive() -> Message:
            message = await receive()
            if message["type"] != "websocket.receive":
                return message
            if closed:
                # Closed by a refused send while the app waited here: the client's message (sent
                # before it saw the close) must not reach the app; the server keeps queueing them.
                return {"type": "websocket.disconnect", "code": closed[0][0]}
            code, reason = await _verdict(self._request(session_id, machine))
            if code is None and not closed:
                return message
            if code is not None:
                await close(code, reason)
            return {"type": "websocket.disconnect", "code": closed[0][0]}

        async def guarded_send(message: Message) -> None:
            kind = message.get("type")
            if kind == "websocket.send":
                if not closed:
                    code, reason = await pushes.decide()
                    if code is not None:
                        await close(code, reason)
                if closed:
                    raise SocketClosed(*closed[0])
            elif closed:
                if kind == "websocket.close":
                    return   # already closed, with the refusal's code
                raise SocketClosed(*closed[0])
            await send(message)

        return decided_receive, guarded_send


async def _verdict(decision: Awaitable[Any]) -> Tuple[Optional[int], str]:
    """The close code and reason of a decision (None: the message may pass)."""
    try:
        outcome = await decision
    except (StoreUnavailable, TimeoutError):
        return WS_CLOSE_UNAVAILABLE, "inactivity.unavailable"
    if outcome.allowed:
        return None, ""
    return (WS_CLOSE_LOCKED if outcome.state == "LOCKED" else WS_CLOSE_EXPIRED), f"{outcome.code} {outcome.reason}"


class _Batch:
    def __init__(self) -> None:
        import anyio

        self.done = anyio.Event()
        # None until the read answers; still None when the send that started it was cancelled
        # (or its read raised): the sends that joined it then decide again, on a read of their
        # own, rather than closing a socket whose store never answered nor failed.
        self.verdict: Optional[Tuple[Optional[int], str]] = None


class _SharedReads:
    """The decisions of a socket's outgoing messages: each send waits for a read that starts
    after it was handed over (never an earlier read's answer, nothing cached), and the sends
    handed over before a read starts share it (one read per burst, not one per message)."""

    def __init__(self, read: Callable[[], Awaitable[Any]]) -> None:
        import anyio

        self._read = read
        self._one_at_a_time = anyio.Lock()
        self._next: Optional[_Batch] = None   # the read not started yet, which a send may join

    async def decide(self) -> Tuple[Optional[int], str]:
        batch = self._next
        if batch is not None:
            await batch.done.wait()
            if batch.verdict is None:
                return await self.decide()
            return batch.verdict
        import anyio.lowlevel

        batch = self._next = _Batch()
        try:
            await anyio.lowlevel.checkpoint()   # the sends handed over in the same turn join
            async with self._one_at_a_time:
                # From here the read starts: a send handed over from now on waits for the next.
                self._next = None
                verdict = batch.verdict = await _verdict(self._read())
        finally:
            if self._next is batch:
                self._next = None
            batch.done.set()
        return verdict


def _headers(scope: Scope) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for k, v in scope.get("headers", []):
        name = k.decode("latin-1").lower()
        value = v.decode("latin-1")
        # Repeated headers join with ", " (cookies with "; "), as HTTP reads them.
        out[name] = value if name not in out else out[name] + ("; " if name == "cookie" else ", ") + value
    return out


async def _read_body(receive: Receive) -> Optional[bytes]:
    """The request body, or None when it is larger than the API reads."""
    chunks: List[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _send(send: Send, response: WireResponse) -> None:
    headers: List[Tuple[bytes, bytes]] = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
    headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})
