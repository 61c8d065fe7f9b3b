"""``inactivity-server``: the gateway, so that a backend in any language gets enforcement.

An HTTP service on uvicorn that answers nginx's ``auth_request`` and Envoy's HTTP ``ext_authz``
at ``/inactivity/auth`` (any method, any path below it): 204 (allowed, with the Inactivity-*
headers), 401 (expired or unknown), 403 (locked), 503 + Retry-After (the store did not decide in
time). It reads the request headers ``Cookie`` (the session cookie, ``inactivity_session`` by
default) or the header named by ``--session-header``, and ``Inactivity-Machine``; nothing else,
and no body. It also serves the session API under ``/inactivity`` (keepalive, status, report,
unlock, sign-out, sessions). docs/server.md has the nginx configuration the tests run.

    inactivity-server                                   # SQLite file ./inactivity-sessions.sqlite3
    inactivity-server --store redis://127.0.0.1:6379/0 --policy banking.toml --port 8250
"""

from __future__ import annotations

import argparse
import contextvars
import functools
import json
import os
import sys
import time
from typing import Any, List, Optional, Sequence

from ..errors import InactivityError
from .manager import SessionManager
from .stores import StoreUnavailable
from .asgi import _EMPTY_PAIR, _headers, _outcome_header_bytes, _send
from .wire import WireConfig, WireRequest, refusal, unavailable

__all__ = ["AuthGateway", "build_app", "main", "parse_args"]

_ENV = "INACTIVITY_GATEWAY_ARGS"

#: The test-only header of ``--test-trace`` (never sent otherwise; not part of the wire protocol).
TRACE_HEADER = "Inactivity-Test-Trace"
# The steps of the request being answered: a context variable, so that the manager's observer
# finds them on the event loop and in the worker thread alike (anyio copies the context there).
_trace: contextvars.ContextVar[Optional[List[Any]]] = contextvars.ContextVar("inactivity_test_trace", default=None)


def _observe(input: int, arg: int, clock_ms: int, d: Any, count: int, write: bool) -> None:
    steps = _trace.get()
    if steps is None:
        return
    if d is None:
        steps.append([input, arg, clock_ms, None, None, None, None, None, None, count, write])
    else:
        steps.append([input, arg, clock_ms, d.now_ms, d.state.name, d.reason.name, d.idle_remaining_ms,
                      d.absolute_remaining_ms, d.unlock_failures, count, write])


class _Traced:
    """FOR TESTS (``--test-trace``): the gateway's app, each HTTP answer carrying TRACE_HEADER,
    the steps the manager decided it in (one JSON list; the model check's input)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.manager = app.manager
        self.manager.observer = _observe

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        steps: List[Any] = []
        token = _trace.set(steps)

        async def send_traced(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                header = (TRACE_HEADER.lower().encode(), json.dumps(steps, separators=(",", ":")).encode())
                message["headers"] = list(message.get("headers", [])) + [header]
            await send(message)

        try:
            await self.app(scope, receive, send_traced)
        finally:
            _trace.reset(token)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="inactivity-server",
        description="Session decisions for nginx auth_request / Envoy ext_authz, and the session API.",
        allow_abbrev=False,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8250, help="port to listen on (default 8250)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--store", default="sqlite:inactivity-sessions.sqlite3",
                   help="sqlite:PATH (default sqlite:inactivity-sessions.sqlite3), redis://HOST:PORT/DB, "
                        "redis-cluster://HOST:PORT[,HOST:PORT...]")
    p.add_argument("--policy", default="default",
                   help="a preset (default, nist-aal2, nist-aal3, pci-dss, banking, psd2, enterprise) "
                        "or a .json/.toml policy file (the client's own file; its [server] table too)")
    p.add_argument("--precision", help='activity-write coalescing, e.g. "1s" (default: the file\'s, else 1s)')
    p.add_argument("--timeout", type=float, help="seconds a decision may take before 503 (default 1)")
    p.add_argument("--device-limit", type=int, help="live sessions per user (0: none; default 0)")
    p.add_argument("--on-device-limit", choices=("evict-oldest", "refuse"), help="at the limit (default evict-oldest)")
    p.add_argument("--retention", help='how long an ended session is kept to tell its device why (default "1d")')
    p.add_argument("--prefix", default="/inactivity", help="the session API's path (default /inactivity)")
    p.add_argument("--cookie", default="inactivity_session", help="the session cookie (default inactivity_session)")
    p.add_argument("--session-header", help="a request header holding the session id (instead of the cookie)")
    p.add_argument("--retry-after", type=int, default=1, help="Retry-After of a 503, seconds (default 1)")
    p.add_argument("--insecure-cookie", action="store_true", help="set the cookie without Secure (plain-HTTP tests)")
    p.add_argument("--demo-sign-in", action="store_true",
                   help='FOR TESTS AND DEMOS: POST /inactivity/sign-in {"user", "device"} signs anyone in')
    p.add_argument("--demo-credential", help="FOR TESTS AND DEMOS: the credential that unlocks any session")
    p.add_argument("--clock-offset-ms", type=int, default=0,
                   help="FOR TESTS: this server's clock error in ms (the fleet-clock tests)")
    p.add_argument("--test-trace", action="store_true",
                   help="FOR TESTS: every answer of the session API carries the header Inactivity-Test-Trace, "
                        "the steps it was decided in, each with its clock reading (the model check)")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"))
    return p


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The options; an unknown option or a bad value exits with status 2 and says which."""
    return _parser().parse_args(argv)


def build_app(args: argparse.Namespace) -> Any:
    """The gateway's ASGI app for parsed options."""
    from .asgi import InactivityMiddleware

    overrides: dict[str, Any] = {}
    if args.precision is not None:
        overrides["precision"] = args.precision
    if args.timeout is not None:
        overrides["timeout"] = args.timeout
    if args.device_limit is not None:
        overrides["device_limit"] = args.device_limit
    if args.on_device_limit is not None:
        overrides["on_device_limit"] = args.on_device_limit
    if args.retention is not None:
        overrides["retention"] = args.retention
    offset = args.clock_offset_ms
    if offset:
        overrides["clock"] = lambda: time.time_ns() // 1_000_000 + offset
    # The store is opened (a SQLite file created) only once every option was accepted.
    manager = SessionManager.from_policy_file(args.policy, args.store, **overrides)
    demo_credential = args.demo_credential

    def sign_in(request: WireRequest) -> Optional[tuple[str, str]]:
        try:
            body = json.loads(request.body or b"{}")
        except (ValueError, RecursionError):
            return None
        if not isinstance(body, dict):
            return None
        user, device = body.get("user"), body.get("device", "")
        return (user, device) if isinstance(user, str) and isinstance(device, str) else None

    config = WireConfig(
        cookie=args.cookie if args.session_header is None else None,
        header=args.session_header,
        prefix=args.prefix,
        auth_endpoint=True,
        retry_after=args.retry_after,
        cookie_secure=not args.insecure_cookie,
        sign_in=sign_in if args.demo_sign_in else None,
        verify_credential=(lambda user, credential: credential == demo_credential) if demo_credential else None,
    )
    app = AuthGateway(InactivityMiddleware(None, manager, config=config))
    return _Traced(app) if args.test_trace else app


class AuthGateway:
    """The gateway's ASGI app: ``{prefix}/auth`` (nginx auth_request, Envoy ext_authz) answered
    by a bare handler, every other path by the session API's middleware.

    The auth path is the one every request of the site pays, so it has no routing, no
    middleware stack and, on a local store (SQLite), no thread hop: the read and the core's
    decision run on the event loop (a WAL read waits for no writer), and only a request the
    core says to write (at most once per coalescing precision per session) goes to a worker
    thread, where it is read, decided and written as always. On a network store with an asyncio
    client (Redis) the whole decision is awaited on the event loop (``SessionManager.arequest``:
    no thread hop, one timer for its deadline); another store's goes to a worker thread. The
    answers are those of the session API's own auth endpoint (wire.py): 204 (200 to HEAD) with
    the Inactivity-* headers, 401/403 with the refusal's body, 503 + Retry-After."""

    def __init__(self, api: Any) -> None:
        from .stores import SQLiteStore

        self.api = api
        self.manager: SessionManager = api.manager
        self.config: WireConfig = api.config
        self._auth = self.config.prefix + "/auth"
        self._inline = isinstance(self.manager.store, SQLiteStore)
        self._awaited = not self._inline and self.manager.store.asynchronous
        # The only request headers the auth path reads, when no callable of the app's reads the
        # others (the gateway's own config has none): the rest are not decoded at all.
        self._wanted: Optional[set[bytes]] = None
        if self.config.session_id is None and self.config.machine is None:
            self._wanted = {b"cookie", b"inactivity-machine"}
            if self.config.header is not None:
                self._wanted.add(self.config.header.lower().encode("latin-1"))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path == self._auth or path.startswith(self._auth + "/")):
            await self.api(scope, receive, send)
            return
        wanted = self._wanted
        if wanted is None:
            headers = _headers(scope)
        else:
            headers = {}
            for k, v in scope["headers"]:
                name = k.lower()
                if name in wanted:
                    key, value = name.decode("latin-1"), v.decode("latin-1")
                    # Repeated headers join as HTTP reads them (cookies with "; "), as asgi.py does.
                    headers[key] = value if key not in headers else headers[key] + ("; " if key == "cookie" else ", ") + value
        method = scope.get("method", "GET")
        request = WireRequest(method, path, headers, b"", scope)
        config, manager = self.config, self.manager
        session_id, machine = config.session_of(request), config.is_machine(request)
        try:
            if self._awaited:
                outcome = await manager.arequest(session_id, machine=machine)
            else:
                unwritten = manager.request_unwritten(session_id, machine=machine) if self._inline else None
                outcome = unwritten if unwritten is not None else await self.api._in_thread(
                    functools.partial(manager.request, session_id, machine=machine))
        except StoreUnavailable as e:
            await _send(send, unavailable(config, str(e)))
            return
        except TimeoutError:
            await _send(send, unavailable(config))
            return
        if not outcome.allowed:
            await _send(send, refusal(outcome))
            return
        encoded = _outcome_header_bytes(outcome)
        encoded.append(_EMPTY_PAIR)
        await send({"type": "http.response.start", "status": 200 if method.upper() == "HEAD" else 204, "headers": encoded})
        await send({"type": "http.response.body", "body": b""})

    async def _lifespan(self, receive: Any, send: Any) -> None:
        """ASGI lifespan: at shutdown, the store's asyncio client of this event loop is closed
        on it (its connections belong to the loop)."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.manager.store.aclose()
                finally:
                    await send({"type": "lifespan.shutdown.complete"})
                return


def app_from_environment() -> Any:
    """For uvicorn's worker processes (``--workers``): the options travel in the environment."""
    return build_app(parse_args(json.loads(os.environ[_ENV])))


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.workers < 1:
        _parser().error(f"--workers ({args.workers}) must be at least 1")
    if not 0 < args.port < 65536:
        _parser().error(f"--port ({args.port}) must be in 1..65535")
    try:
        app = build_app(args)  # also checks the policy and the store's address before serving
    except (InactivityError, ValueError, TypeError) as e:
        print(f"inactivity-server: {e}", file=sys.stderr)
        return 2
    import uvicorn

    if args.workers == 1:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    else:
        app.manager.close()
        os.environ[_ENV] = json.dumps(argv)
        uvicorn.run("inactivity.server.gateway:app_from_environment", factory=True, host=args.host, port=args.port,
                    workers=args.workers, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
