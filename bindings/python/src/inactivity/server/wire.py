"""The wire protocol, framework-free: what a request carries and what each answer looks like.

The ASGI and WSGI middlewares and the gateway translate their framework's request into a
``WireRequest`` and send back the ``WireResponse`` made here, so the three speak exactly one
protocol (docs/server.md, "The wire"):

- The session id: the cookie ``inactivity_session`` (or a header, or the app's callable).
- Machine traffic: the request header ``Inactivity-Machine: 1`` (or the app's callable).
- Every decided answer carries ``Inactivity-State``, ``Inactivity-Reason``,
  ``Inactivity-Idle-Remaining-Ms`` and ``Inactivity-Absolute-Remaining-Ms`` (the last two only
  when there is such a deadline), exposed to CORS.
- Refusals: 401 (EXPIRED, unknown or missing id) and 403 (LOCKED), with the JSON body
  ``{"state", "reason", "code"}``; 503 + Retry-After when the store cannot decide in time.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import logging
import threading
import time
from typing import Any, Callable, Dict, Generic, List, Optional, Sequence, Tuple, TypeVar, Union

from ..enums import Status
from ..errors import InactivityError, InvalidArgumentError, InvalidStateError
from .manager import DeviceLimitError, Outcome, SessionManager
from .stores import StoreUnavailable

__all__ = [
    "ABSOLUTE_REMAINING_HEADER",
    "DEFAULT_COOKIE",
    "EXPOSED_HEADERS",
    "IDLE_REMAINING_HEADER",
    "MACHINE_HEADER",
    "REASON_HEADER",
    "STATE_HEADER",
    "WireConfig",
    "WireRequest",
    "WireResponse",
]

STATE_HEADER = "Inactivity-State"
REASON_HEADER = "Inactivity-Reason"
IDLE_REMAINING_HEADER = "Inactivity-Idle-Remaining-Ms"
ABSOLUTE_REMAINING_HEADER = "Inactivity-Absolute-Remaining-Ms"
MACHINE_HEADER = "Inactivity-Machine"
DEFAULT_COOKIE = "inactivity_session"
#: The headers a browser page may read across origins (Access-Control-Expose-Headers).
EXPOSED_HEADERS = (STATE_HEADER, REASON_HEADER, IDLE_REMAINING_HEADER, ABSOLUTE_REMAINING_HEADER, "Retry-After")
_EXPOSE = ", ".join(EXPOSED_HEADERS)
_log = logging.getLogger("inactivity.server")
#: The largest request body the session API reads.
MAX_BODY = 16 * 1024


@dataclasses.dataclass
class WireRequest:
    """A request as the protocol sees it; `headers` has lower-case names."""

    method: str
    path: str
    headers: Dict[str, str]
    body: bytes = b""
    #: the framework's own request object (scope or environ), for the app's callables
    raw: Any = None

    def cookie(self, name: str) -> Optional[str]:
        """The value of cookie `name` (the first one). Parsed by hand, pair by pair: the app's
        other cookies may hold what http.cookies refuses (quotes, commas, JSON), and one odd
        neighbour must not hide the session's cookie."""
        text = self.headers.get("cookie")
        if not text:
            return None
        for pair in text.split(";"):
            key, sep, value = pair.strip().partition("=")
            if sep and key == name:
                return value.strip()
        return None


@dataclasses.dataclass
class WireResponse:
    status: int
    headers: List[Tuple[str, str]]
    body: bytes = b""


SessionIdSource = Callable[[WireRequest], Optional[str]]
MachineTest = Callable[[WireRequest], bool]


@dataclasses.dataclass
class WireConfig:
    """How an app's requests carry the session, and the session API's options.

    `cookie`: the cookie holding the session id (None: no cookie); `header`: a request header
    holding it instead (e.g. ``"Inactivity-Session"``); `session_id`: the app's callable, which
    takes precedence over both. `machine`: the app's callable marking machine traffic (polls,
    silent refreshes); the header ``Inactivity-Machine: 1`` marks it too. `prefix`: where the
    session API lives. `exempt`: the paths no decision guards (the sign-in page, its static
    files): each one an exact path, or a prefix when it ends with ``/`` (``"/static/"``; ``"/"``
    is the root page alone, never a prefix of every path); or a callable on the path. `verify_credential(user, credential) -> bool`:
    the app's server-side check for ``POST {prefix}/unlock`` (no callable: unlock is 501).
    `sign_in(request) -> (user, device) or None`: for ``POST {prefix}/sign-in`` (no callable: 404;
    for tests and demos, an app signs its users in itself with SessionManager.sign_in).
    `auth_endpoint`: answer ``{prefix}/auth`` (nginx auth_request, Envoy ext_authz)."""

    cookie: Optional[str] = DEFAULT_COOKIE
    header: Optional[str] = None
    session_id: Optional[SessionIdSource] = None
    machine: Optional[MachineTest] = None
    prefix: str = "/inactivity"
    exempt: Union[Sequence[str], Callable[[str], bool]] = ()
    verify_credential: Optional[Callable[[str, str], bool]] = None
    sign_in: Optional[Callable[[WireRequest], Optional[Tuple[str, str]]]] = None
    auth_endpoint: bool = False
    retry_after: int = 1
    cookie_secure: bool = True
    cookie_samesite: str = "Lax"

    def __post_init__(self) -> None:
        if not self.prefix.startswith("/") or self.prefix.endswith("/"):
            raise ValueError(f"prefix ({self.prefix!r}) must start with / and not end with /")
        if self.cookie is None and self.header is None and self.session_id is None:
            raise ValueError("the session id needs a source: cookie, header or session_id")
        if self.cookie_samesite not in ("Strict", "Lax", "None"):
            raise ValueError(f"cookie_samesite ({self.cookie_samesite!r}) must be Strict, Lax or None")
        if not self.cookie_secure and (self.cookie_samesite == "None" or (self.cookie or "").startswith(("__Host-", "__Secure-"))):
            # Browsers drop such a cookie (SameSite=None, and the __Host-/__Secure- prefixes,
            # need Secure): the session would be signed in and then never sent.
            raise ValueError(f"cookie_secure=False cannot go with SameSite=None or a __Host-/__Secure- cookie "
                             f"({self.cookie!r}): browsers drop such a cookie without Secure")
        if isinstance(self.exempt, (str, bytes)):
            # A string is a sequence of one-character paths, "/" among them: every path exempt.
            raise ValueError(f"exempt ({self.exempt!r}) must be a sequence of paths, e.g. ({self.exempt!r},), or a callable")
        for name in ("session_id", "machine", "exempt", "verify_credential", "sign_in"):
            if _is_async(getattr(self, name)):
                raise ValueError(f"{name} must be a plain callable, not an async one: it is called, never awaited")
        if isinstance(self.retry_after, bool) or not isinstance(self.retry_after, int) or self.retry_after < 1:
            raise ValueError(f"retry_after ({self.retry_after!r}) must be an int >= 1 (seconds)")

    # -- reading a request -----------------------------------------------------------------------

    def session_of(self, request: WireRequest) -> Optional[str]:
        if self.session_id is not None:
            return self.session_id(request)
        if self.header is not None:
            value = request.headers.get(self.header.lower())
            if value is not None:
                return value
        return request.cookie(self.cookie) if self.cookie is not None else None

    def is_machine(self, request: WireRequest) -> bool:
        if request.headers.get(MACHINE_HEADER.lower()) == "1":
            return True
        return bool(self.machine(request)) if self.machine is not None else False

    def is_exempt(self, path: str) -> bool:
        if ("/." in path or "\\" in path) and _dot_segments(path):
            # "/static/../secret.html" (sent as /static/%2e%2e/secret.html) is under the exempt
            # "/static/", and an app that resolves it (StaticFiles does) serves /secret.html.
            return False
        if callable(self.exempt):
            return bool(_answer(self.exempt(path), "exempt"))
        # "/" is the root page alone: as a prefix it would exempt every path.
        return any(path == p or (p.endswith("/") and p != "/" and path.startswith(p)) for p in self.exempt)

    def is_api(self, path: str) -> bool:
        return path == self.prefix or path.startswith(self.prefix + "/")


def _dot_segments(path: str) -> bool:
    """Whether `path` has a "." or ".." segment, or a backslash (a separator where the app may
    run on Windows): a path that an app may resolve to another one is never exempt."""
    return "\\" in path or any(segment in (".", "..") for segment in path.split("/"))


def _is_async(fn: Any) -> bool:
    return callable(fn) and (inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)))


_OPTIONS = {f.name: f.default for f in dataclasses.fields(WireConfig)}
App = TypeVar("App")


def config_of(config: Optional[WireConfig], options: Dict[str, Any]) -> WireConfig:
    """`config`, or a WireConfig of `options` (WireConfig's fields); `config` and options other
    than their defaults at once are an error (which one wins?)."""
    if config is None:
        return WireConfig(**options)
    if not isinstance(config, WireConfig):
        raise TypeError(f"config must be a WireConfig, not {type(config).__name__}")
    given = [name for name, value in options.items() if value != _OPTIONS[name]]
    if given:
        raise TypeError(f"give either config or its options, not both (also given: {', '.join(given)})")
    return config


class Middleware(Generic[App]):
    """The one option handling of both middlewares (ASGI and WSGI): the app, the manager, and
    WireConfig's fields as keyword arguments (or `config`, a WireConfig); an unknown keyword is
    refused by Python (TypeError naming it)."""

    def __init__(
        self,
        app: Optional[App],
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
        self.config = config_of(config, dict(
            cookie=cookie, header=header, session_id=session_id, machine=machine, prefix=prefix, exempt=exempt,
            verify_credential=verify_credential, sign_in=sign_in, auth_endpoint=auth_endpoint, retry_after=retry_after,
            cookie_secure=cookie_secure, cookie_samesite=cookie_samesite))


# ----- answers ---------------------------------------------------------------------------------


def outcome_headers(outcome: Outcome) -> List[Tuple[str, str]]:
    headers = [(STATE_HEADER, outcome.state), (REASON_HEADER, outcome.reason)]
    if outcome.idle_remaining_ms is not None:
        headers.append((IDLE_REMAINING_HEADER, str(outcome.idle_remaining_ms)))
    if outcome.absolute_remaining_ms is not None:
        headers.append((ABSOLUTE_REMAINING_HEADER, str(outcome.absolute_remaining_ms)))
    headers.append(("Access-Control-Expose-Headers", _EXPOSE))
    return headers


def _json(status: int, value: Any, headers: Optional[List[Tuple[str, str]]] = None) -> WireResponse:
    body = json.dumps(value, separators=(",", ":")).encode()
    return WireResponse(status, (headers or []) + [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body)


def refusal(outcome: Outcome) -> WireResponse:
    """401 (EXPIRED or unknown) or 403 (LOCKED), with the state, reason and code."""
    return _json(outcome.http_status, {"state": outcome.state, "reason": outcome.reason, "code": outcome.code}, outcome_headers(outcome))


#: At most one log line per this many seconds for a store that does not decide: in an outage every
#: request is a 503, and a line per request would flood the log (and block a process whose
#: standard error nobody drains).
_UNAVAILABLE_LOG_INTERVAL_S = 10.0
_unavailable_log = {"at": float("-inf"), "more": 0}
_unavailable_lock = threading.Lock()


def unavailable(config: WireConfig, detail: str = "") -> WireResponse:
    """503: the store did not decide in time. Never an allow. `detail` (the store's error: its
    host and port, its file's path, its configuration) is the operator's: it goes to the log
    (logger ``inactivity.server``; the first, then at most one line per 10 s with the number of
    others), never to the client, which may be anyone."""
    if detail:
        now = time.monotonic()
        with _unavailable_lock:
            state = _unavailable_log
            due = now - state["at"] >= _UNAVAILABLE_LOG_INTERVAL_S
            more = int(state["more"])
            if due:
                state["at"], state["more"] = now, 0
            else:
                state["more"] = more + 1
        if due:
            _log.warning("the session store did not decide: %s%s", detail,
                         f" (and {more} more since the last line)" if more else "")
    return _json(
        503,
        {"code": "inactivity.unavailable", "error": "the session store did not answer in time"},
        [("Retry-After", str(config.retry_after)), ("Access-Control-Expose-Headers", _EXPOSE)],
    )


def _error(status: int, message: str, code: str = "inactivity.bad_request") -> WireResponse:
    return _json(status, {"code": code, "error": message})


def _outcome_response(outcome: Outcome, ok_status: int = 204, body: Any = None) -> WireResponse:
    if not outcome.allowed:
        return refusal(outcome)
    if body is None:
        return WireResponse(ok_status, outcome_headers(outcome))
    return _json(ok_status, body, outcome_headers(outcome))


def _not_locked(outcome: Outcome) -> WireResponse:
    """409: an unlock that found the session running and did not verify the credential."""
    return _json(409, {"state": outcome.state, "reason": outcome.reason, "code": "inactivity.not_locked"},
                 outcome_headers(outcome))


def _answer(value: Any, what: str) -> Any:
    """The answer of the app's callable `what`. An awaitable is refused (RuntimeError, a 500:
    the app's error, not the client's): an async callable's coroutine is never awaited here,
    and as a truth value it is always true (an unlock for any credential, every path exempt)."""
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()   # never run: no "coroutine was never awaited" warning
        raise RuntimeError(f"{what} must be a plain callable: it returned an awaitable, which is not awaited here")
    return value


def _body(request: WireRequest) -> Dict[str, Any]:
    if not request.body:
        return {}
    try:
        value = json.loads(request.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):   # RecursionError: "[[[[..." nested deeper than Python's stack
        raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, "the body must be a JSON object") from None
    if not isinstance(value, dict):
        raise InvalidArgumentError(Status.E_INVALID_ARGUMENT, "the body must be a JSON object")
    return value


def _cookie(config: WireConfig, value: str, max_age: Optional[int] = None) -> Tuple[str, str]:
    assert config.cookie is not None
    parts = [f"{config.cookie}={value}", "Path=/", "HttpOnly", f"SameSite={config.cookie_samesite}"]
    if config.cookie_secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return ("Set-Cookie", "; ".join(parts))


# ----- the decision of an app's request --------------------------------------------------------


def decide_request(manager: SessionManager, config: WireConfig, request: WireRequest) -> Tuple[Optional[Outcome], Optional[WireResponse]]:
    """For a request of the app: (outcome, None) when it may proceed (add the outcome's headers
    to the app's answer), (None, response) when refused or undecided, (None, None) when exempt."""
    if config.is_exempt(request.path):
        return None, None
    try:
        outcome = manager.request(config.session_of(request), machine=config.is_machine(request))
    except StoreUnavailable as e:
        return None, unavailable(config, str(e))
    return request_verdict(outcome)


def request_verdict(outcome: Outcome) -> Tuple[Optional[Outcome], Optional[WireResponse]]:
    """decide_request's answer for a decided request: (outcome, None) when it may proceed, else
    (None, its refusal)."""
    if not outcome.allowed:
        return None, refusal(outcome)
    return outcome, None


# ----- the session API -------------------------------------------------------------------------


def handle_api(manager: SessionManager, config: WireConfig, request: WireRequest) -> WireResponse:
    """Answers a request under the API prefix (see docs/server.md for each endpoint)."""
    try:
        return _route(manager, config, request)
    except StoreUnavailable as e:
        return unavailable(config, str(e))
    except DeviceLimitError as e:
        return _error(409, str(e), "inactivity.device_limit")
    except InvalidStateError as e:
        return _error(409, str(e), "inactivity.invalid_state")
    except (InvalidArgumentError, TypeError) as e:
        return _error(400, str(e))
    except InactivityError as e:
        return _error(400, str(e))


def _route(manager: SessionManager, config: WireConfig, request: WireRequest) -> WireResponse:
    path = request.path[len(config.prefix):]
    method = request.method.upper()
    if len(request.body) > MAX_BODY:
        return _error(413, f"the body must be at most {MAX_BODY} bytes", "inactivity.too_large")
    if request.body and request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/json":
        # A page of another site can send a form (text/plain, urlencoded, multipart) with the
        # user's cookie where SameSite allows it, without asking first; application/json it can
        # send only after a CORS preflight that the API never grants: a keepalive posted by a
        # form could keep an idle user's session alive. Bodies are JSON, and only JSON is read.
        return _error(415, "a request with a body must send it as Content-Type: application/json", "inactivity.unsupported_media_type")

    if config.auth_endpoint and (path == "/auth" or path.startswith("/auth/")):
        # nginx auth_request and Envoy ext_authz: any method, the original request's headers.
        # The gateway's subrequest is always decided: exemptions are the proxy's to configure.
        try:
            outcome = manager.request(config.session_of(request), machine=config.is_machine(request))
        except StoreUnavailable as e:
            return unavailable(config, str(e))
        refused = None if outcome.allowed else refusal(outcome)
        if refused is not None:
            return refused
        assert outcome is not None
        return WireResponse(204 if method != "HEAD" else 200, outcome_headers(outcome))

    def expect(*methods: str) -> Optional[WireResponse]:
        if method in methods:
            return None
        return WireResponse(405, [("Allow", ", ".join(methods))], b"")

    session_id = config.session_of(request)

    if path == "/sign-in":
        if config.sign_in is None:
            return _error(404, "sign-in is the app's (SessionManager.sign_in)", "inactivity.not_found")
        wrong = expect("POST")
        if wrong:
            return wrong
        who = config.sign_in(request)
        if who is None:
            return _error(401, "sign-in refused", "inactivity.sign_in_refused")
        user, device = who
        signed = manager.sign_in(user, device)
        headers = outcome_headers(signed.outcome)
        if config.cookie is not None:
            headers.append(_cookie(config, signed.session_id))
        return _json(200, {"session_id": signed.session_id, "state": signed.outcome.state, "reason": signed.outcome.reason}, headers)

    if path == "/keepalive":
        wrong = expect("POST")
        if wrong:
            return wrong
        age = _body(request).get("activity_age_ms")
        return _outcome_response(manager.keepalive(session_id, age))  # type: ignore[arg-type]

    if path == "/status":
        wrong = expect("GET", "HEAD")
        if wrong:
            return wrong
        o = manager.status(session_id)
        return _outcome_response(o, 200, {
            "state": o.state, "reason": o.reason,
            "idle_remaining_ms": o.idle_remaining_ms, "absolute_remaining_ms": o.absolute_remaining_ms,
        })

    if path == "/report":
        wrong = expect("POST")
        if wrong:
            return wrong
        body = _body(request)
        state, reason = body.get("state"), body.get("reason")
        if not isinstance(state, str) or not isinstance(reason, str):
            return _error(400, 'the body must be {"state": "LOCKED" | "EXPIRED", "reason": "<reason name>"}')
        o = manager.report(session_id, state, reason)
        # Applied: the headers tell the new state. An unknown session is refused as always.
        return WireResponse(204, outcome_headers(o)) if o.session_id is not None else refusal(o)

    if path == "/unlock":
        wrong = expect("POST")
        if wrong:
            return wrong
        if config.verify_credential is None:
            return _error(501, "this server verifies no credential (verify_credential)", "inactivity.unlock_unavailable")
        credential = _body(request).get("credential")
        if not isinstance(credential, str) or not credential or len(credential) > 1024:
            return _error(400, 'the body must be {"credential": "<1 to 1024 characters>"}')
        current = manager.status(session_id)
        if current.user is None or current.state == "EXPIRED":
            return refusal(current)
        if current.state != "LOCKED":
            # The core counts no failure outside LOCKED, so a credential verified there would be
            # answered "right" or "wrong" for free: an unlimited password oracle for whoever holds
            # the session. An unlock attempt says the client is locked (its own lock the server
            # may not have taken): the server locks too (stricter), then failures count.
            current = manager.report(session_id, "LOCKED", "MANUAL_LOCK")
            if current.state != "LOCKED":
                return refusal(current) if not current.allowed else _not_locked(current)
        try:
            ok = _answer(config.verify_credential(current.user or "", credential), "verify_credential")
            if type(ok) is not bool:
                # Only True unlocks: a truthy other answer (an error message, a user object, a
                # result dict whose "ok" is False) is no verified credential.
                raise RuntimeError(f"verify_credential must return a bool, not {type(ok).__name__}")
        except Exception:
            # An attempt the app could not verify is a failed one. Uncounted, a verifier that
            # raises on a wrong credential (argon2's verify does) would tell right (200) from
            # wrong (500) for as many guesses as anyone holding the session sends.
            manager.unlock(session_id, False)
            raise
        after = manager.unlock(session_id, ok)
        if not ok and after.allowed:
            return _not_locked(after)  # unlocked meanwhile by another request: nothing counted
        return _outcome_response(after, 200, {"unlocked": ok})

    if path == "/sign-out":
        wrong = expect("POST")
        if wrong:
            return wrong
        o = manager.sign_out(session_id)
        if o.session_id is None:
            return refusal(o)
        headers = outcome_headers(o)
        if config.cookie is not None:
            headers.append(_cookie(config, "", max_age=0))
        return WireResponse(204, headers)

    if path == "/sessions" or path.startswith("/sessions/"):
        # The sessions list and revocations: a request of the user's, decided like any other.
        current = manager.request(session_id, machine=config.is_machine(request))
        if not current.allowed:
            return refusal(current)
        assert current.user is not None and session_id is not None
        rest = path[len("/sessions"):]
        if rest == "":
            wrong = expect("GET")
            if wrong:
                return wrong
            rows = manager.sessions(current.user, session_id)
            return _json(200, {"sessions": [r.to_json() for r in rows]}, outcome_headers(current))
        if rest == "/revoke-others":
            wrong = expect("POST")
            if wrong:
                return wrong
            return _json(200, {"revoked": manager.revoke_others(session_id)}, outcome_headers(current))
        if rest == "/revoke-all":
            wrong = expect("POST")
            if wrong:
                return wrong
            n = manager.revoke_all(current.user)
            after = manager.status(session_id)
            headers = outcome_headers(after)
            if config.cookie is not None:
                headers.append(_cookie(config, "", max_age=0))
            return _json(200, {"revoked": n}, headers)
        handle = rest[1:]
        wrong = expect("DELETE")
        if wrong:
            return wrong
        if not manager.revoke_handle(current.user, handle):
            return _error(404, "no such session of this user", "inactivity.not_found")
        return WireResponse(204, outcome_headers(manager.status(session_id)))

    return _error(404, f"no such endpoint: {request.path}", "inactivity.not_found")
