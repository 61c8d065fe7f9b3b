#!/usr/bin/env python3
"""The web demo's server: both ends of one session.

    python3 examples/web/server.py            # then open the URL it prints

Serves the demo page (examples/web/) and the JavaScript binding it imports (bindings/js/), and
mounts the session API of the ``inactivity.server`` package under /inactivity (keepalive,
status, report, unlock, sign-in, sign-out, sessions), with a small demo API of its own:

- ``GET /api/config``: the policy both ends run (the page builds its engine's policy from it);
- ``GET /api/data``: a demo data endpoint, decided by the package like any protected route (a
  request of the user's counts as activity; with ``Inactivity-Machine: 1`` it is machine traffic,
  which never extends the session);
- ``GET /api/pings``: the keepalive pings this server received for the caller's session (the
  page and the browser suite count them here, at the server's end).

It uses the checkout's Python binding (bindings/python/src, with the libinactivity.so that
``swift build`` leaves in .build) and needs starlette and uvicorn (``inactivity[server]``). Bound
to 127.0.0.1 only: a demo, not a deployment. Sessions live in a SQLite file in a temporary
directory, gone when the server stops.
"""

from __future__ import annotations

import argparse
import collections
import json
import socket
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# This checkout's binding, not an installed one: the page and the server are one version.
sys.path.insert(0, str(REPO / "bindings" / "python" / "src"))

from inactivity import Policy  # noqa: E402
from inactivity.enums import Preset  # noqa: E402

STATEMENT = "Statement of account 0042: opening balance 1,204.50; 3 transactions; closing balance 998.10."


def parse_ms(text: str) -> int:
    """'30s', '500ms', '2m' or a number of ms."""
    text = text.strip()
    for suffix, factor in (("ms", 1), ("s", 1000), ("m", 60_000)):
        if text.endswith(suffix) and text[: -len(suffix)].replace(".", "", 1).isdigit():
            return int(float(text[: -len(suffix)]) * factor)
    if text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a duration (30s, 500ms, 2m or ms)")


def demo_policy(args: argparse.Namespace) -> Policy:
    """The preset with the demo's short timings: the same fields the page sets over the same preset."""
    return Policy.preset(Preset[args.preset]).replace(
        idle_timeout=timedelta(milliseconds=args.idle),
        warning=timedelta(milliseconds=args.warning),
        background_timeout=timedelta(milliseconds=args.background),
        keepalive_interval=timedelta(milliseconds=args.keepalive),
    )


class PingLog:
    """The keepalives received, per session cookie (bounded): what the server's end saw."""

    def __init__(self, cookie: str) -> None:
        self.cookie = cookie
        self.lock = threading.Lock()
        self.by_session: dict[str, collections.deque] = collections.defaultdict(lambda: collections.deque(maxlen=500))

    def middleware(self, app):  # an ASGI middleware around the whole app
        async def wrapped(scope, receive, send):
            if scope["type"] != "http" or scope["path"] != "/inactivity/keepalive" or scope["method"] != "POST":
                return await app(scope, receive, send)
            session = self.session_of(scope)
            at = time.time()

            async def send_and_log(message):
                if message["type"] == "http.response.start" and session:
                    with self.lock:
                        self.by_session[session].append({"at_ms": int(at * 1000), "status": message["status"]})
                await send(message)

            return await app(scope, receive, send_and_log)

        return wrapped

    def session_of(self, scope) -> str | None:
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                for part in value.decode("latin-1").split(";"):
                    key, _, val = part.strip().partition("=")
                    if key == self.cookie:
                        return val
        return None

    def for_session(self, session: str | None) -> list:
        with self.lock:
            return list(self.by_session.get(session or "", ()))


def build_app(args: argparse.Namespace, store_dir: str):
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, RedirectResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from inactivity.server import DEFAULT_COOKIE, InactivityMiddleware, SessionManager

    manager = SessionManager(f"sqlite:{store_dir}/sessions.sqlite3", demo_policy(args))
    pings = PingLog(DEFAULT_COOKIE)

    def sign_in(request):
        # The demo's sign-in (POST /inactivity/sign-in {"user", "device"}): anyone, no password.
        # A real app signs its users in itself, after checking them (SessionManager.sign_in).
        try:
            body = json.loads(request.body or b"{}")
        except ValueError:
            return None
        user = body.get("user") if isinstance(body, dict) else None
        if not isinstance(user, str) or not 0 < len(user) <= 64:
            return None
        device = body.get("device")
        return user, (device if isinstance(device, str) and device else "a browser")[:200]

    async def config(request: Request):
        return JSONResponse({
            "preset": args.preset,
            "timings": {"idleTimeoutMs": args.idle, "warningMs": args.warning,
                        "backgroundTimeoutMs": args.background, "keepaliveIntervalMs": args.keepalive},
        })

    async def data(request: Request):
        # Reached only when the middleware allowed it (a refusal is its 401/403 with the reason).
        outcome = request.state.inactivity
        return JSONResponse({"statement": STATEMENT, "state": outcome.state})

    async def ping_log(request: Request):
        return JSONResponse({"pings": pings.for_session(request.cookies.get(DEFAULT_COOKIE))})

    app = Starlette(routes=[
        Route("/", lambda request: RedirectResponse("/examples/web/")),
        Route("/api/config", config),
        Route("/api/data", data),
        Route("/api/pings", ping_log),
        Mount("/examples/web", app=StaticFiles(directory=REPO / "examples" / "web", html=True)),
        Mount("/bindings/js", app=StaticFiles(directory=REPO / "bindings" / "js")),
    ])
    guarded = InactivityMiddleware(
        app, manager=manager,
        # Only the data endpoint is the app's protected route; the page, the binding and the
        # demo's own endpoints are served to anyone. /inactivity/... is the middleware's.
        exempt=lambda path: path != "/api/data",
        verify_credential=lambda user, credential: bool(credential),   # the demo accepts any
        sign_in=sign_in,
        cookie_secure=False,   # plain http on 127.0.0.1
    )
    return pings.middleware(guarded)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="The web demo with its server: both ends of a session.")
    parser.add_argument("--port", type=int, default=8000, help="0: a free port (the URL is printed)")
    parser.add_argument("--preset", default="BANKING", choices=[p.name for p in Preset if p.name])
    parser.add_argument("--idle", type=parse_ms, default=30_000, help="idle timeout (default 30s)")
    parser.add_argument("--warning", type=parse_ms, default=20_000, help="warning before it (default 20s)")
    parser.add_argument("--background", type=parse_ms, default=10_000, help="background timeout (default 10s)")
    parser.add_argument("--keepalive", type=parse_ms, default=5_000, help="keepalive interval (default 5s)")
    args = parser.parse_args(argv)
    demo_policy(args).validate()   # a bad combination is the library's error, before serving
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as error:
        print(f"examples/web/server.py needs starlette and uvicorn (the inactivity[server] extra's): {error}.\n"
              "  python3 -m venv .venv && . .venv/bin/activate && pip install starlette==1.10.0 uvicorn==0.55.0",
              file=sys.stderr)
        return 2

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    print(f"serving the demo at http://127.0.0.1:{port}/examples/web/", flush=True)
    with tempfile.TemporaryDirectory(prefix="inactivity-demo-") as store_dir:
        config = uvicorn.Config(build_app(args, store_dir), log_level="warning", access_log=False)
        uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
