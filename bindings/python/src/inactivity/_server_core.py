"""A server's decision over a stored session record: ``inact_server_decide_prepared`` (the
policy prepared once, ``inact_server_policy_prepare``) through ctypes.

Pure ctypes and the standard library: the client binding keeps no runtime dependency, and the
server package (``inactivity.server``) re-exports these names. Nothing here decides anything:
the library's session machine does (include/inactivity.h, ``inact_server_decide``;
docs/design.md, "The server"), and this module converts arguments and results.

    decision, record = decide(policy, stored, now_ms, ServerInput.REQUEST)
    if record is not None:
        store(record)          # the record changed: write it (compare-and-set)
    if decision.state in (State.LOCKED, State.EXPIRED):
        refuse(decision)       # 403 / 401

Times are milliseconds since 1970 on the fleet's wall clock (``time.time_ns() // 1_000_000``).
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import threading
import struct
from ctypes import byref, c_int32, c_int64, c_size_t
from typing import Any, Optional, Tuple, Union

from . import _lib
from ._generated.enums import ServerInput
from ._generated.ffi import CDecision
from ._generated.views import DECISION_FORMAT, DecisionView, decision_fields
from .enums import State
from .policy import Policy

__all__ = ["DEFAULT_PRECISION_MS", "RECORD_SIZE", "Decision", "ServerInput", "decide"]

#: The size of every record (INACT_SNAPSHOT_MAX_SIZE): the snapshot format on the fleet's clock.
RECORD_SIZE = 96

#: The coalescing precision ``decide`` uses unless told: a session's stored last activity is
#: written at most about once a second per session, and lags the user's by less than a second
#: (so the idle deadline falls up to a second early, never late). It must be shorter than the
#: policy's idle timeout less its warning.
DEFAULT_PRECISION_MS = 1000



@dataclasses.dataclass(frozen=True)
class Decision(DecisionView):
    """The outcome of ``decide`` (``inact_decision``; its fields are generated from the header,
    ``_generated/views.py``). Times are ms since 1970 on the fleet's clock; None where the
    library says INACT_NEVER (no such deadline, or not kept). ``required_auth`` is what an
    unlock needs (``Auth.NONE`` unless LOCKED); ``write``: the record changed and must be stored
    (``decide`` returns it); ``now_ms`` is the later of the instant given and the record's own;
    ``last_activity_ms`` is the stored (coalesced) last activity, while the session runs."""

    @property
    def allowed(self) -> bool:
        """True when the session runs (ACTIVE or WARNING): the request may proceed."""
        return self.state in (State.ACTIVE, State.WARNING)

    @property
    def idle_remaining_ms(self) -> Optional[int]:
        """Milliseconds from ``now_ms`` to the idle action (the ``Inactivity-Idle-Remaining-Ms``
        header); None when none runs."""
        return None if self.idle_deadline_ms is None else max(0, self.idle_deadline_ms - self.now_ms)

    @property
    def absolute_remaining_ms(self) -> Optional[int]:
        """Milliseconds from ``now_ms`` to the absolute expiry (``Inactivity-Absolute-Remaining-Ms``);
        None when none runs."""
        return None if self.absolute_deadline_ms is None else max(0, self.absolute_deadline_ms - self.now_ms)


_new = object.__new__
_set = object.__setattr__


@functools.lru_cache(maxsize=64)
def _c_policy_of(policy: Policy) -> _lib.CPolicy:
    # A Policy is a frozen value: its C struct is made once per distinct policy and only read.
    return policy._to_c()


#: INACT_SERVER_POLICY_SIZE: the block inact_server_policy_prepare writes.
PREPARED_POLICY_SIZE = 256


@functools.lru_cache(maxsize=64)
def _prepared_of(policy: Policy) -> Any:
    """The policy validated and converted once (``inact_server_policy_prepare``), for
    ``inact_server_decide_prepared``: a server decides request after request under one policy,
    and the library then checks the block's check word instead of validating the policy on each
    call. Raises the library's error for an invalid policy (nothing is cached then)."""
    block = ctypes.create_string_buffer(PREPARED_POLICY_SIZE)
    _lib.LIB.inact_server_policy_prepare(byref(_c_policy_of(policy)), block, PREPARED_POLICY_SIZE)
    return block


class _Buffers(threading.local):
    """Each thread's out-structs, made once: a decision is a call a server makes per request.

    The arguments that do not change from call to call are made once too, as ctypes objects,
    for the unchecked call below: the table's checked call converts each of its eleven
    arguments through its argtype's from_param (an object per argument), which cost as much
    as the decision itself."""

    def __init__(self) -> None:
        self.decision = CDecision()
        self.out = ctypes.create_string_buffer(RECORD_SIZE)
        self.written = c_size_t(0)
        self.decision_ref = byref(self.decision)
        self.written_ref = byref(self.written)
        self.policy: Optional[Policy] = None
        self.policy_ref: Any = None
        # The decision read back in one unpack of its bytes, not field by field.
        self.decision_bytes = (ctypes.c_char * ctypes.sizeof(CDecision)).from_buffer(self.decision)
        self.precision_ms = -1
        self.precision_arg: Any = None
        # now_ms's argument, reused: its value set per call costs less than a new c_int64.
        self.now_arg = c_int64(0)
        self.fixed: Any = None


_buffers = _Buffers()
_NO_ARG = ctypes.c_int64(0)
_CAPACITY = c_size_t(RECORD_SIZE)
#: The length of every record this library writes: passed as it is, not made per call.
_RECORD_LENGTH = c_size_t(RECORD_SIZE)
#: The size inact_decision's bytes have in DECISION_FORMAT (generated from the header's fields):
#: the struct as ctypes lays it out has no padding on any CPU the library ships for, checked here.
_DECISION_SIZE = struct.calcsize(DECISION_FORMAT)
assert _DECISION_SIZE == ctypes.sizeof(CDecision)
# inact_server_decide_prepared without argtypes or errcheck: every argument is given as the C
# type it is (a ctypes object, or a Python int only where the parameter is an int32), so nothing
# is converted by a from_param. A negative status is decided again by the checked call, which
# raises the library's error.
_UNCHECKED = _lib.LIB._FuncPtr(("inact_server_decide_prepared", _lib.LIB))
_UNCHECKED.restype = c_int32


def decide(
    policy: Policy,
    record: Union[bytes, bytearray, memoryview, None],
    now_ms: int,
    input: Union[ServerInput, int],
    arg: int = 0,
    precision_ms: int = DEFAULT_PRECISION_MS,
) -> Tuple[Decision, Optional[bytes]]:
    """Decides ``input`` over the stored ``record`` at ``now_ms`` under ``policy``.

    Returns the decision and the record to store when it changed (``decision.write``), else
    None. ``record`` may be None only for ``ServerInput.SIGN_IN``. A corrupt record is decided
    EXPIRED (RESTORE_FAILED) with a record to store. Bad arguments raise the binding's
    ``InvalidArgumentError`` (``InactivityError`` for a missing record) naming the argument and
    the rule, and nothing is decided. Any thread may call it.
    """
    b = _buffers
    if policy is not b.policy or precision_ms != b.precision_ms:
        # The policy prepared once per distinct policy (its block cached): an invalid one raises
        # here, as the decision would.
        b.policy_ref = _prepared_of(policy)
        b.policy = policy
        b.precision_arg = c_int64(precision_ms)
        b.precision_ms = precision_ms
        # What the unchecked call takes that this policy and precision fix, read in one lookup.
        b.fixed = (b.policy_ref, b.precision_arg, b.decision_ref, b.out, b.written_ref, b.decision, b.decision_bytes,
                   b.now_arg)
    policy_ref, precision_arg, decision_ref, out, written_ref, d, decision_bytes, now_arg = b.fixed
    data = record if record is None or type(record) is bytes else bytes(record)
    d.size = _DECISION_SIZE
    try:
        now_arg.value = now_ms
        status = _UNCHECKED(
            policy_ref, data,
            _RECORD_LENGTH if data is not None and len(data) == RECORD_SIZE else c_size_t(0 if data is None else len(data)),
            now_arg, int(input), c_int64(arg) if arg else _NO_ARG, precision_arg, decision_ref, out, _CAPACITY, written_ref,
        )
    except (TypeError, OverflowError, ctypes.ArgumentError):
        status = -1   # an argument of the wrong type or range: the checked call names it
    if status < 0:
        d.size = _DECISION_SIZE
        _lib.LIB.inact_server_decide_prepared(
            policy_ref, data, 0 if data is None else len(data), now_ms, input, arg, precision_ms,
            decision_ref, out, RECORD_SIZE, written_ref,
        )
    fields = decision_fields(decision_bytes)
    # A frozen dataclass's __init__ sets each of its eleven fields through object.__setattr__:
    # per request, that was the largest share of this module's own time. The same fields, in
    # one dict, make an equal, equally frozen Decision.
    result = _new(Decision)
    _set(result, "__dict__", fields)
    return result, (out.raw[: b.written.value] if fields["write"] else None)
