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

The store is called in a worker thread with the manager's timeout: a store that does not answer
in time is 503 + Retry-After, never a pass.
"""

from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, Dict, List, MutableMapping, Optional, Sequence, Tuple, Union

from .manager import SessionManager
from .wire import (
    DEFAULT_COOKIE,
    MAX_BODY,
    MachineTest,
    SessionIdSource,
    WireConfig,
    WireRequest,
    WireResponse,
    config_of,
    decide_request,
    handle_api,
    outcome_headers,
    unavailable,
)

__all__ = ["InactivityMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class InactivityMiddleware:
    """See the module's doc. The keyword arguments are WireConfig's (or `config`, a WireConfig)."""

    def __init__(
        self,
        app: Optional[ASGIApp],
        manager: SessionManager,
        *,
        config: Optional[WireConfig] = None,
        cookie: Optional[str] = DEFAULT_COOKIE,
        header: Optional[str] = None,
        session_id: Optional[SessionIdSource] = None,
        machine: Optional[MachineTest] = None,
        prefix: str = "/inactivity",
        exempt: Union[Sequence[str], Callable[[str], bool]] = (),
        verify_credential: Optional[Callable[[str, str], bool]] = None,
        sign_in: Optional[Callable[[WireRequest], Optional[Tuple[str, str]]]] = None,
        auth_endpoint: bool = False,
        retry_after: int = 1,
        cookie_secure: bool = True,
        cookie_samesite: str = "Lax",
    ) -> None:
        self.app = app
        self.manager = manager
        options = dict(cookie=cookie, header=header, session_id=session_id, machine=machine, prefix=prefix, exempt=exempt,
                       verify_credential=verify_credential, sign_in=sign_in, auth_endpoint=auth_endpoint,
                       retry_after=retry_after, cookie_secure=cookie_secure, cookie_samesite=cookie_samesite)
        self.config = config_of(config, options)

    async def _in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        import anyio

        # The store's own timeouts bound the call; this bounds the wait for a worker thread too.
        with anyio.fail_after(self.manager.timeout + 0.5):
            return await anyio.to_thread.run_sync(functools.partial(fn, *args))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            if self.app is not None:
                await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
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
            outcome, refused = await self._in_thread(decide_request, self.manager, self.config, request)
        except TimeoutError:
            outcome, refused = None, unavailable(self.config)
        if refused is not None:
            if scope["type"] == "websocket":
                # Closed before it is accepted: the handshake fails (HTTP 403 to the client).
                await send({"type": "websocket.close", "code": 1008})
                return
            await _send(send, refused)
            return
        if self.app is None:
            await _send(send, WireResponse(404, [("Content-Type", "text/plain")], b"not found"))
            return
        if outcome is None:  # exempt
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["inactivity"] = outcome
        extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in outcome_headers(outcome)]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


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
