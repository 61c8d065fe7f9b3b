"""WSGI middleware (Flask, Django, any WSGI app): every request decided on the server.

    from inactivity.server import InactivityWSGIMiddleware, SessionManager

    manager = SessionManager("redis://127.0.0.1:6379/0", "banking")
    app.wsgi_app = InactivityWSGIMiddleware(app.wsgi_app, manager, exempt=("/login",))   # Flask
    application = InactivityWSGIMiddleware(get_wsgi_application(), manager)              # Django

A refused request gets the 401/403 answer and never reaches the app; one that may proceed
reaches it with ``environ["inactivity.outcome"]`` (the user, the session id, the state) and
leaves it with the Inactivity-* headers. The session API (``/inactivity/...``) is answered here.
The store's timeouts bound every call (Redis: connect and read timeouts; SQLite: the busy
timeout): a store that does not answer in time is 503 + Retry-After, never a pass.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .manager import SessionManager
from .wire import (
    MAX_BODY,
    Middleware,
    WireRequest,
    WireResponse,
    decide_request,
    handle_api,
    outcome_headers,
)

__all__ = ["InactivityWSGIMiddleware"]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[Dict[str, Any], StartResponse], Iterable[bytes]]


class InactivityWSGIMiddleware(Middleware[WSGIApp]):
    """See the module's doc. The keyword arguments are WireConfig's (or `config`, a WireConfig),
    handled by wire.Middleware for both middlewares; an unknown one is refused."""

    def __call__(self, environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        request = WireRequest(environ.get("REQUEST_METHOD", "GET"), path, _headers(environ), b"", environ)
        if self.config.is_api(path):
            request.body = _read_body(environ)
            return _send(start_response, handle_api(self.manager, self.config, request))
        outcome, refused = decide_request(self.manager, self.config, request)
        if refused is not None:
            return _send(start_response, refused)
        if self.app is None:
            return _send(start_response, WireResponse(404, [("Content-Type", "text/plain")], b"not found"))
        if outcome is None:  # exempt
            return self.app(environ, start_response)
        environ["inactivity.outcome"] = outcome
        extra = outcome_headers(outcome)

        def start_with_headers(status: str, headers: List[Tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, list(headers) + extra, exc_info) if exc_info else start_response(status, list(headers) + extra)

        return self.app(environ, start_with_headers)


def _headers(environ: Dict[str, Any]) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            out[key[5:].replace("_", "-").lower()] = value
    if "CONTENT_TYPE" in environ:
        out["content-type"] = environ["CONTENT_TYPE"]
    return out


def _read_body(environ: Dict[str, Any]) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length <= 0:
        return b""
    if length > MAX_BODY:
        return b"x" * (MAX_BODY + 1)  # refused by the API as too large, unread
    stream = environ.get("wsgi.input")
    return stream.read(length) if stream is not None else b""


def _send(start_response: StartResponse, response: WireResponse) -> List[bytes]:
    reason = HTTPStatus(response.status).phrase
    headers = list(response.headers) + [("Content-Length", str(len(response.body)))]
    start_response(f"{response.status} {reason}", headers)
    return [response.body]
